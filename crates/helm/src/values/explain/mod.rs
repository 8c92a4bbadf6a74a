//! `values --explain`: where each effective value came from.
//!
//! The user's sources are applied one at a time with [`Assembler`], in Helm's order; after each,
//! the leaves it wrote take its name (`prod.yaml:7`, `--set proxy.await=false`). Leaves the user
//! did not write come from the chart's defaults (`values/values.yaml:42`). [`annotate`] then puts
//! each origin as a comment on the line of YAML output that holds the leaf, so the annotated
//! text still reads back as the same values.
//!
//! A values file may have a million leaves: what the user's sources wrote is kept as one sorted
//! list of compact paths and origins, and the origin of each effective value is worked out when
//! it is asked for ([`Explained::origin_of`]), not kept for every leaf.

use super::coalesce::coalesce;
use super::positions::{for_each_leaf, layout, leaves, lookup, walk, Layout, Step};
use super::set::apply_set_with_reader;
use super::sources::{Assembler, Source, ValueOverrides, ValuesError};
use super::Value;
use crate::input::Input;
use std::collections::BTreeMap;
use std::io::Read;

mod annotate;
mod paths;

pub use annotate::annotate;
use paths::{decode, encode, Entry, Origin, Paths, NO_LINE};

/// A leaf's path of map keys and list indices.
pub type LeafPath = Vec<String>;

/// The effective values and where each leaf came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Explained {
    /// The values templates see (user values coalesced onto the defaults).
    pub values: Value,
    /// Coalescing warnings.
    pub warnings: Vec<String>,
    /// The `-f` files as read (once), named as in origins, in order.
    pub files: Vec<Input>,
    /// Every leaf the user's sources wrote (nulls and later-overwritten ones included), with
    /// the source that wrote it last.
    user: Paths,
    /// How each source is named in origins, by [`Origin::source`].
    labels: Vec<String>,
    /// The chart's defaults, and their file's name and the line of each path in it (the first
    /// node at a path), when the file could be laid out.
    defaults: Value,
    defaults_file: Option<(String, BTreeMap<LeafPath, usize>)>,
}

/// The chart's defaults as a file: how to name it, and its text.
#[derive(Clone, Copy, Debug)]
pub struct DefaultsFile<'a> {
    /// The name shown (`values/values.yaml`).
    pub name: &'a str,
    /// Its text.
    pub text: &'a str,
}

/// How a source is named in origins (without a line).
pub(super) fn source_label(source: &Source) -> String {
    match source {
        Source::File(f) if f == "-" => "<stdin>".to_owned(),
        Source::File(f) => f.clone(),
        Source::Set { mode, expression } => format!("{} {expression}", mode.flag()),
    }
}

