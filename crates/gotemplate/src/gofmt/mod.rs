//! Go's `fmt` for template values: `%v` printing, `print`/`println` spacing, and `printf`.
//!
//! Written from Go's `fmt` and `strconv` documentation and from what Helm 3.17.1 printed for
//! the recorded cases (`tests/cases/print_*`, `printf_*`). Byte parity matters here more than
//! anywhere: every number in a values file is a float64, so `1000000` prints as `1e+06`.

mod float;
mod quote;

use crate::value::Value;
use float::{push_float, sharp_float};
pub(crate) use quote::is_print;
pub use quote::quote;
use quote::quote_rune;

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

/// Formats one operand with one verb, containers element by element as Go's `fmt` does.
fn write_verb(out: &mut String, v: &Value, spec: &Spec) {
    if spec.verb == 'v' && spec.sharp_v {
        let mut s = String::new();
        write_go_syntax(&mut s, v);
        return pad(out, &s, spec);
    }
    if spec.verb == 'T' {
        if v.is_nil() {
            return pad(out, "<nil>", spec);
        }
        // The type's name is printed as a string: precision cuts it, zeros may pad it.
        let name: String = match spec.prec {
            Some(p) => v.type_name().chars().take(p).collect(),
            None => v.type_name().to_string(),
        };
        return pad(out, &name, spec);
    }
    match v {
        Value::Null => match spec.verb {
            'v' => pad(out, "<nil>", spec),
            verb => {
                out.push_str("%!");
                out.push(verb);
                out.push_str("(<nil>)");
            }
        },
        Value::Bool(b) => match spec.verb {
            'v' | 't' => pad(out, if *b { "true" } else { "false" }, spec),
            _ => bad_verb(out, v, spec),
        },
        Value::Int(i) | Value::Int64(i) => write_int(out, *i, v, spec),
        Value::Float(f) => match spec.verb {
            'v' => write_float(out, *f, 'g', spec.prec, spec),
            'g' | 'G' | 'x' | 'X' | 'b' => write_float(out, *f, spec.verb, spec.prec, spec),
            'e' | 'E' | 'f' | 'F' => {
                write_float(out, *f, spec.verb, Some(spec.prec.unwrap_or(6)), spec)
            }
            _ => bad_verb(out, v, spec),
        },
        Value::String(s) => write_string(out, s, v, spec),
        Value::Seq(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_verb(out, item, spec);
            }
            out.push(']');
        }
        Value::Map(_) => write_map(out, v, spec),
        Value::Object(o) if o.as_map().is_some() => write_map(out, v, spec),
        Value::Object(o) => match spec.verb {
            'v' | 's' => {
                let mut s = String::new();
                o.format(&mut s);
                pad(out, &s, spec);
            }
            _ => bad_verb(out, v, spec),
        },
    }
}

/// A map (or a named map type) element by element, keys in order.
fn write_map(out: &mut String, v: &Value, spec: &Spec) {
    out.push_str("map[");
    if let Some(m) = v.as_map() {
        for (i, (k, item)) in m.borrow().iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            write_verb(out, &Value::str(k), spec);
            out.push(':');
            write_verb(out, item, spec);
        }
    }
    out.push(']');
}

/// Go's `%#v`: the value as Go source (`[]interface {}{"a", 1}`).
fn write_go_syntax(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("<nil>"),
        Value::String(s) => out.push_str(&quote(s, false)),
        Value::Seq(items) => {
            out.push_str("[]interface {}{");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_go_syntax(out, item);
            }
            out.push('}');
        }
        Value::Map(_) | Value::Object(_) if v.as_map().is_some() => {
            // Go writes the type, then the entries: `map[string]interface {}{"a":1}`.
            out.push_str(v.type_name());
            out.push('{');
            if let Some(m) = v.as_map() {
                for (i, (k, item)) in m.borrow().iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(&quote(k, false));
                    out.push(':');
                    write_go_syntax(out, item);
                }
            }
            out.push('}');
        }
        other => write_value(out, other),
    }
}

/// Go's `%!verb(type=value)` for an operand the verb does not fit; the value is printed
/// with `%v` under the conversion's own flags, width and precision.
fn bad_verb(out: &mut String, v: &Value, spec: &Spec) {
    out.push_str("%!");
    out.push(spec.verb);
    out.push('(');
    out.push_str(v.type_name());
    out.push('=');
    let as_v = Spec {
        verb: 'v',
        sharp_v: false,
        ..spec.clone()
    };
    write_verb(out, v, &as_v);
    out.push(')');
}

