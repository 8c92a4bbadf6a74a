//! A fast path for reading plain block YAML into values, line by line.
//!
//! Manifests are nearly always written in one small part of YAML: block maps and lists, plain
//! and single-line quoted scalars, literal and folded blocks, `{}` and `[]`, comments. For those
//! a line-based reader builds the [`Value`] tree directly, at a fraction of what yaml-rust2's
//! scanner and parser cost (265 instructions per input byte on inject's workloads). It answers
//! only when it is sure: anything else (other flow collections, anchors, aliases, tags,
//! directives, document markers, multi-line plain or quoted scalars, complex keys, keys that are
//! not simple words, merge keys, tabs and unusual characters, a repeated key where that is an
//! error, block scalars with indentation indicators or more-indented folded lines, escapes it
//! does not decode) gets `None`, and the caller reads the text with the full reader, which also
//! gives every error message. The line rules are those of the line check of rendered manifests
//! ([`crate::head`]), whose helpers this shares; scalars resolve through the full reader's own
//! functions ([`resolve_plain`], [`resolve_key`]).

use super::resolve::{is_integer_text, resolve_key, resolve_plain};
use super::MAX_DEPTH;
use crate::events::Position;
use crate::head::fast::scalar::{
    classify, flow_items, is_seq_item, is_simple_key, item, looks_like_block_scalar, split_entry,
    FlowItem, Item, Scalar,
};
use crate::head::fast::text::{
    characters_are_plain, without_indent, without_trailing_spaces, Lines,
};
use crate::head::fast::{content_of, is_document_marker, Kind, Pending};
use crate::value::{Map, Value};
use yaml_rust2::scanner::TScalarStyle;

/// How the reader treats what differs between its callers.
#[derive(Clone, Copy)]
pub(super) struct Rules {
    /// A map key given twice is an error (a user's manifest): decline, the full reader says
    /// which lines. Otherwise the last value wins, as in the full reader.
    pub(super) unique_keys: bool,
    /// A plain integer beyond 64 bits stays as written ([`Value::Number`]).
    pub(super) keep_big_integers: bool,
}

/// A collection being read.
enum Node {
    Map(Map),
    Seq(Vec<Value>),
}

struct Open {
    /// The column its keys or dashes stand at.
    indent: usize,
    node: Node,
    /// A map's key whose value is being read.
    key: Option<String>,
}

/// The documents of `text` (one: the reader declines `---` and `...` lines), when it is plain
/// block YAML the reader is sure of; `None` otherwise.
pub(super) fn documents(text: &str, rules: Rules) -> Option<Vec<Value>> {
    if !characters_are_plain(text) {
        return None;
    }
    let mut stack: Vec<Open> = Vec::new();
    let mut root: Option<Value> = None;
    let mut pending: Option<Pending> = None;
    let mut lines = Lines { rest: Some(text) };
    while let Some(line) = lines.next() {
        let Some((content, indent)) = content_of(line) else {
            continue;
        };
        if is_document_marker(content, indent) {
            return None;
        }
        let is_item = is_seq_item(content);
        if let Some(open) = pending.take() {
            match open.opens(indent, is_item) {
                Some(Kind::Seq) => open_node(&mut stack, indent, Node::Seq(Vec::new()))?,
                Some(Kind::Map) => open_node(&mut stack, indent, Node::Map(Map::new()))?,
                None => place(&mut stack, Value::Null)?,
            }
        }
        while stack.last().is_some_and(|o| o.indent > indent) {
            close(&mut stack, &mut root)?;
        }
        if stack.is_empty() {
            if indent != 0 || root.is_some() {
                return None;
            }
            let node = if is_item {
                Node::Seq(Vec::new())
            } else {
                Node::Map(Map::new())
            };
            open_node(&mut stack, 0, node)?;
        }
        if is_item {
            if !top_is(&stack, Kind::Seq, indent) {
                return None;
            }
            pending = match item(content)? {
                Item::Open => Some(Pending::after_dash(indent)),
                Item::Entry(key, value) => {
                    open_node(&mut stack, indent + 2, Node::Map(Map::new()))?;
                    entry(&mut stack, (key, value), indent + 2, &mut lines, rules)?
                }
                Item::Scalar(value) if looks_like_block_scalar(value) => return None,
                Item::Scalar(value) => {
                    place(&mut stack, scalar_value(value, rules)?)?;
                    None
                }
            };
            continue;
        }
        // A map entry. A list written at its parent key's indent ends at the next key.
        if stack
            .last()
            .is_some_and(|o| matches!(o.node, Node::Seq(_)) && o.indent == indent)
        {
            close(&mut stack, &mut root)?;
        }
        if !top_is(&stack, Kind::Map, indent) {
            return None;
        }
        let (key, value) = split_entry(content)?;
        pending = entry(&mut stack, (key, value), indent, &mut lines, rules)?;
    }
    if pending.is_some() {
        place(&mut stack, Value::Null)?;
    }
    while !stack.is_empty() {
        close(&mut stack, &mut root)?;
    }
    // Text of nothing but comments: the full reader says what that is.
    root.map(|document| vec![document])
}

