//! Reads YAML text into [`Value`]s, resolving plain scalars the way Helm's YAML 1.1 reader does.
//!
//! Built on `yaml-rust2`'s event stream rather than a serde layer because Helm's resolution
//! depends on the scalar *style* (a plain `yes` is a boolean, a quoted one a string), which serde
//! layers throw away. Hostile input is bounded: nesting depth and the number of nodes that alias
//! expansion may create are capped, so an alias bomb or `[[[[...` ends in an error, not a hang.

mod fast;
mod resolve;
pub(crate) use resolve::{
    go_parses_as_float, is_str_tag, is_yaml_float, parse_go_integer, parses_finite, resolve_key,
    resolve_word,
};
pub use resolve::{resolve_plain, resolve_scalar, resolve_tagged};

use resolve::{is_integer_text, is_merge_key, MERGE_KEY};

pub use crate::events::Position;
use crate::events::{EventError, Events};
use crate::value::{Map, Value};
use yaml_rust2::parser::Event;

/// Longest implicit key (`key: value`) YAML allows, in characters; longer keys must be written
/// in the explicit form (`? key` then `: value`), which our writer does.
pub const MAX_IMPLICIT_KEY_CHARS: usize = 1024;
/// Deepest nesting of sequences and maps accepted ([`crate::MAX_NESTING`]), in block
/// and flow style alike (see [`crate::events`] for flow style past 255 levels).
pub const MAX_DEPTH: usize = crate::MAX_NESTING;
/// Most nodes that alias expansion may add to one stream.
pub const MAX_ALIAS_NODES: usize = 1_000_000;

/// Why YAML text could not be read.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
#[error("line {}, column {}: {message}", position.line, position.column)]
pub struct YamlError {
    /// Where the problem is.
    pub position: Position,
    /// What is wrong.
    pub message: String,
}

/// Where each leaf of a document came from, keyed by its path of map keys and list indices.
pub type Positions = Vec<(Vec<String>, Position)>;

/// Parses every document of a YAML stream; an empty document is `Value::Null`. A map key given
/// twice keeps its last value, as Helm does when it reads templates' output.
pub fn parse_documents(text: &str) -> Result<Vec<Value>, YamlError> {
    if let Some(documents) = fast::documents(text, HELM_RULES) {
        return Ok(documents);
    }
    Ok(Loader::new(text, false).run()?.0)
}

/// What [`parse_documents`] reads by.
const HELM_RULES: fast::Rules = fast::Rules {
    unique_keys: false,
    keep_big_integers: false,
};

/// What [`parse_manifest_documents`] reads by.
const MANIFEST_RULES: fast::Rules = fast::Rules {
    unique_keys: true,
    keep_big_integers: true,
};

/// Parses a user's manifest stream as kubectl does: a map key given twice is an error naming
/// both lines (Helm would silently keep the last, hiding typos and merge accidents).
/// `first_line` is the line of the file that `text` starts on, so errors name lines of the file.
pub fn parse_manifest_documents(text: &str, first_line: usize) -> Result<Vec<Value>, YamlError> {
    if let Some(documents) = fast::documents(text, MANIFEST_RULES) {
        return Ok(documents);
    }
    full_manifest_documents(text, first_line)
}

/// [`parse_manifest_documents`] by the full reader alone.
fn full_manifest_documents(text: &str, first_line: usize) -> Result<Vec<Value>, YamlError> {
    let mut loader = Loader::new(text, false);
    loader.unique_keys = true;
    loader.keep_big_integers = true;
    loader.line_offset = first_line.saturating_sub(1);
    Ok(loader.run()?.0)
}

/// Both readers of [`parse_documents`] and [`parse_manifest_documents`] apart, for the tests
/// and the fuzz target that check they agree: the line-based fast path answers only for plain
/// block YAML it is sure of, and must then give what the full reader gives.
#[doc(hidden)]
pub mod readers {
    use super::{Value, YamlError};

