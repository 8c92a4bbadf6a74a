//! Reading manifests: files, folders (recursively) and stdin, split into documents that keep
//! their exact text, so a document nobody changes is written back byte for byte.

use super::error::InjectError;
use crate::input::{self, GuardedReader, Input};
use crate::values::Value;
use crate::yaml;
use camino::{Utf8Path, Utf8PathBuf};
use std::collections::{HashSet, VecDeque};
use std::io::{Read, Seek};
use std::sync::OnceLock;

/// File extensions read when walking a folder.
pub const EXTENSIONS: &[&str] = &["yaml", "yml", "json"];

/// Name used for stdin in messages and reports.
pub const STDIN_NAME: &str = input::STDIN_NAME;

/// One input stream: a file's or stdin's whole text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// The path, or [`STDIN_NAME`].
    pub name: String,
    /// The text.
    pub text: String,
}

impl Source {
    /// Whether the text is read as JSON: it opens an object or array and is a stream of JSON
    /// values. Text that only starts like JSON (`{kind: Pod, ...}`) is flow-style YAML, as kubectl
    /// reads it; text that is neither stays JSON, so the error shown is JSON's.
    pub fn is_json(&self) -> bool {
        matches!(self.text.trim_start().chars().next(), Some('{') | Some('['))
            && starting_like_json_is_json(&self.text)
    }
}

impl From<Input> for Source {
    fn from(input: Input) -> Source {
        Source {
            name: input.name,
            text: input.text,
        }
    }
}

/// Reads the inputs named on the command line, in order, through the input door, each whole
/// (see [`open_inputs`] for which inputs the arguments name).
pub fn read_sources(args: &[String], stdin: &mut dyn Read) -> Result<Vec<Source>, InjectError> {
    open_inputs(args, stdin)?
        .into_iter()
        .map(|stream| {
            Ok(Source {
                text: stream.text()?,
                name: stream.name,
            })
        })
        .collect()
}

/// One inject input that can be read from its start more than once, one line at a time through
/// the input door ([`GuardedReader`]): inject reads every input twice (first for `Namespace`
/// documents, then to transform it), holding one document at a time.
#[derive(Debug)]
pub struct Stream {
    /// The path, or [`STDIN_NAME`].
    pub name: String,
    origin: StreamOrigin,
    /// The documents read item by item, found once: every pass cuts the stream the same way.
    streamed_lists: OnceLock<HashSet<usize>>,
}

#[derive(Debug)]
enum StreamOrigin {
    /// A regular file, opened again for each pass.
    File(Utf8PathBuf),
    /// Standard input or a FIFO, copied into an unnamed temporary file (either can be read only
    /// once, and holding it in memory would grow with the stream).
    Spooled(std::fs::File),
    /// Text already in memory (library callers, tests).
    Text(String),
}

impl From<Source> for Stream {
    fn from(source: Source) -> Stream {
        Stream::new(source.name, StreamOrigin::Text(source.text))
    }
}

impl Stream {
    fn new(name: String, origin: StreamOrigin) -> Stream {
        Stream {
            name,
            origin,
            streamed_lists: OnceLock::new(),
        }
    }

    /// Which of `words` occur anywhere in the stream's bytes, found by one pass over the raw
    /// bytes (no line splitting, no checks): a word found nowhere spares a pass over the lines.
    /// The door still checks every byte on the passes that read the stream.
    pub fn mentions(&self, words: &[&str]) -> Result<Vec<bool>, InjectError> {
        let finders: Vec<_> = words.iter().map(memchr::memmem::Finder::new).collect();
        let mut found = vec![false; words.len()];
        let mut look = |bytes: &[u8]| {
            for (found, finder) in found.iter_mut().zip(&finders) {
                *found = *found || finder.find(bytes).is_some();
            }
        };
        let io_error = |source| InjectError::from(input::InputError::io(&self.name, source));
        let mut file = match &self.origin {
            StreamOrigin::Text(text) => {
                look(text.as_bytes());
                return Ok(found);
            }
            StreamOrigin::File(path) => {
                let file = std::fs::File::open(path).map_err(io_error)?;
                // Swapped for something else since it was listed: the passes over the lines
                // read it through the door, which names the problem.
                if !file.metadata().map_err(io_error)?.is_file() {
                    return Ok(vec![true; words.len()]);
                }
                file
            }
            StreamOrigin::Spooled(file) => {
                let mut file = file.try_clone().map_err(io_error)?;
                file.rewind().map_err(io_error)?;
                file
            }
        };
        // Blocks overlap by the longest word less one byte, so no word is cut in two.
        let overlap = words
            .iter()
            .map(|w| w.len())
            .max()
            .unwrap_or(1)
            .saturating_sub(1);
        let mut block = vec![0u8; (1 << 16) + overlap];
        let mut kept = 0;
        loop {
            let read = match file.read(&mut block[kept..]) {
                Ok(0) => break,
                Ok(read) => read,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(io_error(e)),
            };
            let filled = kept + read;
            look(&block[..filled]);
            kept = overlap.min(filled);
            block.copy_within(filled - kept..filled, 0);
        }
        Ok(found)
    }

