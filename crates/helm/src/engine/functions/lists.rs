//! Sprig's list functions: `append`/`push`, `prepend`, `first`, `rest`, `last`, `initial`,
//! `reverse`, `uniq`, `compact`, `without`, `slice`, `concat`, `chunk`, `tuple`, `all`, `any`,
//! and their `must` forms.
//!
//! Each returns a new list; Sprig's plain forms panic on a value that is not a list, which Helm
//! reports as an error, so here the plain and `must` forms fail alike.

use super::args::{describe, is_empty, Args};
use super::collections::deep_equal;
use crate::limits::MAX_LIST_ITEMS;
use minijinja::value::{Value, ValueKind};
use minijinja::Error;

/// Argument `i` as the items of a list; `what` names the operation in Sprig's message
/// (`Cannot push on type string`).
fn items(args: &Args, i: usize, what: &str) -> Result<Vec<Value>, Error> {
    let value = args.get(i);
    match value.kind() {
        ValueKind::Seq | ValueKind::Iterable => Ok(value.try_iter()?.collect()),
        _ => Err(args.error(format!(
            "Cannot {what} type {}: {} is not a list",
            go_kind(&value),
            describe(&value)
        ))),
    }
}

/// Go's `reflect.Kind` name, as Sprig's messages print it.
fn go_kind(value: &Value) -> &'static str {
    match value.kind() {
        ValueKind::Undefined | ValueKind::None => "invalid",
        ValueKind::Bool => "bool",
        ValueKind::Number if value.is_integer() => "int",
        ValueKind::Number => "float64",
        ValueKind::String => "string",
        ValueKind::Map => "map",
        _ => "slice",
    }
}

/// `append(list, item)` (also `push`): a new list with `item` at the end.
///
/// ```jinja
/// args: {{ toYaml(append(Values.args, "--verbose")) | nindent(2) }}
/// ```
pub(super) fn append(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let mut list = items(args, 0, "push on")?;
    list.push(args.get(1));
    Ok(Value::from(list))
}

/// `prepend(list, item)`: a new list with `item` first.
pub(super) fn prepend(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let mut list = items(args, 0, "prepend on")?;
    list.insert(0, args.get(1));
    Ok(Value::from(list))
}

/// `first(list)`: the first item; none for an empty list.
pub(super) fn first(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(items(args, 0, "find first on")?
        .into_iter()
        .next()
        .unwrap_or(Value::from(())))
}

/// `last(list)`: the last item; none for an empty list.
pub(super) fn last(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(items(args, 0, "find last on")?
        .pop()
        .unwrap_or(Value::from(())))
}

/// `rest(list)`: all but the first item; none for an empty list.
pub(super) fn rest(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let list = items(args, 0, "find rest on")?;
    if list.is_empty() {
        return Ok(Value::from(()));
    }
    Ok(Value::from(list[1..].to_vec()))
}

/// `initial(list)`: all but the last item; none for an empty list.
pub(super) fn initial(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let mut list = items(args, 0, "find initial on")?;
    if list.is_empty() {
        return Ok(Value::from(()));
    }
    list.pop();
    Ok(Value::from(list))
}

/// `reverse(list)`: the items in reverse order.
pub(super) fn reverse(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let mut list = items(args, 0, "find reverse on")?;
    list.reverse();
    Ok(Value::from(list))
}

/// `uniq(list)`: each item once, first occurrence kept (Go's `DeepEqual`: `1` and `"1"` differ).
pub(super) fn uniq(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let mut out: Vec<Value> = Vec::new();
    for item in items(args, 0, "find uniq on")? {
        if !out.iter().any(|seen| deep_equal(seen, &item)) {
            out.push(item);
        }
    }
    Ok(Value::from(out))
}

/// `compact(list)`: the items that are not empty (none, false, 0, "", [] and {} go).
pub(super) fn compact(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(Value::from(
        items(args, 0, "compact on")?
            .into_iter()
            .filter(|v| !is_empty(v))
            .collect::<Vec<_>>(),
    ))
}

/// `without(list, item...)`: the list without any of the items.
pub(super) fn without(args: &Args) -> Result<Value, Error> {
    args.between(1, usize::MAX)?;
    let omit = &args.all()[1..];
    Ok(Value::from(
        items(args, 0, "find without on")?
            .into_iter()
            .filter(|v| !omit.iter().any(|o| deep_equal(o, v)))
            .collect::<Vec<_>>(),
    ))
}

/// `slice(list, start?, end?)`: the items from `start` up to `end` (Go's `list[start:end]`);
/// bounds outside the list are an error, and an empty list gives none.
pub(super) fn slice(args: &Args) -> Result<Value, Error> {
    args.between(1, 3)?;
    let list = items(args, 0, "slice")?;
    if list.is_empty() {
        return Ok(Value::from(()));
    }
    let start = if args.len() > 1 {
        super::numbers::to_int64(&args.get(1))
    } else {
        0
    };
    let end = if args.len() > 2 {
        super::numbers::to_int64(&args.get(2))
    } else {
        list.len() as i64
    };
    if start < 0 || end < start || end > list.len() as i64 {
        return Err(args.error(format!(
            "slice bounds out of range [{start}:{end}] of a list of {}",
            list.len()
        )));
    }
    Ok(Value::from(list[start as usize..end as usize].to_vec()))
}

/// `concat(list...)`: the lists one after the other.
pub(super) fn concat(args: &Args) -> Result<Value, Error> {
    let mut out = Vec::new();
    for i in 0..args.len() {
        out.extend(items(args, i, "concat")?);
        if out.len() > MAX_LIST_ITEMS {
            return Err(args.error(format!(
                "the list would have more than {MAX_LIST_ITEMS} items"
            )));
        }
    }
    if out.is_empty() {
        // Go's nil slice.
        return Ok(Value::from(()));
    }
    Ok(Value::from(out))
}

/// `chunk(size, list)`: the list cut into lists of `size` items (the last may be shorter).
pub(super) fn chunk(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let size = args.int(0, "size")?;
    let list = items(args, 1, "chunk")?;
    if size <= 0 {
        return Err(args.error(format!("size must be at least 1, got {size}")));
    }
    if list.is_empty() {
        return Ok(Value::from(Vec::<Value>::new()));
    }
    Ok(Value::from(
        list.chunks(size as usize)
            .map(|c| Value::from(c.to_vec()))
            .collect::<Vec<_>>(),
    ))
}

/// `all(value...)`: whether no value is empty.
pub(super) fn all(args: &Args) -> Result<Value, Error> {
    Ok(Value::from(args.all().iter().all(|v| !is_empty(v))))
}

/// `any(value...)`: whether some value is not empty.
pub(super) fn any(args: &Args) -> Result<Value, Error> {
    Ok(Value::from(args.all().iter().any(|v| !is_empty(v))))
}
