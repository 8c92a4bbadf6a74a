//! Lists and maps: `list`, `dict`, `keys`, `hasKey`, `has`, `set`, `unset`, `merge`,
//! `mergeOverwrite`, `deepCopy`, `dig`, `len`, `until`, `untilStep`, `seq`, and type questions
//! (`kindIs`, `kindOf`, `typeOf`).
//!
//! Values are immutable: the functions that change a map in Sprig return a changed copy here.

use super::args::{describe, go_type, strval, Args};
use crate::limits::MAX_LIST_ITEMS;
use minijinja::value::{Value, ValueKind};
use minijinja::Error;
use std::collections::BTreeMap;

/// `list(item...)`: a list of the arguments, none included: `list(1, "a", none)`.
pub(super) fn list(args: &Args) -> Result<Value, Error> {
    Ok(Value::from(args.all().to_vec()))
}

/// `dict(key, value, ...)`: a map from pairs; keys are printed Go-style (`dict(1, 2)` has key
/// `"1"`), a missing last value is `""`. Jinja's `dict(a=1)` works too.
///
/// ```jinja
/// {{ include("_labels.tpl", dict("Values", Values, "component", "web")) }}
/// ```
pub(super) fn dict(args: &Args) -> Result<Value, Error> {
    let mut pairs: Vec<(String, Value)> = Vec::new();
    let mut keyword: Option<&Value> = None;
    let positional: Vec<&Value> = args
        .all()
        .iter()
        .filter(|v| {
            if v.is_kwargs() {
                keyword = Some(v);
                false
            } else {
                true
            }
        })
        .collect();
    for pair in positional.chunks(2) {
        let value = pair.get(1).map_or(Value::from(""), |v| (*v).clone());
        pairs.push((strval(pair[0]), value));
    }
    if let Some(kwargs) = keyword {
        for key in kwargs.try_iter()? {
            let value = kwargs.get_item(&key)?;
            pairs.push((strval(&key), value));
        }
    }
    let map: std::collections::BTreeMap<String, Value> = pairs.into_iter().collect();
    Ok(Value::from(map))
}

fn map_arg(args: &Args, i: usize, what: &str) -> Result<Value, Error> {
    let value = args.get(i);
    if value.kind() != ValueKind::Map {
        return Err(args.error(format!("{what} must be a map, found {}", describe(&value))));
    }
    Ok(value)
}

/// `keys(map...)`: the keys of the maps, each map's in sorted order.
pub(super) fn keys(args: &Args) -> Result<Value, Error> {
    let mut keys = Vec::new();
    for i in 0..args.len() {
        keys.extend(map_arg(args, i, "map")?.try_iter()?);
    }
    Ok(Value::from(keys))
}

/// `hasKey(map, key)`: whether `map` has `key` (even with a none value). An undefined map has
/// no keys (Helm fails instead).
pub(super) fn has_key(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let key = args.string(1, "key")?;
    let map = args.get(0);
    if map.is_undefined() {
        return Ok(Value::from(false));
    }
    let map = map_arg(args, 0, "map")?;
    Ok(Value::from(
        !map.get_item(&Value::from(&*key))?.is_undefined(),
    ))
}

/// `has(needle, list)`: whether `list` contains `needle` (numbers compare by value, so `1` and
/// `1.0` are equal). A none list contains nothing.
pub(super) fn has(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let needle = args.get(0);
    let haystack = args.get(1);
    match haystack.kind() {
        ValueKind::Undefined | ValueKind::None => Ok(Value::from(false)),
        ValueKind::Seq | ValueKind::Iterable => {
            Ok(Value::from(haystack.try_iter()?.any(|item| item == needle)))
        }
        _ => Err(args.error(format!(
            "list must be a list, found {}",
            describe(&haystack)
        ))),
    }
}

/// The entries of a template map, sharing their values (template values are reference-counted).
fn entries(map: &Value) -> Result<BTreeMap<Value, Value>, Error> {
    // The engine's own maps are copied node by node, without comparing a key.
    if let Some(tree) = map.downcast_object_ref::<BTreeMap<Value, Value>>() {
        return Ok(tree.clone());
    }
    // Other maps enumerate their keys in order, so collecting the pairs first lets the tree be
    // built in one pass instead of searched on every insert.
    let pairs: Vec<(Value, Value)> = match map.as_object().and_then(|o| o.try_iter_pairs()) {
        Some(pairs) => pairs.collect(),
        None => map
            .try_iter()?
            .map(|key| map.get_item(&key).map(|value| (key, value)))
            .collect::<Result<_, _>>()?,
    };
    Ok(pairs.into_iter().collect())
}

