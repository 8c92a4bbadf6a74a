//! Charts: a `Chart.yaml`, templates and default values, read from a folder, an archive or files
//! in memory.

pub(crate) mod helmignore;
mod metadata;
mod subcharts;
pub mod version_constraint;

pub use crate::input::tree::{Hidden, Walked};
pub use crate::input::{MAX_CHART_BYTES, MAX_CHART_FILES};
pub use metadata::ChartMetadata;

use crate::input::archive::{read_archive_file, ArchiveError};
use crate::input::{self, InputError};
use crate::yaml::Value;
use crate::yaml::{self, YamlError};
use camino::{Utf8Path, Utf8PathBuf};
use helmignore::{HelmIgnore, HELMIGNORE};

/// Why a chart could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    /// A file or folder could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The path that failed.
        path: Utf8PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The chart has subcharts, which meshchart does not render: rendering only the parent
    /// would drop their resources without a word.
    #[error(
        "{origin}: has subcharts under charts/ ({}), which meshchart does not render (Helm \
         renders each with its values under .Values.<name> and the globals); render each on its \
         own with --chart, or remove it from charts/",
        .names.join(", ")
    )]
    Subcharts {
        /// Where the chart came from.
        origin: String,
        /// The subcharts: `charts/<name>` folders and `charts/<name>.tgz` archives.
        names: Vec<String>,
    },
    /// The chart has no Chart.yaml.
    #[error("{origin}: Chart.yaml is missing (is this a chart folder?)")]
    MissingChartYaml {
        /// Where the chart came from.
        origin: String,
    },
    /// A YAML file of the chart does not parse.
    #[error("{origin}/{file}: {source}")]
    Yaml {
        /// Where the chart came from.
        origin: String,
        /// The file inside the chart.
        file: String,
        /// The parse error, with line and column.
        source: YamlError,
    },
    /// A field of Chart.yaml is missing or invalid.
    #[error("{origin}/Chart.yaml: {field}: {message}")]
    InvalidMetadata {
        /// Where the chart came from.
        origin: String,
        /// The offending field.
        field: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// A file or folder was refused by the input rules (see [`crate::input`]).
    #[error(transparent)]
    Input(#[from] InputError),
    /// `.helmignore` has a malformed line.
    #[error("{origin}/{source}")]
    HelmIgnore {
        /// Where the chart came from.
        origin: String,
        /// The line and what is wrong with it.
        source: helmignore::PatternError,
    },
    /// `.helmignore` leaves `Chart.yaml` out (usually a `!` line: Helm 3 negation ignores every
    /// path that does not match it).
    #[error("{origin}: Chart.yaml is excluded by {rule}")]
    ChartYamlIgnored {
        /// Where the chart came from.
        origin: String,
        /// The rule, with its line.
        rule: String,
    },
    /// A chart archive is unsafe, broken or too large.
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    /// A file name holds a control character (a newline would split the `# Source:` line).
    #[error("{origin}: the file name {file:?} holds a control character")]
    ControlCharacterInName {
        /// Where the chart came from.
        origin: String,
        /// The name, escaped.
        file: String,
    },
}

/// The chart's ignore rules: its `.helmignore` if it has one, else Helm's default rule only.
pub fn ignore_rules(dir: &Utf8Path) -> Result<HelmIgnore, ChartError> {
    let path = dir.join(HELMIGNORE);
    if !path.as_std_path().exists() {
        return Ok(HelmIgnore::defaults());
    }
    let text = input::read_path(&path)?.text;
    HelmIgnore::parse(&text).map_err(|source| ChartError::HelmIgnore {
        origin: dir.to_string(),
        source,
    })
}

/// Reads every file of the chart folder `dir` that `.helmignore` keeps (Helm's loader rules,
/// within the input rules of [`crate::input::tree`]).
pub fn walk_chart_dir(dir: &Utf8Path, hidden: Hidden) -> Result<Walked, ChartError> {
    // Said before the walk: a folder that is no chart (a project's root, with its build output)
    // would otherwise be walked, and refused for its size.
    if !dir.join("Chart.yaml").exists() {
        return Err(ChartError::MissingChartYaml {
            origin: dir.to_string(),
        });
    }
    let rules = ignore_rules(dir)?;
    let walked =
        input::tree::chart_files(dir, hidden, &|path, is_dir| rules.ignores(path, is_dir))?;
    if !walked.files.iter().any(|(p, _)| p == "Chart.yaml") && dir.join("Chart.yaml").is_file() {
        if let Some(rule) = rules.ignored_by("Chart.yaml", false) {
            return Err(ChartError::ChartYamlIgnored {
                origin: dir.to_string(),
                rule: rule.to_string(),
            });
        }
    }
    Ok(walked)
}

/// One file of a chart, by its path relative to the chart root (always `/`-separated).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChartFile {
    /// Path relative to the chart root, e.g. `templates/identity.yaml`.
    pub path: String,
    /// The file's text.
    pub text: SharedText,
}

