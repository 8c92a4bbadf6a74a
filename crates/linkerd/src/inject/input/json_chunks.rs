//! A JSON input split into its top-level values, each with its exact text, and JSON errors
//! named by line. Separate from the YAML splitter because JSON streams follow other rules.

use super::super::error::InjectError;
use super::yaml_chunks::Chunk;
use crate::values::Value;
use crate::yaml;

/// For text that starts with `{` or `[`: JSON when it is a stream of JSON values; flow-style YAML
/// (`{kind: Pod, ...}`) when only YAML reads it; JSON again when neither does, so the error
/// shown is JSON's.
pub(super) fn starting_like_json_is_json(text: &str) -> bool {
    let valid_json = yaml::json::json_too_deep(text).is_some() || split_json("", text).is_ok();
    valid_json || yaml::parse_documents(text).is_err()
}

/// Splits a stream of JSON values into chunks (whitespace, value text) and parses each value.
/// A number too large for a float (`1E400`) is valid JSON that serde_json refuses: the value
/// holding it is read as go-yaml v2 reads JSON for kubectl (sigs.k8s.io/yaml), which keeps
/// such a number as the string it is written as.
pub fn split_json<'a>(source: &str, text: &'a str) -> Result<Vec<(Chunk<'a>, Value)>, InjectError> {
    let mut out = Vec::new();
    if let Some((line, column)) = yaml::json::json_too_deep(text) {
        return Err(InjectError::Json {
            path: source.to_owned(),
            line,
            column,
            message: yaml::json::json_too_deep_message(),
        });
    }
    let mut previous_end = 0;
    // serde_json reads from `base` on; it starts again past a value read the other way.
    let mut base = 0;
    'restart: loop {
        let mut stream =
            yaml::json::json_deserializer(&text[base..]).into_iter::<serde_json::Value>();
        loop {
            let item = stream.next();
            let end = base + stream.byte_offset();
            let (start, value, end) = match item {
                None => break 'restart,
                Some(Err(e)) if e.to_string().starts_with("number out of range") => {
                    let between = &text[previous_end..];
                    let start = previous_end + (between.len() - between.trim_start().len());
                    let Some(length) = json_value_length(&text[start..]) else {
                        return Err(json_error(source, text, base, &e));
                    };
                    let line = 1 + text[..start].matches('\n').count();
                    let end = start + length;
                    let value = yaml::load::parse_manifest_documents(&text[start..end], line)
                        .ok()
                        .and_then(|mut docs| docs.pop())
                        .ok_or_else(|| json_error(source, text, base, &e))?;
                    base = end;
                    push_json_value(source, text, (previous_end, start, end), value, &mut out)?;
                    previous_end = end;
                    continue 'restart;
                }
                Some(Err(e)) => return Err(json_error(source, text, base, &e)),
                Some(Ok(value)) => {
                    let between = &text[previous_end..end];
                    let start = previous_end + (between.len() - between.trim_start().len());
                    (start, Value::from(value), end)
                }
            };
            push_json_value(source, text, (previous_end, start, end), value, &mut out)?;
            previous_end = end;
        }
    }
    if previous_end < text.len() || out.is_empty() {
        out.push((
            Chunk {
                separator: &text[previous_end..],
                body: "",
                line: 1 + text.matches('\n').count(),
            },
            Value::Null,
        ));
    }
    Ok(out)
}

/// Adds the value at `start..end` of `text` (after the whitespace from `previous_end`).
fn push_json_value<'a>(
    source: &str,
    text: &'a str,
    (previous_end, start, end): (usize, usize, usize),
    value: Value,
    out: &mut Vec<(Chunk<'a>, Value)>,
) -> Result<(), InjectError> {
    let chunk = Chunk {
        separator: &text[previous_end..start],
        body: &text[start..end],
        line: 1 + text[..start].matches('\n').count(),
    };
    // serde_json keeps the last of a key given twice; kubectl refuses it.
    if let Some(e) = yaml::load::first_duplicate_key(chunk.body, chunk.line) {
        return Err(InjectError::Json {
            path: source.to_owned(),
            line: e.position.line,
            column: e.position.column,
            message: e.message,
        });
    }
    out.push((chunk, value));
    Ok(())
}

/// serde_json's error for the text from `base` on, placed in the whole text.
fn json_error(source: &str, text: &str, base: usize, e: &serde_json::Error) -> InjectError {
    let before = &text[..base];
    let lines_before = before.matches('\n').count();
    let column = if e.line() == 1 {
        e.column() + before.len() - before.rfind('\n').map_or(0, |i| i + 1)
    } else {
        e.column()
    };
    InjectError::Json {
        path: source.to_owned(),
        line: e.line() + lines_before,
        column,
        message: json_message(e),
    }
}

/// The length of the JSON object or array `text` starts with (strings skipped), or `None`.
fn json_value_length(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in yaml::json::outside_strings(text) {
        match c {
            '[' | '{' => depth += 1,
            ']' | '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

/// serde_json's message without its trailing " at line L column C" (we print those ourselves).
fn json_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(i) => text[..i].to_owned(),
        None => text,
    }
}
