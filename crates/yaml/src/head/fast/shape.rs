//! Line shapes: how each line of a document the check accepted may change in a similar
//! document (another cluster's) that then passes too, checked line by line against it.

use super::scalar::{is_seq_item, looks_like_block_scalar, scalar, split_entry};
use super::text::{characters_are_plain, without_indent, Lines};

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
pub(super) struct Shapes<'s>(pub(super) Option<&'s mut Vec<LineShape>>);

impl Shapes<'_> {
    pub(super) fn note(&mut self, shape: LineShape) {
        if let Some(shapes) = self.0.as_mut() {
            shapes.push(shape);
        }
    }

    /// Changes the shape noted for the line just read.
    pub(super) fn amend(&mut self, shape: LineShape) {
        if let Some(last) = self.0.as_mut().and_then(|shapes| shapes.last_mut()) {
            *last = shape;
        }
    }
}

/// The byte offset of `part` (a slice of `line`) in `line`.
pub(super) fn offset_in(line: &str, part: &str) -> Option<u32> {
    u32::try_from(part.as_ptr() as usize - line.as_ptr() as usize).ok()
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
pub(super) fn is_single_line_value(value: &str) -> bool {
    !value.is_empty() && !looks_like_block_scalar(value) && scalar(value, false).is_some()
}
