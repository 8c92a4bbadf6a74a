//! Reads YAML text into [`Value`]s, resolving plain scalars the way Helm's YAML 1.1 reader does.
//!
//! Built on `yaml-rust2`'s event stream rather than a serde layer because Helm's resolution
//! depends on the scalar *style* (a plain `yes` is a boolean, a quoted one a string), which serde
//! layers throw away. Hostile input is bounded: nesting depth and the number of nodes that alias
//! expansion may create are capped, so an alias bomb or `[[[[...` ends in an error, not a hang.

pub use crate::events::Position;
use crate::events::{EventError, Events};
use crate::value::{Map, Value};
use yaml_rust2::parser::{Event, Tag};
use yaml_rust2::scanner::TScalarStyle;

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
    Ok(Loader::new(text, false).run()?.0)
}

/// Parses a user's manifest stream as kubectl does: a map key given twice is an error naming
/// both lines (Helm would silently keep the last, hiding typos and merge accidents).
/// `first_line` is the line of the file that `text` starts on, so errors name lines of the file.
pub fn parse_manifest_documents(text: &str, first_line: usize) -> Result<Vec<Value>, YamlError> {
    let mut loader = Loader::new(text, false);
    loader.unique_keys = true;
    loader.keep_big_integers = true;
    loader.line_offset = first_line.saturating_sub(1);
    Ok(loader.run()?.0)
}

/// The first map key given twice in `text`, a JSON or YAML stream, as the error
/// [`parse_manifest_documents`] gives; `None` when there is none or the text does not read as
/// YAML. For JSON, whose readers keep the last value silently.
pub fn first_duplicate_key(text: &str, first_line: usize) -> Option<YamlError> {
    let mut loader = Loader::new(text, false);
    loader.unique_keys = true;
    loader.line_offset = first_line.saturating_sub(1);
    match loader.read() {
        Err(e) if loader.found_duplicate => Some(e),
        _ => None,
    }
}

