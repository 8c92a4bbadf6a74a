//! Merging values the way Helm does: `-f` files over each other, then the user's values over the
//! chart's defaults.
//!
//! The two merges differ in how they treat `null`. Between `-f` files a `null` is just a value
//! that replaces the earlier one (so it can still delete a chart default later). Over the chart's
//! defaults a user `null` deletes the default; where the chart has no such key the `null` stays.

use super::set::format_key_path;
use crate::yaml::{Map, Value};

/// Merges a later `-f` file's values into the earlier ones: maps merge key by key, anything else
/// (lists, scalars, `null`) replaces what was there.
pub fn merge_user_values(into: &mut Value, file_values: Value) {
    match (into, file_values) {
        (Value::Map(into), Value::Map(file)) => merge_maps(into, file),
        (into, file) => *into = file,
    }
}

fn merge_maps(into: &mut Map, file: Map) {
    if into.is_empty() {
        // The first file, most often: taken whole rather than moved over entry by entry.
        *into = file;
        return;
    }
    for (key, value) in file {
        match (into.get_mut(&key), value) {
            (Some(Value::Map(existing)), Value::Map(incoming)) => merge_maps(existing, incoming),
            (_, value) => {
                into.insert(key, value);
            }
        }
    }
}

/// Coalesces the user's values onto the chart's defaults, Helm's way:
///
/// - maps merge deeply, key by key; lists and scalars replace the default wholesale;
/// - a user `null` deletes a key the defaults define (a whole subtree, if it is a map); a user
///   `null` for a key the defaults lack stays as `null`; a `null` in the defaults themselves stays;
/// - where one side is a map and the other is not, the user's value wins and a warning naming the
///   key path is pushed to `warnings` (print each as `warning: ...`). Like Helm, a top-level user
///   scalar or list replacing a default map is silent; everywhere else the conflict is reported.
pub fn coalesce(defaults: &Value, user: Value, warnings: &mut Vec<String>) -> Value {
    match (defaults, user) {
        (Value::Map(defaults), Value::Map(user)) => {
            let mut path = Vec::new();
            Value::Map(coalesce_maps(user, defaults, &mut path, warnings))
        }
        (defaults, Value::Null) => defaults.clone(),
        (_, user) => user,
    }
}

