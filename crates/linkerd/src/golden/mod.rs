//! Golden-file cases: a folder of inputs and the exact output they must produce.
//!
//! A case is a folder holding an optional `args` file (the command's arguments, split as a shell
//! splits them, see [`args_file_arguments`]; relative paths resolve against the case folder) and
//! either `expected.yaml` (the exact render output) or `expected-error.txt` (the exact error
//! message), plus `expected-warnings.txt` (the `warning:` lines the render prints on stderr)
//! when it warns. `update` rewrites the expectations.
//!
//! A run cannot pass by accident: a folder with no case is an error; an update that would turn
//! an output case into an error case (or back) is refused, by name, unless accepted
//! ([`GoldenOptions::accept_errors`]); a failing case names each resource that differs and the
//! command that updates it.

pub(crate) mod args;
pub mod inject;

pub use args::{CaseArgs, CaseChart, InjectCaseCommand};

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
    /// The chart its `args` name (a folder or archive resolved against the case folder, or an
    /// embedded line); `None`: the chart the run was given.
    pub chart: Option<crate::chart_source::ChartSource>,
}

/// How a case ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CaseOutcome {
    /// Output matched.
    Passed,
    /// Expectation rewritten (update mode) because it differed or was missing.
    Updated,
    /// Rewritten from an output case into an error case or back, as accepted: what it is now.
    Retyped(String),
    /// Output differed: a unified diff from expected to actual.
    Failed(String),
    /// Not rewritten: the update would have turned an output case into an error case or back
    /// without being accepted; why.
    Refused(String),
}

/// How `meshchart golden` runs its cases.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoldenOptions {
    /// Rewrite each case's expectations instead of comparing.
    pub update: bool,
    /// With `update`, let a case turn from an output case into an error case or back.
    pub accept_errors: bool,
    /// Run only these cases (by folder name); all when empty.
    pub only: Vec<String>,
}

/// A case's name and outcome.
#[derive(Clone, Debug)]
pub struct CaseReport {
    /// The case.
    pub name: String,
    /// What happened.
    pub outcome: CaseOutcome,
}

/// Finds the cases under `cases_dir` (each subfolder with an `args` file or an expectation),
/// their `args` read by `reader`; a visible subfolder with none of them is the error.
pub fn discover(cases_dir: &Utf8Path, reader: &dyn CaseArgs) -> Result<Vec<GoldenCase>, Error> {
    let entries = cases_dir.read_dir_utf8().map_err(Error::io(cases_dir))?;
    let mut cases = Vec::new();
    for entry in entries {
        let entry = entry.map_err(Error::io(cases_dir))?;
        let dir = entry.path().to_owned();
        let is_case = [ARGS_FILE, EXPECTED_OUTPUT, EXPECTED_ERROR]
            .iter()
            .any(|f| dir.join(f).is_file());
        let hidden = entry.file_name().starts_with('.');
        if !dir.is_dir() || hidden {
            continue;
        }
        if !is_case {
            // A case folder left empty would otherwise be skipped, and the run pass without it.
            return Err(Error::Usage(format!(
                "golden case {dir} holds none of {ARGS_FILE}, {EXPECTED_OUTPUT} or \
                 {EXPECTED_ERROR}: give it an {ARGS_FILE} file (an empty one renders the chart's \
                 defaults) and record its output with --update, or remove the folder"
            )));
        }
        cases.push(load_case(&dir, reader)?);
    }
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(cases)
}

/// The arguments in the text of an `args` file, split as a POSIX shell splits a command line,
/// with nothing expanded: blanks and line ends separate words; `'...'` keeps everything inside;
/// `"..."` keeps everything but `\"`, `\\`, `\$` and `` \` ``, which lose their backslash; a
/// backslash outside quotes keeps the next character (at a line's end, joins the lines); a word
/// starting with `#` begins a comment to the end of its line. So `--set image.tag=9.9` is two
/// arguments, and `--set 'schedule=1 2 * * *'` keeps its spaces. The error names the line of
/// an unclosed quote.
pub fn args_file_arguments(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = text.chars().peekable();
    let mut line = 1;
    while let Some(c) = chars.next() {
        match c {
            '\n' => {
                line += 1;
                words.extend(word.take());
            }
            ' ' | '\t' | '\r' => words.extend(word.take()),
            '#' if word.is_none() => {
                while chars.peek().is_some_and(|c| *c != '\n') {
                    chars.next();
                }
            }
            '\'' => {
                let start = line;
                let current = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => {
                            line += usize::from(c == '\n');
                            current.push(c);
                        }
                        None => return Err(format!("line {start}: a ' quote is not closed")),
                    }
                }
            }
            '"' => {
                let start = line;
                let current = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => current.push(c),
                            Some('\n') => line += 1,
                            Some(c) => {
                                current.push('\\');
                                current.push(c);
                            }
                            None => return Err(format!("line {start}: a \" quote is not closed")),
                        },
                        Some(c) => {
                            line += usize::from(c == '\n');
                            current.push(c);
                        }
                        None => return Err(format!("line {start}: a \" quote is not closed")),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') => line += 1,
                Some(c) => word.get_or_insert_with(String::new).push(c),
                None => word.get_or_insert_with(String::new).push('\\'),
            },
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Ok(words)
}

