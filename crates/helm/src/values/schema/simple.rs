//! The JSON Schema keywords the embedded charts' `values.schema.json` files use (`type`,
//! `enum`, `properties`, `additionalProperties`, `items`, `pattern`, `minimum`, `maximum`, and
//! the annotations `description`, `title`, `$schema`, `default`, `examples`, `$comment`), and
//! the few more common charts add (`const`, `required`, a root `$id`, as Traefik's schema has),
//! checked directly, with boon's semantics and its error kinds (so both checkers word a
//! violation alike): a failed `type`, `const` or `enum` ends the check of that value; then an
//! object's required keys and properties, an array's items, a string's pattern, a number's
//! bounds. A schema with any other keyword, or one of these malformed, is boon's
//! ([`supports`] says which).

use super::{to_json, violation, Violation};
use crate::values::Value;
use serde_json::{Map, Number, Value as Json};
use std::borrow::Cow;

/// Keywords that only annotate.
const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "$schema",
    "default",
    "examples",
    "$comment",
];

/// Whether every (sub)schema of `schema` uses only the keywords this module checks, each
/// well-formed (a `type` names JSON types, a `pattern` compiles, `minimum` is a number, ...).
pub(super) fn supports(schema: &Json) -> bool {
    let draft4 = schema
        .get("$schema")
        .and_then(Json::as_str)
        .is_some_and(is_draft4);
    supports_level(schema, schema, draft4)
}

/// [`supports`] for one level `schema` of the whole schema `root`, of draft 4 (`draft4`),
/// which has neither `const` nor `$id`.
fn supports_level(schema: &Json, root: &Json, draft4: bool) -> bool {
    let object = match schema {
        Json::Bool(_) => return true,
        Json::Object(object) => object,
        _ => return false,
    };
    let supports = |sub: &Json| supports_level(sub, root, draft4);
    if let Some(reference) = object.get("$ref") {
        // Beside a `$ref` only words that check nothing: then every draft means the same by
        // it (before 2019-09 a `$ref` hides its siblings; since, both apply).
        let alone = object.iter().all(|(keyword, _)| {
            !DRAFT_KEYWORDS.contains(&keyword.as_str())
                || ANNOTATIONS.contains(&keyword.as_str())
                || matches!(keyword.as_str(), "$ref" | "$defs" | "definitions")
                || (keyword == "$id" && std::ptr::eq(schema, root))
        });
        let Some(target) = reference.as_str().and_then(|r| local_definition(root, r)) else {
            return false;
        };
        // A definition that is itself only a reference could close a loop that reads no
        // value: boon reports such a loop; here it would never end.
        if !alone || target.get("$ref").is_some() {
            return false;
        }
    }
    object
        .iter()
        .all(|(keyword, value)| match keyword.as_str() {
            // Checked above; the definitions are checked where they are defined.
            "$ref" => true,
            "$defs" | "definitions" => value
                .as_object()
                .is_some_and(|definitions| definitions.values().all(supports)),
            "type" => match value {
                Json::String(name) => boon_type(name).is_some(),
                Json::Array(names) => {
                    !names.is_empty()
                        && names
                            .iter()
                            .all(|n| n.as_str().and_then(boon_type).is_some())
                }
                _ => false,
            },
            "enum" => value.as_array().is_some_and(|values| !values.is_empty()),
            "properties" => value
                .as_object()
                .is_some_and(|properties| properties.values().all(supports)),
            "additionalProperties" | "items" => {
                matches!(value, Json::Bool(_) | Json::Object(_)) && supports(value)
            }
            "pattern" => value
                .as_str()
                .is_some_and(|pattern| regex::Regex::new(pattern).is_ok()),
            "minimum" | "maximum" => value.is_number(),
            "const" => !draft4,
            // boon refuses an empty list in draft 4, and a name given twice in any draft.
            "required" => value.as_array().is_some_and(|names| {
                !names.is_empty()
                    && names
                        .iter()
                        .enumerate()
                        .all(|(i, name)| name.is_string() && !names[..i].contains(name))
            }),
            // The whole schema's name: it only matters to `$ref`, which boon resolves.
            "$id" => {
                std::ptr::eq(schema, root)
                    && !draft4
                    && value.as_str().is_some_and(is_absolute_name)
            }
            "$schema" => value
                .as_str()
                .is_some_and(|uri| is_known_draft(uri) && is_draft4(uri) == draft4),
            // A word no draft defines is no keyword: boon ignores it, as every draft says
            // (Bitnami's schemas carry `form`, `hidden` and `sliderMax` for their UI).
            other => ANNOTATIONS.contains(&other) || !DRAFT_KEYWORDS.contains(&other),
        })
}

