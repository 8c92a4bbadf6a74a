//! Helm's chart version constraints (`helm template --version ^2.0.0`), checked against a
//! chart's `version`.
//!
//! Helm reads constraints with Masterminds' semver: a bare version is an exact match (`1.2.3`),
//! a partial one a wildcard (`1.2` is `1.2.x`), comparators may be separated by commas or
//! spaces (`>= 1.2, < 2` or `>=1.2 <2`), and `||` joins alternatives. Rust's `semver` reads a
//! bare version as a caret range, so each comparator is rewritten before it is parsed.

use semver::{Version, VersionReq};

/// Whether `version` satisfies `constraint`, or why the constraint cannot be read.
pub fn satisfies(constraint: &str, version: &Version) -> Result<bool, String> {
    let mut any = false;
    for alternative in constraint.split("||") {
        let requirement = requirement(alternative.trim())
            .map_err(|reason| format!("version constraint {constraint:?}: {reason}"))?;
        any |= requirement.matches(version);
    }
    Ok(any)
}

/// One `||` alternative as Rust's `VersionReq`.
fn requirement(alternative: &str) -> Result<VersionReq, String> {
    if alternative.is_empty() {
        return Err("an empty alternative".into());
    }
    let mut comparators: Vec<String> = Vec::new();
    let mut pending_operator = String::new();
    for word in alternative
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
    {
        if word == "-" {
            return Err("hyphen ranges are not supported; write `>= A, <= B`".into());
        }
        if word.starts_with("!=") {
            return Err("`!=` is not supported; write the range without that version".into());
        }
        // `>= 1.2` is one comparator written in two words.
        if word.chars().all(|c| "<>=~^".contains(c)) {
            pending_operator.push_str(word);
            continue;
        }
        let joined = format!("{}{word}", std::mem::take(&mut pending_operator));
        comparators.push(comparator(&joined));
    }
    if !pending_operator.is_empty() {
        return Err(format!("{pending_operator:?} has no version after it"));
    }
    VersionReq::parse(&comparators.join(", ")).map_err(|e| e.to_string())
}

/// One comparator in Rust's syntax: a bare version gets `=` (Masterminds' exact match, which
/// for `1.2` is `1.2.x`, as Rust's `=1.2` is too); a leading `v` is dropped.
fn comparator(word: &str) -> String {
    let operator_end = word
        .find(|c: char| !"<>=~^".contains(c))
        .unwrap_or(word.len());
    let (operator, version) = word.split_at(operator_end);
    let version = version.strip_prefix('v').unwrap_or(version);
    let operator = if operator.is_empty() && version != "*" {
        "="
    } else {
        operator
    };
    format!("{operator}{version}")
}

#[cfg(test)]
mod tests {
    use super::satisfies;
    use semver::Version;

    fn check(constraint: &str, version: &str) -> bool {
        satisfies(constraint, &Version::parse(version).unwrap()).unwrap()
    }

    #[test]
    fn a_bare_version_matches_only_itself() {
        assert!(check("1.2.3", "1.2.3"));
        assert!(check("v1.2.3", "1.2.3"));
        assert!(!check("1.2.3", "1.2.4"));
    }

    #[test]
    fn a_partial_version_is_a_wildcard() {
        assert!(check("1.2", "1.2.9"));
        assert!(!check("1.2", "1.3.0"));
        assert!(check("1.2.x", "1.2.9"));
    }

    #[test]
    fn ranges_read_as_helm_writes_them() {
        assert!(check("^2.0.0", "2.5.0"));
        assert!(!check("^2.0.0", "3.0.0"));
        assert!(check(">= 1.2, < 2", "1.9.0"));
        assert!(check(">=1.2 <2", "1.9.0"));
        assert!(!check(">=1.2 <2", "2.0.0"));
        assert!(check("~1.2.0 || ^3", "3.1.0"));
        assert!(check("*", "0.1.0"));
    }

    #[test]
    fn what_cannot_be_read_is_an_error_quoting_the_constraint() {
        for bad in ["1.2 - 1.4", "!=1.2.3", ">=", "banana", "1 ||"] {
            let error = satisfies(bad, &Version::new(1, 2, 3)).unwrap_err();
            assert!(error.contains(&format!("{bad:?}")), "{error}");
        }
    }
}