/// Computes the effective values and what it takes to name the origin of each leaf. Each
/// source is read once (by the [`Assembler`], standard input only when a source asks for it);
/// a file's lines come from walking its kept text once, so the work grows linearly with the
/// values, and the memory too.
pub fn explain(
    defaults_file: Option<DefaultsFile<'_>>,
    defaults: &Value,
    overrides: &ValueOverrides,
    stdin: &mut dyn Read,
) -> Result<Explained, ValuesError> {
    let sources = overrides.sources();
    let mut assembler = Assembler::for_sources(overrides, stdin, Default::default());
    let mut user = Paths::default();
    let mut labels: Vec<String> = Vec::new();
    let mut file_names: Vec<(String, &str)> = Vec::new();
    for source in &sources {
        let label = source_label(source);
        let this = u32::try_from(labels.len()).unwrap_or(u32::MAX);
        labels.push(label.clone());
        let no_line = Origin {
            source: this,
            line: NO_LINE,
        };
        let mut written = Paths::default();
        match source {
            Source::File(f) => {
                let mut later_documents = false;
                assembler.apply_inspecting(source, &mut |values, later| {
                    // The file's leaves, placed on their lines below once its text is at hand.
                    for_each_leaf(values, |path, _| written.push(path, no_line));
                    later_documents = later;
                })?;
                let text = assembler.kept(f).unwrap_or_default();
                // The leaves are those of the text as kept: a file kept under another name
                // (`-f f -f ./f`), or /dev/null, is the empty text, whose one leaf is the root;
                // a text whose later documents do not read places none.
                if assembler.kept(f).is_none() {
                    written = Paths::default();
                    written.push(&[] as &[&str], no_line);
                }
                if later_documents && crate::yaml::parse_documents(text).is_err() {
                    written = Paths::default();
                }
                written.sort();
                place_on_lines(text, &mut written);
                file_names.push((label, f.as_str()));
            }
            Source::Set { mode, expression } => {
                // What the expression sets, read on its own: the top-level keys it can change
                // (only those are compared before and after), and its leaves.
                let expression_map = |assembler: &Assembler<'_>| {
                    let mut map = super::Map::new();
                    let mut kept =
                        |path: &str| Ok(assembler.kept(path).unwrap_or_default().to_owned());
                    apply_set_with_reader(&mut map, expression, *mode, &mut kept)
                        .is_ok()
                        .then_some(map)
                };
                let before = match expression_map(&assembler) {
                    Some(map) => Before::Keys(
                        map.keys()
                            .map(|key| {
                                let was = assembler.values().get_path(&[key]).cloned();
                                (key.clone(), was)
                            })
                            .collect(),
                    ),
                    None => Before::Whole(assembler.values().clone()),
                };
                assembler.apply(source)?;
                let after = assembler.values();
                let mut this_source = std::collections::BTreeSet::new();
                if let Some(map) = expression_map(&assembler) {
                    for (path, value) in leaves(&Value::Map(map)) {
                        if lookup(after, &path) == Some(value) {
                            written.push(&path, no_line);
                            this_source.insert(path);
                        }
                    }
                }
                // Anything else it changed (a `--set` index patching a list, say) is its doing too.
                let mut changed = |path: &[String], value: &Value, was: Option<&Value>| {
                    if was != Some(value) && !this_source.contains(path) {
                        written.push(path, no_line);
                    }
                };
                match &before {
                    Before::Whole(before) => {
                        for (path, value) in leaves(after) {
                            changed(&path, value, lookup(before, &path));
                        }
                    }
                    Before::Keys(keys) => {
                        for (key, was) in keys {
                            let Some(now) = after.get_path(&[key]) else {
                                continue;
                            };
                            for (mut path, value) in leaves(now) {
                                let was = was.as_ref().and_then(|was| lookup(was, &path));
                                path.insert(0, key.clone());
                                changed(&path, value, was);
                            }
                        }
                    }
                }
                written.sort();
            }
        }
        user = user.merged(written);
        // A NaN equals nothing, itself included: one the source did not write still counts as
        // changed by it, as comparing the values before and after always had it.
        relabel_nans(assembler.values(), &mut user, this);
    }
    mark_live(assembler.values(), &mut user);
    let (user_values, mut warnings, mut kept) = assembler.finish_keeping();
    let values = coalesce(defaults, user_values, &mut warnings);
    let defaults_file = defaults_file.and_then(|f| {
        layout(f.text)
            .ok()
            .map(|l| (f.name.to_owned(), first_lines(&l)))
    });
    // Each file's kept text, taken rather than copied (a file named twice is copied once).
    let mut files: Vec<Input> = Vec::with_capacity(file_names.len());
    let mut taken: BTreeMap<&str, usize> = BTreeMap::new();
    for (name, file) in file_names {
        let text = match (kept.remove(file), taken.get(file)) {
            (Some(text), _) => {
                taken.insert(file, files.len());
                text
            }
            (None, Some(&earlier)) => files[earlier].text.clone(),
            (None, None) => String::new(),
        };
        files.push(Input { name, text });
    }
    Ok(Explained {
        values,
        warnings,
        files,
        user,
        labels,
        defaults: defaults.clone(),
        defaults_file,
    })
}

/// The user's values as they were before a `--set`: the top-level keys its expression names
/// (nothing else can change), or, if it cannot be read on its own, all of them.
enum Before {
    Keys(Vec<(String, Option<Value>)>),
    Whole(Value),
}

/// Gives each of `written` (a file's leaves) the line of the first node of `text` at its path.
fn place_on_lines(text: &str, written: &mut Paths) {
    if written.entries.is_empty() {
        return;
    }
    let mut key = Vec::new();
    let _ = walk(text, |step| {
        let Step::Node { path, at, .. } = step else {
            return;
        };
        encode(&mut key, path);
        if let Some(i) = written.find(&key) {
            let origin = &mut written.entries[i].origin;
            if origin.line == NO_LINE {
                origin.line = u32::try_from(at.line).unwrap_or(u32::MAX);
            }
        }
    });
}

