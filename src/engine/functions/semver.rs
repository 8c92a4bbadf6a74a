//! `semverCompare`: version constraints with the rules of Masterminds/semver v3, as Helm has them.
//!
//! The `semver` crate matches with Cargo's rules, which differ (`1.2` means `^1.2` there, and
//! prereleases match differently), so constraints are parsed and checked here:
//!
//! - operators `=`, `!=`, `>`, `<`, `>=`, `=>`, `<=`, `=<`, `~`, `~>`, `^`, none (same as `=`);
//! - missing or `x`/`X`/`*` parts are wildcards (`1.2` = `1.2.x`, `>1.2` means `>=1.3.0`);
//! - `A - B` ranges; a comma or spaces between comparators mean AND, `||` means OR;
//! - a `v` prefix is fine; build metadata is ignored;
//! - a version with a prerelease only matches comparators that have one themselves
//!   (`>=1.20.0-0` lets `1.21.0-gke.1` in, `>=1.20.0` does not).

use super::Args;
use minijinja::value::Value;
use minijinja::Error;
use regex::Regex;
use std::cmp::Ordering;
use std::sync::OnceLock;

/// Whether `version` satisfies `constraint`, as `semverCompare` decides it (Masterminds rules,
/// which Helm also applies to a chart's `kubeVersion`).
pub fn satisfies(constraint: &str, version: &str) -> Result<bool, String> {
    let constraint = Constraint::parse(constraint)?;
    let version = Version::parse(version).map_err(|e| format!("version {version:?}: {e}"))?;
    Ok(constraint.matches(&version))
}

/// `semverCompare(constraint, version)`: whether `version` satisfies `constraint`.
///
/// ```jinja
/// {% if semverCompare(">=1.21-0", Capabilities.KubeVersion.Version) %}...{% endif %}
/// ```
/// Fails when either is malformed (`improper constraint: >>1.0`, `Invalid Semantic Version`).
pub fn semver_compare(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let constraint = args.string(0, "constraint")?;
    let version = args.string(1, "version")?;
    let constraint = Constraint::parse(&constraint).map_err(|e| args.error(e))?;
    let version =
        Version::parse(&version).map_err(|e| args.error(format!("version {version:?}: {e}")))?;
    Ok(Value::from(constraint.matches(&version)))
}

/// A version as Masterminds reads it: `v` prefix allowed, minor and patch optional.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    major: u64,
    minor: u64,
    patch: u64,
    prerelease: String,
}

const PART: &str = r"[0-9A-Za-z\-]+(?:\.[0-9A-Za-z\-]+)*";

fn version_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(&format!(
            r"^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(?:-({PART}))?(?:\+({PART}))?$"
        ))
        .expect("valid regex")
    })
}

impl Version {
    /// Parses `1.2.3`, `v1.2`, `1`, `1.2.3-rc.1+build`.
    pub fn parse(text: &str) -> Result<Version, String> {
        let caps = version_regex()
            .captures(text)
            .ok_or("Invalid Semantic Version")?;
        let number = |i: usize| -> Result<u64, String> {
            match caps.get(i) {
                None => Ok(0),
                Some(m) => m
                    .as_str()
                    .trim_start_matches('.')
                    .parse()
                    .map_err(|e| format!("Error parsing version segment: {e}")),
            }
        };
        let prerelease = caps.get(4).map_or("", |m| m.as_str()).to_owned();
        for part in prerelease.split('.').filter(|_| !prerelease.is_empty()) {
            if part.len() > 1 && part.starts_with('0') && part.bytes().all(|b| b.is_ascii_digit()) {
                return Err("Version segment starts with 0".into());
            }
        }
        Ok(Version {
            major: number(1)?,
            minor: number(2)?,
            patch: number(3)?,
            prerelease,
        })
    }

    fn cmp(&self, other: &Version) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(other.major, other.minor, other.patch))
            .then_with(
                || match (self.prerelease.is_empty(), other.prerelease.is_empty()) {
                    (true, true) => Ordering::Equal,
                    (true, false) => Ordering::Greater,
                    (false, true) => Ordering::Less,
                    (false, false) => compare_prerelease(&self.prerelease, &other.prerelease),
                },
            )
    }
}

