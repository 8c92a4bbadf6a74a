//! The one door every byte a user hands us comes through: values files, `--set-file` files,
//! inject inputs and folders, `diff` inputs, chart folders and archives, golden cases, stdin.
//!
//! The rules, the same for every input:
//! - **What may be read.** A regular file; standard input; a FIFO named directly (read exactly
//!   once). Devices, sockets and other special files are refused by name before they are opened;
//!   inside a folder (a chart, an inject folder) only regular files are read, and a FIFO is
//!   refused too, so a walk never blocks.
//! - **How much.** Each input is capped at [`max_input_bytes`] (64 MiB unless the environment
//!   variable [`MAX_INPUT_BYTES_ENV`] says otherwise, e.g. `MESHCHART_MAX_INPUT_BYTES=256MiB`).
//!   A chart as a whole has its own caps ([`MAX_CHART_FILES`], [`MAX_CHART_BYTES`]).
//! - **What text is.** UTF-8. A leading byte-order mark is dropped. A NUL byte or a byte
//!   sequence that is not UTF-8 is an error naming the input, line and column (1-based, columns
//!   counted in characters); nothing after it is guessed at.
//! - **Once.** Each source is read once and its text kept; whoever needs it again (provenance
//!   for `values --explain`, `lint`'s checks, `diff - -`) reuses the kept [`Input`].
//! - **Folders stay closed.** A symbolic link inside a chart folder or an inject folder that
//!   points outside that folder is refused by name ([`tree`]).
//! - **Archives.** Chart archives are read in memory by [`archive`], with their own rules.
//!
//! The API, small on purpose:
//! - [`read_path`], [`read_stdin`], [`read_arg`] (`-` is stdin): a whole source, capped, as an
//!   [`Input`] (its name and kept text);
//! - [`decode`]: bytes already in memory (archive entries, chart files) under the text rules;
//! - [`GuardedReader`]: the streaming form for inputs read piece by piece (inject streams):
//!   [`GuardedReader::open`] / [`GuardedReader::stdin`], then [`GuardedReader::read_line`]
//!   until it returns `Ok(false)`; the same rules apply line by line, and
//!   [`GuardedReader::line`] says where the reader stands;
//! - [`tree::chart_files`] and [`tree::manifest_files`]: folder walks.

pub(crate) mod archive;
pub(crate) mod tree;

pub use tree::manifest_files;

use camino::Utf8Path;
use std::io::{BufRead, BufReader, Read};

/// Most files a chart may hold; a guard against runaway folders and archives.
pub const MAX_CHART_FILES: usize = 10_000;
/// Most bytes a chart may hold in all.
pub const MAX_CHART_BYTES: u64 = 64 * 1024 * 1024;
/// The default cap on a single input.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;
/// The environment variable that raises (or lowers) the cap on a single input: a byte count,
/// optionally with a `KiB`, `MiB` or `GiB` suffix.
pub const MAX_INPUT_BYTES_ENV: &str = "MESHCHART_MAX_INPUT_BYTES";
/// How standard input is named in messages.
pub const STDIN_NAME: &str = "<stdin>";

/// Why an input was refused.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file does not exist.
    #[error("{name}: file not found")]
    NotFound {
        /// The input.
        name: String,
    },
    /// The OS could not read it.
    #[error("{name}: {}", io_message(.source))]
    Io {
        /// The input.
        name: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// A device, socket, FIFO inside a folder, or a folder where a file was expected.
    #[error("{name}: is {kind}, not a regular file")]
    SpecialFile {
        /// The input.
        name: String,
        /// What it is: `a character device`, `a socket`, ...
        kind: &'static str,
    },
    /// The input is larger than the cap.
    #[error("{name}: larger than the input limit of {limit} bytes (set {MAX_INPUT_BYTES_ENV} to raise it)")]
    TooLarge {
        /// The input.
        name: String,
        /// The cap in bytes.
        limit: u64,
    },
    /// One document of a stream read document by document (inject) is larger than the cap,
    /// which then applies to each document rather than to the whole stream.
    #[error("{name}:{line}: a document larger than the limit of {limit} bytes on one document (set {MAX_INPUT_BYTES_ENV} to raise it)")]
    DocumentTooLarge {
        /// The input.
        name: String,
        /// The 1-based line the document starts on.
        line: usize,
        /// The cap in bytes.
        limit: u64,
    },
    /// A NUL byte.
    #[error("{name}:{line}:{column}: a NUL byte (binary data is not text)")]
    Nul {
        /// The input.
        name: String,
        /// 1-based line.
        line: usize,
        /// 1-based column, in characters.
        column: usize,
    },
    /// Bytes that are not UTF-8.
    #[error("{name}:{line}:{column}: not UTF-8 text")]
    NotUtf8 {
        /// The input.
        name: String,
        /// 1-based line.
        line: usize,
        /// 1-based column, in characters.
        column: usize,
    },
    /// A symbolic link inside a folder that points outside it.
    #[error("{name}: a symbolic link to {target}, outside {root}")]
    LinkOutside {
        /// The link.
        name: String,
        /// Where it points (resolved).
        target: String,
        /// The folder it must stay in.
        root: String,
    },
    /// The folder holds more than a chart may.
    #[error("{name}: the chart is larger than the limit ({what})")]
    ChartTooLarge {
        /// The folder.
        name: String,
        /// Which limit.
        what: String,
    },
    /// A limit setting that is not a size.
    #[error("{MAX_INPUT_BYTES_ENV}={value:?}: not a size (a byte count, or with KiB, MiB or GiB)")]
    BadLimit {
        /// The value given.
        value: String,
    },
}

