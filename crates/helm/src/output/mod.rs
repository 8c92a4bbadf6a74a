//! The one door every file meshchart writes goes through: `render --output-dir`, `render
//! --fleet`, and the `--certs-dir` fill as sets ([`OutputSet`]); `package`'s archive, `golden`'s
//! expectations and `lint`'s schema as single files ([`write_file`]).
//!
//! The rules, the same for every output:
//! - **Whole sets.** A run's outputs land together or not at all. They are written into a
//!   staging folder, a complete copy of the target folder (the files this run keeps or did not
//!   write are hard links to the ones in place), which is then exchanged with the target in one
//!   step (Linux `renameat2(RENAME_EXCHANGE)`; a plain rename when the target does not exist
//!   yet). A kill at any instant leaves the old complete set or the new one. Where the platform
//!   cannot exchange (another system, a target that is a mount point, a file that cannot be
//!   linked), the files are moved in one by one instead, after a journal of the whole switch is
//!   written into staging in one step: the next run on the target (writer or reader) completes
//!   a switch a kill interrupted before it reads anything.
//! - **One writer at a time.** The target's top folder is locked ([`TargetLock`], `flock`) from
//!   before anything is read until the set is in place; a second run waits.
//! - **Staging that cannot collide and never stays.** Staging folders are named with 64 random
//!   bits, never the process id (as PID 1 in a container every run has the same one), and sit
//!   beside the target on its own file system (inside it, hidden, only when the target is a
//!   mount point or its parent is not writable). A run that is interrupted (SIGINT, SIGTERM,
//!   SIGHUP) or reaches its time limit removes its staging before it dies; whatever a killed run
//!   left is removed by the next run, which holds the lock, so any staging folder of that target
//!   is stale. A staging folder is known by the owner file inside it, which names the folder's
//!   random suffix: never by its name alone (a user's folder may be named like one).
//! - **Only our own files.** A record in the target ([`RECORD_NAME`]) lists what the last run
//!   wrote. Only those files are ever replaced or deleted; a file that is not in the record
//!   where this run must write is an error naming each such file ([`OutputError::Foreign`]),
//!   and files that are not ours elsewhere in the target are carried over untouched (the same
//!   files, hard-linked); one someone adds or replaces in the target while the set is staged
//!   is moved into the new folder right after the switch, not removed with the old one.
//! - **Outputs never overlap inputs.** [`refuse_overlap`] refuses a target equal to, inside, or
//!   containing an input (a fleet's folder, `--certs-dir`, the chart, a values file).
//!
//! The API: [`OutputSet::begin`], then [`OutputSet::write`] (from any thread) and
//! [`OutputSet::keep`] for each output, then [`OutputSet::commit`]. Dropping an uncommitted
//! set changes nothing in the target. A single file: [`write_file`] (a temporary file with a
//! random name, locked while written, renamed into place; stale ones removed by the next
//! write).

mod cleanup;
mod lock;
mod record;
mod set;
mod single;

#[cfg(unix)]
pub use cleanup::notify_from_signal;
pub use cleanup::remove_on_interrupt;
pub use lock::TargetLock;
pub use record::RECORD_NAME;
pub use set::{CommitReport, FileOutcome, OutputSet, Removal};
pub use single::write_file;

use camino::{Utf8Path, Utf8PathBuf};

/// The marker in the names of staging folders: `.<target>.meshchart-staging-<16 hex digits>`
/// beside a target, `.meshchart-staging-<16 hex digits>` inside one.
pub const STAGING_MARKER: &str = ".meshchart-staging-";

/// Creates the folder `path` (its parent must exist) as the door makes every folder: 0755
/// narrowed by the umask, never writable by others (a folder others may write to lets them
/// replace the keys and Secrets it holds).
pub(crate) fn create_folder(path: impl AsRef<std::path::Path>) -> std::io::Result<()> {
    folder_builder(false).create(path)
}

/// [`create_folder`] for `path` and every missing folder above it.
pub(crate) fn create_folders(path: impl AsRef<std::path::Path>) -> std::io::Result<()> {
    folder_builder(true).create(path)
}

fn folder_builder(recursive: bool) -> std::fs::DirBuilder {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(recursive);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt as _;
        builder.mode(0o755);
    }
    builder
}

/// Whether `bytes` hold a Kubernetes Secret (a `kind: Secret` line, in a document or a List's
/// items) or a PEM private key: such an output is created owner-only (mode 0600) from the
/// start, staged or in place, so no other user can read it even for an instant. The test errs
/// on the safe side: a ConfigMap quoting `kind: Secret` in a value is narrowed too, which costs
/// nothing but a mode.
pub fn holds_secret(bytes: &[u8]) -> bool {
    let pem_private_key = memchr::memmem::find(bytes, b"PRIVATE KEY-----").is_some();
    pem_private_key
        || bytes.split(|b| *b == b'\n').any(|line| {
            let line = line.trim_ascii();
            let line = line.strip_prefix(b"- ").unwrap_or(line).trim_ascii_start();
            let Some(kind) = line.strip_prefix(b"kind:") else {
                return false;
            };
            matches!(kind.trim_ascii(), b"Secret" | b"\"Secret\"" | b"'Secret'")
        })
}