    /// The fast path of [`super::parse_documents`] (`manifest: false`) or
    /// [`super::parse_manifest_documents`] (`manifest: true`); `None` where it declines.
    pub fn fast(text: &str, manifest: bool) -> Option<Vec<Value>> {
        let rules = if manifest {
            super::MANIFEST_RULES
        } else {
            super::HELM_RULES
        };
        super::fast::documents(text, rules)
    }

    /// The full reader of the same function.
    pub fn full(text: &str, manifest: bool) -> Result<Vec<Value>, YamlError> {
        if manifest {
            super::full_manifest_documents(text, 1)
        } else {
            Ok(super::Loader::new(text, false).run()?.0)
        }
    }
}

/// The first map key given twice in `text`, a JSON or YAML stream, as the error
/// [`parse_manifest_documents`] gives; `None` when there is none or the text does not read as
/// YAML. For JSON, whose readers keep the last value silently.
pub fn first_duplicate_key(text: &str, first_line: usize) -> Option<YamlError> {
    first_duplicate_key_observed(text, first_line, &mut |_, _| {})
}

/// [`first_duplicate_key`], handing `observe` each event it reads, in order, with where it
/// starts (as [`Events`] gives it): another check of the same text can ride on this pass
/// instead of parsing it again. Reading stops at the first error, repeated key or not.
pub(crate) fn first_duplicate_key_observed(
    text: &str,
    first_line: usize,
    observe: &mut dyn FnMut(&Event, Position),
) -> Option<YamlError> {
    let mut loader = Loader::new(text, false);
    loader.unique_keys = true;
    loader.keys_only = true;
    loader.line_offset = first_line.saturating_sub(1);
    match loader.read_observed(observe) {
        Err(e) if loader.found_duplicate => Some(e),
        _ => None,
    }
}

/// The first map key `text` (one document) gives twice, with where: `None` when every key is
/// given once (or the text does not read for another reason, which the caller reports).
pub fn first_duplicate_key_in(text: &str) -> Option<DuplicateKey> {
    let mut loader = Loader::new(text, false);
    loader.unique_keys = true;
    loader.keys_only = true;
    match loader.read() {
        Err(_) if loader.found_duplicate => loader.duplicate,
        _ => None,
    }
}

/// Parses the first document of a user's values file, refusing a map key given twice (see
/// [`parse_manifest_documents`]), and gives the line where a second document starts: Helm
/// 3.17 reads only the first document of a values file and ignores the rest unread (even when
/// it is not valid YAML), and so does this.
pub fn parse_values_document(text: &str) -> Result<(Value, Option<usize>), YamlError> {
    let mut loader = Loader::new(text, false);
    loader.unique_keys = true;
    loader.first_only = true;
    let ignored_from = loader.read().map(|()| loader.ignored_from)?;
    let first = loader.docs.into_iter().next().unwrap_or(Value::Null);
    Ok((first, ignored_from))
}

/// [`parse_document`] of a text that gives every map key once; `None` when one is given twice,
/// or the text does not read, for the caller to read it again as it needs. One reading where
/// [`parse_document`] and [`first_duplicate_key_in`] would take two: a chart's default values
/// are checked for repeated keys on every render.
pub fn parse_document_if_keys_unique(text: &str) -> Option<Value> {
    let mut loader = Loader::new(text, false);
    loader.unique_keys = true;
    // Not `read`: on a repeated key it reads the text again to find the first line.
    loader.read_events(&mut |_, _| {}).ok()?;
    Some(loader.docs.into_iter().next().unwrap_or(Value::Null))
}

/// Parses the first document of a YAML stream (later ones are ignored, as Helm does for values).
pub fn parse_document(text: &str) -> Result<Value, YamlError> {
    Ok(parse_documents(text)?
        .into_iter()
        .next()
        .unwrap_or(Value::Null))
}

/// Parses the first document and records the line of every leaf, for `values --explain`.
pub fn parse_document_with_positions(text: &str) -> Result<(Value, Positions), YamlError> {
    let (docs, positions) = Loader::new(text, true).run()?;
    Ok((docs.into_iter().next().unwrap_or(Value::Null), positions))
}