impl InputError {
    /// The message without the input's name (for callers that name it themselves).
    pub fn reason(&self) -> String {
        match self {
            InputError::Nul { line, column, .. } => {
                format!("line {line}, column {column}: a NUL byte (binary data is not text)")
            }
            InputError::NotUtf8 { line, column, .. } => {
                format!("line {line}, column {column}: not UTF-8 text")
            }
            other => {
                let text = other.to_string();
                let name = other.name();
                text.strip_prefix(name)
                    .and_then(|rest| rest.strip_prefix(": "))
                    .map(str::to_owned)
                    .unwrap_or(text)
            }
        }
    }

    /// The input (or folder, or link) the error is about.
    pub fn name(&self) -> &str {
        match self {
            InputError::NotFound { name }
            | InputError::Io { name, .. }
            | InputError::SpecialFile { name, .. }
            | InputError::TooLarge { name, .. }
            | InputError::DocumentTooLarge { name, .. }
            | InputError::Nul { name, .. }
            | InputError::NotUtf8 { name, .. }
            | InputError::LinkOutside { name, .. }
            | InputError::ChartTooLarge { name, .. } => name,
            InputError::BadLimit { .. } => MAX_INPUT_BYTES_ENV,
        }
    }

    /// An OS error reading `name` (a missing file says so by name).
    pub fn io(name: &str, source: std::io::Error) -> InputError {
        if source.kind() == std::io::ErrorKind::NotFound {
            InputError::NotFound {
                name: name.to_owned(),
            }
        } else {
            InputError::Io {
                name: name.to_owned(),
                source,
            }
        }
    }
}

/// A short reason for an I/O error, without Rust's `(os error 2)` suffix.
pub fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "file not found".to_owned(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => {
            let text = e.to_string();
            match text.find(" (os error") {
                Some(cut) => text[..cut].to_owned(),
                None => text,
            }
        }
    }
}

/// One source, read whole and kept: its name (the path as given, or [`STDIN_NAME`]) and text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// The path as given, or [`STDIN_NAME`].
    pub name: String,
    /// The text, byte-order mark dropped.
    pub text: String,
}

/// The cap on a single input: [`MAX_INPUT_BYTES_ENV`] when set, else [`DEFAULT_MAX_INPUT_BYTES`].
pub fn max_input_bytes() -> Result<u64, InputError> {
    match std::env::var(MAX_INPUT_BYTES_ENV) {
        Ok(value) => parse_size(&value).ok_or(InputError::BadLimit { value }),
        Err(_) => Ok(DEFAULT_MAX_INPUT_BYTES),
    }
}

/// `123`, `64KiB`, `64MiB`, `1GiB` (also `K`, `M`, `G`, `KB`, `MB`, `GB` as binary units).
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let number: u64 = text[..digits].parse().ok()?;
    let factor: u64 = match text[digits..].trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return None,
    };
    number.checked_mul(factor)
}

/// What a file is, for messages; `None` for a regular file.
fn special_kind(file_type: &std::fs::FileType) -> Option<&'static str> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_char_device() {
            return Some("a character device");
        }
        if file_type.is_block_device() {
            return Some("a block device");
        }
        if file_type.is_socket() {
            return Some("a socket");
        }
        if file_type.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
    }
    if file_type.is_dir() {
        return Some("a folder");
    }
    if file_type.is_file() {
        None
    } else {
        Some("a special file")
    }
}

fn is_fifo(file_type: &std::fs::FileType) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        file_type.is_fifo()
    }
    #[cfg(not(unix))]
    {
        let _ = file_type;
        false
    }
}

