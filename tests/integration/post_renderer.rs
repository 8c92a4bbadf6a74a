//! `meshchart inject -` as Helm's post-renderer, run by real Helm: `helm template ...
//! --post-renderer meshchart --post-renderer-args inject --post-renderer-args -` injects the
//! whole release. Helm sends the rendered stream on stdin and takes stdout as the new stream;
//! the inject report goes to stderr, which Helm shows only when the post-renderer fails.
//!
//! Skipped, with a message, when Helm is not installed (CI installs it and sets `HELM_BIN`).

use crate::support;

use std::path::Path;
use std::process::{Command, Output};
use support::cli::helm_or_skip;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const CHART: &str = "tests/fixtures/helm-post-renderer";

/// `helm template demo CHART` with `post_renderer_args` after `--post-renderer meshchart` (none:
/// no post-renderer).
fn helm_template(helm: &Path, post_renderer_args: Option<&[&str]>) -> Output {
    let mut command = Command::new(helm);
    command
        .current_dir(ROOT)
        .args(["template", "demo", CHART])
        .env(
            "HELM_CACHE_HOME",
            std::env::temp_dir().join("meshchart-helm-cache"),
        )
        .env(
            "HELM_CONFIG_HOME",
            std::env::temp_dir().join("meshchart-helm-config"),
        );
    if let Some(args) = post_renderer_args {
        command.args(["--post-renderer", env!("CARGO_BIN_EXE_meshchart")]);
        for arg in args {
            command.args(["--post-renderer-args", arg]);
        }
    }
    command.output().expect("run helm")
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "helm failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("utf-8")
}

/// The documents of a stream, parsed, keyed by kind and name.
fn documents(text: &str) -> Vec<(String, meshchart::values::Value)> {
    meshchart::yaml::parse_documents(text)
        .expect("the stream parses")
        .into_iter()
        .filter_map(|doc| {
            let kind = doc.get_path(&["kind"])?.as_str()?.to_owned();
            let name = doc.get_path(&["metadata", "name"])?.as_str()?.to_owned();
            Some((format!("{kind}/{name}"), doc))
        })
        .collect()
}

fn container_names(doc: &meshchart::values::Value, list: &str) -> Vec<String> {
    match doc.get_path(&["spec", "template", "spec", list]) {
        Some(meshchart::values::Value::Seq(items)) => items
            .iter()
            .filter_map(|c| c.get_path(&["name"])?.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

#[test]
fn helm_post_renderer_injects_the_whole_release() {
    let Some(helm) = helm_or_skip("helm_post_renderer_injects_the_whole_release") else {
        return;
    };
    let certs = format!("{ROOT}/tests/certs");
    let plain = documents(&stdout(&helm_template(&helm, None)));
    let injected = documents(&stdout(&helm_template(
        &helm,
        Some(&["inject", "-", "--certs-dir", &certs]),
    )));

    let keys = |docs: &[(String, _)]| docs.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
    assert_eq!(
        keys(&injected),
        keys(&plain),
        "the same resources, in Helm's order"
    );
    for ((key, before), (_, after)) in plain.iter().zip(&injected) {
        if key == "Deployment/demo-web" {
            // The default line (edge-26.8.3) runs the proxy as a native sidecar: an init
            // container after linkerd-init, the app's containers as they were.
            assert_eq!(container_names(after, "containers"), ["web"], "{key}");
            assert_eq!(
                container_names(after, "initContainers"),
                ["linkerd-init", "linkerd-proxy"]
            );
            let anchors = std::fs::read_to_string(format!("{certs}/ca.crt")).unwrap();
            let proxy = after
                .get_path(&["spec", "template", "spec", "initContainers"])
                .unwrap();
            let text = meshchart::yaml::to_json(proxy);
            assert!(
                text.contains(&anchors.trim().replace('\n', "\\n")),
                "the proxy trusts the given anchors"
            );
        } else {
            assert_eq!(after, before, "{key} passes through unchanged");
        }
    }
}

#[test]
fn helm_post_renderer_report_stays_off_the_release_stream() {
    let Some(helm) = helm_or_skip("helm_post_renderer_report_stays_off_the_release_stream") else {
        return;
    };
    let certs = format!("{ROOT}/tests/certs");
    let text = stdout(&helm_template(
        &helm,
        Some(&["inject", "-", "--certs-dir", &certs]),
    ));
    assert!(!text.contains("injected"), "{text}");
    assert!(text.starts_with("---\n# Source: "), "{text}");
}

#[test]
fn helm_shows_the_post_renderer_error_and_fails() {
    let Some(helm) = helm_or_skip("helm_shows_the_post_renderer_error_and_fails") else {
        return;
    };
    // No trust anchors given: inject refuses, and Helm passes its message on.
    let out = helm_template(&helm, Some(&["inject", "-"]));
    assert!(!out.status.success());
    assert!(out.stdout.is_empty(), "nothing rendered on failure");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("identityTrustAnchorsPEM"), "{stderr}");
}
