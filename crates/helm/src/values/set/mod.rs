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

mod apply;
mod parse;

use crate::yaml::{Map, Value};
use apply::{apply_at_key, resolve};
use parse::{Assignment, Parser, RawValue, Seg};

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
    let mut parser = Parser::new(expression, mode);
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

#[cfg(test)]
mod tests;
