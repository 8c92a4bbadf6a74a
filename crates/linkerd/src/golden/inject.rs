//! Golden-file cases for `inject` and `uninject`, with the conventions of [`crate::golden`].
//!
//! A case is a folder holding an `args` file (the subcommand, then one argument per line; `#`
//! comments; relative paths resolve against the case folder), the inputs it names, an optional
//! `stdin` file (read for `-`), and either `expected.yaml` (stdout) plus `expected-report.txt`
//! (stderr: value notes, then the report), or `expected-error.txt` (the error; stdout must stay
//! empty). The case folder's path is written as `<case>/` in expectations.

use super::args::{CaseArgs, InjectCaseCommand};
use super::{
    check_expectations, parse_args_file, read_expectation, CaseReport, ARGS_FILE, EXPECTED_ERROR,
    EXPECTED_OUTPUT,
};
use crate::chart::Chart;
use crate::error::Error;
use crate::inject::command::{run_inject, run_uninject, Run};
use crate::input::resolve_path;
use camino::{Utf8Path, Utf8PathBuf};

/// File holding the expected report (stderr).
pub const EXPECTED_REPORT: &str = "expected-report.txt";
/// File fed to the command as stdin.
pub const STDIN_FILE: &str = "stdin";
/// How the case folder is written in expectations.
pub const CASE_DIR_TOKEN: &str = "<case>/";

/// The case folders under `cases_dir` (each subfolder with an `args` file), sorted.
pub fn discover(cases_dir: &Utf8Path) -> Result<Vec<Utf8PathBuf>, Error> {
    let mut cases = Vec::new();
    for entry in cases_dir.read_dir_utf8().map_err(Error::io(cases_dir))? {
        let entry = entry.map_err(Error::io(cases_dir))?;
        if entry.path().join(ARGS_FILE).is_file() {
            cases.push(entry.path().to_owned());
        }
    }
    cases.sort();
    Ok(cases)
}

fn parse_case(dir: &Utf8Path, reader: &dyn CaseArgs) -> Result<InjectCaseCommand, Error> {
    let args_path = dir.join(ARGS_FILE);
    let text = crate::input::read_path(&args_path)?.text;
    let mut command = parse_args_file(&args_path, &text, |words| reader.inject_case(words))?;
    match &mut command {
        InjectCaseCommand::Inject(a, _) => {
            a.inputs = a.inputs.iter().map(|i| resolve_path(dir, i)).collect();
            a.overrides.resolve_paths(dir);
            let resolve = |p: &Utf8PathBuf| Utf8PathBuf::from(resolve_path(dir, p.as_str()));
            a.namespace_annotations = a.namespace_annotations.as_ref().map(resolve);
            a.certs_dir = a.certs_dir.as_ref().map(resolve);
            a.config = a.config.as_ref().map(|c| resolve_path(dir, c));
        }
        InjectCaseCommand::Uninject(inputs, _) => {
            *inputs = inputs.iter().map(|i| resolve_path(dir, i)).collect();
        }
    }
    Ok(command)
}

/// What a case produced: `(file name, text)` for each expectation file; its `args` read by
/// `reader`.
pub fn produce(
    chart: &Chart,
    dir: &Utf8Path,
    reader: &dyn CaseArgs,
) -> Result<Vec<(&'static str, String)>, Error> {
    let command = parse_case(dir, reader)?;
    let stdin_path = dir.join(STDIN_FILE);
    let stdin = match read_expectation(&stdin_path)? {
        Some(text) => text.into_bytes(),
        None => Vec::new(),
    };
    let mut stdin = stdin.as_slice();
    let (result, format) = match &command {
        InjectCaseCommand::Inject(request, format) => {
            (run_inject(chart, request, &mut stdin), *format)
        }
        InjectCaseCommand::Uninject(inputs, format) => (run_uninject(inputs, &mut stdin), *format),
    };
    let prefix = format!("{dir}/");
    let redact = |text: String| text.replace(&prefix, CASE_DIR_TOKEN);
    Ok(match result {
        Ok(Run { transformed, notes }) => {
            let mut stderr = String::new();
            for note in notes {
                stderr.push_str(&note);
                stderr.push('\n');
            }
            stderr.push_str(&match &command {
                InjectCaseCommand::Inject(request, _) => {
                    transformed.report.render_inject(format, request.quiet)
                }
                InjectCaseCommand::Uninject(..) => transformed.report.render(format),
            });
            vec![
                (EXPECTED_OUTPUT, redact(transformed.output)),
                (EXPECTED_REPORT, redact(stderr)),
            ]
        }
        Err(e) => vec![(EXPECTED_ERROR, redact(format!("{e}\n")))],
    })
}

/// Runs (or, with `update`, rewrites) every case under `cases_dir`, their `args` read by
/// `reader`.
pub fn run(
    chart: &Chart,
    cases_dir: &Utf8Path,
    update: bool,
    reader: &dyn CaseArgs,
) -> Result<Vec<CaseReport>, Error> {
    let mut reports = Vec::new();
    for dir in discover(cases_dir)? {
        let produced = produce(chart, &dir, reader)?;
        let expectations: Vec<(&str, Option<&str>)> =
            [EXPECTED_OUTPUT, EXPECTED_REPORT, EXPECTED_ERROR]
                .into_iter()
                .map(|name| {
                    let actual = produced
                        .iter()
                        .find(|(n, _)| *n == name)
                        .map(|(_, t)| t.as_str());
                    (name, actual)
                })
                .collect();
        let outcome = check_expectations(&dir, &expectations, update)?;
        reports.push(CaseReport {
            name: dir.file_name().unwrap_or_default().to_owned(),
            outcome,
        });
    }
    Ok(reports)
}
