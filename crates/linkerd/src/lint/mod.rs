//! `meshchart lint`: everything that can be checked without a cluster.
//!
//! - Chart.yaml: the loader's validation (every field named), plus maintainers, URLs, icon.
//! - Values: the user's files parse; YAML 1.1 booleans (`yes`, `on`) are warned about; keys the
//!   chart does not know are errors with a "did you mean" ([`crate::values::KnownKeys`]); the effective values are
//!   checked against `values.schema.json` when the chart has one ([`schema`]), each violation
//!   naming the key path and where the value came from.
//! - Templates: allowed file extensions; every template renders with the effective values;
//!   every document parses, has `apiVersion` and `kind`, and a DNS-1123 `metadata.name`, and
//!   its API version is not one the `--kube-version` deprecated or removed ([`api_removals`]).
//! - Workloads: those that would hit a known issue of the Linkerd release that meshes them
//!   ([`known_issues`]) are warned about, naming the issue and the release that fixed it.
//!
//! Errors fail the lint (exit 1); warnings and notes do not.

pub(crate) mod api_removals;
mod chart_yaml;
pub(crate) mod known_issues;
mod report;
pub mod schema;
mod templates;
mod values;
pub(crate) mod yaml11;

pub use report::{Finding, LintReport, Severity};
pub use templates::is_dns1123_subdomain;

use crate::chart_source::ChartSource;
use crate::releases::ReleaseError;
use crate::render::{complete_chart_material, Clock, RenderRequest};
use crate::values::Value;
use chart_yaml::check_chart_yaml;
use report::Reporter;
use std::io::{Read, Write};
use templates::check_templates;
use values::check_values;

/// Lints the chart `source` with the user's flags; its workloads are judged against the known
/// issues of the chart's own `linkerdVersion` (a Linkerd line), else of the default line.
pub fn lint(source: &ChartSource, request: &RenderRequest, stdin: &mut dyn Read) -> LintReport {
    lint_with(source, request, None, LintMode::default(), stdin)
}

/// [`lint`], judging the chart's workloads against the known issues of `meshed_by`, the Linkerd
/// release that will inject them (`edge-24.10.2`), when given.
pub fn lint_meshed_by(
    source: &ChartSource,
    request: &RenderRequest,
    meshed_by: Option<&str>,
    stdin: &mut dyn Read,
) -> LintReport {
    lint_with(source, request, meshed_by, LintMode::default(), stdin)
}

/// How `helm lint`'s `--strict` and `--quiet` ask lint to judge and tell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LintMode {
    /// Warnings fail the lint, and a `required` value left unset is an error rather than an
    /// INFO (`--strict`).
    pub strict: bool,
    /// Only warnings and errors are reported (`--quiet`).
    pub quiet: bool,
}

/// [`lint_meshed_by`] in `mode`.
pub fn lint_with(
    source: &ChartSource,
    request: &RenderRequest,
    meshed_by: Option<&str>,
    mode: LintMode,
    stdin: &mut dyn Read,
) -> LintReport {
    let mut report = Reporter::new(source, mode, None);
    run(source, request, meshed_by, stdin, &mut report);
    report.report
}

/// [`lint_with`], printing the report to `out` as it is found ([`LintReport::to_text`]'s
/// text) instead of keeping it: a values file of a million unknown keys makes a report of
/// hundreds of megabytes. Returns whether the lint failed ([`LintReport::failed`]).
pub fn lint_to(
    source: &ChartSource,
    request: &RenderRequest,
    meshed_by: Option<&str>,
    mode: LintMode,
    stdin: &mut dyn Read,
    out: &mut dyn Write,
) -> std::io::Result<bool> {
    let mut report = Reporter::new(source, mode, Some(out));
    run(source, request, meshed_by, stdin, &mut report);
    report.finish()
}

fn run(
    source: &ChartSource,
    request: &RenderRequest,
    meshed_by: Option<&str>,
    stdin: &mut dyn Read,
    report: &mut Reporter<'_>,
) {
    let chosen = match crate::render::choose_chart(source, request.overrides(), stdin) {
        Ok(chosen) => chosen,
        Err(e) => {
            // A release the values name that has no line is the values' problem.
            let about = match e {
                crate::Error::Release(
                    ReleaseError::UnknownRelease { .. }
                    | ReleaseError::MixedReleases { .. }
                    | ReleaseError::EraNotEmbedded { .. },
                ) => "values",
                crate::Error::Values(_) => "values",
                _ => "Chart.yaml",
            };
            report.push(Severity::Error, about, e.to_string());
            return;
        }
    };
    report.report.origin = chosen.chart.origin.clone();
    for warning in &chosen.notes {
        let warning = warning
            .strip_prefix("warning: ")
            .unwrap_or(warning)
            .to_owned();
        report.push(Severity::Warning, "values", warning);
    }
    let request = match chosen.request(request) {
        Ok(request) => request,
        Err(e) => {
            report.push(Severity::Error, "values", e.to_string());
            return;
        }
    };
    let chart = chosen.chart;
    let request = &request;
    check_chart_yaml(&chart, report);
    let Some(mut values) = check_values(&chart, request, stdin, report) else {
        return;
    };
    // Templates need the identity material a render would fill in; lint never keeps it.
    if let Err(e) = complete_chart_material(&chart, &mut values, request, Clock::FromEnv) {
        report.push(Severity::Error, "values", e.to_string());
        return;
    }
    for warning in crate::render::proxy_value_warnings(&chart, &values) {
        report.push(Severity::Warning, "values", warning);
    }
    let documents = check_templates(&chart, request, &values, report);
    if let Some(release) = meshed_by.filter(|r| crate::proxy_support::Release::parse(r).is_none()) {
        report.push(
            Severity::Error,
            "flags",
            format!(
                "--meshed-by {release:?} is not a Linkerd release (edge-YY.M.N or \
                 stable-X.Y.Z, such as edge-24.10.2)"
            ),
        );
        return;
    }
    let release = meshed_by
        .map(str::to_owned)
        .or_else(|| {
            values
                .get_path(&["linkerdVersion"])
                .and_then(Value::as_str)
                .filter(|v| crate::proxy_support::Release::parse(v).is_some())
                .map(str::to_owned)
        })
        .unwrap_or_else(|| crate::releases::DEFAULT_RELEASE.to_owned());
    let maps: Vec<&crate::values::Map> = documents.iter().map(|(_, map)| map).collect();
    for hit in known_issues::hits(&maps, &release) {
        let (location, _) = &documents[hit.document];
        report.push(Severity::Warning, location.clone(), hit.message);
    }
}
