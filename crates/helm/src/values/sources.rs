//! The user's value flags (`-f`, `--set`, ...) and how they combine, in Helm's order.
//!
//! Helm applies the flags by *type*, not by their position on the command line: every `-f` file
//! in order, then every `--set-json`, `--set`, `--set-string`, `--set-file` and `--set-literal`.
//! All of them build one map of user values, which is coalesced onto the chart's defaults last.
//! [`Assembler`] applies one [`Source`] at a time, so a caller can see what each source changed.

use std::collections::BTreeMap;
use std::io::Read;

use super::coalesce::{coalesce, merge_user_values};
use super::set::{apply_set_with_reader, SetError, SetMode};
use crate::input::{self, InputError};
use crate::yaml::{Map, Value};

/// The user's value flags, in the order given per flag type.
#[derive(Default, Clone, Debug, PartialEq, Eq)]
pub struct ValueOverrides {
    /// `-f` / `--values` files; `-` is standard input.
    pub files: Vec<String>,
    /// `--set` expressions.
    pub set: Vec<String>,
    /// `--set-string` expressions.
    pub set_string: Vec<String>,
    /// `--set-file` expressions (`key=path`; `-` is standard input).
    pub set_file: Vec<String>,
    /// `--set-json` expressions.
    pub set_json: Vec<String>,
    /// `--set-literal` expressions.
    pub set_literal: Vec<String>,
    /// Sources already read through the input door, by name as given (`-` for standard input):
    /// read again from here, so that choosing a chart from the user's values and then rendering
    /// reads a FIFO or standard input once.
    pub already_read: KeptFiles,
}

impl ValueOverrides {
    /// Resolves relative file paths (`-f` files, `--set-file` paths) against `base`, the folder
    /// they were written in (a golden case's).
    pub fn resolve_paths(&mut self, base: &camino::Utf8Path) {
        for file in &mut self.files {
            *file = crate::input::resolve_path(base, file);
        }
        // One --set-file may name several files: `a=x.pem,b=y.pem`.
        for item in &mut self.set_file {
            let pairs: Vec<String> = item
                .split(',')
                .map(|pair| match pair.split_once('=') {
                    Some((key, path)) => {
                        format!("{key}={}", crate::input::resolve_path(base, path))
                    }
                    None => pair.to_owned(),
                })
                .collect();
            *item = pairs.join(",");
        }
    }

    /// Whether any source reads standard input: `-f -` or a `--set-file key=-` pair. A `--set`
    /// value of `-` is just the string "-".
    pub fn reads_stdin(&self) -> bool {
        self.files.iter().any(|f| f == "-")
            || self.set_file.iter().any(|expression| {
                expression
                    .split(',')
                    .any(|pair| pair.split_once('=').is_some_and(|(_, path)| path == "-"))
            })
    }

    /// What set the values key `key` (a dotted path), as a person reads it: the last `--set`
    /// family expression naming it (`--set-file identityTrustAnchorsPEM=ca.key`), else the
    /// values files that may hold it; `None` when no flag names it and no file is given.
    pub fn described_setter_of(&self, key: &str) -> Option<String> {
        let names_key = |expression: &str| {
            expression
                .split(',')
                .filter_map(|pair| pair.split_once('=').map(|(k, _)| k.trim()))
                .any(|k| k == key)
        };
        let flagged = self
            .sources()
            .into_iter()
            .rev()
            .find_map(|source| match source {
                Source::Set { mode, expression } if names_key(&expression) => {
                    Some(format!("{} {expression}", mode.flag()))
                }
                _ => None,
            });
        flagged.or_else(|| {
            (!self.files.is_empty()).then(|| format!("the values files {}", self.files.join(", ")))
        })
    }

    /// Every source in the order it is applied; later sources win.
    pub fn sources(&self) -> Vec<Source> {
        let mut sources: Vec<Source> = self.files.iter().cloned().map(Source::File).collect();
        for (mode, expressions) in [
            (SetMode::SetJson, &self.set_json),
            (SetMode::Set, &self.set),
            (SetMode::SetString, &self.set_string),
            (SetMode::SetFile, &self.set_file),
            (SetMode::SetLiteral, &self.set_literal),
        ] {
            sources.extend(expressions.iter().map(|expression| Source::Set {
                mode,
                expression: expression.clone(),
            }));
        }
        sources
    }
}