/// Every keyword some JSON Schema draft (4 to 2020-12) defines. A schema using one this module
/// does not check goes to boon.
const DRAFT_KEYWORDS: &[&str] = &[
    "$anchor",
    "$comment",
    "$defs",
    "$dynamicAnchor",
    "$dynamicRef",
    "$id",
    "$recursiveAnchor",
    "$recursiveRef",
    "$ref",
    "$schema",
    "$vocabulary",
    "additionalItems",
    "additionalProperties",
    "allOf",
    "anyOf",
    "const",
    "contains",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "default",
    "definitions",
    "dependencies",
    "dependentRequired",
    "dependentSchemas",
    "deprecated",
    "description",
    "else",
    "enum",
    "examples",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "format",
    "id",
    "if",
    "items",
    "maxContains",
    "maximum",
    "maxItems",
    "maxLength",
    "maxProperties",
    "minContains",
    "minimum",
    "minItems",
    "minLength",
    "minProperties",
    "multipleOf",
    "not",
    "oneOf",
    "pattern",
    "patternProperties",
    "prefixItems",
    "properties",
    "propertyNames",
    "readOnly",
    "required",
    "then",
    "title",
    "type",
    "unevaluatedItems",
    "unevaluatedProperties",
    "uniqueItems",
    "writeOnly",
];

/// Whether `uri` names a draft boon knows as boon reads `$schema` (scheme and an empty
/// fragment aside): the keywords this module checks mean the same in each of them.
fn is_known_draft(uri: &str) -> bool {
    let uri = uri.strip_suffix('#').unwrap_or(uri);
    let uri = uri
        .strip_prefix("http://")
        .or_else(|| uri.strip_prefix("https://"))
        .unwrap_or(uri);
    matches!(
        uri,
        "json-schema.org/schema"
            | "json-schema.org/draft/2020-12/schema"
            | "json-schema.org/draft/2019-09/schema"
            | "json-schema.org/draft-07/schema"
            | "json-schema.org/draft-06/schema"
            | "json-schema.org/draft-04/schema"
    )
}

/// The definition a local `$ref` names: `#/$defs/NAME` or `#/definitions/NAME` in the whole
/// schema `root`, NAME plain (letters, digits, `-`, `_`, `.`: nothing a JSON pointer or a URL
/// would escape). Any other reference is boon's to resolve.
fn local_definition<'s>(root: &'s Json, reference: &str) -> Option<&'s Json> {
    let (container, name) = reference.strip_prefix("#/")?.split_once('/')?;
    let plain = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if !plain || !matches!(container, "$defs" | "definitions") {
        return None;
    }
    root.get(container)?.get(name)
}

/// Whether `uri` (one [`is_known_draft`] knows) names draft 4.
fn is_draft4(uri: &str) -> bool {
    uri.contains("draft-04")
}

/// Whether a `$id` is an absolute http(s) URL without a fragment: the form boon takes as a
/// schema's name without a second look.
fn is_absolute_name(uri: &str) -> bool {
    let rest = uri
        .strip_prefix("https://")
        .or_else(|| uri.strip_prefix("http://"));
    rest.is_some_and(|rest| {
        !rest.is_empty()
            && rest
                .chars()
                .all(|c| c.is_ascii_graphic() && !matches!(c, '#' | '%' | '\\' | '"'))
    })
}

fn boon_type(name: &str) -> Option<boon::Type> {
    Some(match name {
        "null" => boon::Type::Null,
        "boolean" => boon::Type::Boolean,
        "number" => boon::Type::Number,
        "integer" => boon::Type::Integer,
        "string" => boon::Type::String,
        "array" => boon::Type::Array,
        "object" => boon::Type::Object,
        _ => return None,
    })
}