/// Helm's emptiness on a template value: none, false, 0, "", [] and {}.
fn is_empty_value(value: &Value) -> bool {
    match value.kind() {
        ValueKind::Undefined | ValueKind::None => true,
        ValueKind::Bool => !value.is_true(),
        ValueKind::Number => !value.is_true(),
        ValueKind::String | ValueKind::Seq | ValueKind::Map => value.len() == Some(0),
        _ => false,
    }
}

/// `set(map, key, value)`: a copy of `map` with `key` set; `map` itself is not changed, so
/// rebind: `{% set labels = set(labels, "tier", "web") %}`.
pub(super) fn set(args: &Args) -> Result<Value, Error> {
    args.exactly(3)?;
    let mut map = entries(&map_arg(args, 0, "map")?)?;
    let key = args.string(1, "key")?;
    map.insert(Value::from(key.into_owned()), args.get(2));
    Ok(Value::from(map))
}

/// `unset(map, key)`: a copy of `map` without `key`; `map` itself is not changed.
pub(super) fn unset(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let mut map = entries(&map_arg(args, 0, "map")?)?;
    map.remove(&Value::from(&*args.string(1, "key")?));
    Ok(Value::from(map))
}

/// `merge(destination, source...)`: a new map: `destination`'s values win, its empty values
/// (none, "", 0, false, [], {}) and missing keys are filled from each source in turn, nested maps
/// recursively. No argument is changed.
///
/// ```jinja
/// {{ toYaml(merge(Values.proxy.resources, Values.defaults.resources)) }}
/// ```
pub(super) fn merge(args: &Args) -> Result<Value, Error> {
    merge_all(args, false)
}

/// `mergeOverwrite(destination, source...)`: a new map: each source's values win over what came
/// before (even empty ones), nested maps are merged recursively. No argument is changed.
pub(super) fn merge_overwrite(args: &Args) -> Result<Value, Error> {
    merge_all(args, true)
}

fn merge_all(args: &Args, overwrite: bool) -> Result<Value, Error> {
    args.between(1, usize::MAX)?;
    let mut destination = map_arg(args, 0, "destination")?;
    for i in 1..args.len() {
        destination = merge_maps(&destination, &map_arg(args, i, "source")?, overwrite)?;
    }
    Ok(destination)
}

/// mergo's rules as Sprig uses them: a none source value only counts when overwriting; lists and
/// scalars are replaced whole, maps merge key by key. Untouched subtrees are shared, not copied.
fn merge_maps(destination: &Value, source: &Value, overwrite: bool) -> Result<Value, Error> {
    let mut merged = entries(destination)?;
    for key in source.try_iter()? {
        let value = source.get_item(&key)?;
        if value.is_none() || value.is_undefined() {
            if overwrite {
                merged.insert(key, Value::from(()));
            }
            continue;
        }
        let replacement = match merged.get(&key) {
            Some(existing)
                if existing.kind() == ValueKind::Map && value.kind() == ValueKind::Map =>
            {
                merge_maps(existing, &value, overwrite)?
            }
            Some(existing) if !overwrite && !is_empty_value(existing) => continue,
            _ => value,
        };
        merged.insert(key, replacement);
    }
    Ok(Value::from(merged))
}

/// `deepCopy(value)`: an independent copy (values are immutable, so this is the value itself).
pub(super) fn deep_copy(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(args.get(0))
}

/// `dig(key..., default, map)`: follows the keys into nested maps; `default` when a key is
/// missing (or the map is undefined). A key whose value is none gives none. Stepping into
/// something that is not a map is an error, as in Helm.
///
/// ```jinja
/// tag: {{ dig("image", "tag", "latest", Values.proxy) }}
/// ```
pub(super) fn dig(args: &Args) -> Result<Value, Error> {
    args.between(3, usize::MAX)?;
    let n = args.len();
    let default = args.get(n - 2);
    let mut current = args.get(n - 1);
    if current.is_undefined() {
        return Ok(default);
    }
    let mut path = String::new();
    for i in 0..n - 2 {
        let key = args.string(i, "key")?;
        if current.kind() != ValueKind::Map {
            let at = if path.is_empty() {
                "the map".to_owned()
            } else {
                path.clone()
            };
            return Err(args.error(format!(
                "{at} is {}, not a map, so it has no key {key:?}",
                describe(&current)
            )));
        }
        let next = current.get_item(&Value::from(&*key))?;
        if next.is_undefined() {
            return Ok(default);
        }
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(&key);
        current = next;
    }
    Ok(current)
}

