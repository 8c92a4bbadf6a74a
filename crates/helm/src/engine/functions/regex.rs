//! Regular expressions: `regexMatch`, `regexFind`, `regexFindAll`, `regexReplaceAll`,
//! `regexReplaceAllLiteral`, `regexSplit`, `regexQuoteMeta`, and their `must` forms (Helm fails
//! on an invalid expression with either form, so here both fail alike).
//!
//! Patterns are read with Go's syntax (`go_regex` writes them in the `regex` crate's: `\d`,
//! `\w`, `\s` and `\b` ASCII-only, a class's `-` after `\w` itself, ...). Compiled programs are limited in
//! size, so a pathological pattern fails with a clear error instead of eating memory; compiled
//! expressions are cached per thread because templates call them in loops. The cache hands out
//! shared references, not clones: a cloned `Regex` starts with an empty search cache, and
//! filling it again was most of each call (a camelCase-to-SNAKE_CASE loop in the proxy partial
//! made regexReplaceAll 8% of a control-plane render).

use super::args::{check_size, Args};
use minijinja::value::Value;
use minijinja::Error;
use regex::{Regex, RegexBuilder};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// The most memory one compiled expression may use.
pub(super) const MAX_REGEX_BYTES: usize = 10 * 1024 * 1024;
const CACHE_ENTRIES: usize = 64;

thread_local! {
    static CACHE: RefCell<HashMap<String, Arc<Regex>>> = RefCell::new(HashMap::new());
}

fn compile(pattern: &str) -> Result<Arc<Regex>, regex::Error> {
    if let Some(regex) = CACHE.with(|c| c.borrow().get(pattern).cloned()) {
        return Ok(regex);
    }
    let regex = Arc::new(
        RegexBuilder::new(&super::go_regex::to_rust_syntax(pattern))
            .size_limit(MAX_REGEX_BYTES)
            .dfa_size_limit(MAX_REGEX_BYTES)
            .build()?,
    );
    CACHE.with(|c| {
        let mut cache = c.borrow_mut();
        if cache.len() >= CACHE_ENTRIES {
            cache.clear();
        }
        cache.insert(pattern.to_owned(), regex.clone());
    });
    Ok(regex)
}

fn compiled(args: &Args, pattern: &str) -> Result<Arc<Regex>, Error> {
    compile(pattern).map_err(|e| args.error(format!("invalid regular expression: {e}")))
}

/// `regexMatch(regex, text)`: whether `regex` matches somewhere in `text`; an invalid regex
/// is simply no match (use `mustRegexMatch` to be told).
///
/// ```jinja
/// {% if regexMatch("^[a-z0-9-]+$", Values.name) %}...{% endif %}
/// ```
pub(super) fn regex_match(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let pattern = args.string(0, "regex")?;
    let text = args.string(1, "text")?;
    Ok(Value::from(
        compile(&pattern).is_ok_and(|re| re.is_match(&text)),
    ))
}

/// `mustRegexMatch(regex, text)`: like `regexMatch`, but an invalid regex is an error.
pub(super) fn must_regex_match(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let pattern = args.string(0, "regex")?;
    let text = args.string(1, "text")?;
    Ok(Value::from(compiled(args, &pattern)?.is_match(&text)))
}

/// `regexFind(regex, text)`: the first match, or `""`; an invalid regex is an error.
pub(super) fn regex_find(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let pattern = args.string(0, "regex")?;
    let text = args.string(1, "text")?;
    let regex = compiled(args, &pattern)?;
    Ok(Value::from(regex.find(&text).map_or("", |m| m.as_str())))
}

