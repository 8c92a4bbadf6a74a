//! The values tree: the one data model shared by values files, `--set`, templates and manifests.

use std::collections::BTreeMap;

/// A map with string keys, iterated in byte order of its keys, as Go prints maps.
pub type Map = BTreeMap<String, Value>;

/// A YAML/JSON value with integers kept exact (Helm would turn them into float64).
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Value {
    /// YAML `null` / `~` / an empty scalar.
    #[default]
    Null,
    /// `true` / `false` (and the YAML 1.1 spellings in values files).
    Bool(bool),
    /// An integer that fits 64 bits.
    Int(i64),
    /// Any other number.
    Float(f64),
    /// A number kept as written, because neither `Int` nor `Float` holds it exactly: an integer
    /// beyond 64 bits in a user's manifest (`12345678901234567890`), which inject writes back
    /// as it read it. Only the manifest reader makes these; values and templates never see one.
    Number(String),
    /// A string.
    String(String),
    /// A list.
    Seq(Vec<Value>),
    /// A map.
    Map(Map),
}

impl Value {
    /// Returns the map inside, if this is a map.
    pub fn as_map(&self) -> Option<&Map> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// Returns the mutable map inside, if this is a map.
    pub fn as_map_mut(&mut self) -> Option<&mut Map> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// Returns the string inside, if this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// Follows a path of map keys.
    pub fn get_path<S: AsRef<str>>(&self, path: &[S]) -> Option<&Value> {
        let mut current = self;
        for key in path {
            current = current.as_map()?.get(key.as_ref())?;
        }
        Some(current)
    }

    /// Helm's notion of emptiness (`default`, `empty`, `required`): nil, false, 0, "", [] and {}.
    pub fn is_empty_like(&self) -> bool {
        match self {
            Value::Null => true,
            Value::Bool(b) => !b,
            Value::Int(i) => *i == 0,
            Value::Float(f) => *f == 0.0,
            // Only integers beyond 64 bits are kept this way, never zero.
            Value::Number(_) => false,
            Value::String(s) => s.is_empty(),
            Value::Seq(s) => s.is_empty(),
            Value::Map(m) => m.is_empty(),
        }
    }

    /// A short name of the value's type for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) | Value::Number(_) => "float",
            Value::String(_) => "string",
            Value::Seq(_) => "list",
            Value::Map(_) => "map",
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Self {
        Value::Int(i)
    }
}

impl From<Map> for Value {
    fn from(m: Map) -> Self {
        Value::Map(m)
    }
}

impl From<Vec<Value>> for Value {
    fn from(v: Vec<Value>) -> Self {
        Value::Seq(v)
    }
}

/// JSON to a value: integers that fit 64 bits stay exact (Helm makes every number a float64).
impl From<serde_json::Value> for Value {
    fn from(json: serde_json::Value) -> Self {
        match json {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
                (Some(i), _, _) => Value::Int(i),
                (None, Some(u), _) => Value::Float(u as f64),
                (None, None, Some(f)) => Value::Float(f),
                (None, None, None) => Value::Null,
            },
            serde_json::Value::String(s) => Value::String(s),
            serde_json::Value::Array(items) => {
                Value::Seq(items.into_iter().map(Value::from).collect())
            }
            serde_json::Value::Object(entries) => Value::Map(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, Value::from(v)))
                    .collect(),
            ),
        }
    }
}
