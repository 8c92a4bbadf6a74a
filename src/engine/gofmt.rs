//! How Go's templates print values (`{{ v }}`, `toString`, `%v`), so output reads as Helm's does.

use crate::values::format_go_float;
use minijinja::value::{Value, ValueKind};
use std::fmt::Write as _;

/// Appends `value` as Go's `%v` prints it at the top level: nil prints nothing.
pub fn write_display(out: &mut String, value: &Value) {
    match value.kind() {
        ValueKind::Undefined | ValueKind::None => {}
        _ => write_nested(out, value),
    }
}

/// `value` as Go's `%v` prints it at the top level.
pub fn display(value: &Value) -> String {
    let mut out = String::new();
    write_display(&mut out, value);
    out
}

/// Go `%v` inside a list or map: nil is `<nil>`, lists `[a b]`, maps `map[k:v]`.
pub fn write_nested(out: &mut String, value: &Value) {
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
        ValueKind::Seq | ValueKind::Iterable => {
            out.push('[');
            if let Ok(items) = value.try_iter() {
                for (i, item) in items.enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    write_nested(out, &item);
                }
            }
            out.push(']');
        }
        ValueKind::Map
            if value
                .as_object()
                .is_some_and(|o| o.repr() == minijinja::value::ObjectRepr::Plain) =>
        {
            let _ = write!(out, "{value}");
        }
        ValueKind::Map => {
            out.push_str("map[");
            if let Ok(keys) = value.try_iter() {
                for (i, key) in keys.enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    write_nested(out, &key);
                    out.push(':');
                    write_nested(out, &value.get_item(&key).unwrap_or_default());
                }
            }
            out.push(']');
        }
        _ => {
            let _ = write!(out, "{value}");
        }
    }
}
