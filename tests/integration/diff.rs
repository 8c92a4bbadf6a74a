//! `meshchart diff` as a user runs it: renders or files compared resource by resource.

use crate::support;

use std::process::Output;
use support::cli::{meshchart, scratch_dir};

const CHART: &str = "tests/fixtures/package-demo";

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn scratch_file(name: &str, text: &str) -> String {
    let path = scratch_dir(name).join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn two_equal_renders_exit_0_and_print_nothing() {
    let out = meshchart(&["diff", "--chart", CHART]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout(&out), "");
}

#[test]
fn a_set_flag_on_one_side_shows_a_unified_diff_of_that_resource_and_exits_1() {
    let out = meshchart(&["diff", "--chart", CHART, "--set-b", "replicas=4"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "--- a: ConfigMap demo\n+++ b: ConfigMap demo\n@@ -6,6 +6,6 @@\n   labels:\n     app: package-demo\n data:\n-  replicas: \"1\"\n+  replicas: \"4\"\n   await: \"true\"\n   release: release-name\n1 changed, 0 added, 0 removed\n"
    );
}

#[test]
fn values_files_per_side_are_applied_after_the_shared_ones() {
    let ha = format!("{CHART}/values/values-ha.yaml");
    let out = meshchart(&[
        "diff",
        "--chart",
        CHART,
        "-f",
        &ha,
        "--values-a",
        &format!("{CHART}/values/values.yaml"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("-  replicas: \"1\"\n+  replicas: \"3\"\n"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn renamed_resources_are_listed_as_added_and_removed() {
    let out = meshchart(&["diff", "--chart", CHART, "--set-b", "name=other"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("added: ConfigMap other\nadded: Service other\n"),
        "{text}"
    );
    assert!(
        text.contains("removed: ConfigMap demo\nremoved: Service demo\n"),
        "{text}"
    );
    assert!(text.ends_with("0 changed, 2 added, 2 removed\n"), "{text}");
}

#[test]
fn two_files_are_compared_resource_by_resource_whatever_their_order() {
    let a = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: ns\ndata: {x: \"1\"}\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n";
    let b = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: ns\ndata: {x: \"2\"}\n";
    let (fa, fb) = (scratch_file("a.yaml", a), scratch_file("b.yaml", b));
    let out = meshchart(&["diff", &fa, &fb]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.starts_with("--- a: ConfigMap ns/a\n+++ b: ConfigMap ns/a\n"),
        "{text}"
    );
    assert!(
        text.contains("-data: {x: \"1\"}\n+data: {x: \"2\"}\n"),
        "{text}"
    );
    assert!(text.ends_with("1 changed, 0 added, 0 removed\n"), "{text}");
    assert_eq!(meshchart(&["diff", &fa, &fa]).status.code(), Some(0));
}

#[test]
fn a_render_can_be_compared_with_a_saved_file() {
    let saved = stdout(&meshchart(&["render", "--chart", CHART]));
    let file = scratch_file("saved.yaml", &saved);
    let render_b = stdout(&meshchart(&[
        "render",
        "--chart",
        CHART,
        "--set",
        "proxy.await=false",
    ]));
    let file_b = scratch_file("saved-b.yaml", &render_b);
    let out = meshchart(&["diff", &file, &file_b]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("-  await: \"true\"\n+  await: \"false\"\n"));
}

#[test]
fn trouble_exits_2_naming_the_problem() {
    let out = meshchart(&["diff", "no-such-file.yaml", "other.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-file.yaml"));
    let bad = scratch_file("bad.yaml", "a: [unclosed\n");
    let out = meshchart(&["diff", &bad, &bad]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("document 1 (line 1) is not valid YAML"));
    let out = meshchart(&["diff", &bad]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_upgrade_across_release_lines_names_the_keys_the_new_line_no_longer_reads() {
    // The pinned certificates are valid at the golden instant.
    let out = support::cli::run(
        support::cli::command(&[
            "diff",
            "--linkerd-a",
            "edge-24.10.2",
            "--linkerd-b",
            "edge-26.8.3",
            "-n",
            "linkerd",
            "--certs-dir",
            "tests/certs",
            "--set",
            "proxyInit.image.version=v2.4.1,proxy.logLevel=debug",
        ])
        .env("SOURCE_DATE_EPOCH", "1700000000"),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // edge-26.8.3 runs proxy-init from the proxy image: its proxyInit.image is gone.
    assert!(
        stdout.contains("values key proxyInit.image: read by A (embedded chart linkerd-control-plane of Linkerd edge-24.10.2), not by B (embedded chart linkerd-control-plane of Linkerd edge-26.8.3)"),
        "{stdout}"
    );
    // Both lines read proxy.logLevel.
    assert!(!stdout.contains("values key proxy.logLevel"), "{stdout}");
}

#[test]
fn a_private_key_never_appears_in_a_diff() {
    // Two renders, each generating its own material: every certificate and key differs.
    let render = |name: &str| {
        let out = meshchart(&["render"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        scratch_file(name, &stdout(&out))
    };
    let (a, b) = (render("keys-a.yaml"), render("keys-b.yaml"));
    // The issuer and webhook keys, base64 in their Secrets.
    assert!(std::fs::read_to_string(&a)
        .unwrap()
        .contains("LS0tLS1CRUdJTiBFQyBQUklWQVRF"));
    let out = meshchart(&["diff", &a, &b]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!stdout.contains("PRIVATE KEY-----"), "{stdout}");
    // Base64 of "-----BEGIN EC PRIVATE" and "-----BEGIN PRIVATE" (certificates, public, show).
    for encoded in ["LS0tLS1CRUdJTiBFQyBQUklWQVRF", "LS0tLS1CRUdJTiBQUklWQVRF"] {
        assert!(!stdout.contains(encoded), "{stdout}");
    }
    assert!(stdout.contains("key.pem: <masked sha256:"), "{stdout}");
}

#[test]
fn show_secrets_shows_them_as_written() {
    let a = scratch_file(
        "secret-a.yaml",
        "kind: Secret\napiVersion: v1\nmetadata:\n  name: s\ndata:\n  tls.key: b2xk\n",
    );
    let b = scratch_file(
        "secret-b.yaml",
        "kind: Secret\napiVersion: v1\nmetadata:\n  name: s\ndata:\n  tls.key: bmV3\n",
    );
    let masked = stdout(&meshchart(&["diff", &a, &b]));
    assert!(
        !masked.contains("b2xk") && !masked.contains("bmV3"),
        "{masked}"
    );
    assert!(masked.contains("-  tls.key: <masked sha256:"), "{masked}");
    let shown = stdout(&meshchart(&["diff", "--show-secrets", &a, &b]));
    assert!(
        shown.contains("-  tls.key: b2xk") && shown.contains("+  tls.key: bmV3"),
        "{shown}"
    );
}

#[test]
fn resources_with_the_same_data_written_differently_are_equal() {
    let a = scratch_file(
        "data-a.yaml",
        "kind: ConfigMap\nmetadata: {name: c}\ndata: {a: '1', b: x}\n",
    );
    let b = scratch_file(
        "data-b.yaml",
        "kind: ConfigMap\nmetadata:\n  name: c\ndata:\n  b: \"x\"\n  a: \"1\"\n",
    );
    let out = meshchart(&["diff", &a, &b]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn a_report_that_cannot_be_written_exits_2_not_1() {
    let a = scratch_file(
        "full-a.yaml",
        "kind: ConfigMap\nmetadata: {name: c}\ndata: {a: x}\n",
    );
    let b = scratch_file(
        "full-b.yaml",
        "kind: ConfigMap\nmetadata: {name: c}\ndata: {a: y}\n",
    );
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        support::cli::skip(
            "a_report_that_cannot_be_written_exits_2_not_1",
            "/dev/full",
            "no /dev/full to fail the write",
        );
        return;
    };
    let out = support::cli::command(&["diff", &a, &b])
        .stdout(full)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("No space left on device"), "{stderr}");
}
