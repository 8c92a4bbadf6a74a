//! Reading manifests: files, folders (recursively) and stdin, split into documents that keep
//! their exact text, so a document nobody changes is written back byte for byte.

mod json_chunks;
mod yaml_chunks;
pub use json_chunks::split_json;
pub(crate) use yaml_chunks::{
    leading_comments, parse_yaml_chunk, Chunk, ChunkPart, OwnedChunk, YamlChunks,
    STREAMED_LIST_BYTES,
};

use json_chunks::starting_like_json_is_json;
use yaml_chunks::{is_items_line, is_list_kind_line, separator_kind, Splitter, Step};

use super::error::InjectError;
use crate::input::{self, GuardedReader, Input};
use camino::{Utf8Path, Utf8PathBuf};
use std::collections::{HashSet, VecDeque};
use std::io::{Read, Seek};
use std::sync::OnceLock;

/// File extensions read when walking a folder.
pub(crate) const EXTENSIONS: &[&str] = &["yaml", "yml", "json"];

/// One input stream: a file's or stdin's whole text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// The path, or [`input::STDIN_NAME`].
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
    /// The path, or [`input::STDIN_NAME`].
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

    /// The YAML documents of the stream, one at a time, split on `---` lines; a `List`
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
            for file in input::manifest_files(path, EXTENSIONS)? {
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

#[cfg(test)]
mod tests;
