//! The values templates work on: Go's dynamic types as Helm's templates see them.
//!
//! Helm hands templates `map[string]interface{}` trees decoded from YAML through JSON, so the
//! shapes here are those of meshchart's own tree (`Null`, `Bool`, `Int`, `Float`, `String`,
//! `Seq`, `Map`), plus what only templates make: Go's `int` next to `int64` (they print alike
//! but `%T` and `printf` errors name them) and opaque objects with fields and methods, such as
//! Helm's `.Capabilities` or `.Files`.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

/// A map with string keys, iterated in byte order of its keys, as Go's `range` and `fmt` do.
pub type Map = BTreeMap<String, Value>;

/// A Go value as a template sees it.
///
/// Maps are shared and mutable (`Rc<RefCell<..>>`) because Sprig's `set`, `unset` and `merge`
/// change a map in place and charts rely on every holder of the map seeing the change (Go maps
/// are references). Lists are shared but never changed in place: Sprig's list functions all
/// return new lists.
#[derive(Clone, Default)]
pub enum Value {
    /// Go's `nil` (a nil `interface{}`): YAML `null`, or a missing map key under Helm's
    /// `missingkey=zero`.
    #[default]
    Null,
    /// A `bool`.
    Bool(bool),
    /// A Go `int`: integer literals in templates and what `len` returns.
    Int(i64),
    /// A Go `int64`: integers from `--set` and from Sprig's arithmetic.
    Int64(i64),
    /// A `float64`: every number Helm decodes from a values file or JSON.
    Float(f64),
    /// A `string`.
    String(Rc<str>),
    /// A `[]interface{}`.
    Seq(Rc<Vec<Value>>),
    /// A `map[string]interface{}`.
    Map(Rc<RefCell<Map>>),
    /// Anything else with fields or methods (Go structs and named types).
    Object(Rc<dyn Object>),
}

/// A Go value with fields and methods, supplied by the caller (Helm's `.Capabilities`,
/// `.Chart`, `.Files`, `.Template` and the like).
pub trait Object {
    /// Go's name of the type, as `%T` prints it (`*chart.Metadata`, `engine.files`).
    fn type_name(&self) -> &str;
    /// Looks up a field or calls a method by name with the given arguments. `None` when the
    /// type has no such field or method; `Some(Err(msg))` when the method fails.
    fn get(&self, name: &str, args: &[Value]) -> Option<Result<Value, String>>;
    /// If `name` is a method, how many arguments it takes: Go looks methods up before
    /// fields, checks the count (`wrong number of args for Has: want 1 got 0`) and lets the
    /// last come from a pipe. `None` for fields, which refuse arguments.
    fn method_arity(&self, name: &str) -> Option<crate::Arity> {
        let _ = name;
        None
    }
    /// Writes the value as Go's `%v` would (`{v1.32.0 1 32}` for a struct; a type with a
    /// `String` method prints that). Not called for a named map (see [`Object::as_map`]).
    fn format(&self, out: &mut String);

    /// For a named map type (Helm's `chartutil.Values`, the type of `.` and `.Values`): the
    /// map. Such an object is a map everywhere (keys as fields, `range`, `index`, `len`,
    /// printing, truth) except that its methods come first and `%T` names its type.
    fn as_map(&self) -> Option<&Rc<RefCell<Map>>> {
        None
    }
}

impl Value {
    /// A string value.
    pub fn str(s: &str) -> Value {
        Value::String(Rc::from(s))
    }

    /// A list value.
    pub fn seq(items: Vec<Value>) -> Value {
        Value::Seq(Rc::new(items))
    }

    /// A map value.
    pub fn map(entries: Map) -> Value {
        Value::Map(Rc::new(RefCell::new(entries)))
    }

    /// Go's truth (`if`, `with`, `and`, `or`, `not`): false for `false`, zero numbers, nil and
    /// empty strings, lists and maps; true for everything else, objects included.
    pub fn is_true(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Int(i) | Value::Int64(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::String(s) => !s.is_empty(),
            Value::Seq(l) => !l.is_empty(),
            Value::Map(m) => !m.borrow().is_empty(),
            Value::Object(o) => o.as_map().is_none_or(|m| !m.borrow().is_empty()),
        }
    }

