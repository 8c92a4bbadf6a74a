//! Helm's `fromToml` for Go charts: TOML text read into a map (`map[string]interface{}`);
//! text that is not TOML gives a map holding only `Error`, as Helm returns it (the message is
//! the `toml` crate's, not BurntSushi's: a row of DEVIATIONS.md). Integers read as `int64`,
//! floats as `float64`, and date-times as their TOML text.

use meshchart_gotemplate::{Arity, Context, FuncError, Map, Templates, Value};
use std::rc::Rc;

fn to_go(value: &toml::Value) -> Value {
    match value {
        toml::Value::String(s) => Value::from(s.as_str()),
        toml::Value::Integer(i) => Value::Int64(*i),
        toml::Value::Float(f) => Value::Float(*f),
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Datetime(d) => Value::from(d.to_string()),
        toml::Value::Array(items) => Value::seq(items.iter().map(to_go).collect()),
        toml::Value::Table(table) => Value::map(table_to_go(table)),
    }
}

fn table_to_go(table: &toml::Table) -> Map {
    table.iter().map(|(k, v)| (k.clone(), to_go(v))).collect()
}

/// Helm's `fromToml(text)`.
fn from_toml(text: &str) -> Value {
    match text.parse::<toml::Table>() {
        Ok(table) => Value::map(table_to_go(&table)),
        Err(e) => {
            let mut failed = Map::new();
            failed.insert("Error".into(), Value::from(e.message()));
            Value::map(failed)
        }
    }
}

/// Adds `fromToml`.
pub(super) fn register(set: &mut Templates) {
    set.add_function(
        "fromToml",
        Arity::Exact(1),
        Rc::new(|_: &mut Context<'_, '_>, args: &[Value]| {
            let text = args[0].as_str().ok_or(FuncError::WrongType {
                index: 0,
                expected: "string".into(),
            })?;
            Ok(from_toml(text))
        }),
    );
}

#[cfg(test)]
mod tests {
    use super::from_toml;
    use meshchart_gotemplate::Value;

    #[test]
    fn toml_tables_become_maps_with_go_number_types() {
        let value = from_toml("name = \"x\"\n[server]\nport = 8080\nratio = 0.5\n");
        let Value::Map(map) = value else {
            panic!("a map");
        };
        let map = map.borrow();
        assert_eq!(map.get("name"), Some(&Value::from("x")));
        let Some(Value::Map(server)) = map.get("server") else {
            panic!("a table");
        };
        assert_eq!(server.borrow().get("port"), Some(&Value::Int64(8080)));
        assert_eq!(server.borrow().get("ratio"), Some(&Value::Float(0.5)));
    }

    #[test]
    fn text_that_is_not_toml_gives_a_map_holding_error() {
        let Value::Map(map) = from_toml("= nope") else {
            panic!("a map");
        };
        assert!(map.borrow().contains_key("Error"));
    }
}