fn compare_prerelease(a: &str, b: &str) -> Ordering {
    let (a, b): (Vec<&str>, Vec<&str>) = (a.split('.').collect(), b.split('.').collect());
    for i in 0..a.len().max(b.len()) {
        let (x, y) = (
            a.get(i).copied().unwrap_or(""),
            b.get(i).copied().unwrap_or(""),
        );
        let order = match (x, y) {
            _ if x == y => Ordering::Equal,
            ("", _) => Ordering::Less,
            (_, "") => Ordering::Greater,
            _ => match (x.parse::<u64>(), y.parse::<u64>()) {
                (Ok(m), Ok(n)) => m.cmp(&n),
                (Ok(_), Err(_)) => Ordering::Less,
                (Err(_), Ok(_)) => Ordering::Greater,
                (Err(_), Err(_)) => x.cmp(y),
            },
        };
        if order != Ordering::Equal {
            return order;
        }
    }
    Ordering::Equal
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Equal,
    NotEqual,
    Greater,
    Less,
    GreaterEqual,
    LessEqual,
    Tilde,
    Caret,
}

/// One comparator: an operator and a version whose missing or `x` parts are wildcards.
#[derive(Clone, Debug)]
struct Comparator {
    op: Op,
    version: Version,
    /// Some part is a wildcard.
    dirty: bool,
    /// The minor (and so the patch) part is a wildcard.
    minor_dirty: bool,
    /// Only the patch part is a wildcard.
    patch_dirty: bool,
}

/// A parsed constraint: any of several groups, each group all of its comparators.
#[derive(Clone, Debug)]
pub struct Constraint {
    any_of: Vec<Vec<Comparator>>,
}

const OPS: &str = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^";
const CV: &str = r"v?([0-9xX*]+)(\.[0-9xX*]+)?(\.[0-9xX*]+)?(-[0-9A-Za-z\-]+(?:\.[0-9A-Za-z\-]+)*)?(?:\+[0-9A-Za-z\-]+(?:\.[0-9A-Za-z\-]+)*)?";

struct Patterns {
    range: Regex,
    valid: Regex,
    find: Regex,
    one: Regex,
}

fn patterns() -> &'static Patterns {
    static PATTERNS: OnceLock<Patterns> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        // Plain versions without capture groups, for the patterns that only look for shapes.
        let cv = CV.replace("(?:", "(").replace('(', "(?:");
        let build = |p: String| Regex::new(&p).expect("valid regex");
        Patterns {
            range: build(format!(r"\s*({cv})\s+-\s+({cv})\s*")),
            valid: build(format!(
                r"^\s*(?:{OPS})\s*{cv}\s*(?:(?:\s+|,\s*)(?:{OPS})\s*{cv}\s*)*$"
            )),
            find: build(format!(r"(?:{OPS})\s*{cv}")),
            one: build(format!(r"^\s*({OPS})\s*({CV})\s*$")),
        }
    })
}

fn is_wildcard(part: Option<&str>) -> bool {
    matches!(
        part.map(|p| p.trim_start_matches('.')),
        None | Some("x" | "X" | "*")
    )
}

impl Comparator {
    fn parse(text: &str) -> Result<Comparator, String> {
        let improper = || format!("improper constraint: {text}");
        let caps = patterns().one.captures(text).ok_or_else(improper)?;
        let op = match caps.get(1).map_or("", |m| m.as_str()) {
            "" | "=" => Op::Equal,
            "!=" => Op::NotEqual,
            ">" => Op::Greater,
            "<" => Op::Less,
            ">=" | "=>" => Op::GreaterEqual,
            "<=" | "=<" => Op::LessEqual,
            "~" | "~>" => Op::Tilde,
            _ => Op::Caret,
        };
        let part = |i: usize| caps.get(i).map(|m| m.as_str());
        let pre = part(6).unwrap_or("");
        let (major, minor, patch) = (part(3), part(4), part(5));
        let (text_version, dirty, minor_dirty, patch_dirty) = if is_wildcard(major) {
            (format!("0.0.0{pre}"), true, false, false)
        } else if is_wildcard(minor) {
            (
                format!("{}.0.0{pre}", major.unwrap_or("0")),
                true,
                true,
                false,
            )
        } else if is_wildcard(patch) {
            let (major, minor) = (major.unwrap_or("0"), minor.unwrap_or(""));
            (format!("{major}{minor}.0{pre}"), true, false, true)
        } else {
            (part(2).unwrap_or("").to_owned(), false, false, false)
        };
        let version = Version::parse(&text_version).map_err(|_| improper())?;
        Ok(Comparator {
            op,
            version,
            dirty,
            minor_dirty,
            patch_dirty,
        })
    }

