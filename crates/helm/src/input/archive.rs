//! Reading a chart archive without trusting it.
//!
//! Everything is read into memory; nothing is written to disk. An entry is rejected, by name,
//! when its path is absolute, climbs out with `..`, holds a backslash or is not UTF-8, when it is
//! a link (symbolic or hard), a device or a pipe, when it lies outside the archive's one top
//! folder, or when it repeats a path. Decompression is bounded: the count of entries by
//! [`MAX_CHART_FILES`], the files' bytes by [`MAX_CHART_BYTES`] (an entry that declares more is
//! refused before a byte of it is inflated), and the whole inflated stream, headers included, by
//! [`max_stream_bytes`], so a bomb hidden in tar metadata stops early too.

use super::{check_readable, InputError, MAX_CHART_BYTES, MAX_CHART_FILES};
use camino::Utf8Path;
use flate2::read::MultiGzDecoder;
use std::io::Read;

/// Why an archive was refused.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// The archive file could not be read.
    #[error("{archive}: {source}")]
    Io {
        /// The archive.
        archive: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The archive is not a file we read (a device, a folder, missing).
    #[error(transparent)]
    Input(#[from] InputError),
    /// The gzip or tar structure is broken.
    #[error("{archive}: not a valid chart archive (.tgz){}: {message}", after(.last_entry))]
    Corrupt {
        /// The archive.
        archive: String,
        /// The last entry read whole, if any.
        last_entry: Option<String>,
        /// What the decoder said.
        message: String,
    },
    /// An entry is unsafe or not allowed.
    #[error("{archive}: entry {entry:?}: {reason}")]
    Rejected {
        /// The archive.
        archive: String,
        /// The entry's path as stored.
        entry: String,
        /// Why it is refused.
        reason: String,
    },
    /// A size or count limit was reached.
    #[error("{archive}: {}: {limit} (a decompression bomb?)", at(.entry))]
    TooLarge {
        /// The archive.
        archive: String,
        /// The entry being read, or the last one read.
        entry: Option<String>,
        /// Which limit.
        limit: String,
    },
    /// The archive holds no file.
    #[error("{archive}: the archive holds no chart files")]
    Empty {
        /// The archive.
        archive: String,
    },
}

fn after(entry: &Option<String>) -> String {
    entry
        .as_ref()
        .map(|e| format!(" after entry {e:?}"))
        .unwrap_or_default()
}

fn at(entry: &Option<String>) -> String {
    match entry {
        Some(e) => format!("entry {e:?}"),
        None => "archive".to_owned(),
    }
}

/// The files of an archive: its top folder's name and each file (path below the top folder,
/// bytes), in archive order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ArchiveContents {
    /// The single top folder (Helm names it after the chart).
    pub top: String,
    /// Path relative to the top folder, and content.
    pub files: Vec<(String, Vec<u8>)>,
}

/// Most bytes the inflated tar stream may have: the files' limit plus, per allowed entry, room
/// for a header, an extension header and padding.
pub(crate) fn max_stream_bytes() -> u64 {
    MAX_CHART_BYTES + (MAX_CHART_FILES as u64 + 2) * 3 * 512
}

#[derive(Debug)]
struct StreamLimit;

impl std::fmt::Display for StreamLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "inflated stream exceeds {} bytes", max_stream_bytes())
    }
}

impl std::error::Error for StreamLimit {}

/// Counts inflated bytes and fails once they pass the limit.
struct Counting<R> {
    inner: R,
    count: u64,
    limit: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.count > self.limit {
            return Err(std::io::Error::other(StreamLimit));
        }
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        if self.count > self.limit {
            return Err(std::io::Error::other(StreamLimit));
        }
        Ok(n)
    }
}

fn is_stream_limit(e: &std::io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<StreamLimit>())
}

/// Reads an archive file (see the module docs for what is refused).
pub(crate) fn read_archive_file(path: &str) -> Result<ArchiveContents, ArchiveError> {
    check_readable(Utf8Path::new(path), false)?;
    let file = std::fs::File::open(path).map_err(|source| ArchiveError::Io {
        archive: path.to_owned(),
        source,
    })?;
    read_archive(std::io::BufReader::new(file), path)
}