fn type_of(value: &Value) -> boon::Type {
    match value {
        Value::Null => boon::Type::Null,
        Value::Bool(_) => boon::Type::Boolean,
        // What JSON (and so boon) sees: NaN and the infinities become null.
        Value::Float(f) if !f.is_finite() => boon::Type::Null,
        Value::Int(_) | Value::Float(_) | Value::Number(_) => boon::Type::Number,
        Value::String(_) => boon::Type::String,
        Value::Seq(_) => boon::Type::Array,
        Value::Map(_) => boon::Type::Object,
    }
}

fn is_integer(value: &Value) -> bool {
    match value {
        Value::Int(_) => true,
        Value::Float(f) => f.fract() == 0.0,
        _ => false,
    }
}

/// A number as JSON has it (`None` for NaN and the infinities, which JSON has not).
fn number(value: &Value) -> Option<Number> {
    match value {
        Value::Int(i) => Some(Number::from(*i)),
        Value::Float(f) => Number::from_f64(*f),
        _ => None,
    }
}

/// JSON Schema equality: numbers by value (`1` is `1.0`), the rest structurally.
fn equals(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => numbers_equal(x, y),
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| equals(x, y))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, value)| y.get(key).is_some_and(|other| equals(value, other)))
        }
        _ => a == b,
    }
}

fn numbers_equal(x: &Number, y: &Number) -> bool {
    if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
        return x == y;
    }
    x.as_f64() == y.as_f64()
}

/// `x` against `y` by value (`None` for NaN, which JSON has not).
fn compare(x: &Number, y: &Number) -> Option<std::cmp::Ordering> {
    if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
        return Some(x.cmp(&y));
    }
    if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
        return Some(x.cmp(&y));
    }
    x.as_f64()?.partial_cmp(&y.as_f64()?)
}

/// Checks `values` against `schema` (one [`supports`] accepted), adding each violation. It
/// walks the values tree itself: converting a whole tree to JSON first cost more than the
/// check (its certificates and keys copied for every cluster of a fleet); only a value that
/// fails is converted, for the message.
/// `references`: whether any level of `schema` holds a `$ref` ([`has_references`]); without
/// one no level need look (a fleet checks every cluster against one schema).
///
///
/// Map entries equal to those at the same path of `clean` (a tree that met this schema) are
/// not checked again: the schema at a path is the same whatever the rest of the tree, so the
/// same value there breaks nothing. Each map that changed is itself checked (its required and
/// unknown keys), and its entries as far as they changed. Returns which top-level entries of
/// `values` (by their place in it) were equal to `clean`'s.
pub(super) fn check(
    schema: &Json,
    references: bool,
    values: &Value,
    clean: Option<&Value>,
    out: &mut Vec<Violation>,
) -> Vec<usize> {
    let root = references.then_some(schema);
    let mut unchanged = Vec::new();
    check_level(
        root,
        schema,
        values,
        &mut Vec::new(),
        clean,
        &mut unchanged,
        out,
    );
    unchanged
}

/// Whether any level of `schema` holds a `$ref`.
pub(super) fn has_references(schema: &Json) -> bool {
    match schema {
        Json::Object(object) => object.contains_key("$ref") || object.values().any(has_references),
        Json::Array(items) => items.iter().any(has_references),
        _ => false,
    }
}

fn fail(path: &[String], kind: &boon::ErrorKind, value: &Value, schema: &Json) -> Violation {
    violation(path.to_vec(), kind, &to_json(value), Some(schema))
}

/// [`check`] of `value` against `schema`, one level of the whole schema `root` (`None`: a
/// schema without references).
fn check_at(
    root: Option<&Json>,
    schema: &Json,
    value: &Value,
    path: &mut Vec<String>,
    out: &mut Vec<Violation>,
) {
    check_level(root, schema, value, path, None, &mut Vec::new(), out);
}

