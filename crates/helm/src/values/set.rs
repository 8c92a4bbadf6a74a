//! Helm's `--set` family: parses `a.b[0]=x,c={1,2}` expressions and applies them to a map.
//!
//! One expression holds comma-separated assignments. A key path is made of map keys separated by
//! `.` and list indices in brackets (`a.b[0][1].c`). A backslash escapes the next character in
//! keys and values (`\,` `\.` `\=` `\\`); `--set-literal` has no escapes and no commas. Values:
//!
//! | mode | value after the first unescaped `=` |
//! |---|---|
//! | [`SetMode::Set`] | typed: `true`/`false`/`null` (any case), int64 without leading zeros, else a string |
//! | [`SetMode::SetString`] | always a string |
//! | [`SetMode::SetFile`] | a file path; the file's text becomes the string |
//! | [`SetMode::SetJson`] | one JSON value (may contain commas); empty means null |
//! | [`SetMode::SetLiteral`] | the rest of the expression, verbatim |
//!
//! `{a,b}` right after `=` makes a list of values (typed like scalars; `{}` is `[""]`).
//!
//! Assignments apply one after the other into the map that already holds the `-f` files and
//! earlier flags, with Helm's rules: a path can only descend into a map (or a list, for an index)
//! that is already there, so `a=1,a.b=2` fails while `a.b=2,a=1` works; an index patches an
//! existing list and pads a new or short one with nulls.
//!
//! Deliberate differences from Helm 3.17.1, all for malformed input that Helm silently accepts:
//! a path that ends without `=` after an index or a dot (`a[0]`, `a.`) is an error, as are more
//! than [`MAX_PATH_PARTS`] path parts; a `--set-file` that is not UTF-8 text is an error.

use crate::yaml::{Map, Value};

/// Highest list index accepted (`a[65536]=x` is the last allowed), as in Helm.
pub(super) const MAX_INDEX: usize = 65536;
/// Most `.`-separated key levels in one path, as in Helm (a dot right after `]` is not counted).
pub(super) const MAX_NESTED_KEYS: usize = 30;
/// Most parts (keys and indices) in one path; Helm has no limit on indices, we bound recursion.
pub(super) const MAX_PATH_PARTS: usize = 256;

/// Which flag an expression came from; decides how values are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SetMode {
    /// `--set`: typed values.
    Set,
    /// `--set-string`: every value is a string.
    SetString,
    /// `--set-file`: every value is a file path whose text becomes the value.
    SetFile,
    /// `--set-json`: every value is JSON.
    SetJson,
    /// `--set-literal`: `key=everything after the first =`, verbatim.
    SetLiteral,
}

impl SetMode {
    /// The command-line flag, for messages.
    pub fn flag(self) -> &'static str {
        match self {
            SetMode::Set => "--set",
            SetMode::SetString => "--set-string",
            SetMode::SetFile => "--set-file",
            SetMode::SetJson => "--set-json",
            SetMode::SetLiteral => "--set-literal",
        }
    }
}

/// A `--set`-family expression that could not be applied.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{} {expression}: {problem}", mode.flag())]
pub struct SetError {
    /// The flag the expression came from.
    pub mode: SetMode,
    /// The whole expression as given.
    pub expression: String,
    /// What is wrong with it.
    pub problem: SetProblem,
}

/// What is wrong with a `--set`-family expression.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SetProblem {
    /// A key with no `=` before the end of the expression.
    #[error("key \"{0}\" has no value")]
    NoValue(String),
    /// A key followed by `,` instead of `=`.
    #[error("key \"{0}\" has no value (a `,` came before any `=`)")]
    NoValueBeforeComma(String),
    /// `a.=1`: a new map level that received nothing because its key was empty.
    #[error("key map \"{0}\" has no value (the key after the `.` is empty)")]
    EmptyKeyMap(String),
    /// `a[x]=1`.
    #[error("list index \"{0}\" is not a number")]
    BadIndex(String),
    /// `a[-1]=1`.
    #[error("list index {0} is negative")]
    NegativeIndex(String),
    /// `a[65537]=1`.
    #[error("list index {0} is greater than the maximum supported index of {MAX_INDEX}")]
    IndexTooLarge(String),
    /// `a[0` with no `]`.
    #[error("list index is not closed with `]`")]
    UnterminatedIndex,
    /// `a[0]x=1`.
    #[error("unexpected \"{0}\" after a list index (expected `=`, `.` or `[`)")]
    DataAfterIndex(String),
    /// `x={a,b` with no `}`.
    #[error("list must end with '}}'")]
    UnterminatedList,
    /// More than [`MAX_NESTED_KEYS`] dotted levels.
    #[error("key path is nested more than {MAX_NESTED_KEYS} levels deep")]
    TooDeep,
    /// More than [`MAX_PATH_PARTS`] keys and indices.
    #[error("key path has more than {MAX_PATH_PARTS} parts")]
    TooLong,
    /// `a=1,a.b=2`: the path needs a map where a value of another type already is.
    #[error("cannot set \"{path}\": \"{at}\" already holds {found}, not a map")]
    NotAMap {
        /// The path being set.
        path: String,
        /// The part of it that is not a map.
        at: String,
        /// What it holds instead.
        found: String,
    },
    /// `a=1,a[0]=2`: the path needs a list where a value of another type already is.
    #[error("cannot set \"{path}\": \"{at}\" already holds {found}, not a list")]
    NotAList {
        /// The path being set.
        path: String,
        /// The part of it that is not a list.
        at: String,
        /// What it holds instead.
        found: String,
    },
    /// `--set-json a=1 2`: text after a JSON value that does not start a new `key=value`.
    #[error(
        "unexpected \"{text}\" after the JSON value of \"{key}\" (separate assignments with `,`)"
    )]
    TextAfterJson {
        /// The key path whose value came before.
        key: String,
        /// The text that followed.
        text: String,
    },
    /// `--set-json a={bad`.
    #[error("the value of \"{key}\" is not valid JSON: {message}")]
    BadJson {
        /// The key path whose value is bad.
        key: String,
        /// The JSON parser's complaint.
        message: String,
    },
    /// `--set-file a=missing.txt`.
    #[error("cannot read \"{path}\": {message}")]
    File {
        /// The file as written in the expression.
        path: String,
        /// Why it could not be read.
        message: String,
    },
}

