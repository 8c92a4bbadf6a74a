//! Committing a set: the switch of staging into place, whole (an exchange of folders where the
//! system has one) or file by file (with a journal), and the report of what changed. Separate
//! from staging the set's files, which is all the rest of [`OutputSet`] does.

use super::super::cleanup;
use super::super::record::{self, RECORD_NAME};
use super::super::OutputError;
use super::disk::{exchange, take_folder_over, write_file};
use super::switch::{retire_old, SwitchMarker};
use super::{CommitReport, FileOutcome, OutputSet, Removal};
use std::collections::BTreeSet;

impl OutputSet {
    /// Puts the set in place in one step (see the module) and returns what it did. Nothing
    /// changes on error, except where the platform could not switch in one step and a file
    /// could not be moved: the error then names that file.
    pub fn commit(mut self, removal: Removal) -> Result<CommitReport, OutputError> {
        let outcomes =
            std::mem::take(&mut *self.outcomes.lock().unwrap_or_else(|p| p.into_inner()));
        let kept = std::mem::take(&mut *self.kept.lock().unwrap_or_else(|p| p.into_inner()));
        let removing =
            std::mem::take(&mut *self.removing.lock().unwrap_or_else(|p| p.into_inner()));
        let written: BTreeSet<&str> = outcomes
            .iter()
            .filter(|(_, o)| **o == FileOutcome::Written)
            .map(|(n, _)| n.as_str())
            .collect();
        self.refuse_foreign(written.iter().copied())?;
        let mut new_record: BTreeSet<String> = outcomes.keys().cloned().collect();
        new_record.extend(kept);
        let stale: Vec<String> = match removal {
            Removal::Stale => self
                .recorded
                .iter()
                .filter(|name| !new_record.contains(*name))
                .cloned()
                .collect(),
            Removal::None => {
                new_record.extend(
                    self.recorded
                        .iter()
                        .filter(|name| !removing.contains(*name))
                        .cloned(),
                );
                removing
                    .iter()
                    .filter(|name| !new_record.contains(*name))
                    .cloned()
                    .collect()
            }
        };
        let removed: Vec<String> = stale
            .iter()
            .filter(|name| {
                std::fs::symlink_metadata(self.target.join(name)).is_ok_and(|m| !m.is_dir())
            })
            .cloned()
            .collect();
        let mut report = CommitReport {
            written: written.iter().map(|n| self.shown.join(n)).collect(),
            unchanged: outcomes
                .iter()
                .filter(|(_, o)| **o == FileOutcome::Unchanged)
                .map(|(n, _)| self.shown.join(n))
                .collect(),
            removed: removed.iter().map(|n| self.shown.join(n)).collect(),
            atomic: true,
        };
        let target_exists = self.target.is_dir();
        if written.is_empty() && removed.is_empty() && new_record == self.recorded && target_exists
        {
            // Nothing to change: nothing is touched (a GitOps loop rerunning an unchanged set).
            return Ok(report);
        }
        let record_text = record::text(&new_record);
        // A stale name that is now a folder is not ours any more: carried over, not removed.
        let skip: BTreeSet<&str> = written
            .iter()
            .copied()
            .chain(removed.iter().map(String::as_str))
            .collect();
        let whole = !self.staging_inside || self.target != self.root_of_lock();
        #[cfg(test)]
        let whole = whole && self.file_by_file.is_none();
        if whole && self.copy_the_rest(&skip)? {
            let new = self.new_root();
            write_file(&new.join(RECORD_NAME), record_text.as_bytes())?;
            if let Ok(meta) = std::fs::metadata(&self.target) {
                take_folder_over(&new, &meta);
            }
            let hold = cleanup::hold();
            if target_exists {
                // What a later run needs to tell, should this one die right after the
                // exchange, that staging holds the old folder and which of its files are ours.
                let ours: BTreeSet<String> = skip.iter().map(|name| (*name).to_owned()).collect();
                SwitchMarker::write(&self.staging, &self.target, &ours)?;
            }
            let switched = if target_exists {
                exchange(&new, &self.target)
            } else {
                std::fs::rename(&new, &self.target).map(|()| true)
            }
            .map_err(OutputError::io("put in place", self.shown.clone()))?;
            #[cfg(test)]
            if switched && self.killed_after_exchange {
                drop(hold);
                self.killed();
                return Ok(report);
            }
            if switched {
                // The old folder is now where `new` was: what a user put in it (late, or
                // through a folder opened before the switch) moves into place; the rest,
                // ours or links of files in place, goes.
                if target_exists && !retire_old(&new, &self.target, &skip) {
                    self.keep_staging = true;
                }
                drop(hold);
                self.finish();
                return Ok(report);
            }
            drop(hold);
        }
        report.atomic = false;
        let moved = self.move_file_by_file(&written, &removed, &new_record);
        #[cfg(test)]
        if moved.is_err() && self.file_by_file.is_some() {
            self.killed();
            return moved.map(|()| report);
        }
        moved?;
        self.finish();
        Ok(report)
    }
}
