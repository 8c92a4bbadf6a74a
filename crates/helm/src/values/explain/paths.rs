//! The compact record of which source wrote each leaf: paths encoded into one sorted buffer.

use super::LeafPath;

/// A source and a line in it: compact, for one per leaf of a huge values file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Origin {
    /// Index into [`Explained::labels`].
    pub(super) source: u32,
    /// 1-based; [`NO_LINE`] when the leaf has no line of its own (a `--set`, or a value an
    /// alias or merge key brought).
    pub(super) line: u32,
}

pub(super) const NO_LINE: u32 = 0;

/// Paths of leaves with their origins, sorted by path. Each path is encoded as a byte string
/// that sorts as the path does (each part's bytes, a zero byte written as `0, 0xFF`, then
/// `0, 1`), and all of them share one buffer: a million leaves make two allocations, not a
/// million.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Paths {
    pub(super) bytes: Vec<u8>,
    pub(super) entries: Vec<Entry>,
}

/// One path of [`Paths`]: where its bytes are, by whom it was written, and whether the user's
/// values still have a leaf there (a later source may have put a map over it, or a `null`
/// removed it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Entry {
    pub(super) start: usize,
    pub(super) len: u32,
    pub(super) origin: Origin,
    pub(super) live: bool,
}

pub(super) const PART_END: [u8; 2] = [0, 1];
pub(super) const ZERO_BYTE: [u8; 2] = [0, 0xFF];

pub(super) fn push_part(bytes: &mut Vec<u8>, part: &str) {
    for &byte in part.as_bytes() {
        if byte == 0 {
            bytes.extend_from_slice(&ZERO_BYTE);
        } else {
            bytes.push(byte);
        }
    }
    bytes.extend_from_slice(&PART_END);
}

/// `path` encoded as [`Paths`] keeps it, into `key` (cleared first).
pub(super) fn encode(key: &mut Vec<u8>, path: &[impl AsRef<str>]) {
    key.clear();
    for part in path {
        push_part(key, part.as_ref());
    }
}

pub(super) fn decode(mut bytes: &[u8]) -> LeafPath {
    let mut parts = Vec::new();
    let mut part = Vec::new();
    while let Some((&byte, rest)) = bytes.split_first() {
        bytes = rest;
        if byte != 0 {
            part.push(byte);
            continue;
        }
        let escaped_zero = bytes.first() == Some(&0xFF);
        bytes = bytes.get(1..).unwrap_or_default();
        if escaped_zero {
            part.push(0);
        } else {
            parts.push(String::from_utf8_lossy(&std::mem::take(&mut part)).into_owned());
        }
    }
    parts
}

impl Paths {
    pub(super) fn key(&self, entry: &Entry) -> &[u8] {
        &self.bytes[entry.start..entry.start + entry.len as usize]
    }

    pub(super) fn push(&mut self, path: &[impl AsRef<str>], origin: Origin) {
        let start = self.bytes.len();
        for part in path {
            push_part(&mut self.bytes, part.as_ref());
        }
        self.push_entry(start, origin);
    }

    pub(super) fn push_encoded(&mut self, key: &[u8], origin: Origin) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(key);
        self.push_entry(start, origin);
    }

    pub(super) fn push_entry(&mut self, start: usize, origin: Origin) {
        let len = u32::try_from(self.bytes.len() - start).unwrap_or(u32::MAX);
        self.entries.push(Entry {
            start,
            len,
            origin,
            live: false,
        });
    }

    /// Sorts by path; of a path given twice, the first stays.
    pub(super) fn sort(&mut self) {
        let bytes = &self.bytes;
        let key = |e: &Entry| &bytes[e.start..e.start + e.len as usize];
        self.entries.sort_by(|a, b| key(a).cmp(key(b)));
        self.entries
            .dedup_by(|later, first| key(later) == key(first));
        // Grown by doubling: up to twice what a million paths need.
        self.entries.shrink_to_fit();
        self.bytes.shrink_to_fit();
    }

    pub(super) fn find(&self, key: &[u8]) -> Option<usize> {
        self.entries.binary_search_by(|e| self.key(e).cmp(key)).ok()
    }

    /// `self` with `later` over it (both sorted, and so is the result).
    pub(super) fn merged(self, later: Paths) -> Paths {
        if self.entries.is_empty() {
            return later;
        }
        let mut merged = Paths {
            bytes: Vec::with_capacity(self.bytes.len() + later.bytes.len()),
            entries: Vec::with_capacity(self.entries.len() + later.entries.len()),
        };
        let mut earlier = self.entries.iter().peekable();
        for entry in &later.entries {
            let key = later.key(entry);
            while let Some(e) = earlier.next_if(|e| self.key(e) < key) {
                merged.push_encoded(self.key(e), e.origin);
            }
            earlier.next_if(|e| self.key(e) == key);
            merged.push_encoded(key, entry.origin);
        }
        for e in earlier {
            merged.push_encoded(self.key(e), e.origin);
        }
        merged
    }
}
