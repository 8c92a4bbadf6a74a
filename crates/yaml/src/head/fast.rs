//! A line-based check of the plain block YAML that templates usually emit.
//!
//! It answers only when it is sure the text is valid YAML: block maps and lists, plain and
//! single-line quoted scalars, literal/folded block scalars, `{}`/`[]`, comments. Anything else
//! (flow collections, anchors, aliases, tags, directives, multi-line plain or quoted scalars,
//! complex or quoted keys, tabs, control characters, repeated head keys) gets `None`, and the
//! caller asks the full scanner, which also produces the error message when there is one.

use super::manifest_head::ManifestHead;
use crate::load::{resolve_plain, resolve_word};
use crate::value::Value;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Map,
    Seq,
}

struct Frame<'t> {
    indent: usize,
    kind: Kind,
    /// The map's current key.
    key: Option<&'t str>,
    /// Keys seen so far: a key given twice is the full check's to report.
    seen: Vec<&'t str>,
}

impl<'t> Frame<'t> {
    fn new(indent: usize, kind: Kind) -> Self {
        Frame {
            indent,
            kind,
            key: None,
            seen: Vec::new(),
        }
    }
}

/// A node opened by `key:` or `-` with nothing after it on the line.
#[derive(Clone, Copy)]
struct Pending {
    indent: usize,
    after_dash: bool,
}

#[derive(Default)]
struct Slots {
    kind: Option<String>,
    name: Option<String>,
    namespace: Option<String>,
    hook: Option<String>,
}

/// How one line of a document the check accepted may differ in another document that then
/// passes too, with the same head: a fleet's documents differ in values, not in structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineShape {
    /// Byte for byte the same: structure, head fields, blank lines, comments.
    Fixed,
    /// `key: value` or `- key: value`: the first `value_at` bytes stay, and the value after them
    /// may be any single-line scalar.
    EntryValue {
        /// The length of the part that stays: indentation, key, colon and the space after it.
        value_at: u32,
    },
    /// `- value`: the first `value_at` bytes stay, and the item may be any single-line scalar.
    ItemValue {
        /// The length of the part that stays: indentation, dash and the space after it.
        value_at: u32,
    },
    /// A line of a literal or folded block: any text, with the same indentation.
    BlockContent {
        /// The indentation every line of the block keeps.
        width: u32,
    },
}

/// Where the check notes each line's shape, when the caller wants them.
struct Shapes<'s>(Option<&'s mut Vec<LineShape>>);

impl Shapes<'_> {
    fn note(&mut self, shape: LineShape) {
        if let Some(shapes) = self.0.as_mut() {
            shapes.push(shape);
        }
    }

    /// Changes the shape noted for the line just read.
    fn amend(&mut self, shape: LineShape) {
        if let Some(last) = self.0.as_mut().and_then(|shapes| shapes.last_mut()) {
            *last = shape;
        }
    }
}

/// The byte offset of `part` (a slice of `line`) in `line`.
fn offset_in(line: &str, part: &str) -> Option<u32> {
    u32::try_from(part.as_ptr() as usize - line.as_ptr() as usize).ok()
}

/// `line` without its leading spaces. Bytes are compared, not characters:
/// `trim_start_matches(' ')` decoded every indentation byte as UTF-8, a sixth of this check's
/// time on a CRD.
fn without_indent(line: &str) -> &str {
    let bytes = line.as_bytes();
    let mut indent = 0;
    // Eight spaces at a time (one 64-bit comparison): CRDs nest twenty levels deep.
    while bytes.get(indent..indent + 8) == Some(b"        ") {
        indent += 8;
    }
    while bytes.get(indent) == Some(&b' ') {
        indent += 1;
    }
    // Spaces are one byte each: the rest starts on a character boundary.
    &line[indent..]
}

/// `text` without its trailing spaces (bytes compared, as in [`without_indent`]).
fn without_trailing_spaces(text: &str) -> &str {
    let trailing = text.bytes().rev().take_while(|&b| b == b' ').count();
    &text[..text.len() - trailing]
}

