//! The text of a document as the line check reads it: its lines, their indentation, and
//! whether its characters are ones the check can judge.

/// `line` without its leading spaces. Bytes are compared, not characters:
/// `trim_start_matches(' ')` decoded every indentation byte as UTF-8, a sixth of this check's
/// time on a CRD.
pub(crate) fn without_indent(line: &str) -> &str {
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
pub(crate) fn without_trailing_spaces(text: &str) -> &str {
    let trailing = text.bytes().rev().take_while(|&b| b == b' ').count();
    &text[..text.len() - trailing]
}

/// The lines of a text, as `split('\n')` gives them, found with memchr: this check reads every
/// line of every rendered manifest.
#[derive(Clone)]
pub(crate) struct Lines<'t> {
    pub(crate) rest: Option<&'t str>,
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

/// No tabs, carriage returns or characters YAML readers reject or treat specially.
pub(crate) fn characters_are_plain(text: &str) -> bool {
    if usual_bytes_only(text.as_bytes()) {
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

/// Whether `bytes` holds printable ASCII and newlines only, the usual case.
///
/// Blocks of a fixed 32 bytes, each folded into one byte without an early exit, are what the
/// compiler turns into vector compares whatever it inlines this into. The shipped executable
/// had compiled an earlier form (blocks of up to 64 bytes, folded as bools) into a loop over
/// single bytes: two fifths of the line check's time on a CRD chart.
#[inline(never)]
fn usual_bytes_only(bytes: &[u8]) -> bool {
    let mut blocks = bytes.chunks_exact(32);
    for block in &mut blocks {
        let mut unusual = 0u8;
        for &b in block {
            unusual |= u8::from((b.wrapping_sub(0x20) >= 0x5f) & (b != b'\n'));
        }
        if unusual != 0 {
            return false;
        }
    }
    blocks
        .remainder()
        .iter()
        .all(|&b| (b.wrapping_sub(0x20) < 0x5f) | (b == b'\n'))
}
