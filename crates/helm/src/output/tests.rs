//! The door's rules, one test each: whole sets, the lock, the record, foreign files, overlap,
//! stale staging.

mod concurrency;
mod foreign;
mod interrupted;
mod privacy;
mod refusals;
mod sets;
mod staging;

use super::*;
use std::collections::BTreeSet;
use std::os::unix::fs::MetadataExt as _;
use std::sync::mpsc;
use std::time::Duration;

fn scratch() -> (tempfile::TempDir, Utf8PathBuf) {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = Utf8PathBuf::from_path_buf(dir.path().to_owned()).expect("UTF-8 path");
    (dir, path)
}

/// Every entry under `dir` (files and folders), relative, sorted.
fn tree(dir: &Utf8Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(folder) = stack.pop() {
        for entry in folder.read_dir_utf8().expect("readable") {
            let entry = entry.expect("entry");
            let relative = entry.path().strip_prefix(dir).expect("inside").to_string();
            if entry.file_type().expect("type").is_dir() {
                stack.push(entry.path().to_owned());
                out.push(format!("{relative}/"));
            } else {
                out.push(relative);
            }
        }
    }
    out.sort();
    out
}

fn read(path: &Utf8Path) -> String {
    std::fs::read_to_string(path).expect("read")
}

/// Writes `files` (name, text) as one set into `root` and commits it with `removal`.
fn put(root: &Utf8Path, files: &[(&str, &str)], removal: Removal) -> CommitReport {
    let set = OutputSet::begin(root, None).expect("begin");
    for (name, text) in files {
        set.write(name, text.as_bytes(), false).expect("write");
    }
    set.commit(removal).expect("commit")
}
