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

mod numbers;

use numbers::{fmt_float, fmt_integer};

use super::args::{go_type, Args};
use crate::engine::gofmt::{go_quote, is_plain_object, push_escaped, write_list, write_map};
use crate::limits::MAX_STRING_BYTES;
use minijinja::value::{Value, ValueKind};
use minijinja::Error;
use std::fmt::Write as _;

/// `printf(format, value...)`: Go's `Sprintf`.
///
/// ```jinja
/// image: {{ printf("%s:%s", Values.image.name, Values.image.tag) }}
/// ```
/// Fails only when the format is not a string or the result would pass 10 MiB.
pub(super) fn printf(args: &Args) -> Result<Value, Error> {
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

fn quote_rune(c: char, ascii_only: bool) -> String {
    let mut out = String::from('\'');
    push_escaped(&mut out, c, '\'', ascii_only);
    out.push('\'');
    out
}

#[cfg(test)]
mod tests;
