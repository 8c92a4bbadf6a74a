//! `meshchart inject` with each release line's own chart, compared with that release's
//! `linkerd inject` (upstream's CLI fixtures at the tag, copied into
//! `tests/reference/inject-<release>/`; see the README there), resource by resource and field by
//! field.
//!
//! Every difference must be listed, with its reason, in the line's inject table of
//! `tests/reference/DEVIATIONS.md` (`## <release> inject`; columns: case, resource, field path,
//! reason; `*` matches any run of characters), and every row must match a difference: the test
//! fails on a difference no row lists and on a row no difference matches.
//!
//! Upstream's test settings (`cli/cmd/inject_test.go` and `install_test.go` at the tag): the
//! chart's defaults with `linkerdVersion`, the proxy and debug image versions set to test
//! strings and the trust anchors of `testdata/valid-trust-anchors.pem` (the same file as our
//! `tests/reference/valid-trust-anchors.pem`); a case's own settings are given as `--set`.
//!
//! `INJECT_LINES_COUNTS=1 cargo test --test integration inject_release_lines -- --nocapture` also prints,
//! per case, the leaf differences: leaves only in the golden, only in ours, and differing.

use crate::support;

use meshchart::chart::Chart;
use meshchart::inject::command::{run_inject, InjectRequest, Run};
use meshchart::values::{Value, ValueOverrides};
use std::collections::BTreeMap;
use support::deviations::{read_table, unmatched};
use support::tree_diff::{leaves, TreeDiff};

mod cases;
mod upstream_chart;

use cases::{Case, COMMON, UNINJECT_PAIRS};

/// The release lines whose inject is compared.
const LINES: &[&str] = &["edge-24.10.2", "edge-26.8.3"];

/// A difference between our output and upstream's golden.
struct Difference {
    case: String,
    resource: String,
    path: String,
    message: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} | {} | {} | {}",
            self.case, self.resource, self.path, self.message
        )
    }
}

fn fixture(release: &str, name: &str) -> String {
    support::reference_file(&format!("inject-{release}/{name}"))
}

fn chart(release: &str) -> Chart {
    meshchart::releases::embedded_line(release, "linkerd-control-plane")
        .unwrap_or_else(|e| panic!("{release}: {e}"))
}

/// Injects `case`'s input with `release`'s chart and upstream's test settings: the output.
fn inject(release: &str, chart: &Chart, case: &Case) -> Result<String, String> {
    run(release, chart, case).map(|run| {
        if std::env::var_os("INJECT_LINES_REPORTS").is_some() {
            eprintln!(
                "{release} {}:\n{}",
                case.name,
                run.transformed.report.render(Default::default())
            );
        }
        run.transformed.output
    })
}

/// Injects `case`'s input with `release`'s chart and upstream's test settings.
fn run(release: &str, chart: &Chart, case: &Case) -> Result<Run, String> {
    let anchors = support::reference_dir().join("valid-trust-anchors.pem");
    let mut set = vec![
        "linkerdVersion=test-inject-control-plane-version".to_owned(),
        "proxy.image.version=test-inject-proxy-version".to_owned(),
        "debugContainer.image.version=test-inject-debug-version".to_owned(),
    ];
    set.extend(case.set.iter().map(|s| (*s).to_owned()));
    let input = fixture(release, case.input);
    let mut stdin = input.as_bytes();
    run_inject(
        chart,
        &InjectRequest {
            inputs: vec!["-".into()],
            overrides: ValueOverrides {
                set,
                set_file: vec![format!("identityTrustAnchorsPEM={}", anchors.display())],
                ..ValueOverrides::default()
            },
            ..InjectRequest::default()
        },
        &mut stdin,
    )
    .map_err(|e| e.to_string())
}

/// The resources of a stream, a `List` counting as one.
fn documents(text: &str) -> Vec<Value> {
    meshchart::yaml::parse_documents(text)
        .expect("YAML parses")
        .into_iter()
        .filter(|d| !matches!(d, Value::Null))
        .collect()
}