/// Parses `expression` and applies its assignments to `target`.
///
/// `--set-file` paths are read from the file system (relative to the current directory). On error
/// `target` is left unchanged.
pub fn apply_set(target: &mut Map, expression: &str, mode: SetMode) -> Result<(), SetError> {
    apply_set_with_reader(target, expression, mode, &mut read_text_file)
}

/// Like [`apply_set`], with `read_file` supplying the text of `--set-file` paths (it returns a
/// message when the file cannot be read). Other modes never call it.
pub fn apply_set_with_reader(
    target: &mut Map,
    expression: &str,
    mode: SetMode,
    read_file: &mut dyn FnMut(&str) -> Result<String, String>,
) -> Result<(), SetError> {
    let fail = |problem| SetError {
        mode,
        expression: expression.to_owned(),
        problem,
    };
    // The top-level entries the expression changes, as they were, to put back if it fails:
    // copying only those keeps a --set of one certificate from copying all the values.
    let mut before: Vec<(String, Option<Value>)> = Vec::new();
    let mut parser = Parser {
        scanner: Scanner {
            src: expression,
            pos: 0,
            escapes: mode != SetMode::SetLiteral,
        },
        mode,
        json_without_comma: None,
    };
    let result = (|| {
        while let Some(assignment) = parser.next_assignment()? {
            let Assignment { path, value } = assignment;
            if let Some(Seg::Key(key)) = path.first() {
                if !before.iter().any(|(saved, _)| saved == key) {
                    before.push((key.clone(), target.get(key).cloned()));
                }
            }
            let mut value = Some(value);
            let mut leaf = || {
                let raw = value.take().unwrap_or(RawValue::Empty);
                resolve(raw, mode, read_file)
            };
            apply_at_key(target, &path, 0, &mut leaf)?;
        }
        Ok(())
    })();
    if result.is_err() {
        for (key, value) in before {
            match value {
                Some(value) => target.insert(key, value),
                None => target.remove(&key),
            };
        }
    }
    result.map_err(fail)
}

/// Parses `expression` into a new map.
pub fn parse_set(expression: &str, mode: SetMode) -> Result<Map, SetError> {
    let mut map = Map::new();
    apply_set(&mut map, expression, mode)?;
    Ok(map)
}

/// Writes a path of map keys the way `--set` would accept it: `a.b\.c`.
pub(super) fn format_key_path<S: AsRef<str>>(keys: &[S]) -> String {
    keys.iter()
        .map(|k| escape_key(k.as_ref()))
        .collect::<Vec<_>>()
        .join(".")
}

