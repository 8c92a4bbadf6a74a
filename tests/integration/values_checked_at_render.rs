//! `render` checks the values before any template runs, as `helm template` does: the chart's
//! `values.schema.json` (an error in Helm's words and shape), and keys the chosen line does not
//! read (a warning naming the nearest key it knows; an error under `--strict`). `-n` sets the
//! release namespace, and on the 2021 line its `namespace` value.

use crate::support;

use std::path::Path;
use std::process::Output;
use support::cli::{command, run, scratch_dir};

fn meshchart(args: &[&str]) -> Output {
    run(command(args).env("SOURCE_DATE_EPOCH", "1700000000"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A chart both Helm and meshchart render: templates without template syntax, a schema with
/// an enum, types, a pattern, a minimum, a required key and a closed map.
fn write_schema_chart(dir: &Path) {
    std::fs::create_dir_all(dir.join("templates")).unwrap();
    std::fs::write(
        dir.join("Chart.yaml"),
        "apiVersion: v2\nname: checked\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("values.yaml"),
        "webhookFailurePolicy: Ignore\nproxy:\n  await: true\nreplicas: 1\nlogFormat: plain\nq: 1\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("values.schema.json"),
        r#"{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "required": ["q"],
  "properties": {
    "webhookFailurePolicy": {"enum": ["Ignore", "Fail"], "type": "string"},
    "proxy": {
      "type": "object",
      "additionalProperties": false,
      "required": ["await"],
      "properties": {"await": {"type": ["boolean", "null"]}}
    },
    "replicas": {"type": "integer", "minimum": 1},
    "logFormat": {"type": "string", "pattern": "^(plain|json)$"}
  }
}
"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("templates/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: checked\n",
    )
    .unwrap();
}

/// Every way the values break the schema chart, as `--set` flags.
const BREAKING: &[&str] = &[
    "--set",
    "webhookFailurePolicy=fail",
    "--set",
    "proxy.await=1",
    "--set",
    "proxy.extra=2",
    "--set",
    "replicas=0",
    "--set",
    "logFormat=xml",
    "--set",
    "q=null",
];

#[test]
fn schema_errors_stop_the_render_in_helms_words() {
    let root = scratch_dir("schema-words");
    let chart = root.join("checked");
    write_schema_chart(&chart);
    let mut args = vec!["render", "--chart", chart.to_str().unwrap()];
    args.extend(BREAKING);
    let output = meshchart(&args);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty(), "nothing is rendered");
    assert_eq!(
        text(&output.stderr),
        "error: values don't meet the specifications of the schema(s) in the following \
         chart(s):\nchecked:\n\
         - (root): q is required\n\
         - logFormat: Does not match pattern '^(plain|json)$'\n\
         - proxy: Additional property extra is not allowed\n\
         - proxy.await: Invalid type. Expected: [boolean,null], given: integer\n\
         - replicas: Must be greater than or equal to 1\n\
         - webhookFailurePolicy: webhookFailurePolicy must be one of the following: \
         \"Ignore\", \"Fail\"\n"
    );
}

#[test]
fn schema_errors_are_the_lines_helm_prints() {
    let Some(helm) = support::cli::helm_or_skip("schema_errors_are_the_lines_helm_prints") else {
        return;
    };
    let root = scratch_dir("schema-helm");
    let chart = root.join("checked");
    write_schema_chart(&chart);
    let helm_output = std::process::Command::new(helm)
        .arg("template")
        .arg(&chart)
        .args(BREAKING)
        .output()
        .unwrap();
    let mut ours_args = vec!["render", "--chart", chart.to_str().unwrap()];
    ours_args.extend(BREAKING);
    let ours = meshchart(&ours_args);
    // Helm lists the violations in its validator's order, which varies; meshchart sorts them.
    let lines = |stderr: &[u8], prefix: &str| {
        let stderr = text(stderr);
        let body = stderr
            .strip_prefix(prefix)
            .unwrap_or_else(|| panic!("{stderr}"))
            .trim_end()
            .to_owned();
        let mut lines: Vec<String> = body.lines().map(str::to_owned).collect();
        let head = lines.drain(..2).collect::<Vec<_>>();
        lines.sort();
        (head, lines)
    };
    assert_eq!(helm_output.status.code(), Some(1));
    assert_eq!(
        lines(&ours.stderr, "error: "),
        lines(&helm_output.stderr, "Error: ")
    );
}

#[test]
fn a_key_the_line_does_not_read_gets_a_warning_naming_the_nearest_key() {
    let output = meshchart(&[
        "render",
        "-n",
        "linkerd",
        "--certs-dir",
        "tests/certs",
        "--set",
        "proxy.awiat=false",
    ]);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "warning: unknown key proxy.awiat (did you mean proxy.await?): \
             linkerd-control-plane edge-26.8.3 does not read it\n"
        ),
        "{stderr}"
    );
}

#[test]
fn under_strict_a_key_the_line_does_not_read_is_an_error() {
    let output = meshchart(&[
        "render",
        "-n",
        "linkerd",
        "--certs-dir",
        "tests/certs",
        "--strict",
        "--set",
        "proxy.awiat=false",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    assert!(text(&output.stderr).ends_with(
        "error: --strict: linkerd-control-plane edge-26.8.3 does not read this key: \
         proxy.awiat (did you mean proxy.await?)\n"
    ));
}

#[test]
fn a_key_of_another_line_is_named_as_unread_by_the_chosen_one() {
    // proxy.nativeSidecar is the modern lines'; the 2021 line's chart has it too (meshchart's
    // addition), but not the modern lines' policyController.
    let output = meshchart(&[
        "render",
        "--linkerd",
        "edge-21.4.4",
        "--kube-version",
        "1.24.0",
        "--certs-dir",
        "tests/certs",
        "--set",
        "policyController.logLevel=debug",
    ]);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "warning: unknown key policyController: linkerd-control-plane edge-21.4.4 does not \
             read it"
        ),
        "{stderr}"
    );
}

