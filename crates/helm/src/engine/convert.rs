//! Moving values between our tree and minijinja's.

use crate::limits::{MAX_LIST_ITEMS, MAX_NESTING, MOST_REMEMBERED_ENTRIES};
use crate::values::{Map, Value};
use minijinja::value::{Value as JValue, ValueKind};
use minijinja::{Error, ErrorKind};
use std::collections::BTreeMap;

/// Our value as a template value.
pub fn to_jinja(value: &Value) -> JValue {
    match value {
        Value::Null => JValue::from(()),
        Value::Bool(b) => JValue::from(*b),
        Value::Int(i) => JValue::from(*i),
        Value::Float(f) => JValue::from(*f),
        Value::Number(text) => JValue::from(text.parse::<f64>().unwrap_or(f64::NAN)),
        Value::String(s) => JValue::from(s.as_str()),
        Value::Seq(items) => JValue::from(items.iter().map(to_jinja).collect::<Vec<_>>()),
        Value::Map(map) => JValue::from_pairs(map.iter().map(|(k, v)| (k.as_str(), to_jinja(v)))),
    }
}

thread_local! {
    /// The top-level entries of the last values tree [`to_jinja_reusing`] converted on this
    /// thread (in key order), with what they became.
    static LAST_ENTRIES: std::cell::RefCell<Vec<(String, Value, JValue)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// [`to_jinja`] of a values tree, each top-level entry equal to the last tree's (on this
/// thread) given the very template value it became then.
///
/// A fleet's clusters share most of their values: converting them all again for every cluster
/// (26M instructions of a 200-cluster fleet), then comparing them with what was kept from
/// earlier renders (see `remembered`), walked them whole each time. The same template value is
/// recognised as such at once.
pub(crate) fn to_jinja_reusing(value: &Value) -> JValue {
    let Value::Map(map) = value else {
        return to_jinja(value);
    };
    if map.len() > MOST_REMEMBERED_ENTRIES {
        return to_jinja(value);
    }
    let last = LAST_ENTRIES.with(|last| std::mem::take(&mut *last.borrow_mut()));
    // Both in key order: the last tree's entries are found walking along them.
    let mut before = last.into_iter().peekable();
    let mut now = Vec::with_capacity(map.len());
    for (key, item) in map {
        while before
            .next_if(|(seen, _, _)| seen.as_str() < key.as_str())
            .is_some()
        {}
        match before.next_if(|(seen, _, _)| seen == key) {
            Some(entry) if entry.1 == *item => now.push(entry),
            _ => now.push((key.clone(), item.clone(), to_jinja(item))),
        }
    }
    let converted = JValue::from_pairs(
        now.iter()
            .map(|(key, _, converted)| (key.as_str(), converted.clone())),
    );
    LAST_ENTRIES.with(|last| *last.borrow_mut() = now);
    converted
}

/// Most list items and map entries one conversion walks: four lists at the list cap. A lazy
/// list built with `+` can claim billions of items without holding them.
pub(crate) const MAX_CONVERTED_ITEMS: usize = 4 * MAX_LIST_ITEMS;

/// A template value as our value; undefined becomes null, map keys become strings. A list or
/// map longer than [`MAX_LIST_ITEMS`] (or values holding more than four times that in all), or
/// nested deeper than [`MAX_NESTING`], is refused.
pub fn from_jinja(value: &JValue) -> Result<Value, Error> {
    let mut budget = MAX_CONVERTED_ITEMS;
    convert(value, &mut budget, 0)
}

/// [`from_jinja`], and how many list items and map entries it walked (of the
/// [`MAX_CONVERTED_ITEMS`] one conversion may walk).
pub(crate) fn from_jinja_counting(value: &JValue) -> Result<(Value, usize), Error> {
    let mut budget = MAX_CONVERTED_ITEMS;
    let converted = convert(value, &mut budget, 0)?;
    Ok((converted, MAX_CONVERTED_ITEMS - budget))
}

fn too_deep() -> Error {
    Error::new(
        ErrorKind::InvalidOperation,
        format!(
            "a value nested deeper than {MAX_NESTING} levels (lists and maps inside each other)"
        ),
    )
}

/// Whether `value` nests lists and maps deeper than [`MAX_NESTING`], found without recursion:
/// a template can build a value nested as deep as its fuel allows, far past what a walk of it
/// may recurse.
pub(crate) fn nested_too_deep(value: &JValue) -> bool {
    let mut pending = vec![(value.clone(), 0usize)];
    while let Some((value, depth)) = pending.pop() {
        let children: Vec<JValue> = match value.kind() {
            ValueKind::Seq => match value.try_iter() {
                Ok(items) => items.collect(),
                Err(_) => continue,
            },
            ValueKind::Map => match value.try_iter() {
                Ok(keys) => keys.filter_map(|k| value.get_item(&k).ok()).collect(),
                Err(_) => continue,
            },
            _ => continue,
        };
        if depth >= MAX_NESTING && !children.is_empty() {
            return true;
        }
        pending.extend(children.into_iter().map(|c| (c, depth + 1)));
    }
    false
}

fn too_many(what: String) -> Error {
    Error::new(
        ErrorKind::InvalidOperation,
        format!("{what}, more than the limit of {MAX_LIST_ITEMS} (10 MiB at 32 bytes an item)"),
    )
}

fn take_items(value: &JValue, budget: &mut usize) -> Result<(), Error> {
    if let Some(len) = value.len() {
        if len > MAX_LIST_ITEMS {
            let what = if value.kind() == ValueKind::Map {
                "map"
            } else {
                "list"
            };
            return Err(too_many(format!("a {what} of {len} items")));
        }
        if len > *budget {
            return Err(too_many(format!(
                "values holding more than {MAX_CONVERTED_ITEMS} items in all"
            )));
        }
        *budget -= len;
    }
    Ok(())
}

fn convert(value: &JValue, budget: &mut usize, depth: usize) -> Result<Value, Error> {
    let nested = matches!(
        value.kind(),
        ValueKind::Seq | ValueKind::Iterable | ValueKind::Map
    );
    if nested && depth >= MAX_NESTING {
        return Err(too_deep());
    }
    Ok(match value.kind() {
        ValueKind::Undefined | ValueKind::None => Value::Null,
        ValueKind::Bool => Value::Bool(value.is_true()),
        ValueKind::Number => {
            if value.is_integer() {
                match value.as_i64() {
                    Some(i) => Value::Int(i),
                    None => Value::Float(f64::try_from(value.clone()).unwrap_or(f64::NAN)),
                }
            } else {
                Value::Float(
                    f64::try_from(value.clone()).map_err(|_| {
                        Error::new(ErrorKind::InvalidOperation, "number out of range")
                    })?,
                )
            }
        }
        ValueKind::String => Value::String(value.as_str().unwrap_or_default().to_owned()),
        ValueKind::Bytes => Value::String(
            String::from_utf8_lossy(value.as_bytes().unwrap_or_default()).into_owned(),
        ),
        ValueKind::Seq | ValueKind::Iterable => {
            take_items(value, budget)?;
            let mut items = Vec::new();
            for item in value.try_iter()? {
                if items.len() >= MAX_LIST_ITEMS {
                    return Err(too_many("a list of more items".to_owned()));
                }
                items.push(convert(&item, budget, depth + 1)?);
            }
            Value::Seq(items)
        }
        ValueKind::Map => {
            take_items(value, budget)?;
            if let Some(tree) = value.downcast_object_ref::<BTreeMap<JValue, JValue>>() {
                return convert_tree(tree, budget, depth);
            }
            let mut map = Map::new();
            for key in value.try_iter()? {
                let item = value.get_item(&key)?;
                let key = match key.as_str() {
                    Some(s) => s.to_owned(),
                    None => key.to_string(),
                };
                map.insert(key, convert(&item, budget, depth + 1)?);
            }
            Value::Map(map)
        }
        _ => Value::String(value.to_string()),
    })
}

/// A map the engine built, read entry by entry in place: looking each key up again would cost
/// a search per entry. String keys come in the order our map keeps, so it is built in one pass.
fn convert_tree(
    tree: &BTreeMap<JValue, JValue>,
    budget: &mut usize,
    depth: usize,
) -> Result<Value, Error> {
    if !tree.keys().all(|key| key.as_str().is_some()) {
        let mut map = Map::new();
        for (key, item) in tree {
            let key = match key.as_str() {
                Some(s) => s.to_owned(),
                None => key.to_string(),
            };
            map.insert(key, convert(item, budget, depth + 1)?);
        }
        return Ok(Value::Map(map));
    }
    let mut pairs = Vec::with_capacity(tree.len());
    for (key, item) in tree {
        pairs.push((
            key.as_str().unwrap_or_default().to_owned(),
            convert(item, budget, depth + 1)?,
        ));
    }
    Ok(Value::Map(pairs.into_iter().collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml(text: &str) -> Value {
        crate::yaml::load::parse_document(text).expect("valid YAML")
    }

    #[test]
    fn a_values_tree_converted_again_shares_its_unchanged_entries_only() {
        let first = to_jinja_reusing(&yaml("a: {x: 1}\nb: [1, 2]\nc: text\n"));
        let second = to_jinja_reusing(&yaml("a: {x: 1}\nb: [1, 3]\nc: text\nd: new\n"));
        assert_eq!(
            from_jinja(&second).expect("converts"),
            yaml("a: {x: 1}\nb: [1, 3]\nc: text\nd: new\n")
        );
        let entry = |tree: &JValue, key: &str| tree.get_attr(key).expect("entry");
        let same_map = |x: &JValue, y: &JValue| {
            std::ptr::eq(
                x.downcast_object_ref::<BTreeMap<JValue, JValue>>()
                    .expect("a map"),
                y.downcast_object_ref::<BTreeMap<JValue, JValue>>()
                    .expect("a map"),
            )
        };
        assert!(same_map(&entry(&first, "a"), &entry(&second, "a")));
        assert_eq!(entry(&second, "b"), JValue::from(vec![1, 3]));
        assert_ne!(entry(&first, "b"), entry(&second, "b"));
    }

    #[test]
    fn values_come_back_unchanged_from_the_template_side() {
        let values = yaml("b: [1, 2.5, {c: null}]\na: {z: true, y: text}\n");
        assert_eq!(from_jinja(&to_jinja(&values)).expect("converts"), values);
    }

    #[test]
    fn map_keys_that_are_not_strings_become_their_text() {
        let map: BTreeMap<JValue, JValue> = [(10, "ten"), (2, "two")]
            .into_iter()
            .map(|(k, v)| (JValue::from(k), JValue::from(v)))
            .collect();
        assert_eq!(
            from_jinja(&JValue::from(map)).expect("converts"),
            yaml("'10': ten\n'2': two\n")
        );
    }

    #[test]
    fn a_map_over_the_item_budget_is_refused() {
        let big =
            JValue::from_iter((0..=MAX_LIST_ITEMS).map(|i| (JValue::from(i), JValue::from(()))));
        assert!(from_jinja(&big).is_err());
    }
}
