//! Literals as Go's parser reads them: `strconv.ParseInt`/`ParseFloat` with base prefixes
//! and underscores, `strconv.Unquote` for strings and character constants.

use std::rc::Rc;

/// Does Go's `idealConstant` make a float64 of this integer-valued text? (`1e3`, `0x1p4`; not
/// hex integers such as `0x1E`.)
pub(super) fn is_float_text(text: &str) -> bool {
    let t = text.trim_start_matches(['+', '-']);
    let hex = t.len() > 2 && (t.starts_with("0x") || t.starts_with("0X"));
    if hex {
        t.contains(['p', 'P'])
    } else {
        t.contains(['.', 'e', 'E', 'p', 'P'])
    }
}

/// Go's `strconv.ParseInt(text, 0, 64)` widened so callers can tell int from uint overflow.
pub(super) fn parse_int(text: &str) -> Option<i128> {
    let (neg, t) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (radix, digits, prefixed) =
        if let Some(r) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            (16, r, true)
        } else if let Some(r) = t.strip_prefix("0o").or_else(|| t.strip_prefix("0O")) {
            (8, r, true)
        } else if let Some(r) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
            (2, r, true)
        } else if t.len() > 1 && t.starts_with('0') {
            (8, &t[1..], true)
        } else {
            (10, t, false)
        };
    if !underscores_ok(digits, prefixed) {
        return None;
    }
    let clean: String = digits.chars().filter(|&c| c != '_').collect();
    if clean.is_empty() {
        return None;
    }
    let v = u128::from_str_radix(&clean, radix).ok()?;
    if v > u64::MAX as u128 {
        return Some(i128::MAX);
    }
    let v = v as i128;
    Some(if neg { -v } else { v })
}

/// Underscores only between digits (or right after a base prefix), as Go's literals allow.
fn underscores_ok(digits: &str, prefixed: bool) -> bool {
    let b = digits.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if c == b'_' {
            let before_ok = if i == 0 { prefixed } else { b[i - 1] != b'_' };
            let after_ok = i + 1 < b.len() && b[i + 1] != b'_';
            if !before_ok || !after_ok {
                return false;
            }
        }
    }
    true
}

/// Go's `strconv.ParseFloat(text, 64)` for decimal and hexadecimal literals.
pub(super) fn parse_float(text: &str) -> Option<f64> {
    let (neg, t) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        let h: String = h.chars().filter(|&c| c != '_').collect();
        let (mant, exp) = h.split_once(['p', 'P'])?;
        let exp: i32 = exp.parse().ok()?;
        let (ip, fp) = mant.split_once('.').unwrap_or((mant, ""));
        let mut v = 0f64;
        for c in ip.chars() {
            v = v * 16.0 + c.to_digit(16)? as f64;
        }
        let mut scale = 1.0 / 16.0;
        for c in fp.chars() {
            v += c.to_digit(16)? as f64 * scale;
            scale /= 16.0;
        }
        v * 2f64.powi(exp)
    } else {
        if !underscores_ok(t, false) {
            return None;
        }
        let clean: String = t.chars().filter(|&c| c != '_').collect();
        if !clean
            .bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
        {
            return None;
        }
        clean.parse::<f64>().ok()?
    };
    Some(if neg { -v } else { v })
}

/// Go's `strconv.Unquote` for a double-quoted string. Invalid UTF-8 from `\x` escapes is
/// replaced (Rust strings are UTF-8; Go's need not be).
pub(super) fn unquote_double(s: &str) -> Option<Rc<str>> {
    let inner = s.strip_prefix('"')?.strip_suffix('"')?;
    if !inner.contains(['\\', '"', '\n']) {
        // Nothing to unescape (most strings): the text is the value.
        return Some(Rc::from(inner));
    }
    let mut bytes = Vec::with_capacity(inner.len());
    let mut rest = inner;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('\\') {
            let (b, tail) = unescape(r, '"')?;
            bytes.extend_from_slice(&b);
            rest = tail;
        } else {
            let c = rest.chars().next()?;
            if c == '"' || c == '\n' {
                return None;
            }
            let mut buf = [0u8; 4];
            bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            rest = &rest[c.len_utf8()..];
        }
    }
    Some(Rc::from(String::from_utf8_lossy(&bytes)))
}

/// One escape after a backslash: its bytes and the rest.
fn unescape(r: &str, quote: char) -> Option<(Vec<u8>, &str)> {
    let c = r.chars().next()?;
    let rest = &r[c.len_utf8()..];
    let simple = |b: u8| Some((vec![b], rest));
    match c {
        'a' => simple(7),
        'b' => simple(8),
        'f' => simple(12),
        'n' => simple(b'\n'),
        'r' => simple(b'\r'),
        't' => simple(b'\t'),
        'v' => simple(11),
        '\\' => simple(b'\\'),
        c if c == quote => simple(c as u8),
        'x' => {
            let h = rest.get(..2)?;
            let v = u8::from_str_radix(h, 16).ok()?;
            Some((vec![v], &rest[2..]))
        }
        '0'..='7' => {
            let o = r.get(..3)?;
            let v = u32::from_str_radix(o, 8).ok()?;
            if v > 255 {
                return None;
            }
            Some((vec![v as u8], &r[3..]))
        }
        'u' | 'U' => {
            let n = if c == 'u' { 4 } else { 8 };
            let h = rest.get(..n)?;
            let v = u32::from_str_radix(h, 16).ok()?;
            let ch = char::from_u32(v)?;
            let mut buf = [0u8; 4];
            Some((ch.encode_utf8(&mut buf).as_bytes().to_vec(), &rest[n..]))
        }
        _ => None,
    }
}

/// Go's `strconv.UnquoteChar`: the first (possibly escaped) rune of `s` and what follows.
pub(super) fn unquote_char(s: &str, quote: char) -> Option<(char, &str)> {
    let c = s.chars().next()?;
    if c == quote {
        return None;
    }
    if c != '\\' {
        return Some((c, &s[c.len_utf8()..]));
    }
    let (b, tail) = unescape(&s[1..], quote)?;
    let ch = match b.len() {
        1 => b[0] as char,
        _ => std::str::from_utf8(&b).ok()?.chars().next()?,
    };
    Some((ch, tail))
}