/// The lines of a text, as `split('\n')` gives them, found with memchr: this check reads every
/// line of every rendered manifest.
struct Lines<'t> {
    rest: Option<&'t str>,
}

impl<'t> Iterator for Lines<'t> {
    type Item = &'t str;

    fn next(&mut self) -> Option<&'t str> {
        let text = self.rest?;
        match memchr::memchr(b'\n', text.as_bytes()) {
            Some(at) => {
                self.rest = Some(&text[at + 1..]);
                Some(&text[..at])
            }
            None => self.rest.take(),
        }
    }
}

/// The head of `text` when it is plain block YAML and certainly valid; `None` when unsure.
pub(super) fn block_head(text: &str) -> Option<ManifestHead> {
    checked_block_head(text, Shapes(None))
}

/// [`block_head`], noting each line's shape in `shapes` (one per line, as `split('\n')` gives
/// them) for [`same_shape`].
pub(crate) fn block_head_and_shapes(
    text: &str,
    shapes: &mut Vec<LineShape>,
) -> Option<ManifestHead> {
    shapes.clear();
    checked_block_head(text, Shapes(Some(shapes)))
}

fn checked_block_head(text: &str, mut shapes: Shapes<'_>) -> Option<ManifestHead> {
    if !characters_are_plain(text) {
        return None;
    }
    let mut frames: Vec<Frame<'_>> = Vec::new();
    let mut pending: Option<Pending> = None;
    let mut head = Slots::default();
    let mut lines = Lines { rest: Some(text) }.peekable();
    while let Some(line) = lines.next() {
        shapes.note(LineShape::Fixed);
        let content = without_indent(line);
        let indent = line.len() - content.len();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        if indent == 0 && (content.starts_with("---") || content.starts_with("...")) {
            return None;
        }
        let is_item = is_seq_item(content);
        if let Some(open) = pending.take() {
            if is_item && (indent > open.indent || (indent == open.indent && !open.after_dash)) {
                frames.push(Frame::new(indent, Kind::Seq));
            } else if indent > open.indent && !is_item {
                frames.push(Frame::new(indent, Kind::Map));
            }
        }
        while frames.last().is_some_and(|f| f.indent > indent) {
            frames.pop();
        }
        if frames.is_empty() {
            if indent != 0 {
                return None;
            }
            frames.push(Frame::new(0, if is_item { Kind::Seq } else { Kind::Map }));
        }
        if is_item {
            let top = frames.last()?;
            if top.kind != Kind::Seq || top.indent != indent {
                return None;
            }
            let rest = content.strip_prefix('-')?;
            if rest.is_empty() {
                pending = Some(Pending {
                    indent,
                    after_dash: true,
                });
                continue;
            }
            let rest = rest.strip_prefix(' ')?;
            if rest.starts_with(' ') || is_seq_item(rest) {
                return None;
            }
            match split_entry(rest) {
                Some((key, value)) => {
                    let column = indent + 2;
                    frames.push(Frame::new(column, Kind::Map));
                    pending = entry(
                        &mut frames,
                        &mut head,
                        (line, key, value),
                        column,
                        &mut lines,
                        &mut shapes,
                    )?;
                }
                None => {
                    if looks_like_block_scalar(rest) {
                        return None;
                    }
                    scalar(rest, false)?;
                    shapes.amend(LineShape::ItemValue {
                        value_at: offset_in(line, rest)?,
                    });
                }
            }
            continue;
        }
        // A map entry. A list written at its parent key's indent ends at the next key.
        if frames
            .last()
            .is_some_and(|f| f.kind == Kind::Seq && f.indent == indent)
        {
            frames.pop();
        }
        let top = frames.last()?;
        if top.kind != Kind::Map || top.indent != indent {
            return None;
        }
        let (key, value) = split_entry(content)?;
        pending = entry(
            &mut frames,
            &mut head,
            (line, key, value),
            indent,
            &mut lines,
            &mut shapes,
        )?;
    }
    Some(ManifestHead {
        kind: head.kind.unwrap_or_default(),
        name: head.name.unwrap_or_default(),
        namespace: head.namespace.unwrap_or_default(),
        hook: head.hook,
    })
}