fn escape_key(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    for c in key.chars() {
        if matches!(c, '.' | ',' | '=' | '[' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Reads a `--set-file` file as text through the input door; the error is a short reason.
fn read_text_file(path: &str) -> Result<String, String> {
    crate::input::read_path(camino::Utf8Path::new(path))
        .map(|input| input.text)
        .map_err(|e| e.reason())
}

#[derive(Debug, Clone, PartialEq)]
enum Seg {
    Key(String),
    Index(usize),
}

fn path_string(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&escape_key(k));
            }
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// A value as written, before typing or file reading.
#[derive(Debug)]
enum RawValue {
    /// Nothing at all after `=` (end of expression): the empty string, never typed or read.
    Empty,
    Text(String),
    List(Vec<String>),
    Json(Value),
}

struct Assignment {
    path: Vec<Seg>,
    value: RawValue,
}

struct Scanner<'a> {
    src: &'a str,
    pos: usize,
    escapes: bool,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    /// Reads up to (and consumes) the first unescaped stop character; `None` at the end.
    fn read_until(&mut self, stops: &[char]) -> (String, Option<char>) {
        let mut out = String::new();
        while let Some(c) = self.bump() {
            if stops.contains(&c) {
                return (out, Some(c));
            }
            if c == '\\' && self.escapes {
                match self.bump() {
                    Some(next) => out.push(next),
                    None => return (out, None),
                }
            } else {
                out.push(c);
            }
        }
        (out, None)
    }

    fn rest(&mut self) -> &str {
        let rest = &self.src[self.pos..];
        self.pos = self.src.len();
        rest
    }

    /// Skips whitespace and one `,`; true when the value there is empty (a `,` or the end).
    fn skip_empty_value(&mut self) -> bool {
        loop {
            match self.peek() {
                None => return true,
                Some(',') => {
                    self.bump();
                    return true;
                }
                Some(c) if c.is_whitespace() => {
                    self.bump();
                }
                Some(_) => return false,
            }
        }
    }
}

struct Parser<'a> {
    scanner: Scanner<'a>,
    mode: SetMode,
    /// The key of the last `--set-json` value when no `,` followed it (Helm then reads a new
    /// assignment right away: `a=1 b=2` sets both).
    json_without_comma: Option<String>,
}

impl Parser<'_> {
    /// The next `path=value`, or `None` at the end of the expression.
    fn next_assignment(&mut self) -> Result<Option<Assignment>, SetProblem> {
        let after_json = self.json_without_comma.take();
        self.next_assignment_inner()
            .map_err(|problem| match (problem, after_json) {
                (SetProblem::NoValue(text), Some(key)) => SetProblem::TextAfterJson { key, text },
                (problem, _) => problem,
            })
    }

    fn next_assignment_inner(&mut self) -> Result<Option<Assignment>, SetProblem> {
        let key_stops: &[char] = if self.mode == SetMode::SetLiteral {
            &['=', '[', '.']
        } else {
            &['=', '[', ',', '.']
        };
        let mut path: Vec<Seg> = Vec::new();
        let mut nested = 0;
        loop {
            let (key, stop) = self.scanner.read_until(key_stops);
            match stop {
                None if key.is_empty() && path.is_empty() => return Ok(None),
                None if key.is_empty() => {
                    return Err(SetProblem::NoValue(format!("{}.", path_string(&path))))
                }
                None => {
                    path.push(Seg::Key(key));
                    return Err(SetProblem::NoValue(path_string(&path)));
                }
                Some(',') => {
                    path.push(Seg::Key(key));
                    return Err(SetProblem::NoValueBeforeComma(path_string(&path)));
                }
                Some('.') => {
                    nested += 1;
                    if nested > MAX_NESTED_KEYS {
                        return Err(SetProblem::TooDeep);
                    }
                    push(&mut path, Seg::Key(key))?;
                }
                Some('=') => {
                    push(&mut path, Seg::Key(key))?;
                    let value = self.read_value(&path)?;
                    return Ok(Some(Assignment { path, value }));
                }
                Some(_) => {
                    // `[`: one or more indices, then `=`, `.` or another `[`.
                    push(&mut path, Seg::Key(key))?;
                    loop {
                        let index = self.read_index()?;
                        push(&mut path, Seg::Index(index))?;
                        let (junk, stop) = self.scanner.read_until(&['[', '.', '=']);
                        if !junk.is_empty() {
                            return Err(SetProblem::DataAfterIndex(junk));
                        }
                        match stop {
                            Some('[') => continue,
                            Some('.') => break,
                            Some(_) => {
                                let value = self.read_value(&path)?;
                                return Ok(Some(Assignment { path, value }));
                            }
                            None => return Err(SetProblem::NoValue(path_string(&path))),
                        }
                    }
                }
            }
        }
    }

    fn read_index(&mut self) -> Result<usize, SetProblem> {
        let (text, stop) = self.scanner.read_until(&[']']);
        if stop.is_none() {
            return Err(SetProblem::UnterminatedIndex);
        }
        let digits = text.strip_prefix(['+', '-']).unwrap_or(&text);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(SetProblem::BadIndex(text));
        }
        if text.starts_with('-') && digits.bytes().any(|b| b != b'0') {
            return Err(SetProblem::NegativeIndex(text));
        }
        match digits.parse::<usize>() {
            Ok(i) if i <= MAX_INDEX => Ok(i),
            _ => Err(SetProblem::IndexTooLarge(text)),
        }
    }

    /// Reads the value after `=`.
    fn read_value(&mut self, path: &[Seg]) -> Result<RawValue, SetProblem> {
        match self.mode {
            SetMode::SetLiteral => Ok(RawValue::Text(self.scanner.rest().to_owned())),
            SetMode::SetJson => {
                if self.scanner.skip_empty_value() {
                    return Ok(RawValue::Json(Value::Null));
                }
                let rest = &self.scanner.src[self.scanner.pos..];
                if crate::yaml::json::json_too_deep(rest).is_some() {
                    return Err(SetProblem::BadJson {
                        key: path_string(path),
                        message: crate::yaml::json::json_too_deep_message(),
                    });
                }
                let mut stream = crate::yaml::json::json_deserializer(rest).into_iter();
                let parsed: Option<Result<serde_json::Value, _>> = stream.next();
                let json = match parsed {
                    Some(Ok(json)) => json,
                    Some(Err(e)) => {
                        return Err(SetProblem::BadJson {
                            key: path_string(path),
                            message: e.to_string(),
                        })
                    }
                    None => serde_json::Value::Null,
                };
                self.scanner.pos += stream.byte_offset();
                if !self.scanner.skip_empty_value() {
                    self.json_without_comma = Some(path_string(path));
                }
                Ok(RawValue::Json(Value::from(json)))
            }
            SetMode::Set | SetMode::SetString | SetMode::SetFile => match self.scanner.peek() {
                None => Ok(RawValue::Empty),
                Some('{') => {
                    self.scanner.bump();
                    let mut items = Vec::new();
                    loop {
                        match self.scanner.read_until(&[',', '}']) {
                            (_, None) => return Err(SetProblem::UnterminatedList),
                            (item, Some('}')) => {
                                items.push(item);
                                if self.scanner.peek() == Some(',') {
                                    self.scanner.bump();
                                }
                                return Ok(RawValue::List(items));
                            }
                            (item, Some(_)) => items.push(item),
                        }
                    }
                }
                Some(_) => Ok(RawValue::Text(self.scanner.read_until(&[',']).0)),
            },
        }
    }
}