/// Pads to the width with spaces (or zeros when asked), counting runes as Go does.
fn pad(out: &mut String, s: &str, spec: &Spec) {
    // Most printing has no width: skip counting characters then.
    let Some(w) = spec.width else {
        out.push_str(s);
        return;
    };
    let n = s.chars().count();
    if n >= w {
        out.push_str(s);
        return;
    }
    let fill = if spec.zero { '0' } else { ' ' };
    if spec.minus {
        out.push_str(s);
        out.extend(std::iter::repeat_n(' ', w - n));
    } else {
        out.extend(std::iter::repeat_n(fill, w - n));
        out.push_str(s);
    }
}

fn write_string(out: &mut String, s: &str, v: &Value, spec: &Spec) {
    match spec.verb {
        'v' | 's' => match spec.prec {
            Some(p) => pad(out, &s.chars().take(p).collect::<String>(), spec),
            None => pad(out, s, spec),
        },
        'q' => {
            let s: String = match spec.prec {
                Some(p) => s.chars().take(p).collect(),
                None => s.to_string(),
            };
            let q = if spec.sharp && !s.contains('`') {
                format!("`{s}`")
            } else {
                quote(&s, spec.plus)
            };
            pad(out, &q, spec)
        }
        'x' | 'X' => {
            let bytes = s.as_bytes();
            let bytes = match spec.prec {
                Some(p) if p < bytes.len() => &bytes[..p],
                _ => bytes,
            };
            let mut h = String::new();
            for (i, b) in bytes.iter().enumerate() {
                if spec.space && i > 0 {
                    h.push(' ');
                }
                if spec.sharp && (spec.space || i == 0) {
                    h.push_str(if spec.verb == 'x' { "0x" } else { "0X" });
                }
                if spec.verb == 'x' {
                    h.push_str(&format!("{b:02x}"));
                } else {
                    h.push_str(&format!("{b:02X}"));
                }
            }
            pad(out, &h, spec)
        }
        _ => bad_verb(out, v, spec),
    }
}

fn write_int(out: &mut String, i: i64, v: &Value, spec: &Spec) {
    let neg = i < 0;
    let u = i.unsigned_abs();
    let mut digits = match spec.verb {
        'v' | 'd' => u.to_string(),
        'b' => format!("{u:b}"),
        'o' | 'O' => format!("{u:o}"),
        'x' => format!("{u:x}"),
        'X' => format!("{u:X}"),
        'c' => {
            let c = char::from_u32(i as u32).unwrap_or('\u{FFFD}');
            return pad(out, &c.to_string(), spec);
        }
        'q' => {
            let c = char::from_u32(i as u32).unwrap_or('\u{FFFD}');
            return pad(out, &quote_rune(c, spec.plus), spec);
        }
        'U' => {
            // At least four hex digits, more if the precision asks; Go takes the value as
            // unsigned, so -7 is U+FFFFFFFFFFFFFFF9.
            let p = spec.prec.filter(|&p| p > 4).unwrap_or(4);
            let bits = i as u64;
            let mut s = format!("U+{bits:0p$X}");
            if spec.sharp {
                if let Some(c) = char::from_u32(i as u32).filter(|&c| is_print(c)) {
                    s.push_str(&format!(" '{c}'"));
                }
            }
            let plain = Spec {
                zero: false,
                ..spec.clone()
            };
            return pad(out, &s, &plain);
        }
        _ => return bad_verb(out, v, spec),
    };
    // Go zero-pads through the precision: an explicit one is a minimum number of digits
    // (`%.0d` of zero prints only padding); the zero flag with a width makes the width the
    // precision, less room for a sign. Prefixes come after, so `%#08x` is ten characters.
    let w = spec.width.unwrap_or(0);
    let prec = match spec.prec {
        Some(0) if u == 0 => {
            out.extend(std::iter::repeat_n(' ', w));
            return;
        }
        Some(p) => p,
        None if spec.zero && spec.width.is_some() => {
            if neg || spec.plus || spec.space {
                w.saturating_sub(1)
            } else {
                w
            }
        }
        None => 0,
    };
    while digits.len() < prec {
        digits.insert(0, '0');
    }
    let mut prefix = String::new();
    if spec.sharp {
        match spec.verb {
            'b' => prefix.push_str("0b"),
            'o' | 'O' if !digits.starts_with('0') => prefix.push('0'),
            'x' => prefix.push_str("0x"),
            'X' => prefix.push_str("0X"),
            _ => {}
        }
    }
    if spec.verb == 'O' {
        prefix.insert_str(0, "0o");
    }
    let sign = if neg {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    };
    let plain = Spec {
        zero: false,
        ..spec.clone()
    };
    pad(out, &format!("{sign}{prefix}{digits}"), &plain);
}

