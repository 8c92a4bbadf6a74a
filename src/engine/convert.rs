//! Moving values between our tree and minijinja's.

use super::functions::MAX_LIST_ITEMS;
use crate::values::{Map, Value};
use minijinja::value::{Value as JValue, ValueKind};
use minijinja::{Error, ErrorKind};

/// Our value as a template value.
pub fn to_jinja(value: &Value) -> JValue {
    match value {
        Value::Null => JValue::from(()),
        Value::Bool(b) => JValue::from(*b),
        Value::Int(i) => JValue::from(*i),
        Value::Float(f) => JValue::from(*f),
        Value::String(s) => JValue::from(s.as_str()),
        Value::Seq(items) => JValue::from(items.iter().map(to_jinja).collect::<Vec<_>>()),
        Value::Map(map) => JValue::from_pairs(map.iter().map(|(k, v)| (k.as_str(), to_jinja(v)))),
    }
}

/// Most list items and map entries one conversion walks: four lists at the list cap. A lazy
/// list built with `+` can claim billions of items without holding them.
const MAX_CONVERTED_ITEMS: usize = 4 * MAX_LIST_ITEMS;

/// A template value as our value; undefined becomes null, map keys become strings. A list or
/// map longer than [`MAX_LIST_ITEMS`] (or values holding more than four times that in all) is
/// refused.
pub fn from_jinja(value: &JValue) -> Result<Value, Error> {
    let mut budget = MAX_CONVERTED_ITEMS;
    convert(value, &mut budget)
}

fn too_many(what: String) -> Error {
    Error::new(
        ErrorKind::InvalidOperation,
        format!("{what}, more than the limit of {MAX_LIST_ITEMS} (10 MiB at 32 bytes an item)"),
    )
}

fn take_items(value: &JValue, budget: &mut usize) -> Result<(), Error> {
    if let Some(len) = value.len() {
        if len > MAX_LIST_ITEMS {
            let what = if value.kind() == ValueKind::Map {
                "map"
            } else {
                "list"
            };
            return Err(too_many(format!("a {what} of {len} items")));
        }
        if len > *budget {
            return Err(too_many(format!(
                "values holding more than {MAX_CONVERTED_ITEMS} items in all"
            )));
        }
        *budget -= len;
    }
    Ok(())
}

fn convert(value: &JValue, budget: &mut usize) -> Result<Value, Error> {
    Ok(match value.kind() {
        ValueKind::Undefined | ValueKind::None => Value::Null,
        ValueKind::Bool => Value::Bool(value.is_true()),
        ValueKind::Number => {
            if value.is_integer() {
                match value.as_i64() {
                    Some(i) => Value::Int(i),
                    None => Value::Float(f64::try_from(value.clone()).unwrap_or(f64::NAN)),
                }
            } else {
                Value::Float(
                    f64::try_from(value.clone()).map_err(|_| {
                        Error::new(ErrorKind::InvalidOperation, "number out of range")
                    })?,
                )
            }
        }
        ValueKind::String => Value::String(value.as_str().unwrap_or_default().to_owned()),
        ValueKind::Bytes => Value::String(
            String::from_utf8_lossy(value.as_bytes().unwrap_or_default()).into_owned(),
        ),
        ValueKind::Seq | ValueKind::Iterable => {
            take_items(value, budget)?;
            let mut items = Vec::new();
            for item in value.try_iter()? {
                if items.len() >= MAX_LIST_ITEMS {
                    return Err(too_many("a list of more items".to_owned()));
                }
                items.push(convert(&item, budget)?);
            }
            Value::Seq(items)
        }
        ValueKind::Map => {
            take_items(value, budget)?;
            let mut map = Map::new();
            for key in value.try_iter()? {
                let item = value.get_item(&key)?;
                let key = match key.as_str() {
                    Some(s) => s.to_owned(),
                    None => key.to_string(),
                };
                map.insert(key, convert(&item, budget)?);
            }
            Value::Map(map)
        }
        _ => Value::String(value.to_string()),
    })
}
