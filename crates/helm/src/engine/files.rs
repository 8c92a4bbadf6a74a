//! `Files`: the chart's own files, as Helm's `.Files` offers them to templates.
//!
//! The files are those the chart was loaded with (through the input door: regular files only,
//! capped, UTF-8), minus what Helm keeps for itself: `Chart.yaml`, `values.yaml`,
//! `values.schema.json`, `templates/` and `charts/`. Methods, under Helm's names:
//!
//! - `Files.Get(path)`: the text, or `""` when there is no such file;
//! - `Files.GetBytes(path)`: the same as bytes (`b64enc` encodes them);
//! - `Files.Lines(path)`: the lines, without the final newline's empty one;
//! - `Files.Glob(pattern)`: the files matching a glob (`*`, `?`, `[a-z]`, `{a,b}`, `**` across
//!   folders), as another `Files`;
//! - `Files.AsConfig()` and `Files.AsSecrets()`: a YAML map of each file's base name to its text
//!   (for a ConfigMap's `data`) or its base64 (for a Secret's `data`).
//!
//! `Files` is also a map of path to text: `{% for path, text in Files.Glob("conf/*")|items %}`.
//!
//! ```jinja
//! data:
//!   {{- Files.Glob("config/*.conf").AsConfig() | nindent(2) }}
//! ```

use crate::chart::{Chart, ChartFile, SharedText};
use minijinja::value::{Enumerator, Object, ObjectExt, ObjectRepr, Value};
use minijinja::{Error, ErrorKind, State};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The chart's files by path (relative to the chart root), in path order, as bytes: text files
/// and those that are not text alike (`Files.Get` reads the latter as Go's string of their
/// bytes would print, invalid UTF-8 replaced).
#[derive(Debug, Default)]
pub(crate) struct Files(pub(crate) BTreeMap<String, FileBytes>);

/// One file's bytes, held with the chart rather than copied: a chart's readable files (a
/// subchart's `crds/` alone may be megabytes) would otherwise be in memory twice while it renders.
#[derive(Clone, Debug)]
pub(crate) enum FileBytes {
    /// A text file: the chart's own text.
    Text(SharedText),
    /// A file that is not text.
    Binary(Arc<[u8]>),
}

impl PartialEq for FileBytes {
    fn eq(&self, other: &FileBytes) -> bool {
        **self == **other
    }
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Text(text) => text.as_bytes(),
            FileBytes::Binary(bytes) => bytes,
        }
    }
}

/// A chart's files other than Chart.yaml and its templates, taken out of a chart that is done
/// with them, for a [`Files`] made only if a template reads one (a subchart's `crds/` alone
/// may be megabytes).
#[derive(Debug, Default)]
pub(crate) struct FileParts {
    /// Text files: values files, overlays and the others, in the chart's order.
    pub(crate) text: Vec<crate::chart::ChartFile>,
    /// The files that are not text.
    pub(crate) binary: Vec<(String, Vec<u8>)>,
}

impl FileParts {
    /// Moves the files [`Files::of`] would read out of `chart` (its default values stay: they
    /// are small, and the chart reads them again).
    pub(crate) fn take_from(chart: &mut Chart) -> FileParts {
        let mut text: Vec<_> = chart.default_values.iter().cloned().collect();
        text.append(&mut chart.value_overlays);
        text.append(&mut chart.other_files);
        FileParts {
            text,
            binary: std::mem::take(&mut chart.binary_files),
        }
    }
}

/// Whether Helm keeps `path` out of `.Files` (it loads those files itself).
fn kept_by_helm(path: &str) -> bool {
    matches!(path, "Chart.yaml" | "values.yaml" | "values.schema.json")
        || path.starts_with("templates/")
        || path.starts_with("charts/")
}

