//! The file-system steps of staging: folders made and removed, files written privately or
//! atomically, ownership taken over from the file replaced, folders exchanged. Separate because
//! they know nothing of sets, records or switches.

use super::super::cleanup;
use super::super::record::RECORD_NAME;
use super::super::OutputError;
use camino::{Utf8Path, Utf8PathBuf};

/// Creates `dir` and its missing parents; returns the folders it made, outermost first.
pub(super) fn create_dirs(dir: &Utf8Path) -> Result<Vec<Utf8PathBuf>, OutputError> {
    let mut missing = Vec::new();
    let mut current = Some(dir);
    while let Some(path) = current {
        if path.as_str().is_empty() || std::fs::symlink_metadata(path).is_ok() {
            break;
        }
        missing.push(path.to_owned());
        current = path.parent();
    }
    missing.reverse();
    let mut created = Vec::new();
    for path in missing {
        match super::super::create_folder(&path) {
            Ok(()) => created.push(path),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                remove_if_empty(&created);
                return Err(OutputError::io("create the folder", path)(e));
            }
        }
    }
    Ok(created)
}

/// Removes the folders `created` (outermost first) that are empty, innermost first.
pub(super) fn remove_if_empty(created: &[Utf8PathBuf]) {
    for made in created.iter().rev() {
        if std::fs::remove_dir(made).is_err() {
            break;
        }
    }
}

/// Gives the staged `file` what the file it replaces had: its owner and group (a run as root
/// must not hand a user's file to root; where this process may not, they stay its own) and its
/// mode, narrowed to owner-only for `private` content.
pub(in crate::output) fn take_over(
    file: &std::fs::File,
    replaced: &std::fs::Metadata,
    private: bool,
) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
        let mode = replaced.mode() & 0o7777;
        let mode = if private { mode & 0o600 } else { mode };
        if owner_differs(file.metadata().ok().as_ref(), replaced) {
            let _ = std::os::unix::fs::fchown(file, Some(replaced.uid()), Some(replaced.gid()));
        }
        let _ = file.set_permissions(std::fs::Permissions::from_mode(mode));
    }
    #[cfg(not(unix))]
    {
        let _ = (file, replaced, private);
    }
}

/// Gives the folder `made` (a replacement) the owner, group and mode of `replaced`.
pub(super) fn take_folder_over(made: &Utf8Path, replaced: &std::fs::Metadata) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        if owner_differs(std::fs::metadata(made).ok().as_ref(), replaced) {
            let _ = std::os::unix::fs::chown(made, Some(replaced.uid()), Some(replaced.gid()));
        }
    }
    let _ = std::fs::set_permissions(made, replaced.permissions());
}

#[cfg(unix)]
fn owner_differs(made: Option<&std::fs::Metadata>, replaced: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    made.is_none_or(|made| made.uid() != replaced.uid() || made.gid() != replaced.gid())
}

/// Creates a staging folder owner-only (0700): what is staged in it, secrets among it, is out
/// of other users' reach by path whatever the files' own modes.
pub(super) fn create_staging_dir(path: &Utf8Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt as _;
        builder.mode(0o700);
    }
    builder.create(path)
}

/// Creates the staged file `path` (it must not exist) with its final mode: 0600 for `private`
/// content, else 0644, both narrowed by the umask as any new file is. Created so, never
/// created wider and narrowed after: not even for an instant can another user open it.
pub(super) fn create_staged(path: &Utf8Path, private: bool) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(if private { 0o600 } else { 0o644 });
    }
    options.open(path)
}

pub(super) fn write_file(path: &Utf8Path, bytes: &[u8]) -> Result<(), OutputError> {
    write_ours(path, bytes).map_err(OutputError::io("write", path))
}

/// Writes one of the door's own files (the record of what meshchart wrote, a switch's journal):
/// 0644 narrowed by the umask, never wider. The record says which files a later run may replace
/// or remove, so nobody but its owner may change it, whatever the umask.
fn write_ours(path: &Utf8Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o644);
    }
    options.open(path)?.write_all(bytes)
}

pub(super) fn write_atomically(path: &Utf8Path, bytes: &[u8]) -> Result<(), OutputError> {
    let suffix = cleanup::random_suffix()?;
    let temp = path.with_file_name(format!("{RECORD_NAME}.{suffix}.partial"));
    let result = write_ours(&temp, bytes).and_then(|()| std::fs::rename(&temp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result.map_err(OutputError::io("write", path))
}

/// Whether two paths are on one file system.
pub(super) fn same_device(a: &Utf8Path, b: &Utf8Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        true
    }
}

/// Exchanges two folders in one step; `Ok(false)` where the system cannot (then nothing moved).
#[cfg(target_os = "linux")]
pub(super) fn exchange(a: &Utf8Path, b: &Utf8Path) -> std::io::Result<bool> {
    use std::ffi::CString;
    let c_path = |p: &Utf8Path| {
        CString::new(p.as_str())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
    };
    let (a, b) = (c_path(a)?, c_path(b)?);
    // The system call itself rather than libc's wrapper: musl's C library gained the wrapper
    // only in 1.2.5, after the one Rust's musl target links, and the binary we ship is static
    // over musl (bench/build-dist.sh). The call is the same in both C libraries.
    // SAFETY: both are NUL-terminated paths that outlive the call.
    let status = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if status == 0 {
        return Ok(true);
    }
    let error = std::io::Error::last_os_error();
    match error.raw_os_error() {
        // No such call or flag here, another file system, or a mount point.
        Some(libc::ENOSYS | libc::EINVAL | libc::EOPNOTSUPP | libc::EXDEV | libc::EBUSY) => {
            Ok(false)
        }
        _ => Err(error),
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Utf8Path, _: &Utf8Path) -> std::io::Result<bool> {
    Ok(false)
}
