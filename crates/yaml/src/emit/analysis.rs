//! What a string allows, as libyaml's `yaml_emitter_analyze_scalar` works it out: whether it may
//! be plain, single-quoted or literal, in block or flow context, remembered for the strings
//! most recently asked about. Separate from the emitter, which only acts on the verdict.

/// What a scalar's characters allow (libyaml's `yaml_emitter_analyze_scalar`, block context).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Analysis {
    pub(super) multiline: bool,
    pub(super) plain_allowed: bool,
    pub(super) single_quoted_allowed: bool,
    pub(super) block_allowed: bool,
}

/// libyaml's `is_break`: CR, LF, NEL, LS, PS.
pub(super) fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// libyaml's `is_printable`: LF, printable ASCII, and the BMP outside C1 controls, surrogates,
/// U+FEFF, U+FFFE and U+FFFF. Tabs and characters beyond the BMP are not printable.
pub(super) fn is_printable(c: char) -> bool {
    matches!(u32::from(c), 0x0A | 0x20..=0x7E | 0xA0..=0xD7FF | 0xE000..=0xFEFE | 0xFF00..=0xFFFD)
}

/// Whether `s` is made only of characters that never need quoting (letters, digits and a few
/// marks, none of them an indicator where it stands), so every style is allowed: the common case
/// (names, images, ports, addresses, flags), decided without the character-by-character analysis.
pub(super) fn is_quiet(s: &str) -> bool {
    let bytes = s.as_bytes();
    let quiet_inside = |b: &u8| QUIET_INSIDE[usize::from(*b)];
    let quiet_first = match bytes.first() {
        None => false,
        Some(b) if b.is_ascii_alphanumeric() || b"_/".contains(b) => true,
        // Indicators only when followed by a space or at the end, or as `---`/`...`.
        Some(b'-') => bytes.len() > 1 && !s.starts_with("---"),
        Some(b'.') => !s.starts_with("..."),
        Some(_) => false,
    };
    // `:` is an indicator before a space or at the end; no spaces here, so only the end counts.
    quiet_first && bytes[1..].iter().all(quiet_inside) && !s.ends_with(':')
}

/// The bytes [`is_quiet`] lets stand after the first: ASCII letters and digits and
/// `_./+=-,@%()~:`, as a table (this runs for every byte of every string written).
const QUIET_INSIDE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'_' | b'.' | b'/' | b'+' | b'=' | b'-' | b',' | b'@' | b'%'
            )
            || matches!(c, b'(' | b')' | b'~' | b':');
        b += 1;
    }
    table
};

/// Long strings (a PEM bundle in every injected proxy's environment) come back again and again:
/// their analysis is kept for the next time.
const REMEMBERED_LENGTH: usize = 256;
const REMEMBERED_STRINGS: usize = 8;

thread_local! {
    static REMEMBERED: std::cell::RefCell<Vec<(String, Analysis)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

impl Analysis {
    /// Plain and single-quoted allowed; block style as `block` says.
    fn every_style(block: bool) -> Analysis {
        Analysis {
            multiline: false,
            plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: block,
        }
    }
}

/// Which scalar styles the characters of `s` allow in block context.
pub(super) fn analyze(s: &str) -> Analysis {
    if is_quiet(s) {
        return Analysis::every_style(true);
    }
    if s.len() < REMEMBERED_LENGTH {
        return analyze_chars(s);
    }
    if let Some(known) = REMEMBERED.with(|r| {
        r.borrow()
            .iter()
            .find(|(text, _)| text == s)
            .map(|(_, a)| *a)
    }) {
        return known;
    }
    let analysis = analyze_chars(s);
    REMEMBERED.with(|r| {
        let mut remembered = r.borrow_mut();
        if remembered.len() >= REMEMBERED_STRINGS {
            remembered.remove(0);
        }
        remembered.push((s.to_owned(), analysis));
    });
    analysis
}

/// [`analyze`] character by character.
pub(super) fn analyze_chars(s: &str) -> Analysis {
    if s.is_empty() {
        return Analysis::every_style(false);
    }
    let mut indicators = s.starts_with("---") || s.starts_with("...");
    let mut line_breaks = false;
    let mut special_characters = false;
    let mut leading_space = false;
    let mut leading_break = false;
    let mut trailing_space = false;
    let mut trailing_break = false;
    let mut break_space = false;
    let mut space_break = false;
    let mut preceded_by_whitespace = true;
    let mut previous_space = false;
    let mut previous_break = false;

    let mut iter = s.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        let next = iter.peek().map(|&(_, next)| next);
        let followed_by_whitespace = matches!(next, None | Some(' ' | '\t'));
        let first = i == 0;
        let last = next.is_none();
        indicators |= if first {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => true,
                '?' | ':' | '-' => followed_by_whitespace,
                _ => false,
            }
        } else {
            match c {
                ':' => followed_by_whitespace,
                '#' => preceded_by_whitespace,
                _ => false,
            }
        };
        // Only `\n` may stay a raw line break: the others (CR, NEL, LS, PS) are read back
        // differently by YAML 1.1 and 1.2 readers, or normalised to `\n`, so they are escaped.
        if !is_printable(c) || (is_break(c) && c != '\n') {
            special_characters = true;
        }
        if c == ' ' {
            leading_space |= first;
            trailing_space |= last;
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            line_breaks = true;
            leading_break |= first;
            trailing_break |= last;
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = matches!(c, ' ' | '\t' | '\0') || is_break(c);
    }

    let mut analysis = Analysis {
        multiline: line_breaks,
        plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        analysis.plain_allowed = false;
    }
    if trailing_space {
        analysis.block_allowed = false;
    }
    if break_space {
        analysis.plain_allowed = false;
        analysis.single_quoted_allowed = false;
    }
    if space_break || special_characters {
        analysis.plain_allowed = false;
        analysis.single_quoted_allowed = false;
        analysis.block_allowed = false;
    }
    if line_breaks || indicators {
        analysis.plain_allowed = false;
    }
    analysis
}