impl Files {
    /// The files of `chart` a template can read.
    pub(crate) fn of(chart: &Chart) -> Files {
        // Only the files a template may read are taken: Helm's own (templates, subcharts'
        // folders and archives) are most of a chart's bytes and are left where they are.
        // Chart.yaml and the templates are never among them, so they are not looked at.
        let text = chart
            .default_values
            .iter()
            .chain(&chart.value_overlays)
            .chain(&chart.other_files);
        Files::readable(text, &chart.binary_files)
    }

    /// The files a template may read among `files` (a chart's, moved out of it), in the order
    /// [`Files::of`] takes them: text files first, a later one of a path winning.
    pub(crate) fn from_parts(files: &FileParts) -> Files {
        Files::readable(files.text.iter(), &files.binary)
    }

    /// The files among `text` and `binary` that Helm lets templates read: text shared with the
    /// chart, the others copied.
    fn readable<'a>(
        text: impl Iterator<Item = &'a ChartFile>,
        binary: &'a [(String, Vec<u8>)],
    ) -> Files {
        let text = text
            .filter(|f| !kept_by_helm(&f.path))
            .map(|f| (f.path.clone(), FileBytes::Text(f.text.clone())));
        // Filtered before the copy: a subchart's archive under charts/ stays where it is.
        let binary = binary
            .iter()
            .filter(|(path, _)| !kept_by_helm(path))
            .map(|(path, bytes)| (path.clone(), FileBytes::Binary(Arc::from(bytes.as_slice()))));
        Files(text.chain(binary).collect())
    }

    /// The files whose paths match the glob `pattern` (Helm's `Files.Glob`).
    pub(crate) fn matching(&self, pattern: &str) -> Files {
        let glob = Glob::parse(pattern).unwrap_or(Glob(vec![Token::AnyDeep]));
        Files(
            self.0
                .iter()
                .filter(|(path, _)| glob.matches(path))
                .map(|(p, t)| (p.clone(), t.clone()))
                .collect(),
        )
    }

    pub(crate) fn text(&self, path: &str) -> std::borrow::Cow<'_, str> {
        match self.0.get(path) {
            None => std::borrow::Cow::Borrowed(""),
            Some(FileBytes::Text(text)) => std::borrow::Cow::Borrowed(text),
            Some(FileBytes::Binary(bytes)) => String::from_utf8_lossy(bytes),
        }
    }

    pub(crate) fn bytes(&self, path: &str) -> &[u8] {
        self.0.get(path).map_or(&[], |bytes| bytes)
    }

    /// Helm's `toYaml` of a map from each file's base name to `content(text)`.
    pub(crate) fn as_map(&self, content: impl Fn(&[u8]) -> String) -> Result<String, Error> {
        let map: crate::values::Map = self
            .0
            .iter()
            .map(|(path, bytes)| {
                let base = path.rsplit('/').next().unwrap_or(path).to_owned();
                (base, crate::values::Value::String(content(bytes)))
            })
            .collect();
        crate::yaml::try_to_yaml_within(
            &crate::values::Value::Map(map),
            crate::limits::MAX_STRING_BYTES,
        )
        .map_err(|e| Error::new(ErrorKind::InvalidOperation, e.to_string()))
    }
}

fn one_string<'a>(method: &str, args: &'a [Value]) -> Result<&'a str, Error> {
    match args {
        [value] => value.as_str().ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidOperation,
                format!("Files.{method}(path): the path must be a string, found {value}"),
            )
        }),
        _ => Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("Files.{method} takes one argument, got {}", args.len()),
        )),
    }
}

fn no_arguments(method: &str, args: &[Value]) -> Result<(), Error> {
    if args.is_empty() {
        Ok(())
    } else {
        Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("Files.{method}() takes no argument, got {}", args.len()),
        ))
    }
}

