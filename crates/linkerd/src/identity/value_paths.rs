//! Reading and writing the values tree at a key path, with errors that name the key. Separate
//! because every planning step uses them and they know nothing of certificates.

use super::error::IdentityError;
use crate::values::{Map, Value};

pub(super) fn key_name(path: &[&str]) -> String {
    if path.is_empty() {
        "the values".to_owned()
    } else {
        path.join(".")
    }
}

/// Follows `path`; `None` when a key is absent or a map on the way is null.
pub(super) fn lookup<'v>(
    values: &'v Value,
    path: &[&str],
) -> Result<Option<&'v Value>, IdentityError> {
    let mut current = values;
    for (depth, key) in path.iter().enumerate() {
        current = match current {
            Value::Map(map) => match map.get(*key) {
                Some(value) => value,
                None => return Ok(None),
            },
            Value::Null => return Ok(None),
            other => {
                return Err(IdentityError::WrongType {
                    key: key_name(&path[..depth]),
                    expected: "a map",
                    found: other.type_name(),
                })
            }
        };
    }
    Ok(Some(current))
}

/// A string value; `None` when absent, null or empty.
pub(super) fn text<'v>(values: &'v Value, path: &[&str]) -> Result<Option<&'v str>, IdentityError> {
    match lookup(values, path)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok((!s.is_empty()).then_some(s.as_str())),
        Some(other) => Err(IdentityError::WrongType {
            key: path.join("."),
            expected: "a string",
            found: other.type_name(),
        }),
    }
}

/// A value's truth as Helm's `if` sees it; absent is false.
pub(super) fn flag(values: &Value, path: &[&str]) -> Result<bool, IdentityError> {
    Ok(lookup(values, path)?.is_some_and(|v| !v.is_empty_like()))
}

/// Checks that [`set_path`] will succeed, so that nothing is written before a failure.
pub(super) fn check_settable(values: &Value, path: &[&str]) -> Result<(), IdentityError> {
    let parent = &path[..path.len().saturating_sub(1)];
    match lookup(values, parent)? {
        None | Some(Value::Null) | Some(Value::Map(_)) => Ok(()),
        Some(other) => Err(IdentityError::WrongType {
            key: key_name(parent),
            expected: "a map",
            found: other.type_name(),
        }),
    }
}

/// Sets `path` to `value`, making maps on the way where keys are absent or null.
pub(super) fn set_path(
    values: &mut Value,
    path: &[&str],
    value: Value,
) -> Result<(), IdentityError> {
    let Some((last, parents)) = path.split_last() else {
        return Ok(());
    };
    let mut current = values;
    for (depth, key) in parents.iter().enumerate() {
        current = map_at(current, &path[..depth])?
            .entry((*key).to_owned())
            .or_insert(Value::Null);
    }
    map_at(current, parents)?.insert((*last).to_owned(), value);
    Ok(())
}

/// The map in `value`, turning null into an empty map.
fn map_at<'v>(value: &'v mut Value, path: &[&str]) -> Result<&'v mut Map, IdentityError> {
    if matches!(value, Value::Null) {
        *value = Value::Map(Map::new());
    }
    match value {
        Value::Map(map) => Ok(map),
        other => Err(IdentityError::WrongType {
            key: key_name(path),
            expected: "a map",
            found: other.type_name(),
        }),
    }
}
