//! Golden-file cases: a folder of inputs and the exact output they must produce.
//!
//! A case is a folder holding an optional `args` file (one CLI argument per line, `#` comments;
//! relative paths resolve against the case folder) and either `expected.yaml` (the exact render
//! output) or `expected-error.txt` (the exact error message), plus `expected-warnings.txt` (the
//! `warning:` lines the render prints on stderr) when it warns. `update` rewrites the expectations.

pub mod args;
pub mod inject;

use crate::chart::Chart;
use crate::engine::Engine;
use crate::error::Error;
use crate::render::{render_with, Clock, RenderRequest};
use camino::{Utf8Path, Utf8PathBuf};

/// File holding a case's arguments.
pub const ARGS_FILE: &str = "args";
/// File holding the expected output.
pub const EXPECTED_OUTPUT: &str = "expected.yaml";
/// File holding the expected error message.
pub const EXPECTED_ERROR: &str = "expected-error.txt";
/// File holding the `warning:` lines a case prints on stderr (absent when it prints none).
pub const EXPECTED_WARNINGS: &str = "expected-warnings.txt";

/// One golden case.
#[derive(Clone, Debug)]
pub struct GoldenCase {
    /// The folder's name.
    pub name: String,
    /// The folder.
    pub dir: Utf8PathBuf,
    /// Its parsed arguments, paths resolved.
    pub request: RenderRequest,
}

/// How a case ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CaseOutcome {
    /// Output matched.
    Passed,
    /// Expectation rewritten (update mode) because it differed or was missing.
    Updated,
    /// Output differed: a unified diff from expected to actual.
    Failed(String),
}

/// A case's name and outcome.
#[derive(Clone, Debug)]
pub struct CaseReport {
    /// The case.
    pub name: String,
    /// What happened.
    pub outcome: CaseOutcome,
}

/// Finds the cases under `cases_dir` (each subfolder with an `args` file or an expectation).
pub fn discover(cases_dir: &Utf8Path) -> Result<Vec<GoldenCase>, Error> {
    let entries = cases_dir.read_dir_utf8().map_err(Error::io(cases_dir))?;
    let mut cases = Vec::new();
    for entry in entries {
        let entry = entry.map_err(Error::io(cases_dir))?;
        let dir = entry.path().to_owned();
        let is_case = [ARGS_FILE, EXPECTED_OUTPUT, EXPECTED_ERROR]
            .iter()
            .any(|f| dir.join(f).is_file());
        if !dir.is_dir() || !is_case {
            continue;
        }
        cases.push(load_case(&dir)?);
    }
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(cases)
}

/// The arguments in the text of an `args` file: one per line, trailing blanks trimmed, blank
/// lines and `#` comments left out.
pub fn args_file_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
}

/// Parses the text of a case's `args` file (`args_path`, named in errors) with `parse` (one of
/// [`args`]'s readers), one argument per line (see [`args_file_lines`]).
pub fn parse_args_file<'a, T>(
    args_path: &Utf8Path,
    text: &'a str,
    parse: impl FnOnce(Vec<&'a str>) -> Result<T, String>,
) -> Result<T, Error> {
    parse(args_file_lines(text).collect())
        .map_err(|e| Error::Usage(format!("{args_path}: error: {e}")))
}

/// A unified diff from the `expected` text of `expected_file` to `actual`.
pub fn expectation_diff(expected_file: &Utf8Path, expected: &str, actual: &str) -> String {
    similar::TextDiff::from_lines(expected, actual)
        .unified_diff()
        .context_radius(3)
        .header(expected_file.as_str(), "actual")
        .to_string()
}

