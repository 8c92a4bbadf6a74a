//! Single-line scalars, keys and entries: what the line check accepts on one line, and the
//! string the reader would make of a head field's value.

use super::text::{without_indent, without_trailing_spaces};
use crate::load::{resolve_plain, resolve_word};
use crate::value::Value;

/// Checks a single-line scalar value; the outer option is "sure it is valid", the inner value
/// is the string the reader would make of it (`None` for non-strings and what we don't decode).
/// Only a head field needs that string (`want`): every other scalar is checked without
/// building it.
pub(super) fn scalar(value: &str, want: bool) -> Option<Option<String>> {
    let mut value = without_trailing_spaces(value);
    // A quoted scalar may be followed by a comment (`name: "x" # why`): judge the quoted part.
    if let Some(quote @ (b'"' | b'\'')) = value.bytes().next() {
        let close = quoted_end(&value[1..], quote)??;
        value = &value[..close + 2];
    }
    if value == "{}" || value == "[]" {
        return Some(Some(String::new()));
    }
    if let Some(items) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
        return flow_list(items).then(|| Some(String::new()));
    }
    if let Some(body) = value.strip_prefix('"') {
        let inner = body.strip_suffix('"')?;
        let mut chars = inner.chars();
        let mut escaped = false;
        while let Some(c) = chars.next() {
            match c {
                '"' => return None,
                '\\' => {
                    escaped = true;
                    let digits = match chars.next()? {
                        'x' => 2,
                        'u' => 4,
                        'U' => 8,
                        '0' | 'a' | 'b' | 't' | 'n' | 'v' | 'f' | 'r' | 'e' | ' ' | '"' | '/'
                        | '\\' | 'N' | '_' | 'L' | 'P' => 0,
                        _ => return None,
                    };
                    for _ in 0..digits {
                        if !chars.next()?.is_ascii_hexdigit() {
                            return None;
                        }
                    }
                }
                _ => {}
            }
        }
        // Escapes would need decoding to give the head the reader's string: let it decide.
        return Some((want && !escaped).then(|| inner.to_owned()));
    }
    if let Some(body) = value.strip_prefix('\'') {
        let inner = body.strip_suffix('\'')?;
        // Inside, quotes come in pairs ('' is one quote).
        if inner.split("''").any(|part| part.contains('\'')) {
            return None;
        }
        return Some(want.then(|| inner.replace("''", "'")));
    }
    let first = value.chars().next()?;
    if matches!(
        first,
        '[' | ']'
            | '{'
            | '}'
            | '#'
            | '&'
            | '*'
            | '!'
            | '|'
            | '>'
            | '\''
            | '"'
            | '%'
            | '@'
            | '`'
            | ','
    ) {
        return None;
    }
    if matches!(first, '-' | '?' | ':') && value[1..].chars().next().is_none_or(|c| c == ' ') {
        return None;
    }
    let value = plain_scalar_text(value)?;
    if !want {
        // Only the words `.nan`-like spellings YAML reads wrongly fail to resolve.
        return match resolve_word(value) {
            Some(Err(_)) => None,
            _ => Some(None),
        };
    }
    match resolve_plain(value).ok()? {
        Value::String(s) => Some(Some(s)),
        _ => Some(Some(String::new())),
    }
}

/// A plain scalar's text without its comment (a ` #` starts one), in one pass over its bytes;
/// `None` when a `: ` or a final `:` before the comment would make it a map.
pub(super) fn plain_scalar_text(value: &str) -> Option<&str> {
    let bytes = value.as_bytes();
    let mut end = bytes.len();
    for (at, pair) in bytes.windows(2).enumerate() {
        match pair {
            [b' ', b'#'] => {
                end = at;
                break;
            }
            [b':', b' '] => return None,
            _ => {}
        }
    }
    let text = without_trailing_spaces(&value[..end]);
    (!text.ends_with(':')).then_some(text)
}

