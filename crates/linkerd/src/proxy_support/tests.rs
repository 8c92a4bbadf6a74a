//! Unit tests for what each proxy release understands and for the known-issue table, kept apart
//! from `proxy_support.rs` so the tables read on their own.

fn control_plane(version: &str) -> Value {
    let mut map = crate::yaml::Map::new();
    map.insert("linkerdVersion".into(), Value::from(version));
    Value::Map(map)
}

#[test]
fn a_known_issue_is_open_on_edges_before_its_fix_only() {
    let open = |v: &str| is_open(&control_plane(v), &NOT_READY_PEERS);
    assert!(open("edge-23.9.4") && open("edge-24.10.2") && open("edge-25.1.0"));
    assert!(!open("edge-25.1.1") && !open("edge-26.8.3"));
    // Before the pod watcher's readiness check there was no fault.
    assert!(!open("edge-23.9.3") && !open("edge-21.4.4"));
    // Not judged: custom builds.
    assert!(!open("my-build"));
}

#[test]
fn a_known_issue_is_open_on_stables_from_the_backport_while_no_stable_has_the_fix() {
    let open = |v: &str| is_open(&control_plane(v), &NOT_READY_PEERS);
    assert!(open("stable-2.14.2") && open("stable-2.14.10"));
    assert!(!open("stable-2.14.1") && !open("stable-2.13.12"));
    assert_eq!(
        NOT_READY_PEERS.fix_for("stable-2.14.10"),
        "no stable release has the fix (edge-25.1.1 and later edge releases do)"
    );
    assert_eq!(
        NOT_READY_PEERS.fix_for("edge-24.10.2"),
        "fixed in edge-25.1.1"
    );
}

use super::*;

fn values(yaml: &str) -> Value {
    crate::yaml::parse_document(yaml).unwrap()
}

#[test]
fn release_tags_of_both_lines_parse() {
    assert_eq!(Release::parse("edge-21.4.4"), Some(Release::Edge(21, 4, 4)));
    assert_eq!(
        Release::parse("stable-2.11.2"),
        Some(Release::Stable(2, 11, 2))
    );
}

#[test]
fn custom_builds_and_other_tags_are_not_releases() {
    for tag in [
        "stable-2.10.2-patched",
        "latest",
        "edge-21.4",
        "edge-21.4.4.1",
        "enterprise-2.15.0",
        "v2.11.2",
        "edge-a.b.c",
        "",
    ] {
        assert_eq!(Release::parse(tag), None, "{tag}");
    }
}

#[test]
fn await_timeout_flag_starts_at_edge_22_2_1_and_stable_2_11_2() {
    let f = Feature::AwaitTimeoutFlag;
    assert!(!supports("edge-21.4.4", f));
    assert!(!supports("edge-22.1.5", f));
    assert!(supports("edge-22.2.1", f));
    assert!(supports("edge-24.11.8", f));
    assert!(!supports("stable-2.11.1", f));
    assert!(supports("stable-2.11.2", f));
    assert!(supports("stable-2.12.0", f));
}

#[test]
fn inbound_default_policy_starts_at_edge_21_8_4_and_stable_2_11_0() {
    let f = Feature::InboundDefaultPolicy;
    assert!(!supports("edge-21.8.3", f));
    assert!(supports("edge-21.8.4", f));
    assert!(!supports("stable-2.10.2", f));
    assert!(supports("stable-2.11.0", f));
}

#[test]
fn linkerd_await_ships_from_edge_21_4_4_and_stable_2_11_0() {
    let f = Feature::AwaitBinary;
    assert!(!supports("edge-21.4.3", f));
    assert!(supports("edge-21.4.4", f));
    assert!(!supports("stable-2.10.2", f));
    assert!(supports("stable-2.11.0", f));
}

#[test]
fn unrecognised_versions_are_trusted() {
    for f in [
        Feature::AwaitBinary,
        Feature::AwaitTimeoutFlag,
        Feature::InboundDefaultPolicy,
    ] {
        assert!(supports("my-build-42", f));
    }
}

#[test]
fn proxy_image_version_wins_over_linkerd_version() {
    let v = values("linkerdVersion: edge-21.4.4\nproxy: {image: {version: stable-2.12.0}}");
    assert_eq!(proxy_version(&v), Some("stable-2.12.0"));
    let v = values("linkerdVersion: edge-21.4.4\nproxy: {image: {version: ''}}");
    assert_eq!(proxy_version(&v), Some("edge-21.4.4"));
}

#[test]
fn an_await_timeout_for_an_old_proxy_is_reported() {
    let v = values("linkerdVersion: edge-21.4.4\nproxy: {awaitTimeout: 2m}");
    let found = unsupported_features(&v, true);
    assert_eq!(
        found,
        vec![Unsupported {
            version: "edge-21.4.4".into(),
            feature: Feature::AwaitTimeoutFlag
        }]
    );
    let text = found[0].to_string();
    assert!(text.contains("edge-21.4.4"), "{text}");
    assert!(text.contains("--timeout"), "{text}");
    assert!(text.contains("edge-22.2.1 and stable-2.11.2"), "{text}");
}

#[test]
fn an_await_timeout_without_a_hook_is_not_reported() {
    let v = values("linkerdVersion: edge-21.4.4\nproxy: {awaitTimeout: 2m}");
    assert!(unsupported_features(&v, false).is_empty());
}

#[test]
fn the_default_inbound_policy_asks_nothing_of_the_image() {
    let v =
        values("linkerdVersion: stable-2.10.2\nproxy: {defaultInboundPolicy: all-unauthenticated}");
    assert!(unsupported_features(&v, false).is_empty());
    let v = values("linkerdVersion: stable-2.10.2\nproxy: {defaultInboundPolicy: deny}");
    assert_eq!(
        unsupported_features(&v, false)[0].feature,
        Feature::InboundDefaultPolicy
    );
}

#[test]
fn control_plane_hooks_follow_control_plane_await_and_native_sidecars() {
    assert!(control_plane_hooks(&values("proxy: {}")));
    assert!(!control_plane_hooks(&values(
        "proxy: {controlPlaneAwait: false}"
    )));
    assert!(!control_plane_hooks(&values(
        "proxy: {nativeSidecar: true}"
    )));
}

/// Each release's `known_issues` (its row of `releases/releases.toml`) says what the issue's first and
/// fixing releases give: a row cannot miss an issue its release has, or claim one it has not.
#[test]
fn every_embedded_release_lists_exactly_the_known_issues_its_version_has() {
    for row in crate::releases::RELEASES {
        for issue in KNOWN_ISSUES {
            assert_eq!(
                row.known_issues.contains(&issue.issue),
                issue_rule(row.release, issue),
                "releases/releases.toml: release {} and {}",
                row.release,
                issue.issue
            );
        }
    }
}