impl Object for Files {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Map
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        self.0.get(key.as_str()?).map(|t| Value::from(&**t))
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        self.mapped_enumerator(|this| Box::new(this.0.keys().map(|k| Value::from(k.as_str()))))
    }

    fn call_method(
        self: &Arc<Self>,
        _state: &mut State<'_, '_>,
        method: &str,
        args: &[Value],
    ) -> Result<Value, Error> {
        match method {
            "Get" => Ok(Value::from(
                self.text(one_string(method, args)?).into_owned(),
            )),
            "GetBytes" => Ok(Value::from_bytes(
                self.bytes(one_string(method, args)?).to_vec(),
            )),
            "Lines" => {
                let text = self.text(one_string(method, args)?);
                if text.is_empty() {
                    return Ok(Value::from(Vec::<Value>::new()));
                }
                let text = text.strip_suffix('\n').unwrap_or(&text);
                Ok(Value::from(
                    text.split('\n').map(Value::from).collect::<Vec<_>>(),
                ))
            }
            "Glob" => Ok(Value::from_object(self.matching(one_string(method, args)?))),
            "AsConfig" => {
                no_arguments(method, args)?;
                Ok(Value::from(self.as_map(|bytes| {
                    String::from_utf8_lossy(bytes).into_owned()
                })?))
            }
            "AsSecrets" => {
                no_arguments(method, args)?;
                use base64::Engine as _;
                Ok(Value::from(self.as_map(|text| {
                    base64::engine::general_purpose::STANDARD.encode(text)
                })?))
            }
            _ => Err(Error::new(
                ErrorKind::UnknownMethod,
                format!(
                    "Files has no method {method:?} (Get, GetBytes, Glob, Lines, AsConfig, \
                     AsSecrets)"
                ),
            )),
        }
    }
}

/// One piece of a glob, as gobwas/glob (Helm's) reads it with `/` as the separator.
#[derive(Debug, Clone)]
enum Token {
    Literal(char),
    /// `?`: one character other than `/`.
    One,
    /// `*`: any run of characters other than `/`.
    Any,
    /// `**`: any run of characters.
    AnyDeep,
    /// `[...]` (or `[!...]`): one character other than `/` in (or not in) the ranges.
    Class(bool, Vec<(char, char)>),
    /// `{a,b}`: one of the alternatives.
    Alternatives(Vec<Vec<Token>>),
}

/// A compiled glob.
struct Glob(Vec<Token>);

impl Glob {
    fn parse(pattern: &str) -> Option<Glob> {
        let chars: Vec<char> = pattern.chars().collect();
        let (tokens, rest) = parse_tokens(&chars, false)?;
        rest.is_empty().then_some(Glob(tokens))
    }

    fn matches(&self, text: &str) -> bool {
        let chars: Vec<char> = text.chars().collect();
        match_tokens(&self.0, &chars)
    }
}

/// Parses tokens until the end, or (inside braces) until `,` or `}`, which it leaves.
fn parse_tokens(mut chars: &[char], in_braces: bool) -> Option<(Vec<Token>, &[char])> {
    let mut tokens = Vec::new();
    while let Some((&c, rest)) = chars.split_first() {
        match c {
            ',' | '}' if in_braces => return Some((tokens, chars)),
            '*' if rest.first() == Some(&'*') => {
                tokens.push(Token::AnyDeep);
                chars = &rest[1..];
            }
            '*' => {
                tokens.push(Token::Any);
                chars = rest;
            }
            '?' => {
                tokens.push(Token::One);
                chars = rest;
            }
            '\\' => {
                let (&escaped, rest) = rest.split_first()?;
                tokens.push(Token::Literal(escaped));
                chars = rest;
            }
            '[' => {
                let (negated, mut body) = match rest.first() {
                    Some('!') => (true, &rest[1..]),
                    _ => (false, rest),
                };
                let mut ranges = Vec::new();
                loop {
                    let (&first, after) = body.split_first()?;
                    if first == ']' {
                        body = after;
                        break;
                    }
                    if after.first() == Some(&'-') && after.get(1).is_some_and(|c| *c != ']') {
                        ranges.push((first, after[1]));
                        body = &after[2..];
                    } else {
                        ranges.push((first, first));
                        body = after;
                    }
                }
                tokens.push(Token::Class(negated, ranges));
                chars = body;
            }
            '{' => {
                let mut alternatives = Vec::new();
                let mut body = rest;
                loop {
                    let (alternative, after) = parse_tokens(body, true)?;
                    alternatives.push(alternative);
                    let (&end, after) = after.split_first()?;
                    body = after;
                    if end == '}' {
                        break;
                    }
                }
                tokens.push(Token::Alternatives(alternatives));
                chars = body;
            }
            c => {
                tokens.push(Token::Literal(c));
                chars = rest;
            }
        }
    }
    Some((tokens, chars))
}