fn push(path: &mut Vec<Seg>, seg: Seg) -> Result<(), SetProblem> {
    if path.len() >= MAX_PATH_PARTS {
        return Err(SetProblem::TooLong);
    }
    path.push(seg);
    Ok(())
}

/// Turns a raw value into the value stored, by mode.
fn resolve(
    raw: RawValue,
    mode: SetMode,
    read_file: &mut dyn FnMut(&str) -> Result<String, String>,
) -> Result<Value, SetProblem> {
    let mut scalar = |text: String| -> Result<Value, SetProblem> {
        Ok(match mode {
            SetMode::Set => typed_value(text),
            SetMode::SetFile => match read_file(&text) {
                Ok(content) => Value::String(content),
                Err(message) => {
                    return Err(SetProblem::File {
                        path: text,
                        message,
                    })
                }
            },
            SetMode::SetString | SetMode::SetJson | SetMode::SetLiteral => Value::String(text),
        })
    };
    match raw {
        RawValue::Empty => Ok(Value::String(String::new())),
        RawValue::Text(text) => scalar(text),
        RawValue::List(items) => items
            .into_iter()
            .map(&mut scalar)
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Seq),
        RawValue::Json(value) => Ok(value),
    }
}

/// `--set` typing: `true`/`false`/`null` in any case, `0`, and base-10 int64 that does not start
/// with `0`; everything else (floats, `007`, `1_000`, overflow) stays a string.
pub(super) fn typed_value(text: String) -> Value {
    if go_equal_fold(&text, "true") {
        return Value::Bool(true);
    }
    if go_equal_fold(&text, "false") {
        return Value::Bool(false);
    }
    if go_equal_fold(&text, "null") {
        return Value::Null;
    }
    if text == "0" {
        return Value::Int(0);
    }
    if !text.is_empty() && !text.starts_with('0') {
        if let Ok(i) = text.parse::<i64>() {
            return Value::Int(i);
        }
    }
    Value::String(text)
}

/// Go's `strings.EqualFold` against a lowercase ASCII word: ASCII case-insensitive, plus the one
/// non-ASCII letter that folds into these words (`ſ`, long s, folds to `s`).
fn go_equal_fold(text: &str, word: &str) -> bool {
    let mut folded = text.chars().map(|c| match c {
        'ſ' => 's',
        c => c.to_ascii_lowercase(),
    });
    word.chars().all(|w| folded.next() == Some(w)) && folded.next().is_none()
}

type Leaf<'a> = dyn FnMut() -> Result<Value, SetProblem> + 'a;

/// A short description of what a path already holds, for type-conflict messages.
fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Int(i) => format!("the number {i}"),
        Value::Float(f) => format!("the number {}", crate::yaml::format_go_float(*f)),
        Value::Number(text) => format!("the number {text}"),
        Value::String(s) if s.chars().count() > 40 => {
            let head: String = s.chars().take(40).collect();
            format!("the string {head:?}...")
        }
        Value::String(s) => format!("the string {s:?}"),
        Value::Seq(_) => "a list".to_owned(),
        Value::Map(_) => "a map".to_owned(),
    }
}

