//! Numbers as Go's `fmt` prints them: integers in every base with their flags, and floats in
//! `%e`, `%f`, `%g`, `%b` and `%x` forms with Go's shortest-digits rounding. Separate because it
//! is the bulk of `printf` and knows nothing of format strings.

use super::{bad_verb, pad, pad_spaces, quote_rune, Spec};
use crate::engine::gofmt::is_print;
use crate::values::format_go_float;
use minijinja::value::Value;
use std::fmt::Write as _;

pub(super) fn fmt_integer(out: &mut String, value: &Value, n: i128, verb: char, spec: &Spec) {
    let (base, upper) = match verb {
        'v' | 'd' => (10, false),
        'b' => (2, false),
        'o' | 'O' => (8, false),
        'x' => (16, false),
        'X' => (16, true),
        'c' => {
            let c = u32::try_from(n)
                .ok()
                .and_then(char::from_u32)
                .unwrap_or('\u{fffd}');
            return pad_spaces(out, &c.to_string(), spec);
        }
        'q' => {
            let c = u32::try_from(n)
                .ok()
                .and_then(char::from_u32)
                .unwrap_or('\u{fffd}');
            return pad_spaces(out, &quote_rune(c, spec.plus), spec);
        }
        'U' => {
            let c = u32::try_from(n).unwrap_or(0xfffd);
            let digits = spec.precision.unwrap_or(4).max(4);
            let mut text = format!("U+{c:0digits$X}");
            if let Some(ch) = char::from_u32(c).filter(|ch| spec.sharp && is_print(*ch)) {
                let _ = write!(text, " '{ch}'");
            }
            return pad_spaces(out, &text, spec);
        }
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' => return fmt_float(out, value, n as f64, verb, spec),
        _ => return bad_verb(out, value, verb, spec),
    };
    let negative = n < 0;
    let magnitude = n.unsigned_abs();
    if spec.precision == Some(0) && magnitude == 0 {
        return pad_spaces(out, "", spec);
    }
    let mut digits = match base {
        2 => format!("{magnitude:b}"),
        8 => format!("{magnitude:o}"),
        16 if upper => format!("{magnitude:X}"),
        16 => format!("{magnitude:x}"),
        _ => magnitude.to_string(),
    };
    let min_digits = match (spec.precision, spec.width) {
        (Some(p), _) => p,
        (None, Some(w)) if spec.zero && !spec.minus => {
            w.saturating_sub(usize::from(negative || spec.plus || spec.space))
        }
        _ => 0,
    };
    if digits.len() < min_digits {
        digits = "0".repeat(min_digits - digits.len()) + &digits;
    }
    let mut prefix = String::new();
    if negative {
        prefix.push('-');
    } else if spec.plus {
        prefix.push('+');
    } else if spec.space {
        prefix.push(' ');
    }
    if spec.sharp {
        match base {
            2 => prefix.push_str("0b"),
            8 if !digits.starts_with('0') => prefix.push('0'),
            16 if upper => prefix.push_str("0X"),
            16 => prefix.push_str("0x"),
            _ => {}
        }
    }
    if verb == 'O' {
        prefix.push_str("0o");
    }
    pad_spaces(out, &(prefix + &digits), spec);
}

pub(super) fn fmt_float(out: &mut String, value: &Value, f: f64, verb: char, spec: &Spec) {
    let (kind, default_precision) = match verb {
        'v' => ('g', None),
        'g' | 'G' | 'x' | 'X' | 'b' => (verb, None),
        'e' | 'E' | 'f' | 'F' => (verb, Some(6)),
        _ => return bad_verb(out, value, verb, spec),
    };
    let precision = spec.precision.or(default_precision);
    let mut num = format_float(f, kind, precision);
    if !num.starts_with(['-', '+']) {
        num.insert(0, '+');
    }
    if spec.space && num.starts_with('+') && !spec.plus {
        num.replace_range(0..1, " ");
    }
    if num[1..].starts_with(['I', 'N']) {
        if num[1..].starts_with('N') && !spec.space && !spec.plus {
            num.remove(0);
        }
        return pad_spaces(out, &num, spec);
    }
    if spec.plus || !num.starts_with('+') {
        if let Some(width) = spec
            .width
            .filter(|w| spec.zero && !spec.minus && *w > num.len())
        {
            out.push_str(&num[..1]);
            out.extend(std::iter::repeat_n('0', width - num.len()));
            out.push_str(&num[1..]);
            return;
        }
        return pad(out, &num, spec);
    }
    pad(out, &num[1..], spec);
}

