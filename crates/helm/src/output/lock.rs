//! The advisory lock on a target folder.

use super::OutputError;
use camino::{Utf8Path, Utf8PathBuf};
use std::fs::File;

/// An advisory lock (`flock`) on a folder, held until dropped (or until the process dies: the
/// kernel releases it with the file descriptor, so a killed run never leaves a stale lock).
///
/// The lock is on the folder itself, not on a lock file beside it: nothing is left outside the
/// target. Because a whole-set commit exchanges the folder for a new one, a waiter may end up
/// holding the lock of a folder that has just been replaced; it checks, after locking, that the
/// path still names the folder it locked, and otherwise locks again.
#[derive(Debug)]
pub struct TargetLock {
    // Held for its descriptor: closing it releases the lock.
    _file: File,
    path: Utf8PathBuf,
}

impl TargetLock {
    /// Waits for the exclusive lock on the folder `path` (which must exist).
    pub fn exclusive(path: &Utf8Path) -> Result<TargetLock, OutputError> {
        Self::acquire(path, Kind::Exclusive)
    }

    /// Waits for a shared lock on the folder `path` (which must exist): readers that must see
    /// one committed set, never a set being replaced under them. Staging that a killed writer
    /// left is removed here too: no writer can be at work while a reader holds the lock.
    /// A file-by-file switch that a killed writer left half done is completed first (under
    /// the exclusive lock, taken for that alone): a reader never sees a mixed set.
    pub fn shared(path: &Utf8Path) -> Result<TargetLock, OutputError> {
        let mut lock = Self::acquire(path, Kind::Shared)?;
        if let Ok(real) = path.canonicalize_utf8() {
            while super::set::has_journal(&real) {
                drop(lock);
                {
                    let _writing = Self::acquire(path, Kind::Exclusive)?;
                    super::set::complete_journals(&real)?;
                }
                lock = Self::acquire(path, Kind::Shared)?;
            }
        }
        // Once per folder and process: a fleet's clusters all read one --certs-dir, and a
        // look around it for each of them was a tenth of a 200-cluster re-render.
        if super::cleanup::first_look(path) {
            if let Ok(real) = path.canonicalize_utf8() {
                super::cleanup::remove_stale_around(&real);
            }
        }
        Ok(lock)
    }

    /// The folder locked.
    pub fn path(&self) -> &Utf8Path {
        &self.path
    }

    fn acquire(path: &Utf8Path, kind: Kind) -> Result<TargetLock, OutputError> {
        let mut told = false;
        loop {
            let file = open_folder(path)?;
            let taken =
                flock(&file, kind, false).map_err(OutputError::io("lock the folder", path))?;
            if !taken {
                // A holder that is stopped (SIGSTOP, a debugger) would keep this run waiting
                // without a word.
                if !told {
                    // The holder's command line may carry a key given with --set.
                    let note = waiting_note(path);
                    eprintln!("{}", crate::redact::mask_private_keys(&note));
                    told = true;
                }
                flock(&file, kind, true).map_err(OutputError::io("lock the folder", path))?;
            }
            if same_folder(path, &file) {
                return Ok(TargetLock {
                    _file: file,
                    path: path.to_owned(),
                });
            }
            // Replaced (or removed) while we waited: lock what the path names now.
            if !path.exists() {
                super::create_folders(path).map_err(OutputError::io("create the folder", path))?;
            }
        }
    }
}

/// Opens the folder `path` for locking; anything else is [`OutputError::NotAFolder`].
fn open_folder(path: &Utf8Path) -> Result<File, OutputError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        // One call instead of an open and a look: a fleet locks its --certs-dir per cluster.
        options.custom_flags(libc::O_DIRECTORY);
    }
    let file = options
        .open(path)
        .map_err(|source| match source.raw_os_error() {
            Some(libc::ENOTDIR) => OutputError::NotAFolder {
                path: path.to_owned(),
            },
            _ => OutputError::io("open the folder", path)(source),
        })?;
    #[cfg(not(unix))]
    if !file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(OutputError::NotAFolder {
            path: path.to_owned(),
        });
    }
    Ok(file)
}

#[derive(Clone, Copy)]
enum Kind {
    Shared,
    Exclusive,
}

/// Whether `path` still names the folder open as `file`.
fn same_folder(path: &Utf8Path, file: &File) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        match (std::fs::metadata(path), file.metadata()) {
            (Ok(now), Ok(held)) => now.dev() == held.dev() && now.ino() == held.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (path, file);
        true
    }
}

/// What a run says on stderr when it must wait for the lock on `path`: the folder locked, and
/// the run holding it as its staging's owner file records it (pid and command line).
fn waiting_note(path: &Utf8Path) -> String {
    let holders: Vec<String> = path
        .canonicalize_utf8()
        .map(|real| super::cleanup::staging_of(&real))
        .unwrap_or_default()
        .iter()
        .filter_map(|staging| super::cleanup::owner(staging))
        .map(|owner| format!("pid {} ({})", owner.pid, owner.command))
        .collect();
    let holder = if holders.is_empty() {
        "another process, which records no pid (a reader, or a run that has not staged yet)"
            .to_owned()
    } else {
        holders.join(", ")
    };
    format!(
        "meshchart: waiting for the lock on {path} (an flock on the folder itself), held by \
         {holder}; a stopped holder keeps this run waiting until it goes on or ends"
    )
}

/// Takes the `flock`: waits when `wait`, else returns at once whether it was taken.
#[cfg(unix)]
fn flock(file: &File, kind: Kind, wait: bool) -> std::io::Result<bool> {
    use std::os::unix::io::AsRawFd as _;
    let operation = match kind {
        Kind::Shared => libc::LOCK_SH,
        Kind::Exclusive => libc::LOCK_EX,
    } | if wait { 0 } else { libc::LOCK_NB };
    loop {
        // SAFETY: a descriptor this function's caller keeps open for the call.
        let status = unsafe { libc::flock(file.as_raw_fd(), operation) };
        if status == 0 {
            return Ok(true);
        }
        let error = std::io::Error::last_os_error();
        if !wait && error.raw_os_error() == Some(libc::EWOULDBLOCK) {
            return Ok(false);
        }
        if error.kind() != std::io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

#[cfg(not(unix))]
fn flock(_: &File, _: Kind, _: bool) -> std::io::Result<bool> {
    // No advisory locks here: runs are not serialised (documented in the module).
    Ok(true)
}