/// `regexReplaceAll(regex, text, replacement)`: every match replaced; `$1`, `${1}` and `${name}`
/// in `replacement` expand to groups. The result is limited to 10 MiB.
///
/// ```jinja
/// {{ regexReplaceAll("[^a-z0-9]+", Values.name | lower, "-") }}
/// ```
pub(super) fn regex_replace_all(args: &Args) -> Result<Value, Error> {
    args.exactly(3)?;
    let pattern = args.string(0, "regex")?;
    let text = args.string(1, "text")?;
    let replacement = args.string(2, "replacement")?;
    let regex = compiled(args, &pattern)?;
    // Most texts a template runs through a replacement have nothing to replace: found without
    // setting up the captures.
    if !regex.is_match(&text) {
        return Ok(Value::from(text));
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for captures in regex.captures_iter(&text) {
        let whole = captures.get(0).map_or(0..0, |m| m.range());
        out.push_str(&text[last..whole.start]);
        captures.expand(&replacement, &mut out);
        last = whole.end;
        check_size(args, out.len())?;
    }
    out.push_str(&text[last..]);
    check_size(args, out.len())?;
    Ok(Value::from(out))
}

/// Go's `FindAllStringIndex(text, n)`: successive matches, an empty match right after the
/// previous one skipped; at most `n` (all when `n` is negative).
fn go_find_all(regex: &Regex, text: &str, n: i64) -> Vec<std::ops::Range<usize>> {
    let limit = if n < 0 { text.len() + 1 } else { n as usize };
    let mut out = Vec::new();
    let mut pos = 0;
    let mut prev_end: Option<usize> = None;
    while out.len() < limit && pos <= text.len() {
        let Some(m) = regex.find_at(text, pos) else {
            break;
        };
        let mut accept = true;
        if m.end() == pos {
            if Some(m.start()) == prev_end {
                accept = false;
            }
            pos += text[pos..].chars().next().map_or(1, char::len_utf8);
        } else {
            pos = m.end();
        }
        prev_end = Some(m.end());
        if accept {
            out.push(m.range());
        }
    }
    out
}

/// `regexFindAll(regex, text, n)`: the first `n` matches (all when `n` is negative).
///
/// ```jinja
/// {{ regexFindAll("[0-9]+", Values.ports, -1) | join(",") }}
/// ```
pub(super) fn regex_find_all(args: &Args) -> Result<Value, Error> {
    args.exactly(3)?;
    let pattern = args.string(0, "regex")?;
    let text = args.string(1, "text")?;
    let n = args.int(2, "n")?;
    let regex = compiled(args, &pattern)?;
    Ok(Value::from(
        go_find_all(&regex, &text, n)
            .into_iter()
            .map(|r| Value::from(&text[r]))
            .collect::<Vec<_>>(),
    ))
}

/// `regexReplaceAllLiteral(regex, text, replacement)`: every match replaced by `replacement`
/// as it is (`$1` stays `$1`).
pub(super) fn regex_replace_all_literal(args: &Args) -> Result<Value, Error> {
    args.exactly(3)?;
    let pattern = args.string(0, "regex")?;
    let text = args.string(1, "text")?;
    let replacement = args.string(2, "replacement")?;
    let regex = compiled(args, &pattern)?;
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for m in go_find_all(&regex, &text, -1) {
        out.push_str(&text[last..m.start]);
        out.push_str(&replacement);
        last = m.end;
        check_size(args, out.len())?;
    }
    out.push_str(&text[last..]);
    Ok(Value::from(out))
}

/// `regexSplit(regex, text, n)`: the pieces between matches, at most `n` (all when negative,
/// none when 0), as Go's `Regexp.Split`.
pub(super) fn regex_split(args: &Args) -> Result<Value, Error> {
    args.exactly(3)?;
    let pattern = args.string(0, "regex")?;
    let text = args.string(1, "text")?;
    let n = args.int(2, "n")?;
    let regex = compiled(args, &pattern)?;
    if n == 0 {
        return Ok(Value::from(()));
    }
    if !pattern.is_empty() && text.is_empty() {
        return Ok(Value::from(vec![Value::from("")]));
    }
    let mut pieces = Vec::new();
    let (mut begin, mut end) = (0, 0);
    for m in go_find_all(&regex, &text, n) {
        if n > 0 && pieces.len() as i64 == n - 1 {
            break;
        }
        end = m.start;
        if m.end != 0 {
            pieces.push(Value::from(&text[begin..end]));
        }
        begin = m.end;
    }
    if end != text.len() {
        pieces.push(Value::from(&text[begin..]));
    }
    Ok(Value::from(pieces))
}

/// `regexQuoteMeta(text)`: `text` with every regular-expression metacharacter escaped.
pub(super) fn regex_quote_meta(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let text = args.string(0, "text")?;
    let mut out = String::with_capacity(text.len() * 2);
    for c in text.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    Ok(Value::from(out))
}

#[cfg(test)]
mod tests {
    use crate::engine::functions::test_support::{err, ok};

    #[test]
    fn regex_match_finds_anywhere_and_anchors_work() {
        assert_eq!(
            ok(
                r#"{{ regexMatch("^[a-z]+$", "abc") }} {{ regexMatch("^[a-z]+$", "abc1") }} {{ regexMatch("b", "abc") }}"#
            ),
            "true false true"
        );
    }

    #[test]
    fn regex_match_treats_an_invalid_regex_as_no_match() {
        assert_eq!(ok(r#"{{ regexMatch("[", "x") }}"#), "false");
    }

    #[test]
    fn must_regex_match_reports_an_invalid_regex() {
        assert!(err(r#"{{ mustRegexMatch("[", "x") }}"#).contains("invalid regular expression"));
    }

    #[test]
    fn regex_find_returns_the_first_match_or_nothing() {
        assert_eq!(
            ok(r#"[{{ regexFind("[0-9]+", "abc123def456") }}] [{{ regexFind("z", "abc") }}]"#),
            "[123] []"
        );
    }

    #[test]
    fn regex_replace_all_expands_groups() {
        assert_eq!(
            ok(r#"{{ regexReplaceAll("a(x*)b", "-ab-axxb-", "${1}W") }}"#),
            "-W-xxW-"
        );
    }

    #[test]
    fn regex_replace_all_without_a_match_gives_the_text_back() {
        assert_eq!(
            ok(r#"{{ regexReplaceAll("([a-z0-9])([A-Z])", "inbound", "${1}_${2}") }}"#),
            "inbound"
        );
        assert_eq!(
            ok(r#"{{ regexReplaceAll("([a-z0-9])([A-Z])", "keepAlive", "${1}_${2}") }}"#),
            "keep_Alive"
        );
    }

    #[test]
    fn regex_size_is_limited() {
        let message =
            err(r#"{{ regexMatch("x", "x") }}{{ mustRegexMatch("(a{1000}){1000}", "a") }}"#);
        assert!(message.contains("size limit"), "{message}");
    }
}
