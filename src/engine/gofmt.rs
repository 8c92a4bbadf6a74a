//! How Go's templates print values (`{{ v }}`, `toString`, `%v`), so output reads as Helm's does.

use super::functions::MAX_STRING_BYTES;
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
pub fn write_list(out: &mut String, value: &Value, mut item: impl FnMut(&mut String, &Value)) {
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
pub fn write_map(out: &mut String, value: &Value, mut item: impl FnMut(&mut String, &Value)) {
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
pub fn is_plain_object(value: &Value) -> bool {
    value
        .as_object()
        .is_some_and(|o| o.repr() == minijinja::value::ObjectRepr::Plain)
}
