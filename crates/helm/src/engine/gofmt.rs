//! How Go's templates print values (`{{ v }}`, `toString`, `%v`), so output reads as Helm's does.

use crate::limits::MAX_STRING_BYTES;
use crate::values::format_go_float;
use minijinja::value::{Value, ValueKind};
use std::fmt::Write as _;

/// Appends `value` as Go's `%v` prints it at the top level: nil prints nothing.
pub(super) fn write_display(out: &mut String, value: &Value) {
    match value.kind() {
        ValueKind::Undefined | ValueKind::None => {}
        _ => write_nested(out, value),
    }
}

/// Go `%v` inside a list or map: nil is `<nil>`, lists `[a b]`, maps `map[k:v]`.
pub(super) fn write_nested(out: &mut String, value: &Value) {
    match value.kind() {
        ValueKind::Undefined | ValueKind::None => out.push_str("<nil>"),
        ValueKind::Bool => out.push_str(if value.is_true() { "true" } else { "false" }),
        ValueKind::Number => {
            if let Some(i) = value.as_i64().filter(|_| value.is_integer()) {
                let _ = write!(out, "{i}");
            } else if let Ok(f) = f64::try_from(value.clone()) {
                out.push_str(&format_go_float(f));
            } else {
                let _ = write!(out, "{value}");
            }
        }
        ValueKind::String => out.push_str(value.as_str().unwrap_or_default()),
        ValueKind::Seq | ValueKind::Iterable => write_list(out, value, write_nested),
        ValueKind::Map if is_plain_object(value) => {
            let _ = write!(out, "{value}");
        }
        ValueKind::Map => write_map(out, value, write_nested),
        _ => {
            let _ = write!(out, "{value}");
        }
    }
}

/// Writes the items of `value` the way Go's `%v` lays out a slice, `[a b]`, each by `item`.
pub(super) fn write_list(
    out: &mut String,
    value: &Value,
    mut item: impl FnMut(&mut String, &Value),
) {
    out.push('[');
    if let Ok(items) = value.try_iter() {
        for (i, element) in items.enumerate() {
            // Past the string cap the caller fails anyway: stop walking (a lazy list can be huge).
            if out.len() > MAX_STRING_BYTES {
                break;
            }
            if i > 0 {
                out.push(' ');
            }
            item(out, &element);
        }
    }
    out.push(']');
}

/// Writes the map `value` the way Go's `%v` lays out a map, `map[k:v]`, each key and value by
/// `item`.
pub(super) fn write_map(
    out: &mut String,
    value: &Value,
    mut item: impl FnMut(&mut String, &Value),
) {
    out.push_str("map[");
    if let Ok(keys) = value.try_iter() {
        for (i, key) in keys.enumerate() {
            if out.len() > MAX_STRING_BYTES {
                break;
            }
            if i > 0 {
                out.push(' ');
            }
            item(out, &key);
            out.push(':');
            item(out, &value.get_item(&key).unwrap_or_default());
        }
    }
    out.push(']');
}

/// Whether `value` is a plain object (not a map of ours), which prints as its own text.
pub(super) fn is_plain_object(value: &Value) -> bool {
    value
        .as_object()
        .is_some_and(|o| o.repr() == minijinja::value::ObjectRepr::Plain)
}

/// Go's `strconv.Quote` (or `QuoteToASCII` when `ascii_only`): `"tab\tnew\nline"`.
pub(super) fn go_quote(text: &str, ascii_only: bool) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    // Printable ASCII other than the quote and the backslash stands for itself: the usual case
    // (names, images, ports), copied whole instead of character by character.
    let plain = |b: &u8| (b' '..=b'~').contains(b) && *b != b'"' && *b != b'\\';
    let plain_prefix = text.bytes().take_while(plain).count();
    out.push_str(&text[..plain_prefix]);
    for c in text[plain_prefix..].chars() {
        push_escaped(&mut out, c, '"', ascii_only);
    }
    out.push('"');
    out
}

/// Appends `c` as Go writes it inside a `quote`-quoted literal (`strconv.Quote`'s escapes;
/// with `ascii_only`, non-ASCII characters as `\u` escapes too).
pub(super) fn push_escaped(out: &mut String, c: char, quote: char, ascii_only: bool) {
    if c == quote || c == '\\' {
        out.push('\\');
        out.push(c);
        return;
    }
    let printable = if ascii_only {
        c.is_ascii() && is_print(c)
    } else {
        is_print(c)
    };
    if printable {
        out.push(c);
        return;
    }
    match c {
        '\u{7}' => out.push_str("\\a"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{b}' => out.push_str("\\v"),
        c if c < ' ' || c == '\u{7f}' => {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        }
        c if u32::from(c) < 0x10000 => {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        }
        c => {
            let _ = write!(out, "\\U{:08x}", u32::from(c));
        }
    }
}

/// Go's `unicode.IsPrint`, without Unicode tables: controls, separators other than the ASCII
/// space, format characters, private use and non-characters are not printable.
pub(crate) fn is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    let n = u32::from(c);
    let format = matches!(
        n,
        0xAD | 0x600..=0x605
            | 0x61C
            | 0x6DD
            | 0x70F
            | 0x890..=0x891
            | 0x8E2
            | 0x180E
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x2064
            | 0x2066..=0x206F
            | 0xFEFF
            | 0xFFF9..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x13430..=0x1343F
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0001
            | 0xE0020..=0xE007F
    );
    let private = matches!(n, 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD);
    let noncharacter = matches!(n, 0xFDD0..=0xFDEF) || (n & 0xFFFE) == 0xFFFE;
    !(format || private || noncharacter)
}