enum Frame {
    Seq {
        items: Vec<Value>,
        anchor: usize,
        /// Its items are kept even when the loader keeps only keys: it is what a merge key
        /// `<<` takes in (or lies within that), whose maps' keys count.
        keep_items: bool,
    },
    Map {
        map: Map,
        key: Option<String>,
        /// The pending key is the merge key `<<` (plain and untagged).
        merging: bool,
        anchor: usize,
        merges: Vec<Value>,
        /// Which map of the stream this is (0 for the first begun), to find it again.
        ordinal: usize,
        /// A key `<<` that is no merge key (quoted, or tagged) was given: the map may also hold
        /// a `<<` a merge key put there, which does not count as given.
        literal_merge_text_given: bool,
    },
}

struct Loader<'a> {
    text: &'a str,
    events: Events<'a>,
    stack: Vec<Frame>,
    anchors: Vec<Option<(Value, usize)>>,
    alias_nodes: usize,
    docs: Vec<Value>,
    track_positions: bool,
    path: Vec<String>,
    positions: Positions,
    /// Refuse a map key given twice.
    unique_keys: bool,
    /// Only the keys matter (a check for keys given twice): a finished value is dropped once
    /// its map has its key, except what a merge key `<<` takes in, so the loader holds the
    /// maps being read and not the whole document. A generated CRD of 1.4 MB otherwise became
    /// a tree of 4 MB just to be checked.
    keys_only: bool,
    /// Keep a plain integer beyond 64 bits as written ([`Value::Number`]), for a manifest
    /// written back; values files and templates' output read it as a float, as Helm does.
    keep_big_integers: bool,
    /// Stop after the first document, noting in `ignored_from` the line where another starts.
    first_only: bool,
    ignored_from: Option<usize>,
    /// Added to every line reported, for text cut out of a larger file.
    line_offset: usize,
    /// The error being returned is a key given twice.
    found_duplicate: bool,
    /// That key, its map and its two lines.
    duplicate: Option<DuplicateKey>,
    /// Maps begun so far.
    maps_begun: usize,
    /// A key given twice is found by looking it up in the map being built, which does not say
    /// where it was first given: a second reading of the text, told which map and key (see
    /// [`Loader::read`]), notes that line here on its way.
    first_given: Option<(usize, String, Option<Position>)>,
}

/// A map key given twice, found by [`first_duplicate_key_in`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuplicateKey {
    /// The key.
    pub key: String,
    /// The keys leading to the map that holds it (`[]` for a list item), from the document's
    /// root: `["spec", "template", "metadata", "labels"]`.
    pub map_path: Vec<String>,
    /// The 1-based line where it is first given.
    pub first_line: usize,
    /// The 1-based line where it is given again.
    pub second_line: usize,
}

impl<'a> Loader<'a> {
    fn new(text: &'a str, track_positions: bool) -> Self {
        Loader {
            text,
            events: Events::new(text),
            stack: Vec::new(),
            anchors: Vec::new(),
            alias_nodes: 0,
            docs: Vec::new(),
            track_positions,
            path: Vec::new(),
            positions: Vec::new(),
            unique_keys: false,
            keys_only: false,
            keep_big_integers: false,
            first_only: false,
            ignored_from: None,
            line_offset: 0,
            found_duplicate: false,
            duplicate: None,
            maps_begun: 0,
            first_given: None,
        }
    }

    fn run(mut self) -> Result<(Vec<Value>, Positions), YamlError> {
        self.read()?;
        Ok((self.docs, self.positions))
    }

    /// Reads the stream. Keys are checked for repeats against the map being built (keeping
    /// where every key was given would cost more than the values themselves); when one repeats,
    /// the text is read again up to it, noting where that map first gave the key.
    fn read(&mut self) -> Result<(), YamlError> {
        self.read_observed(&mut |_, _| {})
    }

