//! A report spooled to a temporary file as it is made, so a stream of any length holds no
//! entry per resource.

use super::*;

/// A report written as it is made, in its format, to an unnamed temporary file, and copied out
/// at the end: what [`Report::render`] (or, for inject, [`Report::render_inject`]) prints,
/// without holding an entry per resource (a stream of 400,000 workloads held its report in
/// memory).
pub struct SpooledReport {
    format: ReportFormat,
    file: std::io::BufWriter<std::fs::File>,
    /// Entries written to the file.
    entries: usize,
    /// Counts of every entry, written or not.
    summary: Summary,
    /// Whether the copy ends with the summary (inject), and whether entries are left out of it
    /// (`inject --quiet`).
    with_summary: bool,
    quiet: bool,
}

impl SpooledReport {
    /// An empty report in `format` (uninject's: no summary).
    pub fn new(format: ReportFormat) -> Result<SpooledReport, InjectError> {
        let file = tempfile::tempfile()
            .map_err(InjectError::temp_file("the report until the run ends"))?;
        Ok(SpooledReport {
            format,
            file: std::io::BufWriter::with_capacity(64 * 1024, file),
            entries: 0,
            summary: Summary::default(),
            with_summary: false,
            quiet: false,
        })
    }

    /// An empty inject report in `format`: it ends with the [`Summary`], and with `quiet` holds
    /// nothing else.
    pub fn for_inject(format: ReportFormat, quiet: bool) -> Result<SpooledReport, InjectError> {
        Ok(SpooledReport {
            with_summary: true,
            quiet,
            ..SpooledReport::new(format)?
        })
    }

    /// The report with its entries left out (`uninject --quiet`); a JSON one stays one document.
    pub fn without_entries(self, quiet: bool) -> SpooledReport {
        SpooledReport { quiet, ..self }
    }

    /// Whether the report is JSON (its notes then belong inside it: see
    /// [`SpooledReport::copy_with_notes`]).
    pub fn is_json(&self) -> bool {
        self.format == ReportFormat::Json
    }

    /// Copies the report to `out` as [`SpooledReport::copy_to`], with the run's `notes`: in
    /// JSON, a `notes` field of the one document (when there are any), so that stderr stays one
    /// clean JSON document; in text, the notes' lines first.
    pub fn copy_with_notes(
        self,
        notes: &[String],
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        if notes.is_empty() {
            return self.copy_to(out);
        }
        if !self.is_json() {
            for note in notes {
                writeln!(out, "{note}")?;
            }
            return self.copy_to(out);
        }
        let mut document = Vec::new();
        self.copy_to(&mut document)?;
        // The document ends with "\n}\n": the notes go in as its last field.
        let body = document
            .strip_suffix(b"\n}\n")
            .unwrap_or(document.as_slice());
        let notes = serde_json::to_string_pretty(&serde_json::json!({ "notes": notes }))
            .unwrap_or_default();
        let field = notes
            .strip_prefix("{\n")
            .and_then(|n| n.strip_suffix("\n}"))
            .unwrap_or_default();
        out.write_all(body)?;
        write!(out, ",\n{field}\n}}\n")?;
        out.flush()
    }

    /// Copies the report to `out`, as [`Report::render`] (or [`Report::render_inject`]) would
    /// print it.
    pub fn copy_to(self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        use std::io::Seek;
        let mut file = self.file.into_inner().map_err(|e| e.into_error())?;
        file.rewind()?;
        let json = self.format == ReportFormat::Json;
        if json {
            out.write_all(if self.entries == 0 {
                b"{\n  \"resources\": ["
            } else {
                b"{\n  \"resources\": [\n"
            })?;
        }
        std::io::copy(&mut file, out)?;
        let Summary {
            injected,
            skipped,
            warnings,
        } = self.summary;
        match (json, self.with_summary) {
            (true, false) => out.write_all(if self.entries == 0 {
                b"]\n}\n"
            } else {
                b"\n  ]\n}\n"
            })?,
            (true, true) => {
                let close = if self.entries == 0 { "]" } else { "\n  ]" };
                write!(
                    out,
                    "{close},\n  \"summary\": {{\n    \"injected\": {injected},\n    \
                     \"skipped\": {skipped},\n    \"warnings\": {warnings}\n  }}\n}}\n"
                )?;
            }
            (false, true) => writeln!(out, "{}", self.summary)?,
            (false, false) => {}
        }
        out.flush()
    }
}

impl ReportSink for SpooledReport {
    fn entry(&mut self, entry: Entry) -> Result<(), InjectError> {
        use std::io::Write as _;
        self.summary.count(&entry);
        if self.quiet {
            return Ok(());
        }
        let text = match self.format {
            ReportFormat::Text => entry.text() + "\n",
            ReportFormat::Json => {
                // An entry of `{"resources": [...]}` as serde_json's pretty printer indents it.
                let pretty = serde_json::to_string_pretty(&entry.json()).unwrap_or_default();
                let separator = if self.entries == 0 { "" } else { ",\n" };
                let indented: Vec<String> = pretty.lines().map(|l| format!("    {l}")).collect();
                format!("{separator}{}", indented.join("\n"))
            }
        };
        self.entries += 1;
        self.file
            .write_all(text.as_bytes())
            .map_err(|source| InjectError::Write { source })
    }
}
