//! A YAML stream split into documents that keep their exact text ([`Chunk`], [`YamlChunks`]),
//! with a `List` past [`STREAMED_LIST_BYTES`] handed out item by item. Separate from opening the
//! inputs, which only decides where bytes come from.

use super::super::error::InjectError;
use crate::input::GuardedReader;
use crate::values::Value;
use crate::yaml;
use std::collections::{HashSet, VecDeque};

/// A `List` larger than this is read item by item ([`super::Stream::yaml_chunks`]); smaller ones whole,
/// as any document. `kubectl get -A -o yaml` prints one `List` of everything it lists.
pub(crate) const STREAMED_LIST_BYTES: usize = 1 << 20;

/// Whether `line` is the block key `kind: List` at the top level of its document.
pub(super) fn is_list_kind_line(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("kind:") else {
        return false;
    };
    let value = rest.split(" #").next().unwrap_or_default().trim();
    matches!(value, "List" | "\"List\"" | "'List'")
}

/// Whether `line` is the block key `items:` at the top level of its document, its value below.
pub(super) fn is_items_line(line: &str) -> bool {
    line.strip_prefix("items:").is_some_and(|rest| {
        let rest = rest.trim();
        rest.is_empty() || rest.starts_with('#')
    })
}

/// What [`Splitter::step`] read: a line of the current document (in [`Splitter::line`]), or
/// the end of the document.
pub(super) enum Step {
    Line,
    End,
}

/// Cuts a stream into documents line by line, as [`split_yaml`] does for a whole text.
pub(super) struct Splitter<'a> {
    reader: GuardedReader<'a>,
    /// The line last read.
    pub(super) line: String,
    /// Its 1-based number.
    line_no: usize,
    /// The separator of the current document (empty for the first one).
    separator: String,
    /// The 1-based line the current document's body starts on.
    pub(super) body_line: usize,
    /// Whether the last line of the body that is not blank or a comment is a directive.
    after_directive: bool,
    /// The line that ended a document starts the next one's body (`--- {a: 1}`).
    carried: bool,
    /// The per-document cap counts afresh from the next line.
    pub(super) restart: bool,
    done: bool,
}

impl<'a> Splitter<'a> {
    pub(super) fn new(reader: GuardedReader<'a>) -> Self {
        Splitter {
            reader,
            line: String::new(),
            line_no: 0,
            separator: String::new(),
            body_line: 1,
            after_directive: false,
            carried: false,
            restart: false,
            done: false,
        }
    }

    /// The next line of the current document, or its end; `None` after the last document.
    pub(super) fn step(&mut self) -> Result<Option<Step>, InjectError> {
        if self.done {
            return Ok(None);
        }
        if std::mem::take(&mut self.carried) {
            self.note_body_line();
            return Ok(Some(Step::Line));
        }
        if std::mem::take(&mut self.restart) {
            self.reader.start_document();
        }
        self.line.clear();
        if !self.reader.read_line(&mut self.line)? {
            self.done = true;
            return Ok(Some(Step::End));
        }
        self.line_no += 1;
        // `%YAML`/`%TAG` directives belong to the document the next `---` starts.
        match separator_kind(&self.line).filter(|_| !self.after_directive) {
            None => {
                self.note_body_line();
                Ok(Some(Step::Line))
            }
            Some(pure) => {
                self.separator.clear();
                self.after_directive = false;
                if pure {
                    self.separator.push_str(&self.line);
                    self.body_line = self.line_no + 1;
                } else {
                    self.carried = true;
                    self.body_line = self.line_no;
                }
                Ok(Some(Step::End))
            }
        }
    }

    /// Notes whether the line is a directive, or other content that ends a run of them
    /// (blank lines and comments leave the state as it is).
    fn note_body_line(&mut self) {
        if self.line.starts_with('%') {
            self.after_directive = true;
        } else if self.after_directive {
            // Only after a directive does a line need a look past its indentation: on the
            // path every line takes, nothing else can change. YAML's white space is ASCII.
            let first = self.line.bytes().find(|b| !b.is_ascii_whitespace());
            self.after_directive = first.is_none_or(|b| b == b'#');
        }
    }
}

/// Which part of its document a chunk is: the whole of it, or a part of a `List` read item by
/// item. Concatenating a list's parts gives back its document exactly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ChunkPart {
    /// A whole document.
    #[default]
    Whole,
    /// A list's text up to and including its `items:` line (the separator is the document's).
    ListHead,
    /// One item of the list: its `- ` line and what belongs to it.
    ListItem,
    /// The list's text after its items (possibly empty): it ends the list.
    ListTail,
}