/// One place user values come from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// A `-f` values file (`-` is standard input).
    File(String),
    /// One `--set`-family expression.
    Set {
        /// Which flag.
        mode: SetMode,
        /// The expression as given.
        expression: String,
    },
}

/// Why the user's values could not be assembled.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ValuesError {
    /// A values file is not valid YAML (or holds something JSON cannot, like `.inf`).
    #[error("values file {file}, line {line}, column {column}: {message}")]
    Yaml {
        /// The file as given (`<stdin>` for `-`).
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A values file named by a URL, which Helm would download: meshchart reads no network.
    #[error("values file {file}: a URL; meshchart reads values files from disk only (download it first, e.g. `curl -fsSLo values.yaml {file}`, and pass -f values.yaml)")]
    Url {
        /// The URL as given.
        file: String,
    },
    /// A values file does not exist.
    #[error("values file {file}: file not found")]
    FileNotFound {
        /// The file as given.
        file: String,
    },
    /// A values file could not be read.
    #[error("values file {file}: {message}")]
    FileUnreadable {
        /// The file as given (`<stdin>` for `-`).
        file: String,
        /// Why.
        message: String,
    },
    /// A values file holds a list or a scalar instead of a map.
    #[error("{file}: the top level must be a map, found {found}")]
    NotAMap {
        /// The file as given (`<stdin>` for `-`).
        file: String,
        /// What it holds: `a list`, `a string`, ...
        found: &'static str,
    },
    /// A `--set`-family expression is malformed or conflicts with earlier values.
    #[error(transparent)]
    Set(#[from] SetError),
    /// The effective values break the chart's `values.schema.json`: Helm's error, in Helm's
    /// words ([`crate::values::schema::SchemaCheck::helm_error`]).
    #[error("{}", crate::values::schema::SchemaCheck::helm_error(.chart, .violations))]
    Schema {
        /// The chart's name, as Helm names it in the error.
        chart: String,
        /// What is wrong, sorted by path.
        violations: Vec<crate::values::schema::Violation>,
    },
    /// Keys the chart does not read, under `--strict`.
    #[error(
        "--strict: {chart} does not read {}: {}",
        if .keys.len() == 1 { "this key" } else { "these keys" },
        .keys.join(", ")
    )]
    UnknownKeys {
        /// The chart and its release (`linkerd-control-plane edge-26.8.3`).
        chart: String,
        /// Each unknown key, with the nearest known one (`proxy.awiat (did you mean proxy.await?)`).
        keys: Vec<String>,
    },
}

/// Builds the user's value map from the flags, in Helm's order. `stdin` is read (once) only if a
/// `-f -` or `--set-file key=-` asks for it.
pub fn user_values(o: &ValueOverrides, stdin: &mut dyn Read) -> Result<Value, ValuesError> {
    user_values_with(o, stdin, KeptFiles::new())
}

/// Files already read, by name as given (`-` for standard input), with their text: a fleet
/// reads the files its clusters share once, not once per cluster.
pub type KeptFiles = BTreeMap<String, String>;

/// [`user_values`], taking files named in `kept` from there instead of reading them.
pub fn user_values_with(
    o: &ValueOverrides,
    stdin: &mut dyn Read,
    kept: KeptFiles,
) -> Result<Value, ValuesError> {
    let mut assembler = Assembler::for_sources(o, stdin, kept);
    for source in o.sources() {
        assembler.apply(&source)?;
    }
    Ok(assembler.finish())
}

/// [`user_values_with`], adding what the files read gave to warn about to `warnings`.
pub fn user_values_noting(
    o: &ValueOverrides,
    stdin: &mut dyn Read,
    kept: KeptFiles,
    warnings: &mut Vec<String>,
) -> Result<Value, ValuesError> {
    let mut assembler = Assembler::for_sources(o, stdin, kept);
    for source in o.sources() {
        assembler.apply(&source)?;
    }
    let (user, noted) = assembler.finish_with_warnings();
    warnings.extend(noted);
    Ok(user)
}

/// The values templates see: the user's values coalesced onto the chart's `defaults`, plus the
/// coalescing warnings (print each as `warning: ...`).
pub fn effective_values(
    defaults: &Value,
    o: &ValueOverrides,
    stdin: &mut dyn Read,
) -> Result<(Value, Vec<String>), ValuesError> {
    effective_values_with(defaults, o, stdin, KeptFiles::new())
}