/// Whether the innermost collection is a `kind` at `indent`.
fn top_is(stack: &[Open], kind: Kind, indent: usize) -> bool {
    stack.last().is_some_and(|top| {
        top.indent == indent
            && match top.node {
                Node::Map(_) => kind == Kind::Map,
                Node::Seq(_) => kind == Kind::Seq,
            }
    })
}

fn open_node(stack: &mut Vec<Open>, indent: usize, node: Node) -> Option<()> {
    if stack.len() >= MAX_DEPTH {
        return None;
    }
    stack.push(Open {
        indent,
        node,
        key: None,
    });
    Some(())
}

/// Adds a finished node to the collection being read: under the map's key, or as an item.
fn place(stack: &mut [Open], value: Value) -> Option<()> {
    let top = stack.last_mut()?;
    match &mut top.node {
        Node::Map(map) => {
            map.insert(top.key.take()?, value);
        }
        Node::Seq(items) => items.push(value),
    }
    Some(())
}

/// Finishes the innermost collection and adds it to its parent (or makes it the document).
fn close(stack: &mut Vec<Open>, root: &mut Option<Value>) -> Option<()> {
    let open = stack.pop()?;
    let value = match open.node {
        Node::Map(map) => Value::Map(map),
        Node::Seq(items) => Value::Seq(items),
    };
    if stack.is_empty() {
        *root = Some(value);
        Some(())
    } else {
        place(stack, value)
    }
}

/// Reads `key: value` (the value may be empty, or a block scalar's header) into the map on top
/// of `stack`, at `indent`; gives the pending node when the value continues on the next lines.
fn entry(
    stack: &mut [Open],
    (key, value): (&str, &str),
    indent: usize,
    lines: &mut Lines<'_>,
    rules: Rules,
) -> Option<Option<Pending>> {
    if !is_simple_key(key) {
        return None;
    }
    // The full reader's own resolution: `yes:` is the key "true", `0x10:` is "16".
    let key = resolve_key(key, TScalarStyle::Plain, None, Position::default()).ok()?;
    let top = stack.last_mut()?;
    let Node::Map(map) = &top.node else {
        return None;
    };
    if rules.unique_keys && map.contains_key(&key) {
        return None;
    }
    top.key = Some(key);
    if value.is_empty() || value.starts_with('#') {
        return Some(Some(Pending::after_key(indent)));
    }
    let value = if looks_like_block_scalar(value) {
        Value::String(block_scalar(value, indent, lines)?)
    } else {
        scalar_value(value, rules)?
    };
    place(stack, value)?;
    Some(None)
}

/// The value of a single-line scalar, resolved as the full reader resolves it.
fn scalar_value(value: &str, rules: Rules) -> Option<Value> {
    Some(match classify(without_comment_after_quotes(value))? {
        Scalar::EmptyMap => Value::Map(Map::new()),
        Scalar::EmptyList => Value::Seq(Vec::new()),
        Scalar::FlowList(items) => Value::Seq(
            flow_items(items)
                .map(|item| match item? {
                    FlowItem::Quoted(inner) => Some(Value::String(inner.to_owned())),
                    FlowItem::Plain(word, value) => Some(under_rules(word, value, rules)),
                })
                .collect::<Option<Vec<Value>>>()?,
        ),
        Scalar::DoubleQuoted { inner, escaped } => Value::String(if escaped {
            unescape(inner)?
        } else {
            inner.to_owned()
        }),
        Scalar::SingleQuoted(inner) => Value::String(inner.replace("''", "'")),
        Scalar::Plain(text) => under_rules(text, resolve_plain(text).ok()?, rules),
    })
}

/// Plain scalar `text`, which resolved to `value`, as the full reader keeps it under `rules`.
fn under_rules(text: &str, value: Value, rules: Rules) -> Value {
    match value {
        Value::Float(_) if rules.keep_big_integers && is_integer_text(text) => {
            Value::Number(text.to_owned())
        }
        value => value,
    }
}

