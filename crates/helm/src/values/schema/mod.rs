//! `values.schema.json` and values: validating a chart's effective values against its schema
//! (as `helm template` does before rendering, and `lint` reports), with the violations worded
//! both ways: lint's (`"yes" is not of type "boolean"`) and Helm's (gojsonschema's, which
//! `render` prints in Helm's shape, see [`SchemaCheck::helm_error`]); and the key paths a
//! defaults tree or a schema declares ([`crate::values::known`] reads them).

mod simple;

use crate::limits::MOST_REMEMBERED_ENTRIES;
use crate::values::{Map, Value};
use serde_json::Value as Json;

/// A value as JSON (integers stay integers; NaN and infinities become null).
pub fn to_json(value: &Value) -> Json {
    match value {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => Json::from(*i),
        Value::Float(f) => serde_json::Number::from_f64(*f).map_or(Json::Null, Json::Number),
        Value::Number(text) => text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or(Json::Null, Json::Number),
        Value::String(s) => Json::String(s.clone()),
        Value::Seq(items) => Json::Array(items.iter().map(to_json).collect()),
        Value::Map(m) => Json::Object(m.iter().map(|(k, v)| (k.clone(), to_json(v))).collect()),
    }
}

/// `value` as JSON for checking against `schema`, leaving out what the schema cannot see: at a
/// map whose schema level only names keys ([`names_keys_only`]), the keys it does not name
/// can break nothing, so a values file of a million keys the schema does not know is not
/// copied whole for the validator. Everything else is copied as it is ([`to_json`]).
fn to_json_for(value: &Value, schema: &Json) -> Json {
    let Value::Map(map) = value else {
        return to_json(value);
    };
    if !names_keys_only(schema) {
        return to_json(value);
    }
    let properties = schema.get("properties").and_then(Json::as_object);
    let required = schema.get("required").and_then(Json::as_array);
    let named = |key: &str| {
        properties.is_some_and(|p| p.contains_key(key))
            || required.is_some_and(|r| r.iter().any(|name| name.as_str() == Some(key)))
    };
    Json::Object(
        map.iter()
            .filter(|(key, _)| named(key))
            .map(|(key, v)| {
                let converted = match properties.and_then(|p| p.get(key)) {
                    Some(subschema) => to_json_for(v, subschema),
                    None => to_json(v),
                };
                (key.clone(), converted)
            })
            .collect(),
    )
}

/// Whether a schema level, applied to a map, can only constrain the keys it names under
/// `properties` and `required`: its keywords are those, annotations, and a `type` that allows
/// a map (a type error would print the whole map). Any other keyword (`additionalProperties`,
/// `allOf`, `$ref`, `minProperties`, ...) may look at every key.
fn names_keys_only(schema: &Json) -> bool {
    let Some(keywords) = schema.as_object() else {
        return false;
    };
    keywords
        .iter()
        .all(|(keyword, value)| match keyword.as_str() {
            "$schema" | "$id" | "id" | "$comment" | "title" | "description" | "default"
            | "examples" | "readOnly" | "writeOnly" | "deprecated" | "$defs" | "definitions"
            | "properties" | "required" => true,
            "type" => match value {
                Json::String(one) => one == "object",
                Json::Array(many) => many.iter().any(|t| t.as_str() == Some("object")),
                _ => false,
            },
            _ => false,
        })
}

/// One way the values break the schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Path of map keys and list indices to the offending value (empty: the root).
    pub path: Vec<String>,
    /// What is wrong, e.g. `"yes" is not of type "boolean"`.
    pub message: String,
    /// What is wrong in Helm's words (gojsonschema's), one line per failure Helm reports
    /// (a missing property each), e.g. `Invalid type. Expected: boolean, given: string`.
    pub helm: Vec<String>,
}

impl Violation {
    /// `proxy.await: "yes" is not of type "boolean"`.
    pub fn describe(&self) -> String {
        format!("{}: {}", self.field(), self.message)
    }

    /// The path as Helm names it: dotted, `(root)` for the root.
    fn field(&self) -> String {
        if self.path.is_empty() {
            "(root)".to_owned()
        } else {
            self.path.join(".")
        }
    }
}

/// Where the schema is registered with the validator (never read from: see [`NoRemoteSchemas`]).
const SCHEMA_URL: &str = "file:///values.schema.json";

