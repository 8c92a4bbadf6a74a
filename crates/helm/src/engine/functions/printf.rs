//! `printf`: Go's `fmt.Sprintf` for template values, and Go's string quoting (`%q`, `quote`).
//!
//! Supported: flags `+ - # 0 space`, width and precision (also from `*`), argument indexes
//! (`%[2]s`), `%%`, and the verbs `v s d q t f F e E g G x X o O b c U T`, on the value kinds a
//! template has. Mistakes print as Go prints them: `%!d(string=x)`, `%!s(MISSING)`,
//! `%!(EXTRA int=1)`, `%!(NOVERB)`. Outside this subset (`%x` of a float, `%#v` Go syntax of lists
//! and maps, `#` on floats) we print the bad-verb form or plain `%v`.
//!
//! One deliberate leniency: an integer given to a float verb (`%.1f` of `3`) prints as a float,
//! because our values keep integers that Helm's values files would have made float64.

use super::args::{go_type, Args};
use crate::engine::gofmt::{
    go_quote, is_plain_object, is_print, push_escaped, write_list, write_map,
};
use crate::limits::MAX_STRING_BYTES;
use crate::values::format_go_float;
use minijinja::value::{Value, ValueKind};
use minijinja::Error;
use std::fmt::Write as _;

/// `printf(format, value...)`: Go's `Sprintf`.
///
/// ```jinja
/// image: {{ printf("%s:%s", Values.image.name, Values.image.tag) }}
/// ```
/// Fails only when the format is not a string or the result would pass 10 MiB.
pub fn printf(args: &Args) -> Result<Value, Error> {
    args.between(1, usize::MAX)?;
    let format = args.string(0, "format")?;
    let text = sprintf(&format, &args.all()[1..]).map_err(|e| args.error(e))?;
    Ok(Value::from(text))
}

#[derive(Clone, Copy, Default)]
struct Spec {
    plus: bool,
    minus: bool,
    sharp: bool,
    space: bool,
    zero: bool,
    sharp_v: bool,
    width: Option<usize>,
    precision: Option<usize>,
}

/// Go's cap on a width or precision written in the format (larger numbers are not numbers).
const MAX_WIDTH: i64 = 1_000_000;

/// Formats `args` with Go's `fmt.Sprintf` rules; fails only when the result passes 10 MiB.
pub fn sprintf(format: &str, args: &[Value]) -> Result<String, String> {
    let bytes = format.as_bytes();
    let end = bytes.len();
    let mut out = String::new();
    let mut arg_num = 0usize;
    let mut reordered = false;
    let mut i = 0usize;
    while i < end {
        let mut good_arg_num = true;
        let start = i;
        while i < end && bytes[i] != b'%' {
            i += 1;
        }
        out.push_str(&format[start..i]);
        if i >= end {
            break;
        }
        i += 1;
        let mut spec = Spec::default();
        while i < end {
            match bytes[i] {
                b'#' => spec.sharp = true,
                b'0' => spec.zero = true,
                b'+' => spec.plus = true,
                b'-' => spec.minus = true,
                b' ' => spec.space = true,
                _ => break,
            }
            i += 1;
        }
        // Argument index, width, precision.
        let mut after_index;
        (arg_num, i, after_index) = arg_number(
            arg_num,
            format,
            i,
            args.len(),
            &mut good_arg_num,
            &mut reordered,
        );
        if i < end && bytes[i] == b'*' {
            i += 1;
            let (n, ok, next) = int_from_arg(args, arg_num);
            arg_num = next;
            if !ok {
                out.push_str("%!(BADWIDTH)");
            } else if n < 0 {
                spec.minus = true;
                spec.zero = false;
                spec.width = Some(n.unsigned_abs() as usize);
            } else {
                spec.width = Some(n as usize);
            }
            after_index = false;
        } else {
            let (n, is_num, next) = parse_number(bytes, i, end);
            i = next;
            if is_num {
                spec.width = Some(n);
                if after_index {
                    good_arg_num = false;
                }
            }
        }
        if i + 1 < end && bytes[i] == b'.' {
            i += 1;
            if after_index {
                good_arg_num = false;
            }
            (arg_num, i, after_index) = arg_number(
                arg_num,
                format,
                i,
                args.len(),
                &mut good_arg_num,
                &mut reordered,
            );
            if i < end && bytes[i] == b'*' {
                i += 1;
                let (n, ok, next) = int_from_arg(args, arg_num);
                arg_num = next;
                if !ok {
                    out.push_str("%!(BADPREC)");
                } else if n >= 0 {
                    spec.precision = Some(n as usize);
                }
                after_index = false;
            } else {
                let (n, _, next) = parse_number(bytes, i, end);
                i = next;
                spec.precision = Some(n);
            }
        }
        if !after_index {
            (arg_num, i, _) = arg_number(
                arg_num,
                format,
                i,
                args.len(),
                &mut good_arg_num,
                &mut reordered,
            );
        }
        if i >= end {
            out.push_str("%!(NOVERB)");
            break;
        }
        let verb = format[i..].chars().next().unwrap_or('?');
        i += verb.len_utf8();
        if verb == '%' {
            out.push('%');
        } else if !good_arg_num {
            let _ = write!(out, "%!{verb}(BADINDEX)");
        } else if arg_num >= args.len() {
            let _ = write!(out, "%!{verb}(MISSING)");
        } else {
            if verb == 'v' {
                spec.sharp_v = spec.sharp;
                spec.sharp = false;
                spec.plus = false;
            }
            print_value(&mut out, &args[arg_num], verb, &spec, 0);
            arg_num += 1;
        }
        if out.len() > MAX_STRING_BYTES {
            return Err(too_long());
        }
    }
    if !reordered && arg_num < args.len() {
        out.push_str("%!(EXTRA ");
        for (n, arg) in args[arg_num..].iter().enumerate() {
            if n > 0 {
                out.push_str(", ");
            }
            if arg.is_none() || arg.is_undefined() {
                out.push_str("<nil>");
            } else {
                out.push_str(go_type(arg));
                out.push('=');
                print_value(&mut out, arg, 'v', &Spec::default(), 0);
            }
        }
        out.push(')');
    }
    if out.len() > MAX_STRING_BYTES {
        return Err(too_long());
    }
    Ok(out)
}

