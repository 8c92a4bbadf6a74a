//! `meshchart lint`: everything that can be checked without a cluster.
//!
//! - Chart.yaml: the loader's validation (every field named), plus maintainers, URLs, icon.
//! - Values: the user's files parse; YAML 1.1 booleans (`yes`, `on`) are warned about; keys the
//!   chart does not know are errors with a "did you mean" ([`keys`]); the effective values are
//!   checked against `values.schema.json` when the chart has one ([`schema`]), each violation
//!   naming the key path and where the value came from.
//! - Templates: allowed file extensions; every template renders with the effective values;
//!   every document parses, has `apiVersion` and `kind`, and a DNS-1123 `metadata.name`.
//! - Workloads: those that would hit a known issue of the Linkerd release that meshes them
//!   ([`known_issues`]) are warned about, naming the issue and the release that fixed it.
//!
//! Errors fail the lint (exit 1); warnings and notes do not.

pub(crate) mod known_issues;
pub mod schema;
pub(crate) mod yaml11;

use crate::chart::Chart;
use crate::chart_source::ChartSource;
use crate::engine::Engine;
use crate::releases::ReleaseError;
use crate::render::{complete_chart_material, Clock, RenderRequest};
use crate::values::Value;
use crate::values::{explain, DefaultsFile};
use std::io::{Read, Write};

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Fails the lint.
    Error,
    /// Worth fixing; does not fail the lint.
    Warning,
    /// A suggestion.
    Info,
}

impl Severity {
    fn label(self) -> &'static str {
        match self {
            Severity::Error => "ERROR",
            Severity::Warning => "WARNING",
            Severity::Info => "INFO",
        }
    }
}

/// One thing lint found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// How bad.
    pub severity: Severity,
    /// Where: a chart file, `file:line`, or a `--set` expression.
    pub location: String,
    /// What.
    pub message: String,
}

impl Finding {
    /// The finding as the report prints it, with its line break.
    fn line(&self) -> String {
        format!(
            "[{}] {}: {}\n",
            self.severity.label(),
            self.location,
            self.message
        )
    }
}

/// Everything lint found in one chart.
#[derive(Clone, Debug, Default)]
pub struct LintReport {
    /// The chart, as named on the command line.
    pub origin: String,
    /// Findings in the order they were found.
    pub findings: Vec<Finding>,
    /// `--strict`: warnings fail the lint too, and a `required` value left unset is an error.
    pub strict: bool,
}

impl LintReport {
    /// Whether any finding is an error (or, with `strict`, a warning).
    pub fn failed(&self) -> bool {
        self.findings.iter().any(|f| self.fails(f))
    }

    fn fails(&self, finding: &Finding) -> bool {
        finding.severity == Severity::Error
            || (self.strict && finding.severity == Severity::Warning)
    }

    fn header(&self) -> String {
        format!("==> Linting {}\n", self.origin)
    }

    fn footer(failed: bool) -> String {
        format!(
            "\n1 chart(s) linted, {} chart(s) failed\n",
            usize::from(failed)
        )
    }

    fn push(
        &mut self,
        severity: Severity,
        location: impl Into<String>,
        message: impl Into<String>,
    ) {
        // A finding may quote a value, and a value may be a key given in the wrong place.
        let mask = |text: String| crate::redact::mask_private_keys(&text).into_owned();
        self.findings.push(Finding {
            severity,
            location: mask(location.into()),
            message: mask(message.into()),
        });
    }

    /// The report as printed, in Helm's shape.
    pub fn to_text(&self) -> String {
        let mut out = self.header();
        for f in &self.findings {
            out.push_str(&f.line());
        }
        out.push_str(&Self::footer(self.failed()));
        out
    }
}

/// Lints the chart `source` with the user's flags; its workloads are judged against the known
/// issues of the chart's own `linkerdVersion` (a Linkerd line), else of the default line.
pub fn lint(source: &ChartSource, request: &RenderRequest, stdin: &mut dyn Read) -> LintReport {
    lint_with(source, request, None, false, stdin)
}

/// [`lint`], judging the chart's workloads against the known issues of `meshed_by`, the Linkerd
/// release that will inject them (`edge-24.10.2`), when given.
pub fn lint_meshed_by(
    source: &ChartSource,
    request: &RenderRequest,
    meshed_by: Option<&str>,
    stdin: &mut dyn Read,
) -> LintReport {
    lint_with(source, request, meshed_by, false, stdin)
}