/// Why an output could not be written. Nothing in the target changed unless the variant says so.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The file system refused an operation.
    #[error("cannot {action} {path}: {source}")]
    Io {
        /// What was being done ("create the folder", "write", ...).
        action: &'static str,
        /// The file or folder.
        path: Utf8PathBuf,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// Files meshchart did not write stand where this run must write.
    #[error(
        "{target} holds {} that meshchart did not write where this run writes: {}; \
         nothing was written (move them away, or remove them, and run again)",
        if .files.len() == 1 { "a file" } else { "files" },
        list(.files)
    )]
    Foreign {
        /// The target folder.
        target: Utf8PathBuf,
        /// Each file in the way.
        files: Vec<Utf8PathBuf>,
    },
    /// An output folder overlaps an input.
    #[error(
        "{output_what} {output} {relation} the {input_what} {input}: outputs and inputs must \
         not overlap (a run would overwrite or delete what it reads)"
    )]
    Overlap {
        /// The output's flag (`--output-dir`, `--certs-dir`).
        output_what: &'static str,
        /// The output folder.
        output: Utf8PathBuf,
        /// "is", "is inside" or "contains".
        relation: &'static str,
        /// The input's kind ("fleet folder", "chart", ...).
        input_what: String,
        /// The input.
        input: Utf8PathBuf,
    },
    /// The record of a previous run cannot be read, so nothing can be known to be ours.
    #[error(
        "{path}:{line}: {reason}: this file records what meshchart wrote here; fix or remove it \
         (removed, every file here counts as not written by meshchart)"
    )]
    Record {
        /// The record file.
        path: Utf8PathBuf,
        /// The 1-based line.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// An output name that would leave its folder.
    #[error("{name:?} is not a plain relative file name (no empty, `.` or `..` parts)")]
    BadName {
        /// The name.
        name: String,
    },
    /// The target exists but is not a folder.
    #[error("{path} is not a folder")]
    NotAFolder {
        /// The path.
        path: Utf8PathBuf,
    },
}

fn list(files: &[Utf8PathBuf]) -> String {
    files
        .iter()
        .map(|file| file.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

impl OutputError {
    /// Wraps an I/O error with what was done and where.
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<Utf8PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> OutputError {
        let path = path.into();
        move |source| OutputError::Io {
            action,
            path,
            source,
        }
    }
}

/// An input a target must not overlap.
#[derive(Clone, Debug)]
pub struct Input<'a> {
    /// What it is, for the message ("fleet folder", "chart", "--certs-dir", "values file").
    pub what: &'a str,
    /// Where it is.
    pub path: &'a Utf8Path,
}

/// Refuses an output folder that is, is inside, or contains one of `inputs`, naming both.
/// Paths are compared resolved (symbolic links followed, `..` taken away), so `out`, `./out`
/// and a link to it are one folder; a path that does not exist yet is resolved through its
/// nearest existing ancestor.
pub fn refuse_overlap(
    output_what: &'static str,
    output: &Utf8Path,
    inputs: &[Input<'_>],
) -> Result<(), OutputError> {
    let resolved_output = resolve(output)?;
    for input in inputs {
        let resolved_input = resolve(input.path)?;
        let relation = if resolved_output == resolved_input {
            "is"
        } else if resolved_output.starts_with(&resolved_input) {
            "is inside"
        } else if resolved_input.starts_with(&resolved_output) {
            "contains"
        } else {
            continue;
        };
        return Err(OutputError::Overlap {
            output_what,
            output: output.to_owned(),
            relation,
            input_what: input.what.to_owned(),
            input: input.path.to_owned(),
        });
    }
    Ok(())
}

/// `path` made absolute with links resolved, through its nearest existing ancestor when it
/// does not exist yet (what is missing cannot be a link).
pub(crate) fn resolve(path: &Utf8Path) -> Result<Utf8PathBuf, OutputError> {
    let absolute = if path.is_absolute() {
        path.to_owned()
    } else {
        let cwd =
            std::env::current_dir().map_err(OutputError::io("read the current folder", "."))?;
        let cwd = Utf8PathBuf::from_path_buf(cwd).map_err(|cwd| OutputError::Io {
            action: "read the current folder",
            path: Utf8PathBuf::from(cwd.to_string_lossy().into_owned()),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8"),
        })?;
        cwd.join(path)
    };
    let mut missing: Vec<String> = Vec::new();
    let mut current = absolute.as_path();
    loop {
        match current.canonicalize_utf8() {
            Ok(real) => {
                let mut real = real;
                for part in missing.iter().rev() {
                    match part.as_str() {
                        "." => {}
                        ".." => {
                            real.pop();
                        }
                        part => real.push(part),
                    }
                }
                return Ok(real);
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let (Some(parent), Some(name)) = (current.parent(), current.file_name()) else {
                    return Err(OutputError::io("resolve", path)(e));
                };
                missing.push(name.to_owned());
                current = parent;
            }
            Err(e) => return Err(OutputError::io("resolve", path)(e)),
        }
    }
}

#[cfg(test)]
mod tests;