fn too_long() -> String {
    format!("the result would be more than {MAX_STRING_BYTES} bytes (10 MiB)")
}

/// Go's `parsenum`: digits at `i`, or (0, false) when absent or absurdly long.
fn parse_number(bytes: &[u8], start: usize, end: usize) -> (usize, bool, usize) {
    if start >= end {
        return (0, false, end);
    }
    let mut n: i64 = 0;
    let mut is_num = false;
    let mut i = start;
    while i < end && bytes[i].is_ascii_digit() {
        if n > MAX_WIDTH {
            return (0, false, end);
        }
        n = n * 10 + i64::from(bytes[i] - b'0');
        is_num = true;
        i += 1;
    }
    (n as usize, is_num, i)
}

/// Go's `argNumber`: an explicit `[n]` index at `i`.
fn arg_number(
    arg_num: usize,
    format: &str,
    i: usize,
    num_args: usize,
    good: &mut bool,
    reordered: &mut bool,
) -> (usize, usize, bool) {
    let bytes = format.as_bytes();
    if i >= bytes.len() || bytes[i] != b'[' {
        return (arg_num, i, false);
    }
    *reordered = true;
    let rest = &bytes[i..];
    let close = rest.iter().position(|&b| b == b']');
    match close {
        Some(close) if rest.len() >= 3 => {
            let (n, is_num, next) = parse_number(rest, 1, close);
            if !is_num || next != close {
                *good = false;
                return (arg_num, i + close + 1, false);
            }
            let index = n as i64 - 1;
            if index >= 0 && (index as usize) < num_args {
                (index as usize, i + close + 1, true)
            } else {
                *good = false;
                (arg_num, i + close + 1, true)
            }
        }
        _ => {
            *good = false;
            (arg_num, i + 1, false)
        }
    }
}

/// Go's `intFromArg`: a `*` width or precision taken from an integer argument.
fn int_from_arg(args: &[Value], arg_num: usize) -> (i64, bool, usize) {
    let Some(arg) = args.get(arg_num) else {
        return (0, false, arg_num);
    };
    match arg.as_i64().filter(|_| arg.is_integer()) {
        Some(n) if (-MAX_WIDTH..=MAX_WIDTH).contains(&n) => (n, true, arg_num + 1),
        _ => (0, false, arg_num + 1),
    }
}