/// Checks that `path` may be opened: a regular file, or (when `allow_fifo`) a FIFO. Follows
/// symbolic links. Nothing is opened, so a device is refused before any side effect.
pub fn check_readable(path: &Utf8Path, allow_fifo: bool) -> Result<(), InputError> {
    let meta = std::fs::metadata(path).map_err(|e| InputError::io(path.as_str(), e))?;
    let file_type = meta.file_type();
    if allow_fifo && is_fifo(&file_type) {
        return Ok(());
    }
    match special_kind(&file_type) {
        None => Ok(()),
        Some(kind) => Err(InputError::SpecialFile {
            name: path.to_string(),
            kind,
        }),
    }
}

/// Reads the file at `path` whole under the rules (a FIFO named directly is read once).
pub fn read_path(path: &Utf8Path) -> Result<Input, InputError> {
    let mut reader = GuardedReader::open(path)?;
    reader.read_to_end()
}

/// Reads standard input (or whatever stands for it) whole under the rules.
pub fn read_stdin(stdin: &mut dyn Read) -> Result<Input, InputError> {
    GuardedReader::stdin(stdin)?.read_to_end()
}

/// `path` as read from a file in folder `base` (a golden case's `args`): joined onto `base` when
/// relative; `-` (stdin) and absolute paths as they are.
pub fn resolve_path(base: &Utf8Path, path: &str) -> String {
    if path == "-" || Utf8Path::new(path).is_absolute() {
        path.to_owned()
    } else {
        base.join(path).to_string()
    }
}

/// Reads a command-line input: `-` is standard input, anything else a path.
pub fn read_arg(arg: &str, stdin: &mut dyn Read) -> Result<Input, InputError> {
    if arg == "-" {
        read_stdin(stdin)
    } else {
        read_path(Utf8Path::new(arg))
    }
}

/// Applies the text rules to bytes already in memory (an archive entry, a chart file).
pub fn decode(name: &str, mut bytes: Vec<u8>) -> Result<String, InputError> {
    if bytes.starts_with(BOM) {
        bytes.drain(..BOM.len());
    }
    check_text(name, &bytes, 1)?;
    String::from_utf8(bytes).map_err(|_| InputError::NotUtf8 {
        name: name.to_owned(),
        line: 1,
        column: 1,
    })
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Finds the first NUL byte or invalid UTF-8 in `bytes` (whose first line is `first_line`).
fn check_text(name: &str, bytes: &[u8], first_line: usize) -> Result<(), InputError> {
    checked_str(name, bytes, first_line).map(|_| ())
}

/// `bytes` as text when [`check_text`] passes them, decoded once (the streaming reader used to
/// decode every line twice: once to check it, once to keep it).
fn checked_str<'b>(name: &str, bytes: &'b [u8], first_line: usize) -> Result<&'b str, InputError> {
    let valid_up_to = match std::str::from_utf8(bytes) {
        Ok(text) => {
            if !text.contains('\0') {
                return Ok(text);
            }
            bytes.len()
        }
        Err(e) => e.valid_up_to(),
    };
    // The valid prefix is text: locate a NUL in it, or the bad byte right after it.
    let prefix = std::str::from_utf8(&bytes[..valid_up_to]).unwrap_or_default();
    let (offset, nul) = match prefix.find('\0') {
        Some(i) => (i, true),
        None => (valid_up_to, false),
    };
    let before = &prefix[..offset];
    let line = first_line + before.matches('\n').count();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    let name = name.to_owned();
    Err(if nul {
        InputError::Nul { name, line, column }
    } else {
        InputError::NotUtf8 { name, line, column }
    })
}

/// A source read line by line under the rules: the streaming side of the door (see the module
/// docs). Each line handed out is checked text; the total read is capped, or, for a stream
/// read document by document ([`GuardedReader::per_document`]), each document.
pub struct GuardedReader<'a> {
    name: String,
    inner: BufReader<Box<dyn Read + 'a>>,
    limit: u64,
    read: u64,
    line: usize,
    bytes: Vec<u8>,
    /// `Some(first line)` when the cap applies to the document starting at that line.
    document: Option<usize>,
}

impl std::fmt::Debug for GuardedReader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GuardedReader")
            .field("name", &self.name)
            .field("line", &self.line)
            .finish()
    }
}