    /// A reader from the start of the stream, under the door's rules (cap, UTF-8, no NUL), the
    /// cap on the whole stream (a JSON input, parsed as one text).
    pub fn reader(&self) -> Result<GuardedReader<'_>, InjectError> {
        let io_error = |source| InjectError::from(input::InputError::io(&self.name, source));
        Ok(match &self.origin {
            StreamOrigin::File(path) => GuardedReader::open(path)?,
            StreamOrigin::Spooled(file) => {
                let mut file = file.try_clone().map_err(io_error)?;
                file.rewind().map_err(io_error)?;
                GuardedReader::new(&self.name, Box::new(file), input::max_input_bytes()?)?
            }
            StreamOrigin::Text(text) => {
                GuardedReader::new(&self.name, Box::new(text.as_bytes()), u64::MAX)?
            }
        })
    }

    /// A reader whose cap applies to each document (YAML streams, read a document at a time):
    /// a stream of any length is read in constant memory.
    fn document_reader(&self) -> Result<GuardedReader<'_>, InjectError> {
        Ok(self.reader()?.per_document())
    }

    /// Whether the stream is JSON, as [`Source::is_json`] decides. Reads only up to the first
    /// non-blank character, unless it opens an object or array.
    pub fn is_json(&self) -> Result<bool, InjectError> {
        let mut reader = self.reader()?;
        let mut line = String::new();
        loop {
            line.clear();
            if !reader.read_line(&mut line)? {
                return Ok(false);
            }
            if let Some(first) = line.trim_start().chars().next() {
                return Ok(matches!(first, '{' | '[') && starting_like_json_is_json(&self.text()?));
            }
        }
    }

    /// The whole text (JSON inputs, which are parsed as one value stream).
    pub fn text(&self) -> Result<String, InjectError> {
        Ok(self.reader()?.read_to_end()?.text)
    }

    /// The YAML documents of the stream, one at a time, as [`split_yaml`] cuts them; a `List`
    /// larger than [`STREAMED_LIST_BYTES`] comes in parts (see [`ChunkPart`]), so neither
    /// memory nor the per-document cap grows with it.
    pub fn yaml_chunks(&self) -> Result<YamlChunks<'_>, InjectError> {
        // First, and to its end: a spooled stream's readers share one file offset.
        let streamed_lists = match self.streamed_lists.get() {
            Some(lists) => lists.clone(),
            None => {
                let lists = self.streamed_lists()?;
                self.streamed_lists.get_or_init(|| lists).clone()
            }
        };
        let mut chunks = YamlChunks {
            splitter: Splitter::new(self.document_reader()?),
            streamed_lists,
            document: 0,
            current: OwnedChunk::default(),
            stage: None,
            ready: VecDeque::new(),
            done: false,
        };
        chunks.begin_document();
        Ok(chunks)
    }

    /// The (0-based) documents that are `List`s read item by item: larger than
    /// [`STREAMED_LIST_BYTES`], with `kind: List` and `items:` as block keys of the document.
    /// Found by a pass over the lines, holding none of them, when the stream mentions `List`.
    fn streamed_lists(&self) -> Result<HashSet<usize>, InjectError> {
        let mut lists = HashSet::new();
        if self.mentions(&["List"])? == [false] {
            return Ok(lists);
        }
        let mut splitter = Splitter::new(self.document_reader()?);
        let (mut document, mut bytes, mut is_list, mut has_items) = (0, 0, false, false);
        let mut starts_at = 1;
        loop {
            let step = match splitter.step() {
                Ok(Some(step)) => step,
                Ok(None) => break,
                Err(e) => return Err(named_by_start(e, starts_at)),
            };
            // A line is never longer than a document: here the cap counts line by line.
            splitter.restart = true;
            if let Step::End = step {
                if bytes > STREAMED_LIST_BYTES && is_list && has_items {
                    lists.insert(document);
                }
                (document, bytes, is_list, has_items) = (document + 1, 0, false, false);
                starts_at = splitter.body_line;
                continue;
            }
            bytes += splitter.line.len();
            is_list |= is_list_kind_line(&splitter.line);
            has_items |= is_items_line(&splitter.line);
        }
        Ok(lists)
    }
}

