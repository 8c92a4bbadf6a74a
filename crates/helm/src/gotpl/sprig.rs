//! Sprig v3.3.0's functions for Go charts.
//!
//! Those whose meaning depends on Go's types or on maps being shared references are written
//! here against Go's values: `dict`, `set`, `unset`, `merge` change the map they are given,
//! as Sprig's do, and every holder sees it; `default`, `empty`, `coalesce` and `ternary` use
//! Sprig's emptiness; the string functions charts call on every line (`quote`, `indent`,
//! `nindent`, `trim`...) run without conversions. The rest reach the library meshchart's Jinja
//! engine already has (`crate::engine::functions`), written once in Sprig's argument order:
//! their arguments go over as meshchart's value tree and their results come back.

use super::objects::{go_to_tree, result_to_go};
use crate::engine::{from_jinja, to_jinja};
use meshchart_gotemplate::{
    quote as go_quote, sprint, Arity, Context, FuncError, Map, Templates, Value,
};
use std::rc::Rc;

/// Go's builtins Sprig does not replace: the library's functions of these names stay unused.
const GO_BUILTINS: &[&str] = &[
    "and", "or", "not", "len", "index", "print", "printf", "println", "html", "js", "urlquery",
    "call", "eq", "ne", "lt", "le", "gt", "ge",
];

fn add(
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

/// Sprig's `strval`: a string as is, anything else as `%v` prints it.
fn strval(value: &Value) -> String {
    match value {
        Value::String(s) => s.to_string(),
        other => sprint(std::slice::from_ref(other)),
    }
}

/// Argument `index` as a string, else the error naming it (shared by every function set).
pub(super) fn string_arg(args: &[Value], index: usize) -> Result<&str, FuncError> {
    args.get(index)
        .and_then(Value::as_str)
        .ok_or(FuncError::WrongType {
            index,
            expected: "string".into(),
        })
}

fn int_arg(args: &[Value], index: usize) -> Result<i64, FuncError> {
    match args.get(index) {
        Some(Value::Int(i) | Value::Int64(i)) => Ok(*i),
        Some(Value::Float(f)) if f.fract() == 0.0 => Ok(*f as i64),
        _ => Err(FuncError::WrongType {
            index,
            expected: "int".into(),
        }),
    }
}

/// Sprig's `empty`: nil, a zero number, `false`, and an empty string, list or map.
pub(super) fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Int(i) | Value::Int64(i) => *i == 0,
        Value::Float(f) => *f == 0.0,
        Value::String(s) => s.is_empty(),
        Value::Seq(items) => items.is_empty(),
        Value::Map(map) => map.borrow().is_empty(),
        Value::Object(object) => object.as_map().is_some_and(|m| m.borrow().is_empty()),
    }
}

fn map_arg(args: &[Value], index: usize) -> Result<Rc<std::cell::RefCell<Map>>, FuncError> {
    match args.get(index) {
        Some(Value::Map(map)) => Ok(map.clone()),
        // Go passes nil to a map parameter as a nil map: empty to read.
        Some(Value::Null) => Ok(Rc::default()),
        Some(Value::Object(object)) if object.as_map().is_some() => {
            Ok(object.as_map().cloned().unwrap_or_default())
        }
        _ => Err(FuncError::WrongType {
            index,
            expected: "map[string]interface {}".into(),
        }),
    }
}

/// A deep copy: maps and lists of its own, so changing it leaves the original alone.
fn deep_copy(value: &Value) -> Value {
    match value {
        Value::Map(map) => Value::map(
            map.borrow()
                .iter()
                .map(|(k, v)| (k.clone(), deep_copy(v)))
                .collect(),
        ),
        Value::Seq(items) => Value::seq(items.iter().map(deep_copy).collect()),
        // `chartutil.Values` (the type of `.` and `.Values`) stays itself, its map copied.
        Value::Object(object) if object.type_name() == "chartutil.Values" => {
            match object.as_map() {
                Some(map) => match deep_copy(&Value::Map(map.clone())) {
                    Value::Map(copied) => super::objects::chartutil_values(copied.borrow().clone()),
                    other => other,
                },
                None => Value::Object(object.clone()),
            }
        }
        other => other.clone(),
    }
}

/// mergo's merge of `source` into `destination` as Sprig calls it: a key the destination
/// lacks (or holds empty) takes the source's; maps on both sides merge deeper; with
/// `overwrite`, a non-empty source value also replaces the destination's.
fn merge_into(destination: &mut Map, source: &Map, overwrite: bool) {
    for (key, from) in source {
        match destination.get_mut(key) {
            Some(Value::Map(to)) if matches!(from, Value::Map(_)) => {
                if let Value::Map(from) = from {
                    if !Rc::ptr_eq(to, from) {
                        let from = from.borrow().clone();
                        merge_into(&mut to.borrow_mut(), &from, overwrite);
                    }
                }
            }
            Some(to) if is_empty(to) || (overwrite && !is_empty(from)) => {
                *to = from.clone();
            }
            Some(_) => {}
            None => {
                destination.insert(key.clone(), from.clone());
            }
        }
    }
}