#[test]
fn upstreams_own_values_files_render_under_strict() {
    let files: [(&str, &[&str]); 3] = [
        (
            "edge-21.4.4",
            &[
                "tests/reference/upstream-values/values.yaml",
                "tests/reference/upstream-values/values-ha.yaml",
            ],
        ),
        (
            "edge-24.10.2",
            &[
                "tests/reference/upstream/edge-24.10.2/values.yaml",
                "tests/reference/upstream/edge-24.10.2/ha/values-ha.yaml",
            ],
        ),
        (
            "edge-26.8.3",
            &[
                "tests/reference/upstream/edge-26.8.3/values.yaml",
                "tests/reference/upstream/edge-26.8.3/ha/values-ha.yaml",
            ],
        ),
    ];
    for (line, values) in files {
        let mut args = vec![
            "render",
            "--linkerd",
            line,
            "-n",
            "linkerd",
            "--certs-dir",
            "tests/certs",
            "--strict",
        ];
        if line == "edge-21.4.4" {
            args.extend(["--kube-version", "1.24.0"]);
        }
        for file in values {
            args.extend(["-f", file]);
        }
        let output = meshchart(&args);
        let stderr = text(&output.stderr);
        assert!(output.status.success(), "{line}: {stderr}");
        assert!(!stderr.contains("unknown key"), "{line}: {stderr}");
    }
}

#[test]
fn the_namespace_flag_sets_the_2021_lines_namespace_value() {
    let certs = scratch_dir("namespace-2021");
    let output = meshchart(&[
        "render",
        "--linkerd",
        "edge-21.4.4",
        "--kube-version",
        "1.24.0",
        "-n",
        "linkerd-system",
        "--certs-dir",
        certs.to_str().unwrap(),
    ]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(stdout.contains("kind: Namespace\napiVersion: v1\nmetadata:\n  name: linkerd-system\n"));
    assert!(
        !stdout.contains("namespace: linkerd\n"),
        "nothing left in linkerd"
    );
    // The webhook certificates are made for the Services where they now are.
    assert!(text(&output.stderr).contains(
        "generated a self-signed proxyInjector serving certificate for \
         linkerd-proxy-injector.linkerd-system.svc"
    ));
    // Without -n the value's default stands, whatever Helm's release namespace is.
    let default = meshchart(&[
        "render",
        "--linkerd",
        "edge-21.4.4",
        "--kube-version",
        "1.24.0",
        "--certs-dir",
        "tests/certs",
    ]);
    assert!(text(&default.stdout)
        .contains("kind: Namespace\napiVersion: v1\nmetadata:\n  name: linkerd\n"));
}

#[test]
fn values_that_set_another_namespace_win_over_the_flag_with_a_warning() {
    let output = meshchart(&[
        "render",
        "--linkerd",
        "edge-21.4.4",
        "--kube-version",
        "1.24.0",
        "-n",
        "linkerd-system",
        "--set",
        "namespace=linkerd",
        "--certs-dir",
        "tests/certs",
    ]);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "warning: the values set namespace to \"linkerd\", which this chart puts its \
             resources in; -n linkerd-system only names the release"
        ),
        "{stderr}"
    );
    assert!(text(&output.stdout)
        .contains("kind: Namespace\napiVersion: v1\nmetadata:\n  name: linkerd\n"));
}

#[test]
fn every_modern_line_types_its_values_so_a_wrong_type_is_an_error_naming_the_key() {
    for line in ["edge-24.10.2", "edge-26.8.3"] {
        for (set, key, expected) in [
            ("proxy.await=yes", "proxy.await", "boolean"),
            ("controllerReplicas=three", "controllerReplicas", "integer"),
            (
                "enablePodAntiAffinity=sometimes",
                "enablePodAntiAffinity",
                "boolean",
            ),
        ] {
            let out = meshchart(&[
                "render",
                "--linkerd",
                line,
                "-n",
                "linkerd",
                "--certs-dir",
                "tests/certs",
                "--set",
                set,
            ]);
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{line} --set {set}: {stderr}");
            assert!(
                stderr.contains(&format!("- {key}: Invalid type. Expected: {expected}")),
                "{line} --set {set}: {stderr}"
            );
            assert!(
                out.stdout.is_empty(),
                "{line} --set {set}: nothing rendered"
            );
        }
    }
}

#[test]
fn label_selectors_of_the_webhooks_take_match_labels_without_an_unknown_key_warning() {
    for (line, kube) in [
        ("edge-21.4.4", "1.24.0"),
        ("edge-24.10.2", "1.31.0"),
        ("edge-26.8.3", "1.31.0"),
    ] {
        let out = meshchart(&[
            "render",
            "--linkerd",
            line,
            "--kube-version",
            kube,
            "-n",
            "linkerd",
            "--certs-dir",
            "tests/certs",
            "--set",
            "proxyInjector.namespaceSelector.matchLabels.team=a",
            "--set",
            "profileValidator.namespaceSelector.matchLabels.env=b",
        ]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{line}: {stderr}");
        assert!(!stderr.contains("unknown key"), "{line}: {stderr}");
        let stdout = text(&out.stdout);
        assert!(
            stdout.contains("team: a") && stdout.contains("env: b"),
            "{line}: the selectors reach the webhooks"
        );
    }
}
