//! Go's `strconv.Quote` and `QuoteRune`, and the notion of a printable rune they share with
//! `text/template`'s `js` escaper.

/// Whether Go's `strconv.IsPrint` holds, closely enough for quoting: letters, marks,
/// numbers, punctuation, symbols and the ASCII space.
pub(crate) fn is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    !matches!(c as u32,
        0xAD | 0x200B..=0x200F | 0x2028..=0x202E | 0x2060..=0x206F | 0xFEFF
        | 0xFFF9..=0xFFFB | 0xE000..=0xF8FF | 0xF0000..=0x10FFFF)
}

fn push_escaped(out: &mut String, c: char, quote: char, ascii_only: bool) {
    match c {
        _ if c == quote || c == '\\' => {
            out.push('\\');
            out.push(c);
        }
        _ if is_print(c) && (!ascii_only || c.is_ascii()) => out.push(c),
        '\u{7}' => out.push_str("\\a"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{b}' => out.push_str("\\v"),
        _ if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
        _ if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
        _ => out.push_str(&format!("\\U{:08x}", c as u32)),
    }
}

/// Go's `strconv.Quote` (or `QuoteToASCII` when `ascii_only`).
pub fn quote(s: &str, ascii_only: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        push_escaped(&mut out, c, '"', ascii_only);
    }
    out.push('"');
    out
}

/// Go's `strconv.QuoteRune` (or `QuoteRuneToASCII`).
pub(super) fn quote_rune(c: char, ascii_only: bool) -> String {
    let mut out = String::from("'");
    push_escaped(&mut out, c, '\'', ascii_only);
    out.push('\'');
    out
}