fn merge(args: &[Value], overwrite: bool) -> Result<Value, FuncError> {
    let destination = map_arg(args, 0)?;
    for index in 1..args.len() {
        let source = map_arg(args, index)?;
        if Rc::ptr_eq(&destination, &source) {
            continue;
        }
        let source = source.borrow().clone();
        merge_into(&mut destination.borrow_mut(), &source, overwrite);
    }
    Ok(Value::Map(destination))
}

/// Adds Sprig's functions to `set`: those written here, then the library's others.
pub(super) fn register(set: &mut Templates) {
    add(set, "list", Arity::AtLeast(0), |args| {
        Ok(Value::seq(args.to_vec()))
    });
    add(set, "tuple", Arity::AtLeast(0), |args| {
        Ok(Value::seq(args.to_vec()))
    });
    add(set, "dict", Arity::AtLeast(0), |args| {
        let mut map = Map::new();
        for pair in args.chunks(2) {
            let value = pair.get(1).cloned().unwrap_or_else(|| Value::from(""));
            map.insert(strval(&pair[0]), value);
        }
        Ok(Value::map(map))
    });
    add(set, "set", Arity::Exact(3), |args| {
        let map = map_arg(args, 0)?;
        let key = string_arg(args, 1)?.to_owned();
        map.borrow_mut().insert(key, args[2].clone());
        Ok(Value::Map(map))
    });
    add(set, "unset", Arity::Exact(2), |args| {
        let map = map_arg(args, 0)?;
        map.borrow_mut().remove(string_arg(args, 1)?);
        Ok(Value::Map(map))
    });
    add(set, "hasKey", Arity::Exact(2), |args| {
        let map = map_arg(args, 0)?;
        let has = map.borrow().contains_key(string_arg(args, 1)?);
        Ok(Value::Bool(has))
    });
    add(set, "get", Arity::Exact(2), |args| {
        let map = map_arg(args, 0)?;
        let value = map.borrow().get(string_arg(args, 1)?).cloned();
        Ok(value.unwrap_or_else(|| Value::from("")))
    });
    add(set, "keys", Arity::AtLeast(0), |args| {
        let mut keys = Vec::new();
        for index in 0..args.len() {
            keys.extend(
                map_arg(args, index)?
                    .borrow()
                    .keys()
                    .map(|k| Value::from(k.as_str())),
            );
        }
        Ok(Value::seq(keys))
    });
    add(set, "merge", Arity::AtLeast(1), |args| merge(args, false));
    add(set, "mustMerge", Arity::AtLeast(1), |args| {
        merge(args, false)
    });
    add(set, "mergeOverwrite", Arity::AtLeast(1), |args| {
        merge(args, true)
    });
    add(set, "mustMergeOverwrite", Arity::AtLeast(1), |args| {
        merge(args, true)
    });
    add(set, "deepCopy", Arity::Exact(1), |args| {
        Ok(deep_copy(&args[0]))
    });
    add(set, "mustDeepCopy", Arity::Exact(1), |args| {
        Ok(deep_copy(&args[0]))
    });
    add(set, "default", Arity::AtLeast(1), |args| {
        match args.get(1) {
            Some(given) if !is_empty(given) => Ok(given.clone()),
            _ => Ok(args[0].clone()),
        }
    });
    add(set, "empty", Arity::Exact(1), |args| {
        Ok(Value::Bool(is_empty(&args[0])))
    });
    add(set, "coalesce", Arity::AtLeast(0), |args| {
        Ok(args
            .iter()
            .find(|v| !is_empty(v))
            .cloned()
            .unwrap_or_default())
    });
    add(set, "ternary", Arity::Exact(3), |args| {
        Ok(if args[2].is_true() {
            args[0].clone()
        } else {
            args[1].clone()
        })
    });
    add(set, "quote", Arity::AtLeast(0), |args| {
        let quoted: Vec<String> = args
            .iter()
            .filter(|v| !v.is_nil())
            .map(|v| go_quote(&strval(v), false))
            .collect();
        Ok(Value::from(quoted.join(" ")))
    });
    add(set, "squote", Arity::AtLeast(0), |args| {
        let quoted: Vec<String> = args
            .iter()
            .filter(|v| !v.is_nil())
            .map(|v| format!("'{}'", strval(v)))
            .collect();
        Ok(Value::from(quoted.join(" ")))
    });
    add(set, "toString", Arity::Exact(1), |args| {
        Ok(Value::from(strval(&args[0])))
    });
    add(set, "cat", Arity::AtLeast(0), |args| {
        let words: Vec<String> = args.iter().filter(|v| !v.is_nil()).map(strval).collect();
        Ok(Value::from(words.join(" ")))
    });
    add(set, "indent", Arity::Exact(2), |args| {
        let pad = " ".repeat(usize::try_from(int_arg(args, 0)?).unwrap_or(0));
        let text = string_arg(args, 1)?;
        Ok(Value::from(format!(
            "{pad}{}",
            text.replace('\n', &format!("\n{pad}"))
        )))
    });
    add(set, "nindent", Arity::Exact(2), |args| {
        let pad = " ".repeat(usize::try_from(int_arg(args, 0)?).unwrap_or(0));
        let text = string_arg(args, 1)?;
        Ok(Value::from(format!(
            "\n{pad}{}",
            text.replace('\n', &format!("\n{pad}"))
        )))
    });
    add(set, "trim", Arity::Exact(1), |args| {
        Ok(Value::from(string_arg(args, 0)?.trim()))
    });
    add(set, "upper", Arity::Exact(1), |args| {
        Ok(Value::from(string_arg(args, 0)?.to_uppercase()))
    });
    add(set, "lower", Arity::Exact(1), |args| {
        Ok(Value::from(string_arg(args, 0)?.to_lowercase()))
    });
    add(set, "trimSuffix", Arity::Exact(2), |args| {
        let (suffix, text) = (string_arg(args, 0)?, string_arg(args, 1)?);
        Ok(Value::from(text.strip_suffix(suffix).unwrap_or(text)))
    });
    add(set, "trimPrefix", Arity::Exact(2), |args| {
        let (prefix, text) = (string_arg(args, 0)?, string_arg(args, 1)?);
        Ok(Value::from(text.strip_prefix(prefix).unwrap_or(text)))
    });
    add(set, "contains", Arity::Exact(2), |args| {
        Ok(Value::Bool(
            string_arg(args, 1)?.contains(string_arg(args, 0)?),
        ))
    });
    add(set, "hasPrefix", Arity::Exact(2), |args| {
        Ok(Value::Bool(
            string_arg(args, 1)?.starts_with(string_arg(args, 0)?),
        ))
    });
    add(set, "hasSuffix", Arity::Exact(2), |args| {
        Ok(Value::Bool(
            string_arg(args, 1)?.ends_with(string_arg(args, 0)?),
        ))
    });
    add(set, "replace", Arity::Exact(3), |args| {
        let (old, new, text) = (
            string_arg(args, 0)?,
            string_arg(args, 1)?,
            string_arg(args, 2)?,
        );
        Ok(Value::from(text.replace(old, new)))
    });
    add(set, "trunc", Arity::Exact(2), |args| {
        let length = int_arg(args, 0)?;
        let text = string_arg(args, 1)?;
        let count = text.len() as i64;
        Ok(Value::from(match length {
            l if l < 0 && -l < count => &text[(count + l) as usize..],
            l if l >= 0 && l < count => &text[..l as usize],
            _ => text,
        }))
    });
    add(set, "b64enc", Arity::Exact(1), |args| {
        use base64::Engine as _;
        Ok(Value::from(
            base64::engine::general_purpose::STANDARD.encode(string_arg(args, 0)?),
        ))
    });
    register_typed(set);
    bridge_library(set);
}

