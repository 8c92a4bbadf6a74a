//! `meshchart package`: a chart folder (or the embedded chart, or an archive) into a `.tgz` that
//! Helm reads, byte for byte the same on every run and every checkout; and reading such archives
//! back safely (`render --chart foo-1.2.3.tgz`).
//!
//! - [`archive`]: the tar/gzip writer with fixed headers and Helm's entry order.
//!
//! Reading (a chart folder after `.helmignore`, an archive without trusting it) goes through
//! the input door: [`crate::chart::walk_chart_dir`] and [`crate::input::archive`].
//!
//! `Chart.yaml` is copied byte for byte (Helm re-serialises it); `--version` and `--app-version`
//! rewrite only their own lines. A chart that keeps its defaults in `values/values.yaml` (ours)
//! gets them stored as `values.yaml`, where Helm looks; every other file keeps its path.

mod archive;

use crate::chart::{walk_chart_dir, Chart, ChartError, ChartMetadata, Hidden, Walked};
use crate::input::archive::read_archive_file;
use crate::yaml::load::resolve_plain;
use camino::{Utf8Path, Utf8PathBuf};

/// Why a package could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    /// The archive could not be written (see [`crate::output`]).
    #[error(transparent)]
    Output(#[from] crate::output::OutputError),
    /// The chart could not be read or its Chart.yaml is invalid.
    #[error(transparent)]
    Chart(#[from] ChartError),
    /// A `--version` or `--app-version` value is unusable.
    #[error("--{flag} {value:?}: {reason}")]
    InvalidFlag {
        /// The flag, without dashes.
        flag: &'static str,
        /// The value given.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A Chart.yaml field could not be rewritten in place.
    #[error("{origin}/Chart.yaml: cannot rewrite {field}: {reason}")]
    Rewrite {
        /// Where the chart came from.
        origin: String,
        /// The field.
        field: &'static str,
        /// Why.
        reason: String,
    },
    /// `SOURCE_DATE_EPOCH` is not a number.
    #[error("{0}")]
    Mtime(String),
    /// Writing the archive failed (nothing is left behind).
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: Utf8PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// What a package run may change.
#[derive(Clone, Debug, Default)]
pub struct PackageOptions {
    /// Replaces Chart.yaml's `version` (must be SemVer 2).
    pub version: Option<String>,
    /// Replaces Chart.yaml's `appVersion`.
    pub app_version: Option<String>,
    /// The entries' mtime (see [`archive::mtime_from_env`]).
    pub mtime: u64,
    /// Keep a chart folder's `golden/` cases in the archive (left out by default: they are the
    /// chart's tests, not something it installs).
    pub include_golden: bool,
}

impl PackageOptions {
    /// The `--version` and `--app-version` flags, with the mtime from `SOURCE_DATE_EPOCH`.
    pub fn from_env(
        version: Option<String>,
        app_version: Option<String>,
    ) -> Result<PackageOptions, PackageError> {
        Ok(PackageOptions {
            version,
            app_version,
            mtime: archive::mtime_from_env().map_err(PackageError::Mtime)?,
            include_golden: false,
        })
    }
}

/// A built archive, in memory.
#[derive(Clone, Debug)]
pub struct Package {
    /// The chart's name (the archive's top folder).
    pub name: String,
    /// The chart's version.
    pub version: String,
    /// `<name>-<version>.tgz`.
    pub file_name: String,
    /// The archive's bytes.
    pub bytes: Vec<u8>,
    /// Lowercase hex sha256 of `bytes`.
    pub sha256: String,
}

/// The folder of a chart's golden cases, which packages leave out unless asked.
pub const GOLDEN_DIR: &str = "golden/";

/// The annotation a packaged Chart.yaml carries to say its templates are meshchart's Jinja,
/// which Helm cannot render.
pub const TEMPLATE_LANGUAGE_ANNOTATION: &str = "meshchart.io/template-language";

/// Chart.yaml's text with `annotations.meshchart.io/template-language: jinja` added (nothing
/// else changed: the line goes first under an existing block `annotations:` map, or a new
/// `annotations:` block at the end); as it is when the annotation is already there.
pub fn with_template_language(chart_yaml: &str) -> Result<String, String> {
    let entry = format!("{TEMPLATE_LANGUAGE_ANNOTATION}: jinja");
    let lines: Vec<&str> = chart_yaml.split_inclusive('\n').collect();
    let newline = if chart_yaml.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let Some(at) = lines.iter().position(|l| {
        l.strip_prefix("annotations:")
            .is_some_and(|rest| rest.trim().is_empty() || rest.trim_start().starts_with('#'))
    }) else {
        if lines
            .iter()
            .any(|l| l.starts_with("annotations:") || l.starts_with("\"annotations\""))
        {
            return Err("its annotations are not a block map (flow style?)".to_owned());
        }
        let mut out = chart_yaml.to_owned();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push_str(newline);
        }
        out.push_str(&format!("annotations:{newline}  {entry}{newline}"));
        return Ok(out);
    };
    let block: Vec<&str> = lines[at + 1..]
        .iter()
        .copied()
        .take_while(|l| l.starts_with([' ', '\t']) || l.trim().is_empty())
        .collect();
    if block
        .iter()
        .any(|l| l.trim_start().starts_with(TEMPLATE_LANGUAGE_ANNOTATION))
    {
        return Ok(chart_yaml.to_owned());
    }
    let indent: String = block
        .iter()
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|l| l.chars().take_while(|c| *c == ' ').collect())
        .unwrap_or_else(|| "  ".to_owned());
    let mut out: String = lines[..=at].concat();
    if !out.ends_with('\n') {
        out.push_str(newline);
    }
    out.push_str(&format!("{indent}{entry}{newline}"));
    out.push_str(&lines[at + 1..].concat());
    Ok(out)
}

/// A chart's files to package: path relative to the chart root, and content.
pub type PackageFiles = Vec<(String, Vec<u8>)>;

/// A chart folder's files as Helm packages them: `.helmignore` applied, hidden files kept.
pub fn files_from_dir(dir: &Utf8Path) -> Result<Walked, ChartError> {
    walk_chart_dir(dir, Hidden::Keep)
}

/// A loaded chart's files (the embedded chart, or one read from an archive).
pub fn files_from_chart(chart: &Chart) -> PackageFiles {
    let mut files: PackageFiles = chart
        .all_files()
        .into_iter()
        .map(|f| (f.path, f.text.as_bytes().to_vec()))
        .chain(chart.binary_files.iter().cloned())
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

/// What `package` packages.
#[derive(Clone, Copy, Debug)]
pub enum PackageSource<'a> {
    /// A chart already read (from files in memory), packaged from its files.
    Chart(&'a Chart),
    /// A chart folder, read as Helm would (`.helmignore` applied).
    Dir(&'a Utf8Path),
    /// A chart archive, repackaged from its content (to change its version).
    Archive(&'a Utf8Path),
}

/// Packages the chart `source` names. Returns the package and notes for stderr.
pub fn package_source(
    source: PackageSource<'_>,
    options: &PackageOptions,
) -> Result<(Package, Vec<String>), PackageError> {
    let (origin, files, notes) = match source {
        PackageSource::Chart(chart) => (chart.origin.clone(), files_from_chart(chart), Vec::new()),
        PackageSource::Dir(dir) => {
            let walked = files_from_dir(dir)?;
            let mut notes = walked.notes;
            let mut files = walked.files;
            if !options.include_golden {
                let before = files.len();
                files.retain(|(path, _)| !path.starts_with(GOLDEN_DIR));
                let left_out = before - files.len();
                if left_out > 0 {
                    notes.push(format!(
                        "note: left out {GOLDEN_DIR} ({left_out} file(s)): golden cases test the \
                         chart, they are not part of it (--include-golden keeps them)"
                    ));
                }
            }
            (dir.to_string(), files, notes)
        }
        PackageSource::Archive(path) => {
            let contents = read_archive_file(path.as_str()).map_err(ChartError::from)?;
            (path.to_string(), contents.files, Vec::new())
        }
    };
    Ok((build_package(&origin, files, options)?, notes))
}

/// Builds the archive of `files` in memory; `origin` names the chart in errors.
pub fn build_package(
    origin: &str,
    mut files: PackageFiles,
    options: &PackageOptions,
) -> Result<Package, PackageError> {
    let index = files
        .iter()
        .position(|(p, _)| p == "Chart.yaml")
        .ok_or_else(|| ChartError::MissingChartYaml {
            origin: origin.to_owned(),
        })?;
    let mut chart_yaml =
        crate::input::decode(&format!("{origin}/Chart.yaml"), files[index].1.clone())
            .map_err(ChartError::from)?;
    if let Some(version) = &options.version {
        if let Err(e) = semver::Version::parse(version) {
            return Err(PackageError::InvalidFlag {
                flag: "version",
                value: version.clone(),
                reason: format!("not a SemVer 2 version ({e})"),
            });
        }
        chart_yaml = rewrite_field(&chart_yaml, "version", version).map_err(|reason| {
            PackageError::Rewrite {
                origin: origin.to_owned(),
                field: "version",
                reason,
            }
        })?;
    }
    if let Some(app_version) = &options.app_version {
        if app_version.is_empty() || app_version.chars().any(char::is_control) {
            return Err(PackageError::InvalidFlag {
                flag: "app-version",
                value: app_version.clone(),
                reason: "must be a non-empty single-line string".to_owned(),
            });
        }
        chart_yaml = rewrite_field(&chart_yaml, "appVersion", app_version).map_err(|reason| {
            PackageError::Rewrite {
                origin: origin.to_owned(),
                field: "appVersion",
                reason,
            }
        })?;
    }
    chart_yaml = with_template_language(&chart_yaml).map_err(|reason| PackageError::Rewrite {
        origin: origin.to_owned(),
        field: "annotations",
        reason,
    })?;
    let metadata = ChartMetadata::parse(origin, &chart_yaml)?;
    let marked = metadata
        .fields
        .get("annotations")
        .and_then(|a| a.get_path(&[TEMPLATE_LANGUAGE_ANNOTATION]))
        .and_then(|v| v.as_str())
        == Some("jinja");
    if !marked {
        return Err(PackageError::Rewrite {
            origin: origin.to_owned(),
            field: "annotations",
            reason: format!("{TEMPLATE_LANGUAGE_ANNOTATION} could not be set to jinja"),
        });
    }
    let version = metadata.version.to_string();
    for (flag, wanted, got) in [
        ("version", &options.version, Some(&version)),
        (
            "appVersion",
            &options.app_version,
            metadata.app_version.as_ref(),
        ),
    ] {
        if let Some(wanted) = wanted {
            if Some(wanted) != got {
                return Err(PackageError::Rewrite {
                    origin: origin.to_owned(),
                    field: if flag == "version" {
                        "version"
                    } else {
                        "appVersion"
                    },
                    reason: "the field is not on a line of its own (flow style?)".to_owned(),
                });
            }
        }
    }
    files[index].1 = chart_yaml.into_bytes();
    let has_root_values = files.iter().any(|(p, _)| p == "values.yaml");
    if !has_root_values {
        if let Some(entry) = files.iter_mut().find(|(p, _)| p == "values/values.yaml") {
            entry.0 = "values.yaml".to_owned();
        }
    }
    let bytes = archive::write_archive(&metadata.name, &files, options.mtime, Vec::new()).map_err(
        |source| PackageError::Io {
            path: Utf8PathBuf::from(origin),
            source,
        },
    )?;
    let sha256 = crate::digest::hex(&crate::digest::sha256(&bytes));
    Ok(Package {
        file_name: format!("{}-{version}.tgz", metadata.name),
        name: metadata.name,
        version,
        bytes,
        sha256,
    })
}

/// What `meshchart package` prints for the archive at `path`: `sha256sum`'s format, so
/// `sha256sum -c` can check it.
pub fn sha256sum_line(package: &Package, path: &Utf8Path) -> String {
    format!("{}  {path}\n", package.sha256)
}

/// Writes `package` into `out_dir` (created if needed) through a temporary file renamed into
/// place, so a failure leaves no partial archive. Returns the archive's path.
pub fn write_package(package: &Package, out_dir: &Utf8Path) -> Result<Utf8PathBuf, PackageError> {
    let io = |path: &Utf8Path| {
        let path = path.to_owned();
        move |source| PackageError::Io { path, source }
    };
    std::fs::create_dir_all(out_dir).map_err(io(out_dir))?;
    let target = out_dir.join(&package.file_name);
    crate::output::write_file(&target, &package.bytes)?;
    Ok(target)
}

/// Replaces the top-level `field:` line of Chart.yaml text (and any continuation lines of its old
/// value) with `field: value`, keeping a trailing comment and every other byte. Adds the field
/// at the end when it is missing.
pub fn rewrite_field(text: &str, field: &str, value: &str) -> Result<String, String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let prefix = format!("{field}:");
    let found = lines.iter().position(|l| {
        l.strip_prefix(&prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '\r', '\n']))
    });
    let Some(index) = found else {
        let mut out = text.to_owned();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!("{field}: {}\n", scalar(value, false)));
        return Ok(out);
    };
    let line = lines[index];
    let ending = if line.ends_with("\r\n") {
        "\r\n"
    } else if line.ends_with('\n') {
        "\n"
    } else {
        ""
    };
    let old = line[prefix.len()..].trim_end_matches(['\r', '\n']);
    let (old_value, comment) = split_comment(old);
    let old_value = old_value.trim();
    if old_value.starts_with(['&', '*', '!', '[', '{']) {
        return Err(format!(
            "its value {old_value:?} is not a plain or quoted scalar"
        ));
    }
    let quoted = old_value.starts_with(['"', '\'']);
    // Drop the old value's continuation lines (block scalars, folded plain text).
    let mut end = index + 1;
    let mut look = end;
    while look < lines.len() {
        let l = lines[look];
        if l.trim().is_empty() {
            look += 1;
            continue;
        }
        if l.starts_with([' ', '\t']) {
            look += 1;
            end = look;
            continue;
        }
        break;
    }
    let mut out = String::with_capacity(text.len() + value.len());
    out.extend(lines[..index].iter().copied());
    out.push_str(&format!(
        "{field}: {}{comment}{ending}",
        scalar(value, quoted)
    ));
    out.extend(lines[end..].iter().copied());
    Ok(out)
}

