//! `toYaml` of a large map entry by entry, each entry's text remembered for the next call on
//! the same thread; and of a small map or list, remembered whole for the next calls.
//!
//! A fleet's `linkerd-config` holds each cluster's values as YAML: hundreds of entries, of which
//! a cluster changes a few. Converting and writing all of them again for every cluster was a
//! twelfth of a fleet's time; comparing an entry with the one written last costs a fraction of
//! that. A map's text is its entries' texts, each written as a map of its own, in go-yaml's key
//! order ([`crate::yaml::in_written_order`]), so the remembered texts are the same bytes a
//! whole conversion writes. Anything unusual (an error, a limit reached, keys that are not
//! strings) goes the whole way, which says what is wrong exactly as before.

use crate::engine::convert::{from_jinja_counting, MAX_CONVERTED_ITEMS};
use crate::engine::remembered::{identical, unwrapped};
use crate::limits::{MAX_STRING_BYTES, MOST_REMEMBERED_ENTRIES};
use minijinja::value::{Value, ValueKind};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Maps with fewer entries are written whole: there is little to reuse.
const FEWEST_ENTRIES: usize = 16;
/// The most text remembered per thread.
const MOST_REMEMBERED_BYTES: usize = 1 << 20;

/// One entry as last written: its value, its text, and the items converting it walked.
#[derive(Clone)]
struct Written {
    value: Value,
    text: Rc<str>,
    items: usize,
}

/// The last large map written on a thread: its keys in byte order, each entry as written, and
/// the order go-yaml writes them in (indexes into both).
#[derive(Default)]
struct Last {
    keys: Vec<String>,
    entries: Vec<Written>,
    order: Vec<usize>,
}

thread_local! {
    static LAST: RefCell<Last> = RefCell::new(Last::default());
}

/// `toYaml(value)` from the entries written last where they are unchanged; `None` when `value`
/// is not a large map with string keys, or anything about it needs the whole conversion.
pub(super) fn to_yaml_reusing_entries(value: &Value) -> Option<String> {
    let tree = value.downcast_object_ref::<BTreeMap<Value, Value>>()?;
    let size = FEWEST_ENTRIES..=MOST_REMEMBERED_ENTRIES;
    if !size.contains(&tree.len()) || !tree.keys().all(|key| key.as_str().is_some()) {
        return None;
    }
    let last = LAST.with(|last| std::mem::take(&mut *last.borrow_mut()));
    let mut keys = Vec::with_capacity(tree.len());
    let mut entries = Vec::with_capacity(tree.len());
    // The map itself counts its entries, as in a whole conversion.
    let mut items = tree.len();
    let mut bytes = 0;
    // Both in byte order: the last map's entries are found walking along it.
    let mut before = last.keys.iter().zip(&last.entries).peekable();
    for (key, item) in tree {
        let key = key.as_str()?;
        while before.next_if(|(seen, _)| seen.as_str() < key).is_some() {}
        let written = match before.next_if(|(seen, _)| seen.as_str() == key) {
            Some((_, seen)) if identical(&seen.value, item) => seen.clone(),
            _ => written_alone(key, item)?,
        };
        items += written.items;
        bytes += written.text.len() + 1;
        keys.push(key.to_owned());
        entries.push(written);
    }
    if items > MAX_CONVERTED_ITEMS || bytes > MAX_STRING_BYTES {
        return None;
    }
    let order = if keys == last.keys {
        last.order
    } else {
        let by_bytes: Vec<&str> = keys.iter().map(String::as_str).collect();
        crate::yaml::in_written_order(&by_bytes)
    };
    let mut text = String::with_capacity(bytes);
    for &at in &order {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&entries[at].text);
    }
    if text.len() <= MOST_REMEMBERED_BYTES {
        LAST.with(|last| {
            *last.borrow_mut() = Last {
                keys,
                entries,
                order,
            }
        });
    }
    Some(text)
}

/// How many small values' texts [`to_yaml_recent`] remembers per thread.
const RECENT_VALUES: usize = 16;
/// The longest text of a small value remembered.
const RECENT_MOST_BYTES: usize = 4096;

thread_local! {
    /// Small maps and lists written lately on this thread, the latest first, and their text.
    static RECENT: RefCell<Vec<(Value, Rc<str>)>> = const { RefCell::new(Vec::new()) };
}