/// [`lint_meshed_by`], `strict` as `helm lint --strict`: warnings fail, and a `required` value
/// left unset is an error rather than an INFO.
pub fn lint_with(
    source: &ChartSource,
    request: &RenderRequest,
    meshed_by: Option<&str>,
    strict: bool,
    stdin: &mut dyn Read,
) -> LintReport {
    let mut report = Reporter::new(source, strict, None);
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
    strict: bool,
    stdin: &mut dyn Read,
    out: &mut dyn Write,
) -> std::io::Result<bool> {
    let mut report = Reporter::new(source, strict, Some(out));
    run(source, request, meshed_by, stdin, &mut report);
    report.finish()
}

/// Where findings go as they are found: into the report, or printed at once (only whether the
/// lint failed is kept).
struct Reporter<'w> {
    report: LintReport,
    out: Option<&'w mut dyn Write>,
    header_written: bool,
    failed: bool,
    error: Option<std::io::Error>,
}

impl<'w> Reporter<'w> {
    fn new(source: &ChartSource, strict: bool, out: Option<&'w mut dyn Write>) -> Self {
        Reporter {
            report: LintReport {
                origin: match source {
                    ChartSource::Embedded { .. } => "embedded chart".to_owned(),
                    ChartSource::Path(p) | ChartSource::Archive(p) => p.to_string(),
                },
                findings: Vec::new(),
                strict,
            },
            out,
            header_written: false,
            failed: false,
            error: None,
        }
    }

    fn strict(&self) -> bool {
        self.report.strict
    }

    fn push(
        &mut self,
        severity: Severity,
        location: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.report.push(severity, location, message);
        let Some(out) = self.out.as_mut() else {
            return;
        };
        let Some(finding) = self.report.findings.pop() else {
            return;
        };
        self.failed |= self.report.fails(&finding);
        if self.error.is_some() {
            return;
        }
        let mut line = String::new();
        if !self.header_written {
            self.header_written = true;
            line = self.report.header();
        }
        line.push_str(&finding.line());
        if let Err(e) = out.write_all(line.as_bytes()) {
            self.error = Some(e);
        }
    }

    /// Prints what is left of the report; whether the lint failed.
    fn finish(mut self) -> std::io::Result<bool> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let mut rest = String::new();
        if !self.header_written {
            rest = self.report.header();
        }
        rest.push_str(&LintReport::footer(self.failed));
        if let Some(out) = self.out.as_mut() {
            out.write_all(rest.as_bytes())?;
            out.flush()?;
        }
        Ok(self.failed)
    }
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

fn check_chart_yaml(chart: &Chart, report: &mut Reporter<'_>) {
    let fields = &chart.metadata.fields;
    if !fields.contains_key("icon") {
        report.push(Severity::Info, "Chart.yaml", "icon is recommended");
    }
    let is_url = |s: &str| s.starts_with("https://") || s.starts_with("http://");
    for field in ["icon", "home"] {
        match fields.get(field) {
            Some(Value::String(s)) if !is_url(s) => report.push(
                Severity::Error,
                "Chart.yaml",
                format!("{field}: {s:?} is not an http(s) URL"),
            ),
            Some(Value::String(_)) | None => {}
            Some(other) => report.push(
                Severity::Error,
                "Chart.yaml",
                format!("{field}: must be a string, found a {}", other.type_name()),
            ),
        }
    }
    if let Some(Value::Seq(sources)) = fields.get("sources") {
        for (i, s) in sources.iter().enumerate() {
            if !s.as_str().is_some_and(is_url) {
                report.push(
                    Severity::Error,
                    "Chart.yaml",
                    format!("sources[{i}]: is not an http(s) URL"),
                );
            }
        }
    }
    match fields.get("maintainers") {
        None | Some(Value::Null) => {}
        Some(Value::Seq(maintainers)) => {
            for (i, m) in maintainers.iter().enumerate() {
                let name = m
                    .as_map()
                    .and_then(|m| m.get("name"))
                    .and_then(Value::as_str);
                if name.is_none_or(str::is_empty) {
                    report.push(
                        Severity::Error,
                        "Chart.yaml",
                        format!("maintainers[{i}]: name is required"),
                    );
                }
                if let Some(email) = m
                    .as_map()
                    .and_then(|m| m.get("email"))
                    .and_then(Value::as_str)
                {
                    if !email.contains('@') {
                        report.push(
                            Severity::Error,
                            "Chart.yaml",
                            format!("maintainers[{i}]: email {email:?} is not an address"),
                        );
                    }
                }
            }
        }
        Some(_) => report.push(Severity::Error, "Chart.yaml", "maintainers: must be a list"),
    }
    if chart.metadata.api_version == "v1" {
        for field in ["type", "dependencies"] {
            if fields.contains_key(field) {
                report.push(
                    Severity::Error,
                    "Chart.yaml",
                    format!("{field}: not valid in apiVersion \"v1\"; use \"v2\""),
                );
            }
        }
    }
}

