//! The streaming driver: inputs read one document at a time, transformed in batches on all cores,
//! written in input order, the output held back until every document went through. Separate from
//! the transformation of one document ([`super::transform`]) and from how a streamed `List` is
//! put back together ([`super::list_assembly`]).

use super::error::InjectError;
use super::input;
use super::input::Stream;
use super::input::{leading_comments, parse_yaml_chunk, split_json};
use super::input::{Chunk, ChunkPart, OwnedChunk};
use super::list_assembly::{list_items, ListAssembly};
use super::report::{Entry, Outcome, ReportSink};
use super::transform::Transform;
use super::write::{
    emit_json, emit_json_line, emit_yaml, is_pristine, missing_kind, subject, Output,
};
use super::OutputFormat;
use crate::values::Value;
use rayon::prelude::*;
use std::io::Write;
use std::sync::mpsc;

/// Runs `transform` over every document of `inputs`, writing to `out` as it goes.
pub(super) fn run(
    inputs: &[Stream],
    transform: &dyn Transform,
    format: OutputFormat,
    out: &mut dyn Write,
    report: &mut dyn ReportSink,
) -> Result<(), InjectError> {
    let json_inputs = inputs
        .iter()
        .map(Stream::is_json)
        .collect::<Result<Vec<bool>, _>>()?;
    let json_output = match format {
        OutputFormat::Auto => !inputs.is_empty() && json_inputs.iter().all(|json| *json),
        OutputFormat::Yaml => false,
        OutputFormat::Json => true,
    };
    let driver = Driver {
        transform,
        json_output,
        json_lines: format == OutputFormat::Json,
    };
    let mut output = Output {
        out: std::io::BufWriter::with_capacity(64 * 1024, out),
        json: json_output,
        wrote: false,
        ends_with_newline: false,
        source_started: false,
    };
    for (input, json) in inputs.iter().zip(json_inputs) {
        output.source_started = false;
        if json {
            driver.json_source(input, &mut output, report)?;
        } else {
            driver.transform_yaml(input, &mut output, report)?;
        }
    }
    output
        .out
        .flush()
        .map_err(|source| InjectError::Write { source })
}

/// A batch of documents and what each became.
type TransformedBatch = (Vec<OwnedChunk>, Vec<Result<ChunkResult, InjectError>>);

/// Writes a transformed batch (if any) in input order, up to its first failure.
fn write_batch<W: Write>(
    source: &str,
    batch: Option<TransformedBatch>,
    out: &mut Output<W>,
    report: &mut dyn ReportSink,
    list: &mut Option<ListAssembly>,
) -> Result<(), InjectError> {
    let Some((chunks, results)) = batch else {
        return Ok(());
    };
    for (chunk, result) in chunks.iter().zip(results) {
        // JSON documents need no separator (a YAML input written as JSON lines).
        if !out.json {
            out.push(&chunk.separator)?;
        }
        let result = result?;
        for entry in result.entries {
            report.entry(entry)?;
        }
        match chunk.part {
            ChunkPart::Whole => out.push(&result.text)?,
            // A JSON line is one whole document; a List read item by item never is one.
            ChunkPart::ListHead if out.json => {
                return Err(InjectError::Usage(format!(
                    "{source}:{}: a List larger than {} MiB is read item by item and cannot be \
                     written as one JSON line (-o json): write YAML (-o yaml), or split the List",
                    chunk.line,
                    input::STREAMED_LIST_BYTES >> 20
                )))
            }
            ChunkPart::ListHead => *list = Some(ListAssembly::start(source, chunk)?),
            ChunkPart::ListItem => match list {
                Some(list) => list.item(&chunk.body, &result.text, result.changed)?,
                None => return Err(ListAssembly::lost(source, chunk)),
            },
            ChunkPart::ListTail => match list.take() {
                Some(list) => list.finish(&chunk.body, out)?,
                None => return Err(ListAssembly::lost(source, chunk)),
            },
        }
    }
    Ok(())
}

struct Driver<'a> {
    transform: &'a dyn Transform,
    json_output: bool,
    /// Every document as one compact JSON line ([`OutputFormat::Json`]).
    json_lines: bool,
}

/// Documents transformed at once: they are independent (Namespaces were read beforehand), so a
/// batch runs on all cores and is written in input order; the batch bounds the memory in flight.
pub(super) const DOCUMENTS_PER_BATCH: usize = 128;

/// What one YAML document becomes: the text that follows its separator, and its report entries.
/// For an item of a list read item by item, the text is the item written anew, changed or not
/// (the list is written anew when any item changed).
struct ChunkResult {
    text: String,
    entries: Vec<Entry>,
    changed: bool,
}

