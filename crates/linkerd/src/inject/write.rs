//! How transformed documents are written: the output held back until the run is through, and
//! a changed document's YAML or JSON form. Separate so that the streaming driver and the
//! reassembly of a streamed `List` both write through it without depending on each other.

use super::error::{InjectError, WorkloadRef};
use super::report::{Entry, Outcome, SkipReason};
use super::workload::str_at;
use crate::values::Value;
use std::io::Write;

/// The output stream, written piece by piece. Inputs are kept apart as if each input's output
/// were appended whole: a newline when the previous input's output did not end with one, and,
/// in YAML, a `---` line unless the input's output starts with one.
pub(super) struct Output<W: Write> {
    pub(super) out: W,
    pub(super) json: bool,
    /// Anything written yet.
    pub(super) wrote: bool,
    pub(super) ends_with_newline: bool,
    /// Anything written yet for the current input.
    pub(super) source_started: bool,
}

impl<W: Write> Output<W> {
    pub(super) fn push(&mut self, text: &str) -> Result<(), InjectError> {
        if text.is_empty() {
            return Ok(());
        }
        let write = |out: &mut W, text: &str| {
            out.write_all(text.as_bytes())
                .map_err(|source| InjectError::Write { source })
        };
        if !self.source_started {
            self.source_started = true;
            if self.wrote && !self.ends_with_newline {
                write(&mut self.out, "\n")?;
            }
            let starts_with_separator = text
                .lines()
                .next()
                .is_some_and(|l| l.starts_with("---") && l[3..].trim().is_empty());
            if !self.json && self.wrote && !starts_with_separator {
                write(&mut self.out, "---\n")?;
            }
        }
        write(&mut self.out, text)?;
        self.wrote = true;
        self.ends_with_newline = text.ends_with('\n');
        Ok(())
    }
}

/// Who a document is, for the report and messages.
pub(super) fn subject(doc: &Value, source: &str, line: usize) -> WorkloadRef {
    let map = doc.as_map();
    let field = |path: &[&str]| map.map(|m| str_at(m, path).to_owned()).unwrap_or_default();
    let mut name = field(&["metadata", "name"]);
    if name.is_empty() {
        name = field(&["metadata", "generateName"]);
    }
    WorkloadRef {
        source: source.to_owned(),
        line,
        kind: field(&["kind"]),
        name,
        namespace: field(&["metadata", "namespace"]),
    }
}

/// The report entry of a document without a kind.
pub(super) fn missing_kind(source: &str, line: usize) -> Entry {
    Entry {
        source: source.to_owned(),
        line,
        kind: String::new(),
        name: String::new(),
        namespace: String::new(),
        outcome: Outcome::Skipped(SkipReason::MissingKind),
    }
}

/// Whether a document's text shows no trace of a mesh: no `linkerd` or `meshchart` anywhere
/// (every name, annotation, label and container inject adds or uninject removes holds one), and
/// no backslash, so no escape in a quoted scalar can spell one either.
pub(super) fn is_pristine(text: &str) -> bool {
    !text.contains("linkerd") && !text.contains("meshchart") && !text.contains('\\')
}

pub(super) fn emit_yaml(doc: &Value, subject: &WorkloadRef) -> Result<String, InjectError> {
    crate::yaml::try_to_yaml(doc)
        .map(|mut text| {
            text.push('\n');
            text
        })
        .map_err(|e| InjectError::Emit {
            workload: Box::new(subject.clone()),
            message: e.to_string(),
        })
}

/// A document as one line of compact JSON, as `linkerd inject -o json` writes each.
pub(super) fn emit_json_line(doc: &Value, subject: &WorkloadRef) -> Result<String, InjectError> {
    crate::yaml::try_to_json(doc)
        .map(|mut text| {
            text.push('\n');
            text
        })
        .map_err(|e| InjectError::Emit {
            workload: Box::new(subject.clone()),
            message: e.to_string(),
        })
}

pub(super) fn emit_json(doc: &Value, subject: &WorkloadRef) -> Result<String, InjectError> {
    crate::yaml::try_to_pretty_json(doc).map_err(|e| InjectError::Emit {
        workload: Box::new(subject.clone()),
        message: e.to_string(),
    })
}
