//! `meshchart inject --chart` with upstream's own linkerd-control-plane chart of a release (its
//! partials rendered through the Go-template front end) injects exactly what meshchart's
//! embedded line of that release injects, on every fixture the line is compared with upstream
//! on (whose differences from upstream's goldens are the DEVIATIONS.md rows of the line).
//!
//! The charts are `tests/reference/upstream-charts/linkerd-control-plane-<version>.tgz` (see
//! the README there: upstream's chart at the tag, packaged as `helm pull` fetches it).

use super::cases::COMMON;
use super::{chart as embedded_chart, fixture, run, LINES};
use crate::support;
use crate::support::cli::{command, run_with_stdin, scratch_dir};

use meshchart::chart::{Chart, ChartFile};
use meshchart::inject::command::{run_inject, InjectRequest};
use meshchart::values::ValueOverrides;

/// The archive of upstream's chart at `release` (edge-24.10.2 is chart version 2024.10.2).
fn archive(release: &str) -> std::path::PathBuf {
    let version = release.trim_start_matches("edge-");
    support::reference_dir().join(format!(
        "upstream-charts/linkerd-control-plane-20{version}.tgz"
    ))
}

fn upstream_chart(release: &str) -> Chart {
    let path = archive(release);
    let path = camino::Utf8Path::from_path(&path).expect("UTF-8 path");
    Chart::from_archive(path).unwrap_or_else(|e| panic!("{release}: {e}"))
}