/// Every NaN leaf of `values` the source `this` did not write is named as its doing.
fn relabel_nans(values: &Value, user: &mut Paths, this: u32) {
    let no_line = Origin {
        source: this,
        line: NO_LINE,
    };
    let mut key = Vec::new();
    let mut relabeled = Paths::default();
    for_each_leaf(values, |path, value| {
        if !matches!(value, Value::Float(f) if f.is_nan()) {
            return;
        }
        encode(&mut key, path);
        match user.find(&key) {
            Some(i) if user.entries[i].origin.source == this => {}
            Some(i) => user.entries[i].origin = no_line,
            None => relabeled.push_encoded(&key, no_line),
        }
    });
    if !relabeled.entries.is_empty() {
        relabeled.sort();
        *user = std::mem::take(user).merged(relabeled);
    }
}

/// Marks what the user's final values still have a leaf at.
fn mark_live(values: &Value, user: &mut Paths) {
    let mut key = Vec::new();
    for_each_leaf(values, |path, _| {
        encode(&mut key, path);
        if let Some(i) = user.find(&key) {
            user.entries[i].live = true;
        }
    });
}

/// The line of the first node at each path of a (small) laid-out file.
fn first_lines(layout: &Layout) -> BTreeMap<LeafPath, usize> {
    let mut lines = BTreeMap::new();
    for node in &layout.nodes {
        lines.entry(node.path.clone()).or_insert(node.at.line);
    }
    lines
}

/// The value at `path`, following list indices only as paths write them (`3`, never `03`), so
/// that each value has one path.
fn node_at<'v>(values: &'v Value, path: &[String]) -> Option<&'v Value> {
    let mut current = values;
    for part in path {
        current = match current {
            Value::Map(m) => m.get(part)?,
            Value::Seq(items) => {
                let index = part.parse::<usize>().ok()?;
                if index.to_string() != *part {
                    return None;
                }
                items.get(index)?
            }
            _ => return None,
        };
    }
    Some(current)
}

/// The value at `path` ([`node_at`]) when it is a leaf: a scalar, or an empty map or list.
fn leaf_at<'v>(values: &'v Value, path: &[String]) -> Option<&'v Value> {
    match node_at(values, path)? {
        Value::Map(m) if !m.is_empty() => None,
        Value::Seq(items) if !items.is_empty() => None,
        leaf => Some(leaf),
    }
}

impl Explained {
    fn written(&self, path: &[String]) -> Option<Entry> {
        let mut key = Vec::new();
        encode(&mut key, path);
        self.user.find(&key).map(|i| self.user.entries[i])
    }

    fn name(&self, origin: Origin) -> String {
        let label = self
            .labels
            .get(origin.source as usize)
            .map_or("", String::as_str);
        match origin.line {
            NO_LINE => label.to_owned(),
            line => format!("{label}:{line}"),
        }
    }

    /// Where the leaf of [`Explained::values`] at `path` came from (`prod.yaml:7`,
    /// `--set proxy.await=false`, `values/values.yaml:42`); `None` when no leaf is there.
    pub fn origin_of(&self, path: &[String]) -> Option<String> {
        let value = leaf_at(&self.values, path)?;
        let written = self.written(path);
        // Where the user's values still have a leaf, it is the one the values have, and the
        // user's doing, unless it is a NaN (which equals nothing).
        let from_user = !matches!(value, Value::Float(f) if f.is_nan());
        Some(match written {
            Some(w) if w.live && from_user => self.name(w.origin),
            _ => match &self.defaults_file {
                Some((name, lines)) if lookup(&self.defaults, path) == Some(value) => {
                    match lines.get(path) {
                        Some(line) => format!("{name}:{line}"),
                        None => name.clone(),
                    }
                }
                _ => written.map_or_else(|| "chart defaults".to_owned(), |w| self.name(w.origin)),
            },
        })
    }

    /// The origin of the first leaf (in path order) at or under `path`, if any.
    pub fn first_origin_under(&self, path: &[String]) -> Option<String> {
        let mut current = node_at(&self.values, path)?;
        let mut first = path.to_vec();
        loop {
            match current {
                Value::Map(m) if !m.is_empty() => {
                    let (key, value) = m.iter().next()?;
                    first.push(key.clone());
                    current = value;
                }
                Value::Seq(items) if !items.is_empty() => {
                    first.push("0".to_owned());
                    current = &items[0];
                }
                _ => break,
            }
        }
        self.origin_of(&first)
    }

    /// Every leaf the user's sources wrote (nulls, and leaves a later source replaced,
    /// included), with the source that wrote it last, in path order.
    pub fn user_origins(&self) -> impl Iterator<Item = (LeafPath, String)> + '_ {
        self.user
            .entries
            .iter()
            .map(|entry| (decode(self.user.key(entry)), self.name(entry.origin)))
    }
}

#[cfg(test)]
mod tests;