impl<'a> GuardedReader<'a> {
    /// Opens the file at `path` (a regular file or a FIFO; anything else refused by name).
    pub fn open(path: &Utf8Path) -> Result<GuardedReader<'static>, InputError> {
        check_readable(path, true)?;
        let file = std::fs::File::open(path).map_err(|e| InputError::io(path.as_str(), e))?;
        // The path could have been swapped between the check and the open: check the handle.
        let meta = file
            .metadata()
            .map_err(|e| InputError::io(path.as_str(), e))?;
        let file_type = meta.file_type();
        if !is_fifo(&file_type) {
            if let Some(kind) = special_kind(&file_type) {
                return Err(InputError::SpecialFile {
                    name: path.to_string(),
                    kind,
                });
            }
        }
        GuardedReader::new(path.as_str(), Box::new(file), max_input_bytes()?)
    }

    /// Reads standard input (or a stand-in), named [`STDIN_NAME`].
    pub fn stdin(stdin: &'a mut dyn Read) -> Result<GuardedReader<'a>, InputError> {
        GuardedReader::new(STDIN_NAME, Box::new(stdin), max_input_bytes()?)
    }

    /// Reads `inner`, named `name` in errors, with a cap of `limit` bytes.
    pub fn new(
        name: &str,
        inner: Box<dyn Read + 'a>,
        limit: u64,
    ) -> Result<GuardedReader<'a>, InputError> {
        Ok(GuardedReader {
            name: name.to_owned(),
            inner: BufReader::with_capacity(64 * 1024, inner),
            limit,
            read: 0,
            line: 0,
            bytes: Vec::new(),
            document: None,
        })
    }

    /// The cap applies to each document rather than to the whole stream: a stream of any
    /// length is read in constant memory by a caller holding one document at a time, who says
    /// where each starts with [`GuardedReader::start_document`]. A line is never longer than
    /// a document, so no line is held past the cap either.
    pub fn per_document(mut self) -> Self {
        self.document = Some(self.line + 1);
        self.read = 0;
        self
    }

    /// In a [`GuardedReader::per_document`] reader, the next line starts a document: the cap
    /// counts from here.
    pub fn start_document(&mut self) {
        if self.document.is_some() {
            self.document = Some(self.line + 1);
            self.read = 0;
        }
    }

    /// The input's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How many lines have been handed out (the 1-based number of the last one).
    pub fn line(&self) -> usize {
        self.line
    }

    /// Appends the next line (with its `\n`, if it has one) to `buf`; `Ok(false)` at the end.
    pub fn read_line(&mut self, buf: &mut String) -> Result<bool, InputError> {
        // The usual line lies whole in the buffer, within the cap and without a byte order
        // mark: it is checked there and copied once (inject reads every line of a stream twice).
        let available = self
            .inner
            .fill_buf()
            .map_err(|e| InputError::io(&self.name, e))?;
        if let Some(end) = memchr::memchr(b'\n', available) {
            let line = &available[..=end];
            if self.read.saturating_add(line.len() as u64) <= self.limit && !line.starts_with(BOM) {
                buf.push_str(checked_str(&self.name, line, self.line + 1)?);
                self.read += line.len() as u64;
                self.line += 1;
                self.inner.consume(end + 1);
                return Ok(true);
            }
        }
        self.bytes.clear();
        let remaining = self.limit.saturating_sub(self.read);
        let n = (&mut self.inner)
            .take(remaining.saturating_add(1))
            .read_until(b'\n', &mut self.bytes)
            .map_err(|e| InputError::io(&self.name, e))?;
        if n == 0 {
            return Ok(false);
        }
        self.read += n as u64;
        if self.read > self.limit {
            return Err(match self.document {
                Some(line) => InputError::DocumentTooLarge {
                    name: self.name.clone(),
                    line,
                    limit: self.limit,
                },
                None => InputError::TooLarge {
                    name: self.name.clone(),
                    limit: self.limit,
                },
            });
        }
        self.line += 1;
        let mut line: &[u8] = &self.bytes;
        // YAML allows a byte order mark before every document of a stream, not only the
        // first: before its `---` (or `...`) line as well as at the top of the file.
        let starts_document = |rest: &[u8]| rest.starts_with(b"---") || rest.starts_with(b"...");
        if let Some(rest) = line.strip_prefix(BOM) {
            if self.line == 1 || starts_document(rest) {
                line = rest;
            }
        }
        buf.push_str(checked_str(&self.name, line, self.line)?);
        Ok(true)
    }

    /// Reads the rest of the source and keeps it as an [`Input`].
    pub fn read_to_end(&mut self) -> Result<Input, InputError> {
        let mut text = String::new();
        while self.read_line(&mut text)? {}
        Ok(Input {
            name: self.name.clone(),
            text,
        })
    }
}

#[cfg(test)]
mod tests;
