//! `.helmignore`: Helm's rules for leaving files out of a chart, reproduced exactly.
//!
//! One glob per line (Go's `filepath.Match`: `*` and `?` stop at `/`, `[...]` classes with `^`
//! for negation, `\` escapes), blank lines and `#` comments skipped. A pattern without a slash
//! matches the base name at any depth (`*.tmp`); one with a slash matches the whole path from the
//! chart root (`a/*.tmp`); a leading `/` anchors it (`/top.tmp`); a trailing `/` matches folders
//! only (`docs/`), and an ignored folder takes its whole content with it. `**` is an error.
//!
//! Negation is reproduced as Helm 3 has it (helm/helm#8688): a `!pattern` line ignores every path
//! that does *not* match it, including `Chart.yaml`. [`HelmIgnore::ignored_by`] names the line,
//! so the "Chart.yaml is missing" that follows can say why.

use std::fmt;

/// The file's name inside a chart.
pub(crate) const HELMIGNORE: &str = ".helmignore";

/// The rule Helm adds to every chart: hidden files directly under `templates/`.
pub(crate) const DEFAULT_RULE: &str = "templates/.?*";

/// A malformed `.helmignore` line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(".helmignore line {line}: {pattern:?}: {message}")]
pub struct PatternError {
    /// 1-based line.
    pub line: usize,
    /// The line as written (trimmed).
    pub pattern: String,
    /// What is wrong.
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Scope {
    /// No slash in the pattern: match the base name.
    BaseName,
    /// A slash inside: match the whole relative path.
    Path,
}

/// One parsed line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// 1-based line in `.helmignore` (0 for Helm's built-in default rule).
    pub line: usize,
    /// The line as written (trimmed).
    pub raw: String,
    glob: String,
    negate: bool,
    dir_only: bool,
    scope: Scope,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "Helm's default rule {:?}", self.raw)
        } else {
            write!(f, ".helmignore line {} ({:?})", self.line, self.raw)
        }
    }
}

impl Rule {
    fn matches(&self, path: &str) -> bool {
        let subject = match self.scope {
            Scope::BaseName => path.rsplit('/').next().unwrap_or(path),
            Scope::Path => path,
        };
        go_match(&self.glob, subject).unwrap_or(false)
    }
}

/// A chart's ignore rules, in file order, plus Helm's default rule.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HelmIgnore {
    rules: Vec<Rule>,
}

impl HelmIgnore {
    /// No rules at all (not even the default).
    pub fn empty() -> Self {
        HelmIgnore::default()
    }

    /// Parses `.helmignore` text and adds Helm's default rule, as Helm's loader does.
    pub fn parse(text: &str) -> Result<Self, PatternError> {
        let mut rules = HelmIgnore::empty();
        for (index, line) in text.lines().enumerate() {
            rules.add(index + 1, line)?;
        }
        rules.add(0, DEFAULT_RULE)?;
        Ok(rules)
    }

    /// Only Helm's default rule (a chart without `.helmignore`).
    pub fn defaults() -> Self {
        HelmIgnore::parse("").unwrap_or_default()
    }

    fn add(&mut self, line: usize, text: &str) -> Result<(), PatternError> {
        let raw = text.trim();
        if raw.is_empty() || raw.starts_with('#') {
            return Ok(());
        }
        let error = |message: &str| PatternError {
            line,
            pattern: raw.to_owned(),
            message: message.to_owned(),
        };
        if raw.contains("**") {
            return Err(error("double-star (**) syntax is not supported"));
        }
        if go_match(raw, "abc").is_err() {
            return Err(error("syntax error in pattern"));
        }
        let mut glob = raw;
        let negate = glob.starts_with('!');
        if negate {
            glob = &glob[1..];
        }
        let dir_only = glob.ends_with('/');
        if dir_only {
            glob = &glob[..glob.len() - 1];
        }
        let scope = if glob.starts_with('/') {
            glob = &glob[1..];
            Scope::Path
        } else if glob.contains('/') {
            Scope::Path
        } else {
            Scope::BaseName
        };
        self.rules.push(Rule {
            line,
            raw: raw.to_owned(),
            glob: glob.to_owned(),
            negate,
            dir_only,
            scope,
        });
        Ok(())
    }

    /// Whether `path` (relative to the chart root, `/`-separated) is left out.
    pub fn ignores(&self, path: &str, is_dir: bool) -> bool {
        self.ignored_by(path, is_dir).is_some()
    }