/// `value` as a YAML scalar that reads back as that string: plain when that is safe and the old
/// value was plain, double-quoted otherwise.
fn scalar(value: &str, quote: bool) -> String {
    let plain_is_string =
        matches!(resolve_plain(value), Ok(crate::values::Value::String(ref s)) if s == value);
    let plain_is_safe = plain_is_string
        && !value.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@` ".contains(c))
        && !value.contains(": ")
        && !value.contains(" #")
        && !value.ends_with([' ', ':']);
    if quote || !plain_is_safe {
        serde_json::to_string(value).unwrap_or_else(|_| format!("{value:?}"))
    } else {
        value.to_owned()
    }
}

/// Splits `value # comment` into the value and the comment (with its leading spaces).
fn split_comment(text: &str) -> (&str, &str) {
    let trimmed = text.trim_start();
    let lead = text.len() - trimmed.len();
    let value_end = match trimmed.chars().next() {
        Some(q @ ('"' | '\'')) => {
            let mut escaped = false;
            let mut end = None;
            for (i, c) in trimmed.char_indices().skip(1) {
                if q == '"' && c == '\\' && !escaped {
                    escaped = true;
                    continue;
                }
                if c == q && !escaped {
                    end = Some(i + 1);
                    break;
                }
                escaped = false;
            }
            end.unwrap_or(trimmed.len())
        }
        _ => trimmed.find(" #").unwrap_or(trimmed.len()),
    };
    let cut = lead + value_end;
    let rest = &text[cut..];
    if rest.trim_start().starts_with('#') {
        (&text[..cut], rest)
    } else {
        (&text[..cut], "")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHART: &str = "# top comment\napiVersion: v2\nname: demo\nversion: 0.1.0 # bumped by CI\nappVersion: \"1.0\"\ndescription: |\n  two\n  lines\n";

    #[test]
    fn rewriting_the_version_changes_only_its_line() {
        let out = rewrite_field(CHART, "version", "1.2.3").unwrap();
        assert_eq!(out, CHART.replace("version: 0.1.0 #", "version: 1.2.3 #"));
    }

    #[test]
    fn rewriting_a_quoted_value_keeps_it_quoted() {
        let out = rewrite_field(CHART, "appVersion", "2.10").unwrap();
        assert_eq!(
            out,
            CHART.replace("appVersion: \"1.0\"", "appVersion: \"2.10\"")
        );
    }

    #[test]
    fn a_plain_value_that_would_read_as_a_number_is_quoted() {
        let out = rewrite_field("appVersion: x\n", "appVersion", "2.10").unwrap();
        assert_eq!(out, "appVersion: \"2.10\"\n");
        let out = rewrite_field("appVersion: x\n", "appVersion", "stable-2.10.2").unwrap();
        assert_eq!(out, "appVersion: stable-2.10.2\n");
    }

    #[test]
    fn a_block_value_is_replaced_with_its_continuation_lines() {
        let out = rewrite_field(CHART, "description", "one").unwrap();
        assert!(
            out.ends_with("appVersion: \"1.0\"\ndescription: one\n"),
            "{out}"
        );
    }

    #[test]
    fn a_missing_field_is_appended() {
        let out = rewrite_field("name: x", "appVersion", "1.0.0").unwrap();
        assert_eq!(out, "name: x\nappVersion: 1.0.0\n");
    }

    #[test]
    fn an_invalid_version_flag_is_named() {
        let files = vec![("Chart.yaml".to_owned(), CHART.as_bytes().to_vec())];
        let options = PackageOptions {
            version: Some("1.0".into()),
            ..Default::default()
        };
        let e = build_package("demo", files, &options)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--version \"1.0\": not a SemVer 2 version"),
            "{e}"
        );
    }

    #[test]
    fn an_invalid_chart_yaml_field_is_named() {
        let files = vec![(
            "Chart.yaml".to_owned(),
            b"apiVersion: v2\nname: demo\nversion: banana\n".to_vec(),
        )];
        let e = build_package("demo", files, &PackageOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("Chart.yaml: version"), "{e}");
    }

    #[test]
    fn the_defaults_in_values_folder_are_stored_as_values_yaml() {
        let files = vec![
            ("Chart.yaml".to_owned(), CHART.as_bytes().to_vec()),
            ("values/values.yaml".to_owned(), b"a: 1\n".to_vec()),
            ("values/values-ha.yaml".to_owned(), b"a: 2\n".to_vec()),
        ];
        let package = build_package("demo", files, &PackageOptions::default()).unwrap();
        let contents =
            crate::input::archive::read_archive(package.bytes.as_slice(), "demo.tgz").unwrap();
        let paths: Vec<&str> = contents.files.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            paths,
            ["Chart.yaml", "values.yaml", "values/values-ha.yaml"]
        );
        assert_eq!(contents.top, "demo");
        assert_eq!(package.file_name, "demo-0.1.0.tgz");
    }
}