/// A chart file's text, shared instead of copied: the subcharts in a parent's folder, the Go
/// front end's list of templates and its parse trees all hold the chart's own text (a chart of
/// CRDs holds megabytes), a file read as bytes becomes one without a copy, and a text compiled
/// into the binary (the embedded release lines' templates) is used where it lies.
#[derive(Clone, Debug)]
pub struct SharedText(Text);

#[derive(Clone, Debug)]
enum Text {
    Shared(std::sync::Arc<String>),
    Static(&'static str),
}

impl SharedText {
    /// A text compiled into the binary, used without a copy.
    pub fn from_static(text: &'static str) -> SharedText {
        SharedText(Text::Static(text))
    }

    /// The shared text itself, for a holder that keeps it (parse trees); a text compiled in is
    /// copied into one (only the Go front end asks, and embedded charts are not Go's).
    pub fn shared(&self) -> std::sync::Arc<String> {
        match &self.0 {
            Text::Shared(text) => text.clone(),
            Text::Static(text) => std::sync::Arc::new((*text).to_owned()),
        }
    }
}

impl Default for SharedText {
    fn default() -> Self {
        SharedText::from_static("")
    }
}

impl PartialEq for SharedText {
    fn eq(&self, other: &SharedText) -> bool {
        **self == **other
    }
}

impl Eq for SharedText {}

impl std::ops::Deref for SharedText {
    type Target = str;

    fn deref(&self) -> &str {
        match &self.0 {
            Text::Shared(text) => text,
            Text::Static(text) => text,
        }
    }
}

impl From<String> for SharedText {
    fn from(text: String) -> Self {
        SharedText(Text::Shared(std::sync::Arc::new(text)))
    }
}

impl From<&str> for SharedText {
    fn from(text: &str) -> Self {
        SharedText::from(text.to_owned())
    }
}

/// A loaded chart.
#[derive(Clone, Debug)]
pub struct Chart {
    /// Where it came from, for messages (a folder, an archive, or `embedded`).
    pub origin: String,
    /// Validated Chart.yaml.
    pub metadata: ChartMetadata,
    /// Chart.yaml exactly as written.
    pub chart_yaml: String,
    /// Templates under `templates/`, sorted by path; names are relative to `templates/`.
    pub templates: Vec<ChartFile>,
    /// The default values file (`values.yaml` or `values/values.yaml`), if any. Read-only once
    /// loaded: [`Chart::default_values`] parses it once and keeps the result.
    pub default_values: Option<ChartFile>,
    /// Named overlays in `values/` other than the defaults (e.g. `values/values-ha.yaml`).
    pub value_overlays: Vec<ChartFile>,
    /// Every other file (README, LICENSE, `values.schema.json`, ...).
    pub other_files: Vec<ChartFile>,
    /// Files that are not text (a `logo.png`, `files/blob.bin`, a `charts/*.tgz`), by path,
    /// with their bytes: Helm loads any file, and only what it reads as text (templates,
    /// Chart.yaml, values, the schema) must be text. Templates reach them with `Files.GetBytes`.
    pub binary_files: Vec<(String, Vec<u8>)>,
    /// `default_values` parsed, the first time they are asked for.
    parsed_defaults: std::sync::OnceLock<Value>,
    /// Whether the templates are Go's, worked out the first time it is asked (a fleet asks
    /// for every cluster it renders with the chart).
    pub(crate) go_templates: std::sync::OnceLock<bool>,
    /// [`Chart::duplicate_default_key`], worked out once for the same reason.
    duplicate_key_warning: std::sync::OnceLock<Option<String>>,
}

/// Whether a chart declares the values key `path`: its default values (`defaults`) have it, or
/// its values schema (`schema`, `values.schema.json` parsed) lists it under `properties`,
/// walking both together (a key may be in either at each level). Release lines declare some
/// settings only in the schema, as upstream's values.yaml has them commented out.
pub fn declared_in(
    defaults: Option<&Value>,
    schema: Option<&serde_json::Value>,
    path: &[&str],
) -> bool {
    let Some((key, rest)) = path.split_first() else {
        return true;
    };
    let default = match defaults {
        Some(Value::Map(map)) => map.get(*key),
        _ => None,
    };
    let property = schema
        .and_then(|s| s.get("properties"))
        .and_then(|p| p.get(*key));
    (default.is_some() || property.is_some()) && declared_in(default, property, rest)
}

/// The schema file's name inside a chart (at its root): `lint` validates values against it, and
/// the identity material reads the keys it declares.
pub const SCHEMA_FILE: &str = "values.schema.json";

impl Chart {
    /// Reads a chart folder: every file `.helmignore` keeps, hidden files and folders skipped.
    pub fn from_dir(dir: &Utf8Path) -> Result<Chart, ChartError> {
        if !dir.is_dir() {
            // A device or a missing path: the door says which, by name.
            input::check_readable(dir, false)?;
        }
        let walked = walk_chart_dir(dir, Hidden::Skip)?;
        Chart::from_read_files(dir.as_str(), walked.files)
    }