/// A line past the per-document cap, read where only lines are held: the document holding it
/// is past the cap too, and is named by its first line.
fn named_by_start(e: InjectError, starts_at: usize) -> InjectError {
    match e {
        InjectError::Input(input::InputError::DocumentTooLarge { name, limit, .. }) => {
            input::InputError::DocumentTooLarge {
                name,
                line: starts_at,
                limit,
            }
            .into()
        }
        e => e,
    }
}

/// A `List` larger than this is read item by item ([`Stream::yaml_chunks`]); smaller ones whole,
/// as any document. `kubectl get -A -o yaml` prints one `List` of everything it lists.
pub const STREAMED_LIST_BYTES: usize = 1 << 20;

/// Whether `line` is the block key `kind: List` at the top level of its document.
fn is_list_kind_line(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("kind:") else {
        return false;
    };
    let value = rest.split(" #").next().unwrap_or_default().trim();
    matches!(value, "List" | "\"List\"" | "'List'")
}

/// Whether `line` is the block key `items:` at the top level of its document, its value below.
fn is_items_line(line: &str) -> bool {
    line.strip_prefix("items:").is_some_and(|rest| {
        let rest = rest.trim();
        rest.is_empty() || rest.starts_with('#')
    })
}

/// What [`Splitter::step`] read: a line of the current document (in [`Splitter::line`]), or
/// the end of the document.
enum Step {
    Line,
    End,
}

/// Cuts a stream into documents line by line, as [`split_yaml`] does for a whole text.
struct Splitter<'a> {
    reader: GuardedReader<'a>,
    /// The line last read.
    line: String,
    /// Its 1-based number.
    line_no: usize,
    /// The separator of the current document (empty for the first one).
    separator: String,
    /// The 1-based line the current document's body starts on.
    body_line: usize,
    /// Whether the last line of the body that is not blank or a comment is a directive.
    after_directive: bool,
    /// The line that ended a document starts the next one's body (`--- {a: 1}`).
    carried: bool,
    /// The per-document cap counts afresh from the next line.
    restart: bool,
    done: bool,
}