    /// [`Loader::read`], handing `observe` each event of the first pass.
    fn read_observed(
        &mut self,
        observe: &mut dyn FnMut(&Event, Position),
    ) -> Result<(), YamlError> {
        let outcome = self.read_events(observe);
        let Some(repeated) = self.duplicate.as_ref().filter(|d| d.first_line == 0) else {
            return outcome;
        };
        let mut again = Loader::new(self.text, self.track_positions);
        again.unique_keys = self.unique_keys;
        again.keys_only = self.keys_only;
        again.keep_big_integers = self.keep_big_integers;
        again.first_only = self.first_only;
        again.line_offset = self.line_offset;
        again.first_given = Some((self.maps_begun_at_duplicate(), repeated.key.clone(), None));
        let second = again.read_events(&mut |_, _| {});
        if again.duplicate.as_ref().is_some_and(|d| d.first_line > 0) {
            self.duplicate = again.duplicate;
            return second;
        }
        outcome
    }

    /// The ordinal of the map holding the repeated key, when reading stopped at it.
    fn maps_begun_at_duplicate(&self) -> usize {
        match self.stack.last() {
            Some(Frame::Map { ordinal, .. }) => *ordinal,
            _ => usize::MAX,
        }
    }

    fn read_events(&mut self, observe: &mut dyn FnMut(&Event, Position)) -> Result<(), YamlError> {
        let mut in_document = false;
        let mut document_value: Option<Value> = None;
        loop {
            let (event, mut at) = self.events.next_event().map_err(|e| {
                let (mut position, message) =
                    too_long_key(self.text, &e).unwrap_or((e.position, e.message));
                position.line += self.line_offset;
                YamlError { position, message }
            })?;
            observe(&event, at);
            at.line += self.line_offset;
            match event {
                Event::StreamStart | Event::Nothing => {}
                Event::StreamEnd => break,
                Event::DocumentStart => {
                    in_document = true;
                    document_value = None;
                }
                Event::DocumentEnd => {
                    if in_document {
                        self.docs.push(document_value.take().unwrap_or(Value::Null));
                    }
                    in_document = false;
                    if self.first_only {
                        self.ignored_from = match self.events.next_event() {
                            Ok((Event::StreamEnd, _)) => None,
                            Ok((_, at)) => Some(at.line + self.line_offset),
                            Err(e) => Some(e.position.line + self.line_offset),
                        };
                        return Ok(());
                    }
                }
                Event::Alias(id) => {
                    let (value, size) = self
                        .anchors
                        .get(id)
                        .and_then(|a| a.as_ref())
                        .cloned()
                        .ok_or_else(|| err(at, "alias refers to an unknown anchor"))?;
                    self.alias_nodes += size;
                    if self.alias_nodes > MAX_ALIAS_NODES {
                        return Err(err(
                            at,
                            format!("aliases expand to more than {MAX_ALIAS_NODES} nodes (an alias bomb?)"),
                        ));
                    }
                    if let Some(v) = self.push_value(value, at)? {
                        document_value = Some(v);
                    }
                }
                Event::Scalar(text, style, anchor, tag) => {
                    let expecting_key =
                        matches!(self.stack.last(), Some(Frame::Map { key: None, .. }));
                    if expecting_key {
                        let key = resolve_key(&text, style, tag.as_ref(), at)?;
                        let merge = is_merge_key(&text, style, tag.as_ref());
                        if self.unique_keys && !merge {
                            self.check_unique_key(&key, at)?;
                        }
                        if anchor > 0 {
                            self.set_anchor(anchor, Value::String(key.clone()), 1);
                        }
                        if let Some(Frame::Map {
                            key: slot, merging, ..
                        }) = self.stack.last_mut()
                        {
                            *slot = Some(key.clone());
                            *merging = merge;
                        }
                        if self.track_positions {
                            self.path.push(key);
                        }
                        continue;
                    }
                    let mut value = resolve_scalar(&text, style, tag.as_ref(), at)?;
                    if self.keep_big_integers
                        && tag.is_none()
                        && matches!(value, Value::Float(_))
                        && is_integer_text(&text)
                    {
                        value = Value::Number(text.clone());
                    }
                    if self.track_positions {
                        self.positions.push((self.path.clone(), at));
                    }
                    if let Some(v) = self.finish_node(value, anchor, at)? {
                        document_value = Some(v);
                    }
                }
                Event::SequenceStart(anchor, _) => {
                    self.check_depth(at)?;
                    let keep_items = !self.keys_only
                        || match self.stack.last() {
                            Some(Frame::Map { merging, .. }) => *merging,
                            Some(Frame::Seq { keep_items, .. }) => *keep_items,
                            None => false,
                        };
                    self.stack.push(Frame::Seq {
                        items: Vec::new(),
                        anchor,
                        keep_items,
                    });
                    if self.track_positions {
                        self.path.push("0".to_owned());
                    }
                }
                Event::MappingStart(anchor, _) => {
                    self.check_depth(at)?;
                    self.stack.push(Frame::Map {
                        map: Map::new(),
                        key: None,
                        merging: false,
                        anchor,
                        merges: Vec::new(),
                        ordinal: self.maps_begun,
                        literal_merge_text_given: false,
                    });
                    self.maps_begun += 1;
                }
                Event::SequenceEnd => {
                    if self.track_positions {
                        self.path.pop();
                    }
                    let Some(Frame::Seq { items, anchor, .. }) = self.stack.pop() else {
                        return Err(err(at, "unbalanced sequence end"));
                    };
                    let value = Value::Seq(items);
                    if let Some(v) = self.finish_node(value, anchor, at)? {
                        document_value = Some(v);
                    }
                }
                Event::MappingEnd => {
                    let Some(Frame::Map {
                        mut map,
                        anchor,
                        merges,
                        ..
                    }) = self.stack.pop()
                    else {
                        return Err(err(at, "unbalanced mapping end"));
                    };
                    // `<<` merge keys: explicit keys win, earlier merge sources win over later ones.
                    for source in merges {
                        let sources = match source {
                            Value::Seq(items) => items,
                            other => vec![other],
                        };
                        for source in sources {
                            let Value::Map(entries) = source else {
                                return Err(err(
                                    at,
                                    "a `<<` merge key needs a map or a list of maps",
                                ));
                            };
                            for (k, v) in entries {
                                map.entry(k).or_insert(v);
                            }
                        }
                    }
                    let value = Value::Map(map);
                    if let Some(v) = self.finish_node(value, anchor, at)? {
                        document_value = Some(v);
                    }
                }
            }
        }
        Ok(())
    }