fn match_tokens(tokens: &[Token], text: &[char]) -> bool {
    let Some((token, rest)) = tokens.split_first() else {
        return text.is_empty();
    };
    match token {
        Token::Literal(c) => text.first() == Some(c) && match_tokens(rest, &text[1..]),
        Token::One => text.first().is_some_and(|c| *c != '/') && match_tokens(rest, &text[1..]),
        Token::Class(negated, ranges) => {
            text.first().is_some_and(|c| {
                *c != '/' && ranges.iter().any(|(lo, hi)| lo <= c && c <= hi) != *negated
            }) && match_tokens(rest, &text[1..])
        }
        Token::Any => (0..=text.len())
            .take_while(|&n| n == 0 || text[n - 1] != '/')
            .any(|n| match_tokens(rest, &text[n..])),
        Token::AnyDeep => (0..=text.len()).any(|n| match_tokens(rest, &text[n..])),
        Token::Alternatives(alternatives) => alternatives.iter().any(|alternative| {
            let mut joined = alternative.clone();
            joined.extend(rest.iter().cloned());
            match_tokens(&joined, text)
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::{FileBytes, Files, Glob};
    use crate::chart::Chart;

    fn glob(pattern: &str, path: &str) -> bool {
        Glob::parse(pattern).expect("a valid glob").matches(path)
    }

    #[test]
    fn a_star_stays_inside_one_folder() {
        assert!(glob("config/*.conf", "config/a.conf"));
        assert!(!glob("config/*.conf", "config/sub/a.conf"));
        assert!(!glob("*.conf", "config/a.conf"));
    }

    #[test]
    fn a_double_star_crosses_folders() {
        assert!(glob("config/**", "config/sub/a.conf"));
        assert!(glob("**.conf", "config/sub/a.conf"));
    }

    #[test]
    fn classes_alternatives_and_single_characters_match_as_in_helm() {
        assert!(glob("f[0-9].txt", "f7.txt"));
        assert!(!glob("f[!0-9].txt", "f7.txt"));
        assert!(glob("{a,b}/x?", "b/x1"));
        assert!(!glob("{a,b}/x?", "c/x1"));
    }

    fn chart_with_file(path: &str, text: &str) -> Chart {
        Chart::of_test_files(&[
            ("Chart.yaml", "apiVersion: v2\nname: c\nversion: 0.1.0\n"),
            (path, text),
        ])
    }

    #[test]
    fn a_charts_text_files_are_shared_with_the_chart_not_copied() {
        let chart = chart_with_file(
            "crds/big.yaml",
            &"kind: CustomResourceDefinition\n".repeat(99),
        );
        let files = Files::of(&chart);
        let held = &chart.file("crds/big.yaml").expect("the file").text;
        match files.0.get("crds/big.yaml") {
            Some(FileBytes::Text(text)) => assert!(std::ptr::eq(text.as_ptr(), held.as_ptr())),
            other => panic!("crds/big.yaml should be the chart's text, is {other:?}"),
        }
        assert_eq!(files.text("crds/big.yaml"), **held);
    }
}