/// Prints one argument (or an item of one, at `depth` > 0) with `verb`.
fn print_value(out: &mut String, value: &Value, verb: char, spec: &Spec, depth: usize) {
    match value.kind() {
        ValueKind::Undefined | ValueKind::None => {
            if depth > 0 {
                out.push_str("<nil>");
            } else if verb == 'v' || verb == 'T' {
                pad(out, "<nil>", spec);
            } else {
                let _ = write!(out, "%!{verb}(<nil>)");
            }
        }
        _ if verb == 'T' => fmt_s(out, go_type(value), spec),
        ValueKind::Bool => match verb {
            't' | 'v' => pad(out, if value.is_true() { "true" } else { "false" }, spec),
            _ => bad_verb(out, value, verb, spec),
        },
        ValueKind::Number => match value.as_i64().filter(|_| value.is_integer()) {
            Some(n) => fmt_integer(out, value, i128::from(n), verb, spec),
            None if value.is_integer() => {
                let n = i128::try_from(value.clone()).unwrap_or_default();
                fmt_integer(out, value, n, verb, spec)
            }
            None => {
                let f = f64::try_from(value.clone()).unwrap_or(f64::NAN);
                fmt_float(out, value, f, verb, spec)
            }
        },
        ValueKind::String => fmt_string(out, value, value.as_str().unwrap_or_default(), verb, spec),
        ValueKind::Bytes if matches!(verb, 's' | 'q' | 'x' | 'X') => {
            let text = String::from_utf8_lossy(value.as_bytes().unwrap_or_default());
            fmt_string(out, value, &text, verb, spec)
        }
        ValueKind::Seq | ValueKind::Iterable | ValueKind::Bytes => {
            write_list(out, value, |out, item| {
                print_value(out, item, verb, spec, depth + 1)
            })
        }
        ValueKind::Map if is_plain_object(value) => {
            fmt_string(out, value, &value.to_string(), verb, spec)
        }
        ValueKind::Map => write_map(out, value, |out, item| {
            print_value(out, item, verb, spec, depth + 1)
        }),
        _ => fmt_string(out, value, &value.to_string(), verb, spec),
    }
}

/// `%!d(string=x)`: the verb does not fit the value.
fn bad_verb(out: &mut String, value: &Value, verb: char, spec: &Spec) {
    let _ = write!(out, "%!{verb}({}=", go_type(value));
    print_value(out, value, 'v', spec, 0);
    out.push(')');
}

/// Pads `text` to the width (counting characters), with zeros when asked and not left-aligned.
fn pad(out: &mut String, text: &str, spec: &Spec) {
    let width = spec.width.unwrap_or(0);
    let count = text.chars().count();
    if width <= count {
        out.push_str(text);
        return;
    }
    let fill = if spec.zero && !spec.minus { '0' } else { ' ' };
    let padding = std::iter::repeat_n(fill, width - count);
    if spec.minus {
        out.push_str(text);
        out.extend(padding);
    } else {
        out.extend(padding);
        out.push_str(text);
    }
}

fn pad_spaces(out: &mut String, text: &str, spec: &Spec) {
    pad(
        out,
        text,
        &Spec {
            zero: false,
            ..*spec
        },
    );
}

fn truncate(text: &str, spec: &Spec) -> String {
    match spec.precision {
        Some(p) => text.chars().take(p).collect(),
        None => text.to_owned(),
    }
}

fn fmt_s(out: &mut String, text: &str, spec: &Spec) {
    pad(out, &truncate(text, spec), spec);
}

fn fmt_string(out: &mut String, value: &Value, text: &str, verb: char, spec: &Spec) {
    match verb {
        'v' if spec.sharp_v => fmt_q(out, text, spec),
        'v' | 's' => fmt_s(out, text, spec),
        'q' => fmt_q(out, text, spec),
        'x' => fmt_hex_bytes(out, text.as_bytes(), false, spec),
        'X' => fmt_hex_bytes(out, text.as_bytes(), true, spec),
        _ => bad_verb(out, value, verb, spec),
    }
}

fn fmt_q(out: &mut String, text: &str, spec: &Spec) {
    let text = truncate(text, spec);
    if spec.sharp && can_backquote(&text) {
        pad(out, &format!("`{text}`"), spec);
    } else {
        pad(out, &go_quote(&text, spec.plus), spec);
    }
}

fn can_backquote(text: &str) -> bool {
    text.chars()
        .all(|c| !((c < ' ' && c != '\t') || c == '`' || c == '\u{7f}' || c == '\u{feff}'))
}