/// Registers every library function not written here and not one of Go's builtins.
fn bridge_library(set: &mut Templates) {
    for name in crate::engine::functions::function_names() {
        // Sprig replaces Go's `slice`; the other builtins stay Go's.
        if GO_BUILTINS.contains(&name) || (name != "slice" && set.has_function(name)) {
            continue;
        }
        let Some(call) = crate::engine::functions::library_function(name) else {
            continue;
        };
        set.add_function(
            name,
            Arity::AtLeast(0),
            Rc::new(move |_: &mut Context<'_, '_>, args: &[Value]| {
                let values: Vec<_> = args.iter().map(|v| to_jinja(&go_to_tree(v))).collect();
                let result = call(&values).map_err(|e| FuncError::Message(e.to_string()))?;
                let tree = from_jinja(&result).map_err(|e| FuncError::Message(e.to_string()))?;
                Ok(result_to_go(&tree))
            }),
        );
    }
}

/// Sprig's `semver`: Masterminds' `*semver.Version`, whose fields charts read
/// (`(semver .v).Major`).
struct SemverObject {
    original: String,
    major: i64,
    minor: i64,
    patch: i64,
    prerelease: String,
    metadata: String,
}

impl SemverObject {
    /// Parses as Masterminds' `NewVersion` does: an optional `v`, one to three numbers, then
    /// an optional `-prerelease` and `+metadata`.
    fn parse(text: &str) -> Option<SemverObject> {
        let body = text.strip_prefix('v').unwrap_or(text);
        let (body, metadata) = body.split_once('+').unwrap_or((body, ""));
        let (numbers, prerelease) = body.split_once('-').unwrap_or((body, ""));
        let parts: Vec<&str> = numbers.split('.').collect();
        if parts.is_empty() || parts.len() > 3 {
            return None;
        }
        let mut values = [0i64; 3];
        for (slot, part) in values.iter_mut().zip(&parts) {
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            *slot = part.parse().ok()?;
        }
        Some(SemverObject {
            original: text.to_owned(),
            major: values[0],
            minor: values[1],
            patch: values[2],
            prerelease: prerelease.to_owned(),
            metadata: metadata.to_owned(),
        })
    }