impl<'a> Splitter<'a> {
    fn new(reader: GuardedReader<'a>) -> Self {
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
    fn step(&mut self) -> Result<Option<Step>, InjectError> {
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

/// For text that starts with `{` or `[`: JSON when it is a stream of JSON values; flow-style YAML
/// (`{kind: Pod, ...}`) when only YAML reads it; JSON again when neither does, so the error
/// shown is JSON's.
fn starting_like_json_is_json(text: &str) -> bool {
    let valid_json = yaml::json::json_too_deep(text).is_some() || split_json("", text).is_ok();
    valid_json || yaml::parse_documents(text).is_err()
}

/// Opens the inputs named on the command line, in order, without reading them yet: `-` is stdin
/// (copied to a temporary file), a folder is walked recursively in lexical order for `.yaml`,
/// `.yml` and `.json` files (the door's walk: links out of it, devices and FIFOs refused), a
/// FIFO named directly is copied like stdin, anything else is a file.
pub fn open_inputs(args: &[String], stdin: &mut dyn Read) -> Result<Vec<Stream>, InjectError> {
    let mut streams = Vec::new();
    let mut stdin_used = false;
    let mut fifos_read = Vec::new();
    for arg in args {
        if arg == "-" {
            if stdin_used {
                return Err(InjectError::StdinTwice);
            }
            stdin_used = true;
            streams.push(spooled(GuardedReader::stdin(stdin)?)?);
            continue;
        }
        let path = Utf8Path::new(arg);
        if path.is_dir() {
            for file in input::tree::manifest_files(path, EXTENSIONS)? {
                streams.push(Stream::new(file.to_string(), StreamOrigin::File(file)));
            }
        } else if is_fifo(path) {
            // A FIFO gives its content once: a second read would wait for a writer forever.
            let identity = crate::files::identity(path).ok();
            if fifos_read.contains(&identity) {
                return Err(InjectError::FifoTwice { path: arg.clone() });
            }
            fifos_read.push(identity);
            streams.push(spooled(GuardedReader::open(path)?)?);
        } else {
            input::check_readable(path, false)?;
            streams.push(Stream::new(
                arg.clone(),
                StreamOrigin::File(path.to_owned()),
            ));
        }
    }
    Ok(streams)
}

fn is_fifo(path: &Utf8Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo())
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

/// Copies what `reader` reads (checked and capped by the door) into an unnamed temporary file,
/// so it can be read twice.
fn spooled(reader: GuardedReader<'_>) -> Result<Stream, InjectError> {
    // No cap on the whole stream (it goes to disk), only on each line: a line is never longer
    // than a document, whose cap applies when the spool is read.
    let mut reader = reader.per_document();
    use std::io::Write as _;
    let name = reader.name().to_owned();
    const PURPOSE: &str = "an input read twice (standard input or a FIFO)";
    let io_error = InjectError::temp_file(PURPOSE);
    let mut spool = std::io::BufWriter::new(tempfile::tempfile().map_err(io_error)?);
    let mut line = String::new();
    let mut starts_at = 1;
    loop {
        line.clear();
        reader.start_document();
        if !reader
            .read_line(&mut line)
            .map_err(|e| named_by_start(e.into(), starts_at))?
        {
            break;
        }
        if separator_kind(&line) == Some(true) {
            starts_at = reader.line() + 1;
        }
        spool
            .write_all(line.as_bytes())
            .map_err(InjectError::temp_file(PURPOSE))?;
    }
    let spool = spool
        .into_inner()
        .map_err(|e| InjectError::temp_file(PURPOSE)(e.into_error()))?;
    Ok(Stream::new(name, StreamOrigin::Spooled(spool)))
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
enum ListStage {
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
    splitter: Splitter<'a>,
    streamed_lists: HashSet<usize>,
    /// The 0-based index of the document being read.
    document: usize,
    /// The chunk being read.
    current: OwnedChunk,
    /// Where the current document stands, when it is a list read item by item.
    stage: Option<ListStage>,
    /// Chunks finished and not yet handed out.
    ready: VecDeque<OwnedChunk>,
    done: bool,
}

impl YamlChunks<'_> {
    /// Starts the chunk of the document the splitter is at.
    fn begin_document(&mut self) {
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
fn separator_kind(line: &str) -> Option<bool> {
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

/// Splits a YAML stream on `---` lines, keeping every byte.
pub fn split_yaml(text: &str) -> Vec<Chunk<'_>> {
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

/// Whether the last line of `body` that is not blank or a comment is a directive (`%YAML 1.1`).
fn ends_with_directive(body: &str) -> bool {
    body.lines()
        .rev()
        .find(|l| !(l.trim().is_empty() || l.trim_start().starts_with('#')))
        .is_some_and(|l| l.starts_with('%'))
}

/// The leading comment lines of a YAML body (kept when the document is rewritten).
pub fn leading_comments(body: &str) -> &str {
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
pub fn parse_yaml_chunk(source: &str, chunk: &Chunk<'_>) -> Result<Vec<Value>, InjectError> {
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

/// Splits a stream of JSON values into chunks (whitespace, value text) and parses each value.
/// A number too large for a float (`1E400`) is valid JSON that serde_json refuses: the value
/// holding it is read as go-yaml v2 reads JSON for kubectl (sigs.k8s.io/yaml), which keeps
/// such a number as the string it is written as.
pub fn split_json<'a>(source: &str, text: &'a str) -> Result<Vec<(Chunk<'a>, Value)>, InjectError> {
    let mut out = Vec::new();
    if let Some((line, column)) = yaml::json::json_too_deep(text) {
        return Err(InjectError::Json {
            path: source.to_owned(),
            line,
            column,
            message: yaml::json::json_too_deep_message(),
        });
    }
    let mut previous_end = 0;
    // serde_json reads from `base` on; it starts again past a value read the other way.
    let mut base = 0;
    'restart: loop {
        let mut stream =
            yaml::json::json_deserializer(&text[base..]).into_iter::<serde_json::Value>();
        loop {
            let item = stream.next();
            let end = base + stream.byte_offset();
            let (start, value, end) = match item {
                None => break 'restart,
                Some(Err(e)) if e.to_string().starts_with("number out of range") => {
                    let between = &text[previous_end..];
                    let start = previous_end + (between.len() - between.trim_start().len());
                    let Some(length) = json_value_length(&text[start..]) else {
                        return Err(json_error(source, text, base, &e));
                    };
                    let line = 1 + text[..start].matches('\n').count();
                    let end = start + length;
                    let value = yaml::load::parse_manifest_documents(&text[start..end], line)
                        .ok()
                        .and_then(|mut docs| docs.pop())
                        .ok_or_else(|| json_error(source, text, base, &e))?;
                    base = end;
                    push_json_value(source, text, (previous_end, start, end), value, &mut out)?;
                    previous_end = end;
                    continue 'restart;
                }
                Some(Err(e)) => return Err(json_error(source, text, base, &e)),
                Some(Ok(value)) => {
                    let between = &text[previous_end..end];
                    let start = previous_end + (between.len() - between.trim_start().len());
                    (start, Value::from(value), end)
                }
            };
            push_json_value(source, text, (previous_end, start, end), value, &mut out)?;
            previous_end = end;
        }
    }
    if previous_end < text.len() || out.is_empty() {
        out.push((
            Chunk {
                separator: &text[previous_end..],
                body: "",
                line: 1 + text.matches('\n').count(),
            },
            Value::Null,
        ));
    }
    Ok(out)
}

/// Adds the value at `start..end` of `text` (after the whitespace from `previous_end`).
fn push_json_value<'a>(
    source: &str,
    text: &'a str,
    (previous_end, start, end): (usize, usize, usize),
    value: Value,
    out: &mut Vec<(Chunk<'a>, Value)>,
) -> Result<(), InjectError> {
    let chunk = Chunk {
        separator: &text[previous_end..start],
        body: &text[start..end],
        line: 1 + text[..start].matches('\n').count(),
    };
    // serde_json keeps the last of a key given twice; kubectl refuses it.
    if let Some(e) = yaml::load::first_duplicate_key(chunk.body, chunk.line) {
        return Err(InjectError::Json {
            path: source.to_owned(),
            line: e.position.line,
            column: e.position.column,
            message: e.message,
        });
    }
    out.push((chunk, value));
    Ok(())
}

/// serde_json's error for the text from `base` on, placed in the whole text.
fn json_error(source: &str, text: &str, base: usize, e: &serde_json::Error) -> InjectError {
    let before = &text[..base];
    let lines_before = before.matches('\n').count();
    let column = if e.line() == 1 {
        e.column() + before.len() - before.rfind('\n').map_or(0, |i| i + 1)
    } else {
        e.column()
    };
    InjectError::Json {
        path: source.to_owned(),
        line: e.line() + lines_before,
        column,
        message: json_message(e),
    }
}

/// The length of the JSON object or array `text` starts with (strings skipped), or `None`.
fn json_value_length(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in yaml::json::outside_strings(text) {
        match c {
            '[' | '{' => depth += 1,
            ']' | '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

/// serde_json's message without its trailing " at line L column C" (we print those ourselves).
fn json_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(i) => text[..i].to_owned(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_across_two_blocks_of_a_file_is_found() {
        let dir = tempfile::tempdir().unwrap();
        // Every cut of the word at the first and second block ends (blocks of 64 KiB read
        // after the overlap kept from the one before).
        for offset in ((1 << 16) - 12..(1 << 16) + 12).chain((2 << 16) - 4..(2 << 16) + 16) {
            let path = Utf8PathBuf::from_path_buf(dir.path().join("s.yaml")).unwrap();
            let text = format!("{}Namespace\n", "#".repeat(offset));
            std::fs::write(&path, &text).unwrap();
            let file = Stream::new(path.to_string(), StreamOrigin::File(path.clone()));
            assert_eq!(
                file.mentions(&["List", "Namespace"]).unwrap(),
                [false, true],
                "at {offset}"
            );
            let spooled = Stream::new(
                "-".into(),
                StreamOrigin::Spooled(std::fs::File::open(&path).unwrap()),
            );
            assert_eq!(spooled.mentions(&["Namespace"]).unwrap(), [true]);
            let text = Stream::from(Source {
                name: "t".into(),
                text,
            });
            assert_eq!(
                text.mentions(&["Namespace", "List"]).unwrap(),
                [true, false]
            );
        }
    }

    fn rebuild(chunks: &[Chunk<'_>]) -> String {
        chunks
            .iter()
            .map(|c| format!("{}{}", c.separator, c.body))
            .collect()
    }

    /// Streams with every kind of separator, blank documents, CRLF and no final newline.
    const STREAMS: [&str; 8] = [
        "",
        "a: 1\n",
        "---\na: 1\n---\nb: 2\n",
        "a: 1\n---\n\n---\n\n---\n",
        "# c\n--- # comment\nk: v\n--- {x: 1}\n---",
        "a: 1\r\n---\r\nb: 2",
        "----\nx: ---\n",
        "a: 1\n---\n%YAML 1.1\n# c\n---\nb: 2\n...\n%TAG ! tag:x,2000:\n--- {c: 3}\n",
    ];

    #[test]
    fn streamed_chunks_are_the_chunks_of_the_whole_text() {
        for text in STREAMS {
            let stream = Stream::from(Source {
                name: "t.yaml".into(),
                text: text.into(),
            });
            let streamed: Vec<OwnedChunk> = stream
                .yaml_chunks()
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            let streamed: Vec<Chunk<'_>> = streamed.iter().map(OwnedChunk::as_chunk).collect();
            assert_eq!(streamed, split_yaml(text), "{text:?}");
        }
    }

    #[test]
    fn split_keeps_every_byte() {
        for text in STREAMS {
            assert_eq!(rebuild(&split_yaml(text)), text, "{text:?}");
        }
    }

    #[test]
    fn split_finds_documents_and_lines() {
        let chunks = split_yaml("---\na: 1\n---\n\n---\nb: 2\n");
        let bodies: Vec<_> = chunks.iter().map(|c| (c.body, c.line)).collect();
        assert_eq!(
            bodies,
            vec![("", 1), ("a: 1\n", 2), ("\n", 4), ("b: 2\n", 6)]
        );
        // Content on the separator line starts the document itself.
        let chunks = split_yaml("a: 1\n--- {b: 2}\n");
        assert_eq!(chunks[1].separator, "");
        assert_eq!(chunks[1].body, "--- {b: 2}\n");
        // `----` and `---x` are not separators.
        assert_eq!(split_yaml("----\n---x\n").len(), 1);
    }

    #[test]
    fn directives_stay_with_the_document_their_separator_starts() {
        let text = "a: 1\n---\n%YAML 1.1\n# c\n---\nb: 2\n";
        let chunks = split_yaml(text);
        let bodies: Vec<_> = chunks.iter().map(|c| (c.body, c.line)).collect();
        assert_eq!(
            bodies,
            vec![("a: 1\n", 1), ("%YAML 1.1\n# c\n---\nb: 2\n", 3)]
        );
        assert_eq!(rebuild(&chunks), text);
    }

    #[test]
    fn only_a_valid_json_stream_is_json() {
        let source = |text: &str| Source {
            name: "s".into(),
            text: text.into(),
        };
        assert!(source(" {\"a\": 1} [2]").is_json());
        assert!(!source("{a: 1}").is_json());
        assert!(!source("[a, b]\n").is_json());
        assert!(
            source("{\"a\": ").is_json(),
            "neither: JSON's error is shown"
        );
        assert!(!source("kind: Pod").is_json());
    }

    #[test]
    fn yaml_errors_point_into_the_file() {
        let text = "a: 1\n---\nkind: Pod\nmetadata:\n  name: [x\n";
        let chunks = split_yaml(text);
        let err = parse_yaml_chunk("f.yaml", &chunks[1]).unwrap_err();
        let InjectError::Yaml { line, .. } = err else {
            panic!("{err}")
        };
        assert!(line >= 5, "{line}");
    }

    #[test]
    fn json_stream_keeps_every_byte() {
        let text = " {\"a\": 1}\n\n[1, 2] {\"b\": {\"c\": null}}\n";
        let chunks = split_json("x.json", text).unwrap();
        let rebuilt: String = chunks
            .iter()
            .map(|(c, _)| format!("{}{}", c.separator, c.body))
            .collect();
        assert_eq!(rebuilt, text);
        assert_eq!(chunks[0].1.get_path(&["a"]), Some(&Value::Int(1)));
        assert_eq!(chunks[2].0.line, 3);
        let err = split_json("x.json", "{\"a\": 1,\n  }").unwrap_err();
        assert_eq!(err.to_string(), "x.json:2:3: invalid JSON: trailing comma");
    }
}