fn resource_name(doc: &Value) -> String {
    let at = |path: &[&str]| {
        doc.get_path(path)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    format!("{}/{}", at(&["kind"]), at(&["metadata", "name"]))
}

/// `case`'s resources, ours and the golden's, paired in order (`None` on the side that lacks
/// one); `Err` when inject failed.
type Pairs = Vec<(String, Option<Value>, Option<Value>)>;

fn pairs(release: &str, chart: &Chart, case: &Case) -> Result<Pairs, String> {
    let output = inject(release, chart, case)?;
    let expected = documents(&fixture(release, case.golden));
    let got = documents(&output);
    let mut out = Vec::new();
    for i in 0..expected.len().max(got.len()) {
        let (e, g) = (expected.get(i).cloned(), got.get(i).cloned());
        match (&e, &g) {
            (Some(ev), Some(gv)) if resource_name(ev) != resource_name(gv) => {
                out.push((resource_name(ev), e, None));
                out.push((resource_name(gv), None, g));
            }
            _ => {
                let name = resource_name(e.as_ref().or(g.as_ref()).expect("one side"));
                out.push((name, e, g));
            }
        }
    }
    Ok(out)
}

fn differences(release: &str, chart: &Chart, case: &Case) -> Vec<Difference> {
    let mut out = Vec::new();
    let mut diff = |resource: &str, path: &str, message: String| {
        out.push(Difference {
            case: case.name.to_owned(),
            resource: resource.to_owned(),
            path: path.to_owned(),
            message,
        })
    };
    let pairs = match pairs(release, chart, case) {
        Ok(p) => p,
        Err(e) => {
            diff("*", "(case)", format!("failed: {e}"));
            return out;
        }
    };
    for (name, expected, got) in pairs {
        match (expected, got) {
            (Some(e), Some(g)) => {
                for (p, m) in TreeDiff::default().run(&e, &g) {
                    diff(&name, &p, m);
                }
            }
            (Some(_), None) => diff(&name, "(resource)", "only in the golden".into()),
            (None, _) => diff(&name, "(resource)", "only in ours".into()),
        }
    }
    out
}

#[test]
fn each_lines_inject_matches_its_release_except_listed_deviations() {
    let mut failures = String::new();
    for release in LINES {
        let chart = chart(release);
        let found: Vec<Difference> = COMMON
            .iter()
            .flat_map(|case| differences(release, &chart, case))
            .collect();
        let heading = format!("## {release} inject");
        let rows = read_table(&heading, &["case", "resource", "field path", "reason"]);
        failures.push_str(&unmatched(&heading, &rows, &found, |d| {
            vec![d.case.clone(), d.resource.clone(), d.path.clone()]
        }));
    }
    assert!(failures.is_empty(), "{failures}");
}

/// Leaves only in the golden, only in ours, and differing, over the pair.
fn leaf_counts(expected: Option<&Value>, got: Option<&Value>) -> (usize, usize, usize) {
    let flat = |v: Option<&Value>| {
        let mut out = BTreeMap::new();
        if let Some(v) = v {
            leaves(v, String::new(), &mut out);
        }
        out
    };
    let (e, g) = (flat(expected), flat(got));
    let only_golden = e.keys().filter(|k| !g.contains_key(*k)).count();
    let only_ours = g.keys().filter(|k| !e.contains_key(*k)).count();
    let differing = e
        .iter()
        .filter(|(k, v)| g.get(*k).is_some_and(|gv| gv != *v))
        .count();
    (only_golden, only_ours, differing)
}

/// Prints the leaf counts when `INJECT_LINES_COUNTS` is set (for reports; asserts nothing
/// beyond inject succeeding).
#[test]
fn leaf_difference_counts() {
    let print = std::env::var_os("INJECT_LINES_COUNTS").is_some();
    for release in LINES {
        let chart = chart(release);
        for case in COMMON {
            let pairs = pairs(release, &chart, case)
                .unwrap_or_else(|e| panic!("{release} {}: {e}", case.name));
            let mut totals = (0, 0, 0);
            for (_, e, g) in &pairs {
                let (a, b, c) = leaf_counts(e.as_ref(), g.as_ref());
                totals = (totals.0 + a, totals.1 + b, totals.2 + c);
            }
            if print {
                println!(
                    "{release} {:<26} only-golden {:>3}  only-ours {:>3}  differing {:>3}",
                    case.name, totals.0, totals.1, totals.2
                );
            }
        }
    }
}

#[test]
fn the_2021_line_declares_no_pod_additions_and_the_release_lines_do() {
    let has = |chart: &Chart| chart.templates.iter().any(|t| t.path == "_inject.tpl");
    assert!(
        !has(&chart("edge-21.4.4")),
        "the 2021 line's additions are built in"
    );
    for release in LINES {
        assert!(has(&chart(release)), "{release} declares its pod additions");
    }
}

/// `uninject` takes out exactly what each line's inject put in: the input comes back, parsed
/// (upstream's already-injected and tap inputs hold a mesh to start with, so they are left out).
#[test]
fn uninject_restores_each_lines_inputs() {
    for release in LINES {
        let chart = chart(release);
        let meshed_inputs = ["already_injected", "tap_deployment_debug"];
        for case in COMMON.iter().filter(|c| !meshed_inputs.contains(&c.name)) {
            let injected = inject(release, &chart, case)
                .unwrap_or_else(|e| panic!("{release} {}: {e}", case.name));
            let mut stdin = injected.as_bytes();
            let restored = meshchart::inject::command::run_uninject(&["-".into()], &mut stdin)
                .unwrap_or_else(|e| panic!("{release} {}: {e}", case.name))
                .transformed
                .output;
            assert_eq!(
                documents(&restored),
                documents(&fixture(release, case.input)),
                "{release} {}: uninject did not restore the input",
                case.name
            );
        }
    }
}

/// `inject --config` with upstream's own `linkerd-config` of the release (Helm's render of its
/// chart, `tests/reference/upstream/<release>/defaults/helm.yaml`) injects what the line's chart
/// defaults with the same trust anchors inject: the line reads its release's config.
#[test]
fn inject_with_the_releases_own_linkerd_config_is_inject_with_its_defaults() {
    let input = "inject_emojivoto_deployment.input.yml";
    for release in LINES {
        let chart = chart(release);
        let run = |request: InjectRequest| {
            let text = fixture(release, input);
            let mut stdin = text.as_bytes();
            run_inject(&chart, &request, &mut stdin)
                .unwrap_or_else(|e| panic!("{release}: {e}"))
                .transformed
                .output
        };
        let config = support::repo_root().join(format!(
            "tests/reference/upstream/{release}/defaults/helm.yaml"
        ));
        let from_config = run(InjectRequest {
            inputs: vec!["-".into()],
            config: Some(config.to_string()),
            ..InjectRequest::default()
        });
        let anchors = support::repo_root().join("tests/certs/ca.crt");
        let from_defaults = run(InjectRequest {
            inputs: vec!["-".into()],
            overrides: ValueOverrides {
                set_file: vec![format!("identityTrustAnchorsPEM={anchors}")],
                ..ValueOverrides::default()
            },
            ..InjectRequest::default()
        });
        assert_eq!(
            documents(&from_config),
            documents(&from_defaults),
            "{release}: --config with upstream's linkerd-config"
        );
    }
}

/// The release lines' own annotations reach their partials (no upstream fixture sets them; the
/// env var names and value forms are those of upstream's injector at the tags).
#[test]
fn the_release_lines_annotations_configure_their_proxies() {
    let annotations = [
        ("config.linkerd.io/access-log", "apache"),
        ("config.linkerd.io/shutdown-grace-period", "1m"),
        ("config.linkerd.io/proxy-gid", "2103"),
        ("config.linkerd.io/skip-subnets", "10.0.0.0/8"),
        ("config.linkerd.io/proxy-admin-shutdown", "enabled"),
        ("config.linkerd.io/proxy-log-http-headers", "insecure"),
        (
            "config.linkerd.io/proxy-inbound-discovery-cache-unused-timeout",
            "2m",
        ),
        (
            "config.linkerd.io/proxy-disable-outbound-protocol-detect-timeout",
            "true",
        ),
    ];
    let mut input = fixture("edge-24.10.2", "inject_emojivoto_deployment.input.yml");
    let block: String = annotations
        .iter()
        .map(|(k, v)| format!("        {k}: {v:?}\n"))
        .collect();
    input = input.replacen(
        "    metadata:\n      labels:",
        &format!("    metadata:\n      annotations:\n{block}      labels:"),
        1,
    );
    for release in LINES {
        let chart = chart(release);
        let mut stdin = input.as_bytes();
        let run = run_inject(
            &chart,
            &InjectRequest {
                inputs: vec!["-".into()],
                overrides: ValueOverrides {
                    set_file: vec![format!(
                        "identityTrustAnchorsPEM={}",
                        support::reference_dir()
                            .join("valid-trust-anchors.pem")
                            .display()
                    )],
                    ..ValueOverrides::default()
                },
                ..InjectRequest::default()
            },
            &mut stdin,
        )
        .unwrap_or_else(|e| panic!("{release}: {e}"));
        let text = run.transformed.output;
        for needle in [
            "name: LINKERD2_PROXY_ACCESS_LOG\n          value: apache",
            "name: LINKERD2_PROXY_SHUTDOWN_GRACE_PERIOD\n          value: 60000ms",
            "name: LINKERD2_PROXY_SHUTDOWN_ENDPOINT_ENABLED\n          value: \"true\"",
            "name: LINKERD2_PROXY_LOG\n          value: warn,linkerd=info,hickory=error\n",
            "name: LINKERD2_PROXY_INBOUND_DISCOVERY_IDLE_TIMEOUT\n          value: 120s",
            "name: LINKERD2_PROXY_OUTBOUND_DETECT_TIMEOUT\n          value: 365d",
            "runAsGroup: 2103",
            "- --subnets-to-ignore\n        - 10.0.0.0/8",
            "- --proxy-gid\n        - \"2103\"",
        ] {
            assert!(text.contains(needle), "{release}: no {needle:?} in\n{text}");
        }
        let report = run.transformed.report.render(Default::default());
        assert!(!report.contains("warning"), "{release}: {report}");
    }
}

/// An annotation whose setting the line's chart does not have (the 2021 era's
/// `disable-identity`; `init-image`, gone with proxy-init's own image at edge-26.8.3) changes
/// nothing, and the report says so.
#[test]
fn annotations_a_lines_chart_lacks_are_warned_about_not_applied() {
    let input = fixture("edge-24.10.2", "inject_emojivoto_deployment.input.yml").replacen(
        "    metadata:\n      labels:",
        "    metadata:\n      annotations:\n        config.linkerd.io/disable-identity: \"true\"\n        \
         config.linkerd.io/init-image: example.com/proxy-init\n      labels:",
        1,
    );
    for (release, lacking) in [
        ("edge-24.10.2", &["disable-identity"][..]),
        ("edge-26.8.3", &["init-image", "disable-identity"][..]),
    ] {
        let chart = chart(release);
        let mut stdin = input.as_bytes();
        let anchors = support::reference_dir().join("valid-trust-anchors.pem");
        let run = run_inject(
            &chart,
            &InjectRequest {
                inputs: vec!["-".into()],
                overrides: ValueOverrides {
                    set_file: vec![format!("identityTrustAnchorsPEM={}", anchors.display())],
                    ..ValueOverrides::default()
                },
                ..InjectRequest::default()
            },
            &mut stdin,
        )
        .unwrap_or_else(|e| panic!("{release}: {e}"));
        let report = run.transformed.report.render(Default::default());
        for name in lacking {
            assert!(
                report.contains(&format!("config.linkerd.io/{name} has no effect")),
                "{release}: {report}"
            );
        }
        assert_eq!(
            report.matches("has no effect").count(),
            lacking.len(),
            "{release}: {report}"
        );
        let output = run.transformed.output;
        assert!(
            output.contains("LINKERD2_PROXY_IDENTITY_DIR"),
            "{release}: {output}"
        );
        // edge-24.10.2 still has proxy-init's own image, so there the annotation applies.
        assert_eq!(
            output.contains(" image: example.com/proxy-init"),
            !lacking.contains(&"init-image"),
            "{release}: {output}"
        );
    }
}

/// The workloads upstream refuses (failing the whole stream) come out exactly as they went in,
/// and the report says why each was skipped.
#[test]
fn what_upstream_refuses_passes_through_untouched_and_is_reported_skipped() {
    let refused = [
        (
            "deployment_automountServiceAccountToken_false_volumeProjection_disabled",
            "automount_service_account_token_false",
        ),
        ("istio", "sidecar_already_exists"),
        ("deployment_hostNetwork_true", "host_network_enabled"),
    ];
    for release in LINES {
        let chart = chart(release);
        for (name, reason) in refused {
            let case = COMMON
                .iter()
                .find(|c| c.name == name)
                .unwrap_or_else(|| panic!("no case {name}"));
            let output =
                inject(release, &chart, case).unwrap_or_else(|e| panic!("{release} {name}: {e}"));
            assert_eq!(
                documents(&output),
                documents(&fixture(release, case.input)),
                "{release} {name}"
            );
            let report = run(release, &chart, case)
                .unwrap_or_else(|e| panic!("{release} {name}: {e}"))
                .transformed
                .report
                .render(meshchart::inject::ReportFormat::Json);
            assert!(report.contains(reason), "{release} {name}: {report}");
        }
    }
}

/// `uninject` of what the release's own `linkerd inject` wrote gives back the input, as
/// upstream's `uninject_test.go` at the tag pairs them (its fixtures, read the other way).
#[test]
fn uninject_takes_out_what_the_releases_inject_put_in() {
    let mut failures = Vec::new();
    for release in LINES {
        for (injected, original) in UNINJECT_PAIRS {
            let text = fixture(release, injected);
            let mut stdin = text.as_bytes();
            let restored = meshchart::inject::command::run_uninject(&["-".into()], &mut stdin)
                .unwrap_or_else(|e| panic!("{release} {injected}: {e}"))
                .transformed
                .output;
            if documents(&restored) != documents(&fixture(release, original)) {
                failures.push(format!("{release} {injected}:\n{restored}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every file of `tests/reference/inject-<release>/` is a case's input or golden, an uninject
/// pair's, or the README: no fixture is copied in and forgotten.
#[test]
fn every_release_fixture_is_used() {
    let used: Vec<&str> = COMMON
        .iter()
        .flat_map(|c| [c.input, c.golden])
        .chain(UNINJECT_PAIRS.iter().flat_map(|(a, b)| [*a, *b]))
        .chain(["README.md"])
        .collect();
    for release in LINES {
        let dir = support::reference_dir().join(format!("inject-{release}"));
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let name = entry.expect("readable").file_name();
            let name = name.to_string_lossy();
            assert!(
                used.contains(&name.as_ref()),
                "{release}: {name} is used by no case"
            );
        }
    }
}

/// `meshchart inject --linkerd RELEASE` writes what the library writes with that line's chart;
/// naming the release in `linkerdVersion` instead chooses the same line.
#[test]
fn the_command_line_injects_with_the_chosen_line() {
    let case = &COMMON[0];
    let anchors = support::reference_dir().join("valid-trust-anchors.pem");
    let anchors = format!("identityTrustAnchorsPEM={}", anchors.display());
    for release in LINES {
        let expected =
            inject(release, &chart(release), case).unwrap_or_else(|e| panic!("{release}: {e}"));
        let input = fixture(release, case.input);
        let by_flag = support::cli::run_with_stdin(
            &mut support::cli::command(&[
                "inject",
                "--linkerd",
                release,
                "--set",
                "proxy.image.version=test-inject-proxy-version",
                "--set",
                "debugContainer.image.version=test-inject-debug-version",
                "--set-file",
                &anchors,
                "-",
            ]),
            &input,
        );
        assert!(
            by_flag.status.success(),
            "{release}: {}",
            String::from_utf8_lossy(&by_flag.stderr)
        );
        let by_flag = String::from_utf8_lossy(&by_flag.stdout);
        // The library run set linkerdVersion to upstream's test string; the command line keeps
        // the line's own, which only shows in the created-by stamp.
        assert_eq!(
            documents(&by_flag.replace(
                &format!("linkerd/helm {release}"),
                "linkerd/helm test-inject-control-plane-version"
            )),
            documents(&expected),
            "{release}"
        );
        let by_version = support::cli::run_with_stdin(
            &mut support::cli::command(&[
                "inject",
                "--set",
                &format!("linkerdVersion={release}"),
                "--set-file",
                &anchors,
                "-",
            ]),
            &input,
        );
        let by_version = String::from_utf8_lossy(&by_version.stdout);
        assert!(
            by_version.contains("linkerd.io/trust-root-sha256"),
            "{release}: {by_version}"
        );
    }
}
