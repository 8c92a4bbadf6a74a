//! Writes [`Value`]s as JSON text the way Helm's `toJson` and `toPrettyJson` do, which is Go's
//! `encoding/json`: keys in byte order, `<`, `>`, `&`, U+2028 and U+2029 escaped as `\u` codes,
//! control characters as `\n`, `\r`, `\t`, `\b`, `\f` or `\u00XX`, floats as Go prints them.

use crate::number::{format_go_float, format_json_float};
use crate::value::Value;
use std::fmt::Write as _;

/// Where JSON text nests deeper than [`crate::MAX_NESTING`] levels: the 1-based line and
/// column of the first `[` or `{` past it. Checked before [`json_deserializer`] reads the text.
pub fn json_too_deep(text: &str) -> Option<(usize, usize)> {
    let (mut depth, mut line, mut line_start) = (0usize, 1, 0);
    for (i, c) in outside_strings(text) {
        match c {
            '[' | '{' => {
                depth += 1;
                if depth > crate::MAX_NESTING {
                    return Some((line, text[line_start..i].chars().count() + 1));
                }
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            '\n' => (line, line_start) = (line + 1, i + 1),
            _ => {}
        }
    }
    None
}

/// The characters of JSON text outside its strings, with their byte indices: the quotes and
/// what they enclose (escapes included) are left out, so brackets seen are structure.
pub fn outside_strings(text: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let (mut in_string, mut escaped) = (false, false);
    text.char_indices().filter(move |&(_, c)| {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            return false;
        }
        in_string = c == '"';
        !in_string
    })
}

/// The message for JSON nested past the limit.
pub fn json_too_deep_message() -> String {
    format!("nesting deeper than {} levels", crate::MAX_NESTING)
}

/// A reader of JSON text without serde_json's own limit of 128 levels: what kubectl reads, up
/// to [`crate::MAX_NESTING`], which the caller checks first with [`json_too_deep`].
pub fn json_deserializer(text: &str) -> serde_json::Deserializer<serde_json::de::StrRead<'_>> {
    let mut reader = serde_json::Deserializer::from_str(text);
    reader.disable_recursion_limit();
    reader
}

/// A value JSON cannot hold: NaN or an infinity. Helm's `toJson` and `toYaml` print nothing then.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error("json: unsupported value: {}", format_go_float(*.0))]
pub struct UnsupportedValue(pub f64);

/// Helm's `toJson`: compact JSON, or the empty string if the value holds NaN or an infinity.
pub fn to_json(value: &Value) -> String {
    try_to_json(value).unwrap_or_default()
}

/// Helm's `toPrettyJson` (`json.MarshalIndent(v, "", "  ")`), or the empty string if the value
/// holds NaN or an infinity.
pub fn to_pretty_json(value: &Value) -> String {
    try_to_pretty_json(value).unwrap_or_default()
}

/// Compact JSON, or the float that JSON cannot hold.
pub fn try_to_json(value: &Value) -> Result<String, UnsupportedValue> {
    let mut out = String::new();
    write_value(&mut out, value, None, true)?;
    Ok(out)
}

/// Sprig's `toRawJson`: compact JSON with `<`, `>` and `&` left as they are (Go's encoder with
/// `SetEscapeHTML(false)`), or the float that JSON cannot hold.
pub fn try_to_raw_json(value: &Value) -> Result<String, UnsupportedValue> {
    let mut out = String::new();
    write_value(&mut out, value, None, false)?;
    Ok(out)
}

/// JSON indented by two spaces per level, or the float that JSON cannot hold.
pub fn try_to_pretty_json(value: &Value) -> Result<String, UnsupportedValue> {
    let mut out = String::new();
    write_value(&mut out, value, Some(0), true)?;
    Ok(out)
}

/// Writes `value`; `depth` is `None` for compact output, else the current nesting level; `html`
/// escapes `<`, `>` and `&`.
fn write_value(
    out: &mut String,
    value: &Value,
    depth: Option<usize>,
    html: bool,
) -> Result<(), UnsupportedValue> {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(f) => {
            if !f.is_finite() {
                return Err(UnsupportedValue(*f));
            }
            out.push_str(&format_json_float(*f));
        }
        // JSON has no `+` sign and no `_` between digits.
        Value::Number(text) => out.extend(
            text.strip_prefix('+')
                .unwrap_or(text)
                .chars()
                .filter(|&c| c != '_'),
        ),
        Value::String(s) => write_string_with(out, s, html),
        Value::Seq(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return Ok(());
            }
            out.push('[');
            let inner = depth.map(|d| d + 1);
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                newline(out, inner);
                write_value(out, item, inner, html)?;
            }
            newline(out, depth);
            out.push(']');
        }
        Value::Map(map) => {
            if map.is_empty() {
                out.push_str("{}");
                return Ok(());
            }
            out.push('{');
            let inner = depth.map(|d| d + 1);
            for (n, (key, item)) in map.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                newline(out, inner);
                write_string_with(out, key, html);
                out.push(':');
                if depth.is_some() {
                    out.push(' ');
                }
                write_value(out, item, inner, html)?;
            }
            newline(out, depth);
            out.push('}');
        }
    }
    Ok(())
}

/// In indented output, a line break and two spaces per level.
fn newline(out: &mut String, depth: Option<usize>) {
    if let Some(depth) = depth {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    }
}

