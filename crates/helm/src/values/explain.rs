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
use super::positions::{for_each_leaf, layout, leaves, lookup, walk, Layout, Shape, Step};
use super::set::apply_set_with_reader;
use super::sources::{Assembler, Source, ValueOverrides, ValuesError};
use super::Value;
use crate::input::Input;
use std::collections::BTreeMap;
use std::io::Read;

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

/// A source and a line in it: compact, for one per leaf of a huge values file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Origin {
    /// Index into [`Explained::labels`].
    source: u32,
    /// 1-based; [`NO_LINE`] when the leaf has no line of its own (a `--set`, or a value an
    /// alias or merge key brought).
    line: u32,
}

const NO_LINE: u32 = 0;

/// Paths of leaves with their origins, sorted by path. Each path is encoded as a byte string
/// that sorts as the path does (each part's bytes, a zero byte written as `0, 0xFF`, then
/// `0, 1`), and all of them share one buffer: a million leaves make two allocations, not a
/// million.
#[derive(Clone, Debug, Default, PartialEq)]
struct Paths {
    bytes: Vec<u8>,
    entries: Vec<Entry>,
}

/// One path of [`Paths`]: where its bytes are, by whom it was written, and whether the user's
/// values still have a leaf there (a later source may have put a map over it, or a `null`
/// removed it).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Entry {
    start: usize,
    len: u32,
    origin: Origin,
    live: bool,
}

const PART_END: [u8; 2] = [0, 1];
const ZERO_BYTE: [u8; 2] = [0, 0xFF];

fn push_part(bytes: &mut Vec<u8>, part: &str) {
    for &byte in part.as_bytes() {
        if byte == 0 {
            bytes.extend_from_slice(&ZERO_BYTE);
        } else {
            bytes.push(byte);
        }
    }
    bytes.extend_from_slice(&PART_END);
}

/// `path` encoded as [`Paths`] keeps it, into `key` (cleared first).
fn encode(key: &mut Vec<u8>, path: &[impl AsRef<str>]) {
    key.clear();
    for part in path {
        push_part(key, part.as_ref());
    }
}

fn decode(mut bytes: &[u8]) -> LeafPath {
    let mut parts = Vec::new();
    let mut part = Vec::new();
    while let Some((&byte, rest)) = bytes.split_first() {
        bytes = rest;
        if byte != 0 {
            part.push(byte);
            continue;
        }
        let escaped_zero = bytes.first() == Some(&0xFF);
        bytes = bytes.get(1..).unwrap_or_default();
        if escaped_zero {
            part.push(0);
        } else {
            parts.push(String::from_utf8_lossy(&std::mem::take(&mut part)).into_owned());
        }
    }
    parts
}

impl Paths {
    fn key(&self, entry: &Entry) -> &[u8] {
        &self.bytes[entry.start..entry.start + entry.len as usize]
    }

    fn push(&mut self, path: &[impl AsRef<str>], origin: Origin) {
        let start = self.bytes.len();
        for part in path {
            push_part(&mut self.bytes, part.as_ref());
        }
        self.push_entry(start, origin);
    }

    fn push_encoded(&mut self, key: &[u8], origin: Origin) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(key);
        self.push_entry(start, origin);
    }

    fn push_entry(&mut self, start: usize, origin: Origin) {
        let len = u32::try_from(self.bytes.len() - start).unwrap_or(u32::MAX);
        self.entries.push(Entry {
            start,
            len,
            origin,
            live: false,
        });
    }

    /// Sorts by path; of a path given twice, the first stays.
    fn sort(&mut self) {
        let bytes = &self.bytes;
        let key = |e: &Entry| &bytes[e.start..e.start + e.len as usize];
        self.entries.sort_by(|a, b| key(a).cmp(key(b)));
        self.entries
            .dedup_by(|later, first| key(later) == key(first));
        // Grown by doubling: up to twice what a million paths need.
        self.entries.shrink_to_fit();
        self.bytes.shrink_to_fit();
    }

    fn find(&self, key: &[u8]) -> Option<usize> {
        self.entries.binary_search_by(|e| self.key(e).cmp(key)).ok()
    }

    /// `self` with `later` over it (both sorted, and so is the result).
    fn merged(self, later: Paths) -> Paths {
        if self.entries.is_empty() {
            return later;
        }
        let mut merged = Paths {
            bytes: Vec::with_capacity(self.bytes.len() + later.bytes.len()),
            entries: Vec::with_capacity(self.entries.len() + later.entries.len()),
        };
        let mut earlier = self.entries.iter().peekable();
        for entry in &later.entries {
            let key = later.key(entry);
            while let Some(e) = earlier.next_if(|e| self.key(e) < key) {
                merged.push_encoded(self.key(e), e.origin);
            }
            earlier.next_if(|e| self.key(e) == key);
            merged.push_encoded(key, entry.origin);
        }
        for e in earlier {
            merged.push_encoded(self.key(e), e.origin);
        }
        merged
    }
}

