//! `values.schema.json`: inferring one from a chart's defaults and completing it (`meshchart
//! schema`). Validating values against it lives with the values ([`crate::values::schema`]),
//! as `render` checks them too; it is re-exported here for lint's callers.

pub use crate::values::schema::{
    default_key_paths, schema_key_paths, to_json, validate, SchemaCheck, Violation,
};
use crate::values::Value;
use serde_json::{json, Value as Json};

/// The schema file's name inside a chart (kept with the chart's layout).
pub use crate::chart::SCHEMA_FILE;

/// The JSON Schema type of a default value; `None` for null (anything goes).
fn json_type(value: &Value) -> Option<&'static str> {
    Some(match value {
        Value::Null => return None,
        Value::Bool(_) => "boolean",
        Value::Int(_) => "integer",
        Value::Float(_) => "number",
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
pub fn add_missing(existing: &mut Json, inferred: &Json) -> Vec<String> {
    let mut added = Vec::new();
    add_missing_at(existing, inferred, &mut Vec::new(), &mut added);
    added
}

fn add_missing_at(
    existing: &mut Json,
    inferred: &Json,
    path: &mut Vec<String>,
    added: &mut Vec<String>,
) {
    let Some(inferred_props) = inferred.get("properties").and_then(Json::as_object) else {
        return;
    };
    let Json::Object(object) = existing else {
        return;
    };
    let props = object
        .entry("properties")
        .or_insert_with(|| Json::Object(Default::default()));
    let Json::Object(props) = props else {
        return;
    };
    for (key, schema) in inferred_props {
        path.push(key.clone());
        match props.get_mut(key) {
            Some(existing_child) => add_missing_at(existing_child, schema, path, added),
            None => {
                props.insert(key.clone(), schema.clone());
                added.push(path.join("."));
            }
        }
        path.pop();
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
    let (schema, added) = match chart.file(SCHEMA_FILE) {
        Some(file) => {
            let mut existing: Json = serde_json::from_str(&file.text)
                .map_err(|e| format!("{}: not valid JSON: {e}", file.path))?;
            let added = add_missing(&mut existing, &infer(&defaults));
            (existing, added)
        }
        None => (infer_document(&defaults), vec!["(all keys)".to_owned()]),
    };
    let text = serde_json::to_string_pretty(&schema).map_err(|e| e.to_string())? + "\n";
    Ok((text, added))
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
            let note = format!("wrote {path} ({} key(s) added)", added.len());
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
        assert_eq!(undeclared_keys(&schema, &defaults), ["b"]);
        assert_eq!(add_missing(&mut schema, &infer(&defaults)), ["b"]);
        assert_eq!(schema["properties"]["a"]["enum"], json!(["x"]));
        assert_eq!(
            schema["properties"]["b"]["properties"]["c"]["type"],
            json!("integer")
        );
        assert_eq!(undeclared_keys(&schema, &defaults), Vec::<String>::new());
    }

    #[test]
    fn an_unusable_schema_is_reported() {
        assert!(validate("{", &Value::Null)
            .unwrap_err()
            .starts_with("not valid JSON"));
    }
}