fn write_float(out: &mut String, f: f64, verb: char, prec: Option<usize>, spec: &Spec) {
    let mut num = String::new();
    push_float(&mut num, f.abs(), verb, prec);
    if spec.sharp && verb != 'b' && f.is_finite() {
        num = sharp_float(&num, verb, prec);
    }
    if f.is_nan() {
        let s = if spec.plus {
            "+NaN"
        } else if spec.space {
            " NaN"
        } else {
            "NaN"
        };
        let plain = Spec {
            zero: false,
            ..spec.clone()
        };
        return pad(out, s, &plain);
    }
    let negative = f.is_sign_negative();
    let sign = if negative {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    };
    if f.is_infinite() {
        let s = format!(
            "{}Inf",
            if negative {
                "-"
            } else if spec.space && !spec.plus {
                " "
            } else {
                "+"
            }
        );
        let plain = Spec {
            zero: false,
            ..spec.clone()
        };
        return pad(out, &s, &plain);
    }
    let w = spec.width.unwrap_or(0);
    if spec.zero && !spec.minus && sign.len() + num.len() < w {
        out.push_str(sign);
        out.extend(std::iter::repeat_n('0', w - sign.len() - num.len()));
        out.push_str(&num);
    } else {
        pad(out, &format!("{sign}{num}"), spec);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(f: f64) -> String {
        format_float_v(f)
    }

    #[test]
    fn float_v_uses_exponent_from_one_million() {
        assert_eq!(v(1e6), "1e+06");
        assert_eq!(v(999999.0), "999999");
        assert_eq!(v(1234567.5), "1.2345675e+06");
        assert_eq!(v(123456.7), "123456.7");
    }

    #[test]
    fn float_v_uses_exponent_below_one_ten_thousandth() {
        assert_eq!(v(0.0001), "0.0001");
        assert_eq!(v(0.00001), "1e-05");
        assert_eq!(v(1.25e-7), "1.25e-07");
    }

    #[test]
    fn float_v_prints_integral_values_without_point() {
        assert_eq!(v(42.0), "42");
        assert_eq!(v(0.0), "0");
        assert_eq!(v(-2.5), "-2.5");
        assert_eq!(v(1.2345678901234567e19), "1.2345678901234567e+19");
    }

    #[test]
    fn sprint_spaces_only_between_non_strings() {
        let args = [
            Value::str("a"),
            Value::Int(1),
            Value::Int(2),
            Value::str("b"),
        ];
        assert_eq!(sprint(&args), "a1 2b");
    }

    #[test]
    fn printf_reports_wrong_missing_and_extra_operands() {
        assert_eq!(sprintf("%d", &[Value::str("x")]), "%!d(string=x)");
        assert_eq!(sprintf("%s %s", &[Value::str("a")]), "a %!s(MISSING)");
        assert_eq!(
            sprintf("%s", &[Value::str("a"), Value::Int(3)]),
            "a%!(EXTRA int=3)"
        );
    }

    #[test]
    fn printf_float_verbs() {
        let f = [Value::Float(1234567.5)];
        assert_eq!(sprintf("%f", &f), "1234567.500000");
        assert_eq!(sprintf("%e", &f), "1.234568e+06");
        assert_eq!(sprintf("%.2e", &f), "1.23e+06");
        assert_eq!(sprintf("%g", &f), "1.2345675e+06");
        assert_eq!(sprintf("%.3g", &[Value::Float(1.23456)]), "1.23");
        assert_eq!(
            sprintf("%8.3f|%-8.2f|", &[Value::Float(1.23456), Value::Float(2.5)]),
            "   1.235|2.50    |"
        );
    }

    #[test]
    fn printf_integer_flags() {
        let args = [Value::Int(42), Value::Int(255), Value::Int(7)];
        assert_eq!(sprintf("%05d %#x %+d", &args), "00042 0xff +7");
        assert_eq!(sprintf("%x", &[Value::Int(-255)]), "-ff");
    }

    #[test]
    fn a_written_width_is_refused_only_once_it_grew_past_a_million() {
        // Go checks the bound before taking each digit: 1000001 passes, 100000001 does not.
        assert_eq!(sprintf("%1000001d", &[Value::Int(5)]).len(), 1000001);
        assert_eq!(
            sprintf("[%100000001d]x", &[Value::Int(5)]),
            "[%!(NOVERB)%!(EXTRA int=5)"
        );
    }

    #[test]
    fn quote_escapes_like_strconv() {
        assert_eq!(quote("héllo\n\t\"", false), "\"héllo\\n\\t\\\"\"");
        assert_eq!(quote("\u{1}\u{2028}", false), "\"\\x01\\u2028\"");
    }
}