/// The source of a value's origin: `prod.yaml` for `prod.yaml:12`, flags as they are.
fn source_of(origin: &str) -> &str {
    match origin.rsplit_once(':') {
        Some((file, line))
            if !origin.starts_with("--") && line.bytes().all(|b| b.is_ascii_digit()) =>
        {
            file
        }
        _ => origin,
    }
}

/// Checks values; returns the effective values when they could be built.
fn check_values(
    chart: &Chart,
    request: &RenderRequest,
    stdin: &mut dyn Read,
    report: &mut Reporter<'_>,
) -> Option<Value> {
    let overrides = request.overrides();
    let defaults = match chart.default_values() {
        Ok(v) => v,
        Err(e) => {
            report.push(Severity::Error, "values", e.to_string());
            return None;
        }
    };
    let defaults_file = chart.default_values.as_ref().map(|f| DefaultsFile {
        name: &f.path,
        text: &f.text,
    });
    // Each values file is read once, by `explain`; its kept text serves the checks below.
    let explained = explain(defaults_file, &defaults, overrides, stdin);
    // YAML 1.1 booleans in the chart's defaults and in each values file.
    let mut texts: Vec<(&str, &str)> = Vec::new();
    if let Some(file) = &chart.default_values {
        texts.push((&file.path, &file.text));
    }
    if let Ok(explained) = &explained {
        texts.extend(
            explained
                .files
                .iter()
                .map(|f| (f.name.as_str(), f.text.as_str())),
        );
    }
    for (name, text) in texts {
        for found in yaml11::find(text) {
            report.push(
                Severity::Warning,
                format!("{name}:{}", found.line),
                found.describe(),
            );
        }
    }
    let explained = match explained {
        Ok(e) => e,
        Err(e) => {
            report.push(Severity::Error, "values", e.to_string());
            return None;
        }
    };
    for warning in &explained.warnings {
        let warning = warning.strip_prefix("warning: ").unwrap_or(warning);
        report.push(Severity::Warning, "values", warning.to_owned());
    }
    let schema_file = chart.file(schema::SCHEMA_FILE);
    let schema_json =
        schema_file.and_then(|f| serde_json::from_str::<serde_json::Value>(&f.text).ok());
    let known = crate::values::KnownKeys::new(&defaults, schema_json.as_ref());
    // One report per unknown key and source (a file's thousand leaves under one unknown key
    // are one mistake), so the suggestion search runs once per key, not once per leaf. The
    // paths come in order, so those under one unknown key come together: only the sources of
    // the current one are remembered.
    let mut reported: (Vec<String>, std::collections::BTreeSet<String>) = Default::default();
    for (path, origin) in explained.user_origins() {
        if let Some(unknown) = known.unknown_prefix(&path) {
            if reported.0 != unknown {
                reported = (unknown.clone(), Default::default());
            }
            if !reported.1.insert(source_of(&origin).to_owned()) {
                continue;
            }
            let hint = match known.suggest(&unknown) {
                Some(s) => format!(" (did you mean {s}?)"),
                None => {
                    // Nothing close: the keys the chart knows there are the nearest ones.
                    let siblings = known.siblings(&unknown);
                    let shown: Vec<&str> = siblings.iter().take(6).map(String::as_str).collect();
                    match shown.len() {
                        0 => String::new(),
                        n if n < siblings.len() => {
                            format!(" (the chart has {}, ...)", shown.join(", "))
                        }
                        _ => format!(" (the chart has {})", shown.join(", ")),
                    }
                }
            };
            // Maps are open unless the schema closes them: a key the defaults lack may be one
            // the templates read all the same (`resources.limits.cpu` beside a default memory).
            let (severity, why) = if known.closed_at(&unknown) {
                (Severity::Error, "the schema allows no other key there")
            } else {
                (Severity::Warning, "the chart's defaults do not have it")
            };
            report.push(
                severity,
                origin,
                format!("unknown key {}: {why}{hint}", unknown.join(".")),
            );
        }
    }
    if schema_file.is_none() {
        for (path, origin) in explained.user_origins() {
            if let Some(warning) = type_mismatch(&defaults, &explained.values, &path) {
                report.push(Severity::Warning, origin, warning);
            }
        }
    }
    if let Some(file) = schema_file {
        match schema::validate(&file.text, &explained.values) {
            Err(reason) => report.push(Severity::Error, file.path.clone(), reason),
            Ok(violations) => {
                for v in violations {
                    let from = explained
                        .first_origin_under(&v.path)
                        .map(|o| format!(" (from {o})"))
                        .unwrap_or_default();
                    report.push(Severity::Error, "values", format!("{}{from}", v.describe()));
                }
            }
        }
    }
    Some(explained.values)
}

