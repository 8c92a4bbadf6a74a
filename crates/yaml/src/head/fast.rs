//! A line-based check of the plain block YAML that templates usually emit.
//!
//! It answers only when it is sure the text is valid YAML: block maps and lists, plain and
//! single-line quoted scalars, literal/folded block scalars, `{}`/`[]`, comments. Anything else
//! (flow collections, anchors, aliases, tags, directives, multi-line plain or quoted scalars,
//! complex or quoted keys, tabs, control characters, repeated head keys) gets `None`, and the
//! caller asks the full scanner, which also produces the error message when there is one.

pub(crate) mod scalar;
mod shape;
pub(crate) mod text;

use super::manifest_head::ManifestHead;
use scalar::{
    is_seq_item, is_simple_key, item, looks_like_block_scalar, scalar, split_entry, Item,
};
pub(crate) use shape::same_shape;
pub use shape::LineShape;
use shape::{offset_in, Shapes};
use text::{characters_are_plain, without_indent, Lines};

/// A collection of block YAML.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A map.
    Map,
    /// A list.
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
pub(crate) struct Pending {
    indent: usize,
    after_dash: bool,
}

impl Pending {
    /// `-` alone at `indent`.
    pub(crate) fn after_dash(indent: usize) -> Self {
        Pending {
            indent,
            after_dash: true,
        }
    }

    /// `key:` at `indent` with no value on its line.
    pub(crate) fn after_key(indent: usize) -> Self {
        Pending {
            indent,
            after_dash: false,
        }
    }

    /// What the next line of content (at `indent`, a list item or not) opens as the pending
    /// node; `None` when it opens nothing, and the node is null.
    pub(crate) fn opens(self, indent: usize, is_item: bool) -> Option<Kind> {
        if is_item && (indent > self.indent || (indent == self.indent && !self.after_dash)) {
            Some(Kind::Seq)
        } else if indent > self.indent && !is_item {
            Some(Kind::Map)
        } else {
            None
        }
    }
}

/// A line's content and its indentation; `None` for a blank line or a comment.
pub(crate) fn content_of(line: &str) -> Option<(&str, usize)> {
    let content = without_indent(line);
    let indent = line.len() - content.len();
    (!content.is_empty() && !content.starts_with('#')).then_some((content, indent))
}

/// `---` or `...` at the start of a line: documents begin or end, which the line readers leave
/// to the full reader.
pub(crate) fn is_document_marker(content: &str, indent: usize) -> bool {
    indent == 0 && (content.starts_with("---") || content.starts_with("..."))
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
        let Some((content, indent)) = content_of(line) else {
            continue;
        };
        if is_document_marker(content, indent) {
            return None;
        }
        // `{}` or `[]` alone on the line below its key or dash (what `toYaml` of an empty
        // value under `key:` renders): the pending node's whole value. A head field so
        // written is the full reader's to decode.
        if let Some(open) = pending.filter(|open| indent > open.indent) {
            if matches!(content.trim_end_matches(' '), "{}" | "[]") {
                if !open.after_dash && head_slot_here(&mut head, &frames).is_some() {
                    return None;
                }
                pending = None;
                continue;
            }
        }
        let is_item = is_seq_item(content);
        if let Some(kind) = pending.take().and_then(|open| open.opens(indent, is_item)) {
            open_frame(&mut frames, &mut spare, indent, kind);
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
            match item(content)? {
                Item::Open => {
                    pending = Some(Pending::after_dash(indent));
                }
                Item::Entry(key, value) => {
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
                Item::Scalar(rest) => {
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
    if !is_simple_key(key) {
        return None;
    }
    {
        let top = frames.last_mut()?;
        if top.seen.contains(&key) {
            return None;
        }
        top.seen.push(key);
        top.key = Some(key);
    }
    let slot = head_slot_here(head, frames);
    if value.is_empty() {
        return Some(Some(Pending::after_key(indent)));
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

/// [`head_slot`] of the current keys, walked only where a head field can be: at most three
/// maps deep (deeper entries, most of a CRD, skip the walk).
fn head_slot_here<'h>(head: &'h mut Slots, frames: &[Frame<'_>]) -> Option<&'h mut Option<String>> {
    if frames.len() <= 3 && frames.iter().all(|f| f.kind == Kind::Map) {
        head_slot(head, frames)
    } else {
        None
    }
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