/// The first map key `text` (one document) gives twice, with where: `None` when every key is
/// given once (or the text does not read for another reason, which the caller reports).
pub fn first_duplicate_key_in(text: &str) -> Option<DuplicateKey> {
    let mut loader = Loader::new(text, false);
    loader.unique_keys = true;
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
        let outcome = self.read_events();
        let Some(repeated) = self.duplicate.as_ref().filter(|d| d.first_line == 0) else {
            return outcome;
        };
        let mut again = Loader::new(self.text, self.track_positions);
        again.unique_keys = self.unique_keys;
        again.keep_big_integers = self.keep_big_integers;
        again.first_only = self.first_only;
        again.line_offset = self.line_offset;
        again.first_given = Some((self.maps_begun_at_duplicate(), repeated.key.clone(), None));
        let second = again.read_events();
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

    fn read_events(&mut self) -> Result<(), YamlError> {
        let mut in_document = false;
        let mut document_value: Option<Value> = None;
        loop {
            let (event, mut at) = self.events.next_event().map_err(|e| {
                let (mut position, message) =
                    too_long_key(self.text, &e).unwrap_or((e.position, e.message));
                position.line += self.line_offset;
                YamlError { position, message }
            })?;
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
                    self.stack.push(Frame::Seq {
                        items: Vec::new(),
                        anchor,
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
                    let Some(Frame::Seq { items, anchor }) = self.stack.pop() else {
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
            Some(Frame::Seq { items, .. }) => {
                items.push(value);
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

/// The text of YAML 1.1's merge key.
const MERGE_KEY: &str = "<<";

/// A plain, untagged `<<`: YAML 1.1's merge key. Quoted, it is an ordinary key.
fn is_merge_key(text: &str, style: TScalarStyle, tag: Option<&Tag>) -> bool {
    text == MERGE_KEY && style == TScalarStyle::Plain && tag.is_none()
}

pub(crate) fn is_str_tag(tag: Option<&Tag>) -> bool {
    tag.is_some_and(|t| t.suffix == "str" || t.suffix == "tag:yaml.org,2002:str")
}

/// Resolves a scalar in value position: a plain one as [`resolve_plain`], a quoted one as a
/// string, and one with an explicit tag, quoted or not, as [`resolve_tagged`].
pub fn resolve_scalar(
    text: &str,
    style: TScalarStyle,
    tag: Option<&Tag>,
    at: Position,
) -> Result<Value, YamlError> {
    if let Some(tag) = tag {
        return resolve_tagged(text, tag).map_err(|m| err(at, m));
    }
    if style != TScalarStyle::Plain {
        return Ok(Value::String(text.to_owned()));
    }
    resolve_plain(text).map_err(|m| err(at, m))
}

/// The type a core-schema tag names (`!!int`, `!<tag:yaml.org,2002:int>`); `None` for a local
/// or other tag.
fn core_type(tag: &Tag) -> Option<&str> {
    if tag.handle == "!!" {
        return Some(&tag.suffix);
    }
    format!("{}{}", tag.handle, tag.suffix)
        .strip_prefix("tag:yaml.org,2002:")
        .and_then(|rest| tag.suffix.get(tag.suffix.len() - rest.len()..))
}

/// A scalar with an explicit tag, as go-yaml v2 (Helm's and kubectl's reader) decodes it,
/// whatever its quoting: `!!str` keeps the text; `!!binary` is base64 decoded; `!!int`,
/// `!!float` and `!!bool` resolve the text as a plain scalar and must get that type (an
/// integer serves as a float), else it is an error (`!!int "abc"`); `!!timestamp` keeps the
/// text of a timestamp (as go-yaml does for generic values) and refuses any other; any other
/// tag (`!!null`, a local `!tag`) is not resolved: the text.
pub fn resolve_tagged(text: &str, tag: &Tag) -> Result<Value, String> {
    let text_value = || Value::String(text.to_owned());
    match core_type(tag) {
        Some("str") => Ok(text_value()),
        Some("binary") => {
            use base64::Engine as _;
            // Go's decoder skips line breaks (a folded block of base64).
            let packed: String = text.chars().filter(|c| !matches!(c, '\r' | '\n')).collect();
            base64::engine::general_purpose::STANDARD
                .decode(packed.as_bytes())
                .map(|bytes| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
                .map_err(|_| "!!binary value contains invalid base64 data".to_owned())
        }
        Some(wanted @ ("int" | "float" | "bool" | "timestamp")) => {
            let resolved = if text.is_empty() {
                Value::Null
            } else {
                resolve_plain(text)?
            };
            match (wanted, resolved) {
                ("int", Value::Int(i)) => Ok(Value::Int(i)),
                ("float", Value::Float(f)) => Ok(Value::Float(f)),
                ("float", Value::Int(i)) => Ok(Value::Float(i as f64)),
                ("bool", Value::Bool(b)) => Ok(Value::Bool(b)),
                ("timestamp", Value::String(_)) if super::timestamp::is_timestamp(text) => {
                    Ok(text_value())
                }
                (_, other) => Err(format!(
                    "cannot decode !!{} `{text}` as a !!{wanted}",
                    match other {
                        Value::Null => "null",
                        Value::Bool(_) => "bool",
                        Value::Int(_) => "int",
                        Value::Float(_) => "float",
                        _ => "str",
                    }
                )),
            }
        }
        _ => Ok(text_value()),
    }
}

pub(crate) fn resolve_key(
    text: &str,
    style: TScalarStyle,
    tag: Option<&Tag>,
    at: Position,
) -> Result<String, YamlError> {
    if is_str_tag(tag) || (tag.is_none() && (style != TScalarStyle::Plain || text == "<<")) {
        return Ok(text.to_owned());
    }
    let resolved = match tag {
        Some(tag) => resolve_tagged(text, tag),
        None => resolve_plain(text),
    };
    Ok(match resolved.map_err(|m| err(at, m))? {
        // Helm (via JSON) cannot have a null key: `~:`, `null:` or an empty key fail there too.
        Value::Null if text.is_empty() => return Err(err(at, "a map key cannot be empty")),
        Value::Null => {
            return Err(err(
                at,
                format!("a map key cannot be null (`{text}`); quote it to use it as a string"),
            ))
        }
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => crate::number::format_go_float(f),
        Value::Number(text) | Value::String(text) => text,
        Value::Seq(_) | Value::Map(_) => text.to_owned(),
    })
}

/// go-yaml v2's table of YAML 1.1 words (nulls, booleans, infinities, NaN): what a plain
/// scalar that is one of them resolves to, or `None` for any other text.
pub(crate) fn resolve_word(text: &str) -> Option<Result<Value, String>> {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => Some(Ok(Value::Null)),
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            Some(Ok(Value::Bool(true)))
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            Some(Ok(Value::Bool(false)))
        }
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF"
        | ".nan" | ".NaN" | ".NAN" => Some(Err(format!(
            "unsupported value {text}: infinity and NaN have no JSON form"
        ))),
        _ => None,
    }
}

/// YAML 1.1 resolution of a plain scalar as go-yaml v2 does it, keeping integers exact.
pub fn resolve_plain(text: &str) -> Result<Value, String> {
    if let Some(resolved) = resolve_word(text) {
        return resolved;
    }
    let first = text.as_bytes()[0];
    if first == b'.' {
        // go-yaml v2 hands a `.`-first scalar to strconv.ParseFloat as written: `_` counts only
        // between digits (`.5_` stays a string), unlike the digit-first case below.
        if go_parses_as_float(text) {
            if let Ok(f) = text.replace('_', "").parse::<f64>() {
                return Ok(Value::Float(f));
            }
        }
        return Ok(Value::String(text.to_owned()));
    }
    if !(first.is_ascii_digit() || first == b'-' || first == b'+') {
        return Ok(Value::String(text.to_owned()));
    }
    let plain: String = text.chars().filter(|&c| c != '_').collect();
    if let Some(number) = parse_go_integer(&plain) {
        return Ok(match i64::try_from(number) {
            Ok(i) => Value::Int(i),
            Err(_) => Value::Float(number as f64),
        });
    }
    if is_yaml_float(&plain) {
        // An overflowing literal such as `1e400` stays a string, as it does in Helm.
        if let Ok(Some(f)) = plain.parse::<f64>().map(|f| f.is_finite().then_some(f)) {
            return Ok(Value::Float(f));
        }
    }
    Ok(Value::String(text.to_owned()))
}

/// Whether a plain scalar that resolved to a float is written as a decimal integer (digits after
/// an optional sign, `_` between them, no leading zero, which would make it octal): one too big
/// for 64 bits, which a float would round.
fn is_integer_text(text: &str) -> bool {
    let plain: String = text.chars().filter(|&c| c != '_').collect();
    let digits = plain.strip_prefix(['-', '+']).unwrap_or(&plain);
    !digits.starts_with('0') && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Decimal float text that Go's `strconv.ParseFloat` reads without a range error.
pub(crate) fn parses_finite(s: &str) -> bool {
    s.parse::<f64>().is_ok_and(f64::is_finite)
}

/// Go's `strconv.ParseFloat(s, 64)` accepts `s`, which starts with `.`: digits after the dot,
/// an optional exponent, and `_` only between digits.
pub(crate) fn go_parses_as_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 1; // the dot
    let mut mantissa_digits = 0;
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
        mantissa_digits += usize::from(b[i] != b'_');
        i += 1;
    }
    if mantissa_digits == 0 {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        if !b.get(i).is_some_and(u8::is_ascii_digit) {
            return false;
        }
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            i += 1;
        }
    }
    if i != b.len() || !underscores_between_digits(s) {
        return false;
    }
    parses_finite(&s.replace('_', ""))
}

/// Go's rule for `_` in number literals: each one sits between two digits.
fn underscores_between_digits(s: &str) -> bool {
    let b = s.as_bytes();
    b.iter().enumerate().all(|(i, &c)| {
        c != b'_'
            || (i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit))
    })
}

/// Go's `strconv.ParseInt(s, 0, 64)` extended to the u64 range: sign, then `0x`, `0o`, `0b` or a
/// leading `0` for octal.
pub(crate) fn parse_go_integer(s: &str) -> Option<i128> {
    let (negative, digits) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let signed = s.len() != digits.len();
    let lower = digits.to_ascii_lowercase();
    // Go's ParseUint (the u64 fallback) takes no sign, so `+0x...` beyond i64 is not an integer.
    let unsigned_only = |value: u64| signed && !negative && value > i64::MAX as u64;
    let (radix, body) = if let Some(rest) = lower.strip_prefix("0x") {
        (16, rest)
    } else if let Some(rest) = lower.strip_prefix("0o") {
        (8, rest)
    } else if let Some(rest) = lower.strip_prefix("0b") {
        (2, rest)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let unsigned = u64::from_str_radix(body, radix).ok()?;
    if unsigned_only(unsigned) {
        return None;
    }
    let magnitude = unsigned as i128;
    let value = if negative { -magnitude } else { magnitude };
    if value < i64::MIN as i128 {
        return None;
    }
    Some(value)
}

/// go-yaml v2's float syntax: `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`.
pub(crate) fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        i += 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = i - int_start;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let frac_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if int_digits == 0 && i == frac_start {
            return false;
        }
    } else if int_digits == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
            i += 1;
        }
        let exp_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp_start {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_1_1_booleans_resolve_in_plain_scalars_only() {
        let v = parse_document("a: yes\nb: 'yes'\nc: Off\n").unwrap();
        assert_eq!(v.get_path(&["a"]), Some(&Value::Bool(true)));
        assert_eq!(v.get_path(&["b"]), Some(&Value::String("yes".into())));
        assert_eq!(v.get_path(&["c"]), Some(&Value::Bool(false)));
    }

    #[test]
    fn integers_stay_exact_and_octal_follows_go() {
        let v =
            parse_document("a: 1234567\nb: 0755\nc: 0x1F\nd: 1_000\ne: 08\nf: 1e3\ng: \"0755\"\n")
                .unwrap();
        assert_eq!(v.get_path(&["a"]), Some(&Value::Int(1234567)));
        assert_eq!(v.get_path(&["b"]), Some(&Value::Int(493)));
        assert_eq!(v.get_path(&["c"]), Some(&Value::Int(31)));
        assert_eq!(v.get_path(&["d"]), Some(&Value::Int(1000)));
        assert_eq!(v.get_path(&["e"]), Some(&Value::Float(8.0)));
        assert_eq!(v.get_path(&["f"]), Some(&Value::Float(1000.0)));
        assert_eq!(v.get_path(&["g"]), Some(&Value::String("0755".into())));
    }

    #[test]
    fn an_overflowing_float_literal_stays_a_string() {
        let v = parse_document("a: 1e400\n").unwrap();
        assert_eq!(v.get_path(&["a"]), Some(&Value::String("1e400".into())));
    }

    #[test]
    fn keys_that_look_like_booleans_become_their_json_string() {
        let v = parse_document("y: 1\nOff: 2\n").unwrap();
        assert!(v.get_path(&["true"]).is_some());
        assert!(v.get_path(&["false"]).is_some());
    }

    #[test]
    fn null_keys_are_rejected_like_helm() {
        for text in ["m:\n  ~: x\n", "null: x\n"] {
            let e = parse_document(text).unwrap_err();
            assert!(e.message.contains("cannot be null"), "{e}");
        }
        let v = parse_document("\"null\": x\n").unwrap();
        assert!(v.get_path(&["null"]).is_some());
    }

    #[test]
    fn merge_keys_fill_in_without_overriding() {
        let v = parse_document("base: &b {x: 1, z: 2}\nchild:\n  <<: *b\n  z: 3\n").unwrap();
        assert_eq!(v.get_path(&["child", "x"]), Some(&Value::Int(1)));
        assert_eq!(v.get_path(&["child", "z"]), Some(&Value::Int(3)));
    }

    #[test]
    fn alias_bomb_is_rejected_quickly() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let p = i - 1;
            text.push_str(&format!("a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"));
        }
        let e = parse_document(&text).unwrap_err();
        assert!(e.message.contains("alias bomb"), "{e}");
    }

    /// The stack meshchart's rendering threads have (`meshchart_helm::parallel::STACK_BYTES`).
    const WORKER_STACK_BYTES: usize = 64 << 20;

    /// Runs `test` on a thread with the stack the CLI's threads have: deep values are walked
    /// and dropped recursively.
    fn on_a_worker_stack(test: impl FnOnce() + Send + 'static) {
        std::thread::Builder::new()
            .stack_size(WORKER_STACK_BYTES)
            .spawn(test)
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn flow_nesting_is_read_to_the_limit_and_refused_past_it() {
        let nested = |depth: usize| format!("{}x{}", "[".repeat(depth), "]".repeat(depth));
        on_a_worker_stack(move || {
            let read = parse_document(&nested(MAX_DEPTH - 1)).expect("reads");
            let mut depth = 0;
            let mut node = &read;
            while let Value::Seq(items) = node {
                depth += 1;
                node = &items[0];
            }
            assert_eq!((depth, node), (MAX_DEPTH - 1, &Value::String("x".into())));
            let e = parse_document(&nested(MAX_DEPTH + 1)).unwrap_err();
            assert!(
                e.message.contains("nesting deeper than 10000 levels"),
                "{e}"
            );
        });
    }

    #[test]
    fn flow_text_reads_the_same_past_255_levels_as_below() {
        // Past 255 levels the events come from libyaml: every shape of flow text must read
        // as it does from yaml-rust2 a few levels down.
        let samples = [
            "{a: 1, b: [2, 3.5, -0x1F], c: ~, d: yes, e: 'it''s', f: \"\\t\\u00e9\"}",
            "[&x {k: v}, *x, !!str 12, !!int \"7\", !!float 1, !!binary aGk=, !local t]",
            "{k: multi line\n  plain folded\n  here, ? explicit : key, empty: , \"json\": 1}",
            "[a: b, c, {<<: {m: 1, n: 2}, n: 3}, '', \"\", [], {}]",
            "[1e3, 0o17, 017, 1_000, +12, 2001-12-14, null, Null, ~]",
            "{ # a comment\n x: 1, # another\n y: [2] }",
        ];
        let unwrap = |mut value: Value, levels: usize| {
            for _ in 0..levels {
                let Value::Seq(mut items) = value else {
                    panic!("not a list")
                };
                assert_eq!(items.len(), 1);
                value = items.remove(0);
            }
            value
        };
        for sample in samples {
            let at = |levels: usize| {
                let text = format!("{}{sample}{}", "[".repeat(levels), "]".repeat(levels));
                unwrap(parse_document(&text).expect(sample), levels)
            };
            assert_eq!(at(300), at(3), "{sample}");
        }
    }

    /// Flow text built from pieces that stress the readers: scalars in every style, tags,
    /// keys with and without values, nested collections.
    fn flow_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let scalar = proptest::sample::select(vec![
            "1",
            "-2",
            "0x1A",
            "017",
            "1e3",
            "3.25",
            "yes",
            "off",
            "~",
            "null",
            "''",
            "'a''b'",
            "\"\"",
            "\"t\\tu\\u00e9\"",
            "plain words",
            "a-b_c",
            "!!str 5",
            "!!int '6'",
            "!t x",
            "2001-12-14",
            "'#not'",
            "\"line\\nbreak\"",
        ]);
        let leaf = scalar.prop_map(str::to_owned);
        leaf.prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4)
                    .prop_map(|items| format!("[{}]", items.join(", "))),
                proptest::collection::vec(inner, 0..4).prop_map(|values| {
                    let entries: Vec<String> = values
                        .iter()
                        .enumerate()
                        .map(|(i, v)| format!("k{i}: {v}"))
                        .collect();
                    format!("{{{}}}", entries.join(",\n "))
                }),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn any_flow_text_reads_the_same_past_255_levels_as_below(text in flow_text()) {
            let at = |levels: usize| {
                let wrapped = format!("{}{text}{}", "[".repeat(levels), "]".repeat(levels));
                let mut value = parse_document(&wrapped);
                for _ in 0..levels {
                    value = value.map(|v| match v {
                        Value::Seq(mut items) if items.len() == 1 => items.remove(0),
                        other => other,
                    });
                }
                value.map_err(|e| e.message)
            };
            proptest::prop_assert_eq!(at(300), at(2));
        }
    }

    #[test]
    fn block_nesting_is_read_to_the_limit_and_refused_past_it() {
        // Deep values are walked recursively: on a stack like the CLI's threads'.
        let nested = |depth: usize| -> String {
            (0..depth)
                .map(|i| format!("{}- \n", "  ".repeat(i)))
                .collect::<String>()
                + &"  ".repeat(depth)
                + "x\n"
        };
        on_a_worker_stack(move || {
            assert!(parse_document(&nested(MAX_DEPTH - 1)).is_ok());
            let e = parse_document(&nested(MAX_DEPTH + 1)).unwrap_err();
            assert!(
                e.message.contains("nesting deeper than 10000 levels"),
                "{e}"
            );
        });
    }

    #[test]
    fn a_repeated_key_names_both_lines_and_the_map_it_is_in() {
        let text =
            "a: 1\nouter:\n  b: 1\n  list:\n  - {c: 1, d: 2}\n  - c: 1\n    e: 2\n    c: 3\n";
        let error = parse_values_document(text).unwrap_err();
        assert_eq!(
            error.message,
            "the key \"c\" is given twice in one map: on line 6 and on line 8"
        );
        assert_eq!(error.position.line, 8);
        let repeated = first_duplicate_key_in(text).unwrap();
        assert_eq!(
            (repeated.map_path, repeated.first_line, repeated.second_line),
            (
                vec!["outer".to_owned(), "list".to_owned(), "[]".to_owned()],
                6,
                8
            )
        );
    }

    #[test]
    fn a_merge_key_never_counts_as_a_repeat_of_a_quoted_one() {
        for text in [
            "<<: 1\n\"<<\": 2\n",
            "\"<<\": 1\n<<: 2\n",
            "base: &b {x: 1}\nm:\n  <<: *b\n  <<: *b\n",
        ] {
            assert!(parse_values_document(text).is_ok(), "{text}");
        }
        let error = parse_values_document("\"<<\": 1\n<<: 2\n'<<': 3\n").unwrap_err();
        assert_eq!(
            error.message,
            "the key \"<<\" is given twice in one map: on line 1 and on line 3"
        );
    }

    #[test]
    fn syntax_errors_carry_line_and_column() {
        let e = parse_document("a: 1\nb: [unclosed\n").unwrap_err();
        assert!(e.position.line >= 2, "{e}");
    }

    #[test]
    fn positions_name_each_leaf() {
        let (_, pos) = parse_document_with_positions("a:\n  b: 1\nl:\n  - x\n  - y\n").unwrap();
        let find = |p: &[&str]| pos.iter().find(|(k, _)| k == p).map(|(_, at)| at.line);
        assert_eq!(find(&["a", "b"]), Some(2));
        assert_eq!(find(&["l", "0"]), Some(4));
        assert_eq!(find(&["l", "1"]), Some(5));
    }
}