/// Refuses every `$ref` to another document: a chart's schema is validated offline and reads no
/// file beside the chart (the draft metaschemas are built in).
struct NoRemoteSchemas;

impl boon::UrlLoader for NoRemoteSchemas {
    fn load(&self, url: &str) -> Result<Json, Box<dyn std::error::Error>> {
        Err(format!("{url}: values.schema.json may only refer to itself").into())
    }
}

/// Checks `values` against the schema text; an unusable schema is an `Err` with the reason.
pub fn validate(schema_text: &str, values: &Value) -> Result<Vec<Violation>, String> {
    Ok(SchemaCheck::compile(schema_text)?.check(values))
}

/// A chart's `values.schema.json`, compiled once and checked against many values trees (a
/// fleet checks every cluster's against its line's schema).
pub struct SchemaCheck {
    schema: Json,
    engine: Engine,
    /// The last values tree the simple checker found meeting the schema: a fleet's clusters
    /// differ from each other in a few values.
    last_clean: std::cell::RefCell<Option<Value>>,
}

/// What checks the values.
enum Engine {
    /// The few keywords the embedded charts' schemas use, checked directly (see [`simple`]);
    /// `references`: the schema holds a `$ref` somewhere.
    Simple { references: bool },
    /// Any other schema: the full validator.
    Boon {
        schemas: boon::Schemas,
        index: boon::SchemaIndex,
    },
}

impl SchemaCheck {
    /// Compiles the schema text; an unusable schema is an `Err` with the reason.
    ///
    /// A schema of only the keywords [`simple`] knows (the embedded charts' are) is checked
    /// by it: boon's compile (which first compiles every draft's metaschema) cost more than
    /// the rest of a render. Any other schema goes to boon, which also tells an invalid one.
    pub fn compile(schema_text: &str) -> Result<SchemaCheck, String> {
        let schema: Json =
            serde_json::from_str(schema_text).map_err(|e| format!("not valid JSON: {e}"))?;
        if simple::supports(&schema) {
            let references = simple::has_references(&schema);
            return Ok(SchemaCheck {
                schema,
                engine: Engine::Simple { references },
                last_clean: Default::default(),
            });
        }
        Self::compile_with_boon(schema)
    }

    /// Compiles `schema` with boon whatever its keywords.
    fn compile_with_boon(schema: Json) -> Result<SchemaCheck, String> {
        let mut compiler = boon::Compiler::new();
        compiler.use_loader(Box::new(NoRemoteSchemas));
        let mut schemas = boon::Schemas::new();
        let unusable = |e: boon::CompileError| format!("not a valid JSON Schema: {e}");
        compiler
            .add_resource(SCHEMA_URL, schema.clone())
            .map_err(unusable)?;
        let index = compiler
            .compile(SCHEMA_URL, &mut schemas)
            .map_err(unusable)?;
        Ok(SchemaCheck {
            schema,
            engine: Engine::Boon { schemas, index },
            last_clean: Default::default(),
        })
    }

    /// The schema as JSON (for the keys it declares, see [`crate::values::known`]).
    pub fn schema(&self) -> &Json {
        &self.schema
    }

    /// [`SchemaCheck::compile`], remembering the last schemas compiled on this thread: a
    /// fleet's clusters, and golden cases, check many values trees against one schema
    /// (compiling the modern lines' schemas costs about what a render does).
    pub fn remembered(schema_text: &str) -> Result<std::rc::Rc<SchemaCheck>, String> {
        type Compiled = (String, std::rc::Rc<SchemaCheck>);
        thread_local! {
            static COMPILED: std::cell::RefCell<Vec<Compiled>> =
                const { std::cell::RefCell::new(Vec::new()) };
        }
        // One per release line's chart is plenty.
        const REMEMBERED: usize = 4;
        let found = COMPILED.with_borrow(|compiled| {
            compiled
                .iter()
                .find(|(text, _)| text == schema_text)
                .map(|(_, check)| check.clone())
        });
        if let Some(check) = found {
            return Ok(check);
        }
        let check = std::rc::Rc::new(SchemaCheck::compile(schema_text)?);
        COMPILED.with_borrow_mut(|compiled| {
            if compiled.len() == REMEMBERED {
                compiled.remove(0);
            }
            compiled.push((schema_text.to_owned(), check.clone()));
        });
        Ok(check)
    }

