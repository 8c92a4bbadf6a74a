//! Machine-readable output (#37): `inject --report json` is one JSON document on stderr, notes
//! inside it; `-o json` on `lint`, `golden`, `diff`, `releases` and `certs inspect` is one
//! JSON document on stdout.

use crate::support;

use serde_json::Value;
use std::process::Output;
use support::cli::{meshchart, scratch_dir};

fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap_or_else(|e| {
        panic!(
            "not one JSON document ({e}):\n{}",
            String::from_utf8_lossy(bytes)
        )
    })
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A Deployment to inject, in a scratch folder of its own per test (`name`): tests run at once,
/// and each scratch folder is emptied when it is made.
fn workload(name: &str) -> String {
    let dir = scratch_dir(name);
    let path = dir.join("web.yaml");
    std::fs::write(
        &path,
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    \
         metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        \
         image: nginx\n",
    )
    .unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn inject_report_json_with_notes_is_one_json_document_holding_them() {
    let input = workload("json-inject-with-notes");
    let out = meshchart(&[
        "inject",
        &input,
        "--report",
        "json",
        "--linkerd",
        "edge-24.10.2",
        "--set",
        "linkerdVersion=edge-24.10.2-fork",
        "--set-file",
        "identityTrustAnchorsPEM=tests/certs/ca.crt",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = json(&out.stderr);
    assert_eq!(report["summary"]["injected"], 1);
    let notes = report["notes"].as_array().expect("a notes field");
    assert!(
        notes[0]
            .as_str()
            .is_some_and(|n| n.contains("linkerdVersion edge-24.10.2-fork")),
        "{notes:?}"
    );
}

#[test]
fn inject_report_json_without_notes_has_no_notes_field() {
    let input = workload("json-inject-without-notes");
    let out = meshchart(&[
        "inject",
        &input,
        "--report=json",
        "--set-file",
        "identityTrustAnchorsPEM=tests/certs/ca.crt",
    ]);
    let report = json(&out.stderr);
    assert!(report.get("notes").is_none(), "{report}");
}

#[test]
fn lint_output_json_lists_each_finding_with_its_severity() {
    let out = meshchart(&["lint", "tests/fixtures/lint-values", "-o", "json"]);
    let report = json(&out.stdout);
    assert_eq!(report["chart"], "tests/fixtures/lint-values");
    let findings = report["findings"].as_array().expect("findings");
    assert!(!findings.is_empty());
    for finding in findings {
        assert!(["error", "warning", "info"].contains(&finding["severity"].as_str().unwrap()));
    }
    assert_eq!(
        report["failed"].as_bool(),
        Some(out.status.code() == Some(1))
    );
}

#[test]
fn golden_output_json_gives_each_case_its_outcome() {
    let out = meshchart(&["golden", "tests/fixtures/all-functions", "-o", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = json(&out.stdout);
    let results = report["results"].as_array().expect("results");
    assert!(!results.is_empty());
    assert!(results.iter().all(|r| r["outcome"] == "passed"));
    assert_eq!(report["failed"], 0);
}

#[test]
fn diff_output_json_names_changed_resources_and_keeps_the_exit_code() {
    let dir = scratch_dir("json-diff");
    let a = dir.join("a.yaml");
    let b = dir.join("b.yaml");
    std::fs::write(
        &a,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\ndata:\n  x: \"1\"\n",
    )
    .unwrap();
    std::fs::write(
        &b,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\ndata:\n  x: \"2\"\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: new\n",
    )
    .unwrap();
    let out = meshchart(&[
        "diff",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report = json(&out.stdout);
    assert_eq!(report["changed"][0]["kind"], "ConfigMap");
    assert_eq!(report["changed"][0]["name"], "demo");
    assert!(report["changed"][0]["diff"]
        .as_str()
        .unwrap()
        .contains("+  x: \"2\""));
    assert_eq!(report["added"][0]["name"], "new");
    assert_eq!(report["same"], false);
}

#[test]
fn releases_output_json_lists_every_embedded_line_and_the_default() {
    let out = meshchart(&["releases", "-o", "json"]);
    let report = json(&out.stdout);
    let releases = report["releases"].as_array().expect("releases");
    let names: Vec<&str> = releases
        .iter()
        .map(|r| r["release"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&meshchart::releases::DEFAULT_RELEASE),
        "{names:?}"
    );
    assert_eq!(releases.iter().filter(|r| r["default"] == true).count(), 1);
}

#[test]
fn certs_inspect_output_json_describes_each_certificate_and_who_signed_the_issuer() {
    let out = meshchart(&[
        "certs",
        "inspect",
        "tests/certs",
        "--now",
        "1700000000",
        "-o",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let folder = json(&out.stdout);
    let anchors = folder["trustAnchors"].as_array().expect("trustAnchors");
    assert_eq!(anchors.len(), 1);
    let root = &anchors[0]["certificate"];
    assert_eq!(root["subject"], "CN=root.linkerd.cluster.local");
    assert_eq!(anchors[0]["keyFile"], "ca.key");
    let issuer = &folder["issuer"];
    assert_eq!(
        issuer["certificate"]["subject"],
        "CN=identity.linkerd.cluster.local"
    );
    assert_eq!(issuer["certificate"]["notAfter"], "2024-11-13T22:13:20Z");
    assert_eq!(issuer["certificate"]["daysLeft"], 365);
    assert_eq!(issuer["certificate"]["expired"], false);
    let signer = issuer["signedBy"].as_str().expect("signedBy");
    let fingerprint = root["sha256"].as_str().expect("sha256");
    assert!(signer.contains(fingerprint), "{signer} / {fingerprint}");
    assert!(folder["rotation"].is_null());
}

#[test]
fn certs_inspect_text_says_the_same_as_its_json() {
    let text = meshchart(&["certs", "inspect", "tests/certs", "--now", "1700000000"]);
    let folder = json(
        &meshchart(&[
            "certs",
            "inspect",
            "tests/certs",
            "--now",
            "1700000000",
            "--output=json",
        ])
        .stdout,
    );
    let text = String::from_utf8_lossy(&text.stdout);
    for cert in [
        &folder["trustAnchors"][0]["certificate"],
        &folder["issuer"]["certificate"],
    ] {
        assert!(text.contains(cert["sha256"].as_str().unwrap()), "{text}");
        assert!(text.contains(cert["notAfter"].as_str().unwrap()), "{text}");
    }
}

#[test]
fn releases_output_json_gives_every_release_its_era_and_whether_it_is_served() {
    let out = meshchart(&["releases", "-o", "json"]);
    let report = json(&out.stdout);
    let releases = report["releases"].as_array().expect("releases");
    let find = |name: &str| {
        releases
            .iter()
            .find(|r| r["release"] == name)
            .unwrap_or_else(|| panic!("{name} not listed"))
    };
    assert_eq!(releases.len(), meshchart::releases::RELEASES.len());
    assert_eq!(find("edge-25.11.3")["era"], "edge-25.11");
    assert_eq!(find("edge-25.11.3")["served"], true);
    assert_eq!(find("edge-25.11.3")["templates"], "edge-26.8.3");
    assert_eq!(find("stable-2.14.10")["era"], "stable-2.14");
    assert_eq!(find("stable-2.14.10")["served"], true);
    assert_eq!(find("stable-2.14.10")["templates"], "stable-2.14.10");
    for row in meshchart::releases::RELEASES {
        let served = meshchart::releases::template_set(row);
        let listed = find(row.release);
        assert_eq!(listed["served"], served.is_some(), "{}", row.release);
        match served {
            Some(set) => assert_eq!(listed["templates"], set.name, "{}", row.release),
            None => assert!(listed["templates"].is_null(), "{}", row.release),
        }
    }
}
