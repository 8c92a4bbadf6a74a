//! One file written whole: `package`'s archive, a golden case's expectation, lint's schema.

use super::cleanup::{self, random_suffix};
use super::OutputError;
use camino::{Utf8Path, Utf8PathBuf};
use std::fs::File;
use std::io::Write as _;

/// The ending of a single file's temporary name: `.<name>.<16 hex digits>.partial`.
const PARTIAL: &str = ".partial";

/// Writes `bytes` to `target` whole: into a temporary file beside it (a random name, locked
/// while it is written), synced and renamed into place. A failure leaves neither a partial
/// `target` nor the temporary file; an interruption (SIGINT, SIGTERM, SIGHUP) removes it too,
/// and temporary files of `target` that killed runs left (no one holds their lock) are removed
/// first. A symbolic link standing at `target` is replaced, never written through.
pub fn write_file(target: &Utf8Path, bytes: &[u8]) -> Result<(), OutputError> {
    let name = target.file_name().ok_or_else(|| OutputError::BadName {
        name: target.to_string(),
    })?;
    let folder = match target.parent() {
        Some(parent) if !parent.as_str().is_empty() => parent.to_owned(),
        _ => Utf8PathBuf::from("."),
    };
    remove_stale_partials(&folder, name);
    let temp = folder.join(format!(".{name}.{}{PARTIAL}", random_suffix()?));
    cleanup::register(&temp);
    let private = super::holds_secret(bytes);
    let replaced = std::fs::symlink_metadata(target)
        .ok()
        .filter(std::fs::Metadata::is_file);
    let result = write_locked(&temp, bytes, private, replaced.as_ref())
        .map_err(OutputError::io("write", &temp))
        .and_then(|file| {
            std::fs::rename(&temp, target).map_err(OutputError::io("write", target))?;
            // The lock goes with the descriptor once the file has its name.
            drop(file);
            Ok(())
        });
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    cleanup::unregister(&temp);
    result
}

/// Creates `path` (it must not exist; owner-only from the start when `private`: an expectation
/// holding a Secret), locks it, writes and syncs `bytes`; the open file keeps the lock.
/// A file it replaces (`replaced`) hands on its owner, group and mode.
fn write_locked(
    path: &Utf8Path,
    bytes: &[u8],
    private: bool,
    replaced: Option<&std::fs::Metadata>,
) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    if let Some(replaced) = replaced {
        super::set::take_over(&file, replaced, private);
    }
    lock(&file, true)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    Ok(file)
}

/// Removes `.<name>.<16 hex>.partial` files in `folder` that no writer holds locked.
fn remove_stale_partials(folder: &Utf8Path, name: &str) {
    let prefix = format!(".{name}.");
    let Ok(entries) = folder.read_dir_utf8() else {
        return;
    };
    for entry in entries.flatten() {
        let Some(middle) = entry
            .file_name()
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(PARTIAL))
        else {
            continue;
        };
        if middle.len() != 16 || !middle.bytes().all(|b| b.is_ascii_hexdigit()) {
            continue;
        }
        if !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        // Held by a writer at work: not stale.
        if let Ok(file) = File::open(entry.path()) {
            if lock(&file, false).is_ok() {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// Takes the exclusive `flock` of `file`, waiting when `wait`, else failing at once if it is
/// held.
#[cfg(unix)]
fn lock(file: &File, wait: bool) -> std::io::Result<()> {
    use std::os::unix::io::AsRawFd as _;
    let operation = if wait {
        libc::LOCK_EX
    } else {
        libc::LOCK_EX | libc::LOCK_NB
    };
    loop {
        // SAFETY: a descriptor open for the call.
        if unsafe { libc::flock(file.as_raw_fd(), operation) } == 0 {
            return Ok(());
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

#[cfg(not(unix))]
fn lock(_: &File, _: bool) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch() -> (tempfile::TempDir, Utf8PathBuf) {
        let dir = tempfile::tempdir().expect("temporary folder");
        let path = Utf8PathBuf::from_path_buf(dir.path().to_owned()).expect("UTF-8 path");
        (dir, path)
    }

    fn names(dir: &Utf8Path) -> Vec<String> {
        let mut names: Vec<String> = dir
            .read_dir_utf8()
            .expect("readable")
            .map(|e| e.expect("entry").file_name().to_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_file_is_written_whole_and_nothing_else_is_left() {
        let (_keep, dir) = scratch();
        write_file(&dir.join("a.tgz"), b"one").expect("write");
        write_file(&dir.join("a.tgz"), b"two").expect("write");
        assert_eq!(std::fs::read(dir.join("a.tgz")).expect("read"), b"two");
        assert_eq!(names(&dir), ["a.tgz"]);
    }

    #[test]
    fn partials_of_killed_runs_are_removed_and_held_ones_stay() {
        let (_keep, dir) = scratch();
        std::fs::write(dir.join(".a.tgz.0123456789abcdef.partial"), "half").expect("write");
        std::fs::write(dir.join(".a.tgz.4242.partial"), "not ours").expect("write");
        let held = dir.join(".a.tgz.fedcba9876543210.partial");
        let file = write_locked(&held, b"at work", false, None).expect("held");
        write_file(&dir.join("a.tgz"), b"new").expect("write");
        assert_eq!(
            names(&dir),
            [
                ".a.tgz.4242.partial",
                ".a.tgz.fedcba9876543210.partial",
                "a.tgz"
            ]
        );
        drop(file);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_at_the_target_is_replaced_not_followed() {
        let (_keep, dir) = scratch();
        std::fs::write(dir.join("elsewhere"), "keep").expect("write");
        std::os::unix::fs::symlink(dir.join("elsewhere"), dir.join("a.yaml")).expect("link");
        write_file(&dir.join("a.yaml"), b"new").expect("write");
        assert_eq!(std::fs::read(dir.join("elsewhere")).expect("read"), b"keep");
        assert_eq!(std::fs::read(dir.join("a.yaml")).expect("read"), b"new");
    }

    #[cfg(unix)]
    #[test]
    fn an_expectation_holding_a_secret_is_written_owner_only() {
        use std::os::unix::fs::MetadataExt as _;
        let (_keep, dir) = scratch();
        let mode = |name: &str| std::fs::metadata(dir.join(name)).expect("meta").mode() & 0o777;
        write_file(&dir.join("expected.yaml"), b"---\nkind: Secret\ndata: {}\n").expect("write");
        write_file(&dir.join("plain.yaml"), b"kind: ConfigMap\n").expect("write");
        assert_eq!(mode("expected.yaml"), 0o600);
        assert_ne!(
            mode("plain.yaml") & 0o044,
            0,
            "a plain file keeps the usual mode"
        );
    }

    #[test]
    fn a_failure_names_the_file_and_leaves_nothing() {
        let (_keep, dir) = scratch();
        std::fs::create_dir_all(dir.join("a.tgz/occupied")).expect("folder");
        let error = write_file(&dir.join("a.tgz"), b"x").expect_err("a folder in the way");
        assert!(error.to_string().contains("a.tgz"), "{error}");
        assert!(std::error::Error::source(&error).is_some());
        assert_eq!(names(&dir), ["a.tgz"]);
    }
}