    /// The ways `values` break the schema, sorted by path then message.
    pub fn check(&self, values: &Value) -> Vec<Violation> {
        let mut violations = Vec::new();
        match &self.engine {
            Engine::Simple { references } => {
                let before = self.last_clean.take();
                let unchanged = simple::check(
                    &self.schema,
                    *references,
                    values,
                    before.as_ref(),
                    &mut violations,
                );
                let small = matches!(values, Value::Map(m) if m.len() <= MOST_REMEMBERED_ENTRIES);
                if let (true, true, Value::Map(entries)) = (violations.is_empty(), small, values) {
                    // Top-level entries that did not change stay as they are; the others are
                    // copied.
                    let mut before = match before {
                        Some(Value::Map(before)) => before,
                        _ => Map::new(),
                    };
                    let mut unchanged = unchanged.into_iter().peekable();
                    let kept = entries
                        .iter()
                        .enumerate()
                        .map(|(place, (key, value))| {
                            let same = unchanged.next_if_eq(&place).is_some();
                            match before.remove_entry(key) {
                                Some(entry) if same => entry,
                                _ => (key.clone(), value.clone()),
                            }
                        })
                        .collect();
                    self.last_clean.replace(Some(Value::Map(kept)));
                }
            }
            Engine::Boon { schemas, index } => {
                let instance = to_json_for(values, &self.schema);
                if let Err(error) = schemas.validate(&instance, *index) {
                    collect_violations(&error, &instance, &self.schema, &mut violations);
                }
            }
        }
        violations.sort_by(|a, b| a.path.cmp(&b.path).then(a.message.cmp(&b.message)));
        violations.dedup();
        violations
    }

    /// The error `helm template` (3.17) prints for these violations of chart `chart`'s
    /// schema, without its `Error: ` prefix:
    ///
    /// ```text
    /// values don't meet the specifications of the schema(s) in the following chart(s):
    /// linkerd-control-plane:
    /// - webhookFailurePolicy: webhookFailurePolicy must be one of the following: "Ignore", "Fail"
    /// ```
    ///
    /// Helm lists them in gojsonschema's order; here they are sorted by path.
    pub fn helm_error(chart: &str, violations: &[Violation]) -> String {
        let mut text = format!(
            "values don't meet the specifications of the schema(s) in the following \
             chart(s):\n{chart}:"
        );
        for violation in violations {
            for line in &violation.helm {
                text.push_str(&format!("\n- {}: {line}", violation.field()));
            }
        }
        text
    }
}

/// The leaves of the validator's error tree (the keywords that failed), as violations.
fn collect_violations(
    error: &boon::ValidationError,
    instance: &Json,
    schema: &Json,
    out: &mut Vec<Violation>,
) {
    if !error.causes.is_empty() {
        for cause in &error.causes {
            collect_violations(cause, instance, schema, out);
        }
        return;
    }
    let path: Vec<String> = error
        .instance_location
        .tokens
        .iter()
        .map(|token| match token {
            boon::InstanceToken::Prop(name) => name.to_string(),
            boon::InstanceToken::Item(index) => index.to_string(),
        })
        .collect();
    let pointer = error.instance_location.to_string();
    let got = instance.pointer(&pointer).unwrap_or(&Json::Null);
    out.push(violation(
        path,
        &error.kind,
        got,
        keyword(schema, error.schema_url),
    ));
}

/// A failed keyword as a violation at `path`, worded both ways; `subschema` is the schema
/// that failed (for the order it lists types in).
fn violation(
    path: Vec<String>,
    kind: &boon::ErrorKind,
    got: &Json,
    subschema: Option<&Json>,
) -> Violation {
    let field = if path.is_empty() {
        "(root)".to_owned()
    } else {
        path.join(".")
    };
    Violation {
        message: describe_failure(kind, got),
        helm: helm_words(kind, got, &field, subschema),
        path,
    }
}

/// The subschema a failure's location points at in `schema` (`...#/properties/a`).
fn keyword<'s>(schema: &'s Json, location: &str) -> Option<&'s Json> {
    let (_, pointer) = location.split_once('#')?;
    schema.pointer(pointer)
}

/// The JSON type gojsonschema names for a value: `integer` for a whole number.
fn helm_type_of(value: &Json) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Bool(_) => "boolean",
        Json::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Json::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => "integer",
        Json::Number(_) => "number",
        Json::String(_) => "string",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}

