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

use super::args::Args;
use minijinja::value::Value;
use minijinja::Error;
use std::cmp::Ordering;

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
pub(super) fn semver_compare(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let constraint = args.string(0, "constraint")?;
    let version = args.string(1, "version")?;
    let constraint = Constraint::parse(&constraint).map_err(|e| args.error(e))?;
    let version =
        Version::parse(&version).map_err(|e| args.error(format!("version {version:?}: {e}")))?;
    Ok(Value::from(constraint.matches(&version)))
}

/// What `semver(version)` gives: a version with Helm's method names as attributes.
#[derive(Debug)]
struct SemverObject {
    version: Version,
    metadata: String,
    original: String,
}

impl minijinja::value::Object for SemverObject {
    /// Plain: printed, a version reads as Go prints it (`1.2.0`), not as a map.
    fn repr(self: &std::sync::Arc<Self>) -> minijinja::value::ObjectRepr {
        minijinja::value::ObjectRepr::Plain
    }

    fn get_value(self: &std::sync::Arc<Self>, key: &Value) -> Option<Value> {
        let v = &self.version;
        Some(match key.as_str()? {
            "Major" => Value::from(v.major),
            "Minor" => Value::from(v.minor),
            "Patch" => Value::from(v.patch),
            "Prerelease" => Value::from(v.prerelease.as_str()),
            "Metadata" => Value::from(self.metadata.as_str()),
            "Original" => Value::from(self.original.as_str()),
            _ => return None,
        })
    }

    fn render(self: &std::sync::Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let v = &self.version;
        write!(f, "{}.{}.{}", v.major, v.minor, v.patch)?;
        if !v.prerelease.is_empty() {
            write!(f, "-{}", v.prerelease)?;
        }
        if !self.metadata.is_empty() {
            write!(f, "+{}", self.metadata)?;
        }
        Ok(())
    }
}

/// `semver(version)`: the version's parts, as Helm's `semver` object has them:
/// `semver("v1.2.3-rc.1+b5").Major` is 1, `.Prerelease` `rc.1`, `.Metadata` `b5`, `.Original`
/// the text as given; printed, it is `1.2.3-rc.1+b5`. A malformed version is an error.
///
/// ```jinja
/// {% if semver(Capabilities.KubeVersion.Version).Minor >= 25 %}...{% endif %}
/// ```
pub(super) fn semver(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let text = args.string(0, "version")?;
    let version = Version::parse(&text).map_err(|e| args.error(e))?;
    let metadata = scan_version(&text, false)
        .and_then(|shape| shape.build)
        .map_or("", |b| &b[1..])
        .to_owned();
    Ok(Value::from_object(SemverObject {
        version,
        metadata,
        original: text.into_owned(),
    }))
}

/// A version as Masterminds reads it: `v` prefix allowed, minor and patch optional.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Version {
    major: u64,
    minor: u64,
    patch: u64,
    prerelease: String,
}

/// The parts of a version as written, each still with its leading `.`, `-` or `+`.
///
/// Masterminds describes versions and constraint versions with regular expressions; this scanner
/// reads the same shape greedily by hand, because compiling those expressions took 15% of a
/// whole render (callgrind).
#[derive(Clone, Copy, Debug, Default)]
struct Shape<'a> {
    major: &'a str,
    minor: Option<&'a str>,
    patch: Option<&'a str>,
    prerelease: Option<&'a str>,
    build: Option<&'a str>,
    /// How many bytes the version takes, `v` prefix included.
    len: usize,
}

fn is_identifier_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}

/// `[0-9]` for a version, `[0-9xX*]` for a version inside a constraint.
fn is_number_byte(b: u8, wildcards: bool) -> bool {
    b.is_ascii_digit() || (wildcards && matches!(b, b'x' | b'X' | b'*'))
}