impl Driver<'_> {
    /// Transforms a YAML stream batch by batch. While the pool transforms one batch, this
    /// thread writes the one before and reads the one after, so reading and writing (a fifth of
    /// the work, perf record) no longer leave the cores idle.
    fn transform_yaml<W: Write>(
        &self,
        source: &Stream,
        out: &mut Output<W>,
        report: &mut dyn ReportSink,
    ) -> Result<(), InjectError> {
        let mut chunks = source.yaml_chunks()?;
        let mut read_batch = || {
            chunks
                .by_ref()
                .take(DOCUMENTS_PER_BATCH)
                .collect::<Result<Vec<_>, _>>()
        };
        let name = &source.name;
        let mut batch = read_batch()?;
        // A read error waits until the documents before it are written, as it did when reading
        // and writing took turns.
        let mut read_error = None;
        // One helper thread for the whole stream (a thread per batch started dozens of threads,
        // each with an empty allocator cache): it hands each batch to the pool.
        let (to_transform, batches) = mpsc::sync_channel::<Vec<OwnedChunk>>(1);
        let (transformed, results) = mpsc::sync_channel::<TransformedBatch>(1);
        let coordinate = move || {
            for batch in batches {
                let transform = || {
                    // One document per job (see fleet::render_clusters): the batch's
                    // last documents no longer wait on one thread while the other idles.
                    batch
                        .par_iter()
                        .with_max_len(1)
                        .map(|chunk| self.yaml_chunk(name, chunk))
                        .collect::<Vec<_>>()
                };
                let done = match crate::parallel::all_cores() {
                    Some(pool) => pool.install(transform),
                    None => transform(),
                };
                if transformed.send((batch, done)).is_err() {
                    return;
                }
            }
        };
        let read_and_write = || {
            let mut list = None;
            let mut finished: Option<TransformedBatch> = None;
            while !batch.is_empty() {
                if to_transform.send(std::mem::take(&mut batch)).is_err() {
                    // The coordinator panicked; leaving the scope raises its panic here.
                    break;
                }
                let written = write_batch(name, finished.take(), out, report, &mut list);
                let next = read_batch();
                let Ok(done) = results.recv() else {
                    break;
                };
                written?;
                finished = Some(done);
                batch = next.unwrap_or_else(|e| {
                    read_error = Some(e);
                    Vec::new()
                });
            }
            drop(to_transform);
            write_batch(name, finished, out, report, &mut list)
        };
        crate::parallel::beside(coordinate, read_and_write).map_err(InjectError::Usage)??;
        read_error.map_or(Ok(()), Err)
    }

    /// Transforms one chunk of a YAML stream: a whole document ([`Driver::yaml_document`]), or
    /// an item of a list read item by item.
    fn yaml_chunk(&self, source: &str, chunk: &OwnedChunk) -> Result<ChunkResult, InjectError> {
        match chunk.part {
            ChunkPart::Whole => self.yaml_document(source, &chunk.as_chunk()),
            ChunkPart::ListHead | ChunkPart::ListTail => Ok(ChunkResult {
                text: String::new(),
                entries: Vec::new(),
                changed: false,
            }),
            ChunkPart::ListItem => {
                let mut entries = Vec::new();
                let mut changed = false;
                let mut items = Vec::new();
                let pristine = is_pristine(&chunk.body);
                for item in list_items(source, chunk)? {
                    let (item, item_changed) =
                        self.document(item, source, chunk.line, pristine, &mut entries)?;
                    changed |= item_changed;
                    items.push(item);
                }
                let items = Value::Seq(items);
                let text = emit_yaml(&items, &subject(&Value::Null, source, chunk.line))?;
                Ok(ChunkResult {
                    text,
                    entries,
                    changed,
                })
            }
        }
    }

    /// Transforms one YAML document: its text back byte for byte when nothing changed, else its
    /// leading comments and the documents written anew.
    fn yaml_document(&self, source: &str, chunk: &Chunk<'_>) -> Result<ChunkResult, InjectError> {
        let mut entries = Vec::new();
        let unchanged = |entries| {
            Ok(ChunkResult {
                // A blank or comment-only document has nothing to write as JSON.
                text: match self.json_lines {
                    true => String::new(),
                    false => chunk.body.to_owned(),
                },
                entries,
                changed: false,
            })
        };
        if chunk.body.is_empty() {
            return unchanged(entries);
        }
        let docs = parse_yaml_chunk(source, chunk)?;
        if docs.is_empty() {
            // A blank document between separators, reported as upstream does.
            if !chunk.separator.is_empty() {
                entries.push(missing_kind(source, chunk.line));
            }
            return unchanged(entries);
        }
        let pristine = is_pristine(chunk.body);
        let mut changed = false;
        let mut results = Vec::with_capacity(docs.len());
        for doc in docs {
            let (doc, doc_changed) =
                self.document(doc, source, chunk.line, pristine, &mut entries)?;
            changed |= doc_changed;
            results.push(doc);
        }
        if self.json_lines {
            let mut text = String::new();
            for doc in &results {
                text.push_str(&emit_json_line(doc, &subject(doc, source, chunk.line))?);
            }
            // Every document is written anew as a JSON line.
            return Ok(ChunkResult {
                text,
                entries,
                changed: true,
            });
        }
        if !changed {
            return unchanged(entries);
        }
        let mut text = String::with_capacity(chunk.body.len() * 2);
        if chunk.separator.is_empty() && chunk.body.starts_with("---") {
            text.push_str("---\n"); // the body started the document on its `---` line
        }
        text.push_str(leading_comments(chunk.body));
        for (i, doc) in results.iter().enumerate() {
            if i > 0 {
                text.push_str("---\n");
            }
            text.push_str(&emit_yaml(doc, &subject(doc, source, chunk.line))?);
        }
        Ok(ChunkResult {
            text,
            entries,
            changed: true,
        })
    }

    /// A JSON input: read whole (a JSON stream is parsed as one text), written value by value.
    fn json_source<W: Write>(
        &self,
        source: &Stream,
        out: &mut Output<W>,
        report: &mut dyn ReportSink,
    ) -> Result<(), InjectError> {
        let text = source.text()?;
        for (chunk, value) in split_json(&source.name, &text)? {
            if chunk.body.is_empty() {
                if self.json_output && !self.json_lines {
                    out.push(chunk.separator)?;
                }
                continue;
            }
            let mut entries = Vec::new();
            let (doc, changed) = self.document(
                value,
                &source.name,
                chunk.line,
                is_pristine(chunk.body),
                &mut entries,
            )?;
            for entry in entries {
                report.entry(entry)?;
            }
            let subject = || subject(&doc, &source.name, chunk.line);
            if self.json_lines {
                out.push(&emit_json_line(&doc, &subject())?)?;
            } else if self.json_output {
                out.push(chunk.separator)?;
                if changed {
                    out.push(&emit_json(&doc, &subject())?)?;
                } else {
                    out.push(chunk.body)?;
                }
            } else {
                // Mixed inputs: the whole stream is YAML.
                if out.source_started {
                    out.push("---\n")?;
                }
                out.push(&emit_yaml(&doc, &subject())?)?;
            }
        }
        if self.json_output && out.source_started && !out.ends_with_newline {
            out.push("\n")?;
        }
        Ok(())
    }

    /// Transforms one document (a resource, a `List` of them, or anything else). `pristine`
    /// says its text holds nothing of a mesh (see [`is_pristine`]).
    fn document(
        &self,
        mut doc: Value,
        source: &str,
        line: usize,
        pristine: bool,
        entries: &mut Vec<Entry>,
    ) -> Result<(Value, bool), InjectError> {
        let at = subject(&doc, source, line);
        if at.kind.is_empty() {
            entries.push(missing_kind(source, line));
            return Ok((doc, false));
        }
        if at.kind == "List" {
            if let Some(Value::Seq(items)) = doc.as_map_mut().and_then(|m| m.get_mut("items")) {
                let mut changed = false;
                for item in items.iter_mut() {
                    let (new, item_changed) =
                        self.document(std::mem::take(item), source, line, pristine, entries)?;
                    *item = new;
                    changed |= item_changed;
                }
                return Ok((doc, changed));
            }
        }
        // Whether the document changed decides between writing its text back byte for byte and
        // writing it anew. A pristine document changes exactly when it is injected (nothing
        // else touches it), so only documents that may hold a mesh pay for a copy to compare.
        let before = (!pristine && !self.transform.outcome_tells_change()).then(|| doc.clone());
        let mut outcome = self.transform.resource(&mut doc, &at)?;
        let changed = match before {
            Some(before) => doc != before,
            None => matches!(outcome, Outcome::Injected { .. } | Outcome::Uninjected),
        };
        if let Outcome::Injected { changed: c, .. } = &mut outcome {
            *c = changed;
        }
        entries.push(Entry {
            source: at.source,
            line: at.line,
            kind: at.kind,
            name: at.name,
            namespace: at.namespace,
            outcome,
        });
        Ok((doc, changed))
    }
}
