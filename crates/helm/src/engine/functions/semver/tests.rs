//! Unit tests for `semver`, `semverCompare` and their constraint grammar, kept apart from the
//! functions so the implementation reads on its own.

use super::{Constraint, Version};
use crate::engine::functions::test_support::{err, ok};

fn check(constraint: &str, version: &str) -> bool {
    Constraint::parse(constraint)
        .unwrap()
        .matches(&Version::parse(version).unwrap())
}

#[test]
fn semver_compare_matches_helm_on_a_recorded_table() {
    // 1 400 constraint/version pairs recorded with Helm 3.17.1's semverCompare.
    let table: Vec<(String, String, bool)> = serde_json::from_str(include_str!(
        "../../../../../../tests/helm_corpus/semver_compare_helm.json"
    ))
    .unwrap();
    let wrong: Vec<String> = table
        .iter()
        .filter(|(c, v, want)| check(c, v) != *want)
        .map(|(c, v, want)| format!("{c:?} {v:?}: Helm says {want}"))
        .collect();
    assert!(
        wrong.is_empty(),
        "{} differences:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Masterminds' own reading, with its regular expressions, as the oracle for the scanner.
mod regex_oracle {
    use regex::Regex;

    const OPS: &str = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^";
    const CV: &str = r"v?[0-9xX*]+(?:\.[0-9xX*]+)?(?:\.[0-9xX*]+)?(?:-[0-9A-Za-z\-]+(?:\.[0-9A-Za-z\-]+)*)?(?:\+[0-9A-Za-z\-]+(?:\.[0-9A-Za-z\-]+)*)?";

    /// The comparators of each `||` group as texts, or the group that is malformed.
    pub(super) fn comparators(text: &str) -> Result<Vec<Vec<String>>, String> {
        let s = r"[\t\n\f\r ]";
        let range = Regex::new(&format!(r"{s}*({CV}){s}+-{s}+({CV}){s}*")).unwrap();
        let valid = Regex::new(&format!(
            r"^{s}*(?:{OPS}){s}*{CV}{s}*(?:(?:{s}+|,{s}*)(?:{OPS}){s}*{CV}{s}*)*$"
        ))
        .unwrap();
        let find = Regex::new(&format!(r"(?:{OPS}){s}*{CV}")).unwrap();
        let rewritten = range.replace_all(text, ">= ${1}, <= ${2} ");
        rewritten
            .split("||")
            .map(|group| {
                if !valid.is_match(group) {
                    return Err(group.to_owned());
                }
                Ok(find
                    .find_iter(group)
                    // An operator-less comparator's match starts at the space before it.
                    .map(|m| m.as_str().trim_start_matches([' ', '\t']).to_owned())
                    .collect())
            })
            .collect()
    }
}

/// The scanner's reading in the oracle's terms.
fn scanned_comparators(text: &str) -> Result<Vec<Vec<String>>, String> {
    super::rewrite_ranges(text)
        .split("||")
        .map(|group| match super::scan_group(group) {
            Some(scanned) => Ok(scanned
                .into_iter()
                .map(|(span, _)| group[span].to_owned())
                .collect()),
            None => Err(group.to_owned()),
        })
        .collect()
}

proptest::proptest! {
    #[test]
    fn constraint_scanner_reads_what_masterminds_expressions_read(
        text in r"[0-9xX*v.+\-a-c ,|<>=~^!\t]{0,24}"
    ) {
        proptest::prop_assert_eq!(scanned_comparators(&text), regex_oracle::comparators(&text));
    }

    #[test]
    fn constraint_scanner_agrees_on_constraint_shaped_text(
        text in r"(( |,|\|\|)?(>=|<=|!=|=>|=<|~>|[=<>~^])? ?v?[0-9xX*]{1,2}(\.[0-9xX*]{1,2}){0,3}(-[a-z0-9]{1,3}(\.[0-9]{1,2})?)?(\+b)?( - )?){1,4}"
    ) {
        proptest::prop_assert_eq!(scanned_comparators(&text), regex_oracle::comparators(&text));
    }
}

#[test]
fn semver_compare_excludes_prereleases_unless_the_constraint_has_one() {
    assert!(!check(">=1.20.0", "1.20.0-gke.100"));
    assert!(check(">=1.20.0-0", "v1.21.3-eks-a1b2c3"));
    assert!(!check("<1.25", "1.24.5-rc.1"));
    assert!(check("<1.25-0", "1.24.5-rc.1"));
}

#[test]
fn semver_compare_caret_tilde_and_wildcards() {
    assert!(check("^1.2.0", "1.9.9") && !check("^1.2.0", "2.0.0"));
    assert!(check("~1.2.0", "1.2.9") && !check("~1.2.0", "1.3.0"));
    assert!(check("^0.2.3", "0.2.9") && !check("^0.2.3", "0.3.0"));
    assert!(check("1.2.x", "1.2.7") && !check(">1.2", "1.2.5"));
}

#[test]
fn semver_compare_and_or_and_ranges() {
    assert!(check(">=1.20.0 <1.30.0", "1.25.1"));
    assert!(!check(">=1.2,<1.4", "1.5.0"));
    assert!(check("<1.2 || >=2.0", "2.5.0"));
    assert!(check("1.2 - 1.4.5", "1.4.5") && !check("1.2 - 1.4.5", "1.4.6"));
}

#[test]
fn semver_compare_as_function_and_filter() {
    assert_eq!(
        ok(
            r#"{{ semverCompare(">=1.20.0", "1.20") }} {{ "v1.21.0" | semverCompare(">=1.20.0") }}"#
        ),
        "true true"
    );
}

#[test]
fn semver_compare_rejects_bad_input() {
    assert!(err(r#"{{ semverCompare(">=1.0.0", "not-a-version") }}"#)
        .contains("Invalid Semantic Version"));
    assert!(err(r#"{{ semverCompare(">>1.0", "1.0.0") }}"#).contains("improper constraint: >>1.0"));
    assert!(err(r#"{{ semverCompare(">=1", "1.2.3-01") }}"#).contains("starts with 0"));
    assert!(err(r#"{{ semverCompare("", "1.2.3") }}"#).contains("improper constraint"));
}