    /// The rule that leaves `path` out, if any (Helm's `Rules.Ignore`, rule by rule).
    pub fn ignored_by(&self, path: &str, is_dir: bool) -> Option<&Rule> {
        if path.is_empty() || path == "." || path == "./" {
            return None;
        }
        for rule in &self.rules {
            if rule.negate {
                if (rule.dir_only && !is_dir) || !rule.matches(path) {
                    return Some(rule);
                }
                continue;
            }
            if rule.dir_only && !is_dir {
                continue;
            }
            if rule.matches(path) {
                return Some(rule);
            }
        }
        None
    }
}

/// The pattern is malformed (Go's `filepath.ErrBadPattern`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BadPattern;

/// Go's `path/filepath.Match` on Unix: `*` and `?` never match `/`.
pub(crate) fn go_match(pattern: &str, name: &str) -> Result<bool, BadPattern> {
    let mut pattern = pattern;
    let mut name = name;
    'pattern: while !pattern.is_empty() {
        let (star, chunk, rest) = scan_chunk(pattern);
        pattern = rest;
        if star && chunk.is_empty() {
            return Ok(!name.contains('/'));
        }
        let (t, ok) = match_chunk(chunk, name)?;
        if ok && (t.is_empty() || !pattern.is_empty()) {
            name = t;
            continue;
        }
        if star {
            for (i, c) in name.char_indices() {
                if c == '/' {
                    break;
                }
                let (t, ok) = match_chunk(chunk, &name[i + c.len_utf8()..])?;
                if ok {
                    if pattern.is_empty() && !t.is_empty() {
                        continue;
                    }
                    name = t;
                    continue 'pattern;
                }
            }
        }
        // No match: still report a malformed remainder, as Go does.
        while !pattern.is_empty() {
            let (_, chunk, rest) = scan_chunk(pattern);
            pattern = rest;
            match_chunk(chunk, "")?;
        }
        return Ok(false);
    }
    Ok(name.is_empty())
}

fn scan_chunk(pattern: &str) -> (bool, &str, &str) {
    let trimmed = pattern.trim_start_matches('*');
    let star = trimmed.len() != pattern.len();
    let bytes = trimmed.as_bytes();
    let mut in_range = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if i + 1 < bytes.len() => i += 1,
            b'[' => in_range = true,
            b']' => in_range = false,
            b'*' if !in_range => break,
            _ => {}
        }
        i += 1;
    }
    (star, &trimmed[..i], &trimmed[i..])
}

fn first_char(s: &str) -> (char, &str) {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => (c, chars.as_str()),
        None => ('\u{FFFD}', s),
    }
}

fn match_chunk<'a>(chunk: &str, s: &'a str) -> Result<(&'a str, bool), BadPattern> {
    let mut chunk = chunk;
    let mut s = s;
    let mut failed = false;
    while !chunk.is_empty() {
        if !failed && s.is_empty() {
            failed = true;
        }
        let (head, after) = first_char(chunk);
        match head {
            '[' => {
                let mut r = '\0';
                if !failed {
                    let (c, rest) = first_char(s);
                    r = c;
                    s = rest;
                }
                chunk = after;
                let negated = chunk.starts_with('^');
                if negated {
                    chunk = &chunk[1..];
                }
                let mut matched = false;
                let mut ranges = 0;
                loop {
                    if chunk.starts_with(']') && ranges > 0 {
                        chunk = &chunk[1..];
                        break;
                    }
                    let (lo, rest) = get_escaped(chunk)?;
                    chunk = rest;
                    let mut hi = lo;
                    if let Some(rest) = chunk.strip_prefix('-') {
                        let (h, rest) = get_escaped(rest)?;
                        hi = h;
                        chunk = rest;
                    }
                    if lo <= r && r <= hi {
                        matched = true;
                    }
                    ranges += 1;
                }
                if matched == negated {
                    failed = true;
                }
            }
            '?' => {
                if !failed {
                    let (c, rest) = first_char(s);
                    if c == '/' {
                        failed = true;
                    }
                    s = rest;
                }
                chunk = after;
            }
            _ => {
                let (literal, rest) = if head == '\\' {
                    if after.is_empty() {
                        return Err(BadPattern);
                    }
                    first_char(after)
                } else {
                    (head, after)
                };
                if !failed {
                    let (c, srest) = first_char(s);
                    if c != literal {
                        failed = true;
                    }
                    s = srest;
                }
                chunk = rest;
            }
        }
    }
    if failed {
        Ok(("", false))
    } else {
        Ok((s, true))
    }
}

