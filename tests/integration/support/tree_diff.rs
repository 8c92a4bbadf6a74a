//! Field-by-field comparison of two YAML trees, as the reference tests report it.
//!
//! Maps are compared key by key; lists whose items are all maps with distinct `name`s are matched
//! by name (`env[name=LINKERD2_PROXY_LOG]`) and their order is compared separately (reported at
//! the list's path); other lists by index (`rules[2]`).

use meshchart::values::{Map, Value};
use std::collections::BTreeMap;

/// What a [`TreeDiff`]'s rule says about one path.
pub enum Rule {
    /// Compare the two values as usual.
    Compare,
    /// Already decided: `Some(message)` is a difference, `None` is none.
    Decided(Option<String>),
    /// Compare these two values at the same path instead (YAML held in a string, parsed).
    Instead(Value, Value),
}

/// Rule given to every path: `(path, expected, got)`.
type RuleFn<'a> = Box<dyn Fn(&str, &Value, &Value) -> Rule + 'a>;

/// A comparison of an expected tree with the one we got: every differing path and what differs.
pub struct TreeDiff<'a> {
    rule: RuleFn<'a>,
    found: Vec<(String, String)>,
}

impl Default for TreeDiff<'_> {
    fn default() -> Self {
        TreeDiff {
            rule: Box::new(|_, _, _| Rule::Compare),
            found: Vec::new(),
        }
    }
}

impl<'a> TreeDiff<'a> {
    /// Consults `rule` at every path before comparing there.
    pub fn with_rule(mut self, rule: impl Fn(&str, &Value, &Value) -> Rule + 'a) -> Self {
        self.rule = Box::new(rule);
        self
    }

    /// Every differing path between `expected` and `got`, with its message.
    pub fn run(mut self, expected: &Value, got: &Value) -> Vec<(String, String)> {
        self.compare("", expected, got);
        self.found
    }

    fn report(&mut self, path: &str, message: String) {
        self.found.push((path.to_owned(), message));
    }

    fn compare(&mut self, path: &str, expected: &Value, got: &Value) {
        match (self.rule)(path, expected, got) {
            Rule::Compare => {}
            Rule::Decided(message) => {
                if let Some(message) = message {
                    self.report(path, message);
                }
                return;
            }
            Rule::Instead(expected, got) => return self.compare(path, &expected, &got),
        }
        match (expected, got) {
            (Value::Map(e), Value::Map(g)) => self.compare_maps(path, e, g),
            (Value::Seq(e), Value::Seq(g)) => self.compare_seqs(path, e, g),
            _ if expected == got => {}
            _ => self.report(
                path,
                format!("expected {}, got {}", show(expected), show(got)),
            ),
        }
    }

    fn compare_maps(&mut self, path: &str, expected: &Map, got: &Map) {
        let join = |key: &str| {
            if path.is_empty() {
                key.to_owned()
            } else {
                format!("{path}.{key}")
            }
        };
        for (key, e) in expected {
            match got.get(key) {
                Some(g) => self.compare(&join(key), e, g),
                None => self.report(&join(key), format!("missing (expected {})", show(e))),
            }
        }
        for (key, g) in got {
            if !expected.contains_key(key) {
                self.report(
                    &join(key),
                    format!("not in the reference (got {})", show(g)),
                );
            }
        }
    }

    fn compare_seqs(&mut self, path: &str, expected: &[Value], got: &[Value]) {
        if let (Some(e_names), Some(g_names)) = (item_names(expected), item_names(got)) {
            for (name, e) in e_names.iter().zip(expected) {
                let item_path = format!("{path}[name={name}]");
                match g_names.iter().position(|n| n == name) {
                    Some(i) => self.compare(&item_path, e, &got[i]),
                    None => self.report(&item_path, format!("missing (expected {})", show(e))),
                }
            }
            for (name, g) in g_names.iter().zip(got) {
                if !e_names.contains(name) {
                    self.report(
                        &format!("{path}[name={name}]"),
                        format!("not in the reference (got {})", show(g)),
                    );
                }
            }
            let common = |names: &[String], other: &[String]| -> Vec<String> {
                names
                    .iter()
                    .filter(|n| other.contains(n))
                    .cloned()
                    .collect()
            };
            let (e_order, g_order) = (common(&e_names, &g_names), common(&g_names, &e_names));
            if e_order != g_order {
                self.report(
                    path,
                    format!("order: expected {e_order:?}, got {g_order:?}"),
                );
            }
            return;
        }
        for (i, (e, g)) in expected.iter().zip(got).enumerate() {
            self.compare(&format!("{path}[{i}]"), e, g);
        }
        for (i, e) in expected.iter().enumerate().skip(got.len()) {
            self.report(
                &format!("{path}[{i}]"),
                format!("missing (expected {})", show(e)),
            );
        }
        for (i, g) in got.iter().enumerate().skip(expected.len()) {
            self.report(
                &format!("{path}[{i}]"),
                format!("not in the reference (got {})", show(g)),
            );
        }
    }
}

/// The names of a list whose items are all maps with distinct string `name`s (an empty list
/// counts as one).
fn item_names(items: &[Value]) -> Option<Vec<String>> {
    let names: Vec<String> = items
        .iter()
        .map(|item| {
            item.get_path(&["name"])
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .collect::<Option<_>>()?;
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    (sorted.len() == names.len()).then_some(names)
}

/// A value for messages: its JSON, shortened past 100 characters.
pub fn show(value: &Value) -> String {
    let text = meshchart::yaml::to_json(value);
    if text.chars().count() > 100 {
        format!("{}...", text.chars().take(97).collect::<String>())
    } else {
        text
    }
}

/// Every leaf of a tree by path (named list items as `[name=...]`, as [`TreeDiff`] addresses
/// them; an empty map or list is a leaf).
pub fn leaves(value: &Value, path: String, out: &mut BTreeMap<String, Value>) {
    let join = |key: &str| {
        if path.is_empty() {
            key.to_owned()
        } else {
            format!("{path}.{key}")
        }
    };
    match value {
        Value::Map(map) if !map.is_empty() => {
            for (k, v) in map {
                leaves(v, join(k), out);
            }
        }
        Value::Seq(items) if !items.is_empty() => {
            let named: Option<Vec<&str>> = items
                .iter()
                .map(|i| i.get_path(&["name"]).and_then(Value::as_str))
                .collect();
            let unique = named.as_ref().is_some_and(|n| {
                let mut sorted = n.clone();
                sorted.sort_unstable();
                sorted.dedup();
                sorted.len() == n.len()
            });
            for (i, item) in items.iter().enumerate() {
                let at = match (&named, unique) {
                    (Some(names), true) => format!("{path}[name={}]", names[i]),
                    _ => format!("{path}[{i}]"),
                };
                leaves(item, at, out);
            }
        }
        _ => {
            out.insert(path, value.clone());
        }
    }
}
