//! What lint found and how it is told: findings with their severity, the report in `helm
//! lint`'s shape, and the reporter that keeps findings or prints each as it is found.

use super::LintMode;
use crate::chart_source::ChartSource;
use std::io::Write;

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
    /// `--quiet`: INFO findings are left out.
    pub quiet: bool,
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

/// Where findings go as they are found: into the report, or printed at once (only whether the
/// lint failed is kept).
pub(super) struct Reporter<'w> {
    pub(super) report: LintReport,
    out: Option<&'w mut dyn Write>,
    header_written: bool,
    failed: bool,
    error: Option<std::io::Error>,
}

impl<'w> Reporter<'w> {
    pub(super) fn new(
        source: &ChartSource,
        mode: LintMode,
        out: Option<&'w mut dyn Write>,
    ) -> Self {
        Reporter {
            report: LintReport {
                origin: match source {
                    ChartSource::Embedded { .. } => "embedded chart".to_owned(),
                    ChartSource::Path(p) | ChartSource::Archive(p) => p.to_string(),
                },
                findings: Vec::new(),
                strict: mode.strict,
                quiet: mode.quiet,
            },
            out,
            header_written: false,
            failed: false,
            error: None,
        }
    }

    pub(super) fn strict(&self) -> bool {
        self.report.strict
    }

    pub(super) fn push(
        &mut self,
        severity: Severity,
        location: impl Into<String>,
        message: impl Into<String>,
    ) {
        if self.report.quiet && severity == Severity::Info {
            return;
        }
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
    pub(super) fn finish(mut self) -> std::io::Result<bool> {
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