/// The items of a one-line flow list, when each is a simple word or a simple quoted string.
pub(super) fn flow_list(items: &str) -> bool {
    items.split(',').all(|item| {
        let item = item.trim_matches(' ');
        let quoted = |q: char| {
            item.len() >= 2
                && item.starts_with(q)
                && item.ends_with(q)
                && !item[1..item.len() - 1].contains([q, '\\'])
        };
        let word = item
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
            && item
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '/' | '-'))
            && resolve_plain(item).is_ok();
        quoted('"') || quoted('\'') || word
    })
}

/// `- x` or a lone `-`.
pub(super) fn is_seq_item(content: &str) -> bool {
    content == "-" || content.starts_with("- ")
}

/// `|`, `|-`, `|+`, `>`, `>-`, `>+`.
pub(super) fn looks_like_block_scalar(value: &str) -> bool {
    let value = without_trailing_spaces(value);
    matches!(value, "|" | "|-" | "|+" | ">" | ">-" | ">+")
}

/// `key: value` or `key:` split at the first `: `.
pub(super) fn split_entry(content: &str) -> Option<(&str, &str)> {
    match find_pair(content, b':', b' ') {
        Some(at) => Some((&content[..at], without_indent(&content[at + 2..]))),
        None => content.strip_suffix(':').map(|key| (key, "")),
    }
}

/// Where `first` followed by `second` starts in `text`. A byte scan: this runs on every line of
/// every rendered manifest, and a substring search's set-up cost more than the search.
pub(super) fn find_pair(text: &str, first: u8, second: u8) -> Option<usize> {
    let bytes = text.as_bytes();
    // Most keys and values are a few bytes long: a plain loop beats memchr's set-up there.
    if bytes.len() < 32 {
        return bytes
            .windows(2)
            .position(|pair| pair[0] == first && pair[1] == second);
    }
    let mut from = 0;
    while let Some(found) = memchr::memchr(first, &bytes[from..]) {
        let at = from + found;
        if bytes.get(at + 1) == Some(&second) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// Keys we are sure the reader takes as the same plain string: no quoting, no YAML words.
pub(super) fn is_simple_key(key: &str) -> bool {
    // Bytes, not characters: anything outside ASCII fails either way.
    let mut bytes = key.bytes();
    let Some(first) = bytes.next() else {
        return false;
    };
    key.len() < 1000
        && (first.is_ascii_alphanumeric() || first == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b'-'))
        && !matches!(key, "null" | "Null" | "NULL")
}

/// Where the quoted scalar whose text (after its opening `quote`) starts `segment` closes: the
/// offset of the closing quote in `segment`, `Some(None)` when the line ends inside the quotes
/// (the scalar goes on over the next lines), `None` when unsure it is valid (an escape we do not
/// know, or anything but spaces and a comment after the closing quote).
pub(super) fn quoted_end(segment: &str, quote: u8) -> Option<Option<usize>> {
    let bytes = segment.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let b = bytes[at];
        if b == quote {
            if quote == b'\'' && bytes.get(at + 1) == Some(&b'\'') {
                at += 2;
                continue;
            }
            let after = &segment[at + 1..];
            let rest = without_indent(after);
            let valid_end = rest.is_empty() || (rest.starts_with('#') && rest.len() < after.len());
            return valid_end.then_some(Some(at));
        }
        if quote == b'"' && b == b'\\' {
            let Some(&escaped) = bytes.get(at + 1) else {
                // A backslash ending the line escapes the line break.
                return Some(None);
            };
            let digits = match escaped {
                b'x' => 2,
                b'u' => 4,
                b'U' => 8,
                b'0' | b'a' | b'b' | b't' | b'n' | b'v' | b'f' | b'r' | b'e' | b' ' | b'"'
                | b'/' | b'\\' | b'N' | b'_' | b'L' | b'P' => 0,
                _ => return None,
            };
            let hex = bytes.get(at + 2..at + 2 + digits)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            at += 2 + digits;
            continue;
        }
        at += 1;
    }
    Some(None)
}
