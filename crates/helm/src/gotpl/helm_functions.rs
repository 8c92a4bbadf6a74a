//! Helm's own template functions for Go charts: `include`, `tpl`, `required`, `fail`,
//! `lookup`, and the YAML/JSON/TOML conversions, with Helm 3.17.1's results and failures.

use super::objects::{go_to_tree, values_to_go};
use super::sprig::string_arg;
use meshchart_gotemplate::{quote, Arity, Context, Error, FuncError, Map, Templates, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Marks the message of `required` and `fail`, which Helm cuts out of Go's error text to
/// print `execution error at (FILE:LINE:COL): MESSAGE` (Helm's own markers do the same).
pub(super) const ERROR_START: &str = "HELM_ERR_START";
/// The end of a marked message (see [`ERROR_START`]).
pub(super) const ERROR_END: &str = "HELM_ERR_END";

/// How many times one name may be included inside itself before Helm stops.
const MAX_NESTED_INCLUDES: usize = 1000;

fn function(
    set: &mut Templates,
    name: &str,
    arity: Arity,
    f: impl Fn(&[Value]) -> Result<Value, FuncError> + 'static,
) {
    set.add_function(
        name,
        arity,
        Rc::new(move |_: &mut Context<'_, '_>, args: &[Value]| f(args)),
    );
}

/// Adds Helm's functions to `set`.
pub(super) fn register(set: &mut Templates) {
    let counts: Rc<RefCell<HashMap<String, usize>>> = Rc::default();
    set.add_function(
        "include",
        Arity::Exact(2),
        Rc::new(move |ctx: &mut Context<'_, '_>, args: &[Value]| {
            let name = string_arg(args, 0)?.to_owned();
            let seen = counts.borrow().get(&name).copied();
            match seen {
                Some(n) if n > MAX_NESTED_INCLUDES => {
                    return Err(FuncError::Message(format!(
                        "rendering template has a nested reference name: {name}: unable to \
                         execute template"
                    )))
                }
                Some(n) => counts.borrow_mut().insert(name.clone(), n + 1),
                None => counts.borrow_mut().insert(name.clone(), 1),
            };
            let result = ctx.execute(&name, &args[1]);
            if let Some(n) = counts.borrow_mut().get_mut(&name) {
                *n -= 1;
            }
            result.map(Value::from).map_err(FuncError::from)
        }),
    );
    set.add_function(
        "tpl",
        Arity::Exact(2),
        Rc::new(|ctx: &mut Context<'_, '_>, args: &[Value]| {
            let text = string_arg(args, 0)?;
            let without_no_value = |out: &str| match out.contains("<no value>") {
                true => Value::from(out.replace("<no value>", "")),
                false => Value::from(out),
            };
            // Text without an action renders as itself: most values charts pass through `tpl`
            // are plain strings, which need no parse.
            if !text.contains("{{") {
                return Ok(without_no_value(text));
            }
            // Helm parses the text as a template named like the set ("gotpl") in a copy of the
            // set, and words the two kinds of failure differently.
            match ctx.execute_text("gotpl", text, &args[1]) {
                Ok(out) => Ok(without_no_value(&out)),
                Err(e @ Error::Parse { .. }) => Err(FuncError::Message(format!(
                    "cannot parse template {}: {e}",
                    quote(text, false)
                ))),
                Err(e) => Err(FuncError::Message(format!(
                    "error during tpl function execution for {}: {e}",
                    quote(text, false)
                ))),
            }
        }),
    );
    function(set, "required", Arity::Exact(2), |args| {
        let missing = args[1].is_nil() || args[1].as_str() == Some("");
        if missing {
            let message = string_arg(args, 0)?;
            return Err(FuncError::Message(format!(
                "{ERROR_START}{message}{ERROR_END}"
            )));
        }
        Ok(args[1].clone())
    });
    function(set, "fail", Arity::Exact(1), |args| {
        let message = string_arg(args, 0)?;
        Err(FuncError::Message(format!(
            "{ERROR_START}{message}{ERROR_END}"
        )))
    });
    // `helm template` has no cluster: every lookup finds nothing, an empty map.
    function(set, "lookup", Arity::Exact(4), |_| {
        Ok(Value::map(Map::new()))
    });
    function(set, "toYaml", Arity::Exact(1), |args| {
        Ok(Value::from(
            crate::yaml::try_to_yaml_within(&go_to_tree(&args[0]), crate::limits::MAX_STRING_BYTES)
                .unwrap_or_default(),
        ))
    });
    function(set, "mustToYaml", Arity::Exact(1), |args| {
        crate::yaml::try_to_yaml_within(&go_to_tree(&args[0]), crate::limits::MAX_STRING_BYTES)
            .map(Value::from)
            .map_err(|e| FuncError::Message(e.to_string()))
    });
    function(set, "toYamlPretty", Arity::Exact(1), |args| {
        Ok(Value::from(
            crate::yaml::try_to_yaml_pretty_within(
                &go_to_tree(&args[0]),
                crate::limits::MAX_STRING_BYTES,
            )
            .unwrap_or_default(),
        ))
    });
    function(set, "toJson", Arity::Exact(1), |args| {
        Ok(Value::from(
            crate::yaml::try_to_json(&go_to_tree(&args[0])).unwrap_or_default(),
        ))
    });
    function(set, "mustToJson", Arity::Exact(1), |args| {
        crate::yaml::try_to_json(&go_to_tree(&args[0]))
            .map(Value::from)
            .map_err(|e| FuncError::Message(e.to_string()))
    });
    function(set, "fromYaml", Arity::Exact(1), |args| {
        let text = string_arg(args, 0)?;
        Ok(match crate::yaml::parse_document(text) {
            Ok(tree @ crate::values::Value::Map(_)) => values_to_go(&tree),
            Ok(crate::values::Value::Null) => Value::map(Map::new()),
            Ok(other) => error_map(format!(
                "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into \
                 Go value of type map[string]interface {{}}",
                go_json_kind(&other)
            )),
            Err(e) => error_map(format!(
                "error converting YAML to JSON: yaml: {}",
                e.message
            )),
        })
    });
    function(set, "fromYamlArray", Arity::Exact(1), |args| {
        let text = string_arg(args, 0)?;
        Ok(match crate::yaml::parse_document(text) {
            Ok(tree @ crate::values::Value::Seq(_)) => values_to_go(&tree),
            Ok(crate::values::Value::Null) => Value::seq(Vec::new()),
            Ok(other) => Value::seq(vec![Value::from(format!(
                "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into \
                 Go value of type []interface {{}}",
                go_json_kind(&other)
            ))]),
            Err(e) => Value::seq(vec![Value::from(format!(
                "error converting YAML to JSON: yaml: {}",
                e.message
            ))]),
        })
    });
    function(set, "fromJson", Arity::Exact(1), |args| {
        let text = string_arg(args, 0)?;
        Ok(match serde_json::from_str::<serde_json::Value>(text) {
            Ok(serde_json::Value::Object(o)) => {
                values_to_go(&crate::values::Value::from(serde_json::Value::Object(o)))
            }
            Ok(_) | Err(_) => error_map("invalid JSON for a map".to_owned()),
        })
    });
    function(set, "fromJsonArray", Arity::Exact(1), |args| {
        let text = string_arg(args, 0)?;
        Ok(match serde_json::from_str::<serde_json::Value>(text) {
            Ok(array @ serde_json::Value::Array(_)) => {
                values_to_go(&crate::values::Value::from(array))
            }
            Ok(_) | Err(_) => Value::seq(vec![Value::from("invalid JSON for a list")]),
        })
    });
}

/// Helm's answer to a text `fromYaml` cannot read: a map holding the error under `Error`.
fn error_map(message: String) -> Value {
    let mut map = Map::new();
    map.insert("Error".into(), Value::from(message));
    Value::map(map)
}

/// Go's JSON name for the kind of a decoded value, as `encoding/json` words its errors.
fn go_json_kind(tree: &crate::values::Value) -> &'static str {
    match tree {
        crate::values::Value::Seq(_) => "array",
        crate::values::Value::String(_) => "string",
        crate::values::Value::Bool(_) => "bool",
        crate::values::Value::Map(_) => "object",
        _ => "number",
    }
}

/// Helm's rewrite of a parse error: `parse error at (FILE:LINE): LAST`, LAST the text after
/// the message's last `": "`.
pub fn helm_parse_error(error: &Error) -> String {
    let text = error.to_string();
    let tokens: Vec<&str> = text.split(": ").collect();
    match (tokens.get(1), tokens.last()) {
        (Some(location), Some(last)) => format!("parse error at ({location}): {last}"),
        _ => text.clone(),
    }
}

/// Helm's rewrite of an execution error: from `required` and `fail`, `execution error at
/// (LOCATION): MESSAGE`; anything else keeps Go's text.
pub fn helm_exec_error(error: &Error) -> String {
    let text = error.to_string();
    let tokens: Vec<&str> = text.splitn(3, ": ").collect();
    if let [_, location, rest] = tokens.as_slice() {
        if let (Some(s), Some(t)) = (rest.find(ERROR_START), rest.rfind(ERROR_END)) {
            if s + ERROR_START.len() <= t {
                return format!(
                    "execution error at ({location}): {}",
                    &rest[s + ERROR_START.len()..t]
                );
            }
        }
    }
    text
}