/// [`effective_values`], taking files named in `kept` from there instead of reading them.
pub fn effective_values_with(
    defaults: &Value,
    o: &ValueOverrides,
    stdin: &mut dyn Read,
    kept: KeptFiles,
) -> Result<(Value, Vec<String>), ValuesError> {
    let mut warnings = Vec::new();
    let user = user_values_noting(o, stdin, kept, &mut warnings)?;
    let values = coalesce(defaults, user, &mut warnings);
    Ok((values, warnings))
}

/// Applies sources one at a time into the user's value map. Every file it reads (and standard
/// input) is read once, through the input door, and kept: [`Assembler::kept`] hands the text
/// back to whoever needs it again (provenance, lint), and a file named twice is not read twice.
pub struct Assembler<'a> {
    user: Value,
    stdin: &'a mut dyn Read,
    kept: BTreeMap<String, String>,
    warnings: Vec<String>,
}

impl<'a> Assembler<'a> {
    /// Starts with an empty map.
    pub fn new(stdin: &'a mut dyn Read) -> Self {
        Self::with_kept(stdin, KeptFiles::new())
    }

    /// Starts with an empty map, for the sources `o`: the files they have already read, and
    /// those in `kept`, count as read.
    pub fn for_sources(o: &ValueOverrides, stdin: &'a mut dyn Read, mut kept: KeptFiles) -> Self {
        for (name, text) in &o.already_read {
            kept.entry(name.clone()).or_insert_with(|| text.clone());
        }
        Self::with_kept(stdin, kept)
    }

    /// Starts with an empty map and the files in `kept` as if already read.
    pub fn with_kept(stdin: &'a mut dyn Read, kept: KeptFiles) -> Self {
        Assembler {
            user: Value::Map(Map::new()),
            stdin,
            kept,
            warnings: Vec::new(),
        }
    }

    /// Every file read so far (and those it started with), with its text.
    pub fn into_kept(self) -> KeptFiles {
        self.kept
    }

    /// The user values so far.
    pub fn values(&self) -> &Value {
        &self.user
    }

    /// The user values, finished.
    pub fn finish(self) -> Value {
        self.user
    }

    /// The user values, finished, and what the files read gave to warn about (print each as
    /// `warning: ...`).
    pub fn finish_with_warnings(self) -> (Value, Vec<String>) {
        (self.user, self.warnings)
    }

    /// The user values, finished, what the files read gave to warn about, and every file
    /// read (and those it started with), with its text.
    pub fn finish_keeping(self) -> (Value, Vec<String>, KeptFiles) {
        (self.user, self.warnings, self.kept)
    }

    /// The text of a file read so far, by its name as given (`-` for standard input).
    pub fn kept(&self, file: &str) -> Option<&str> {
        self.kept.get(file).map(String::as_str)
    }

    /// Applies one more source over the values so far. On error nothing changes.
    pub fn apply(&mut self, source: &Source) -> Result<(), ValuesError> {
        self.apply_inspecting(source, &mut |_, _| {})
    }

    /// [`Assembler::apply`], first showing `inspect` a file's own values, as read, and whether
    /// documents follow the first in it (and are ignored): `values --explain` places them in
    /// the file without reading it a second time.
    pub fn apply_inspecting(
        &mut self,
        source: &Source,
        inspect: &mut dyn FnMut(&Value, bool),
    ) -> Result<(), ValuesError> {
        match source {
            Source::File(file) => {
                let warned = self.warnings.len();
                let values = self.read_values_file(file)?;
                inspect(&values, self.warnings.len() > warned);
                merge_user_values(&mut self.user, values);
            }
            Source::Set { mode, expression } => {
                if !matches!(self.user, Value::Map(_)) {
                    self.user = Value::Map(Map::new());
                }
                let Value::Map(map) = &mut self.user else {
                    return Ok(());
                };
                let stdin = &mut *self.stdin;
                let kept = &mut self.kept;
                let mut read_file = |path: &str| -> Result<String, String> {
                    read_kept(kept, stdin, path).map_err(|e| e.reason())
                };
                apply_set_with_reader(map, expression, *mode, &mut read_file)?;
            }
        }
        Ok(())
    }