fn get_escaped(chunk: &str) -> Result<(char, &str), BadPattern> {
    if chunk.is_empty() || chunk.starts_with('-') || chunk.starts_with(']') {
        return Err(BadPattern);
    }
    let chunk = match chunk.strip_prefix('\\') {
        Some("") => return Err(BadPattern),
        Some(rest) => rest,
        None => chunk,
    };
    let (c, rest) = first_char(chunk);
    if rest.is_empty() {
        return Err(BadPattern);
    }
    Ok((c, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILES: &[&str] = &[
        "a/one.tmp",
        "a/b/two.tmp",
        "top.tmp",
        "docs/d.md",
        "x/docs/d.md",
        "a/b/c.txt",
        "a/keep.txt",
        "secret.key",
        "a/secret.key",
    ];

    /// Which of engine.md 4.4's files a rule set keeps, walking folders the way Helm's loader
    /// does (an ignored folder skips everything below it).
    fn kept(helmignore: &str) -> Vec<&'static str> {
        let rules = HelmIgnore::parse(helmignore).unwrap();
        FILES
            .iter()
            .copied()
            .filter(|path| {
                let parts: Vec<&str> = path.split('/').collect();
                let dir_ignored =
                    (1..parts.len()).any(|n| rules.ignores(&parts[..n].join("/"), true));
                !dir_ignored && !rules.ignores(path, false)
            })
            .collect()
    }

    fn without(removed: &[&str]) -> Vec<&'static str> {
        FILES
            .iter()
            .copied()
            .filter(|f| !removed.contains(f))
            .collect()
    }

    #[test]
    fn a_pattern_without_slash_matches_the_base_name_at_any_depth() {
        assert_eq!(
            kept("*.tmp"),
            without(&["a/one.tmp", "a/b/two.tmp", "top.tmp"])
        );
    }

    #[test]
    fn a_leading_slash_anchors_the_pattern_at_the_chart_root() {
        assert_eq!(kept("/top.tmp"), without(&["top.tmp"]));
    }

    #[test]
    fn a_star_does_not_cross_a_slash() {
        assert_eq!(kept("a/*.tmp"), without(&["a/one.tmp"]));
    }

    #[test]
    fn a_trailing_slash_matches_folders_at_any_depth() {
        assert_eq!(kept("docs/"), without(&["docs/d.md", "x/docs/d.md"]));
        assert_eq!(kept("/docs/"), without(&["docs/d.md"]));
    }

    #[test]
    fn an_ignored_folder_takes_its_content_with_it() {
        let removed = ["a/b/two.tmp", "a/b/c.txt"];
        assert_eq!(kept("a/b"), without(&removed));
        assert_eq!(kept("a/b/"), without(&removed));
    }

    #[test]
    fn double_star_is_an_error_naming_the_line() {
        let e = HelmIgnore::parse("# c\n\na/**/*.tmp\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(
            e.to_string()
                .contains("double-star (**) syntax is not supported"),
            "{e}"
        );
    }

    #[test]
    fn a_malformed_class_is_an_error() {
        assert!(HelmIgnore::parse("[a-\n").is_err());
        assert!(HelmIgnore::parse("x\\\n").is_err());
    }

    #[test]
    fn negation_ignores_every_path_that_does_not_match_as_helm_3_does() {
        let rules = HelmIgnore::parse("*.key\n!a/secret.key\n").unwrap();
        let rule = rules.ignored_by("Chart.yaml", false).unwrap();
        assert_eq!(rule.line, 2);
        assert!(rule.to_string().contains("line 2"), "{rule}");
    }

    #[test]
    fn hidden_files_directly_under_templates_are_ignored_by_default() {
        let rules = HelmIgnore::defaults();
        assert!(rules.ignores("templates/.swp", false));
        assert!(!rules.ignores("templates/a.yaml", false));
        assert!(!rules.ignores(".helmignore", false));
    }

    #[test]
    fn comments_and_blank_lines_are_skipped() {
        let rules = HelmIgnore::parse("# *.yaml\n\n   \n").unwrap();
        assert!(!rules.ignores("a.yaml", false));
    }

    #[test]
    fn go_match_follows_filepath_match() {
        for (pattern, name, expected) in [
            ("abc", "abc", true),
            ("*", "abc", true),
            ("*c", "abc", true),
            ("a*", "a", true),
            ("a*/b", "abc/b", true),
            ("a*/b", "a/c/b", false),
            ("a?c", "abc", true),
            ("a?c", "a/c", false),
            ("[a-c]x", "bx", true),
            ("[^a-c]x", "bx", false),
            ("[^a-c]x", "dx", true),
            ("a\\*b", "a*b", true),
            ("a\\*b", "axb", false),
            ("*.tmp", "x.tmp", true),
            ("*x", "xxx", true),
        ] {
            assert_eq!(go_match(pattern, name), Ok(expected), "{pattern} vs {name}");
        }
        assert_eq!(go_match("[", "a"), Err(BadPattern));
        assert_eq!(go_match("a[", "b"), Err(BadPattern));
    }
}
