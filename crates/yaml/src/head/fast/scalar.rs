//! Single-line scalars, keys and entries: what the line check accepts on one line, and the
//! string the reader would make of a head field's value.

use super::text::{without_indent, without_trailing_spaces};
use crate::load::{resolve_plain, resolve_word};
use crate::value::Value;

/// A single-line scalar value the line check is sure of, by the form it is written in.
pub(crate) enum Scalar<'t> {
    /// `{}`.
    EmptyMap,
    /// `[]`.
    EmptyList,
    /// A one-line flow list (`[a, "b"]`): the text between its brackets. Its items are for
    /// the caller to go through once with [`flow_items`], which says whether each is sure.
    FlowList(&'t str),
    /// `"..."`: the text between the quotes, and whether it holds a `\` escape.
    DoubleQuoted {
        /// The text between the quotes, escapes undecoded.
        inner: &'t str,
        /// It holds at least one (valid) escape.
        escaped: bool,
    },
    /// `'...'`: the text between the quotes, `''` undecoded.
    SingleQuoted(&'t str),
    /// A plain scalar's text, without its comment and trailing spaces.
    Plain(&'t str),
}

/// What a single-line scalar value is, when the line check is sure it is valid YAML; `None`
/// when unsure. Shared by the check ([`scalar`]) and the fast loader, which decodes it.
pub(crate) fn classify(value: &str) -> Option<Scalar<'_>> {
    let value = without_trailing_spaces(value);
    if value == "{}" {
        return Some(Scalar::EmptyMap);
    }
    if value == "[]" {
        return Some(Scalar::EmptyList);
    }
    if let Some(items) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
        return Some(Scalar::FlowList(items));
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
        return Some(Scalar::DoubleQuoted { inner, escaped });
    }
    if let Some(body) = value.strip_prefix('\'') {
        let inner = body.strip_suffix('\'')?;
        // Inside, quotes come in pairs ('' is one quote).
        if inner.split("''").any(|part| part.contains('\'')) {
            return None;
        }
        return Some(Scalar::SingleQuoted(inner));
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
    plain_scalar_text(value).map(Scalar::Plain)
}

/// Checks a single-line scalar value; the outer option is "sure it is valid", the inner value
/// is the string the reader would make of it (`None` for non-strings and what we don't decode).
/// Only a head field needs that string (`want`): every other scalar is checked without
/// building it.
pub(super) fn scalar(value: &str, want: bool) -> Option<Option<String>> {
    Some(match classify(value)? {
        Scalar::FlowList(items) if !flow_list(items) => return None,
        Scalar::EmptyMap | Scalar::EmptyList | Scalar::FlowList(_) => Some(String::new()),
        // Escapes would need decoding to give the head the reader's string: let it decide.
        Scalar::DoubleQuoted { inner, escaped } => (want && !escaped).then(|| inner.to_owned()),
        Scalar::SingleQuoted(inner) => want.then(|| inner.replace("''", "'")),
        Scalar::Plain(text) if !want => {
            // Only the words `.nan`-like spellings YAML reads wrongly fail to resolve.
            return match resolve_word(text) {
                Some(Err(_)) => None,
                _ => Some(None),
            };
        }
        Scalar::Plain(text) => match resolve_plain(text).ok()? {
            Value::String(s) => Some(s),
            _ => Some(String::new()),
        },
    })
}

/// A plain scalar's text without its comment (a ` #` starts one), in one pass over its bytes;
/// `None` when a `: ` or a final `:` before the comment would make it a map.
pub(crate) fn plain_scalar_text(value: &str) -> Option<&str> {
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
pub(crate) fn flow_list(items: &str) -> bool {
    flow_items(items).all(|item| item.is_some())
}

/// One item of a one-line flow list the line readers are sure of.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum FlowItem<'t> {
    /// `"..."` or `'...'` with neither its quote nor a `\` inside: the text between.
    Quoted(&'t str),
    /// A plain word (`8080`, `true`, `--port=8080`) and what the full reader resolves it to.
    Plain(&'t str, Value),
}

/// The items between the brackets of a one-line flow list, each `None` when unsure: quoted
/// without escapes or inner quotes, or a plain word of letters, digits and `._/-=+` (a `-`
/// first only before more: `-` alone is no scalar) that resolves. No spaces, colons or
/// commas inside an item, and no empty item (a trailing comma included).
pub(crate) fn flow_items(items: &str) -> impl Iterator<Item = Option<FlowItem<'_>>> {
    items.split(',').map(|item| {
        let item = item.trim_matches(' ');
        for q in ['"', '\''] {
            if item.len() >= 2 && item.starts_with(q) && item.ends_with(q) {
                let inner = &item[1..item.len() - 1];
                return (!inner.contains([q, '\\'])).then_some(FlowItem::Quoted(inner));
            }
        }
        let bytes = item.as_bytes();
        let first_ok = match bytes.first() {
            Some(b) if b.is_ascii_alphanumeric() => true,
            Some(b'-') => bytes.len() > 1,
            Some(b'.' | b'_' | b'/' | b'+' | b'=') => true,
            _ => false,
        };
        let word = first_ok
            && bytes.iter().all(|&b| {
                b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'/' | b'-' | b'=' | b'+')
            });
        let value = resolve_plain(item).ok().filter(|_| word)?;
        Some(FlowItem::Plain(item, value))
    })
}

/// `- x` or a lone `-`.
pub(crate) fn is_seq_item(content: &str) -> bool {
    content == "-" || content.starts_with("- ")
}

/// What a list item's line holds after its dash.
pub(crate) enum Item<'t> {
    /// `-` alone: the item is on the next lines.
    Open,
    /// `- key: value` (or `- key:`): a map begins two columns right of the dash.
    Entry(&'t str, &'t str),
    /// `- value`: a scalar (a slice of the line).
    Scalar(&'t str),
}

/// Reads a list item's line, `content` (from its dash on); `None` when unsure (`-  x` with two
/// spaces, `- - x`, a dash followed by anything but a space).
pub(crate) fn item(content: &str) -> Option<Item<'_>> {
    let rest = content.strip_prefix('-')?;
    if rest.is_empty() {
        return Some(Item::Open);
    }
    let rest = rest.strip_prefix(' ')?;
    if rest.starts_with(' ') || is_seq_item(rest) {
        return None;
    }
    Some(match split_entry(rest) {
        Some((key, value)) => Item::Entry(key, value),
        None => Item::Scalar(rest),
    })
}

/// `|`, `|-`, `|+`, `>`, `>-`, `>+`.
pub(crate) fn looks_like_block_scalar(value: &str) -> bool {
    let value = without_trailing_spaces(value);
    matches!(value, "|" | "|-" | "|+" | ">" | ">-" | ">+")
}

/// `key: value` or `key:` split at the first `: `.
pub(crate) fn split_entry(content: &str) -> Option<(&str, &str)> {
    match find_pair(content, b':', b' ') {
        Some(at) => Some((&content[..at], without_indent(&content[at + 2..]))),
        None => content.strip_suffix(':').map(|key| (key, "")),
    }
}

/// Where `first` followed by `second` starts in `text`. A byte scan: this runs on every line of
/// every rendered manifest, and a substring search's set-up cost more than the search.
pub(crate) fn find_pair(text: &str, first: u8, second: u8) -> Option<usize> {
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
pub(crate) fn is_simple_key(key: &str) -> bool {
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