    fn text(&self) -> String {
        let mut text = format!("{}.{}.{}", self.major, self.minor, self.patch);
        if !self.prerelease.is_empty() {
            text.push('-');
            text.push_str(&self.prerelease);
        }
        if !self.metadata.is_empty() {
            text.push('+');
            text.push_str(&self.metadata);
        }
        text
    }
}

impl meshchart_gotemplate::Object for SemverObject {
    fn type_name(&self) -> &str {
        "*semver.Version"
    }

    fn get(&self, name: &str, _: &[Value]) -> Option<Result<Value, String>> {
        Some(Ok(match name {
            "Major" => Value::Int64(self.major),
            "Minor" => Value::Int64(self.minor),
            "Patch" => Value::Int64(self.patch),
            "Prerelease" => Value::from(self.prerelease.as_str()),
            "Metadata" => Value::from(self.metadata.as_str()),
            "Original" => Value::from(self.original.as_str()),
            "String" => Value::from(self.text()),
            _ => return None,
        }))
    }

    fn method_arity(&self, name: &str) -> Option<Arity> {
        matches!(
            name,
            "Major" | "Minor" | "Patch" | "Prerelease" | "Metadata" | "Original" | "String"
        )
        .then_some(Arity::Exact(0))
    }

    fn format(&self, out: &mut String) {
        out.push_str(&self.text());
    }
}

/// Adds the functions whose values are Go objects or Go-typed lists: `semver`, `has`,
/// `shuffle`.
pub(super) fn register_typed(set: &mut Templates) {
    add(set, "concat", Arity::AtLeast(0), |args| {
        let mut all = Vec::new();
        for list in args {
            match list {
                Value::Seq(items) => all.extend(items.iter().cloned()),
                Value::Null => {}
                other => {
                    return Err(FuncError::Message(format!(
                        "Cannot concat type {} as list",
                        other.type_name()
                    )))
                }
            }
        }
        Ok(Value::seq(all))
    });
    let uniq = |args: &[Value]| -> Result<Value, FuncError> {
        let Value::Seq(items) = &args[0] else {
            return Err(FuncError::Message(format!(
                "Cannot find uniq on type {}",
                args[0].type_name()
            )));
        };
        let mut kept: Vec<Value> = Vec::new();
        for item in items.iter() {
            if !kept.contains(item) {
                kept.push(item.clone());
            }
        }
        Ok(Value::seq(kept))
    };
    add(set, "uniq", Arity::Exact(1), uniq);
    add(set, "mustUniq", Arity::Exact(1), uniq);
    add(set, "semver", Arity::Exact(1), |args| {
        let text = string_arg(args, 0)?;
        SemverObject::parse(text)
            .map(|v| Value::Object(Rc::new(v)))
            .ok_or_else(|| FuncError::Message("Invalid Semantic Version".into()))
    });
    let has = |args: &[Value]| -> Result<Value, FuncError> {
        let needle = &args[0];
        Ok(Value::Bool(match &args[1] {
            Value::Seq(items) => items.iter().any(|item| item == needle),
            // `.Capabilities.APIVersions` is a named list with its own `Has`.
            Value::Object(object) => matches!(
                object.get("Has", std::slice::from_ref(needle)),
                Some(Ok(Value::Bool(true)))
            ),
            Value::Null => false,
            _ => {
                return Err(FuncError::Message(format!(
                    "Cannot find has on type {}",
                    args[1].type_name()
                )))
            }
        }))
    };
    add(set, "has", Arity::Exact(2), has);
    add(set, "mustHas", Arity::Exact(2), has);
}
