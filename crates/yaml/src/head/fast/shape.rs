//! Line shapes: how each line of a document the check accepted may change in a similar
//! document (another cluster's) that then passes too, checked line by line against it.

use super::scalar::{is_seq_item, looks_like_block_scalar, scalar, split_entry};
use super::text::{characters_are_plain, without_indent};

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
/// from `reference` only as the `shapes` noted for it allow. Only the lines that changed are
/// looked at: the check jumps from one difference to the next (a fleet's documents differ
/// from their reference in a few lines of hundreds), counting the lines it passes to find
/// each changed line's shape; an unchanged line passed as it did in the reference.
pub(crate) fn same_shape(reference: &str, shapes: &[LineShape], text: &str) -> bool {
    let (mut old_rest, mut new_rest) = (reference, text);
    let mut shapes = shapes.iter();
    loop {
        let common = common_prefix(old_rest.as_bytes(), new_rest.as_bytes());
        if common == old_rest.len() && common == new_rest.len() {
            // One shape a line, for the lines left (`split('\n')`'s count).
            return shapes.len() == line_breaks(old_rest) + 1;
        }
        // The line the first difference is on starts at the same offset in both.
        let line_start =
            memchr::memrchr(b'\n', &old_rest.as_bytes()[..common]).map_or(0, |at| at + 1);
        let Some(shape) = shapes.nth(line_breaks(&old_rest[..line_start])) else {
            return false;
        };
        let (old, old_after) = split_line(&old_rest[line_start..]);
        let (new, new_after) = split_line(&new_rest[line_start..]);
        if old != new && !(characters_are_plain(new) && line_still_valid(*shape, old, new)) {
            return false;
        }
        match (old_after, new_after) {
            (Some(old_after), Some(new_after)) => (old_rest, new_rest) = (old_after, new_after),
            // The texts differ, so one has lines the other lacks.
            _ => return false,
        }
    }
}

/// Whether `new`, in place of the reference's line `old` of shape `shape`, still passes.
fn line_still_valid(shape: LineShape, old: &str, new: &str) -> bool {
    let same_prefix = |at: u32| {
        let at = at as usize;
        old.as_bytes().get(..at).is_some() && old.as_bytes().get(..at) == new.as_bytes().get(..at)
    };
    match shape {
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
    }
}

/// How many bytes `a` and `b` share from their start: a block of 64 at a time (one library
/// comparison), then eight at a time within the block that differs.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let length = a.len().min(b.len());
    let mut at = 0;
    while at + 64 <= length && a[at..at + 64] == b[at..at + 64] {
        at += 64;
    }
    while at + 8 <= length {
        let word = |bytes: &[u8]| {
            let mut word = [0; 8];
            word.copy_from_slice(&bytes[at..at + 8]);
            u64::from_le_bytes(word)
        };
        let differing = word(a) ^ word(b);
        if differing != 0 {
            // Little-endian: the lowest set bit is in the first differing byte.
            return at + (differing.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + a[at..length]
        .iter()
        .zip(&b[at..length])
        .take_while(|(x, y)| x == y)
        .count()
}

/// The line `text` starts with, and the text after its line break (none for the last line).
fn split_line(text: &str) -> (&str, Option<&str>) {
    match memchr::memchr(b'\n', text.as_bytes()) {
        Some(at) => (&text[..at], Some(&text[at + 1..])),
        None => (text, None),
    }
}

/// How many line breaks `text` holds.
fn line_breaks(text: &str) -> usize {
    memchr::memchr_iter(b'\n', text.as_bytes()).count()
}

/// A value that ends its node on its line: a scalar the check accepts, not a block scalar's
/// indicator and not empty (which would open a node on the next lines).
pub(super) fn is_single_line_value(value: &str) -> bool {
    !value.is_empty() && !looks_like_block_scalar(value) && scalar(value, false).is_some()
}
