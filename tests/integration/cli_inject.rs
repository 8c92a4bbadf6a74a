//! `meshchart inject` / `uninject` as a user runs them: exit codes, stdout carries only the
//! manifests (nothing at all on failure), the report goes to stderr, stdin works.

use crate::support;

use std::process::Output;
use support::cli::{legacy_command, run_with_stdin};

const CASES: &str = "tests/golden/inject";

fn meshchart(args: &[&str], stdin: &str) -> Output {
    run_with_stdin(&mut legacy_command(args), stdin)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn inject_writes_yaml_on_stdout_and_the_report_on_stderr() {
    let input = std::fs::read_to_string(format!(
        "{}/{CASES}/deployment/input.yaml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let out = meshchart(
        &["inject", "-", "-f", &format!("{CASES}/values.yaml")],
        &input,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let expected = std::fs::read_to_string(format!(
        "{}/{CASES}/deployment/expected.yaml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    assert_eq!(stdout, expected);
    assert_eq!(
        text(&out.stderr),
        "deployment \"web\" injected\n1 injected, 0 skipped, 0 warnings\n"
    );

    // Piping the output back through uninject gives the input's resources back.
    let back = meshchart(&["uninject", "-"], &stdout);
    assert!(back.status.success());
    assert_eq!(
        meshchart::yaml::parse_documents(&text(&back.stdout)).unwrap(),
        meshchart::yaml::parse_documents(&input).unwrap()
    );
    assert_eq!(text(&back.stderr), "deployment \"web\" uninjected\n");
}

#[test]
fn failures_write_nothing_on_stdout() {
    for (case, needle) in [
        ("error-invalid-annotation", "config.linkerd.io/proxy-await"),
        ("error-malformed-yaml", "input.yaml:29:"),
        ("error-malformed-json", "input.json:3:"),
    ] {
        let dir = format!("{CASES}/{case}");
        let input = if case.ends_with("json") {
            "input.json"
        } else {
            "input.yaml"
        };
        let out = meshchart(
            &[
                "inject",
                &format!("{dir}/{input}"),
                "-f",
                &format!("{CASES}/values.yaml"),
            ],
            "",
        );
        assert_eq!(out.status.code(), Some(1), "{case}");
        assert!(
            out.stdout.is_empty(),
            "{case}: stdout {:?}",
            text(&out.stdout)
        );
        let stderr = text(&out.stderr);
        assert!(stderr.starts_with("error: "), "{case}: {stderr}");
        assert!(stderr.contains(needle), "{case}: {stderr}");
    }
}

#[test]
fn inject_without_trust_anchors_says_what_to_give() {
    let out = meshchart(&["inject", &format!("{CASES}/pod/input.yaml")], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = text(&out.stderr);
    for way in [
        "--config FILE",
        "--certs-dir DIR",
        "--set-file identityTrustAnchorsPEM=FILE",
    ] {
        assert!(stderr.contains(way), "{stderr}");
    }
}

/// `meshchart render > cp.yaml && meshchart inject --config cp.yaml app.yaml`: the proxies get
/// the render's trust anchors and proxy version, with no other flag.
#[test]
fn inject_with_the_render_as_config_matches_that_control_plane() {
    let dir = support::cli::scratch_dir("config");
    let render = support::cli::run(
        legacy_command(&["render", "--set", "proxy.image.version=stable-2.10.2"])
            .env("SOURCE_DATE_EPOCH", "1700000000"),
    );
    assert!(render.status.success(), "{}", text(&render.stderr));
    let control_plane = dir.join("cp.yaml");
    std::fs::write(&control_plane, &render.stdout).unwrap();
    let config = control_plane.to_str().unwrap();
    let app = format!("{CASES}/deployment/input.yaml");

    let out = meshchart(&["inject", "--config", config, &app], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let injected = text(&out.stdout);
    assert!(
        injected.contains("linkerd.io/proxy-version: stable-2.10.2"),
        "{injected}"
    );
    assert!(
        injected.contains("cr.l5d.io/linkerd/proxy:stable-2.10.2"),
        "{injected}"
    );
    let rendered = meshchart::yaml::parse_documents(&text(&render.stdout)).unwrap();
    let anchors = rendered
        .iter()
        .find_map(|d| {
            let values = d.get_path(&["data", "values"])?.as_str()?;
            let values = meshchart::yaml::parse_document(values).ok()?;
            values
                .get_path(&["identityTrustAnchorsPEM"])
                .and_then(|a| a.as_str())
                .map(str::to_owned)
        })
        .expect("the render's linkerd-config has trust anchors");
    let first_line = anchors.lines().nth(1).unwrap();
    assert!(
        injected.contains(first_line),
        "the render's anchors: {first_line}"
    );

    // The same from stdin.
    let piped = meshchart(&["inject", "--config", "-", &app], &text(&render.stdout));
    assert!(piped.status.success(), "{}", text(&piped.stderr));
    assert_eq!(text(&piped.stdout), injected);
}

#[test]
fn config_and_the_input_cannot_both_be_stdin() {
    let out = meshchart(&["inject", "--config", "-", "-"], "");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "error: stdin (-) can be read only once\n"
    );
}

#[test]
fn stdin_cannot_be_read_twice() {
    let out = meshchart(&["inject", "-", "-f", "-"], "");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "error: stdin (-) can be read only once\n"
    );
}

#[test]
fn an_input_is_required() {
    let out = meshchart(&["inject"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

#[test]
fn a_namespace_later_on_stdin_configures_the_workloads_before_it() {
    // Inject reads each input twice (Namespaces first): stdin too, through a temporary copy.
    let case = format!("{}/{CASES}/namespace-inherit", env!("CARGO_MANIFEST_DIR"));
    let input = std::fs::read_to_string(format!("{case}/input.yaml")).unwrap();
    let out = meshchart(
        &["inject", "-", "-f", &format!("{CASES}/values.yaml")],
        &input,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let expected = std::fs::read_to_string(format!("{case}/expected.yaml")).unwrap();
    assert_eq!(text(&out.stdout), expected);
}

#[test]
fn a_failure_late_in_a_long_stream_writes_nothing_on_stdout() {
    let mut input = String::new();
    for i in 0..300 {
        input.push_str(&format!(
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web-{i}\nspec:\n  \
             selector:\n    matchLabels: {{app: web}}\n  template:\n    metadata:\n      \
             labels: {{app: web}}\n    spec:\n      containers:\n      - name: web\n        \
             image: web:1\n"
        ));
    }
    input.push_str(
        "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: last\n  annotations:\n    \
         config.linkerd.io/proxy-await: sometimes\nspec:\n  containers:\n  - name: app\n    \
         image: app:1\n",
    );
    let out = meshchart(
        &["inject", "-", "-f", &format!("{CASES}/values.yaml")],
        &input,
    );
    assert!(!out.status.success());
    assert!(
        out.stdout.is_empty(),
        "{} bytes on stdout",
        out.stdout.len()
    );
    assert!(
        text(&out.stderr).contains("config.linkerd.io/proxy-await"),
        "{}",
        text(&out.stderr)
    );
}

/// A control plane of `line` rendered with the pinned material, written to a scratch file.
fn control_plane_config(line: &str, name: &str, edit: impl Fn(String) -> String) -> String {
    let out = support::cli::run(
        support::cli::command(&[
            "render",
            "--linkerd",
            line,
            "-n",
            "linkerd",
            "--certs-dir",
            "tests/certs",
        ])
        .env("SOURCE_DATE_EPOCH", "1700000000"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = support::cli::scratch_dir(name).join("control-plane.yaml");
    std::fs::write(&path, edit(String::from_utf8(out.stdout).unwrap())).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn inject_with_a_config_takes_the_line_of_its_control_plane() {
    let config = control_plane_config("edge-24.10.2", "config-line", |text| text);
    let out = support::cli::run(
        support::cli::command(&[
            "inject",
            "--config",
            &config,
            "tests/reference/inject-edge-24.10.2/inject_emojivoto_deployment.input.yml",
        ])
        .env("SOURCE_DATE_EPOCH", "1700000000"),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // edge-24.10.2's proxy, with the policy service the 2021 line's has not.
    assert!(
        stdout.contains("image: cr.l5d.io/linkerd/proxy:edge-24.10.2"),
        "{stdout}"
    );
    assert!(
        stdout.contains("LINKERD2_PROXY_POLICY_SVC_ADDR"),
        "{stdout}"
    );
}

#[test]
fn inject_with_a_config_from_an_unknown_release_is_an_error() {
    let config = control_plane_config("edge-24.10.2", "config-unknown-release", |text| {
        text.replace(
            "linkerdVersion: edge-24.10.2",
            "linkerdVersion: edge-99.1.1",
        )
    });
    let out = support::cli::run(&mut support::cli::command(&[
        "inject",
        "--config",
        &config,
        "tests/reference/inject-edge-24.10.2/inject_emojivoto_deployment.input.yml",
    ]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("runs Linkerd edge-99.1.1, which meshchart does not embed"),
        "{stderr}"
    );
}

/// A cluster running any release of a served era injects that release's proxy: here a
/// control plane rendered for edge-24.11.3, a release of era edge-24.10 that is not the one its
/// templates are written from.
#[test]
fn inject_with_a_config_of_any_served_release_injects_that_releases_proxy() {
    let config = control_plane_config("edge-24.11.3", "config-served-release", |text| text);
    let out = support::cli::run(
        support::cli::command(&[
            "inject",
            "--config",
            &config,
            "tests/reference/inject-edge-24.10.2/inject_emojivoto_deployment.input.yml",
        ])
        .env("SOURCE_DATE_EPOCH", "1700000000"),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("image: cr.l5d.io/linkerd/proxy:edge-24.11.3"),
        "{stdout}"
    );
    assert!(
        stdout.contains("image: cr.l5d.io/linkerd/proxy-init:v2.4.1"),
        "{stdout}"
    );
}

#[test]
fn quiet_leaves_only_the_summary_and_errors_on_stderr() {
    let input = std::fs::read_to_string(format!(
        "{}/{CASES}/deployment/input.yaml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let values = format!("{CASES}/values.yaml");
    let quiet = meshchart(&["inject", "-", "-f", &values, "--quiet"], &input);
    assert!(quiet.status.success());
    assert_eq!(text(&quiet.stderr), "1 injected, 0 skipped, 0 warnings\n");
    let loud = meshchart(&["inject", "-", "-f", &values], &input);
    assert_eq!(quiet.stdout, loud.stdout, "the stream is the same");
    // An error is still printed, and nothing reaches stdout.
    let bad = meshchart(
        &["inject", "-", "-f", &values, "--quiet"],
        &input.replace("kind: Deployment", "kind: Deployment\nspec: 3"),
    );
    assert_eq!(bad.status.code(), Some(1));
    assert!(bad.stdout.is_empty());
    assert!(
        text(&bad.stderr).starts_with("error: "),
        "{}",
        text(&bad.stderr)
    );
}

#[test]
fn output_json_writes_one_compact_document_per_line_that_reads_back_as_the_yaml_output() {
    let input = std::fs::read_to_string(format!(
        "{}/{CASES}/deployment/input.yaml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let values = format!("{CASES}/values.yaml");
    let service = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n---\n";
    let both = format!("{service}{input}");
    let json = meshchart(&["inject", "-", "-f", &values, "-o", "json"], &both);
    assert!(json.status.success(), "{}", text(&json.stderr));
    let yaml = meshchart(&["inject", "-", "-f", &values], &both);
    let lines: Vec<String> = text(&json.stdout).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 2, "one line per document");
    let from_json: Vec<meshchart::values::Value> = lines
        .iter()
        .map(|line| {
            let parsed: serde_json::Value = serde_json::from_str(line).expect("each line is JSON");
            meshchart::yaml::parse_document(&parsed.to_string()).unwrap()
        })
        .collect();
    assert_eq!(
        from_json,
        meshchart::yaml::parse_documents(&text(&yaml.stdout)).unwrap()
    );
}

/// A Deployment that asks for the proxy, on stdin.
fn deployment_input() -> String {
    std::fs::read_to_string(format!(
        "{}/{CASES}/deployment/input.yaml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

#[test]
fn trust_anchors_that_are_not_certificates_are_refused_naming_where_they_came_from() {
    for (flags, named) in [
        (
            [
                "--set-file",
                "identityTrustAnchorsPEM=tests/certs/issuer.key",
            ],
            "--set-file identityTrustAnchorsPEM=tests/certs/issuer.key",
        ),
        (
            ["--set", "identityTrustAnchorsPEM=x"],
            "--set identityTrustAnchorsPEM=x",
        ),
        (
            ["--set-file", "identityTrustAnchorsPEM=tests/certs/ca.key"],
            "--set-file identityTrustAnchorsPEM=tests/certs/ca.key",
        ),
    ] {
        let mut args = vec!["inject", "-"];
        args.extend(flags);
        let out = meshchart(&args, &deployment_input());
        assert_eq!(out.status.code(), Some(1), "{flags:?}");
        assert!(
            out.stdout.is_empty(),
            "{flags:?}: wrote {}",
            text(&out.stdout)
        );
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains("identityTrustAnchorsPEM") && stderr.contains(named),
            "{flags:?}: {stderr}"
        );
        assert!(!stderr.contains("PRIVATE KEY-----\n"), "{stderr}");
    }
}

/// A Deployment whose own container happens to be called `linkerd-proxy` (or whose init
/// container is called `linkerd-init`) but runs some other image.
fn deployment_with_a_container_named(list: &str, name: &str) -> String {
    let app = "      - name: app\n        image: busybox:1.36\n";
    let theirs = format!("      - name: {name}\n        image: nginx:1.27\n");
    let (containers, inits) = if list == "containers" {
        (theirs, String::new())
    } else {
        (app.to_owned(), format!("      initContainers:\n{theirs}"))
    };
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    \
         matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    \
         spec:\n      containers:\n{containers}{inits}"
    )
}

#[test]
fn inject_and_uninject_skip_a_pod_whose_own_container_is_named_like_the_proxy_or_init() {
    let values = format!("{CASES}/values.yaml");
    for (list, name) in [
        ("containers", "linkerd-proxy"),
        ("initContainers", "linkerd-init"),
    ] {
        let input = deployment_with_a_container_named(list, name);
        for args in [vec!["inject", "-", "-f", &values], vec!["uninject", "-"]] {
            let out = meshchart(&args, &input);
            assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
            assert_eq!(
                meshchart::yaml::parse_documents(&text(&out.stdout)).unwrap(),
                meshchart::yaml::parse_documents(&input).unwrap(),
                "{args:?} {name}: the user's container is kept"
            );
            let report = text(&out.stderr);
            assert!(
                report.contains("deployment \"web\" skipped")
                    && report.contains(&format!("{name:?}"))
                    && report.contains("nginx:1.27"),
                "{args:?} {name}: {report}"
            );
        }
    }
}

#[test]
fn inject_keeps_the_text_of_integers_too_big_for_a_float() {
    let input = deployment_with_a_container_named("initContainers", "setup")
        .replace("spec:\n  selector:", "spec:\n  replicas: 12345678901234567890\n  selector:")
        .replace(
            "image: busybox:1.36\n",
            "image: busybox:1.36\n        x-big: 99999999999999999999999\n        x-negative: -99999999999999999999999\n",
        );
    let values = format!("{CASES}/values.yaml");
    let out = meshchart(&["inject", "-", "-f", &values], &input);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let yaml = text(&out.stdout);
    for line in [
        "  replicas: 12345678901234567890\n",
        "        x-big: 99999999999999999999999\n",
        "        x-negative: -99999999999999999999999\n",
    ] {
        assert!(yaml.contains(line), "{line:?} missing from:\n{yaml}");
    }
    let json = meshchart(&["inject", "-", "-f", &values, "-o", "json"], &input);
    assert!(
        text(&json.stdout).contains("\"replicas\":12345678901234567890,"),
        "{}",
        text(&json.stdout)
    );
}