/// Reads the longest version at the start of `text`:
/// `v? N (.N)? (.N)? (-ID(.ID)*)? (+ID(.ID)*)?`, with `N` as [`is_number_byte`] says.
fn scan_version(text: &str, wildcards: bool) -> Option<Shape<'_>> {
    let bytes = text.as_bytes();
    let run = |from: usize, accept: &dyn Fn(u8) -> bool| {
        from + bytes[from..].iter().take_while(|&&b| accept(b)).count()
    };
    let number = |b: u8| is_number_byte(b, wildcards);
    let start = usize::from(bytes.first() == Some(&b'v'));
    let mut end = run(start, &number);
    if end == start {
        return None;
    }
    let mut shape = Shape {
        major: &text[start..end],
        ..Shape::default()
    };
    // `.N` twice, each optional: a dot not followed by a number ends the version before the dot.
    for slot in [&mut shape.minor, &mut shape.patch] {
        if bytes.get(end) != Some(&b'.') {
            break;
        }
        let after = run(end + 1, &number);
        if after == end + 1 {
            break;
        }
        *slot = Some(&text[end..after]);
        end = after;
    }
    // `-ID(.ID)*` and then `+ID(.ID)*`, each optional.
    for (lead, slot) in [(b'-', &mut shape.prerelease), (b'+', &mut shape.build)] {
        if bytes.get(end) != Some(&lead) {
            continue;
        }
        let mut after = run(end + 1, &is_identifier_byte);
        if after == end + 1 {
            continue;
        }
        while bytes.get(after) == Some(&b'.') {
            let next = run(after + 1, &is_identifier_byte);
            if next == after + 1 {
                break;
            }
            after = next;
        }
        *slot = Some(&text[end..after]);
        end = after;
    }
    shape.len = end;
    Some(shape)
}

/// Go's `\s`: the ASCII white space Masterminds' expressions skip.
fn skip_space(text: &str, from: usize) -> usize {
    from + text.as_bytes()[from..]
        .iter()
        .take_while(|b| b.is_ascii_whitespace())
        .count()
}