/// A failed keyword in gojsonschema's words (its `locales.go`), which `helm template` prints;
/// `field` is the dotted path Helm names. The keywords gojsonschema words alike come out
/// alike; the rarer ones in the validator's own words.
fn helm_words(
    kind: &boon::ErrorKind,
    got: &Json,
    field: &str,
    keyword: Option<&Json>,
) -> Vec<String> {
    use boon::ErrorKind as Kind;
    let one = |text: String| vec![text];
    match kind {
        Kind::Type { want, .. } => {
            // As the schema lists them (gojsonschema keeps that order; the validator sorts).
            let listed = keyword.and_then(|schema| schema.get("type"));
            let types: Vec<String> = match listed.and_then(Json::as_array) {
                Some(listed) => listed
                    .iter()
                    .filter_map(Json::as_str)
                    .map(str::to_owned)
                    .collect(),
                None => want.iter().map(|t| t.to_string()).collect(),
            };
            let expected = match types.as_slice() {
                [one] => one.clone(),
                _ => format!("[{}]", types.join(",")),
            };
            one(format!(
                "Invalid type. Expected: {expected}, given: {}",
                helm_type_of(got)
            ))
        }
        Kind::Enum { want } => {
            let allowed: Vec<String> = want.iter().map(Json::to_string).collect();
            one(format!(
                "{field} must be one of the following: {}",
                allowed.join(", ")
            ))
        }
        Kind::Const { want } => one(format!("{field} does not match: {want}")),
        Kind::Minimum { want, .. } => one(format!("Must be greater than or equal to {want}")),
        Kind::Maximum { want, .. } => one(format!("Must be less than or equal to {want}")),
        Kind::ExclusiveMinimum { want, .. } => one(format!("Must be greater than {want}")),
        Kind::ExclusiveMaximum { want, .. } => one(format!("Must be less than {want}")),
        Kind::MultipleOf { want, .. } => one(format!("Must be a multiple of {want}")),
        Kind::Pattern { want, .. } => one(format!("Does not match pattern '{want}'")),
        Kind::Format { want, .. } => one(format!("Does not match format '{want}'")),
        Kind::MinLength { want, .. } => one(format!(
            "String length must be greater than or equal to {want}"
        )),
        Kind::MaxLength { want, .. } => one(format!(
            "String length must be less than or equal to {want}"
        )),
        Kind::MinItems { want, .. } => one(format!("Array must have at least {want} items")),
        Kind::MaxItems { want, .. } => one(format!("Array must have at most {want} items")),
        Kind::MinProperties { want, .. } => one(format!("Must have at least {want} properties")),
        Kind::MaxProperties { want, .. } => one(format!("Must have at most {want} properties")),
        Kind::Required { want } => want.iter().map(|p| format!("{p} is required")).collect(),
        Kind::AdditionalProperties { got: extra } => extra
            .iter()
            .map(|p| format!("Additional property {p} is not allowed"))
            .collect(),
        Kind::FalseSchema => one("False always fails validation".to_owned()),
        other => one(other.to_string()),
    }
}

