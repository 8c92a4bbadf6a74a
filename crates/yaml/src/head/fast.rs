//! A line-based check of the plain block YAML that templates usually emit.
//!
//! It answers only when it is sure the text is valid YAML: block maps and lists, plain and
//! single-line quoted scalars, literal/folded block scalars, `{}`/`[]`, comments. Anything else
//! (flow collections, anchors, aliases, tags, directives, multi-line plain or quoted scalars,
//! complex or quoted keys, tabs, control characters, repeated head keys) gets `None`, and the
//! caller asks the full scanner, which also produces the error message when there is one.

mod scalar;
mod shape;
mod text;

use super::manifest_head::ManifestHead;
use scalar::{
    is_seq_item, is_simple_key, looks_like_block_scalar, plain_scalar_text, quoted_end, scalar,
    split_entry,
};
pub(crate) use shape::same_shape;
pub use shape::LineShape;
use shape::{offset_in, Shapes};
use text::{characters_are_plain, without_indent, without_trailing_spaces, Lines};

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

/// Opens a frame at `indent`, its list of keys taken from `spare` (the lists of closed frames,
/// emptied): a CRD opens thousands of maps, and each would otherwise allocate a list of its own.
fn open_frame<'t>(
    frames: &mut Vec<Frame<'t>>,
    spare: &mut Vec<Vec<&'t str>>,
    indent: usize,
    kind: Kind,
) {
    frames.push(Frame {
        indent,
        kind,
        key: None,
        seen: spare.pop().unwrap_or_default(),
    });
}

/// Closes the innermost frame, keeping its list of keys for the next one opened.
fn close_frame<'t>(frames: &mut Vec<Frame<'t>>, spare: &mut Vec<Vec<&'t str>>) {
    if let Some(mut frame) = frames.pop() {
        frame.seen.clear();
        spare.push(frame.seen);
    }
}

/// A node opened by `key:` or `-` with nothing after it on the line.
#[derive(Clone, Copy)]
struct Pending {
    indent: usize,
    after_dash: bool,
    /// The node is a head field's value (`kind:` with its value below).
    head: bool,
}

#[derive(Default)]
struct Slots {
    kind: Option<String>,
    name: Option<String>,
    namespace: Option<String>,
    hook: Option<String>,
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
    let mut spare: Vec<Vec<&str>> = Vec::new();
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
            // `resources:` then `{}` or `null` on a deeper line (toYaml of an empty map,
            // nindented): a scalar, the node's whole value.
            if indent > open.indent && !is_item && split_entry(content).is_none() {
                // A head field's value is read on its own line only.
                if open.head || looks_like_block_scalar(content) {
                    return None;
                }
                if !quoted_goes_on(content, open.indent, &mut lines, &mut shapes)? {
                    scalar(content, false)?;
                    plain_continues(content, open.indent, &mut lines, &mut shapes)?;
                }
                continue;
            }
            if is_item && (indent > open.indent || (indent == open.indent && !open.after_dash)) {
                open_frame(&mut frames, &mut spare, indent, Kind::Seq);
            } else if indent > open.indent && !is_item {
                open_frame(&mut frames, &mut spare, indent, Kind::Map);
            }
        }
        while frames.last().is_some_and(|f| f.indent > indent) {
            close_frame(&mut frames, &mut spare);
        }
        if frames.is_empty() {
            if indent != 0 {
                return None;
            }
            open_frame(
                &mut frames,
                &mut spare,
                0,
                if is_item { Kind::Seq } else { Kind::Map },
            );
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
                    head: false,
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
                    open_frame(&mut frames, &mut spare, column, Kind::Map);
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
                    // `- |` then the script's lines (a container's `args`).
                    if looks_like_block_scalar(rest) {
                        block_scalar(indent, &mut lines, &mut shapes)?;
                        continue;
                    }
                    if quoted_goes_on(rest, indent, &mut lines, &mut shapes)? {
                        continue;
                    }
                    scalar(rest, false)?;
                    if plain_continues(rest, indent, &mut lines, &mut shapes)? {
                        continue;
                    }
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
            close_frame(&mut frames, &mut spare);
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
    let raw_key = key;
    let key = simple_or_quoted_key(key)?;
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
            head: slot.is_some(),
        }));
    }
    if looks_like_block_scalar(value) {
        if slot.is_some() {
            return None;
        }
        block_scalar(indent, lines, shapes)?;
        return Some(None);
    }
    if quoted_goes_on(value, indent, lines, shapes)? {
        // Head fields are single-line: a multi-line one is the full reader's to decode.
        return slot.is_none().then_some(None);
    }
    let resolved = scalar(value, slot.is_some())?;
    match slot {
        Some(slot) => *slot = Some(resolved?),
        None => {
            if plain_continues(value, indent, lines, shapes)? {
                return Some(None);
            }
            shapes.amend(LineShape::EntryValue {
                // Just past the `: ` that follows the key.
                value_at: offset_in(line, raw_key)? + raw_key.len() as u32 + 2,
            })
        }
    }
    Some(None)
}