    fn read_values_file(&mut self, file: &str) -> Result<Value, ValuesError> {
        let shown = if file == "-" { input::STDIN_NAME } else { file };
        let scheme = file.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
        if matches!(scheme.as_deref(), Some("http" | "https")) {
            return Err(ValuesError::Url {
                file: file.to_owned(),
            });
        }
        // Helm reads `-f /dev/null` as no values (a way to say "none" in scripts); the input
        // door refuses other devices by name.
        if is_dev_null(file) {
            return Ok(Value::Map(Map::new()));
        }
        let kept_as = kept_name(&mut self.kept, self.stdin, file).map_err(|e| match e {
            InputError::NotFound { .. } => ValuesError::FileNotFound {
                file: file.to_owned(),
            },
            other => ValuesError::FileUnreadable {
                file: shown.to_owned(),
                message: other.reason(),
            },
        })?;
        // Parsed where it is kept: a copy would add the text's size to the peak of reading it.
        let text = self.kept.get(&kept_as).map_or("", String::as_str);
        parse_values_text_noting(shown, text, &mut self.warnings)
    }
}

/// Whether `file` is the null device (by its name, or a link to it).
fn is_dev_null(file: &str) -> bool {
    file == "/dev/null"
        || std::fs::canonicalize(file).is_ok_and(|p| p == std::path::Path::new("/dev/null"))
}

/// Parses the text of a values file: a map (an empty file adds nothing), adding to `warnings` that documents after the first are ignored
/// (as Helm ignores them, silently), naming the file and the line the second one starts on.
pub(super) fn parse_values_text_noting(
    shown: &str,
    text: &str,
    warnings: &mut Vec<String>,
) -> Result<Value, ValuesError> {
    let (value, ignored_from) =
        crate::yaml::load::parse_values_document(text).map_err(|e| ValuesError::Yaml {
            file: shown.to_owned(),
            line: e.position.line,
            column: e.position.column,
            message: e.message,
        })?;
    if let Some(line) = ignored_from {
        warnings.push(format!(
            "warning: values file {shown}, line {line}: a second YAML document starts here; only the \
             first document of a values file is read (as Helm does), so it and any after it \
             are ignored"
        ));
    }
    match value {
        Value::Map(_) => Ok(value),
        // An empty (or comments-only) file adds nothing.
        Value::Null => Ok(Value::Map(Map::new())),
        other => Err(ValuesError::NotAMap {
            file: shown.to_owned(),
            found: match other {
                Value::Seq(_) => "a list",
                Value::String(_) => "a string",
                Value::Bool(_) => "a boolean",
                _ => "a number",
            },
        }),
    }
}

/// The text of `file` (`-` is standard input): kept from an earlier read, or read now through
/// the input door and kept.
fn read_kept(
    kept: &mut BTreeMap<String, String>,
    stdin: &mut dyn Read,
    file: &str,
) -> Result<String, InputError> {
    let name = kept_name(kept, stdin, file)?;
    Ok(kept.get(&name).cloned().unwrap_or_default())
}

/// The name `file`'s text is kept under in `kept`, reading it first (and keeping it under
/// `file`) when no name has it yet.
fn kept_name(
    kept: &mut BTreeMap<String, String>,
    stdin: &mut dyn Read,
    file: &str,
) -> Result<String, InputError> {
    if kept.contains_key(file) {
        return Ok(file.to_owned());
    }
    // The same file under another name (`-f f -f ./f`, a link to it): a FIFO can be read only
    // once, and a second open would wait for a writer that never comes.
    if let Some(name) = kept_under_another_name(kept, file) {
        return Ok(name);
    }
    let text = input::read_arg(file, stdin)?.text;
    kept.insert(file.to_owned(), text);
    Ok(file.to_owned())
}

/// The name another name of the file `file` names was read and kept under, if any.
fn kept_under_another_name(kept: &BTreeMap<String, String>, file: &str) -> Option<String> {
    if file == "-" {
        return None;
    }
    let identity = |name: &str| crate::files::identity(camino::Utf8Path::new(name)).ok();
    let wanted = identity(file)?;
    kept.keys()
        .find(|name| name.as_str() != "-" && identity(name) == Some(wanted))
        .cloned()
}

#[cfg(test)]
mod tests;