impl Version {
    /// Parses `1.2.3`, `v1.2`, `1`, `1.2.3-rc.1+build`.
    pub(super) fn parse(text: &str) -> Result<Version, String> {
        let shape = scan_version(text, false)
            .filter(|shape| shape.len == text.len())
            .ok_or("Invalid Semantic Version")?;
        let number = |part: Option<&str>| -> Result<u64, String> {
            match part {
                None => Ok(0),
                Some(digits) => digits
                    .trim_start_matches('.')
                    .parse()
                    .map_err(|e| format!("Error parsing version segment: {e}")),
            }
        };
        let prerelease = shape.prerelease.map_or("", |p| &p[1..]).to_owned();
        for part in prerelease.split('.').filter(|_| !prerelease.is_empty()) {
            if part.len() > 1 && part.starts_with('0') && part.bytes().all(|b| b.is_ascii_digit()) {
                return Err("Version segment starts with 0".into());
            }
        }
        Ok(Version {
            major: number(Some(shape.major))?,
            minor: number(shape.minor)?,
            patch: number(shape.patch)?,
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
pub(super) struct Constraint {
    any_of: Vec<Vec<Comparator>>,
}

/// The operators, longest first: after an operator only a version may follow, and no version
/// starts with an operator's second character, so the longest operator is the only one that can
/// match (as the alternation in Masterminds' expression finds by backtracking).
const OPERATORS: [(&str, Op); 12] = [
    ("!=", Op::NotEqual),
    (">=", Op::GreaterEqual),
    ("=>", Op::GreaterEqual),
    ("<=", Op::LessEqual),
    ("=<", Op::LessEqual),
    ("~>", Op::Tilde),
    ("=", Op::Equal),
    (">", Op::Greater),
    ("<", Op::Less),
    ("~", Op::Tilde),
    ("^", Op::Caret),
    ("", Op::Equal),
];

/// A comparator as read from a group: the bytes it spans, and it (or why its version is
/// unusable).
type Scanned = (std::ops::Range<usize>, Result<Comparator, String>);

/// The comparators of a `||` group, or `None` when the group is not comparators separated by
/// white space or a comma.
fn scan_group(group: &str) -> Option<Vec<Scanned>> {
    let mut scanned = Vec::new();
    let mut at = skip_space(group, 0);
    loop {
        let (comparator, len) = Comparator::scan(&group[at..])?;
        let version_end = at + len;
        scanned.push((at..version_end, comparator));
        at = skip_space(group, version_end);
        if at == group.len() {
            return Some(scanned);
        }
        if group.as_bytes()[at] == b',' {
            at = skip_space(group, at + 1);
        } else if at == version_end {
            // Comparators need white space or a comma between them.
            return None;
        }
    }
}

/// Rewrites each hyphen range `A - B` to `>= A, <= B `, as Masterminds does with its expression
/// `\s*(V)\s+-\s+(V)\s*` before reading comparators.
fn rewrite_ranges(text: &str) -> std::borrow::Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let (mut copied, mut at) = (0, 0);
    while at < bytes.len() {
        match range_at(text, at) {
            Some((low, high, end)) => {
                out.push_str(&text[copied..at]);
                out.push_str(">= ");
                out.push_str(low);
                out.push_str(", <= ");
                out.push_str(high);
                out.push(' ');
                (copied, at) = (end, end);
            }
            None => at += text[at..].chars().next().map_or(1, char::len_utf8),
        }
    }
    if copied == 0 {
        return std::borrow::Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    std::borrow::Cow::Owned(out)
}

/// A hyphen range starting at byte `at`: its two versions and where the match ends.
fn range_at(text: &str, at: usize) -> Option<(&str, &str, usize)> {
    let bytes = text.as_bytes();
    let low_start = skip_space(text, at);
    let low = scan_version(&text[low_start..], true)?;
    let low_end = low_start + low.len;
    // The first version must run up to white space, then ` - ` with space on both sides.
    let dash = skip_space(text, low_end);
    if dash == low_end || bytes.get(dash) != Some(&b'-') {
        return None;
    }
    let high_start = skip_space(text, dash + 1);
    if high_start == dash + 1 {
        return None;
    }
    let high = scan_version(&text[high_start..], true)?;
    let high_end = high_start + high.len;
    Some((
        &text[low_start..low_end],
        &text[high_start..high_end],
        skip_space(text, high_end),
    ))
}

fn is_wildcard(part: Option<&str>) -> bool {
    matches!(
        part.map(|p| p.trim_start_matches('.')),
        None | Some("x" | "X" | "*")
    )
}

impl Comparator {
    /// Reads one comparator at the start of `text`: operator, optional space, version.
    /// Returns it (or why its version is unusable) and the bytes it took, or `None` when no
    /// version follows the operator.
    fn scan(text: &str) -> Option<(Result<Comparator, String>, usize)> {
        let (operator, op) = OPERATORS
            .iter()
            .find(|(operator, _)| text.starts_with(operator))
            .copied()
            .unwrap_or(("", Op::Equal));
        let version_start = skip_space(text, operator.len());
        let shape = scan_version(&text[version_start..], true)?;
        let end = version_start + shape.len;
        let version_text = &text[version_start..end];
        let improper = || format!("improper constraint: {}", &text[..end]);
        let pre = shape.prerelease.unwrap_or("");
        let (text_version, dirty, minor_dirty, patch_dirty) = if is_wildcard(Some(shape.major)) {
            (format!("0.0.0{pre}"), true, false, false)
        } else if is_wildcard(shape.minor) {
            (format!("{}.0.0{pre}", shape.major), true, true, false)
        } else if is_wildcard(shape.patch) {
            let minor = shape.minor.unwrap_or("");
            (format!("{}{minor}.0{pre}", shape.major), true, false, true)
        } else {
            (version_text.to_owned(), false, false, false)
        };
        let comparator = match Version::parse(&text_version) {
            Ok(version) => Ok(Comparator {
                op,
                version,
                dirty,
                minor_dirty,
                patch_dirty,
            }),
            Err(_) => Err(improper()),
        };
        Some((comparator, end))
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
    pub(super) fn parse(text: &str) -> Result<Constraint, String> {
        let rewritten = rewrite_ranges(text);
        let any_of = rewritten
            .split("||")
            .map(Self::parse_group)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Constraint { any_of })
    }

    /// One `||` alternative: comparators separated by white space or a comma, all required.
    /// The group's shape is checked before its versions, so a malformed group is reported whole.
    fn parse_group(group: &str) -> Result<Vec<Comparator>, String> {
        scan_group(group)
            .ok_or_else(|| format!("improper constraint: {group}"))?
            .into_iter()
            .map(|(_, comparator)| comparator)
            .collect()
    }

    /// Whether `version` satisfies the constraint.
    pub(super) fn matches(&self, version: &Version) -> bool {
        self.any_of
            .iter()
            .any(|group| group.iter().all(|c| c.matches(version)))
    }
}

#[cfg(test)]
mod tests;
