//! Writing a chart archive: Helm's layout, with every byte fixed so a package is reproducible.
//!
//! Entries sit under one top folder named after the chart, in Helm's order (engine.md 4.1):
//! `Chart.yaml`, `Chart.lock`, `values.yaml`, `values.schema.json`, `templates/**`, every other
//! file, then each dependency under `charts/<dep>/` in the same order. There are no folder
//! entries. Each header is POSIX ustar with mode 0644, uid/gid 0, empty owner names and one fixed
//! mtime; the gzip header has mtime 0, no name, OS byte 255 (unknown) and level 6.

use flate2::{Compression, GzBuilder};
use std::cmp::Ordering;
use std::io::Write;

/// The entries' mtime when `SOURCE_DATE_EPOCH` is unset: 1980-01-01T00:00:00Z (the ZIP epoch;
/// 0 makes some tar tools warn about an "implausibly old time stamp").
pub(super) const DEFAULT_MTIME: u64 = 315_532_800;

/// gzip compression level (fixed: another level gives other bytes).
pub(super) const GZIP_LEVEL: u32 = 6;

/// gzip's "unknown" operating system byte, as Go's `compress/gzip` writes it.
pub(super) const GZIP_OS_UNKNOWN: u8 = 255;

/// Mode of every file in the archive.
pub(super) const FILE_MODE: u32 = 0o644;

/// The mtime to stamp entries with: `SOURCE_DATE_EPOCH` if set, else [`DEFAULT_MTIME`].
pub(super) fn mtime_from_env() -> Result<u64, String> {
    match crate::epoch::source_date_epoch_from_env().map_err(|e| e.to_string())? {
        None => Ok(DEFAULT_MTIME),
        Some(instant) => Ok(instant
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())),
    }
}

/// Where a path of a chart goes in Helm's entry order (a sort key; smaller first).
fn order_key(path: &str) -> Vec<(u8, &str)> {
    let mut key = Vec::new();
    let mut rest = path;
    loop {
        if let Some(dependency) = rest.strip_prefix("charts/") {
            let (name, inner) = dependency.split_once('/').unwrap_or((dependency, ""));
            key.push((6, name));
            rest = inner;
            continue;
        }
        let rank = match rest {
            "Chart.yaml" => 0,
            "Chart.lock" => 1,
            "values.yaml" => 2,
            "values.schema.json" => 3,
            _ if rest.starts_with("templates/") => 4,
            _ => 5,
        };
        key.push((rank, rest));
        return key;
    }
}

/// Helm's order of two chart paths (relative to the chart root).
pub(super) fn entry_order(a: &str, b: &str) -> Ordering {
    order_key(a).cmp(&order_key(b))
}

/// Writes the gzipped tar of `files` (paths relative to the chart root) under the folder `top`.
/// Files are sorted into Helm's order here; a path too long for a ustar header is an error
/// naming it.
pub(super) fn write_archive<W: Write>(
    top: &str,
    files: &[(String, Vec<u8>)],
    mtime: u64,
    out: W,
) -> std::io::Result<W> {
    let mut sorted: Vec<&(String, Vec<u8>)> = files.iter().collect();
    sorted.sort_by(|a, b| entry_order(&a.0, &b.0));
    let gzip = GzBuilder::new()
        .mtime(0)
        .operating_system(GZIP_OS_UNKNOWN)
        .write(out, Compression::new(GZIP_LEVEL));
    let mut tar = tar::Builder::new(gzip);
    for (path, bytes) in sorted {
        let name = format!("{top}/{path}");
        let mut header = tar::Header::new_ustar();
        header.set_path(&name).map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{name}: cannot be stored in a ustar header ({e})"),
            )
        })?;
        header.set_entry_type(tar::EntryType::Regular);
        header.set_size(bytes.len() as u64);
        header.set_mode(FILE_MODE);
        header.set_uid(0);
        header.set_gid(0);
        header.set_mtime(mtime);
        header.set_cksum();
        tar.append(&header, bytes.as_slice())?;
    }
    let gzip = tar.into_inner()?;
    gzip.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_follow_helms_order() {
        let mut paths = vec![
            "templates/z.yaml",
            "README.md",
            ".helmignore",
            "charts/dep/templates/a.yaml",
            "values.schema.json",
            "charts/dep/Chart.yaml",
            "Chart.lock",
            "crds/c.yaml",
            "templates/a/b.yaml",
            "values.yaml",
            "LICENSE",
            "Chart.yaml",
            "charts/dep/values.yaml",
        ];
        paths.sort_by(|a, b| entry_order(a, b));
        assert_eq!(
            paths,
            [
                "Chart.yaml",
                "Chart.lock",
                "values.yaml",
                "values.schema.json",
                "templates/a/b.yaml",
                "templates/z.yaml",
                ".helmignore",
                "LICENSE",
                "README.md",
                "crds/c.yaml",
                "charts/dep/Chart.yaml",
                "charts/dep/values.yaml",
                "charts/dep/templates/a.yaml",
            ]
        );
    }

    #[test]
    fn the_same_files_give_the_same_bytes() {
        let files = vec![
            ("values.yaml".to_owned(), b"a: 1\n".to_vec()),
            ("Chart.yaml".to_owned(), b"name: x\n".to_vec()),
        ];
        let a = write_archive("x", &files, DEFAULT_MTIME, Vec::new()).unwrap();
        let mut reversed = files.clone();
        reversed.reverse();
        let b = write_archive("x", &reversed, DEFAULT_MTIME, Vec::new()).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn the_gzip_header_is_fixed() {
        let bytes = write_archive("x", &[], 7, Vec::new()).unwrap();
        // magic, deflate, no flags, mtime 0, XFL 0, OS 255
        assert_eq!(&bytes[..10], &[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
    }
}