/// A YAML document read from a stream: its separator, its text and the line it starts on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OwnedChunk {
    /// As [`Chunk::separator`].
    pub separator: String,
    /// As [`Chunk::body`].
    pub body: String,
    /// As [`Chunk::line`].
    pub line: usize,
    /// The whole document, or a part of a `List` read item by item.
    pub part: ChunkPart,
}

impl OwnedChunk {
    /// The chunk as [`split_yaml`] would have cut it from the whole text.
    pub fn as_chunk(&self) -> Chunk<'_> {
        Chunk {
            separator: &self.separator,
            body: &self.body,
            line: self.line,
        }
    }
}

/// Where a `List` read item by item stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ListStage {
    /// Before its `items:` line.
    Head,
    /// Among its items, at the indentation of their `- ` (once the first is seen).
    Items(Option<usize>),
    /// After them.
    Tail,
}

/// The documents of a YAML stream, read line by line: the same chunks [`split_yaml`] gives for
/// the whole text, holding only one document (or one item of a large `List`) in memory.
pub struct YamlChunks<'a> {
    pub(super) splitter: Splitter<'a>,
    pub(super) streamed_lists: HashSet<usize>,
    /// The 0-based index of the document being read.
    pub(super) document: usize,
    /// The chunk being read.
    pub(super) current: OwnedChunk,
    /// Where the current document stands, when it is a list read item by item.
    pub(super) stage: Option<ListStage>,
    /// Chunks finished and not yet handed out.
    pub(super) ready: VecDeque<OwnedChunk>,
    pub(super) done: bool,
}

impl YamlChunks<'_> {
    /// Starts the chunk of the document the splitter is at.
    pub(super) fn begin_document(&mut self) {
        self.current = OwnedChunk {
            separator: self.splitter.separator.clone(),
            body: String::new(),
            line: self.splitter.body_line,
            part: ChunkPart::Whole,
        };
        self.stage = None;
        if self.streamed_lists.contains(&self.document) {
            self.stage = Some(ListStage::Head);
            self.current.part = ChunkPart::ListHead;
        }
    }

    /// Hands out the current chunk as `part` and starts one of `next` at `line`.
    fn cut(&mut self, part: ChunkPart, next: ChunkPart, line: usize) {
        let mut chunk = std::mem::replace(
            &mut self.current,
            OwnedChunk {
                line,
                part: next,
                ..OwnedChunk::default()
            },
        );
        chunk.part = part;
        self.ready.push_back(chunk);
        self.splitter.restart = true;
    }

    /// Ends the current document.
    fn end_document(&mut self) {
        match self.stage {
            Some(ListStage::Items(Some(_))) => {
                self.cut(
                    ChunkPart::ListItem,
                    ChunkPart::ListTail,
                    self.splitter.line_no,
                );
                self.ready.push_back(std::mem::take(&mut self.current));
            }
            Some(ListStage::Items(None) | ListStage::Tail) => {
                self.current.part = ChunkPart::ListTail;
                self.ready.push_back(std::mem::take(&mut self.current));
            }
            // The `items:` line the first pass saw was not reached: read as a whole document.
            Some(ListStage::Head) | None => {
                self.current.part = ChunkPart::Whole;
                self.ready.push_back(std::mem::take(&mut self.current));
            }
        }
        self.document += 1;
        self.splitter.restart = true;
        self.begin_document();
    }

    /// Adds the line the splitter holds to the current chunk, cutting a list at its parts.
    fn take_line(&mut self) {
        let line_no = self.splitter.line_no;
        let line = std::mem::take(&mut self.splitter.line);
        match self.stage {
            None | Some(ListStage::Tail) => self.current.body.push_str(&line),
            Some(ListStage::Head) => {
                self.current.body.push_str(&line);
                if is_items_line(&line) {
                    self.cut(ChunkPart::ListHead, ChunkPart::ListItem, line_no + 1);
                    self.stage = Some(ListStage::Items(None));
                }
            }
            Some(ListStage::Items(indent)) => {
                let content = line.trim_start_matches(' ');
                let at = line.len() - content.len();
                let blank = content.trim().is_empty() || content.starts_with('#');
                let dash = content.trim_end() == "-" || content.starts_with("- ");
                if blank || indent.is_some_and(|n| at > n) {
                    self.current.body.push_str(&line);
                } else if dash && indent.is_none_or(|n| at == n) {
                    if indent.is_some() {
                        self.cut(ChunkPart::ListItem, ChunkPart::ListItem, line_no);
                    }
                    self.stage = Some(ListStage::Items(Some(at)));
                    self.current.body.push_str(&line);
                } else {
                    // A key of the list itself: the items are over.
                    if indent.is_some() {
                        self.cut(ChunkPart::ListItem, ChunkPart::ListTail, line_no);
                    } else {
                        self.current.part = ChunkPart::ListTail;
                    }
                    self.stage = Some(ListStage::Tail);
                    self.current.body.push_str(&line);
                }
            }
        }
        self.splitter.line = line;
    }
}