/// `toYaml(value)` of a map or list written lately on this thread (the same data, as
/// remembered renders compare values), else `None`.
///
/// A fleet's components write the same small maps for every cluster (a pod's annotations, a
/// node selector, tolerations): converting and writing each took some ten thousand
/// instructions, comparing it with the recent ones a few hundred, and a value every cluster
/// shares (see `convert::to_jinja_reusing`) compares at once.
pub(super) fn to_yaml_recent(value: &Value) -> Option<Rc<str>> {
    if !matches!(value.kind(), ValueKind::Map | ValueKind::Seq) {
        return None;
    }
    RECENT.with(|recent| {
        let mut recent = recent.borrow_mut();
        let at = recent.iter().position(|(seen, _)| identical(seen, value))?;
        let hit = recent.remove(at);
        let text = hit.1.clone();
        recent.insert(0, hit);
        Some(text)
    })
}

/// Remembers `text` as `value`'s `toYaml`, for [`to_yaml_recent`].
pub(super) fn remember_recent(value: &Value, text: &str) {
    if text.len() > RECENT_MOST_BYTES || !matches!(value.kind(), ValueKind::Map | ValueKind::Seq) {
        return;
    }
    RECENT.with(|recent| {
        let mut recent = recent.borrow_mut();
        // Kept without a render's noting wrapper: the render is over.
        recent.insert(0, (unwrapped(value), text.into()));
        recent.truncate(RECENT_VALUES);
    });
}

/// The entry `key: item` written as a map of its own.
fn written_alone(key: &str, item: &Value) -> Option<Written> {
    let alone = Value::from_object(BTreeMap::from([(Value::from(key), item.clone())]));
    let (converted, items) = from_jinja_counting(&alone).ok()?;
    let text = crate::yaml::try_to_yaml_within(&converted, MAX_STRING_BYTES).ok()?;
    Some(Written {
        value: item.clone(),
        text: text.into(),
        // The one-entry map's own entry is the whole map's, counted there.
        items: items - 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::convert::{from_jinja, to_jinja};

    fn jinja(yaml: &str) -> Value {
        to_jinja(&crate::yaml::load::parse_document(yaml).expect("valid YAML"))
    }

    fn whole(value: &Value) -> String {
        crate::yaml::to_yaml(&from_jinja(value).expect("converts"))
    }

    /// A map of `n` entries of several shapes, `changed` giving one of them another value.
    fn values(n: usize, changed: &str) -> Value {
        let mut text = String::new();
        for i in 0..n {
            text.push_str(&format!(
                "key{i}:\n  list: [a{i}, 'yes', {{k: v}}]\n  text: \"line\\nline {i}\"\n  number: {i}\n"
            ));
        }
        text.push_str(&format!("a10: {changed}\na9: {{}}\na_b: []\naB: ~\n"));
        jinja(&text)
    }

    #[test]
    fn a_large_map_written_again_with_changes_is_what_a_whole_conversion_writes() {
        for value in [
            values(20, "one"),
            values(20, "one"),
            values(20, "two"),
            values(21, "two"),
            values(19, "\"2\""),
            values(20, "[x, {y: z}]"),
        ] {
            assert_eq!(to_yaml_reusing_entries(&value), Some(whole(&value)));
        }
    }

    #[test]
    fn a_small_value_written_lately_gets_its_own_text_back() {
        let texts: Vec<(Value, String)> = ["{a: 1}", "{a: 2}", "[x, y]", "{a: 1, b: [2]}", "[]"]
            .iter()
            .map(|yaml| {
                let value = jinja(yaml);
                let text = whole(&value);
                (value, text)
            })
            .collect();
        for (value, text) in &texts {
            remember_recent(value, text);
        }
        for (value, text) in texts.iter().rev().chain(&texts) {
            let again = jinja(&crate::yaml::to_yaml(&from_jinja(value).expect("converts")));
            assert_eq!(to_yaml_recent(&again).as_deref(), Some(text.as_str()));
        }
        assert_eq!(to_yaml_recent(&jinja("{a: 3}")), None);
        assert_eq!(to_yaml_recent(&Value::from("text")), None);
    }

    #[test]
    fn small_maps_and_maps_with_other_keys_are_written_whole() {
        assert_eq!(to_yaml_reusing_entries(&values(3, "x")), None);
        let numbered: BTreeMap<Value, Value> =
            (0..20).map(|i| (Value::from(i), Value::from(i))).collect();
        assert_eq!(to_yaml_reusing_entries(&Value::from_object(numbered)), None);
    }

    #[test]
    fn an_entry_that_cannot_be_written_leaves_the_error_to_the_whole_conversion() {
        let mut tree: BTreeMap<Value, Value> = (0..20)
            .map(|i| (Value::from(format!("k{i}")), Value::from(i)))
            .collect();
        tree.insert(Value::from("bad"), Value::from(f64::NAN));
        assert_eq!(to_yaml_reusing_entries(&Value::from_object(tree)), None);
    }
}