/// Go's name for the kind of a value, for a message.
fn type_word(value: &Value) -> Option<&'static str> {
    Some(match value {
        Value::Null => return None,
        Value::Bool(_) => "a boolean",
        Value::Int(_) | Value::Float(_) | Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Seq(_) => "a list",
        Value::Map(_) => "a map",
    })
}

/// Without a schema, the chart's defaults are all it says about types: a user value of another
/// kind than the default at its path (`enabled: "false"` where the default is `false`) is worth
/// a warning; `None` when they agree or either is null.
fn type_mismatch(defaults: &Value, values: &Value, path: &[String]) -> Option<String> {
    let default = defaults.get_path(path)?;
    let value = values.get_path(path)?;
    let (want, got) = (type_word(default)?, type_word(value)?);
    if want == got {
        return None;
    }
    let shown = |v: &Value| match v {
        Value::String(s) => format!("{s:?}"),
        Value::Seq(_) | Value::Map(_) => String::new(),
        other => crate::yaml::to_json(other),
    };
    let with = |v: &Value| match shown(v) {
        text if text.is_empty() => String::new(),
        text => format!(" ({text})"),
    };
    Some(format!(
        "{} is {got}{}, but the chart's default is {want}{}: a template testing or computing \
         with it may not do what you mean",
        path.join("."),
        with(value),
        with(default)
    ))
}

const TEMPLATE_EXTENSIONS: &[&str] = &[".yaml", ".yml", ".tpl", ".txt"];

/// Checks the templates and what they render; returns the rendered documents that are maps,
/// each with its location (`chart/template`).
fn check_templates(
    chart: &Chart,
    request: &RenderRequest,
    values: &Value,
    report: &mut Reporter<'_>,
) -> Vec<(String, crate::values::Map)> {
    for template in &chart.templates {
        if !TEMPLATE_EXTENSIONS
            .iter()
            .any(|e| template.path.ends_with(e))
        {
            report.push(
                Severity::Error,
                format!("templates/{}", template.path),
                "file extension must be .yaml, .yml, .tpl or .txt",
            );
        }
    }
    if let Err(e) = chart.refuse_subcharts() {
        report.push(Severity::Error, "charts/", e.to_string());
        return Vec::new();
    }
    let options = match request.render_options() {
        Ok(o) => o,
        Err(e) => {
            report.push(Severity::Error, "flags", e);
            return Vec::new();
        }
    };
    // As `helm lint` does, a `required` value left unset is noted and the render goes on.
    let (rendered, missing) = crate::engine::functions::noting_missing_required(|| {
        Engine::new(chart).and_then(|engine| {
            crate::manifest::render(
                &engine,
                values,
                &options,
                &crate::manifest::DocumentReader::new(),
            )
        })
    });
    let severity = if report.strict() {
        Severity::Error
    } else {
        Severity::Info
    };
    for message in missing {
        report.push(
            severity,
            "templates/",
            format!("missing required value: {message}"),
        );
    }
    let rendered = match rendered {
        Ok(r) => r,
        Err(e) => {
            report.push(Severity::Error, "templates/", e.to_string());
            return Vec::new();
        }
    };
    let mut documents = Vec::new();
    for doc in &rendered.documents {
        let location = format!("{}/{}", rendered.chart_name, doc.template);
        let parsed = match crate::yaml::parse_document(&doc.text) {
            Ok(v) => v,
            Err(e) => {
                report.push(
                    Severity::Error,
                    location,
                    format!("rendered YAML does not parse: {e}"),
                );
                continue;
            }
        };
        let Value::Map(map) = parsed else {
            if parsed != Value::Null {
                report.push(
                    Severity::Error,
                    location,
                    "a rendered document must be a map",
                );
            }
            continue;
        };
        for field in ["apiVersion", "kind"] {
            if map
                .get(field)
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
            {
                report.push(
                    Severity::Error,
                    location.clone(),
                    format!("document has no {field}"),
                );
            }
        }
        if !doc.name.is_empty() && !is_dns1123_subdomain(&doc.name) {
            report.push(
                Severity::Warning,
                location.clone(),
                format!(
                    "{} {:?}: metadata.name must be lowercase letters, digits, '-' and '.', start and end with a letter or digit, at most 253 characters",
                    doc.kind, doc.name
                ),
            );
        }
        documents.push((location, map));
    }
    documents
}

/// Kubernetes' DNS-1123 subdomain rule for object names.
pub fn is_dns1123_subdomain(name: &str) -> bool {
    name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dns1123_names() {
        assert!(is_dns1123_subdomain("linkerd-identity"));
        assert!(is_dns1123_subdomain("a.b-c"));
        assert!(!is_dns1123_subdomain("Bad_Name"));
        assert!(!is_dns1123_subdomain("-x"));
        assert!(!is_dns1123_subdomain(""));
    }
}
