//! One template's output read into documents, and a whole chart's render assembled: the
//! manifest's side of a render, after the engine has rendered each template's text.
//!
//! [`DocumentReader`] runs on the threads that render (the engine hands it each template's
//! output as soon as it is rendered): it splits the output at Helm's separators and checks each
//! document's YAML, reading its head (kind, name, namespace, hook). [`assemble`] puts the
//! documents of all templates in Helm's order and applies `--show-only`; [`render`] does both
//! for a chart's engine.

use super::checked::CheckedDocuments;
use super::{
    in_helm_order, line_of, show_only, split_documents, split_documents_as_helm, Rendered,
    RenderedDocument,
};
use crate::engine::{Engine, OutputProblem, OutputReader, RenderError, RenderOptions};
use crate::values::Value;
use crate::yaml;

/// Reads templates' outputs into checked documents.
#[derive(Default)]
pub struct DocumentReader {
    /// Documents checked in earlier renders, when this reader reads many similar ones.
    checked: Option<CheckedDocuments>,
}

impl DocumentReader {
    /// A reader that checks every document afresh.
    pub fn new() -> Self {
        DocumentReader::default()
    }

    /// Remembers every document that passes the YAML check, so a render that repeats it
    /// (another cluster of a fleet) takes its head from memory; same results, less work.
    pub fn remembering_checked_documents(mut self) -> Self {
        self.checked = Some(CheckedDocuments::default());
        self
    }
}

/// Whether template `name` is the chart's notes, which Helm renders but does not print.
fn is_notes(name: &str) -> bool {
    name.ends_with("NOTES.txt")
}

impl OutputReader for DocumentReader {
    type Read = Vec<RenderedDocument>;

    fn read(&self, template: &str, output: &str) -> Result<Vec<RenderedDocument>, OutputProblem> {
        self.read_documents(template, output, split_documents(output))
    }
}

impl DocumentReader {
    /// [`OutputReader::read`] for a Go chart's template: its output split exactly as Helm
    /// splits it ([`split_documents_as_helm`]).
    pub fn read_as_helm(
        &self,
        template: &str,
        output: &str,
    ) -> Result<Vec<RenderedDocument>, OutputProblem> {
        self.read_documents(template, output, split_documents_as_helm(output))
    }

    fn read_documents(
        &self,
        template: &str,
        output: &str,
        slices: Vec<super::DocumentSlice<'_>>,
    ) -> Result<Vec<RenderedDocument>, OutputProblem> {
        if is_notes(template) {
            return Ok(Vec::new());
        }
        slices
            .into_iter()
            .enumerate()
            .map(|(index, slice)| {
                let scan = |text: &str| match &self.checked {
                    Some(checked) => checked.head((template, index), text),
                    None => yaml::scan_manifest_head(text),
                };
                // A label or annotation written twice (the chart's, then the user's
                // commonLabels or podAnnotations) is written once, with the later value (see
                // repeated_metadata).
                let mut merged_text = None;
                let head = scan(slice.text).or_else(|e| {
                    super::later_labels_and_annotations_win(slice.text)
                        .and_then(|merged| {
                            let head = scan(&merged).ok()?;
                            merged_text = Some(merged);
                            Some(head)
                        })
                        .ok_or(e)
                });
                let head = head.map_err(|e| OutputProblem {
                    line: line_of(output, slice.offset) + e.position.line - 1,
                    column: e.position.column,
                    message: e.message,
                })?;
                Ok(RenderedDocument {
                    template: format!("templates/{template}"),
                    text: merged_text.unwrap_or_else(|| slice.text.to_owned()),
                    kind: head.kind,
                    name: head.name,
                    namespace: head.namespace,
                    hook: head.hook,
                })
            })
            .collect()
    }
}

/// The documents of every template of chart `chart_name` (in template order) as `helm
/// template` prints them: in Helm's order, only those of the templates `--show-only` names.
pub fn assemble(
    chart_name: &str,
    templates: Vec<Vec<RenderedDocument>>,
    opts: &RenderOptions,
) -> Result<Rendered, RenderError> {
    let (ordered, notes) = in_helm_order(templates.into_iter().flatten().collect());
    let documents = show_only(ordered, &opts.show_only)
        .map_err(|pattern| RenderError::ShowOnlyNotFound { pattern })?;
    Ok(Rendered {
        chart_name: chart_name.to_owned(),
        documents,
        notes,
    })
}

/// Renders every template of `engine` with `values`, read by `reader`, and returns the
/// documents in Helm's order.
pub fn render(
    engine: &Engine,
    values: &Value,
    opts: &RenderOptions,
    reader: &DocumentReader,
) -> Result<Rendered, RenderError> {
    let templates = engine.render(values, opts, reader)?;
    assemble(engine.chart_name(), templates, opts)
}

/// [`render`] with the process's helper thread rendering beside this one (see
/// [`Engine::render_with_a_helper`]).
pub fn render_with_a_helper(
    engine: &Engine,
    values: &Value,
    opts: &RenderOptions,
    reader: &DocumentReader,
) -> Result<Rendered, RenderError> {
    let templates = engine.render_with_a_helper(values, opts, reader)?;
    assemble(engine.chart_name(), templates, opts)
}
