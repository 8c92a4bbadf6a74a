//! Unit tests for resource-by-resource diffs, kept apart from `diff.rs` so the diffing code reads on
//! its own.

use super::*;

const A: &str = "---\n# Source: c/templates/a.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: linkerd\ndata:\n  x: \"1\"\n---\n# Source: c/templates/b.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: gone\n";
const B: &str = "---\n# Source: c/templates/a.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: linkerd\ndata:\n  x: \"2\"\n---\n# Source: c/templates/c.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: new\n";

#[test]
fn equal_streams_have_no_differences() {
    let report = diff_streams(A, "a", A, "b", Secrets::Masked).unwrap();
    assert!(report.is_empty());
    assert_eq!(report.to_text(), "");
}

#[test]
fn changed_added_and_removed_resources_are_reported() {
    let report = diff_streams(A, "a", B, "b", Secrets::Masked).unwrap();
    assert_eq!(report.changed.len(), 1);
    assert_eq!(report.changed[0].0.to_string(), "ConfigMap linkerd/cfg");
    assert!(
        report.changed[0].1.contains("-  x: \"1\"\n+  x: \"2\"\n"),
        "{}",
        report.changed[0].1
    );
    assert!(report.changed[0]
        .1
        .starts_with("--- a: ConfigMap linkerd/cfg\n+++ b: ConfigMap linkerd/cfg\n"));
    assert_eq!(report.added[0].to_string(), "Secret new");
    assert_eq!(report.removed[0].to_string(), "Service gone");
    assert!(report
        .to_text()
        .ends_with("added: Secret new\nremoved: Service gone\n1 changed, 1 added, 1 removed\n"));
}

#[test]
fn order_does_not_matter_only_identity_and_text() {
    let swapped = format!(
        "{}\n{}",
        &A[A.find("---\n# Source: c/templates/b").unwrap()..],
        &A[..A.find("---\n# Source: c/templates/b").unwrap()]
    );
    assert!(diff_streams(A, "a", &swapped, "b", Secrets::Masked)
        .unwrap()
        .is_empty());
}

#[test]
fn repeated_identities_are_told_apart_by_occurrence() {
    let doc = "---\nkind: ConfigMap\nmetadata:\n  name: x\n";
    let r = resources(&format!("{doc}{doc}"), "s").unwrap();
    assert_eq!(r[1].key.to_string(), "ConfigMap x (#2)");
}

#[test]
fn a_plain_pem_private_key_is_masked_whole_and_certificates_stay() {
    let text = "data:\n  values: |\n    keyPEM: |\n      -----BEGIN EC PRIVATE KEY-----\n      c2VjcmV0\n      -----END EC PRIVATE KEY-----\n    crtPEM: |\n      -----BEGIN CERTIFICATE-----\n      cHVibGlj\n      -----END CERTIFICATE-----\n";
    let masked = mask_secrets(text, false);
    assert!(
        !masked.contains("c2VjcmV0") && !masked.contains("PRIVATE KEY-----"),
        "{masked}"
    );
    assert!(
        masked.contains("      <masked private key sha256:"),
        "{masked}"
    );
    assert!(masked.contains("cHVibGlj"), "{masked}");
}

#[test]
fn a_secrets_multi_line_value_is_masked_with_all_its_lines() {
    let a = mask_secrets(
        "kind: Secret\nstringData:\n  k: |\n    one\n    two\nother: x\n",
        true,
    );
    let b = mask_secrets(
        "kind: Secret\nstringData:\n  k: |\n    one\n    three\nother: x\n",
        true,
    );
    assert!(!a.contains("two") && a.contains("other: x"), "{a}");
    assert_ne!(a, b, "a change inside the value changes its digest");
}
