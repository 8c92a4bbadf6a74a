//! `values.schema.json`: inferring one from a chart's defaults and completing it (`meshchart
//! schema`). Validating values against it lives with the values ([`crate::values::validate`]),
//! as `render` checks them too; it is re-exported here for lint's callers.

use crate::values::Value;
pub use crate::values::{
    default_key_paths, schema_key_paths, to_json, validate, SchemaCheck, Violation,
};
use serde_json::{json, Value as Json};

/// The schema file's name inside a chart (kept with the chart's layout).
pub use crate::chart::SCHEMA_FILE;

/// The JSON Schema type of a default value; `None` for null (anything goes).
fn json_type(value: &Value) -> Option<&'static str> {
    Some(match value {
        Value::Null => return None,
        Value::Bool(_) => "boolean",
        Value::Int(_) => "integer",
        Value::Float(_) | Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Seq(_) => "array",
        Value::Map(_) => "object",
    })
}

/// A schema inferred from default values: each key's type is its default's type; maps with
/// entries list them as `properties`; empty maps, lists and nulls are left open.
pub fn infer(defaults: &Value) -> Json {
    let mut schema = serde_json::Map::new();
    if let Some(t) = json_type(defaults) {
        schema.insert("type".into(), json!(t));
    }
    if let Value::Map(m) = defaults {
        if !m.is_empty() {
            let properties: serde_json::Map<String, Json> =
                m.iter().map(|(k, v)| (k.clone(), infer(v))).collect();
            schema.insert("properties".into(), Json::Object(properties));
        }
    }
    Json::Object(schema)
}

/// A complete schema document for `defaults`.
pub fn infer_document(defaults: &Value) -> Json {
    let mut schema = infer(defaults);
    if let Json::Object(m) = &mut schema {
        m.insert(
            "$schema".into(),
            json!("http://json-schema.org/draft-07/schema#"),
        );
    }
    schema
}

/// Adds to `existing` every property of `inferred` it lacks (recursively), keeping everything
/// written by hand. Returns the dotted paths it added.
///
/// A level whose hand-written schema takes other keys through `additionalProperties` (a schema,
/// or `true`) or `patternProperties` gets no new `properties`: listed there, a key would be
/// checked against the inferred type instead of the rule its author wrote. Only where
/// `additionalProperties` is `false` (or absent) are the defaults' keys added.
pub fn add_missing(existing: &mut Json, inferred: &Json) -> Vec<String> {
    let mut ordered = Ordered::from(&*existing);
    let added = ordered.add_missing(inferred);
    *existing = Json::from(&ordered);
    added
}

/// A JSON value whose objects keep their keys in the order written (serde_json's own map sorts
/// them), so `schema --write` leaves a hand-written file's order as it was.
#[derive(Clone, Debug, PartialEq)]
pub enum Ordered {
    /// Any value but an object, as serde_json holds it.
    Leaf(Json),
    /// An array.
    Array(Vec<Ordered>),
    /// An object, keys in their order.
    Object(Vec<(String, Ordered)>),
}

impl From<&Json> for Ordered {
    fn from(json: &Json) -> Ordered {
        match json {
            Json::Array(items) => Ordered::Array(items.iter().map(Ordered::from).collect()),
            Json::Object(map) => Ordered::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), Ordered::from(v)))
                    .collect(),
            ),
            other => Ordered::Leaf(other.clone()),
        }
    }
}

impl From<&Ordered> for Json {
    fn from(ordered: &Ordered) -> Json {
        match ordered {
            Ordered::Leaf(json) => json.clone(),
            Ordered::Array(items) => Json::Array(items.iter().map(Json::from).collect()),
            Ordered::Object(entries) => Json::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), Json::from(v)))
                    .collect(),
            ),
        }
    }
}