/// How [`Explained::origin_of`] names a value of the chart's defaults when it has no defaults
/// file to cite.
pub const CHART_DEFAULTS: &str = "chart defaults";

/// The chart's defaults as a file: how to name it, and its text.
#[derive(Clone, Copy, Debug)]
pub struct DefaultsFile<'a> {
    /// The name shown (`values/values.yaml`).
    pub name: &'a str,
    /// Its text.
    pub text: &'a str,
}

/// How a source is named in origins (without a line).
pub fn source_label(source: &Source) -> String {
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
            // A flag that stands for values meshchart holds (`--ha`) has no file to cite.
            _ if label.starts_with("--") => label.to_owned(),
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
                _ => written.map_or_else(|| CHART_DEFAULTS.to_owned(), |w| self.name(w.origin)),
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

/// Appends `  # <origin>` to the line of `yaml` (a document printed from the explained values)
/// that holds each leaf, as `origin_of` names it by its path: the key's line for a block scalar
/// (`key: |-`), the last line of the value otherwise, so folded scalars stay intact. The text
/// is walked once and written as it goes: each leaf's line lies between its own node's and the
/// next node's, so the notes come in the order of the lines.
pub fn annotate(yaml: &str, origin_of: impl Fn(&[String]) -> Option<String>) -> String {
    let lines: Vec<&str> = yaml.lines().collect();
    let mut out = Annotated {
        lines: &lines,
        text: String::with_capacity(yaml.len() + yaml.len() / 2),
        written: 0,
        held: None,
    };
    // The leaf waiting for the next node to know where it ends, and a collection that is a
    // leaf if it ends before anything starts in it.
    let mut waiting: Option<Leaf> = None;
    let mut empty_if_it_ends: Option<Leaf> = None;
    let walked = walk(yaml, |step| match step {
        Step::Key { .. } => {}
        Step::Node {
            path, at, shape, ..
        } => {
            if let Some(leaf) = waiting.take() {
                let line = leaf.line(&lines, at.line);
                out.note(line, leaf.origin);
            }
            empty_if_it_ends = None;
            let leaf = |block| {
                origin_of(path).map(|origin| Leaf {
                    at: at.line,
                    block,
                    origin,
                })
            };
            match shape {
                Shape::Scalar { block, .. } => waiting = leaf(block),
                Shape::Alias => waiting = leaf(false),
                Shape::Collection => empty_if_it_ends = leaf(false),
            }
        }
        Step::End { len } => {
            if let Some(leaf) = empty_if_it_ends.take().filter(|_| len == 0) {
                waiting = Some(leaf);
            }
        }
    });
    if walked.is_err() {
        return yaml.to_owned();
    }
    if let Some(leaf) = waiting.take() {
        let line = leaf.line(&lines, lines.len() + 1);
        out.note(line, leaf.origin);
    }
    out.finish()
}

/// A leaf of the annotated text: where its node is, and the note for it.
struct Leaf {
    at: usize,
    block: bool,
    origin: String,
}

impl Leaf {
    /// The line its note goes on, given where the next node is: its own for a block scalar,
    /// else the last line before the next node that is not blank.
    fn line(&self, lines: &[&str], next: usize) -> usize {
        if self.block {
            return self.at;
        }
        let mut end = next.saturating_sub(1).max(self.at);
        while end > self.at && lines.get(end - 1).is_some_and(|t| t.trim().is_empty()) {
            end -= 1;
        }
        end
    }
}

/// The annotated text as far as it is known: lines are written once no later note can fall on
/// them (a later leaf on the same line replaces the note held for it).
struct Annotated<'l> {
    lines: &'l [&'l str],
    text: String,
    /// Lines written so far.
    written: usize,
    held: Option<(usize, String)>,
}