/// `len(value)`: bytes of a string (`len("héllo")` is 6), items of a list or map.
pub(super) fn len(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let value = args.get(0);
    let n = match value.kind() {
        ValueKind::String => value.as_str().map(str::len),
        ValueKind::Bytes | ValueKind::Seq | ValueKind::Map => value.len(),
        ValueKind::Iterable => value.try_iter().ok().map(Iterator::count),
        _ => None,
    };
    match n {
        Some(n) => Ok(Value::from(n)),
        None => Err(args.error(format!("value has no length: {}", describe(&value)))),
    }
}

fn step_range(args: &Args, start: i64, stop: i64, step: i64) -> Result<Vec<i64>, Error> {
    let (start, stop, step) = (i128::from(start), i128::from(stop), i128::from(step));
    let count = if step > 0 && stop > start {
        (stop - start - 1) / step + 1
    } else if step < 0 && stop < start {
        (start - stop - 1) / (-step) + 1
    } else {
        0
    };
    if count > MAX_LIST_ITEMS as i128 {
        return Err(args.error(format!(
            "the list would have {count} items, more than the limit of {MAX_LIST_ITEMS}"
        )));
    }
    Ok((0..count).map(|i| (start + i * step) as i64).collect())
}

/// `until(count)`: `[0, 1, ..., count-1]` (counting down for a negative count); at most a
/// million items.
///
/// ```jinja
/// {% for i in until(Values.replicas) %}- replica-{{ i }}{% endfor %}
/// ```
pub(super) fn until(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let count = args.int(0, "count")?;
    let step = if count < 0 { -1 } else { 1 };
    Ok(Value::from(step_range(args, 0, count, step)?))
}

/// `untilStep(start, stop, step)`: `start`, `start+step`, ... up to but not including `stop`.
pub(super) fn until_step(args: &Args) -> Result<Value, Error> {
    args.exactly(3)?;
    let start = args.int(0, "start")?;
    let stop = args.int(1, "stop")?;
    let step = args.int(2, "step")?;
    Ok(Value::from(step_range(args, start, stop, step)?))
}

/// `seq(end)`, `seq(start, end)`, `seq(start, step, end)`: the numbers as a space-separated
/// string, like the Unix command (`seq(3)` is `"1 2 3"`).
pub(super) fn seq(args: &Args) -> Result<Value, Error> {
    args.between(0, 3)?;
    let mut params = Vec::new();
    for i in 0..args.len() {
        params.push(args.int(i, "bound")?);
    }
    let numbers = match params[..] {
        [] => Vec::new(),
        [end] => {
            let step = if end < 1 { -1 } else { 1 };
            step_range(args, 1, end.saturating_add(step), step)?
        }
        [start, end] => {
            let step = if end < start { -1 } else { 1 };
            step_range(args, start, end.saturating_add(step), step)?
        }
        [start, step, end] => {
            let direction = if end < start { -1 } else { 1 };
            if end < start && step > 0 {
                Vec::new()
            } else {
                step_range(args, start, end.saturating_add(direction), step)?
            }
        }
        _ => Vec::new(),
    };
    let text: Vec<String> = numbers.iter().map(i64::to_string).collect();
    Ok(Value::from(text.join(" ")))
}

/// Go's `reflect.Kind` name of a value (`int`, `float64`, `string`, `bool`, `slice`, `map`;
/// `invalid` for none).
fn kind_name(value: &Value) -> &'static str {
    match value.kind() {
        ValueKind::Undefined | ValueKind::None => "invalid",
        ValueKind::Bool => "bool",
        ValueKind::Number if value.is_integer() => "int",
        ValueKind::Number => "float64",
        ValueKind::String => "string",
        ValueKind::Bytes | ValueKind::Seq | ValueKind::Iterable => "slice",
        ValueKind::Map => "map",
        _ => "struct",
    }
}

/// `kindIs(kind, value)`: whether `kindOf(value)` is `kind`: `kindIs("map", Values.x)`.
pub(super) fn kind_is(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let kind = args.string(0, "kind")?;
    Ok(Value::from(kind_name(&args.get(1)) == kind))
}

/// `kindOf(value)`: `int`, `float64`, `string`, `bool`, `slice`, `map` or `invalid` (none).
/// Our whole numbers are `int` where Helm's values files would give `float64`.
pub(super) fn kind_of(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(Value::from(kind_name(&args.get(0))))
}

