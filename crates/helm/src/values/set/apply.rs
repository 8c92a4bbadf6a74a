//! Applying one assignment: typing its value by mode, then walking maps and lists with
//! Helm's rules (descend only into what is there; an index pads a list with nulls).

use super::parse::{path_string, RawValue, Seg};
use super::{SetMode, SetProblem};
use crate::yaml::{Map, Value};

/// Turns a raw value into the value stored, by mode.
pub(super) fn resolve(
    raw: RawValue,
    mode: SetMode,
    read_file: &mut dyn FnMut(&str) -> Result<String, String>,
) -> Result<Value, SetProblem> {
    let mut scalar = |text: String| -> Result<Value, SetProblem> {
        Ok(match mode {
            SetMode::Set => typed_value(text),
            SetMode::SetFile => match read_file(&text) {
                Ok(content) => Value::String(content),
                Err(message) => {
                    return Err(SetProblem::File {
                        path: text,
                        message,
                    })
                }
            },
            SetMode::SetString | SetMode::SetJson | SetMode::SetLiteral => Value::String(text),
        })
    };
    match raw {
        RawValue::Empty => Ok(Value::String(String::new())),
        RawValue::Text(text) => scalar(text),
        RawValue::List(items) => items
            .into_iter()
            .map(&mut scalar)
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Seq),
        RawValue::Json(value) => Ok(value),
    }
}

/// `--set` typing: `true`/`false`/`null` in any case, `0`, and base-10 int64 that does not start
/// with `0`; everything else (floats, `007`, `1_000`, overflow) stays a string.
pub(super) fn typed_value(text: String) -> Value {
    if go_equal_fold(&text, "true") {
        return Value::Bool(true);
    }
    if go_equal_fold(&text, "false") {
        return Value::Bool(false);
    }
    if go_equal_fold(&text, "null") {
        return Value::Null;
    }
    if text == "0" {
        return Value::Int(0);
    }
    if !text.is_empty() && !text.starts_with('0') {
        if let Ok(i) = text.parse::<i64>() {
            return Value::Int(i);
        }
    }
    Value::String(text)
}

/// Go's `strings.EqualFold` against a lowercase ASCII word: ASCII case-insensitive, plus the one
/// non-ASCII letter that folds into these words (`ſ`, long s, folds to `s`).
pub(super) fn go_equal_fold(text: &str, word: &str) -> bool {
    let mut folded = text.chars().map(|c| match c {
        'ſ' => 's',
        c => c.to_ascii_lowercase(),
    });
    word.chars().all(|w| folded.next() == Some(w)) && folded.next().is_none()
}

pub(super) type Leaf<'a> = dyn FnMut() -> Result<Value, SetProblem> + 'a;

/// A short description of what a path already holds, for type-conflict messages.
pub(super) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Int(i) => format!("the number {i}"),
        Value::Float(f) => format!("the number {}", crate::yaml::format_go_float(*f)),
        Value::Number(text) => format!("the number {text}"),
        Value::String(s) if s.chars().count() > 40 => {
            let head: String = s.chars().take(40).collect();
            format!("the string {head:?}...")
        }
        Value::String(s) => format!("the string {s:?}"),
        Value::Seq(_) => "a list".to_owned(),
        Value::Map(_) => "a map".to_owned(),
    }
}

/// Applies `path[at..]` (which starts with a key) inside `map`.
pub(super) fn apply_at_key(
    map: &mut Map,
    path: &[Seg],
    at: usize,
    leaf: &mut Leaf<'_>,
) -> Result<(), SetProblem> {
    let Some(Seg::Key(key)) = path.get(at) else {
        return Ok(());
    };
    match path.get(at + 1) {
        None => {
            let value = leaf()?;
            // An empty key sets nothing, as in Helm (`--set =x` is ignored).
            if !key.is_empty() {
                map.insert(key.clone(), value);
            }
        }
        Some(Seg::Key(_)) => {
            let mut inner = match map.get_mut(key) {
                None => Map::new(),
                Some(Value::Map(existing)) => std::mem::take(existing),
                Some(other) => {
                    return Err(SetProblem::NotAMap {
                        path: path_string(path),
                        at: path_string(&path[..=at]),
                        found: describe(other),
                    })
                }
            };
            let result = apply_at_key(&mut inner, path, at + 1, leaf);
            let empty = inner.is_empty();
            if !empty && !key.is_empty() {
                map.insert(key.clone(), Value::Map(inner));
            }
            result?;
            if empty {
                return Err(SetProblem::EmptyKeyMap(path_string(&path[..=at])));
            }
        }
        Some(Seg::Index(_)) => {
            let list = match map.get_mut(key) {
                None => Vec::new(),
                Some(Value::Seq(existing)) => std::mem::take(existing),
                Some(other) => {
                    return Err(SetProblem::NotAList {
                        path: path_string(path),
                        at: path_string(&path[..=at]),
                        found: describe(other),
                    })
                }
            };
            let list = apply_at_index(list, path, at + 1, leaf)?;
            if !key.is_empty() {
                map.insert(key.clone(), Value::Seq(list));
            }
        }
    }
    Ok(())
}

/// Applies `path[at..]` (which starts with an index) to `list` and returns the new list.
pub(super) fn apply_at_index(
    mut list: Vec<Value>,
    path: &[Seg],
    at: usize,
    leaf: &mut Leaf<'_>,
) -> Result<Vec<Value>, SetProblem> {
    let Some(Seg::Index(index)) = path.get(at) else {
        return Ok(list);
    };
    let index = *index;
    let existing = list.get_mut(index).map(std::mem::take);
    let value = match path.get(at + 1) {
        None => leaf()?,
        Some(Seg::Index(_)) => {
            let inner = match existing {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Seq(items)) => items,
                Some(other) => {
                    return Err(SetProblem::NotAList {
                        path: path_string(path),
                        at: path_string(&path[..=at]),
                        found: describe(&other),
                    })
                }
            };
            Value::Seq(apply_at_index(inner, path, at + 1, leaf)?)
        }
        Some(Seg::Key(_)) => {
            // Helm replaces anything that is not a map here (indices set out of order).
            let mut inner = match existing {
                Some(Value::Map(m)) => m,
                _ => Map::new(),
            };
            apply_at_key(&mut inner, path, at + 1, leaf)?;
            Value::Map(inner)
        }
    };
    if list.len() <= index {
        list.resize(index + 1, Value::Null);
    }
    list[index] = value;
    Ok(list)
}