#[test]
fn upstreams_chart_injects_what_the_embedded_line_injects_on_every_fixture() {
    let mut failures = Vec::new();
    for release in LINES {
        let (ours, theirs) = (embedded_chart(release), upstream_chart(release));
        for case in COMMON {
            let expected = run(release, &ours, case).map(|r| r.transformed);
            let got = run(release, &theirs, case).map(|r| r.transformed);
            match (expected, got) {
                (Ok(expected), Ok(got)) => {
                    if got.output != expected.output {
                        failures.push(format!(
                            "{release} {}: output differs:\n{}",
                            case.name,
                            similar::TextDiff::from_lines(&expected.output, &got.output)
                                .unified_diff()
                                .header("the line's", "the chart's")
                        ));
                    }
                    if got.report != expected.report {
                        failures.push(format!(
                            "{release} {}: report differs:\nline's:\n{}\nchart's:\n{}",
                            case.name,
                            expected.report.render(Default::default()),
                            got.report.render(Default::default())
                        ));
                    }
                }
                (expected, got) => failures.push(format!(
                    "{release} {}: line {:?}, chart {:?}",
                    case.name,
                    expected.err(),
                    got.err()
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_binary_injects_with_an_upstream_chart_folder_as_with_its_archive() {
    let release = "edge-26.8.3";
    let scratch = scratch_dir("upstream-chart-folder");
    let archive_file = std::fs::File::open(archive(release)).expect("the archive opens");
    tar::Archive::new(flate2::read::GzDecoder::new(archive_file))
        .unpack(&scratch)
        .expect("the archive unpacks");
    let folder = scratch.join("linkerd-control-plane");
    let input = fixture(release, "inject_emojivoto_deployment.input.yml");
    let anchors = support::reference_dir().join("valid-trust-anchors.pem");
    let inject = |chart: &std::path::Path| {
        let out = run_with_stdin(
            command(&[
                "inject",
                "-",
                "--chart",
                chart.to_str().expect("UTF-8"),
                "--set-file",
                &format!("identityTrustAnchorsPEM={}", anchors.display()),
            ])
            .env("SOURCE_DATE_EPOCH", "0"),
            &input,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("UTF-8 output")
    };
    let from_folder = inject(&folder);
    assert!(from_folder.contains("name: linkerd-proxy"), "{from_folder}");
    assert_eq!(from_folder, inject(&archive(release)));
    let _ = std::fs::remove_dir_all(&scratch);
}

/// The chart's files as it was read (the subchart's among the others, under `charts/`).
fn chart_files(chart: &Chart) -> Vec<ChartFile> {
    let mut files = vec![ChartFile {
        path: "Chart.yaml".into(),
        text: chart.chart_yaml.as_str().into(),
    }];
    let under = |dir: &str, list: &[ChartFile]| {
        list.iter()
            .map(|f| ChartFile {
                path: format!("{dir}{}", f.path),
                text: f.text.clone(),
            })
            .collect::<Vec<_>>()
    };
    files.extend(under("templates/", &chart.templates));
    files.extend(chart.default_values.iter().cloned());
    files.extend(chart.value_overlays.iter().cloned());
    files.extend(chart.other_files.iter().cloned());
    files
}

/// Injects the deployment fixture with `chart` and upstream's test settings: the error text.
fn inject_error(chart: &Chart) -> String {
    let input = fixture("edge-26.8.3", "inject_emojivoto_deployment.input.yml");
    let anchors = support::reference_dir().join("valid-trust-anchors.pem");
    let mut stdin = input.as_bytes();
    run_inject(
        chart,
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
    .expect_err("inject refuses the chart")
    .to_string()
}

#[test]
fn a_go_chart_that_is_not_linkerds_is_refused_naming_the_partial_it_lacks() {
    let path = support::reference_dir().join("go-charts/demo");
    let chart = Chart::from_dir(camino::Utf8Path::from_path(&path).expect("UTF-8"))
        .expect("the demo chart loads");
    let error = inject_error(&chart);
    assert!(
        error.contains("go-charts/demo")
            && error.contains("not a Linkerd control-plane chart")
            && error.contains("\"partials.proxy\"")
            && error.contains("charts/partials/templates/_proxy.tpl"),
        "{error}"
    );
}

/// The edge-26.8.3 chart with one file of its partials subchart replaced by `text`.
fn with_partials_file(name: &str, text: &str) -> Chart {
    let chart = upstream_chart("edge-26.8.3");
    let mut files = chart_files(&chart);
    let path = format!("charts/partials/templates/{name}");
    let file = files
        .iter_mut()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("the chart has {path}"));
    file.text = text.into();
    Chart::from_files("edited-chart", files).expect("the edited chart loads")
}

#[test]
fn a_chart_without_the_volume_partials_is_refused_naming_them() {
    let error = inject_error(&with_partials_file("_volumes.tpl", ""));
    assert!(
        error.contains("edited-chart")
            && error.contains("partials.proxyInit.volumes.xtables")
            && error.contains("charts/partials/templates/_volumes.tpl"),
        "{error}"
    );
}

#[test]
fn a_partial_that_does_not_parse_is_named_with_its_file_and_line() {
    let broken = "{{- define \"partials.debug\" -}}\nname: linkerd-debug\n{{ if }}\n{{- end -}}\n";
    let error = inject_error(&with_partials_file("_debug.tpl", broken));
    assert!(
        error.contains("linkerd-control-plane/charts/partials/templates/_debug.tpl:3"),
        "{error}"
    );
}

#[test]
fn a_partial_that_fails_names_the_container_and_the_template() {
    let failing = "{{ define \"partials.proxy\" -}}\n{{ fail \"no proxy here\" }}\n{{- end }}\n";
    let error = inject_error(&with_partials_file("_proxy.tpl", failing));
    assert!(
        error.contains("linkerd-proxy")
            && error.contains("_proxy.tpl:2")
            && error.contains("no proxy here"),
        "{error}"
    );
}

/// Injects `input` with `chart`, `set` over upstream's test settings and `extra` flags.
fn inject_with(
    chart: &Chart,
    input: &str,
    set: &[&str],
    extra: &InjectRequest,
) -> Result<meshchart::inject::Transformed, String> {
    let anchors = support::reference_dir().join("valid-trust-anchors.pem");
    let mut stdin = input.as_bytes();
    run_inject(
        chart,
        &InjectRequest {
            inputs: vec!["-".into()],
            overrides: ValueOverrides {
                set: set.iter().map(|s| (*s).to_owned()).collect(),
                set_file: vec![format!("identityTrustAnchorsPEM={}", anchors.display())],
                ..ValueOverrides::default()
            },
            ..extra.clone()
        },
        &mut stdin,
    )
    .map(|run| run.transformed)
    .map_err(|e| e.to_string())
}

/// The deployment fixture with `annotations` on its pod template.
fn annotated_deployment(release: &str, annotations: &[(&str, &str)]) -> String {
    let block: String = annotations
        .iter()
        .map(|(k, v)| format!("        {k}: {v:?}\n"))
        .collect();
    fixture(release, "inject_emojivoto_deployment.input.yml").replacen(
        "    metadata:\n      labels:",
        &format!("    metadata:\n      annotations:\n{block}      labels:"),
        1,
    )
}

/// Tracing on, with a collector and its identity (the proxy partial requires them).
const TRACING: [&str; 4] = [
    "proxy.tracing.enabled=true",
    "proxy.tracing.collector.endpoint=collector.tracing:4317",
    "proxy.tracing.collector.meshIdentity.serviceAccountName=collector",
    "proxy.tracing.collector.meshIdentity.namespace=tracing",
];

/// Settings no upstream fixture covers: the release lines' annotations (and two a line's chart
/// lacks, which both refuse with a warning), tracing, the CNI plugin with native sidecars,
/// another control-plane namespace, and the control plane's own linkerd-config.
#[test]
fn upstreams_chart_injects_what_the_line_injects_beyond_the_fixtures() {
    let annotations = [
        ("config.linkerd.io/access-log", "json"),
        ("config.linkerd.io/shutdown-grace-period", "1m"),
        ("config.linkerd.io/proxy-gid", "2103"),
        ("config.linkerd.io/skip-subnets", "10.0.0.0/8"),
        ("config.linkerd.io/proxy-admin-shutdown", "enabled"),
        ("config.linkerd.io/proxy-log-http-headers", "insecure"),
        ("config.linkerd.io/proxy-cpu-limit", "1500m"),
        ("config.linkerd.io/proxy-memory-request", "64Mi"),
        ("config.linkerd.io/opaque-ports", "http,4000"),
        ("config.linkerd.io/skip-inbound-ports", "9000"),
        ("config.linkerd.io/proxy-await", "disabled"),
        ("config.linkerd.io/disable-identity", "true"),
        ("config.linkerd.io/init-image", "example.com/proxy-init"),
        (
            "config.alpha.linkerd.io/proxy-enable-native-sidecar",
            "false",
        ),
    ];
    let mut failures = Vec::new();
    for release in LINES {
        let (ours, theirs) = (embedded_chart(release), upstream_chart(release));
        let plain = fixture(release, "inject_emojivoto_deployment.input.yml");
        let annotated = annotated_deployment(release, &annotations);
        let config =
            support::reference_dir().join(format!("upstream/{release}/defaults/helm.yaml"));
        let with_config = InjectRequest {
            config: Some(config.display().to_string()),
            ..InjectRequest::default()
        };
        let none = InjectRequest::default();
        let variants: [(&str, &str, &[&str], &InjectRequest); 6] = [
            ("annotations", &annotated, &[], &none),
            ("tracing", &plain, &TRACING, &none),
            (
                "cni-native",
                &plain,
                &["cniEnabled=true", "proxy.nativeSidecar=true"],
                &none,
            ),
            ("namespace", &plain, &["namespace=mesh"], &none),
            (
                "debug-classic",
                &plain,
                &["debugContainer.enabled=true", "proxy.nativeSidecar=false"],
                &none,
            ),
            ("config", &plain, &[], &with_config),
        ];
        for (name, input, set, extra) in variants {
            let expected = inject_with(&ours, input, set, extra);
            let got = inject_with(&theirs, input, set, extra);
            match (expected, got) {
                (Ok(expected), Ok(got)) if expected == got => {}
                (Ok(expected), Ok(got)) => failures.push(format!(
                    "{release} {name}:\n{}\nreports:\n{}\n{}",
                    similar::TextDiff::from_lines(&expected.output, &got.output)
                        .unified_diff()
                        .header("the line's", "the chart's"),
                    expected.report.render(Default::default()),
                    got.report.render(Default::default())
                )),
                (expected, got) => failures.push(format!(
                    "{release} {name}: line {:?}, chart {:?}",
                    expected.err(),
                    got.err()
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The partials' own checks hold with upstream's chart as with the line's: tracing without a
/// collector is refused, naming the partial's file and line and the chart's message.
#[test]
fn upstreams_partials_refuse_what_they_refuse_at_helm_template() {
    let release = "edge-26.8.3";
    let input = fixture(release, "inject_emojivoto_deployment.input.yml");
    let set = ["proxy.tracing.enabled=true"];
    let none = InjectRequest::default();
    let line = inject_with(&embedded_chart(release), &input, &set, &none);
    let chart = inject_with(&upstream_chart(release), &input, &set, &none);
    let (Err(line), Err(chart)) = (line, chart) else {
        panic!("both refuse tracing without a collector");
    };
    let message = "proxy.tracing.collector.endpoint must be set if proxy tracing is enabled";
    assert!(line.contains(message), "{line}");
    assert!(
        chart.contains("deployment/web")
            && chart.contains("linkerd-proxy")
            && chart.contains("charts/partials/templates/_proxy.tpl:158")
            && chart.contains(message),
        "{chart}"
    );
}

/// A partial only some pods need (the debug sidecar's) is asked for when a pod needs it: a
/// chart without it injects other pods, and refuses one that needs it, naming it.
#[test]
fn a_chart_without_the_debug_partial_refuses_only_the_debug_sidecar() {
    let chart = with_partials_file("_debug.tpl", "");
    let input = fixture("edge-26.8.3", "inject_emojivoto_deployment.input.yml");
    let none = InjectRequest::default();
    assert!(inject_with(&chart, &input, &[], &none).is_ok());
    let error = inject_with(&chart, &input, &["debugContainer.enabled=true"], &none)
        .expect_err("the debug sidecar cannot be rendered");
    assert!(
        error.contains("linkerd-debug")
            && error.contains("partials.debug")
            && error.contains("charts/partials/templates/_debug.tpl"),
        "{error}"
    );
}

/// The fixture cases upstream's CLI at edge-24.8.2 is compared on (their files are in
/// `tests/reference/inject-edge-24.8.2/`; the README there says where they came from).
const EDGE_24_8_2_CASES: &[&str] = &[
    "deployment",
    "pod",
    "statefulset",
    "list",
    "deployment_capabilities",
    "deployment_debug",
    "deployment_no_init_container",
    "deployment_proxyignores",
    "deployment_opaque_ports",
    "pod_ingress",
    "deployment_native_sidecar",
    "deployment_config_overrides",
    "deployment_overridden",
    "pod_with_requests",
];

/// What the feature is for: a release meshchart does not embed (edge-24.8.2, before the
/// edge-24.10.2 line; its proxy lacks the user-timeout variables edge-24.10.2's has) injected
/// with upstream's chart of that release gives upstream's own CLI output at that tag, except
/// the differences the same era's line lists (`## edge-24.10.2 inject` of DEVIATIONS.md; only
/// that each difference is listed is checked here, as these cases are a subset of the line's).
#[test]
fn a_release_meshchart_does_not_embed_injects_as_its_own_cli_except_the_eras_rows() {
    let release = "edge-24.8.2";
    assert!(
        meshchart::releases::row(release).is_none(),
        "{release} is embedded now: pick an older release for this test"
    );
    let chart = upstream_chart(release);
    let found: Vec<super::Difference> = COMMON
        .iter()
        .filter(|case| EDGE_24_8_2_CASES.contains(&case.name))
        .flat_map(|case| super::differences(release, &chart, case))
        .collect();
    assert!(
        found.iter().all(|d| d.path != "(case)"),
        "{}",
        found
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
    let heading = "## edge-24.10.2 inject";
    let rows =
        support::deviations::read_table(heading, &["case", "resource", "field path", "reason"]);
    let key = |d: &super::Difference| vec![d.case.clone(), d.resource.clone(), d.path.clone()];
    let used: Vec<_> = rows
        .into_iter()
        .filter(|row| {
            found.iter().any(|d| {
                let key = key(d);
                row.covers(&key.iter().map(String::as_str).collect::<Vec<_>>())
            })
        })
        .collect();
    let report = support::deviations::unmatched(heading, &used, &found, key);
    assert!(report.is_empty(), "{report}");
    // The edge-24.10.2 line adds what this release's proxy does not read.
    let deployment = COMMON
        .iter()
        .find(|c| c.name == "deployment")
        .expect("a case");
    let theirs = super::inject(release, &chart, deployment).expect("injects");
    let line =
        super::inject(release, &embedded_chart("edge-24.10.2"), deployment).expect("injects");
    let variable = "LINKERD2_PROXY_INBOUND_ACCEPT_USER_TIMEOUT";
    assert!(!theirs.contains(variable) && line.contains(variable));
}

#[test]
fn the_binary_refuses_a_chart_that_is_not_linkerds_exiting_1_with_nothing_on_stdout() {
    let input = fixture("edge-26.8.3", "inject_emojivoto_deployment.input.yml");
    let out = run_with_stdin(
        &mut command(&["inject", "-", "--chart", "tests/reference/go-charts/demo"]),
        &input,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(
        stderr.contains("tests/reference/go-charts/demo: not a Linkerd control-plane chart"),
        "{stderr}"
    );
}