/// A quoted scalar without the comment after it (`"a"  # why`), which the line check leaves
/// in; any other value as it is (what follows a closing quote then fails the check).
fn without_comment_after_quotes(value: &str) -> &str {
    let bytes = value.as_bytes();
    let closing = match bytes.first() {
        Some(b'\'') => {
            let mut from = 1;
            loop {
                let Some(at) = memchr::memchr(b'\'', &bytes[from..]).map(|i| from + i) else {
                    return value;
                };
                // `''` is a quote inside.
                if bytes.get(at + 1) != Some(&b'\'') {
                    break at;
                }
                from = at + 2;
            }
        }
        Some(b'"') => {
            let mut at = 1;
            loop {
                match bytes.get(at) {
                    None => return value,
                    Some(b'\\') => at += 2,
                    Some(b'"') => break at,
                    Some(_) => at += 1,
                }
            }
        }
        _ => return value,
    };
    let after = &value[closing + 1..];
    let comment = without_indent(after);
    // A comment needs a space before it: `"a"#b` is no scalar.
    if comment.starts_with('#') && comment.len() < after.len() {
        &value[..=closing]
    } else {
        value
    }
}

/// The text of a double-quoted scalar (between its quotes, on one line) with its escapes
/// decoded; `None` for an escape this does not decode, or a code point that is no character.
fn unescape(inner: &str) -> Option<String> {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let decoded = match chars.next()? {
            '0' => '\0',
            'a' => '\u{7}',
            'b' => '\u{8}',
            't' => '\t',
            'n' => '\n',
            'v' => '\u{b}',
            'f' => '\u{c}',
            'r' => '\r',
            'e' => '\u{1b}',
            ' ' => ' ',
            '"' => '"',
            '/' => '/',
            '\\' => '\\',
            'N' => '\u{85}',
            '_' => '\u{a0}',
            'L' => '\u{2028}',
            'P' => '\u{2029}',
            hex @ ('x' | 'u' | 'U') => {
                let digits = match hex {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let code = chars.as_str().get(..digits)?;
                let code = u32::from_str_radix(code, 16).ok()?;
                chars = chars.as_str().get(digits..)?.chars();
                char::from_u32(code)?
            }
            _ => return None,
        };
        out.push(decoded);
    }
    Some(out)
}

/// How a block scalar's final line breaks are kept.
#[derive(Clone, Copy, PartialEq)]
enum Chomping {
    /// `-`: none.
    Strip,
    /// No indicator: one.
    Clip,
    /// `+`: all.
    Keep,
}

/// Reads the lines of a literal (`|`) or folded (`>`) block scalar whose header is `header`, in
/// a map at `parent`; `None` when its lines are anything but plain (an empty block, a blank
/// line wider than the content, more-indented lines in a folded block, text that ends without
/// a line break inside it).
fn block_scalar(header: &str, parent: usize, lines: &mut Lines<'_>) -> Option<String> {
    let header = without_trailing_spaces(header).as_bytes();
    let folded = header[0] == b'>';
    let chomping = match header.get(1) {
        Some(b'-') => Chomping::Strip,
        Some(b'+') => Chomping::Keep,
        _ => Chomping::Clip,
    };
    let mut out = String::new();
    let mut content_indent: Option<usize> = None;
    let mut leading_blank_width = 0;
    // Blank lines read since the last line of content.
    let mut blanks = 0;
    let mut started = false;
    loop {
        let mut ahead = lines.clone();
        let Some(next) = ahead.next() else {
            break;
        };
        // The text's last line has no line break after it.
        let last = ahead.rest.is_none();
        let content = without_indent(next);
        let width = next.len() - content.len();
        if content.is_empty() {
            if last {
                if width > 0 {
                    return None;
                }
                break;
            }
            match content_indent {
                None => leading_blank_width = leading_blank_width.max(width),
                // Spaces past the indentation are content: let the full reader decide.
                Some(ci) if width > ci => return None,
                Some(_) => {}
            }
            blanks += 1;
            *lines = ahead;
            continue;
        }
        let ci = match content_indent {
            None if width > parent => {
                if leading_blank_width > width {
                    return None;
                }
                content_indent = Some(width);
                width
            }
            None => break,
            Some(ci) if width >= ci => ci,
            Some(_) if width > parent => return None,
            Some(_) => break,
        };
        if last {
            return None;
        }
        let text = &next[ci..];
        if folded && text.starts_with(' ') {
            return None;
        }
        if !started {
            // Blank lines before the first line of content stay line breaks.
            push_breaks(&mut out, blanks);
            started = true;
        } else if folded && blanks == 0 {
            out.push(' ');
        } else {
            // A folded block turns the break before blank lines into nothing.
            push_breaks(&mut out, if folded { blanks } else { blanks + 1 });
        }
        out.push_str(text);
        blanks = 0;
        *lines = ahead;
    }
    if !started {
        return None;
    }
    match chomping {
        Chomping::Strip => {}
        Chomping::Clip => out.push('\n'),
        Chomping::Keep => push_breaks(&mut out, blanks + 1),
    }
    Some(out)
}

fn push_breaks(out: &mut String, count: usize) {
    out.extend(std::iter::repeat_n('\n', count));
}

#[cfg(test)]
mod tests;
