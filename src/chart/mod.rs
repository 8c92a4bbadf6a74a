//! Charts: a `Chart.yaml`, templates and default values, read from a folder, the binary or an archive.

mod metadata;

pub use metadata::ChartMetadata;

use crate::values::Value;
use crate::yaml::{self, YamlError};
use camino::{Utf8Path, Utf8PathBuf};

/// Most files a chart may hold; a guard against runaway folders and archives.
pub const MAX_CHART_FILES: usize = 10_000;
/// Most bytes a chart may hold in all.
pub const MAX_CHART_BYTES: u64 = 64 * 1024 * 1024;

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
    /// A file is not valid UTF-8 text.
    #[error("{origin}/{file}: not UTF-8 text")]
    NotText {
        /// Where the chart came from.
        origin: String,
        /// The file inside the chart.
        file: String,
    },
    /// The chart is larger than we agree to read.
    #[error("{origin}: the chart is larger than the limit ({what})")]
    TooLarge {
        /// Where the chart came from.
        origin: String,
        /// Which limit.
        what: String,
    },
}

/// One file of a chart, by its path relative to the chart root (always `/`-separated).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChartFile {
    /// Path relative to the chart root, e.g. `templates/identity.yaml`.
    pub path: String,
    /// The file's text.
    pub text: String,
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
    /// The default values file (`values.yaml` or `values/values.yaml`), if any.
    pub default_values: Option<ChartFile>,
    /// Named overlays in `values/` other than the defaults (e.g. `values/values-ha.yaml`).
    pub value_overlays: Vec<ChartFile>,
    /// Every other file (README, LICENSE, `values.schema.json`, ...).
    pub other_files: Vec<ChartFile>,
}

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded_chart.rs"));
}

impl Chart {
    /// The control-plane chart compiled into this binary.
    pub fn embedded() -> Result<Chart, ChartError> {
        let files = embedded::FILES.iter().map(|(path, text)| ChartFile {
            path: (*path).to_owned(),
            text: (*text).to_owned(),
        });
        Chart::from_files("embedded chart", files.collect())
    }

    /// Reads a chart folder (recursively; hidden files and folders are skipped).
    pub fn from_dir(dir: &Utf8Path) -> Result<Chart, ChartError> {
        let mut files = Vec::new();
        let mut total: u64 = 0;
        collect_dir(dir, dir, &mut files, &mut total)?;
        Chart::from_files(dir.as_str(), files)
    }

    /// Builds a chart from its files (paths relative to the chart root).
    pub fn from_files(origin: &str, mut files: Vec<ChartFile>) -> Result<Chart, ChartError> {
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let chart_yaml = files
            .iter()
            .find(|f| f.path == "Chart.yaml")
            .ok_or_else(|| ChartError::MissingChartYaml {
                origin: origin.to_owned(),
            })?
            .text
            .clone();
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

    /// Parses the chart's default values (an empty map when it has none).
    pub fn default_values(&self) -> Result<Value, ChartError> {
        match &self.default_values {
            None => Ok(Value::Map(Default::default())),
            Some(file) => self.parse_values_file(file),
        }
    }

    /// Parses a named overlay such as `values-ha.yaml` (looked up in `values/`).
    pub fn overlay(&self, name: &str) -> Option<&ChartFile> {
        self.value_overlays
            .iter()
            .find(|f| f.path == name || f.path.strip_prefix("values/") == Some(name))
    }

    /// Parses one of the chart's values files into a map.
    pub fn parse_values_file(&self, file: &ChartFile) -> Result<Value, ChartError> {
        let value = yaml::parse_document(&file.text).map_err(|source| ChartError::Yaml {
            origin: self.origin.clone(),
            file: file.path.clone(),
            source,
        })?;
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

fn collect_dir(
    root: &Utf8Path,
    dir: &Utf8Path,
    files: &mut Vec<ChartFile>,
    total: &mut u64,
) -> Result<(), ChartError> {
    let io = |path: &Utf8Path| {
        let path = path.to_owned();
        move |source| ChartError::Io { path, source }
    };
    let entries = dir.read_dir_utf8().map_err(io(dir))?;
    let mut entries: Vec<_> = entries.collect::<Result<_, _>>().map_err(io(dir))?;
    entries.sort_by(|a, b| a.file_name().cmp(b.file_name()));
    for entry in entries {
        if entry.file_name().starts_with('.') || entry.file_name() == "target" {
            continue;
        }
        let path = entry.path();
        let file_type = entry.file_type().map_err(io(path))?;
        if file_type.is_dir() {
            collect_dir(root, path, files, total)?;
            continue;
        }
        let bytes = std::fs::read(path).map_err(io(path))?;
        *total += bytes.len() as u64;
        if files.len() >= MAX_CHART_FILES || *total > MAX_CHART_BYTES {
            return Err(ChartError::TooLarge {
                origin: root.to_string(),
                what: format!("{MAX_CHART_FILES} files or {MAX_CHART_BYTES} bytes"),
            });
        }
        let relative = path
            .strip_prefix(root)
            .unwrap_or(path)
            .as_str()
            .replace('\\', "/");
        let text = String::from_utf8(bytes).map_err(|_| ChartError::NotText {
            origin: root.to_string(),
            file: relative.clone(),
        })?;
        files.push(ChartFile {
            path: relative,
            text,
        });
    }
    Ok(())
}
