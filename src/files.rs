//! File checks shared by the commands. Writing goes through [`crate::output`].

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
