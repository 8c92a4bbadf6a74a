//! Moving values between our tree and minijinja's.

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

/// A template value as our value; undefined becomes null, map keys become strings.
pub fn from_jinja(value: &JValue) -> Result<Value, Error> {
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
        ValueKind::Seq | ValueKind::Iterable => Value::Seq(
            value
                .try_iter()?
                .map(|v| from_jinja(&v))
                .collect::<Result<_, _>>()?,
        ),
        ValueKind::Map => {
            let mut map = Map::new();
            for key in value.try_iter()? {
                let item = value.get_item(&key)?;
                let key = match key.as_str() {
                    Some(s) => s.to_owned(),
                    None => key.to_string(),
                };
                map.insert(key, from_jinja(&item)?);
            }
            Value::Map(map)
        }
        _ => Value::String(value.to_string()),
    })
}