/// Applies `path[at..]` (which starts with a key) inside `map`.
fn apply_at_key(
    map: &mut Map,
    path: &[Seg],
    at: usize,
    leaf: &mut Leaf<'_>,
) -> Result<(), SetProblem> {
    let Some(Seg::Key(key)) = path.get(at) else {
        return Ok(());
    };
    match path.get(at + 1) {
        None => {
            let value = leaf()?;
            // An empty key sets nothing, as in Helm (`--set =x` is ignored).
            if !key.is_empty() {
                map.insert(key.clone(), value);
            }
        }
        Some(Seg::Key(_)) => {
            let mut inner = match map.get_mut(key) {
                None => Map::new(),
                Some(Value::Map(existing)) => std::mem::take(existing),
                Some(other) => {
                    return Err(SetProblem::NotAMap {
                        path: path_string(path),
                        at: path_string(&path[..=at]),
                        found: describe(other),
                    })
                }
            };
            let result = apply_at_key(&mut inner, path, at + 1, leaf);
            let empty = inner.is_empty();
            if !empty && !key.is_empty() {
                map.insert(key.clone(), Value::Map(inner));
            }
            result?;
            if empty {
                return Err(SetProblem::EmptyKeyMap(path_string(&path[..=at])));
            }
        }
        Some(Seg::Index(_)) => {
            let list = match map.get_mut(key) {
                None => Vec::new(),
                Some(Value::Seq(existing)) => std::mem::take(existing),
                Some(other) => {
                    return Err(SetProblem::NotAList {
                        path: path_string(path),
                        at: path_string(&path[..=at]),
                        found: describe(other),
                    })
                }
            };
            let list = apply_at_index(list, path, at + 1, leaf)?;
            if !key.is_empty() {
                map.insert(key.clone(), Value::Seq(list));
            }
        }
    }
    Ok(())
}