/// Writes `s` as a JSON string; `html` escapes `<`, `>` and `&` as Go does by default.
fn write_string_with(out: &mut String, s: &str, html: bool) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        // (bytes replaced, replacement); an empty replacement means `\u00XX`.
        let (len, escaped) = match b {
            b'"' => (1, "\\\""),
            b'\\' => (1, "\\\\"),
            b'\n' => (1, "\\n"),
            b'\r' => (1, "\\r"),
            b'\t' => (1, "\\t"),
            0x08 => (1, "\\b"),
            0x0c => (1, "\\f"),
            0x00..=0x1f => (1, ""),
            b'<' | b'>' | b'&' if html => (1, ""),
            // U+2028 and U+2029 end lines in JavaScript.
            0xE2 if bytes[i + 1..].starts_with(&[0x80, 0xA8]) => (3, "\\u2028"),
            0xE2 if bytes[i + 1..].starts_with(&[0x80, 0xA9]) => (3, "\\u2029"),
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if escaped.is_empty() {
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xF)]));
        } else {
            out.push_str(escaped);
        }
        start = i + len;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Map;

    fn map(entries: &[(&str, Value)]) -> Value {
        Value::Map(
            entries
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect::<Map>(),
        )
    }

    #[test]
    fn keys_come_out_in_byte_order() {
        let v = map(&[
            ("b", Value::Int(1)),
            ("a", Value::Int(2)),
            ("B", Value::Int(3)),
        ]);
        assert_eq!(to_json(&v), r#"{"B":3,"a":2,"b":1}"#);
    }

    #[test]
    fn html_characters_are_escaped_but_apostrophes_are_not() {
        // functions corpus: toJson of "<a href='x'>&</a>"
        let v = Value::from("<a href='x'>&</a>");
        assert_eq!(
            to_json(&v),
            r#""\u003ca href='x'\u003e\u0026\u003c/a\u003e""#
        );
    }

    #[test]
    fn control_characters_and_line_separators_are_escaped() {
        // functions corpus: toJson of a string with a tab, newline, non-ASCII, U+2028, U+0001
        let v = Value::from("tab\t nl\n uni é 😀 ls\u{2028} ctl\u{1} quote\" bs\\");
        assert_eq!(
            to_json(&v),
            "\"tab\\t nl\\n uni é 😀 ls\\u2028 ctl\\u0001 quote\\\" bs\\\\\""
        );
    }

    #[test]
    fn backspace_and_form_feed_use_short_escapes_as_go_1_22_does() {
        let v = Value::from("\u{8}\u{c}\r\u{1b}\u{7f}\u{2029}");
        assert_eq!(to_json(&v), "\"\\b\\f\\r\\u001b\u{7f}\\u2029\"");
    }

    #[test]
    fn numbers_print_as_go_encoding_json_does() {
        // functions corpus: toJson .Values with file numbers (float64 in Helm)
        let v = map(&[
            ("i", Value::Float(1.0)),
            ("f", Value::Float(1.5)),
            ("big", Value::Float(12345678901234567890.0)),
            ("n", Value::Null),
            ("t", Value::Bool(true)),
        ]);
        assert_eq!(
            to_json(&v),
            r#"{"big":12345678901234567000,"f":1.5,"i":1,"n":null,"t":true}"#
        );
        let v = Value::Seq(vec![
            Value::Int(9007199254740993),
            Value::Float(1e-7),
            Value::Float(1e21),
            Value::Float(-0.0),
        ]);
        assert_eq!(to_json(&v), "[9007199254740993,1e-7,1e+21,-0]");
    }

    #[test]
    fn null_lists_and_empty_collections_are_compact() {
        assert_eq!(to_json(&Value::Null), "null");
        let v = Value::Seq(vec![Value::Int(1), Value::Float(2.5), Value::from("3")]);
        assert_eq!(to_json(&v), r#"[1,2.5,"3"]"#);
        let v = map(&[("l", Value::Seq(vec![])), ("m", Value::Map(Map::new()))]);
        assert_eq!(to_json(&v), r#"{"l":[],"m":{}}"#);
    }

    #[test]
    fn pretty_json_indents_two_spaces_and_keeps_empty_collections_inline() {
        // functions corpus: toPrettyJson (dict "b" (list 1 2) "a" (dict))
        let v = map(&[
            ("b", Value::Seq(vec![Value::Int(1), Value::Int(2)])),
            ("a", Value::Map(Map::new())),
        ]);
        assert_eq!(
            to_pretty_json(&v),
            "{\n  \"a\": {},\n  \"b\": [\n    1,\n    2\n  ]\n}"
        );
        assert_eq!(to_pretty_json(&Value::from("x")), "\"x\"");
        assert_eq!(to_pretty_json(&Value::Seq(vec![])), "[]");
    }

    #[test]
    fn nan_and_infinities_print_nothing_like_helm() {
        let v = Value::Seq(vec![Value::Int(1), Value::Float(f64::NAN)]);
        assert_eq!(to_json(&v), "");
        assert_eq!(to_pretty_json(&v), "");
        let err = try_to_json(&Value::Float(f64::INFINITY)).unwrap_err();
        assert_eq!(err.to_string(), "json: unsupported value: +Inf");
    }
}