impl serde::Serialize for Ordered {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self {
            Ordered::Leaf(json) => json.serialize(serializer),
            Ordered::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Ordered::Object(entries) => {
                let mut map = serializer.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> serde::Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Ordered, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Ordered, E> {
                Ok(Ordered::Leaf(Json::Bool(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Ordered, E> {
                Ok(Ordered::Leaf(Json::from(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Ordered, E> {
                Ok(Ordered::Leaf(Json::from(v)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Ordered, E> {
                Ok(Ordered::Leaf(
                    serde_json::Number::from_f64(v).map_or(Json::Null, Json::Number),
                ))
            }
            fn visit_str<E>(self, v: &str) -> Result<Ordered, E> {
                Ok(Ordered::Leaf(Json::String(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Ordered, E> {
                Ok(Ordered::Leaf(Json::String(v)))
            }
            fn visit_unit<E>(self) -> Result<Ordered, E> {
                Ok(Ordered::Leaf(Json::Null))
            }
            fn visit_none<E>(self) -> Result<Ordered, E> {
                Ok(Ordered::Leaf(Json::Null))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Ordered, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Ordered::Array(items))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Ordered, A::Error> {
                let mut entries: Vec<(String, Ordered)> = Vec::new();
                while let Some((key, value)) = map.next_entry::<String, Ordered>()? {
                    // A repeated key: the last one wins, as serde_json reads it, in its place.
                    match entries.iter_mut().find(|(k, _)| *k == key) {
                        Some(entry) => entry.1 = value,
                        None => entries.push((key, value)),
                    }
                }
                Ok(Ordered::Object(entries))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl Ordered {
    fn get(&self, key: &str) -> Option<&Ordered> {
        match self {
            Ordered::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// [`add_missing`] on this schema level; keys are added after those written by hand.
    pub fn add_missing(&mut self, inferred: &Json) -> Vec<String> {
        let mut added = Vec::new();
        self.add_missing_at(inferred, &mut Vec::new(), &mut added);
        added
    }

    fn add_missing_at(&mut self, inferred: &Json, path: &mut Vec<String>, added: &mut Vec<String>) {
        let Some(inferred_props) = inferred.get("properties").and_then(Json::as_object) else {
            return;
        };
        let open = self.get("patternProperties").is_some()
            || self
                .get("additionalProperties")
                .is_some_and(|a| *a != Ordered::Leaf(Json::Bool(false)));
        let Ordered::Object(entries) = self else {
            return;
        };
        let has_props = entries.iter().any(|(k, _)| k == "properties");
        if open && !has_props {
            return;
        }
        if !has_props {
            entries.push(("properties".to_owned(), Ordered::Object(Vec::new())));
        }
        let Some((_, Ordered::Object(props))) = entries.iter_mut().find(|(k, _)| k == "properties")
        else {
            return;
        };
        for (key, schema) in inferred_props {
            path.push(key.clone());
            match props.iter_mut().find(|(k, _)| k == key) {
                Some((_, existing_child)) => existing_child.add_missing_at(schema, path, added),
                // Beside a hand-written rule for other keys, a new property would shadow it.
                None if open => {}
                None => {
                    props.push((key.clone(), Ordered::from(schema)));
                    // The key and every key declared below it: the count says what was added.
                    added.push(path.join("."));
                    added.extend(
                        schema_key_paths(schema)
                            .into_iter()
                            .map(|below| format!("{}.{}", path.join("."), below.join("."))),
                    );
                }
            }
            path.pop();
        }
    }
}

/// Dotted paths of keys in `defaults` that the schema does not declare under `properties`
/// (keys below an empty map, a list or a null are not keys of the chart).
pub fn undeclared_keys(schema: &Json, defaults: &Value) -> Vec<String> {
    let mut copy = schema.clone();
    add_missing(&mut copy, &infer(defaults))
}

/// The chart's schema with every key of its defaults declared: its `values.schema.json` with the
/// missing keys added (types inferred from the defaults), or a schema inferred from scratch.
/// Returns the schema as written (two-space JSON, final newline) and the keys added.
pub fn complete_schema(chart: &crate::chart::Chart) -> Result<(String, Vec<String>), String> {
    let defaults = chart.default_values().map_err(|e| e.to_string())?;
    let inferred = infer(&defaults);
    match chart.file(SCHEMA_FILE) {
        Some(file) => {
            let mut existing: Ordered = serde_json::from_str(&file.text)
                .map_err(|e| format!("{}: not valid JSON: {e}", file.path))?;
            let added = existing.add_missing(&inferred);
            if added.is_empty() {
                // Nothing to add: the file stays exactly as written.
                return Ok((file.text.to_string(), added));
            }
            let text = serde_json::to_string_pretty(&existing).map_err(|e| e.to_string())? + "\n";
            Ok((text, added))
        }
        None => {
            let schema = infer_document(&defaults);
            let text = serde_json::to_string_pretty(&schema).map_err(|e| e.to_string())? + "\n";
            let added = schema_key_paths(&schema)
                .into_iter()
                .map(|p| p.join("."))
                .collect();
            Ok((text, added))
        }
    }
}

/// What `meshchart schema` does with the [`complete_schema`] of `chart`: with `write_to` (a chart
/// folder), writes it there as [`SCHEMA_FILE`] and prints nothing; else prints it. Returns the
/// text for stdout and the notes for stderr.
pub fn schema_command(
    chart: &crate::chart::Chart,
    write_to: Option<&camino::Utf8Path>,
) -> Result<(String, Vec<String>), crate::Error> {
    let (text, added) = complete_schema(chart).map_err(crate::Error::Usage)?;
    Ok(match write_to {
        Some(dir) => {
            let path = dir.join(SCHEMA_FILE);
            crate::output::write_file(&path, text.as_bytes())?;
            let note = match chart.file(SCHEMA_FILE) {
                Some(_) => format!("wrote {path} ({} key(s) added)", added.len()),
                None => format!(
                    "wrote {path}: a new schema declaring the defaults' {} key(s)",
                    added.len()
                ),
            };
            (String::new(), vec![note])
        }
        None => (text, added.iter().map(|k| format!("added {k}")).collect()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse_document;

    #[test]
    fn a_wrong_type_names_the_key_path() {
        let schema = infer_document(&parse_document("proxy:\n  await: true\n").unwrap());
        let values = parse_document("proxy:\n  await: \"yes\"\n").unwrap();
        let v = validate(&schema.to_string(), &values).unwrap();
        assert_eq!(v.len(), 1);
        assert_eq!(
            v[0].describe(),
            "proxy.await: \"yes\" is not of type \"boolean\""
        );
    }

    #[test]
    fn the_defaults_pass_the_schema_inferred_from_them() {
        let defaults = parse_document("a: 1\nb: [x]\nc: {}\nd: ~\ne: {f: 1.5, g: s}\n").unwrap();
        let schema = infer_document(&defaults);
        assert_eq!(validate(&schema.to_string(), &defaults).unwrap(), []);
    }

    #[test]
    fn missing_properties_are_added_and_hand_written_ones_kept() {
        let mut schema = json!({"properties": {"a": {"type": "string", "enum": ["x"]}}});
        let defaults = parse_document("a: x\nb: {c: 1}\n").unwrap();
        assert_eq!(undeclared_keys(&schema, &defaults), ["b", "b.c"]);
        assert_eq!(add_missing(&mut schema, &infer(&defaults)), ["b", "b.c"]);
        assert_eq!(schema["properties"]["a"]["enum"], json!(["x"]));
        assert_eq!(
            schema["properties"]["b"]["properties"]["c"]["type"],
            json!("integer")
        );
        assert_eq!(undeclared_keys(&schema, &defaults), Vec::<String>::new());
    }

    #[test]
    fn a_hand_written_additional_properties_is_never_shadowed() {
        let mut schema = json!({"properties": {"config": {"type": "object", "additionalProperties": {"type": "string"}}}});
        let defaults = parse_document("config: {a: x, b: y}\n").unwrap();
        assert_eq!(
            add_missing(&mut schema, &infer(&defaults)),
            Vec::<String>::new()
        );
        assert_eq!(schema["properties"]["config"].get("properties"), None);
        let mut patterned = json!({"patternProperties": {"^x": {}}});
        assert_eq!(
            add_missing(&mut patterned, &infer(&defaults)),
            Vec::<String>::new()
        );
    }

    #[test]
    fn added_keys_go_after_the_hand_written_ones_in_their_order() {
        let mut schema: Ordered = serde_json::from_str(
            r#"{"title": "t", "properties": {"z": {}, "a": {}}, "type": "object"}"#,
        )
        .unwrap();
        let defaults = parse_document("z: 1\na: 2\nm: 3\n").unwrap();
        assert_eq!(schema.add_missing(&infer(&defaults)), ["m"]);
        let text = serde_json::to_string(&schema).unwrap();
        assert!(
            text.starts_with(r#"{"title":"t","properties":{"z":{},"a":{},"m":{"#),
            "{text}"
        );
        assert!(text.ends_with(r#""type":"object"}"#), "{text}");
    }

    #[test]
    fn an_unusable_schema_is_reported() {
        assert!(validate("{", &Value::Null)
            .unwrap_err()
            .starts_with("not valid JSON"));
    }
}