/// Reads a gzipped tar stream; `archive` names it in errors.
pub(crate) fn read_archive(
    reader: impl Read,
    archive: &str,
) -> Result<ArchiveContents, ArchiveError> {
    let stream = Counting {
        inner: MultiGzDecoder::new(reader),
        count: 0,
        limit: max_stream_bytes(),
    };
    let mut tar = tar::Archive::new(stream);
    let rejected = |entry: &str, reason: &str| ArchiveError::Rejected {
        archive: archive.to_owned(),
        entry: entry.to_owned(),
        reason: reason.to_owned(),
    };
    let stream_error = |e: std::io::Error, entry: Option<String>| {
        if is_stream_limit(&e) {
            ArchiveError::TooLarge {
                archive: archive.to_owned(),
                entry,
                limit: StreamLimit.to_string(),
            }
        } else {
            ArchiveError::Corrupt {
                archive: archive.to_owned(),
                last_entry: entry,
                message: e.to_string(),
            }
        }
    };
    let entries = tar.entries().map_err(|e| stream_error(e, None))?;
    let mut top: Option<String> = None;
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut count = 0usize;
    let mut total = 0u64;
    let mut last: Option<String> = None;
    for entry in entries {
        let mut entry = entry.map_err(|e| stream_error(e, last.clone()))?;
        let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        count += 1;
        if count > MAX_CHART_FILES {
            return Err(ArchiveError::TooLarge {
                archive: archive.to_owned(),
                entry: Some(raw),
                limit: format!("more than {MAX_CHART_FILES} entries"),
            });
        }
        let kind = entry.header().entry_type();
        let is_file = match kind {
            tar::EntryType::Regular | tar::EntryType::Continuous => true,
            tar::EntryType::Directory => false,
            tar::EntryType::XGlobalHeader => {
                last = Some(raw);
                continue;
            }
            tar::EntryType::Symlink => {
                return Err(rejected(&raw, "symbolic links are not allowed"))
            }
            tar::EntryType::Link => return Err(rejected(&raw, "hard links are not allowed")),
            tar::EntryType::Char | tar::EntryType::Block => {
                return Err(rejected(&raw, "devices are not allowed"))
            }
            tar::EntryType::Fifo => return Err(rejected(&raw, "pipes are not allowed")),
            other => {
                return Err(rejected(
                    &raw,
                    &format!("entry type {:?} is not allowed", other.as_byte() as char),
                ))
            }
        };
        let path_bytes = entry.path_bytes().into_owned();
        let Ok(path) = std::str::from_utf8(&path_bytes) else {
            return Err(rejected(&raw, "the path is not UTF-8"));
        };
        let parts = safe_components(path).map_err(|reason| rejected(&raw, reason))?;
        let Some((first, inside)) = parts.split_first() else {
            return Err(rejected(&raw, "the path is empty"));
        };
        match &top {
            None => top = Some((*first).to_owned()),
            Some(t) if t != first => {
                return Err(rejected(
                    &raw,
                    &format!(
                    "a second top folder (the chart's is {t:?}); an archive holds one chart folder"
                ),
                ))
            }
            Some(_) => {}
        }
        if !is_file {
            last = Some(raw);
            continue;
        }
        if inside.is_empty() {
            return Err(rejected(&raw, "a file outside the chart's top folder"));
        }
        let relative = inside.join("/");
        if !seen.insert(relative.clone()) {
            return Err(rejected(&raw, "the path appears twice"));
        }
        let size = entry.size();
        let remaining = MAX_CHART_BYTES - total;
        if size > remaining {
            return Err(ArchiveError::TooLarge {
                archive: archive.to_owned(),
                entry: Some(raw),
                limit: format!(
                    "declares {size} bytes; a chart may hold {MAX_CHART_BYTES} bytes in all"
                ),
            });
        }
        let mut bytes = Vec::with_capacity(size.min(1 << 20) as usize);
        (&mut entry)
            .take(remaining + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| stream_error(e, Some(raw.clone())))?;
        total += bytes.len() as u64;
        if total > MAX_CHART_BYTES {
            return Err(ArchiveError::TooLarge {
                archive: archive.to_owned(),
                entry: Some(raw),
                limit: format!("a chart may hold {MAX_CHART_BYTES} bytes in all"),
            });
        }
        files.push((relative, bytes));
        last = Some(raw);
    }
    // The tar reader stops at the end-of-archive blocks; the gzip trailer (the inflated bytes'
    // CRC-32 and length) is checked only once the stream is read to its end, so read on.
    std::io::copy(&mut tar.into_inner(), &mut std::io::sink())
        .map_err(|e| stream_error(e, last.clone()))?;
    match top {
        Some(top) if !files.is_empty() => Ok(ArchiveContents { top, files }),
        _ => Err(ArchiveError::Empty {
            archive: archive.to_owned(),
        }),
    }
}

/// Splits a stored path into its parts, refusing anything that could leave the extraction root.
fn safe_components(path: &str) -> Result<Vec<&str>, &'static str> {
    if path.starts_with('/') {
        return Err("absolute paths are not allowed");
    }
    if path.contains('\\') {
        return Err("backslashes are not allowed in paths");
    }
    if path.contains('\0') {
        return Err("NUL bytes are not allowed in paths");
    }
    let mut parts = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err("the path climbs out of the archive with `..`"),
            p => parts.push(p),
        }
    }
    if parts
        .first()
        .is_some_and(|p| p.len() >= 2 && p.as_bytes()[1] == b':')
    {
        return Err("drive-letter paths are not allowed");
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_split_into_safe_components() {
        assert_eq!(safe_components("a/./b//c"), Ok(vec!["a", "b", "c"]));
        assert_eq!(safe_components("./a/b"), Ok(vec!["a", "b"]));
        assert!(safe_components("/etc/passwd").is_err());
        assert!(safe_components("a/../../x").is_err());
        assert!(safe_components("a\\..\\x").is_err());
        assert!(safe_components("C:/x").is_err());
    }
}
