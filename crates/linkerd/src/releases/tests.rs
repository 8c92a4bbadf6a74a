//! Unit tests of the release table and the choice of a release.

use super::*;

fn values(version: Option<&str>) -> Value {
    let mut map = crate::yaml::Map::new();
    if let Some(v) = version {
        map.insert("linkerdVersion".into(), Value::from(v));
    }
    Value::Map(map)
}

#[test]
fn without_a_choice_the_default_line_renders() {
    let choice = choose_line(None, &values(None)).unwrap();
    assert_eq!(choice.release, DEFAULT_RELEASE);
    assert_eq!(choice.warning, None);
}

#[test]
fn the_users_linkerd_version_chooses_an_embedded_line() {
    let choice = choose_line(None, &values(Some("edge-24.10.2"))).unwrap();
    assert_eq!(choice.release, "edge-24.10.2");
}

#[test]
fn a_linkerd_version_of_another_embedded_line_than_linkerd_is_an_error() {
    let error = choose_line(Some("edge-26.8.3"), &values(Some("edge-24.10.2"))).unwrap_err();
    let text = error.to_string();
    assert!(text.contains("--linkerd edge-26.8.3"), "{text}");
    assert!(text.contains("edge-24.10.2"), "{text}");
}

/// Every release of the table is served now; an era served state by state (`states_served`)
/// refuses the others with this message, naming the era and the release's chart state.
#[test]
fn the_refusal_of_a_release_not_served_names_its_era_and_state() {
    let row = super::row("edge-25.3.1").unwrap();
    let text = super::not_served(row).to_string();
    assert!(text.contains("edge-25.3.1"), "{text}");
    assert!(text.contains("era edge-25.2"), "{text}");
    assert!(text.contains("chart state edge-25.3.1"), "{text}");
    assert!(text.contains("not embed yet"), "{text}");
    assert!(text.contains("edge-25.2.3 .. edge-25.6.2"), "{text}");
}

#[test]
fn every_release_of_the_table_is_served() {
    for row in RELEASES {
        assert!(super::template_set(row).is_some(), "{}", row.release);
        let choice = choose_line(None, &values(Some(row.release))).unwrap();
        assert_eq!(choice.release, row.release);
    }
}

#[test]
fn every_release_of_a_served_era_is_chosen_by_its_linkerd_version() {
    for release in [
        "stable-2.14.0",
        "stable-2.14.7",
        "edge-24.10.3",
        "edge-25.2.2",
        "edge-25.11.3",
        "edge-26.5.1",
    ] {
        let choice = choose_line(None, &values(Some(release))).unwrap();
        assert_eq!(choice.release, release);
    }
}

#[test]
fn an_unknown_linkerd_version_names_the_served_releases() {
    let text = choose_line(None, &values(Some("edge-99.1.1")))
        .unwrap_err()
        .to_string();
    assert!(text.contains("edge-99.1.1"), "{text}");
    assert!(text.contains("edge-24.10.2"), "{text}");
    assert!(text.contains("--linkerd"), "{text}");
}

#[test]
fn an_unknown_linkerd_version_under_linkerd_is_an_image_tag_with_a_warning() {
    let choice = choose_line(Some("edge-24.10.2"), &values(Some("edge-24.10.2-rc1"))).unwrap();
    assert_eq!(choice.release, "edge-24.10.2");
    assert!(choice.warning.unwrap().contains("edge-24.10.2-rc1"));
}

#[test]
fn a_linkerd_version_of_another_known_release_than_linkerd_is_an_error() {
    let error = choose_line(Some("edge-24.10.2"), &values(Some("edge-24.10.3"))).unwrap_err();
    assert!(
        matches!(error, ReleaseError::MixedReleases { .. }),
        "{error}"
    );
}

#[test]
fn an_unknown_linkerd_line_is_an_error() {
    let text = choose_line(Some("edge-99.1.1"), &values(None))
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("edge-99.1.1") && text.contains("edge-21.4.4"),
        "{text}"
    );
}

#[test]
fn an_unknown_release_suggests_the_embedded_one_meant() {
    let suggested = |asked: &str| {
        choose_line(Some(asked), &values(None))
            .unwrap_err()
            .to_string()
    };
    assert!(
        suggested("26.8.3").contains("did you mean edge-26.8.3?"),
        "{}",
        suggested("26.8.3")
    );
    assert!(suggested("v24.10.2").contains("did you mean edge-24.10.2?"));
    assert!(suggested("egde-26.8.3").contains("did you mean edge-26.8.3?"));
    assert!(!suggested("edge-9.9.9").contains("did you mean"));
}

/// Stable lines before edge releases; `edge-YY.M.P` as numbers, so `edge-24.10.2` comes
/// after `edge-24.9.1`.
fn release_order(release: &str) -> (bool, Vec<u64>) {
    let numbers = release
        .trim_start_matches(|c: char| !c.is_ascii_digit())
        .split('.')
        .map(|part| part.parse().unwrap_or(0))
        .collect();
    (!release.starts_with("stable-"), numbers)
}

#[test]
fn the_table_lists_stable_lines_then_edge_releases_oldest_first_by_number() {
    let listed = embedded_releases();
    let mut sorted = listed.clone();
    sorted.sort_by_key(|release| release_order(release));
    assert_eq!(listed, sorted);
    assert!(listed.len() >= 3, "{listed:?}");
}

#[test]
fn exactly_the_default_row_is_the_default_release() {
    let lines = release_lines().unwrap();
    let defaults: Vec<_> = lines
        .iter()
        .filter(|l| l.default)
        .map(|l| l.release)
        .collect();
    assert_eq!(defaults, [DEFAULT_RELEASE]);
}

#[test]
fn every_row_names_known_issues_the_code_knows_and_agrees_with_their_rule() {
    for row in RELEASES {
        for issue in row.known_issues {
            assert!(
                crate::proxy_support::known_issue(issue).is_some(),
                "releases/releases.toml: release {} names {issue}, which proxy_support does not know",
                row.release
            );
        }
        for known in crate::proxy_support::KNOWN_ISSUES {
            assert_eq!(
                row.known_issues.contains(&known.issue),
                crate::proxy_support::issue_rule(row.release, known),
                "releases/releases.toml: release {} and the rule of {} disagree",
                row.release,
                known.issue
            );
        }
    }
}