    fn matches(&self, v: &Version) -> bool {
        let c = &self.version;
        if !v.prerelease.is_empty() && c.prerelease.is_empty() {
            // Prereleases only match comparators that name one (non-wildcard `!=` aside).
            return self.op == Op::NotEqual && !self.dirty && v.cmp(c) != Ordering::Equal;
        }
        match self.op {
            Op::Equal if self.dirty => self.tilde(v),
            Op::Equal => v.cmp(c) == Ordering::Equal,
            Op::NotEqual => self.not_equal(v),
            Op::Greater => self.greater(v),
            Op::Less => v.cmp(c) == Ordering::Less,
            Op::GreaterEqual => v.cmp(c) != Ordering::Less,
            Op::LessEqual => self.less_equal(v),
            Op::Tilde => self.tilde(v),
            Op::Caret => self.caret(v),
        }
    }

    fn not_equal(&self, v: &Version) -> bool {
        let c = &self.version;
        if !self.dirty {
            return v.cmp(c) != Ordering::Equal;
        }
        if c.major != v.major {
            return true;
        }
        if self.minor_dirty {
            return false;
        }
        if c.minor != v.minor {
            return true;
        }
        if !v.prerelease.is_empty() || !c.prerelease.is_empty() {
            return compare_prerelease(&v.prerelease, &c.prerelease) != Ordering::Equal;
        }
        false
    }

    fn greater(&self, v: &Version) -> bool {
        let c = &self.version;
        if !self.dirty {
            return v.cmp(c) == Ordering::Greater;
        }
        match v.major.cmp(&c.major) {
            Ordering::Greater => true,
            Ordering::Less => false,
            Ordering::Equal if self.minor_dirty => false,
            Ordering::Equal if self.patch_dirty => v.minor > c.minor,
            Ordering::Equal => v.cmp(c) == Ordering::Greater,
        }
    }

    fn less_equal(&self, v: &Version) -> bool {
        let c = &self.version;
        if !self.dirty {
            return v.cmp(c) != Ordering::Greater;
        }
        if v.major > c.major {
            return false;
        }
        !(v.major == c.major && v.minor > c.minor && !self.minor_dirty)
    }

    fn tilde(&self, v: &Version) -> bool {
        let c = &self.version;
        if v.cmp(c) == Ordering::Less {
            return false;
        }
        if (c.major, c.minor, c.patch) == (0, 0, 0) && !self.minor_dirty && !self.patch_dirty {
            return true;
        }
        v.major == c.major && (v.minor == c.minor || self.minor_dirty)
    }

    fn caret(&self, v: &Version) -> bool {
        let c = &self.version;
        if v.cmp(c) == Ordering::Less {
            return false;
        }
        if c.major > 0 || self.minor_dirty {
            return v.major == c.major;
        }
        if v.major > 0 {
            return false;
        }
        if c.minor > 0 || self.patch_dirty {
            return v.minor == c.minor;
        }
        if v.minor > 0 {
            return false;
        }
        v.patch == c.patch
    }
}

impl Constraint {
    /// Parses a constraint such as `>=1.20.0-0`, `^1.2 || ~2.0`, `1.2 - 1.4.5`.
    pub fn parse(text: &str) -> Result<Constraint, String> {
        let p = patterns();
        let rewritten = p.range.replace_all(text, ">= ${1}, <= ${2} ");
        let mut any_of = Vec::new();
        for group in rewritten.split("||") {
            if !p.valid.is_match(group) {
                return Err(format!("improper constraint: {group}"));
            }
            let all_of = p
                .find
                .find_iter(group)
                .map(|m| Comparator::parse(m.as_str()))
                .collect::<Result<Vec<_>, _>>()?;
            any_of.push(all_of);
        }
        Ok(Constraint { any_of })
    }

    /// Whether `version` satisfies the constraint.
    pub fn matches(&self, version: &Version) -> bool {
        self.any_of
            .iter()
            .any(|group| group.iter().all(|c| c.matches(version)))
    }
}

#[cfg(test)]
mod tests {
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
            "../../../tests/helm_corpus/semver_compare_helm.json"
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
        assert!(
            err(r#"{{ semverCompare(">>1.0", "1.0.0") }}"#).contains("improper constraint: >>1.0")
        );
        assert!(err(r#"{{ semverCompare(">=1", "1.2.3-01") }}"#).contains("starts with 0"));
        assert!(err(r#"{{ semverCompare("", "1.2.3") }}"#).contains("improper constraint"));
    }
}