impl Iterator for YamlChunks<'_> {
    type Item = Result<OwnedChunk, InjectError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(chunk) = self.ready.pop_front() {
                return Some(Ok(chunk));
            }
            if self.done {
                return None;
            }
            match self.splitter.step() {
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
                Ok(None) => self.done = true,
                Ok(Some(Step::End)) => self.end_document(),
                Ok(Some(Step::Line)) => self.take_line(),
            }
        }
    }
}

/// A piece of an input stream: the text that separates it from the previous one, and its body.
///
/// Concatenating `separator + body` over all chunks gives back the stream exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk<'a> {
    /// A `---` line (YAML) or the whitespace between values (JSON); empty for the first chunk.
    pub separator: &'a str,
    /// The document's text.
    pub body: &'a str,
    /// The 1-based line of the file the body starts on.
    pub line: usize,
}

impl Chunk<'_> {
    /// Whether the body holds nothing but blank lines and comments.
    pub fn is_blank(&self) -> bool {
        self.body
            .lines()
            .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
    }
}

/// What a `---` line does: separate (the line belongs to no document), or start a document whose
/// content begins on the same line (`--- {a: 1}`).
pub(super) fn separator_kind(line: &str) -> Option<bool> {
    let rest = line.strip_prefix("---")?;
    let rest = rest.trim_end_matches(['\n', '\r']);
    if rest.is_empty() {
        return Some(true);
    }
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let content = rest.trim();
    Some(content.is_empty() || content.starts_with('#'))
}

/// The leading comment lines of a YAML body (kept when the document is rewritten).
pub(crate) fn leading_comments(body: &str) -> &str {
    let mut end = 0;
    for line in body.split_inclusive('\n') {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            end += line.len();
        } else {
            break;
        }
    }
    &body[..end]
}

/// Parses a YAML chunk into its documents (usually one; none for a blank chunk).
pub(crate) fn parse_yaml_chunk(source: &str, chunk: &Chunk<'_>) -> Result<Vec<Value>, InjectError> {
    if chunk.is_blank() {
        return Ok(Vec::new());
    }
    yaml::load::parse_manifest_documents(chunk.body, chunk.line).map_err(|e| InjectError::Yaml {
        path: source.to_owned(),
        line: e.position.line,
        column: e.position.column,
        message: e.message,
    })
}

/// Splits a whole YAML text on `---` lines, keeping every byte: the plain model that the
/// streaming [`YamlChunks`] is tested against.
#[cfg(test)]
pub(crate) fn split_yaml(text: &str) -> Vec<Chunk<'_>> {
    let mut chunks = Vec::new();
    let mut separator = "";
    let mut body_start = 0;
    let mut body_line = 1;
    let mut offset = 0;
    for (line_no, line) in (1..).zip(text.split_inclusive('\n')) {
        // `%YAML`/`%TAG` directives belong to the document the next `---` starts.
        let after_directive = || ends_with_directive(&text[body_start..offset]);
        if let Some(pure) = separator_kind(line).filter(|_| !after_directive()) {
            chunks.push(Chunk {
                separator,
                body: &text[body_start..offset],
                line: body_line,
            });
            if pure {
                separator = line;
                body_start = offset + line.len();
                body_line = line_no + 1;
            } else {
                separator = "";
                body_start = offset;
                body_line = line_no;
            }
        }
        offset += line.len();
    }
    chunks.push(Chunk {
        separator,
        body: &text[body_start..],
        line: body_line,
    });
    chunks
}

#[cfg(test)]
/// Whether the last line of `body` that is not blank or a comment is a directive (`%YAML 1.1`).
fn ends_with_directive(body: &str) -> bool {
    body.lines()
        .rev()
        .find(|l| !(l.trim().is_empty() || l.trim_start().starts_with('#')))
        .is_some_and(|l| l.starts_with('%'))
}