    /// Builds a chart from the files read from a folder or an archive: the text ones under the
    /// input rules, the others kept as bytes (see [`Chart::binary_files`]).
    fn from_read_files(origin: &str, files: Vec<(String, Vec<u8>)>) -> Result<Chart, ChartError> {
        let (text, binary) = text_files(origin, files)?;
        let mut chart = Chart::from_files(origin, text)?;
        chart.binary_files = binary;
        Ok(chart)
    }

    /// Reads a chart archive (`.tgz`) in memory, refusing unsafe entries and oversized content;
    /// nothing is written to disk.
    pub fn from_archive(path: &Utf8Path) -> Result<Chart, ChartError> {
        let contents = read_archive_file(path.as_str())?;
        Chart::from_read_files(path.as_str(), contents.files)
    }

    /// Reads a chart folder or, when `path` is a file, a chart archive.
    pub fn load(path: &Utf8Path) -> Result<Chart, ChartError> {
        if path.is_file() {
            Chart::from_archive(path)
        } else {
            Chart::from_dir(path)
        }
    }

    /// Every file of the chart with its path relative to the chart root, sorted by path.
    pub fn all_files(&self) -> Vec<ChartFile> {
        let mut files = vec![ChartFile {
            path: "Chart.yaml".to_owned(),
            text: self.chart_yaml.clone().into(),
        }];
        files.extend(self.templates.iter().map(|t| ChartFile {
            path: format!("templates/{}", t.path),
            text: t.text.clone(),
        }));
        files.extend(self.default_values.iter().cloned());
        files.extend(self.value_overlays.iter().cloned());
        files.extend(self.other_files.iter().cloned());
        files.sort_by(|a, b| a.path.cmp(&b.path));
        files
    }

    /// Records that the templates are Jinja (`go: false`) or Go's (`go: true`), for a chart
    /// whose language its maker knows (the release lines compiled into the binary): otherwise
    /// the first render works it out by reading every template, a quarter of the instructions
    /// of a CRD chart's whole render. No effect once worked out or declared.
    pub fn declare_go_templates(&self, go: bool) {
        let _ = self.go_templates.set(go);
    }

    /// A chart of the given `(path, text)` files, for tests (Chart.yaml among them).
    #[cfg(test)]
    pub(crate) fn of_test_files(files: &[(&str, &str)]) -> Chart {
        let files = files
            .iter()
            .map(|(path, text)| ChartFile {
                path: (*path).to_owned(),
                text: (*text).into(),
            })
            .collect();
        Chart::from_files("test", files).expect("a valid chart")
    }