/// Parses the text of a case's `args` file (`args_path`, named in errors) with `parse` (one of
/// a [`CaseArgs`]'s readers), split into arguments by [`args_file_arguments`].
pub fn parse_args_file<T>(
    args_path: &Utf8Path,
    text: &str,
    parse: impl FnOnce(&[&str]) -> Result<T, String>,
) -> Result<T, Error> {
    let words =
        args_file_arguments(text).map_err(|e| Error::Usage(format!("{args_path}: error: {e}")))?;
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    parse(&words).map_err(|e| Error::Usage(format!("{args_path}: error: {e}")))
}

/// A unified diff from the `expected` text of `expected_file` to `actual`, with Secret data and
/// private keys masked on both sides as `meshchart diff` masks them: a failing case is printed
/// in CI logs, and a changed secret shows as a changed digest.
pub fn expectation_diff(expected_file: &Utf8Path, expected: &str, actual: &str) -> String {
    let expected = crate::diff::mask_stream(expected);
    let actual = crate::diff::mask_stream(actual);
    similar::TextDiff::from_lines(&expected, &actual)
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

/// Reads one case folder, its `args` by `reader`.
pub fn load_case(dir: &Utf8Path, reader: &dyn CaseArgs) -> Result<GoldenCase, Error> {
    let args_path = dir.join(ARGS_FILE);
    let text = if args_path.is_file() {
        crate::input::read_path(&args_path)?.text
    } else {
        String::new()
    };
    let (mut request, named) =
        parse_args_file(&args_path, &text, |words| reader.render_case(words))?;
    request.resolve_paths(dir);
    let chart = match named {
        named if named.is_empty() => None,
        args::CaseChart {
            path: Some(path), ..
        } => {
            let path = Utf8PathBuf::from(crate::input::resolve_path(dir, &path));
            Some(crate::chart_source::ChartSource::from_flag(Some(&path)))
        }
        args::CaseChart { linkerd, crds, .. } => Some(crate::chart_source::ChartSource::Embedded {
            release: linkerd,
            crds,
        }),
    };
    Ok(GoldenCase {
        name: dir.file_name().unwrap_or_default().to_owned(),
        dir: dir.to_owned(),
        request,
        chart,
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

/// The cases under `cases_dir` that `only` names (all when it names none); an error when there is
/// no case at all, or when a name is not a case.
pub fn select(
    cases_dir: &Utf8Path,
    only: &[String],
    reader: &dyn CaseArgs,
) -> Result<Vec<GoldenCase>, Error> {
    let all = discover(cases_dir, reader)?;
    if all.is_empty() {
        return Err(Error::Usage(format!(
            "no golden cases under {cases_dir}: a case is a folder holding {ARGS_FILE}, \
             {EXPECTED_OUTPUT} or {EXPECTED_ERROR} (a run with no case would pass by accident)"
        )));
    }
    if let Some(missing) = only
        .iter()
        .find(|name| !all.iter().any(|c| &c.name == *name))
    {
        let names: Vec<&str> = all.iter().map(|c| c.name.as_str()).collect();
        return Err(Error::Usage(format!(
            "no golden case {missing:?} under {cases_dir} (its cases: {})",
            names.join(", ")
        )));
    }
    Ok(all
        .into_iter()
        .filter(|c| only.is_empty() || only.contains(&c.name))
        .collect())
}

/// The resources that differ between two streams, each as `kind namespace/name` with what
/// happened to it; `None` when either stream cannot be split into resources.
fn differing_resources(expected: &str, actual: &str) -> Option<Vec<String>> {
    let expected = crate::diff::resources(expected, EXPECTED_OUTPUT).ok()?;
    let actual = crate::diff::resources(actual, "actual").ok()?;
    let mut out = Vec::new();
    for resource in &expected {
        match actual.iter().find(|r| r.key == resource.key) {
            None => out.push(format!("{} (no longer rendered)", resource.key)),
            Some(now) if now.text != resource.text => {
                out.push(format!("{} (changed)", resource.key))
            }
            Some(_) => {}
        }
    }
    for resource in &actual {
        if !expected.iter().any(|r| r.key == resource.key) {
            out.push(format!("{} (new)", resource.key));
        }
    }
    Some(out)
}

/// Runs (or, with `options.update`, rewrites) the cases under `cases_dir` against `chart`, their
/// `args` read by `reader`.
pub fn run(
    chart: &Chart,
    cases_dir: &Utf8Path,
    options: &GoldenOptions,
    reader: &dyn CaseArgs,
) -> Result<Vec<CaseReport>, Error> {
    let engine = Engine::new(chart)?;
    let mut reports = Vec::new();
    for case in select(cases_dir, &options.only, reader)? {
        let produced = match &case.chart {
            None => produce(&engine, chart, &case, options.update),
            // A case naming its own chart renders that one.
            Some(source) => {
                let own = source.load()?;
                produce(&Engine::new(&own)?, &own, &case, options.update)
            }
        };
        let (output, error) = if produced.ok {
            (Some(produced.text.as_str()), None)
        } else {
            (None, Some(produced.text.as_str()))
        };
        let was_output = case.dir.join(EXPECTED_OUTPUT).is_file();
        let was_error = case.dir.join(EXPECTED_ERROR).is_file();
        let retyped = match (was_output, was_error, produced.ok) {
            (true, false, false) => Some(format!(
                "now an error case, no longer an output case: {}",
                produced.text.trim_end()
            )),
            (false, true, true) => Some("now an output case, no longer an error case".to_owned()),
            _ => None,
        };
        if let (true, Some(change)) = (options.update, &retyped) {
            if !options.accept_errors {
                reports.push(CaseReport {
                    name: case.name,
                    outcome: CaseOutcome::Refused(format!(
                        "{change}\nnot updated: accept the change with --update --accept-errors"
                    )),
                });
                continue;
            }
        }
        let warnings = Some(produced.warnings.as_str()).filter(|w| !w.is_empty());
        let mut outcome = check_expectations(
            &case.dir,
            &[
                (EXPECTED_OUTPUT, output),
                (EXPECTED_ERROR, error),
                (EXPECTED_WARNINGS, warnings),
            ],
            options.update,
        )?;
        if let (CaseOutcome::Updated, Some(change)) = (&outcome, retyped) {
            outcome = CaseOutcome::Retyped(change);
        }
        if let CaseOutcome::Failed(diff) = &mut outcome {
            let expected = read_expectation(&case.dir.join(EXPECTED_OUTPUT))?;
            if let (Some(expected), Some(actual)) = (expected, output) {
                if let Some(resources) = differing_resources(&expected, actual) {
                    let mut head = String::from("resources that differ:\n");
                    for resource in resources {
                        head.push_str(&format!("  {resource}\n"));
                    }
                    diff.insert_str(0, &head);
                }
            }
        }
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

/// What `meshchart golden` prints: a line per case (`ok`, `updated`, or `FAILED` and why), then
/// the counts; a failed case ends with the command that updates it (`update_command` with the
/// case's name after `--case`).
pub fn summary(reports: &[CaseReport], update_command: &str) -> String {
    let mut text = String::new();
    for report in reports {
        let name = &report.name;
        match &report.outcome {
            CaseOutcome::Passed => text.push_str(&format!("ok      {name}\n")),
            CaseOutcome::Updated => text.push_str(&format!("updated {name}\n")),
            CaseOutcome::Retyped(change) => {
                text.push_str(&format!("updated {name}: {change}\n"));
            }
            CaseOutcome::Failed(diff) => {
                text.push_str(&format!(
                    "FAILED  {name}\n{diff}to accept this output: {update_command} --case {name}\n\n"
                ));
            }
            CaseOutcome::Refused(why) => {
                text.push_str(&format!("REFUSED {name}: {why}\n"));
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

/// How many cases failed (a refused update counts as failed).
pub fn failed_count(reports: &[CaseReport]) -> usize {
    reports
        .iter()
        .filter(|r| matches!(r.outcome, CaseOutcome::Failed(_) | CaseOutcome::Refused(_)))
        .count()
}

/// Whether `UPDATE_GOLDEN` asks tests to rewrite golden files.
pub fn update_requested() -> bool {
    std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| !v.is_empty() && v != "0")
}