/// A key the reader takes as exactly this string: a simple plain key, or one of the same
/// characters in quotes (`"helm.sh/resource-policy": keep`, as generated CRDs and charts write
/// annotations), given without its quotes.
fn simple_or_quoted_key(key: &str) -> Option<&str> {
    if is_simple_key(key) {
        return Some(key);
    }
    let inner = key
        .strip_prefix('"')
        .and_then(|k| k.strip_suffix('"'))
        .or_else(|| key.strip_prefix('\'').and_then(|k| k.strip_suffix('\'')))?;
    // Quoted, `null` and YAML's other words are strings like any other.
    (!inner.is_empty()
        && inner.len() < 1000
        && inner
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b'-')))
    .then_some(inner)
}

/// Whether the plain scalar `value` (checked on its own line) goes on over the next lines, which
/// are then consumed: lines indented deeper than `parent` (the column of the map or list that
/// holds it) continue a plain scalar, folded into it with single spaces, as the
/// `description:` lines of generated CRDs (go-yaml wraps them at 80 columns). `None` when unsure
/// such a line is a valid continuation; `Some(false)` when the value ends on its line.
fn plain_continues<'t>(
    value: &str,
    parent: usize,
    lines: &mut std::iter::Peekable<Lines<'t>>,
    shapes: &mut Shapes<'_>,
) -> Option<bool> {
    let deeper = |line: &str| {
        let content = without_indent(line);
        !content.is_empty() && line.len() - content.len() > parent
    };
    // Most values end on their line: look past blank lines without consuming them, so the
    // caller still notes the value's line as the last one read.
    let next_text = match lines.peek() {
        Some(next) if !without_indent(next).is_empty() => Some(*next),
        Some(_) => lines.clone().find(|line| !without_indent(line).is_empty()),
        None => None,
    };
    if !next_text.is_some_and(deeper) {
        return Some(false);
    }
    let first = without_trailing_spaces(value);
    let is_plain = !matches!(first.as_bytes()[0], b'"' | b'\'' | b'[' | b'{');
    // A comment ends the scalar: a deeper line after it is not a continuation.
    let commented = plain_scalar_text(first).is_none_or(|text| text.len() != first.len());
    let mut continued = false;
    // Blank lines between continuation lines fold into it; after the last one, the main loop
    // skips any that follow.
    while let Some(&next) = lines.peek() {
        let content = without_indent(next);
        if content.is_empty() {
            lines.next();
            shapes.note(LineShape::Fixed);
            continue;
        }
        if !deeper(next) {
            break;
        }
        if !is_plain || commented || !is_continuation_text(content) {
            return None;
        }
        lines.next();
        shapes.note(LineShape::Fixed);
        continued = true;
    }
    Some(continued)
}

/// Whether `value` opens a quoted scalar that its line does not close; its next lines, up to
/// the one that closes it, are then consumed. They must be indented deeper than `parent` (the
/// column of the map or list that holds it), as go-yaml writes them (a long description with a
/// `: ` in it is single-quoted and wrapped); blank lines fold into the text. `None` when unsure.
fn quoted_goes_on<'t>(
    value: &str,
    parent: usize,
    lines: &mut std::iter::Peekable<Lines<'t>>,
    shapes: &mut Shapes<'_>,
) -> Option<bool> {
    let quote = match value.as_bytes().first() {
        Some(&q @ (b'"' | b'\'')) => q,
        _ => return Some(false),
    };
    if quoted_end(&value[1..], quote)?.is_some() {
        return Some(false);
    }
    for next in lines.by_ref() {
        shapes.note(LineShape::Fixed);
        let content = without_indent(next);
        if content.is_empty() {
            continue;
        }
        if next.len() - content.len() <= parent {
            return None;
        }
        if quoted_end(content, quote)?.is_some() {
            return Some(true);
        }
    }
    // The text ended inside the quotes.
    None
}

/// A continuation line's text that is certainly more of the plain scalar: not a comment, no
/// `: ` (a key), no ` #` (a comment) and no final `:`. Indicators (`-`, quotes, brackets) start
/// a plain scalar's next line freely in block context: only its first line is restricted.
fn is_continuation_text(content: &str) -> bool {
    let trimmed = without_trailing_spaces(content);
    !trimmed.starts_with('#')
        && plain_scalar_text(trimmed).is_some_and(|text| text.len() == trimmed.len())
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

#[cfg(test)]
mod tests;