    /// Fails when the map being read already has `key`.
    fn check_unique_key(&mut self, key: &str, at: Position) -> Result<(), YamlError> {
        let Some(Frame::Map {
            map,
            ordinal,
            literal_merge_text_given,
            ..
        }) = self.stack.last_mut()
        else {
            return Ok(());
        };
        let given = if key == MERGE_KEY {
            std::mem::replace(literal_merge_text_given, true)
        } else {
            map.contains_key(key)
        };
        let ordinal = *ordinal;
        if let Some((wanted, wanted_key, first @ None)) = &mut self.first_given {
            if *wanted == ordinal && wanted_key == key {
                *first = Some(at);
            }
        }
        if !given {
            return Ok(());
        }
        self.found_duplicate = true;
        let map_path = self.stack[..self.stack.len() - 1]
            .iter()
            .map(|frame| match frame {
                Frame::Map { key, .. } => key.clone().unwrap_or_default(),
                Frame::Seq { .. } => "[]".to_owned(),
            })
            .collect();
        // Known on the second reading only (see `read`); 0 asks for it.
        let first = self.first_given.as_ref().and_then(|(_, _, first)| *first);
        self.duplicate = Some(DuplicateKey {
            key: key.to_owned(),
            map_path,
            first_line: first.map_or(0, |f| f.line),
            second_line: at.line,
        });
        Err(match first {
            Some(first) => err(
                at,
                format!(
                    "the key {key:?} is given twice in one map: on line {} and on line {}",
                    first.line, at.line
                ),
            ),
            None => err(at, format!("the key {key:?} is given twice in one map")),
        })
    }

