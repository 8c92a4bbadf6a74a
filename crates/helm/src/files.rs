//! File checks shared by the commands: whether a file already holds its bytes, and which file a
//! name refers to. Writing goes through [`crate::output`].

use camino::Utf8Path;
use std::io::Read;

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

/// Which file `path` names (following links): its device and inode, the same for every name of
/// one file (`f`, `./f`, a link to it), so a FIFO named twice is read once and a folder reached
/// twice is walked once.
pub fn identity(path: &Utf8Path) -> std::io::Result<(u64, u64)> {
    let meta = std::fs::metadata(path)?;
    Ok(identity_of(&meta))
}

/// [`identity`] from metadata already read.
pub fn identity_of(meta: &std::fs::Metadata) -> (u64, u64) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        (meta.dev(), meta.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        (0, 0)
    }
}