impl Annotated<'_> {
    fn note(&mut self, line: usize, origin: String) {
        if let Some((held, earlier)) = self.held.take() {
            if held < line {
                self.write_through(held, Some(&earlier));
            }
        }
        self.held = Some((line, origin));
    }

    /// Writes the lines up to `line` (1-based), the last with `note`.
    fn write_through(&mut self, line: usize, note: Option<&str>) {
        while self.written < line.min(self.lines.len()) {
            self.text.push_str(self.lines[self.written]);
            self.written += 1;
            if self.written == line {
                if let Some(note) = note {
                    self.text.push_str("  # ");
                    self.text.push_str(note);
                }
            }
            self.text.push('\n');
        }
    }

    fn finish(mut self) -> String {
        if let Some((line, note)) = self.held.take() {
            self.write_through(line, Some(&note));
        }
        self.write_through(self.lines.len(), None);
        self.text
    }
}

#[cfg(test)]
mod tests {

    /// Standard input that fails the test if anything reads it.
    struct UntouchableStdin;

    impl std::io::Read for UntouchableStdin {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            panic!("standard input was read");
        }
    }

    #[test]
    fn a_set_value_of_dash_does_not_read_standard_input() {
        let overrides = ValueOverrides {
            set: vec!["name=-".into()],
            ..Default::default()
        };
        let explained = explain(
            None,
            &Value::Map(Default::default()),
            &overrides,
            &mut UntouchableStdin,
        )
        .unwrap();
        assert_eq!(
            explained.values.get_path(&["name"]),
            Some(&Value::String("-".into()))
        );
    }

    use super::*;
    use crate::yaml::parse_document;

    const DEFAULTS: &str = "proxy:\n  await: true\n  image: proxy\nports: [1, 2]\nlabels: {}\n";

    fn p(parts: &[&str]) -> LeafPath {
        parts.iter().map(|s| s.to_string()).collect()
    }

    fn run(o: &ValueOverrides) -> Explained {
        let file = DefaultsFile {
            name: "values.yaml",
            text: DEFAULTS,
        };
        explain(
            Some(file),
            &parse_document(DEFAULTS).unwrap(),
            o,
            &mut std::io::empty(),
        )
        .unwrap()
    }

    #[test]
    fn untouched_leaves_name_the_defaults_line() {
        let e = run(&ValueOverrides::default());
        assert_eq!(
            e.origin_of(&p(&["proxy", "image"])).unwrap(),
            "values.yaml:3"
        );
        assert_eq!(e.origin_of(&p(&["ports", "1"])).unwrap(), "values.yaml:4");
        assert_eq!(e.origin_of(&p(&["labels"])).unwrap(), "values.yaml:5");
    }

    #[test]
    fn a_set_flag_names_its_expression() {
        let e = run(&ValueOverrides {
            set: vec!["proxy.await=false".into()],
            ..Default::default()
        });
        assert_eq!(
            e.origin_of(&p(&["proxy", "await"])).unwrap(),
            "--set proxy.await=false"
        );
        assert_eq!(
            e.origin_of(&p(&["proxy", "image"])).unwrap(),
            "values.yaml:3"
        );
    }

    #[test]
    fn a_later_file_takes_over_the_leaves_it_writes() {
        let dir = std::env::temp_dir().join(format!("meshchart-explain-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = dir.join("a.yaml");
        let b = dir.join("b.yaml");
        std::fs::write(&a, "proxy:\n  image: a\n  await: false\n").unwrap();
        std::fs::write(&b, "# b\nproxy:\n  image: a\n").unwrap();
        let (a, b) = (
            a.to_string_lossy().into_owned(),
            b.to_string_lossy().into_owned(),
        );
        let e = run(&ValueOverrides {
            files: vec![a.clone(), b.clone()],
            ..Default::default()
        });
        assert_eq!(
            e.origin_of(&p(&["proxy", "image"])).unwrap(),
            format!("{b}:3")
        );
        assert_eq!(
            e.origin_of(&p(&["proxy", "await"])).unwrap(),
            format!("{a}:3")
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn annotations_land_on_each_leaf_line_and_keep_the_yaml_valid() {
        let yaml =
            "a: |-\n  one\n  two\nb:\n  c: folded text that\n    goes on\n  d: {}\nl:\n- x\n";
        let mut origins = BTreeMap::new();
        for (path, origin) in [
            (p(&["a"]), "A"),
            (p(&["b", "c"]), "C"),
            (p(&["b", "d"]), "D"),
            (p(&["l", "0"]), "X"),
        ] {
            origins.insert(path, origin.to_owned());
        }
        let out = annotate(yaml, |path| origins.get(path).cloned());
        assert_eq!(
            out,
            "a: |-  # A\n  one\n  two\nb:\n  c: folded text that\n    goes on  # C\n  d: {}  # D\nl:\n- x  # X\n"
        );
        assert_eq!(parse_document(&out).unwrap(), parse_document(yaml).unwrap());
    }
}
