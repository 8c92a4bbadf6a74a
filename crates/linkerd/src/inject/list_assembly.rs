//! A `List` too large to hold (past [`super::input::STREAMED_LIST_BYTES`]) transformed item by
//! item: its items spooled to a temporary file and the `List` around them written back. Separate
//! because only the streaming driver uses it, for that one case.

use super::error::InjectError;
use super::input::{leading_comments, parse_yaml_chunk};
use super::input::{Chunk, OwnedChunk};
use super::write::{emit_yaml, subject, Output};
use crate::values::Value;
use std::io::Write;

/// A `List` read item by item ([`ChunkPart`]), put back together on its way out: its text as
/// read and its items as written anew wait in temporary files (memory does not grow with the
/// list), and once its last part is in, the list is written as a whole `List` would be: its
/// text byte for byte when no item changed, else written anew.
pub(super) struct ListAssembly {
    source: String,
    /// The list's text up to its `items:` line, and where it starts.
    head: String,
    line: usize,
    /// Whether the document started on its `---` line.
    started_on_separator: bool,
    /// The text as read, after the head.
    read: std::io::BufWriter<std::fs::File>,
    /// The items written anew (`- ` and the item, as the whole list's text holds them).
    written: std::io::BufWriter<std::fs::File>,
    changed: bool,
}

/// What stands for the items when the list's own keys are written: its line is cut out.
const ITEMS_PLACEHOLDER: &str = "meshchart-streamed-list-items";

impl ListAssembly {
    pub(super) fn start(source: &str, head: &OwnedChunk) -> Result<ListAssembly, InjectError> {
        let spool = || {
            tempfile::tempfile()
                .map(|f| std::io::BufWriter::with_capacity(64 * 1024, f))
                .map_err(InjectError::temp_file(
                    "a long List while it is read item by item",
                ))
        };
        Ok(ListAssembly {
            source: source.to_owned(),
            head: head.body.clone(),
            line: head.line,
            started_on_separator: head.separator.is_empty() && head.body.starts_with("---"),
            read: spool()?,
            written: spool()?,
            changed: false,
        })
    }

    /// A list part without its head: a bug of the reader, said rather than written wrong.
    pub(super) fn lost(source: &str, chunk: &OwnedChunk) -> InjectError {
        InjectError::Usage(format!(
            "{source}:{}: a part of a List read item by item came without its start",
            chunk.line
        ))
    }

    pub(super) fn item(
        &mut self,
        read: &str,
        written: &str,
        changed: bool,
    ) -> Result<(), InjectError> {
        let write_error = |source| InjectError::Write { source };
        self.read.write_all(read.as_bytes()).map_err(write_error)?;
        self.written
            .write_all(written.as_bytes())
            .map_err(write_error)?;
        self.changed |= changed;
        Ok(())
    }

    /// Writes the whole list, `tail` being its text after the items.
    pub(super) fn finish<W: Write>(
        self,
        tail: &str,
        out: &mut Output<W>,
    ) -> Result<(), InjectError> {
        if !self.changed {
            out.push(&self.head)?;
            copy_spool(self.read, out)?;
            return out.push(tail);
        }
        // The list's own keys, read from its head and tail, written with a stand-in for the
        // items; the items written anew go where the stand-in's line is.
        let keys = format!("{}{tail}", self.head);
        let chunk = Chunk {
            separator: "",
            body: &keys,
            line: self.line,
        };
        let mut docs = parse_yaml_chunk(&self.source, &chunk)?;
        let (Some(Value::Map(map)), true) = (docs.pop(), docs.is_empty()) else {
            return Err(InjectError::Usage(format!(
                "{}:{}: a List read item by item is not one mapping",
                self.source, self.line
            )));
        };
        let mut list = map;
        list.insert(
            "items".into(),
            Value::Seq(vec![Value::String(ITEMS_PLACEHOLDER.into())]),
        );
        let list = Value::Map(list);
        let text = emit_yaml(&list, &subject(&list, &self.source, self.line))?;
        let placeholder = format!("\n- {ITEMS_PLACEHOLDER}\n");
        let Some(at) = text.find(&placeholder) else {
            return Err(InjectError::Usage(format!(
                "{}:{}: a List read item by item could not be written back",
                self.source, self.line
            )));
        };
        if self.started_on_separator {
            out.push("---\n")?;
        }
        out.push(leading_comments(&self.head))?;
        out.push(&text[..=at])?;
        copy_spool(self.written, out)?;
        out.push(&text[at + placeholder.len()..])
    }
}

/// Copies a spool written by [`ListAssembly`] to the output, a line at a time.
fn copy_spool<W: Write>(
    spool: std::io::BufWriter<std::fs::File>,
    out: &mut Output<W>,
) -> Result<(), InjectError> {
    use std::io::{BufRead, Seek};
    let write_error = |source| InjectError::Write { source };
    let mut file = spool
        .into_inner()
        .map_err(|e| write_error(e.into_error()))?;
    file.rewind().map_err(write_error)?;
    let mut reader = std::io::BufReader::with_capacity(64 * 1024, file);
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).map_err(write_error)? == 0 {
            return Ok(());
        }
        out.push(&line)?;
    }
}

/// The items of a `List`'s item chunk (one, unless the chunk holds more than its reader cut).
pub(super) fn list_items(source: &str, chunk: &OwnedChunk) -> Result<Vec<Value>, InjectError> {
    let mut items = Vec::new();
    for doc in parse_yaml_chunk(source, &chunk.as_chunk())? {
        match doc {
            Value::Seq(seq) => items.extend(seq),
            Value::Null => {}
            _ => {
                return Err(InjectError::Yaml {
                    path: source.to_owned(),
                    line: chunk.line,
                    column: 1,
                    message: "expected an item of the List's `items:`".into(),
                })
            }
        }
    }
    Ok(items)
}