    /// Builds a chart from its files (paths relative to the chart root).
    pub fn from_files(origin: &str, mut files: Vec<ChartFile>) -> Result<Chart, ChartError> {
        if let Some(bad) = files.iter().find(|f| f.path.chars().any(char::is_control)) {
            return Err(ChartError::ControlCharacterInName {
                origin: origin.to_owned(),
                file: bad.path.clone(),
            });
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let chart_yaml = files
            .iter()
            .find(|f| f.path == "Chart.yaml")
            .ok_or_else(|| ChartError::MissingChartYaml {
                origin: origin.to_owned(),
            })?
            .text
            .to_string();
        let metadata = ChartMetadata::parse(origin, &chart_yaml)?;
        let has_root_values = files.iter().any(|f| f.path == "values.yaml");
        let mut chart = Chart {
            origin: origin.to_owned(),
            metadata,
            chart_yaml,
            templates: Vec::new(),
            default_values: None,
            value_overlays: Vec::new(),
            other_files: Vec::new(),
            binary_files: Vec::new(),
            parsed_defaults: std::sync::OnceLock::new(),
            go_templates: std::sync::OnceLock::new(),
            duplicate_key_warning: std::sync::OnceLock::new(),
        };
        for file in files {
            if file.path == "Chart.yaml" {
                continue;
            }
            if let Some(name) = file.path.strip_prefix("templates/") {
                chart.templates.push(ChartFile {
                    path: name.to_owned(),
                    text: file.text,
                });
            } else if file.path == "values.yaml"
                || (!has_root_values && file.path == "values/values.yaml")
            {
                chart.default_values = Some(file);
            } else if file.path.starts_with("values/")
                && (file.path.ends_with(".yaml") || file.path.ends_with(".yml"))
            {
                chart.value_overlays.push(file);
            } else {
                chart.other_files.push(file);
            }
        }
        Ok(chart)
    }

    /// The chart's subcharts, as Helm finds them: each folder under `charts/` that holds a
    /// `Chart.yaml`, and each archive `charts/*.tgz`, by path.
    pub fn subcharts(&self) -> Vec<String> {
        // Archives are usually binary files; Helm skips a name starting with `_` or `.`.
        let paths = self.other_files.iter().map(|f| f.path.as_str());
        let binary_paths = self.binary_files.iter().map(|(path, _)| path.as_str());
        let mut names: Vec<String> = paths
            .chain(binary_paths)
            .filter_map(|path| path.strip_prefix("charts/"))
            .filter(|rest| !rest.starts_with(['_', '.']))
            .filter_map(|rest| match rest.split_once('/') {
                Some((name, "Chart.yaml")) => Some(format!("charts/{name}")),
                None if rest.ends_with(".tgz") => Some(format!("charts/{rest}")),
                _ => None,
            })
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// Refuses a chart with subcharts by name: meshchart renders one chart, and Helm would
    /// render the subcharts too.
    pub fn refuse_subcharts(&self) -> Result<(), ChartError> {
        let names = self.subcharts();
        if names.is_empty() {
            return Ok(());
        }
        Err(ChartError::Subcharts {
            origin: self.origin.clone(),
            names,
        })
    }

    /// The chart's default values (an empty map when it has none), parsed once per chart.
    pub fn default_values(&self) -> Result<Value, ChartError> {
        self.default_values_read().cloned()
    }

    /// [`Chart::default_values`] without a copy: parsed on first use, then kept.
    pub fn default_values_read(&self) -> Result<&Value, ChartError> {
        if let Some(parsed) = self.parsed_defaults.get() {
            return Ok(parsed);
        }
        let parsed = match &self.default_values {
            None => Value::Map(Default::default()),
            // Read once, checking for repeated keys on the way; a file with one (or with an
            // error) is read again as any values file, and for the warning.
            Some(file) => match yaml::load::parse_document_if_keys_unique(&file.text) {
                Some(value) => {
                    let _ = self.duplicate_key_warning.set(None);
                    self.values_file_map(file, value)?
                }
                None => self.parse_values_file(file)?,
            },
        };
        Ok(self.parsed_defaults.get_or_init(|| parsed))
    }

    /// Parses a named overlay such as `values-ha.yaml` (looked up in `values/`).
    pub fn overlay(&self, name: &str) -> Option<&ChartFile> {
        self.value_overlays
            .iter()
            .find(|f| f.path == name || f.path.strip_prefix("values/") == Some(name))
    }

    /// The warning for a map key the chart's default values give twice, naming the file and
    /// both lines; `None` when every key is given once. The last value counts, as in Helm, which
    /// says nothing: a chart's user cannot fix its author's values file, so a render goes on,
    /// and `lint` makes it an error for the author.
    pub fn duplicate_default_key(&self) -> Option<String> {
        self.duplicate_key_warning
            .get_or_init(|| self.find_duplicate_default_key())
            .clone()
    }

    fn find_duplicate_default_key(&self) -> Option<String> {
        let file = self.default_values.as_ref()?;
        let found = yaml::load::first_duplicate_key_in(&file.text)?;
        let under = match found.map_path.is_empty() {
            true => String::new(),
            false => format!(" under {}", found.map_path.join(".")),
        };
        Some(format!(
            "{}:{}: the key {:?}{under} is given twice, on line {} and on line {}; the last \
             value counts, as in Helm",
            file.path, found.second_line, found.key, found.first_line, found.second_line
        ))
    }

    /// Parses one of the chart's values files into a map.
    pub fn parse_values_file(&self, file: &ChartFile) -> Result<Value, ChartError> {
        let value = yaml::parse_document(&file.text).map_err(|source| ChartError::Yaml {
            origin: self.origin.clone(),
            file: file.path.clone(),
            source,
        })?;
        self.values_file_map(file, value)
    }

    /// The map a values file holds, given its parsed `value`: an empty file is an empty map.
    fn values_file_map(&self, file: &ChartFile, value: Value) -> Result<Value, ChartError> {
        match value {
            Value::Null => Ok(Value::Map(Default::default())),
            Value::Map(_) => Ok(value),
            other => Err(ChartError::Yaml {
                origin: self.origin.clone(),
                file: file.path.clone(),
                source: YamlError {
                    position: Default::default(),
                    message: format!("the top level must be a map, found a {}", other.type_name()),
                },
            }),
        }
    }

    /// The file named `path` (relative to the chart root), wherever it is kept.
    pub fn file(&self, path: &str) -> Option<&ChartFile> {
        if let Some(name) = path.strip_prefix("templates/") {
            return self.templates.iter().find(|f| f.path == name);
        }
        self.default_values
            .iter()
            .chain(&self.value_overlays)
            .chain(&self.other_files)
            .find(|f| f.path == path)
    }
}

/// A file as read: its path relative to the chart root, and its bytes.
type RawFile = (String, Vec<u8>);

/// The chart's files as text, under the input rules (BOM dropped; NUL or non-UTF-8 refused
/// for the files meshchart reads as text: an error names the file), and the other files that
/// are not text, kept as bytes.
fn text_files(
    origin: &str,
    files: Vec<RawFile>,
) -> Result<(Vec<ChartFile>, Vec<RawFile>), ChartError> {
    let mut text = Vec::new();
    let mut binary = Vec::new();
    for (path, bytes) in files {
        let is_text = std::str::from_utf8(&bytes).is_ok_and(|t| !t.contains('\0'));
        if !is_text && !read_as_text(&path) {
            binary.push((path, bytes));
            continue;
        }
        let decoded = input::decode(&format!("{origin}/{path}"), bytes)?;
        text.push(ChartFile {
            path,
            text: decoded.into(),
        });
    }
    Ok((text, binary))
}

/// Whether the chart file `path` is one meshchart (like Helm) reads as text: templates,
/// Chart.yaml, values files and the values schema.
fn read_as_text(path: &str) -> bool {
    path.starts_with("templates/")
        || matches!(path, "Chart.yaml" | "values.yaml" | "values.schema.json")
        || (path.starts_with("values/") && (path.ends_with(".yaml") || path.ends_with(".yml")))
}
