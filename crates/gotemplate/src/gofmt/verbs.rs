//! Writing one operand under its verb: strings, integers, floats, maps and Go syntax, padded
//! and flagged as Go's fmt does.

use super::*;

/// Formats one operand with one verb, containers element by element as Go's `fmt` does.
pub(super) fn write_verb(out: &mut String, v: &Value, spec: &Spec) {
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
pub(super) fn write_map(out: &mut String, v: &Value, spec: &Spec) {
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
pub(super) fn write_go_syntax(out: &mut String, v: &Value) {
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
pub(super) fn bad_verb(out: &mut String, v: &Value, spec: &Spec) {
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
pub(super) fn pad(out: &mut String, s: &str, spec: &Spec) {
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

pub(super) fn write_string(out: &mut String, s: &str, v: &Value, spec: &Spec) {
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

pub(super) fn write_int(out: &mut String, i: i64, v: &Value, spec: &Spec) {
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

pub(super) fn write_float(out: &mut String, f: f64, verb: char, prec: Option<usize>, spec: &Spec) {
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
