//! File writes shared by the commands.

use camino::Utf8Path;
use std::io::{Read, Write};

/// Writes `bytes` to `target` through a temporary file beside it, synced and renamed into place,
/// so a failure leaves neither a partial `target` nor the temporary file.
pub fn write_atomically(target: &Utf8Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = target.file_name().unwrap_or("file");
    let temp = target.with_file_name(format!(".{name}.{}.partial", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, target)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// Whether `target` is a regular file holding exactly `bytes`. Only a regular file of that very
/// length is opened (never a link, FIFO or device: opening one could follow it or block), and it
/// is read a slice at a time, stopping at the first difference.
pub fn holds_exactly(target: &Utf8Path, bytes: &[u8]) -> bool {
    let same_length =
        |m: &std::fs::Metadata| m.file_type().is_file() && m.len() == bytes.len() as u64;
    if !std::fs::symlink_metadata(target).is_ok_and(|m| same_length(&m)) {
        return false;
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Swapped for a link or a FIFO since the look: fail rather than follow or wait.
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let Ok(mut file) = options.open(target) else {
        return false;
    };
    if !file.metadata().is_ok_and(|m| same_length(&m)) {
        return false;
    }
    let mut slice = [0u8; 16 << 10];
    let mut rest = bytes;
    while !rest.is_empty() {
        let want = rest.len().min(slice.len());
        if file.read_exact(&mut slice[..want]).is_err() || slice[..want] != rest[..want] {
            return false;
        }
        rest = &rest[want..];
    }
    // Nothing beyond: the file did not grow since its length was read.
    matches!(file.read(&mut slice[..1]), Ok(0))
}

/// Moves the file `staged` to `target` in one step. When `target` was a regular file, the two
/// are exchanged (Linux `renameat2` with `RENAME_EXCHANGE`) and the old file is left at `staged`
/// for the caller to remove: `Ok(true)`. Otherwise, or where the file system cannot exchange,
/// it is an ordinary rename: `Ok(false)`.
///
/// Why exchange: renaming over an existing file makes ext4 write the new file's data out
/// there and then (`auto_da_alloc`) and free the old file's blocks, all inside the rename, under
/// the folder's lock; a fleet's commit then ran one cluster at a time. Exchanged, the data is
/// written back as any other write is, and the old files can be removed on every core.
pub fn replace_keeping_old(staged: &Utf8Path, target: &Utf8Path) -> std::io::Result<bool> {
    let replaces_file = std::fs::symlink_metadata(target).is_ok_and(|m| m.file_type().is_file());
    if replaces_file && exchange(staged, target)? {
        return Ok(true);
    }
    std::fs::rename(staged, target).map(|()| false)
}

/// Exchanges two paths; `Ok(false)` when this system or file system cannot.
#[cfg(target_os = "linux")]
fn exchange(a: &Utf8Path, b: &Utf8Path) -> std::io::Result<bool> {
    use std::ffi::CString;
    let c_path = |p: &Utf8Path| {
        CString::new(p.as_str())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
    };
    let (a, b) = (c_path(a)?, c_path(b)?);
    // SAFETY: both are NUL-terminated paths that outlive the call; renameat2 reads nothing else.
    let status = unsafe {
        libc::renameat2(
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
        // No such call, no such flag on this file system, or the target went away meanwhile.
        Some(libc::ENOSYS | libc::EINVAL | libc::ENOENT | libc::EOPNOTSUPP) => Ok(false),
        _ => Err(error),
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Utf8Path, _: &Utf8Path) -> std::io::Result<bool> {
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A temporary folder holding `staged` (with "new" in it) and the path `target`.
    fn staged_new() -> (tempfile::TempDir, camino::Utf8PathBuf, camino::Utf8PathBuf) {
        let dir = tempfile::tempdir().expect("temporary folder");
        let path = camino::Utf8PathBuf::from_path_buf(dir.path().to_owned()).expect("UTF-8 path");
        let (staged, target) = (path.join("staged"), path.join("target"));
        std::fs::write(&staged, "new").expect("write");
        (dir, staged, target)
    }

    fn read(path: &camino::Utf8Path) -> String {
        std::fs::read_to_string(path).expect("read")
    }

    #[test]
    fn replacing_a_file_puts_the_new_bytes_in_place_and_keeps_the_old_beside() {
        let (_dir, staged, target) = staged_new();
        std::fs::write(&target, "old").expect("write");
        let kept_old = replace_keeping_old(&staged, &target).expect("replace");
        assert_eq!(read(&target), "new");
        if kept_old {
            assert_eq!(read(&staged), "old");
        } else {
            assert!(!staged.exists());
        }
    }

    #[test]
    fn a_missing_target_is_an_ordinary_rename() {
        let (_dir, staged, target) = staged_new();
        assert!(!replace_keeping_old(&staged, &target).expect("rename"));
        assert_eq!(read(&target), "new");
        assert!(!staged.exists());
    }

    #[test]
    fn a_folder_in_the_way_is_not_exchanged_but_refused() {
        let (_dir, staged, target) = staged_new();
        std::fs::create_dir(&target).expect("folder");
        std::fs::write(target.join("kept"), "mine").expect("write");
        assert!(replace_keeping_old(&staged, &target).is_err());
        assert_eq!(read(&target.join("kept")), "mine");
        assert_eq!(read(&staged), "new");
    }
}