    /// Go's type name, as `%T` and error messages print it.
    pub fn type_name(&self) -> &str {
        match self {
            Value::Null => "<nil>",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Int64(_) => "int64",
            Value::Float(_) => "float64",
            Value::String(_) => "string",
            Value::Seq(_) => "[]interface {}",
            Value::Map(_) => "map[string]interface {}",
            Value::Object(o) => o.type_name(),
        }
    }

    /// The map inside, if this is a map or an object of a named map type.
    pub fn as_map(&self) -> Option<&Rc<RefCell<Map>>> {
        match self {
            Value::Map(m) => Some(m),
            Value::Object(o) => o.as_map(),
            _ => None,
        }
    }

    /// The string inside, if this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The integer inside, if this is an `int` or `int64`.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) | Value::Int64(i) => Some(*i),
            _ => None,
        }
    }

    /// Is this Go's nil?
    pub fn is_nil(&self) -> bool {
        matches!(self, Value::Null)
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => write!(f, "Null"),
            Value::Bool(b) => write!(f, "Bool({b})"),
            Value::Int(i) => write!(f, "Int({i})"),
            Value::Int64(i) => write!(f, "Int64({i})"),
            Value::Float(x) => write!(f, "Float({x})"),
            Value::String(s) => write!(f, "String({s:?})"),
            Value::Seq(l) => f.debug_list().entries(l.iter()).finish(),
            Value::Map(m) => f.debug_map().entries(m.borrow().iter()).finish(),
            Value::Object(o) => write!(f, "Object({})", o.type_name()),
        }
    }
}

/// Prints like Go's `%v`, so `format!("{value}")` is what a template action prints
/// (except that an action prints nil as `<no value>`).
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        crate::gofmt::write_value(&mut s, self);
        f.write_str(&s)
    }
}

impl PartialEq for Value {
    /// Structural equality (Go's `reflect.DeepEqual` on these shapes; objects by identity).
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) | (Value::Int64(a), Value::Int64(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Seq(a), Value::Seq(b)) => a == b,
            (Value::Map(a), Value::Map(b)) => Rc::ptr_eq(a, b) || *a.borrow() == *b.borrow(),
            (Value::Object(a), Value::Object(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl From<i64> for Value {
    /// An `int64`, as Helm's `--set` makes.
    fn from(i: i64) -> Value {
        Value::Int64(i)
    }
}

impl From<f64> for Value {
    fn from(f: f64) -> Value {
        Value::Float(f)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::str(s)
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(Rc::from(s))
    }
}

impl From<Vec<Value>> for Value {
    fn from(v: Vec<Value>) -> Value {
        Value::seq(v)
    }
}

impl From<Map> for Value {
    fn from(m: Map) -> Value {
        Value::map(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truth_follows_go_empty_values() {
        for v in [
            Value::Null,
            Value::Bool(false),
            Value::Int(0),
            Value::Float(0.0),
            Value::str(""),
            Value::seq(vec![]),
            Value::map(Map::new()),
        ] {
            assert!(!v.is_true(), "{v:?}");
        }
        for v in [
            Value::Bool(true),
            Value::Int64(-1),
            Value::Float(0.5),
            Value::str("0"),
        ] {
            assert!(v.is_true(), "{v:?}");
        }
    }

    #[test]
    fn type_names_are_go_names() {
        assert_eq!(Value::seq(vec![]).type_name(), "[]interface {}");
        assert_eq!(
            Value::map(Map::new()).type_name(),
            "map[string]interface {}"
        );
        assert_eq!(Value::Null.type_name(), "<nil>");
    }

    #[test]
    fn maps_are_shared_like_go_maps() {
        let m = Value::map(Map::new());
        let alias = m.clone();
        if let Value::Map(inner) = &m {
            inner.borrow_mut().insert("k".into(), Value::Int(1));
        }
        assert_eq!(alias.to_string(), "map[k:1]");
    }
}
