//! The journal of a file-by-file switch (where folders cannot be exchanged): written before any
//! file moves, replayed by the next run when a run is killed halfway. Separate because the lock
//! and the cleanup read it without a set.

use super::super::cleanup;
use super::super::record::{self, RECORD_NAME};
use super::super::OutputError;
use super::disk::write_atomically;
use camino::{Utf8Path, Utf8PathBuf};
use std::collections::BTreeSet;

/// A file-by-file switch, written into its staging folder before any file moves: the target,
/// the staged files to move into it, the recorded files to remove, and the record to leave.
/// Each line is a word and a JSON string (any name reads back as written).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Journal {
    pub(super) target: Utf8PathBuf,
    pub(super) moves: Vec<String>,
    pub(super) removals: Vec<String>,
    pub(super) record: BTreeSet<String>,
}

impl Journal {
    pub(super) fn text(&self) -> String {
        let quoted = |name: &str| serde_json::Value::from(name).to_string();
        let mut text = format!("target {}\n", quoted(self.target.as_str()));
        let lines = [("move", &self.moves), ("remove", &self.removals)];
        for (word, names) in lines {
            for name in names {
                text.push_str(&format!("{word} {}\n", quoted(name)));
            }
        }
        for name in &self.record {
            text.push_str(&format!("record {}\n", quoted(name)));
        }
        text.push_str("end\n");
        text
    }

    /// The journal at `path`; `Err` names the line that is not one this version writes.
    fn read(path: &Utf8Path) -> Result<Journal, OutputError> {
        let text = std::fs::read_to_string(path).map_err(OutputError::io("read", path))?;
        let bad = |line: usize, reason: &str| OutputError::Record {
            path: path.to_owned(),
            line,
            reason: reason.to_owned(),
        };
        let mut journal = Journal {
            target: Utf8PathBuf::new(),
            moves: Vec::new(),
            removals: Vec::new(),
            record: BTreeSet::new(),
        };
        let mut ended = false;
        for (index, line) in text.lines().enumerate() {
            if line == "end" {
                ended = true;
                continue;
            }
            let (word, quoted) = line
                .split_once(' ')
                .ok_or_else(|| bad(index + 1, "not a journal line"))?;
            let value: String =
                serde_json::from_str(quoted).map_err(|_| bad(index + 1, "not a JSON string"))?;
            if word != "target" {
                record::check_name(&value).map_err(|e| bad(index + 1, &e.to_string()))?;
            }
            match word {
                "target" => journal.target = Utf8PathBuf::from(value),
                "move" => journal.moves.push(value),
                "remove" => journal.removals.push(value),
                "record" => {
                    journal.record.insert(value);
                }
                _ => return Err(bad(index + 1, "not a journal line")),
            }
        }
        if !ended || journal.target.as_str().is_empty() {
            return Err(bad(text.lines().count(), "the journal is incomplete"));
        }
        Ok(journal)
    }

    /// Makes the switch, or what is left of it: a staged file already moved is not staged any
    /// more. `shown` is the target as messages name it.
    pub(super) fn apply(
        &self,
        staging: &Utf8Path,
        shown: &Utf8Path,
        #[cfg(test)] killed_after: &dyn Fn(usize) -> Result<(), OutputError>,
    ) -> Result<(), OutputError> {
        super::super::create_folders(&self.target)
            .map_err(OutputError::io("create the folder", shown))?;
        let new = staging.join("new");
        #[cfg(test)]
        let mut moves = 0;
        for name in &self.moves {
            let staged = new.join(name);
            if std::fs::symlink_metadata(&staged).is_err() {
                continue;
            }
            #[cfg(test)]
            {
                killed_after(moves)?;
                moves += 1;
            }
            let in_place = self.target.join(name);
            if let Some(parent) = in_place.parent() {
                super::super::create_folders(parent)
                    .map_err(OutputError::io("create the folder", parent))?;
            }
            std::fs::rename(&staged, &in_place)
                .map_err(OutputError::io("put in place", shown.join(name)))?;
        }
        for name in &self.removals {
            match std::fs::remove_file(self.target.join(name)) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(OutputError::io("remove", shown.join(name))(e)),
            }
        }
        write_atomically(
            &self.target.join(RECORD_NAME),
            record::text(&self.record).as_bytes(),
        )
    }
}

/// Completes the file-by-file switches that killed runs left half done in the staging of the
/// target `root` (resolved), under its exclusive lock, then removes their staging. A journal
/// naming a target outside `root` is not this lock's to act on: left alone.
pub(crate) fn complete_journals(root: &Utf8Path) -> Result<(), OutputError> {
    for staging in cleanup::staging_of(root) {
        let path = staging.join(cleanup::JOURNAL_FILE);
        if !path.exists() {
            continue;
        }
        let journal = Journal::read(&path)?;
        if !journal.target.starts_with(root) {
            continue;
        }
        journal.apply(
            &staging,
            &journal.target,
            #[cfg(test)]
            &|_| Ok(()),
        )?;
        let _ = cleanup::remove_tree(&staging);
    }
    Ok(())
}

/// Whether staging of the target `root` (resolved) holds a switch a killed run left half done.
pub(crate) fn has_journal(root: &Utf8Path) -> bool {
    cleanup::staging_of(root)
        .iter()
        .any(|staging| staging.join(cleanup::JOURNAL_FILE).exists())
}