/// [`check_at`], skipping the entries of a map `value` equal to those of the map `clean`
/// (what a tree that met the schema held at this path), and noting their places in
/// `unchanged`.
fn check_level(
    root: Option<&Json>,
    schema: &Json,
    value: &Value,
    path: &mut Vec<String>,
    clean: Option<&Value>,
    unchanged: &mut Vec<usize>,
    out: &mut Vec<Violation>,
) {
    let object: &Map<String, Json> = match schema {
        Json::Bool(true) => return,
        Json::Bool(false) => {
            out.push(fail(path, &boon::ErrorKind::FalseSchema, value, schema));
            return;
        }
        Json::Object(object) => object,
        _ => return,
    };
    // `supports` let a `$ref` through only with nothing else to check beside it.
    if let Some(root) = root {
        if let Some(reference) = object.get("$ref").and_then(Json::as_str) {
            if let Some(definition) = local_definition(root, reference) {
                check_level(Some(root), definition, value, path, clean, unchanged, out);
            }
            return;
        }
    }
    if let Some(listed) = object.get("type") {
        let types: boon::Types = match listed {
            Json::String(name) => boon_type(name).into_iter().collect(),
            Json::Array(names) => names
                .iter()
                .filter_map(|n| n.as_str().and_then(boon_type))
                .collect(),
            _ => boon::Types::default(),
        };
        let got = type_of(value);
        let matched =
            types.contains(got) || (types.contains(boon::Type::Integer) && is_integer(value));
        if !matched {
            let kind = boon::ErrorKind::Type { got, want: types };
            out.push(fail(path, &kind, value, schema));
            return;
        }
    }
    if let Some(wanted) = object.get("const") {
        if !equals(wanted, &to_json(value)) {
            let kind = boon::ErrorKind::Const { want: wanted };
            out.push(fail(path, &kind, value, schema));
            return;
        }
    }
    if let Some(Json::Array(allowed)) = object.get("enum") {
        let json = to_json(value);
        if !allowed.iter().any(|a| equals(a, &json)) {
            let kind = boon::ErrorKind::Enum { want: allowed };
            out.push(fail(path, &kind, value, schema));
            return;
        }
    }
    match value {
        Value::Map(map) => {
            if let Some(Json::Array(required)) = object.get("required") {
                let missing: Vec<&str> = required
                    .iter()
                    .filter_map(Json::as_str)
                    .filter(|name| !map.contains_key(*name))
                    .collect();
                if !missing.is_empty() {
                    let kind = boon::ErrorKind::Required { want: missing };
                    out.push(fail(path, &kind, value, schema));
                }
            }
            let properties = object.get("properties").and_then(Json::as_object);
            let additional = object.get("additionalProperties");
            let mut extra: Vec<Cow<str>> = Vec::new();
            for (place, (key, child)) in map.iter().enumerate() {
                let sub = match properties.and_then(|p| p.get(key)) {
                    Some(sub) => sub,
                    None => match additional {
                        Some(Json::Bool(false)) => {
                            extra.push(Cow::Borrowed(key.as_str()));
                            continue;
                        }
                        Some(sub) => sub,
                        None => continue,
                    },
                };
                let before = match clean {
                    Some(Value::Map(entries)) => entries.get(key),
                    _ => None,
                };
                if before == Some(child) {
                    unchanged.push(place);
                    continue;
                }
                path.push(key.clone());
                check_level(root, sub, child, path, before, &mut Vec::new(), out);
                path.pop();
            }
            if !extra.is_empty() {
                let kind = boon::ErrorKind::AdditionalProperties { got: extra };
                out.push(fail(path, &kind, value, schema));
            }
        }
        Value::Seq(items) => {
            if let Some(sub) = object.get("items") {
                for (index, item) in items.iter().enumerate() {
                    path.push(index.to_string());
                    check_at(root, sub, item, path, out);
                    path.pop();
                }
            }
        }
        Value::String(text) => {
            if let Some(Json::String(pattern)) = object.get("pattern") {
                let matches = regex::Regex::new(pattern).is_ok_and(|re| re.is_match(text));
                if !matches {
                    let kind = boon::ErrorKind::Pattern {
                        got: Cow::Borrowed(text.as_str()),
                        want: pattern,
                    };
                    out.push(fail(path, &kind, value, schema));
                }
            }
        }
        Value::Int(_) | Value::Float(_) => {
            use std::cmp::Ordering::{Greater, Less};
            // NaN and the infinities are null to JSON, and so to boon: no bound applies.
            let Some(got) = number(value) else {
                return;
            };
            if let Some(Json::Number(min)) = object.get("minimum") {
                if compare(&got, min) == Some(Less) {
                    let kind = boon::ErrorKind::Minimum {
                        got: Cow::Borrowed(&got),
                        want: min,
                    };
                    out.push(fail(path, &kind, value, schema));
                }
            }
            if let Some(Json::Number(max)) = object.get("maximum") {
                if compare(&got, max) == Some(Greater) {
                    let kind = boon::ErrorKind::Maximum {
                        got: Cow::Borrowed(&got),
                        want: max,
                    };
                    out.push(fail(path, &kind, value, schema));
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::super::SchemaCheck;
    use super::*;
    use crate::yaml::parse_document;

    /// The embedded charts' schemas, which this checker serves.
    const SCHEMAS: [&str; 3] = [
        include_str!("../../../../../values/edge-21.4.4/linkerd-control-plane/values.schema.json"),
        include_str!("../../../../../values/edge-24.10.2/linkerd-control-plane/values.schema.json"),
        include_str!("../../../../../values/edge-26.8.3/linkerd-control-plane/values.schema.json"),
    ];

    /// Values that break the embedded schemas in every way they can be broken, and some that
    /// do not.
    const VALUES: &[&str] = &[
        "webhookFailurePolicy: fail",
        "webhookFailurePolicy: 5",
        "webhookFailurePolicy: Fail",
        "heartbeatSchedule: 5\nhighAvailability: yes-please",
        "proxy: {await: 'yes', awaitTimeout: 2x, logLevel: [a]}",
        "proxy: {awaitTimeout: 1m30s, ports: {admin: -1, proxy: 99999999}}",
        "proxy: 3",
        "controllerReplicas: 1.5\nproxyInit: {ignoreInboundPorts: [1, 2]}",
        "controllerReplicas: 2.0\nnodeAffinity: {x: 1}\ntolerations: {}",
        "identity: {issuer: {scheme: 7, tls: {crtPEM: 1}}}",
        "a: {b: c}\nimagePullSecrets: [1, {name: 2}]",
        "policyController: {logLevel: 3, resources: {cpu: {limit: 1}}}",
        "podLabels: {a: 1}\ncniEnabled: 'false'\ndebugContainer: {image: {name: 1}}",
    ];

    #[test]
    fn closed_maps_items_false_schemas_and_bounds_fail_as_in_boon() {
        let schema_text = r#"{
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "a": {"type": ["integer", "null"], "minimum": 1, "maximum": 3},
                "b": {"type": "array", "items": {"enum": ["x", 1]}},
                "c": false,
                "d": {"pattern": "^a", "type": "string"},
                "e": {"type": "object", "additionalProperties": {"type": "boolean"}}
            }
        }"#;
        let schema: Json = serde_json::from_str(schema_text).unwrap();
        let boon = SchemaCheck::compile_with_boon(schema).unwrap();
        let simple = SchemaCheck::compile(schema_text).unwrap();
        for yaml in [
            "a: 0\nb: [x, 1.0, y, 2]\nc: 1\nd: ba\ne: {f: 1, g: true}\nz: 1\ny: 2",
            "a: 4.0\nb: x",
            "a: 2.5\nd: 3",
            "a: ~\nb: []\nd: abc\ne: {}",
        ] {
            let values = parse_document(yaml).unwrap();
            let ours = simple.check(&values);
            assert_eq!(ours, boon.check(&values), "{yaml}");
            assert!(!ours.is_empty() || yaml.starts_with("a: ~"), "{yaml}");
        }
    }

    #[test]
    fn it_takes_the_embedded_schemas_and_leaves_others_to_boon() {
        for schema in SCHEMAS {
            assert!(supports(&serde_json::from_str(schema).unwrap()));
        }
        for other in [
            r#"{"required": "a"}"#,
            r#"{"required": ["a", "a"]}"#,
            r#"{"required": []}"#,
            r#"{"$schema": "http://json-schema.org/draft-04/schema#", "const": 1}"#,
            r#"{"properties": {"a": {"$id": "https://example.com/a.json"}}}"#,
            r#"{"$id": "a.json"}"#,
            r##"{"$defs": {"a": {}}, "properties": {"x": {"$ref": "#/$defs/a", "type": "string"}}}"##,
            r##"{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {}}, "$ref": "#/$defs/a"}"##,
            r##"{"properties": {"x": {"$ref": "#/$defs/missing"}}}"##,
            r##"{"properties": {"a": {}, "x": {"$ref": "#/properties/a"}}}"##,
            r##"{"$defs": {"a~1b": {}}, "$ref": "#/$defs/a~1b"}"##,
            r#"{"$ref": "https://example.com/other.json"}"#,
            r#"{"type": "strng"}"#,
            r#"{"minimum": "5"}"#,
            r#"{"pattern": "("}"#,
            r#"{"items": [{"type": "string"}]}"#,
            r#"{"properties": {"a": {"oneOf": [{"type": "string"}]}}}"#,
            r#"{"$schema": "https://example.com/draft/2020-12/schema"}"#,
            r#"{"properties": {"a": {"form": true, "not": {}}}}"#,
        ] {
            assert!(!supports(&serde_json::from_str(other).unwrap()), "{other}");
        }
    }

    #[test]
    fn const_required_and_a_root_id_check_as_in_boon() {
        // The shape of Traefik's schema: a named draft 2020-12 schema, a switch that must stay
        // on, and a map that must name its keys.
        let schema_text = r#"{
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://example.com/chart.schema.json",
            "type": "object",
            "properties": {
                "enabled": {"type": "boolean", "const": true},
                "mode": {"const": {"kind": "a", "n": 1}},
                "watch": {
                    "type": "object",
                    "required": ["namespaces", "labels"],
                    "properties": {"namespaces": {"type": "array", "items": {"type": "string"}}}
                }
            }
        }"#;
        let broken = broken_as_in_boon(
            schema_text,
            &[
                "enabled: false\nmode: {kind: a, n: 1.0}\nwatch: {namespaces: [a], labels: {}}",
                "enabled: 1\nmode: {kind: b, n: 1}\nwatch: {}",
                "enabled: true\nmode: a\nwatch: {labels: x, namespaces: [1]}",
                "enabled: true\nwatch: {namespaces: [], labels: []}",
            ],
        );
        assert_eq!(broken, [true, true, true, false]);
    }

    /// Checks each of `values_texts` against `schema_text` (which the simple checker must
    /// take) by both checkers, which must find the same violations in the same words; says
    /// which values broke the schema.
    fn broken_as_in_boon(schema_text: &str, values_texts: &[&str]) -> Vec<bool> {
        let schema: Json = serde_json::from_str(schema_text).unwrap();
        assert!(supports(&schema), "{schema_text}");
        let boon = SchemaCheck::compile_with_boon(schema).unwrap();
        let simple = SchemaCheck::compile(schema_text).unwrap();
        assert!(matches!(simple.engine, super::super::Engine::Simple { .. }));
        values_texts
            .iter()
            .map(|yaml| {
                let values = parse_document(yaml).unwrap();
                let ours = simple.check(&values);
                assert_eq!(ours, boon.check(&values), "{schema_text}: {yaml}");
                !ours.is_empty()
            })
            .collect()
    }

    #[test]
    fn local_references_check_as_in_boon() {
        // cert-manager's shape (the whole schema a reference into `$defs`, draft 7), the
        // Prometheus community's (`definitions`), and the newest draft's.
        let schemas = [
            r##"{
                "$schema": "http://json-schema.org/draft-07/schema#",
                "$ref": "#/$defs/helm-values",
                "$defs": {
                    "helm-values": {
                        "type": "object",
                        "additionalProperties": false,
                        "properties": {
                            "replicas": {"$ref": "#/$defs/helm-values.replicas"},
                            "image": {"$ref": "#/$defs/helm-values.image"},
                            "extraArgs": {"type": "array", "items": {"$ref": "#/$defs/arg"}}
                        }
                    },
                    "helm-values.replicas": {"type": "integer", "minimum": 1,
                                             "description": "how many"},
                    "helm-values.image": {
                        "type": "object",
                        "required": ["repository"],
                        "properties": {"pullPolicy": {"enum": ["Always", "IfNotPresent"]}}
                    },
                    "arg": {"type": "string", "pattern": "^--"}
                }
            }"##,
            r##"{
                "$schema": "http://json-schema.org/draft-07/schema#",
                "definitions": {
                    "image": {"type": "object", "properties": {"tag": {"type": "string"}}},
                    "arg": {"type": "string", "pattern": "^--"}
                },
                "type": "object",
                "properties": {
                    "replicas": {"type": "integer", "minimum": 1},
                    "image": {"$ref": "#/definitions/image", "description": "the image"},
                    "extraArgs": {"type": "array", "items": {"$ref": "#/definitions/arg"}}
                }
            }"##,
            r##"{
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "$id": "https://example.com/chart.schema.json",
                "$defs": {
                    "image": {"type": "object", "additionalProperties": {"$ref": "#/$defs/tag"}},
                    "tag": {"type": ["string", "null"]},
                    "arg": {"type": "string", "pattern": "^--"}
                },
                "type": "object",
                "properties": {
                    "replicas": {"type": "integer", "minimum": 1},
                    "image": {"$ref": "#/$defs/image"},
                    "extraArgs": {"type": "array", "items": {"$ref": "#/$defs/arg"}}
                }
            }"##,
        ];
        for schema_text in schemas {
            let broken = broken_as_in_boon(
                schema_text,
                &[
                    "replicas: 0\nimage: {tag: 1, pullPolicy: Never}\nextraArgs: [--a, b, 3]",
                    "replicas: two\nimage: v1\nextraArgs: --a\nother: 1",
                    "replicas: 2\nimage: {repository: r, tag: v1, pullPolicy: Always}\n\
                     extraArgs: [--a]",
                ],
            );
            assert_eq!(broken, [true, true, false], "{schema_text}");
        }
    }

    #[test]
    fn words_no_draft_defines_and_every_draft_boon_knows_check_as_in_boon() {
        // As Bitnami's schemas are: the newest draft, and keywords of their own for a UI.
        for draft in [
            "http://json-schema.org/schema#",
            "https://json-schema.org/draft/2020-12/schema",
            "https://json-schema.org/draft/2019-09/schema",
            "http://json-schema.org/draft-04/schema#",
        ] {
            let schema_text = format!(
                r#"{{
                    "$schema": "{draft}",
                    "type": "object",
                    "properties": {{
                        "replicas": {{"type": "integer", "form": true, "sliderMin": 1,
                                      "minimum": 1, "hidden": {{"value": false, "path": "x"}}}},
                        "image": {{"type": "object", "additionalProperties": false,
                                   "properties": {{"tag": {{"type": "string", "render": "x"}}}}}},
                        "ports": {{"type": "array", "items": {{"enum": [80, 443]}}}}
                    }}
                }}"#
            );
            let schema: Json = serde_json::from_str(&schema_text).unwrap();
            assert!(supports(&schema), "{draft}");
            let boon = SchemaCheck::compile_with_boon(schema).unwrap();
            let simple = SchemaCheck::compile(&schema_text).unwrap();
            for yaml in [
                "replicas: 0\nimage: {tag: 1, digest: x}\nports: [80, 8080]",
                "replicas: 1.5\nimage: v1\nports: 443",
                "replicas: 2\nimage: {tag: v1}\nports: [443.0]",
            ] {
                let values = parse_document(yaml).unwrap();
                let ours = simple.check(&values);
                assert_eq!(ours, boon.check(&values), "{draft}: {yaml}");
                assert!(
                    !ours.is_empty() || yaml.starts_with("replicas: 2"),
                    "{yaml}"
                );
            }
        }
    }

    #[test]
    fn it_finds_what_boon_finds_in_the_words_boon_finds_it() {
        for schema_text in SCHEMAS {
            let schema: Json = serde_json::from_str(schema_text).unwrap();
            let boon = SchemaCheck::compile_with_boon(schema).unwrap();
            let simple = SchemaCheck::compile(schema_text).unwrap();
            assert!(matches!(simple.engine, super::super::Engine::Simple { .. }));
            let mut broken = 0;
            for yaml in VALUES {
                let values = parse_document(yaml).unwrap();
                let ours = simple.check(&values);
                assert_eq!(ours, boon.check(&values), "{yaml}");
                broken += usize::from(!ours.is_empty());
            }
            assert!(broken >= 5, "only {broken} value sets broke the schema");
        }
    }
}