/// Applies `path[at..]` (which starts with an index) to `list` and returns the new list.
fn apply_at_index(
    mut list: Vec<Value>,
    path: &[Seg],
    at: usize,
    leaf: &mut Leaf<'_>,
) -> Result<Vec<Value>, SetProblem> {
    let Some(Seg::Index(index)) = path.get(at) else {
        return Ok(list);
    };
    let index = *index;
    let existing = list.get_mut(index).map(std::mem::take);
    let value = match path.get(at + 1) {
        None => leaf()?,
        Some(Seg::Index(_)) => {
            let inner = match existing {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Seq(items)) => items,
                Some(other) => {
                    return Err(SetProblem::NotAList {
                        path: path_string(path),
                        at: path_string(&path[..=at]),
                        found: describe(&other),
                    })
                }
            };
            Value::Seq(apply_at_index(inner, path, at + 1, leaf)?)
        }
        Some(Seg::Key(_)) => {
            // Helm replaces anything that is not a map here (indices set out of order).
            let mut inner = match existing {
                Some(Value::Map(m)) => m,
                _ => Map::new(),
            };
            apply_at_key(&mut inner, path, at + 1, leaf)?;
            Value::Map(inner)
        }
    };
    if list.len() <= index {
        list.resize(index + 1, Value::Null);
    }
    list[index] = value;
    Ok(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(expr: &str) -> Value {
        Value::Map(parse_set(expr, SetMode::Set).unwrap())
    }

    fn set_err(expr: &str) -> SetError {
        parse_set(expr, SetMode::Set).unwrap_err()
    }

    fn at<'a>(v: &'a Value, path: &[&str]) -> &'a Value {
        v.get_path(path)
            .unwrap_or_else(|| panic!("no {path:?} in {v:?}"))
    }

    fn s(text: &str) -> Value {
        Value::String(text.to_owned())
    }

    #[test]
    fn true_false_null_are_case_insensitive() {
        let v = set("a=tRuE,b=FALSE,c=Null");
        assert_eq!(at(&v, &["a"]), &Value::Bool(true));
        assert_eq!(at(&v, &["b"]), &Value::Bool(false));
        assert_eq!(at(&v, &["c"]), &Value::Null);
    }

    #[test]
    fn yaml_1_1_words_stay_strings() {
        let v = set("a=yes,b=on,c=t,d=~");
        assert_eq!(at(&v, &["a"]), &s("yes"));
        assert_eq!(at(&v, &["b"]), &s("on"));
        assert_eq!(at(&v, &["c"]), &s("t"));
        assert_eq!(at(&v, &["d"]), &s("~"));
    }

    #[test]
    fn integers_are_int64_without_leading_zeros() {
        let v = set("a=1,b=-5,c=+5,d=-0,e=0,f=007,g=00,h=-0005");
        assert_eq!(at(&v, &["a"]), &Value::Int(1));
        assert_eq!(at(&v, &["b"]), &Value::Int(-5));
        assert_eq!(at(&v, &["c"]), &Value::Int(5));
        assert_eq!(at(&v, &["d"]), &Value::Int(0));
        assert_eq!(at(&v, &["e"]), &Value::Int(0));
        assert_eq!(at(&v, &["f"]), &s("007"));
        assert_eq!(at(&v, &["g"]), &s("00"));
        assert_eq!(at(&v, &["h"]), &Value::Int(-5));
    }

    #[test]
    fn int64_overflow_stays_a_string() {
        let v = set("a=9223372036854775807,b=9223372036854775808,c=-9223372036854775809");
        assert_eq!(at(&v, &["a"]), &Value::Int(i64::MAX));
        assert_eq!(at(&v, &["b"]), &s("9223372036854775808"));
        assert_eq!(at(&v, &["c"]), &s("-9223372036854775809"));
    }

    #[test]
    fn floats_hex_and_underscores_stay_strings() {
        let v = set("a=1.5,b=1e3,c=0x1F,d=1_000");
        for (k, text) in [("a", "1.5"), ("b", "1e3"), ("c", "0x1F"), ("d", "1_000")] {
            assert_eq!(at(&v, &[k]), &s(text));
        }
    }

    #[test]
    fn empty_value_is_an_empty_string() {
        let v = set("a=,b=x");
        assert_eq!(at(&v, &["a"]), &s(""));
        assert_eq!(at(&v, &["b"]), &s("x"));
        assert_eq!(at(&set("a="), &["a"]), &s(""));
    }

    #[test]
    fn dotted_paths_nest_maps() {
        let v = set("a.b.c=1,a.b.d=2");
        assert_eq!(at(&v, &["a", "b", "c"]), &Value::Int(1));
        assert_eq!(at(&v, &["a", "b", "d"]), &Value::Int(2));
    }

    #[test]
    fn backslash_escapes_comma_dot_equals_and_itself() {
        let v = set(r"a=x\,y,b\.c=1,d\=e=2,f=x\\y,g=\q");
        assert_eq!(at(&v, &["a"]), &s("x,y"));
        assert_eq!(at(&v, &["b.c"]), &Value::Int(1));
        assert_eq!(at(&v, &["d=e"]), &Value::Int(2));
        assert_eq!(at(&v, &["f"]), &s(r"x\y"));
        assert_eq!(at(&v, &["g"]), &s("q"));
    }

    #[test]
    fn only_the_first_equals_splits() {
        assert_eq!(at(&set("a=x=y"), &["a"]), &s("x=y"));
    }

    #[test]
    fn spaces_are_kept_in_keys_and_values() {
        let v = set("a= x ,  b=1");
        assert_eq!(at(&v, &["a"]), &s(" x "));
        assert_eq!(at(&v, &["  b"]), &Value::Int(1));
    }

    #[test]
    fn braces_make_a_typed_list() {
        let v = set("x={1,true,null,0.5, b },y=2");
        assert_eq!(
            at(&v, &["x"]),
            &Value::Seq(vec![
                Value::Int(1),
                Value::Bool(true),
                Value::Null,
                s("0.5"),
                s(" b ")
            ])
        );
        assert_eq!(at(&v, &["y"]), &Value::Int(2));
    }

    #[test]
    fn empty_braces_are_a_list_of_one_empty_string() {
        assert_eq!(at(&set("x={}"), &["x"]), &Value::Seq(vec![s("")]));
    }

    #[test]
    fn escaped_brace_is_not_a_list() {
        assert_eq!(at(&set(r"a=\{x\}"), &["a"]), &s("{x}"));
    }

    #[test]
    fn list_indices_fill_gaps_with_null() {
        let v = set("a[2]=z,a[0]=x");
        assert_eq!(
            at(&v, &["a"]),
            &Value::Seq(vec![s("x"), Value::Null, s("z")])
        );
    }

    #[test]
    fn index_then_key_builds_list_of_maps() {
        let v = set("b[0].c=1,b[0].d=2,b[1].c=3");
        let Value::Seq(items) = at(&v, &["b"]) else {
            panic!()
        };
        assert_eq!(at(&items[0], &["d"]), &Value::Int(2));
        assert_eq!(at(&items[1], &["c"]), &Value::Int(3));
    }

    #[test]
    fn nested_indices_build_nested_lists() {
        let v = set("a.b[0][1]=x");
        assert_eq!(
            at(&v, &["a", "b"]),
            &Value::Seq(vec![Value::Seq(vec![Value::Null, s("x")])])
        );
    }

    #[test]
    fn index_patches_an_existing_list() {
        let mut m = Map::new();
        m.insert("l".into(), Value::Seq(vec![s("a"), s("b"), s("c")]));
        apply_set(&mut m, "l[1]=z", SetMode::Set).unwrap();
        assert_eq!(m["l"], Value::Seq(vec![s("a"), s("z"), s("c")]));
    }

    #[test]
    fn key_after_index_replaces_a_non_map_item() {
        let mut m = Map::new();
        m.insert("l".into(), Value::Seq(vec![s("a")]));
        apply_set(&mut m, "l[0].k=1", SetMode::Set).unwrap();
        let Value::Seq(items) = &m["l"] else { panic!() };
        assert_eq!(at(&items[0], &["k"]), &Value::Int(1));
    }

    #[test]
    fn dash_and_slash_are_plain_key_characters() {
        assert_eq!(at(&set("my-key/x.y=1"), &["my-key/x", "y"]), &Value::Int(1));
    }

    #[test]
    fn later_assignment_wins() {
        assert_eq!(at(&set("k=a,k=b"), &["k"]), &s("b"));
    }

    #[test]
    fn nested_then_scalar_is_fine() {
        assert_eq!(at(&set("a.b=1,a=2"), &["a"]), &Value::Int(2));
    }

    #[test]
    fn scalar_then_nested_fails_naming_the_path() {
        let e = set_err("a=2,a.b=1");
        assert!(matches!(e.problem, SetProblem::NotAMap { .. }), "{e}");
        assert_eq!(
            e.to_string(),
            r#"--set a=2,a.b=1: cannot set "a.b": "a" already holds the number 2, not a map"#
        );
    }

    #[test]
    fn scalar_then_index_fails() {
        let e = set_err("a=1,a[0]=2");
        assert!(matches!(e.problem, SetProblem::NotAList { .. }), "{e}");
    }

    #[test]
    fn null_then_nested_fails_as_in_helm() {
        let mut m = Map::new();
        m.insert("image".into(), Value::Null);
        let e = apply_set(&mut m, "image.tag=x", SetMode::Set).unwrap_err();
        assert!(e.to_string().contains("already holds null"), "{e}");
    }

    #[test]
    fn failed_expression_leaves_the_map_unchanged() {
        let mut m = Map::new();
        apply_set(&mut m, "keep=1", SetMode::Set).unwrap();
        let before = m.clone();
        apply_set(&mut m, "x=1,keep.a=2", SetMode::Set).unwrap_err();
        assert_eq!(m, before);
    }

    #[test]
    fn key_without_value_is_an_error_naming_it() {
        assert_eq!(
            set_err("a=x,y").to_string(),
            r#"--set a=x,y: key "y" has no value"#
        );
        assert_eq!(set_err("a.b").problem, SetProblem::NoValue("a.b".into()));
        assert_eq!(
            set_err("foo,").problem,
            SetProblem::NoValueBeforeComma("foo".into())
        );
    }

    #[test]
    fn brace_not_at_start_is_plain_text() {
        assert_eq!(
            set_err("x=a{b,c}").problem,
            SetProblem::NoValue("c}".into())
        );
    }

    #[test]
    fn unterminated_list_is_an_error() {
        assert_eq!(set_err("x={a,b").problem, SetProblem::UnterminatedList);
    }

    #[test]
    fn empty_key_is_ignored() {
        assert_eq!(set("=x"), Value::Map(Map::new()));
    }

    #[test]
    fn empty_subkey_is_an_error() {
        assert_eq!(set_err("a.=1").problem, SetProblem::EmptyKeyMap("a".into()));
    }

    #[test]
    fn negative_index_is_rejected() {
        assert_eq!(
            set_err("a[-1]=x").problem,
            SetProblem::NegativeIndex("-1".into())
        );
    }

    #[test]
    fn index_above_65536_is_rejected() {
        assert_eq!(
            set_err("a[65537]=x").problem,
            SetProblem::IndexTooLarge("65537".into())
        );
        assert_eq!(
            set_err("a[99999999999999999999999]=x").problem,
            SetProblem::IndexTooLarge("99999999999999999999999".into())
        );
        let v = set("a[65536]=x");
        let Value::Seq(items) = at(&v, &["a"]) else {
            panic!()
        };
        assert_eq!(items.len(), 65537);
    }

    #[test]
    fn non_numeric_index_is_rejected() {
        assert_eq!(set_err("a[x]=1").problem, SetProblem::BadIndex("x".into()));
        assert_eq!(set_err("a[]=1").problem, SetProblem::BadIndex("".into()));
    }

    #[test]
    fn text_after_index_is_rejected() {
        assert_eq!(
            set_err("a[0]x=1").problem,
            SetProblem::DataAfterIndex("x".into())
        );
    }

    #[test]
    fn unterminated_index_is_rejected() {
        assert_eq!(set_err("a[0").problem, SetProblem::UnterminatedIndex);
    }

    #[test]
    fn path_ending_after_index_or_dot_is_rejected() {
        assert_eq!(set_err("a[0]").problem, SetProblem::NoValue("a[0]".into()));
        assert_eq!(set_err("a.").problem, SetProblem::NoValue("a.".into()));
    }

    #[test]
    fn thirty_nested_keys_are_fine_thirty_one_are_not() {
        let keys: Vec<String> = (0..=30).map(|i| format!("k{i}")).collect();
        let ok = format!("{}=1", keys.join("."));
        let v = set(&ok);
        let path: Vec<&str> = keys.iter().map(String::as_str).collect();
        assert_eq!(at(&v, &path), &Value::Int(1));
        let too_deep = format!("x.{ok}");
        assert_eq!(set_err(&too_deep).problem, SetProblem::TooDeep);
    }

    #[test]
    fn very_long_index_chains_are_bounded() {
        let ok = format!("a{}=1", "[0]".repeat(200));
        parse_set(&ok, SetMode::Set).unwrap();
        let hostile = format!("a{}=1", "[0]".repeat(100_000));
        assert_eq!(set_err(&hostile).problem, SetProblem::TooLong);
    }

    #[test]
    fn unicode_keys_and_values_work() {
        assert_eq!(at(&set("ключ=значение"), &["ключ"]), &s("значение"));
    }

    #[test]
    fn set_string_makes_every_leaf_a_string() {
        let v =
            Value::Map(parse_set("a=true,b=1,c=null,d={x,1},e[0]=2", SetMode::SetString).unwrap());
        assert_eq!(at(&v, &["a"]), &s("true"));
        assert_eq!(at(&v, &["b"]), &s("1"));
        assert_eq!(at(&v, &["c"]), &s("null"));
        assert_eq!(at(&v, &["d"]), &Value::Seq(vec![s("x"), s("1")]));
        assert_eq!(at(&v, &["e"]), &Value::Seq(vec![s("2")]));
    }

    #[test]
    fn set_literal_takes_everything_after_the_first_equals() {
        let v = Value::Map(parse_set(r"a.b=x,y=z\,w{1}", SetMode::SetLiteral).unwrap());
        assert_eq!(at(&v, &["a", "b"]), &s(r"x,y=z\,w{1}"));
        let v = Value::Map(parse_set("n=null", SetMode::SetLiteral).unwrap());
        assert_eq!(at(&v, &["n"]), &s("null"));
    }

    #[test]
    fn set_json_parses_values_and_keeps_integers_exact() {
        let v = Value::Map(
            parse_set(
                r#"a=9007199254740993,b=1.5,c={"x":[1,null]}, d="p,q",e="#,
                SetMode::SetJson,
            )
            .unwrap(),
        );
        assert_eq!(at(&v, &["a"]), &Value::Int(9007199254740993));
        assert_eq!(at(&v, &["b"]), &Value::Float(1.5));
        assert_eq!(
            at(&v, &["c", "x"]),
            &Value::Seq(vec![Value::Int(1), Value::Null])
        );
        assert_eq!(at(&v, &[" d"]), &s("p,q"));
        assert_eq!(at(&v, &["e"]), &Value::Null);
    }

    #[test]
    fn set_json_integer_beyond_64_bits_becomes_a_float() {
        let v = Value::Map(parse_set("c=12345678901234567890", SetMode::SetJson).unwrap());
        assert_eq!(at(&v, &["c"]), &Value::Float(12345678901234567890.0));
    }

    #[test]
    fn set_json_text_after_a_value_is_named() {
        let e = parse_set("a=1 2", SetMode::SetJson).unwrap_err();
        assert_eq!(
            e.problem,
            SetProblem::TextAfterJson {
                key: "a".into(),
                text: "2".into()
            }
        );
        // Helm reads a new assignment right after a value, even without a comma.
        let v = Value::Map(parse_set("a=1 b=2", SetMode::SetJson).unwrap());
        assert_eq!(at(&v, &["b"]), &Value::Int(2));
    }

    #[test]
    fn set_json_with_index_path() {
        let v = Value::Map(parse_set(r#"a.b[1]={"x":1}"#, SetMode::SetJson).unwrap());
        let Value::Seq(items) = at(&v, &["a", "b"]) else {
            panic!()
        };
        assert_eq!(items[0], Value::Null);
        assert_eq!(at(&items[1], &["x"]), &Value::Int(1));
    }

    #[test]
    fn set_json_rejects_bad_json_naming_the_key() {
        let e = parse_set("a={bad", SetMode::SetJson).unwrap_err();
        assert!(
            matches!(&e.problem, SetProblem::BadJson { key, .. } if key == "a"),
            "{e}"
        );
        assert!(e.to_string().starts_with("--set-json a={bad: "), "{e}");
        assert!(parse_set("a=hello", SetMode::SetJson).is_err());
    }

    #[test]
    fn set_file_reads_each_value_through_the_reader() {
        let mut reader = |path: &str| match path {
            "a.txt" => Ok("A\n".to_owned()),
            _ => Err("file not found".to_owned()),
        };
        let mut m = Map::new();
        apply_set_with_reader(&mut m, "k=a.txt,l={a.txt}", SetMode::SetFile, &mut reader).unwrap();
        assert_eq!(m["k"], s("A\n"));
        assert_eq!(m["l"], Value::Seq(vec![s("A\n")]));
        let e =
            apply_set_with_reader(&mut m, "k=nope.txt", SetMode::SetFile, &mut reader).unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"--set-file k=nope.txt: cannot read "nope.txt": file not found"#
        );
    }

    #[test]
    fn key_paths_are_written_with_escapes() {
        assert_eq!(format_key_path(&["a", "b.c"]), r"a.b\.c");
    }
}