/// Handles `key: value` (slices of `line`) in the map on top of `frames` (at `indent`); returns
/// the pending node when the value continues on the next lines, `Err`-like `None` when unsure.
fn entry<'t>(
    frames: &mut [Frame<'t>],
    head: &mut Slots,
    (line, key, value): (&'t str, &'t str, &'t str),
    indent: usize,
    lines: &mut std::iter::Peekable<Lines<'t>>,
    shapes: &mut Shapes<'_>,
) -> Option<Option<Pending>> {
    if !is_simple_key(key) {
        return None;
    }
    let depth = frames.len();
    {
        let top = frames.last_mut()?;
        if top.seen.contains(&key) {
            return None;
        }
        top.seen.push(key);
        top.key = Some(key);
    }
    // Head fields sit at most three maps deep: deeper entries (most of a CRD) skip the walk.
    let slot = if depth <= 3 && frames.iter().all(|f| f.kind == Kind::Map) {
        head_slot(head, frames)
    } else {
        None
    };
    if value.is_empty() {
        return Some(Some(Pending {
            indent,
            after_dash: false,
        }));
    }
    if looks_like_block_scalar(value) {
        if slot.is_some() {
            return None;
        }
        block_scalar(indent, lines, shapes)?;
        return Some(None);
    }
    let resolved = scalar(value, slot.is_some())?;
    match slot {
        Some(slot) => *slot = Some(resolved?),
        None => shapes.amend(LineShape::EntryValue {
            // Just past the `: ` that follows the key.
            value_at: offset_in(line, key)? + key.len() as u32 + 2,
        }),
    }
    Some(None)
}

/// Where the scalar under the current keys goes in the head, if anywhere.
fn head_slot<'h>(head: &'h mut Slots, frames: &[Frame<'_>]) -> Option<&'h mut Option<String>> {
    let key = |i: usize| frames.get(i).and_then(|f| f.key);
    match (frames.len(), key(0), key(1), key(2)) {
        (1, Some("kind"), _, _) => Some(&mut head.kind),
        (2, Some("metadata"), Some("name"), _) => Some(&mut head.name),
        (2, Some("metadata"), Some("namespace"), _) => Some(&mut head.namespace),
        (3, Some("metadata"), Some("annotations"), Some("helm.sh/hook")) => Some(&mut head.hook),
        _ => None,
    }
}

/// Skips a literal or folded block scalar's lines; `None` when its indentation is unusual.
fn block_scalar<'t>(
    parent: usize,
    lines: &mut std::iter::Peekable<Lines<'t>>,
    shapes: &mut Shapes<'_>,
) -> Option<()> {
    let mut content_indent: Option<usize> = None;
    let mut leading_blank_width = 0;
    while let Some(next) = lines.peek() {
        let content = without_indent(next);
        let width = next.len() - content.len();
        if content.is_empty() {
            if content_indent.is_none() {
                leading_blank_width = leading_blank_width.max(width);
            }
            lines.next();
            shapes.note(LineShape::Fixed);
            continue;
        }
        match content_indent {
            None if width > parent => {
                if leading_blank_width > width {
                    return None;
                }
                content_indent = Some(width);
            }
            None => break,
            Some(ci) if width >= ci => {}
            Some(_) if width > parent => return None,
            Some(_) => break,
        }
        lines.next();
        shapes.note(LineShape::BlockContent {
            width: u32::try_from(width).ok()?,
        });
    }
    Some(())
}

/// Whether `text` passes [`block_head`] with the head `reference` got there, because it differs
/// from `reference` only as the `shapes` noted for it allow. It reads each line once and
/// compares it; only changed lines are checked, as the whole check would check them.
pub(crate) fn same_shape(reference: &str, shapes: &[LineShape], text: &str) -> bool {
    if !characters_are_plain(text) {
        return false;
    }
    let mut before = Lines {
        rest: Some(reference),
    };
    let mut now = Lines { rest: Some(text) };
    for shape in shapes {
        let (Some(old), Some(new)) = (before.next(), now.next()) else {
            return false;
        };
        if old == new {
            continue;
        }
        let same_prefix = |at: u32| {
            let at = at as usize;
            old.as_bytes().get(..at).is_some()
                && old.as_bytes().get(..at) == new.as_bytes().get(..at)
        };
        let still_valid = match *shape {
            LineShape::Fixed => false,
            LineShape::EntryValue { value_at } => {
                same_prefix(value_at)
                    && new
                        .get(value_at as usize..)
                        .is_some_and(|value| is_single_line_value(without_indent(value)))
            }
            LineShape::ItemValue { value_at } => {
                same_prefix(value_at)
                    && new.get(value_at as usize..).is_some_and(|item| {
                        !item.starts_with(' ')
                            && !is_seq_item(item)
                            && split_entry(item).is_none()
                            && is_single_line_value(item)
                    })
            }
            LineShape::BlockContent { width } => {
                let content = without_indent(new);
                !content.is_empty() && new.len() - content.len() == width as usize
            }
        };
        if !still_valid {
            return false;
        }
    }
    before.next().is_none() && now.next().is_none()
}

/// A value that ends its node on its line: a scalar the check accepts, not a block scalar's
/// indicator and not empty (which would open a node on the next lines).
fn is_single_line_value(value: &str) -> bool {
    !value.is_empty() && !looks_like_block_scalar(value) && scalar(value, false).is_some()
}

/// Checks a single-line scalar value; the outer option is "sure it is valid", the inner value
/// is the string the reader would make of it (`None` for non-strings and what we don't decode).
/// Only a head field needs that string (`want`): every other scalar is checked without
/// building it.
fn scalar(value: &str, want: bool) -> Option<Option<String>> {
    let value = without_trailing_spaces(value);
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
fn plain_scalar_text(value: &str) -> Option<&str> {
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
fn flow_list(items: &str) -> bool {
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
fn is_seq_item(content: &str) -> bool {
    content == "-" || content.starts_with("- ")
}

/// `|`, `|-`, `|+`, `>`, `>-`, `>+`.
fn looks_like_block_scalar(value: &str) -> bool {
    let value = without_trailing_spaces(value);
    matches!(value, "|" | "|-" | "|+" | ">" | ">-" | ">+")
}

/// `key: value` or `key:` split at the first `: `.
fn split_entry(content: &str) -> Option<(&str, &str)> {
    match find_pair(content, b':', b' ') {
        Some(at) => Some((&content[..at], without_indent(&content[at + 2..]))),
        None => content.strip_suffix(':').map(|key| (key, "")),
    }
}

/// Where `first` followed by `second` starts in `text`. A byte scan: this runs on every line of
/// every rendered manifest, and a substring search's set-up cost more than the search.
fn find_pair(text: &str, first: u8, second: u8) -> Option<usize> {
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
fn is_simple_key(key: &str) -> bool {
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

/// No tabs, carriage returns or characters YAML readers reject or treat specially.
fn characters_are_plain(text: &str) -> bool {
    // Printable ASCII and newlines, the usual case: a block of bytes at a time, without an
    // early exit inside a block, so the compiler compares 16 bytes per instruction. (Counting
    // the unusual bytes instead widened each byte to 64 bits: half of this check's time.)
    let usual = text.as_bytes().chunks(64).all(|block| {
        block.iter().fold(true, |ok, &b| {
            ok & ((b.wrapping_sub(0x20) < 0x5f) | (b == b'\n'))
        })
    });
    if usual {
        return true;
    }
    let ascii_ok = text.bytes().all(|b| b >= 0x20 || b == b'\n');
    if !ascii_ok {
        return false;
    }
    text.is_ascii()
        || text.chars().all(|c| {
            !matches!(
                c,
                '\u{7f}'
                    ..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
            )
        })
}

#[cfg(test)]
mod tests;
