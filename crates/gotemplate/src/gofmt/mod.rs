//! Go's `fmt` for template values: `%v` printing, `print`/`println` spacing, and `printf`.
//!
//! Written from Go's `fmt` and `strconv` documentation and from what Helm 3.17.1 printed for
//! the recorded cases (`tests/cases/print_*`, `printf_*`). Byte parity matters here more than
//! anywhere: every number in a values file is a float64, so `1000000` prints as `1e+06`.

mod float;
mod quote;
mod verbs;

use crate::value::Value;
use float::{push_float, sharp_float};
pub(crate) use quote::is_print;
pub use quote::quote;
use quote::quote_rune;
use verbs::*;

/// Writes `v` as Go's `%v` (`fmt.Sprint` of one operand) would.
pub(crate) fn write_value(out: &mut String, v: &Value) {
    write_verb(out, v, &Spec::plain('v'));
}

/// Go's `fmt.Sprint`: operands printed with `%v`, with a space between two operands when
/// neither is a string.
pub fn sprint(args: &[Value]) -> String {
    let mut out = String::new();
    for (i, a) in args.iter().enumerate() {
        let is_string = matches!(a, Value::String(_));
        if i > 0 && !is_string && !matches!(args[i - 1], Value::String(_)) {
            out.push(' ');
        }
        write_value(&mut out, a);
    }
    out
}

/// Go's `fmt.Sprintln`: operands printed with `%v`, always separated by spaces, then a newline.
pub fn sprintln(args: &[Value]) -> String {
    let mut out = String::new();
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        write_value(&mut out, a);
    }
    out.push('\n');
    out
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)`, the `%v` of a float64 (`1e+06`, `0.0001`).
pub fn format_float_v(f: f64) -> String {
    let mut s = String::new();
    write_float(&mut s, f, 'g', None, &Spec::plain('v'));
    s
}

/// One conversion's flags, width, precision and verb.
#[derive(Clone, Debug, Default)]
struct Spec {
    verb: char,
    plus: bool,
    minus: bool,
    sharp: bool,
    space: bool,
    zero: bool,
    /// `%#v`: Go syntax (the `#` flag means something else for other verbs).
    sharp_v: bool,
    width: Option<usize>,
    prec: Option<usize>,
}

impl Spec {
    fn plain(verb: char) -> Spec {
        Spec {
            verb,
            ..Spec::default()
        }
    }
}

/// Go's `fmt.Sprintf` over template values.
pub fn sprintf(format: &str, args: &[Value]) -> String {
    let mut out = String::new();
    let mut argn = 0usize;
    let mut reordered = false;
    let mut chars = format.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = Spec::default();
        // Flags.
        while let Some(&(_, f)) = chars.peek() {
            match f {
                '+' => spec.plus = true,
                '-' => spec.minus = true,
                '#' => spec.sharp = true,
                ' ' => spec.space = true,
                '0' => spec.zero = true,
                _ => break,
            }
            chars.next();
        }
        // An explicit argument index, `%[2]d`.
        let take_index = |chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>,
                          argn: &mut usize,
                          reordered: &mut bool| {
            if chars.peek().map(|&(_, c)| c) == Some('[') {
                chars.next();
                let mut n = 0usize;
                let mut ok = false;
                while let Some(&(_, d)) = chars.peek() {
                    if let Some(v) = d.to_digit(10) {
                        n = n.saturating_mul(10).saturating_add(v as usize);
                        ok = true;
                        chars.next();
                    } else {
                        break;
                    }
                }
                if chars.peek().map(|&(_, c)| c) == Some(']') && ok && n >= 1 {
                    chars.next();
                    *argn = n - 1;
                    *reordered = true;
                }
            }
        };
        take_index(&mut chars, &mut argn, &mut reordered);
        // Width.
        if chars.peek().map(|&(_, c)| c) == Some('*') {
            chars.next();
            match int_operand(args, argn) {
                Some(w) => {
                    if w < 0 {
                        spec.minus = true;
                    }
                    spec.width = Some(w.unsigned_abs() as usize);
                }
                None => out.push_str("%!(BADWIDTH)"),
            }
            if argn < args.len() {
                argn += 1;
            }
        } else {
            match read_number(&mut chars) {
                Ok(w) => spec.width = w,
                Err(()) => {
                    out.push_str("%!(NOVERB)");
                    break;
                }
            }
        }
        // Precision.
        if chars.peek().map(|&(_, c)| c) == Some('.') {
            chars.next();
            take_index(&mut chars, &mut argn, &mut reordered);
            if chars.peek().map(|&(_, c)| c) == Some('*') {
                chars.next();
                match int_operand(args, argn) {
                    Some(p) if p >= 0 => spec.prec = Some(p as usize),
                    _ => out.push_str("%!(BADPREC)"),
                }
                if argn < args.len() {
                    argn += 1;
                }
            } else {
                match read_number(&mut chars) {
                    Ok(p) => spec.prec = Some(p.unwrap_or(0)),
                    Err(()) => {
                        out.push_str("%!(NOVERB)");
                        break;
                    }
                }
            }
        }
        take_index(&mut chars, &mut argn, &mut reordered);
        let Some((_, verb)) = chars.next() else {
            out.push_str("%!(NOVERB)");
            break;
        };
        spec.verb = verb;
        if spec.minus {
            spec.zero = false;
        }
        // `%+v` asks for struct field names, not signs (our values have no fields to name);
        // `%#v` asks for Go syntax. Both flags mean other things to other verbs, and keep
        // those meanings when a value does not fit its verb and is printed with `%v`.
        if verb == 'v' {
            spec.plus = false;
            if spec.sharp {
                spec.sharp = false;
                spec.sharp_v = true;
            }
        }
        if verb == '%' {
            out.push('%');
            continue;
        }
        match args.get(argn) {
            None => {
                out.push_str("%!");
                out.push(verb);
                out.push_str("(MISSING)");
            }
            Some(a) => {
                write_verb(&mut out, a, &spec);
                argn += 1;
            }
        }
    }
    if !reordered && argn < args.len() {
        out.push_str("%!(EXTRA ");
        for (i, a) in args[argn..].iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            if a.is_nil() {
                out.push_str("<nil>");
            } else {
                out.push_str(a.type_name());
                out.push('=');
                write_value(&mut out, a);
            }
        }
        out.push(')');
    }
    out
}

/// Go's bound on widths and precisions.
const TOO_LARGE: usize = 1_000_000;

/// A written width or precision. Go checks the bound before taking each digit, so a number
/// that grows past a million while being read is refused and the rest of the format is
/// swallowed (`Err`), which then prints `%!(NOVERB)`.
fn read_number(
    chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>,
) -> Result<Option<usize>, ()> {
    let mut n: Option<usize> = None;
    while let Some(&(_, d)) = chars.peek() {
        match d.to_digit(10) {
            Some(v) => {
                if n.unwrap_or(0) > TOO_LARGE {
                    chars.by_ref().for_each(drop);
                    return Err(());
                }
                n = Some(n.unwrap_or(0) * 10 + v as usize);
                chars.next();
            }
            None => break,
        }
    }
    Ok(n)
}

/// A `*` width or precision: an integer operand within Go's bound.
fn int_operand(args: &[Value], argn: usize) -> Option<i64> {
    args.get(argn)
        .and_then(Value::as_int)
        .filter(|i| i.unsigned_abs() <= TOO_LARGE as u64)
}

#[cfg(test)]
mod tests;