fn fmt_hex_bytes(out: &mut String, bytes: &[u8], upper: bool, spec: &Spec) {
    let length = spec.precision.map_or(bytes.len(), |p| p.min(bytes.len()));
    let mut text = String::new();
    let prefix = if upper { "0X" } else { "0x" };
    if spec.sharp {
        text.push_str(prefix);
    }
    for (i, b) in bytes[..length].iter().enumerate() {
        if spec.space && i > 0 {
            text.push(' ');
            if spec.sharp {
                text.push_str(prefix);
            }
        }
        if upper {
            let _ = write!(text, "{b:02X}");
        } else {
            let _ = write!(text, "{b:02x}");
        }
    }
    if length == 0 {
        text.clear();
    }
    pad_spaces(out, &text, spec);
}

fn fmt_integer(out: &mut String, value: &Value, n: i128, verb: char, spec: &Spec) {
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

fn fmt_float(out: &mut String, value: &Value, f: f64, verb: char, spec: &Spec) {
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

fn quote_rune(c: char, ascii_only: bool) -> String {
    let mut out = String::from('\'');
    push_escaped(&mut out, c, '\'', ascii_only);
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::sprintf;
    use crate::engine::functions::test_support::{err, ok, with_values};
    use crate::engine::gofmt::push_escaped;
    use minijinja::value::Value;

    proptest::proptest! {
        #[test]
        fn quoting_copies_plain_text_whole_and_escapes_the_rest_as_before(
            text in "[ -~\\t\\n\"\\\\\u{7f}\u{a0}\u{2028}\u{1F600}\u{200B}]{0,24}",
            ascii_only in proptest::bool::ANY,
        ) {
            let mut one_by_one = String::from('"');
            for c in text.chars() {
                push_escaped(&mut one_by_one, c, '"', ascii_only);
            }
            one_by_one.push('"');
            proptest::prop_assert_eq!(super::go_quote(&text, ascii_only), one_by_one);
        }
    }

    fn f(format: &str, args: &[Value]) -> String {
        sprintf(format, args).unwrap()
    }

    #[test]
    fn printf_handles_the_common_verbs() {
        assert_eq!(
            ok(r#"{{ printf("%s|%d|%v|%q|%t|%05.2f", "s", 5, [1, 2], "a\"b", true, 3.14159) }}"#),
            r#"s|5|[1 2]|"a\"b"|true|03.14"#
        );
    }

    #[test]
    fn printf_reports_a_wrong_verb_like_go() {
        assert_eq!(ok(r#"{{ printf("%d", "str") }}"#), "%!d(string=str)");
        assert_eq!(ok(r#"{{ printf("%s", 5) }}"#), "%!s(int=5)");
        assert_eq!(ok(r#"{{ printf("%d", 1.5) }}"#), "%!d(float64=1.5)");
        assert_eq!(ok(r#"{{ printf("%z", 1) }}"#), "%!z(int=1)");
    }

    #[test]
    fn printf_reports_missing_and_extra_arguments() {
        assert_eq!(ok(r#"{{ printf("%s %s", "a") }}"#), "a %!s(MISSING)");
        assert_eq!(
            ok(r#"{{ printf("%s", "a", "b", none) }}"#),
            "a%!(EXTRA string=b, <nil>)"
        );
    }

    #[test]
    fn printf_percent_and_noverb() {
        assert_eq!(
            ok(r#"{{ printf("100%") }} {{ printf("%%") }}"#),
            "100%!(NOVERB) %"
        );
    }

    #[test]
    fn printf_width_precision_and_alignment() {
        assert_eq!(
            ok(
                r#"[{{ printf("%6.2f|%-6s|%6s|%-5d|%.3d|%05s", 3.14159, "ab", "cd", 3, 7, "ab") }}]"#
            ),
            "[  3.14|ab    |    cd|3    |007|000ab]"
        );
    }

    #[test]
    fn printf_integer_bases() {
        assert_eq!(
            f(
                "%x %X %o %O %#o %b %#x %c %U %#U %q",
                &[255, -255, 8, 8, 8, 5, 255, 65, 65, 65, 65].map(Value::from)
            ),
            "ff -FF 10 0o10 010 101 0xff A U+0041 U+0041 'A' 'A'"
        );
    }

    #[test]
    fn printf_float_forms() {
        assert_eq!(
            f(
                "%e|%E|%g|%G|%.3g|%8.3e|%+.2f|%v|%g",
                &[1234.5678, 0.000012, 1e21, 1e-7, 1234.5678, 1234.5678, 2.5, 1234567.0, 100000.0]
                    .map(Value::from)
            ),
            "1.234568e+03|1.200000E-05|1e+21|1E-07|1.23e+03|1.235e+03|+2.50|1.234567e+06|100000"
        );
    }

    #[test]
    fn printf_g_with_precision_uses_plain_form_for_small_exponents() {
        assert_eq!(
            f("%.3g %.10g %.2g", &[1.5, 123.0, 0.0].map(Value::from)),
            "1.5 123 0"
        );
    }

    #[test]
    fn printf_prints_integers_under_float_verbs() {
        assert_eq!(
            f("%.1f %g", &[Value::from(3), Value::from(12345678)]),
            "3.0 1.2345678e+07"
        );
    }

    #[test]
    fn printf_hex_of_a_string() {
        assert_eq!(
            f("%x %X % x", &["hi", "hi", "hi"].map(Value::from)),
            "6869 6869 68 69"
        );
    }

    #[test]
    fn printf_types() {
        assert_eq!(
            ok(r#"{{ printf("%T %T %T %T %T %T", 1, 1.5, "s", true, [1], {"a": 1}) }}"#),
            "int float64 string bool []interface {} map[string]interface {}"
        );
    }

    #[test]
    fn printf_lists_apply_the_verb_to_each_item() {
        assert_eq!(
            ok(r#"{{ printf("%s", ["a", 1, none]) }}"#),
            "[a %!s(int=1) <nil>]"
        );
        assert_eq!(
            ok(r#"{{ printf("%v", {"b": 1, "a": none}) }}"#),
            "map[a:<nil> b:1]"
        );
    }

    #[test]
    fn printf_nil_prints_nil_only_for_v() {
        assert_eq!(
            with_values(
                r#"{{ printf("%v %v %d", none, Values.missing, none) }}"#,
                "{}"
            )
            .unwrap(),
            "<nil> <nil> %!d(<nil>)"
        );
    }

    #[test]
    fn printf_quotes_strings_go_style() {
        assert_eq!(
            f(
                "%q %+q %#q %.1q",
                &["é\n", "é", "a`b", "hello"].map(Value::from)
            ),
            r#""é\n" "\u00e9" "a`b" "h""#
        );
    }

    #[test]
    fn printf_star_width_and_argument_indexes() {
        assert_eq!(
            f("[%*d] %[2]s %[1]s", &[Value::from(3), Value::from(7)]),
            "[  7] %!s(int=7) %!s(int=3)"
        );
        assert_eq!(f("%[3]d", &[Value::from(1)]), "%!d(BADINDEX)");
    }

    #[test]
    fn printf_a_huge_width_is_not_a_number() {
        assert_eq!(
            f("%99999999d", &[Value::from(1)]),
            "%!(NOVERB)%!(EXTRA int=1)"
        );
    }

    #[test]
    fn printf_matches_helm_on_a_recorded_table() {
        // Format, arguments (JSON: integers are Go ints, fractions float64) and Helm 3.17.1's output.
        let table: Vec<(String, Vec<serde_json::Value>, String)> = serde_json::from_str(
            include_str!("../../../../../tests/helm_corpus/printf_helm.json"),
        )
        .unwrap();
        let wrong: Vec<String> = table
            .iter()
            .filter_map(|(format, args, want)| {
                let args: Vec<Value> = args.iter().map(json).collect();
                let got = sprintf(format, &args).unwrap();
                (got != *want)
                    .then(|| format!("{format:?} {args:?}\n  Helm: {want:?}\n  ours: {got:?}"))
            })
            .collect();
        assert!(
            wrong.is_empty(),
            "{} differences:\n{}",
            wrong.len(),
            wrong.join("\n")
        );
    }

    fn json(v: &serde_json::Value) -> Value {
        match v {
            serde_json::Value::Null => Value::from(()),
            serde_json::Value::Bool(b) => Value::from(*b),
            serde_json::Value::Number(n) if n.is_i64() => Value::from(n.as_i64().unwrap()),
            serde_json::Value::Number(n) => Value::from(n.as_f64().unwrap()),
            serde_json::Value::String(s) => Value::from(s.as_str()),
            serde_json::Value::Array(a) => Value::from(a.iter().map(json).collect::<Vec<_>>()),
            serde_json::Value::Object(o) => {
                Value::from_pairs(o.iter().map(|(k, v)| (k.as_str(), json(v))))
            }
        }
    }

    #[test]
    fn printf_refuses_output_above_ten_mebibytes() {
        let message = err(r#"{{ printf("%9000000d%9000000d", 1, 2) }}"#);
        assert!(message.contains("10 MiB"), "{message}");
    }

    #[test]
    fn printf_as_a_filter_takes_the_piped_value_last() {
        assert_eq!(ok(r#"{{ "b" | printf("%s-%s", "a") }}"#), "a-b");
    }
}
