//! File writes shared by the commands.

use camino::Utf8Path;
use std::io::Write;

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