/// `typeOf(value)`: Go's type name: `int`, `float64`, `string`, `bool`, `[]interface {}`,
/// `map[string]interface {}`, `<nil>`.
pub(super) fn type_of(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(Value::from(go_type(&args.get(0))))
}

/// Go's `reflect.DeepEqual` on template values: same type and same contents, so `1` and `1.0`
/// differ, as do `1` and `"1"`; none equals undefined (both are Go's nil).
pub(crate) fn deep_equal(a: &Value, b: &Value) -> bool {
    let nil = |v: &Value| matches!(v.kind(), ValueKind::Undefined | ValueKind::None);
    if nil(a) || nil(b) {
        return nil(a) && nil(b);
    }
    match (a.kind(), b.kind()) {
        (ValueKind::Number, ValueKind::Number) => a.is_integer() == b.is_integer() && a == b,
        (ValueKind::Seq | ValueKind::Iterable, ValueKind::Seq | ValueKind::Iterable) => {
            match (a.try_iter(), b.try_iter()) {
                (Ok(x), Ok(y)) => {
                    let (x, y): (Vec<Value>, Vec<Value>) = (x.collect(), y.collect());
                    x.len() == y.len() && x.iter().zip(&y).all(|(p, q)| deep_equal(p, q))
                }
                _ => false,
            }
        }
        (ValueKind::Map, ValueKind::Map) => match (entries(a), entries(b)) {
            (Ok(x), Ok(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .all(|(k, v)| y.get(k).is_some_and(|w| deep_equal(v, w)))
            }
            _ => false,
        },
        (x, y) => x == y && a == b,
    }
}

/// `deepEqual(a, b)`: whether two values are equal in type and contents (Go's `DeepEqual`).
pub(super) fn deep_equal_fn(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    Ok(Value::from(deep_equal(&args.get(0), &args.get(1))))
}

/// `get(map, key)`: the value at `key`, or `""` when there is none.
///
/// ```jinja
/// {{ get(Values.images, Values.component) }}
/// ```
pub(super) fn get(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let map = map_arg(args, 0, "map")?;
    let key = args.string(1, "key")?;
    let value = map.get_item(&Value::from(&*key))?;
    Ok(if value.is_undefined() {
        Value::from("")
    } else {
        value
    })
}

/// `pick(map, key...)`: a map of only those keys (the ones `map` has).
pub(super) fn pick(args: &Args) -> Result<Value, Error> {
    args.between(1, usize::MAX)?;
    let map = entries(&map_arg(args, 0, "map")?)?;
    let mut out = BTreeMap::new();
    for i in 1..args.len() {
        let key = Value::from(&*args.string(i, "key")?);
        if let Some(v) = map.get(&key) {
            out.insert(key, v.clone());
        }
    }
    Ok(Value::from(out))
}

/// `omit(map, key...)`: a map without those keys.
pub(super) fn omit(args: &Args) -> Result<Value, Error> {
    args.between(1, usize::MAX)?;
    let mut map = entries(&map_arg(args, 0, "map")?)?;
    for i in 1..args.len() {
        map.remove(&Value::from(&*args.string(i, "key")?));
    }
    Ok(Value::from(map))
}

/// `values(map)`: the map's values, in the order of its sorted keys (Go's order is random:
/// sort them, `values(m) | sortAlpha`, to get the same text from Helm).
pub(super) fn values(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let map = entries(&map_arg(args, 0, "map")?)?;
    Ok(Value::from(map.into_values().collect::<Vec<_>>()))
}

/// `pluck(key, map...)`: the value at `key` of each map that has it.
pub(super) fn pluck(args: &Args) -> Result<Value, Error> {
    args.between(1, usize::MAX)?;
    let key = Value::from(&*args.string(0, "key")?);
    let mut out = Vec::new();
    for i in 1..args.len() {
        let value = map_arg(args, i, "map")?.get_item(&key)?;
        if !value.is_undefined() {
            out.push(value);
        }
    }
    Ok(Value::from(out))
}

/// `typeIs(type, value)`: whether `typeOf(value)` is `type`: `typeIs("string", Values.x)`.
pub(super) fn type_is(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let target = args.string(0, "type")?;
    Ok(Value::from(go_type(&args.get(1)) == target))
}

/// `typeIsLike(type, value)`: `typeIs`, also true for a pointer to `type` (never one here).
pub(super) fn type_is_like(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let target = args.string(0, "type")?;
    let actual = go_type(&args.get(1));
    Ok(Value::from(
        actual == target || actual.strip_prefix('*') == Some(&*target),
    ))
}

#[cfg(test)]
mod tests;