    fn check_depth(&self, at: Position) -> Result<(), YamlError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(err(at, format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        Ok(())
    }

    fn set_anchor(&mut self, id: usize, value: Value, size: usize) {
        if self.anchors.len() <= id {
            self.anchors.resize(id + 1, None);
        }
        self.anchors[id] = Some((value, size));
    }

    /// Records a finished node under its anchor (if it has one) and adds it to its parent;
    /// returns it when it is a whole document.
    fn finish_node(
        &mut self,
        value: Value,
        anchor: usize,
        at: Position,
    ) -> Result<Option<Value>, YamlError> {
        if anchor > 0 {
            let size = node_count(&value);
            self.set_anchor(anchor, value.clone(), size);
        }
        self.push_value(value, at)
    }

    /// Adds a finished node to its parent; returns it when it is a whole document.
    fn push_value(&mut self, value: Value, at: Position) -> Result<Option<Value>, YamlError> {
        match self.stack.last_mut() {
            None => Ok(Some(value)),
            Some(Frame::Seq {
                items, keep_items, ..
            }) => {
                items.push(if *keep_items { value } else { Value::Null });
                if self.track_positions {
                    if let Some(last) = self.path.last_mut() {
                        *last = items.len().to_string();
                    }
                }
                Ok(None)
            }
            Some(Frame::Map {
                map,
                key,
                merging,
                merges,
                ..
            }) => {
                match key.take() {
                    Some(k) => {
                        if self.track_positions {
                            self.path.pop();
                        }
                        if *merging && matches!(value, Value::Map(_) | Value::Seq(_)) {
                            merges.push(value);
                        } else if self.keys_only {
                            map.insert(k, Value::Null);
                        } else {
                            map.insert(k, value);
                        }
                    }
                    None => {
                        return Err(err(
                            at,
                            "a map key must be a plain value, not a list or a map",
                        ))
                    }
                }
                Ok(None)
            }
        }
    }
}

/// When the parser fails at the `:` after an implicit key longer than YAML allows (kubectl and
/// Helm refuse such keys as well), a message that names the key, pointing at its start.
fn too_long_key(text: &str, error: &EventError) -> Option<(Position, String)> {
    // yaml-rust2's words at a `:` whose key is too long (block context, or inside a list).
    const AT_LONG_KEY: [&str; 2] = [
        "simple key expect ':'",
        "mapping values are not allowed in this context",
    ];
    if !AT_LONG_KEY.contains(&error.message.as_str()) {
        return None;
    }
    let at = error.position;
    let line = text.lines().nth(at.line.checked_sub(1)?)?;
    let before: String = line.chars().take(at.column.saturating_sub(1)).collect();
    let indent = before.len() - before.trim_start_matches([' ', '-']).len();
    let key = before[indent..].trim_end();
    let chars = key.chars().count();
    if chars <= MAX_IMPLICIT_KEY_CHARS {
        return None;
    }
    let shown: String = key.chars().take(40).collect();
    Some((
        Position {
            line: at.line,
            column: before[..indent].chars().count() + 1,
        },
        format!(
            "the key {shown}... is {chars} characters long; YAML allows at most \
             {MAX_IMPLICIT_KEY_CHARS} in `key: value` form: write it as `? key` on one line and \
             `: value` on the next"
        ),
    ))
}

pub(crate) fn err(position: Position, message: impl Into<String>) -> YamlError {
    YamlError {
        position,
        message: message.into(),
    }
}

fn node_count(value: &Value) -> usize {
    match value {
        Value::Seq(items) => 1 + items.iter().map(node_count).sum::<usize>(),
        Value::Map(map) => 1 + map.values().map(node_count).sum::<usize>(),
        _ => 1,
    }
}

#[cfg(test)]
mod tests;