/// A failed keyword in the words `lint` has always used (`"yes" is not of type "boolean"`);
/// the validator's own wording for the rarer ones.
fn describe_failure(kind: &boon::ErrorKind, got: &Json) -> String {
    use boon::ErrorKind as Kind;
    let quoted = |names: Vec<String>| {
        names
            .iter()
            .map(|n| format!("{n:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match kind {
        Kind::Type { want, .. } => {
            let types: Vec<String> = want.iter().map(|t| t.to_string()).collect();
            match types.as_slice() {
                [one] => format!("{got} is not of type {one:?}"),
                _ => format!("{got} is not of types {}", quoted(types)),
            }
        }
        Kind::Enum { want } => format!("{got} is not one of {}", Json::Array(want.to_vec())),
        Kind::Const { want } => format!("{got} is not {want}"),
        Kind::Minimum { want, .. } => format!("{got} is less than the minimum of {want}"),
        Kind::Maximum { want, .. } => format!("{got} is greater than the maximum of {want}"),
        Kind::ExclusiveMinimum { want, .. } => {
            format!("{got} is less than or equal to the minimum of {want}")
        }
        Kind::ExclusiveMaximum { want, .. } => {
            format!("{got} is greater than or equal to the maximum of {want}")
        }
        Kind::Pattern { want, .. } => format!("{got} does not match {want:?}"),
        Kind::Required { want } => {
            let missing: Vec<String> = want.iter().map(|w| w.to_string()).collect();
            format!("missing required {}", quoted(missing))
        }
        Kind::AdditionalProperties { got: extra } => {
            let extra: Vec<String> = extra.iter().map(|e| e.to_string()).collect();
            format!(
                "additional properties are not allowed ({} unexpected)",
                quoted(extra)
            )
        }
        other => other.to_string(),
    }
}

/// Every key path the defaults define, as dotted strings, maps included (`proxy`,
/// `proxy.await`); list items are not keys.
pub fn default_key_paths(defaults: &Value) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    fn walk(m: &Map, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        for (k, v) in m {
            path.push(k.clone());
            out.push(path.clone());
            if let Value::Map(inner) = v {
                walk(inner, path, out);
            }
            path.pop();
        }
    }
    if let Value::Map(m) = defaults {
        walk(m, &mut Vec::new(), &mut out);
    }
    out
}

/// Every key path the schema declares under `properties`.
pub fn schema_key_paths(schema: &Json) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    fn walk(schema: &Json, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        if let Some(props) = schema.get("properties").and_then(Json::as_object) {
            for (k, v) in props {
                path.push(k.clone());
                out.push(path.clone());
                walk(v, path, out);
                path.pop();
            }
        }
    }
    walk(schema, &mut Vec::new(), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn values(yaml: &str) -> Value {
        crate::yaml::parse_document(yaml).unwrap()
    }

    #[test]
    fn a_tree_checked_after_a_clean_one_gets_the_violations_a_fresh_check_finds() {
        let schema = r#"{
            "type": "object",
            "required": ["name"],
            "additionalProperties": false,
            "properties": {
                "name": {"type": "string"},
                "replicas": {"type": "integer", "minimum": 1},
                "proxy": {
                    "type": "object",
                    "required": ["level"],
                    "additionalProperties": false,
                    "properties": {
                        "level": {"enum": ["info", "debug"]},
                        "cpu": {"type": "object", "properties": {"request": {"type": "string"}}}
                    }
                }
            }
        }"#;
        let check = SchemaCheck::compile(schema).unwrap();
        for tree in [
            "name: a\nreplicas: 1\nproxy: {level: info, cpu: {request: 1m}}",
            "name: a\nreplicas: 1\nproxy: {level: info, cpu: {request: 1m}}",
            "name: a\nreplicas: 0\nproxy: {level: info, cpu: {request: 1m}}",
            "name: b\nreplicas: 2\nproxy: {level: info, cpu: {request: 1m}}",
            "name: b\nreplicas: 2\nproxy: {level: loud, cpu: {request: 1m}}",
            "name: b\nreplicas: 2\nproxy: {level: info, cpu: {request: 2}}",
            "name: b\nreplicas: 2\nproxy: {cpu: {request: 1m}}",
            "name: b\nreplicas: 2\nproxy: {level: info, cpu: {request: 1m}, x: 1}",
            "replicas: 2\nproxy: {level: info}",
            "name: b\nreplicas: 2\nproxy: {level: info}\nextra: 1",
            "name: 7\nreplicas: 2\nproxy: {level: info}",
        ] {
            let fresh = SchemaCheck::compile(schema).unwrap().check(&values(tree));
            assert_eq!(check.check(&values(tree)), fresh, "{tree}");
        }
    }

    #[test]
    fn keys_a_schema_level_cannot_see_are_not_copied_for_the_validator() {
        let schema = json!({
            "type": "object",
            "required": ["name"],
            "properties": {"proxy": {"properties": {"await": {"type": "boolean"}}}}
        });
        let instance = to_json_for(
            &values("name: x\nunknown: 1\nproxy: {await: yes, other: 2}\n"),
            &schema,
        );
        assert_eq!(instance, json!({"name": "x", "proxy": {"await": true}}));
    }

    #[test]
    fn a_level_that_may_look_at_every_key_is_copied_whole() {
        for level in [
            json!({"properties": {"a": {}}, "additionalProperties": false}),
            json!({"properties": {"a": {}}, "minProperties": 3}),
            json!({"type": "string"}),
            json!({"$ref": "#/definitions/x"}),
        ] {
            let instance = to_json_for(&values("a: 1\nb: 2\n"), &level);
            assert_eq!(instance, json!({"a": 1, "b": 2}), "{level}");
        }
    }
}