fn coalesce_maps(
    mut user: Map,
    defaults: &Map,
    path: &mut Vec<String>,
    warnings: &mut Vec<String>,
) -> Map {
    for (key, default) in defaults {
        let Some(mine) = user.get_mut(key) else {
            user.insert(key.clone(), default.clone());
            continue;
        };
        path.push(key.clone());
        match (mine, default) {
            (Value::Null, _) => {
                user.remove(key);
            }
            (Value::Map(mine), Value::Map(default)) => {
                let taken = std::mem::take(mine);
                *mine = coalesce_maps(taken, default, path, warnings);
            }
            (Value::Map(_), Value::Null) => {}
            (Value::Map(_), default) => warnings.push(format!(
                "values: \"{}\" is a map in the given values but {} in the chart's defaults; \
                 the map is used",
                format_key_path(path),
                kind(default),
            )),
            (mine, Value::Map(_)) if path.len() > 1 => warnings.push(format!(
                "values: \"{}\" is {} in the given values but a map in the chart's defaults; \
                 the whole map is replaced",
                format_key_path(path),
                kind(mine),
            )),
            _ => {}
        }
        path.pop();
    }
    user
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Int(_) | Value::Float(_) | Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Seq(_) => "a list",
        Value::Map(_) => "a map",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse_document;

    fn yaml(text: &str) -> Value {
        parse_document(text).unwrap()
    }

    fn run(defaults: &str, user: &str) -> (Value, Vec<String>) {
        let mut warnings = Vec::new();
        let v = coalesce(&yaml(defaults), yaml(user), &mut warnings);
        (v, warnings)
    }

    #[test]
    fn maps_merge_deeply() {
        let (v, w) = run("nest: {a: 1, deep: {x: c}}", "nest: {b: 2, deep: {y: u}}");
        assert_eq!(v, yaml("nest: {a: 1, b: 2, deep: {x: c, y: u}}"));
        assert!(w.is_empty());
    }

    #[test]
    fn lists_replace_wholesale() {
        let (v, _) = run("l: [a, b, c]", "l: [z]");
        assert_eq!(v, yaml("l: [z]"));
    }

    #[test]
    fn user_null_deletes_a_default_key() {
        let (v, _) = run("gone: x\nkeep: y", "gone: null");
        assert_eq!(v, yaml("keep: y"));
    }

    #[test]
    fn user_null_deletes_a_whole_default_subtree() {
        let (v, _) = run("nest: {a: 1}\nk: 1", "nest: ~");
        assert_eq!(v, yaml("k: 1"));
    }

    #[test]
    fn user_null_deletes_a_nested_default_key() {
        let (v, _) = run("nest: {gone: 1, stays: 2}", "nest: {gone: null}");
        assert_eq!(v, yaml("nest: {stays: 2}"));
    }

    #[test]
    fn user_null_for_an_unknown_key_is_kept() {
        let (v, _) = run("a: 1", "new: null\nnest: {x: null}");
        assert_eq!(v, yaml("a: 1\nnew: null\nnest: {x: null}"));
    }

    #[test]
    fn null_in_the_defaults_is_kept() {
        let (v, _) = run("nul: ~", "");
        assert_eq!(v, yaml("nul: ~"));
    }

    #[test]
    fn user_map_over_a_default_null_is_silent() {
        let (v, w) = run("nest: ~", "nest: {a: 1}");
        assert_eq!(v, yaml("nest: {a: 1}"));
        assert!(w.is_empty());
    }

    #[test]
    fn top_level_scalar_over_a_default_map_is_silent() {
        let (v, w) = run("image: {tag: x}", "image: plain");
        assert_eq!(v, yaml("image: plain"));
        assert!(w.is_empty(), "{w:?}");
    }

    #[test]
    fn map_over_a_default_scalar_wins_with_a_warning() {
        let (v, w) = run("keep: hello", "keep: {sub: 1}");
        assert_eq!(v, yaml("keep: {sub: 1}"));
        assert_eq!(
            w,
            vec![
                "values: \"keep\" is a map in the given values but a string in the chart's \
                 defaults; the map is used"
            ]
        );
    }

    #[test]
    fn nested_scalar_over_a_default_map_wins_with_a_warning() {
        let (v, w) = run("nest: {a: {b: 1}, f: top}", "nest: {a: flat}");
        assert_eq!(v, yaml("nest: {a: flat, f: top}"));
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("\"nest.a\""), "{w:?}");
    }

    #[test]
    fn nested_map_over_a_default_list_wins_with_a_warning() {
        let (v, w) = run("nest: {l: [1]}", "nest: {l: {k: v}}");
        assert_eq!(v, yaml("nest: {l: {k: v}}"));
        assert!(
            w[0].contains("\"nest.l\"") && w[0].contains("a list"),
            "{w:?}"
        );
    }

    #[test]
    fn warning_paths_escape_dots_in_keys() {
        let (_, w) = run("a.b: {c: 1}", "a.b: {c: {d: 1}}");
        assert!(w[0].contains(r#""a\.b.c""#), "{w:?}");
    }

    #[test]
    fn files_merge_deeply_and_later_wins() {
        let mut into = yaml("image: {tag: a, pull: x}\nl: [1, 2]");
        merge_user_values(&mut into, yaml("image: {tag: b}\nl: [3]"));
        assert_eq!(into, yaml("image: {tag: b, pull: x}\nl: [3]"));
    }

    #[test]
    fn null_in_a_later_file_replaces_the_earlier_value() {
        let mut into = yaml("extra: 1\nimage: {tag: a}");
        merge_user_values(&mut into, yaml("extra: null\nimage: {tag: null}"));
        assert_eq!(into, yaml("extra: null\nimage: {tag: null}"));
    }

    #[test]
    fn later_file_map_replaces_earlier_scalar_and_back() {
        let mut into = yaml("image: flat");
        merge_user_values(&mut into, yaml("image: {tag: b}"));
        assert_eq!(into, yaml("image: {tag: b}"));
        merge_user_values(&mut into, yaml("image: flat"));
        assert_eq!(into, yaml("image: flat"));
    }
}