/// `strconv.FormatFloat(f, kind, precision)` for kinds `e E f F g G` (`None` = shortest).
fn format_float(f: f64, kind: char, precision: Option<usize>) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    let sign = if f.is_sign_negative() { "-" } else { "" };
    let a = f.abs();
    let body = match (kind, precision) {
        ('x' | 'X', p) => hex_float(a, p, kind == 'X'),
        ('b', _) => binary_float(a),
        ('e' | 'E', p) => {
            let (digits, dp) = decimal_digits(a, Some(p.unwrap_or(6) + 1));
            e_form(&digits, dp, p.unwrap_or(6), kind)
        }
        ('f' | 'F', p) => format!("{a:.prec$}", prec = p.unwrap_or(6)),
        ('g' | 'G', None) => {
            let text = format_go_float(a);
            if kind == 'G' {
                text.to_uppercase()
            } else {
                text
            }
        }
        (_, p) => {
            // Go's %g with a precision: the rounded digits decide between %e and %f forms.
            let mut prec = p.unwrap_or(6).max(1);
            let (digits, dp) = decimal_digits(a, Some(prec));
            let nd = digits.len() as i64;
            let mut eprec = prec as i64;
            if eprec > nd && nd >= dp {
                eprec = nd;
            }
            let exp = dp - 1;
            if exp < -4 || exp >= eprec {
                prec = prec.min(digits.len());
                e_form(&digits, dp, prec - 1, if kind == 'G' { 'E' } else { 'e' })
            } else {
                if prec as i64 > dp {
                    prec = digits.len();
                }
                f_form(&digits, dp, (prec as i64 - dp).max(0) as usize)
            }
        }
    };
    format!("{sign}{body}")
}

/// The IEEE parts of a non-negative finite float: mantissa with its implicit bit, and exponent.
fn float_parts(a: f64) -> (u64, i64) {
    let bits = a.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let mant = bits & ((1 << 52) - 1);
    if exp == 0 {
        (mant, -1022)
    } else {
        (mant | (1 << 52), exp - 1023)
    }
}

/// Go's `%b` of a float: `4503599627370496p-52`.
fn binary_float(a: f64) -> String {
    let (mant, exp) = float_parts(a);
    let exp = exp - 52;
    let sign = if exp >= 0 { "+" } else { "" };
    format!("{mant}p{sign}{exp}")
}

/// Go's `%x` of a float: `0x1.8p+00`, with `precision` hex digits after the point if given.
fn hex_float(a: f64, precision: Option<usize>, upper: bool) -> String {
    let (mut mant, mut exp) = float_parts(a);
    if mant == 0 {
        exp = 0;
    }
    mant <<= 8;
    while mant != 0 && mant & (1 << 60) == 0 {
        mant <<= 1;
        exp -= 1;
    }
    if let Some(p) = precision.filter(|p| *p < 15) {
        let shift = p as u32 * 4;
        let extra = (mant << shift) & ((1 << 60) - 1);
        mant >>= 60 - shift;
        if extra | (mant & 1) > 1 << 59 {
            mant += 1;
        }
        mant <<= 60 - shift;
        if mant & (1 << 61) != 0 {
            mant >>= 1;
            exp += 1;
        }
    }
    let digits: &[u8; 16] = if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    let mut out = String::from(if upper { "0X" } else { "0x" });
    out.push(if (mant >> 60) & 1 == 1 { '1' } else { '0' });
    mant <<= 4;
    match precision {
        None if mant != 0 => {
            out.push('.');
            while mant != 0 {
                out.push(digits[((mant >> 60) & 15) as usize] as char);
                mant <<= 4;
            }
        }
        Some(p) if p > 0 => {
            out.push('.');
            for _ in 0..p {
                out.push(digits[((mant >> 60) & 15) as usize] as char);
                mant <<= 4;
            }
        }
        _ => {}
    }
    out.push(if upper { 'P' } else { 'p' });
    out.push(if exp < 0 { '-' } else { '+' });
    let _ = write!(out, "{:02}", exp.abs());
    out
}

/// Significant digits of `a` (rounded to `significant` digits, trailing zeros dropped) and the
/// position of the decimal point: 1234.5 is ("12345", 4).
fn decimal_digits(a: f64, significant: Option<usize>) -> (String, i64) {
    let sci = match significant {
        Some(n) => format!("{a:.prec$e}", prec = n.saturating_sub(1)),
        None => format!("{a:e}"),
    };
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let trimmed = digits.trim_end_matches('0');
    let digits = if trimmed.is_empty() { "0" } else { trimmed };
    (digits.to_owned(), exponent.parse::<i64>().unwrap_or(0) + 1)
}

/// `d.ddde±XX` with `decimals` digits after the point.
fn e_form(digits: &str, dp: i64, decimals: usize, e: char) -> String {
    let mut out = String::new();
    out.push_str(&digits[..1]);
    if decimals > 0 {
        out.push('.');
        let tail = &digits[1..];
        out.push_str(&tail[..tail.len().min(decimals)]);
        out.extend(std::iter::repeat_n(
            '0',
            decimals.saturating_sub(tail.len()),
        ));
    }
    let exp = if digits == "0" { 0 } else { dp - 1 };
    let sign = if exp < 0 { '-' } else { '+' };
    let _ = write!(out, "{e}{sign}{:02}", exp.abs());
    out
}

/// Plain decimal with `decimals` digits after the point, from already-rounded digits.
fn f_form(digits: &str, dp: i64, decimals: usize) -> String {
    let digit_at = |i: i64| -> char {
        if i >= 0 && (i as usize) < digits.len() {
            digits.as_bytes()[i as usize] as char
        } else {
            '0'
        }
    };
    let mut out = String::new();
    if dp <= 0 {
        out.push('0');
    } else {
        for i in 0..dp {
            out.push(digit_at(i));
        }
    }
    if decimals > 0 {
        out.push('.');
        for i in 0..decimals as i64 {
            out.push(digit_at(dp + i));
        }
    }
    out
}