/// An expectation file's text (`None` when it does not exist), through the input door.
pub fn read_expectation(path: &Utf8Path) -> Result<Option<String>, Error> {
    match crate::input::read_path(path) {
        Ok(input) => Ok(Some(input.text)),
        Err(crate::input::InputError::NotFound { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Writes an expectation file through a temporary file renamed into place: a symbolic link
/// standing there is replaced, never written through (it could point outside the cases).
pub fn write_expectation(path: &Utf8Path, text: &str) -> Result<(), Error> {
    Ok(crate::output::write_file(path, text.as_bytes())?)
}

/// Reads one case folder.
pub fn load_case(dir: &Utf8Path) -> Result<GoldenCase, Error> {
    let args_path = dir.join(ARGS_FILE);
    let text = if args_path.is_file() {
        crate::input::read_path(&args_path)?.text
    } else {
        String::new()
    };
    let mut request = parse_args_file(&args_path, &text, args::render_request)?;
    request.resolve_paths(dir);
    Ok(GoldenCase {
        name: dir.file_name().unwrap_or_default().to_owned(),
        dir: dir.to_owned(),
        request,
    })
}

/// The instant golden cases render at (2023-11-14T22:13:20Z), so schedules and expiries are fixed.
pub const GOLDEN_EPOCH: u64 = 1_700_000_000;

/// What a case produces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Produced {
    /// Whether the render succeeded.
    pub ok: bool,
    /// The stream, or the error text.
    pub text: String,
    /// The `warning:` lines of stderr, each ending in a newline.
    pub warnings: String,
}

/// What a case produces: the stream or the error text, and the warnings. A case's
/// `--certs-dir` is only read unless `update` (a check writes nothing: material the folder
/// lacks is the case's error).
pub fn produce(engine: &Engine, chart: &Chart, case: &GoldenCase, update: bool) -> Produced {
    let clock = Clock::Fixed(std::time::UNIX_EPOCH + std::time::Duration::from_secs(GOLDEN_EPOCH));
    let request = crate::render::RenderRequest {
        certs_dir_read_only: !update,
        ..case.request.clone()
    };
    match render_with(engine, chart, &request, &mut std::io::empty(), clock) {
        Ok(outcome) => Produced {
            ok: true,
            text: outcome.rendered.to_stream(),
            warnings: outcome
                .notes
                .iter()
                .filter(|note| note.starts_with("warning:"))
                .map(|note| format!("{note}\n"))
                .collect(),
        },
        Err(e) => Produced {
            ok: false,
            text: format!("{e}\n"),
            warnings: String::new(),
        },
    }
}

/// Checks one expectation file against what a case produced (`None`: the file must not exist);
/// in update mode, rewrites or removes it instead.
fn check_expectation(
    file: &Utf8Path,
    actual: Option<&str>,
    update: bool,
) -> Result<CaseOutcome, Error> {
    let expected = read_expectation(file)?;
    if expected.as_deref() == actual {
        return Ok(CaseOutcome::Passed);
    }
    if update {
        match actual {
            Some(text) => write_expectation(file, text)?,
            None => std::fs::remove_file(file).map_err(Error::io(file))?,
        }
        return Ok(CaseOutcome::Updated);
    }
    Ok(CaseOutcome::Failed(match actual {
        Some(text) => expectation_diff(file, &expected.unwrap_or_default(), text),
        None => format!("{file} exists but the case does not produce it\n"),
    }))
}

/// Checks every expectation file of a case folder, named with what the case produced for it
/// (`None`: the file must not exist), into one outcome: failed if any differs (all diffs, in
/// order), updated if any was rewritten, else passed.
pub(crate) fn check_expectations(
    dir: &Utf8Path,
    expectations: &[(&str, Option<&str>)],
    update: bool,
) -> Result<CaseOutcome, Error> {
    let mut outcome = CaseOutcome::Passed;
    for (name, actual) in expectations {
        match (
            check_expectation(&dir.join(name), *actual, update)?,
            &mut outcome,
        ) {
            (CaseOutcome::Failed(diff), CaseOutcome::Failed(all)) => all.push_str(&diff),
            (failed @ CaseOutcome::Failed(_), _) => outcome = failed,
            (CaseOutcome::Updated, CaseOutcome::Passed) => outcome = CaseOutcome::Updated,
            _ => {}
        }
    }
    Ok(outcome)
}

/// Runs (or, with `update`, rewrites) every case under `cases_dir` against `chart`.
pub fn run(chart: &Chart, cases_dir: &Utf8Path, update: bool) -> Result<Vec<CaseReport>, Error> {
    let engine = Engine::new(chart)?;
    let mut reports = Vec::new();
    for case in discover(cases_dir)? {
        let produced = produce(&engine, chart, &case, update);
        let (output, error) = if produced.ok {
            (Some(produced.text.as_str()), None)
        } else {
            (None, Some(produced.text.as_str()))
        };
        let warnings = Some(produced.warnings.as_str()).filter(|w| !w.is_empty());
        let outcome = check_expectations(
            &case.dir,
            &[
                (EXPECTED_OUTPUT, output),
                (EXPECTED_ERROR, error),
                (EXPECTED_WARNINGS, warnings),
            ],
            update,
        )?;
        reports.push(CaseReport {
            name: case.name,
            outcome,
        });
    }
    Ok(reports)
}

/// Where `meshchart golden` looks for cases without `--cases`: `<chart>/golden`, or for an
/// embedded line's control plane this repository's cases of that `release`.
pub fn default_cases_dir(chart: Option<&Utf8Path>, release: &str) -> Utf8PathBuf {
    match chart {
        Some(dir) => dir.join("golden"),
        None => Utf8PathBuf::from(format!("tests/golden/control-plane-{release}")),
    }
}

/// What `meshchart golden` prints: a line per case (`ok`, `updated`, or `FAILED` and its diff),
/// then the counts.
pub fn summary(reports: &[CaseReport]) -> String {
    let mut text = String::new();
    for report in reports {
        match &report.outcome {
            CaseOutcome::Passed => text.push_str(&format!("ok      {}\n", report.name)),
            CaseOutcome::Updated => text.push_str(&format!("updated {}\n", report.name)),
            CaseOutcome::Failed(diff) => {
                text.push_str(&format!("FAILED  {}\n{diff}\n", report.name));
            }
        }
    }
    let failed = failed_count(reports);
    text.push_str(&format!(
        "{} passed, {failed} failed\n",
        reports.len() - failed
    ));
    text
}

/// How many cases failed.
pub fn failed_count(reports: &[CaseReport]) -> usize {
    reports
        .iter()
        .filter(|r| matches!(r.outcome, CaseOutcome::Failed(_)))
        .count()
}

/// Whether `UPDATE_GOLDEN` asks tests to rewrite golden files.
pub fn update_requested() -> bool {
    std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| !v.is_empty() && v != "0")
}
