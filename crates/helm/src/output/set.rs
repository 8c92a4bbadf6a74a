//! A set of outputs: staged, then switched into place whole.

use super::cleanup::{self, beside_prefix};
use super::record::{self, RECORD_NAME};
use super::{OutputError, TargetLock, STAGING_MARKER};
use crate::files::holds_exactly;
use camino::{Utf8Path, Utf8PathBuf};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::sync::Mutex;

/// What became of one output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileOutcome {
    /// New bytes, staged; in place once committed.
    Written,
    /// The file already held these bytes: left as it is (same file, same mtime).
    Unchanged,
}

/// What a commit does with files the record lists that this run did not write or keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Removal {
    /// They are stale: removed (a render's full set, a fleet).
    Stale,
    /// They stay and stay recorded (`--show-only`, adding certificate sets).
    None,
}

/// What a commit did, each list sorted, paths as the caller named the target.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommitReport {
    /// Files written.
    pub written: Vec<Utf8PathBuf>,
    /// Files that already held their bytes.
    pub unchanged: Vec<Utf8PathBuf>,
    /// Files removed: written by an earlier run, stale now.
    pub removed: Vec<Utf8PathBuf>,
    /// Whether the set was switched in one step (`false`: file by file, see the module).
    pub atomic: bool,
}

/// An open set of outputs for one target folder: locked, staged, not yet in place.
///
/// `root` is the folder that is locked and next to which staging happens (what the user named:
/// `--output-dir`, `--certs-dir`); the target is `root` or a folder inside it (a chart's folder
/// in `--output-dir`). Dropped without [`OutputSet::commit`], it removes its staging and leaves
/// the target as it was (a root it created and left empty goes too).
#[derive(Debug)]
pub struct OutputSet {
    lock: Option<TargetLock>,
    /// The target, resolved.
    target: Utf8PathBuf,
    /// The target as the caller named it, for reports and messages.
    shown: Utf8PathBuf,
    /// The staging folder; its `new` folder becomes the target.
    staging: Utf8PathBuf,
    /// The folders this set created for its root, outermost first (removed again if left
    /// empty).
    created: Vec<Utf8PathBuf>,
    /// Whether staging sits beside the root (on its parent's file system) or inside it.
    staging_inside: bool,
    /// What the record listed when the set began.
    recorded: BTreeSet<String>,
    /// Each output of this run so far.
    outcomes: Mutex<BTreeMap<String, FileOutcome>>,
    /// Recorded files to keep as they are (a fleet's failed clusters under `--keep-going`).
    kept: Mutex<BTreeSet<String>>,
    /// Recorded files to remove whatever the removal rule (a retired certificate that expired).
    removing: Mutex<BTreeSet<String>>,
    /// Whether a secret was written: then the switch is synced to disk (a key must not be lost
    /// to a power cut once a render used it); a render's files can be made again, and syncing
    /// the folder cost a fleet's commit a journal flush.
    durable: std::sync::atomic::AtomicBool,
    /// Tests only: take the file-by-file path a mount point takes (a test cannot mount), and
    /// stop dead after this many moves, as a SIGKILL would, leaving staging as it is.
    /// Whether staging must stay after the commit (it holds a user's file: see `retire_old`).
    keep_staging: bool,
    #[cfg(test)]
    pub(super) file_by_file: Option<usize>,
    /// Tests only: stop dead right after the exchange, as a SIGKILL there would.
    #[cfg(test)]
    pub(super) killed_after_exchange: bool,
}

impl OutputSet {
    /// Opens a set for `root/sub` (or `root` itself): creates `root` if needed, waits for its
    /// lock, removes staging that killed runs left, reads the record and makes a staging folder.
    pub fn begin(root: &Utf8Path, sub: Option<&str>) -> Result<OutputSet, OutputError> {
        if let Some(sub) = sub {
            record::check_name(sub)?;
        }
        let created = create_dirs(root)?;
        let begun = Self::begin_in(root, sub, created.clone());
        if begun.is_err() {
            remove_if_empty(&created);
        }
        begun
    }

    fn begin_in(
        root: &Utf8Path,
        sub: Option<&str>,
        created: Vec<Utf8PathBuf>,
    ) -> Result<OutputSet, OutputError> {
        let real_root = root
            .canonicalize_utf8()
            .map_err(OutputError::io("resolve", root))?;
        let lock = TargetLock::exclusive(&real_root)?;
        let (parent, name) = match (real_root.parent(), real_root.file_name()) {
            (Some(parent), Some(name)) => (Some(parent.to_owned()), name.to_owned()),
            _ => (None, String::new()),
        };
        let beside = beside_prefix(&name);
        // Staging beside the root keeps `kubectl apply -R ROOT` from ever seeing it; inside
        // only where beside is another file system (a mount point) or not writable.
        let suffix = cleanup::random_suffix()?;
        complete_journals(&real_root)?;
        cleanup::remove_stale_around(&real_root);
        // Registered before it exists: an interruption at any instant after this removes it.
        let mut staging_inside = true;
        let mut staging = real_root.join(format!("{STAGING_MARKER}{suffix}"));
        if let Some(parent) = &parent {
            if same_device(parent, &real_root) {
                let candidate = parent.join(format!("{beside}{suffix}"));
                cleanup::register(&candidate);
                if create_staging_dir(&candidate).is_ok() {
                    staging = candidate;
                    staging_inside = false;
                } else {
                    cleanup::unregister(&candidate);
                }
            }
        }
        if staging_inside {
            cleanup::register(&staging);
            if let Err(e) = create_staging_dir(&staging) {
                cleanup::unregister(&staging);
                return Err(OutputError::io("create the folder", &staging)(e));
            }
        }
        if let Err(e) = cleanup::write_owner(&staging, &suffix) {
            let _ = cleanup::remove_tree(&staging);
            cleanup::unregister(&staging);
            return Err(OutputError::io("write", staging.join(cleanup::OWNER_FILE))(
                e,
            ));
        }
        let target = match sub {
            Some(sub) => real_root.join(sub),
            None => real_root.clone(),
        };
        let shown = match sub {
            Some(sub) => root.join(sub),
            None => root.to_owned(),
        };
        let mut set = OutputSet {
            lock: Some(lock),
            target,
            shown,
            staging,
            created,
            staging_inside,
            recorded: BTreeSet::new(),
            outcomes: Mutex::new(BTreeMap::new()),
            kept: Mutex::new(BTreeSet::new()),
            removing: Mutex::new(BTreeSet::new()),
            durable: std::sync::atomic::AtomicBool::new(false),
            keep_staging: false,
            #[cfg(test)]
            file_by_file: None,
            #[cfg(test)]
            killed_after_exchange: false,
        };
        let new = set.new_root();
        super::create_folder(&new).map_err(OutputError::io("create the folder", &new))?;
        let recorded = match std::fs::symlink_metadata(&set.target) {
            Ok(meta) if meta.is_dir() => record::read(&set.target)?,
            Ok(_) => {
                return Err(OutputError::NotAFolder {
                    path: set.shown.clone(),
                })
            }
            Err(_) => BTreeSet::new(),
        };
        set.recorded = recorded;
        Ok(set)
    }

    /// The target folder as the caller named it.
    pub fn folder(&self) -> &Utf8Path {
        &self.shown
    }

    /// Whether the record lists `name` (written by an earlier run).
    pub fn is_recorded(&self, name: &str) -> bool {
        self.recorded.contains(name)
    }

    fn new_root(&self) -> Utf8PathBuf {
        self.staging.join("new")
    }

    /// Refuses, before any work, the `names` this run will write where a file that meshchart
    /// did not write stands (one not in the record); [`OutputSet::commit`] checks again.
    pub fn refuse_foreign<'a>(
        &self,
        names: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), OutputError> {
        // Each once: a link or file where a folder goes is in the way of every file under it.
        let mut seen = BTreeSet::new();
        let foreign: Vec<Utf8PathBuf> = names
            .into_iter()
            .filter_map(|name| self.in_the_way(name))
            .filter(|name| seen.insert(name.clone()))
            .map(|name| self.shown.join(name))
            .collect();
        if foreign.is_empty() {
            Ok(())
        } else {
            Err(OutputError::Foreign {
                target: self.shown.clone(),
                files: foreign,
            })
        }
    }

    /// What stands in the way of writing `name`, if anything: a file not in the record at
    /// `name`, a folder at `name`, or a non-folder where a folder of `name`'s path must be.
    fn in_the_way(&self, name: &str) -> Option<String> {
        let mut prefix = String::new();
        let parts: Vec<&str> = name.split('/').collect();
        for (index, part) in parts.iter().enumerate() {
            if !prefix.is_empty() {
                prefix.push('/');
            }
            prefix.push_str(part);
            let last = index + 1 == parts.len();
            match std::fs::symlink_metadata(self.target.join(&prefix)) {
                Err(_) => return None,
                Ok(meta) if !last && !meta.is_dir() => return Some(prefix),
                Ok(meta) if last && (meta.is_dir() || !self.recorded.contains(name)) => {
                    return Some(prefix)
                }
                Ok(_) => {}
            }
        }
        None
    }

    /// Stages `bytes` as the output `name` (a relative path inside the target), unless the
    /// file in place already holds them. `secret` files (keys) get mode 0600 and are synced to
    /// disk; any other output holding a Secret or a private key ([`super::holds_secret`]) gets
    /// mode 0600 too. Callable from any thread.
    pub fn write(
        &self,
        name: &str,
        bytes: &[u8],
        secret: bool,
    ) -> Result<FileOutcome, OutputError> {
        self.stage(name, bytes, secret, |file, _| {
            file.write_all(bytes)?;
            // Keys are made once and must survive a power cut with their certificates; the
            // many files of a render can be made again, and are not synced one by one.
            if secret {
                file.sync_all()?;
            }
            Ok(())
        })
    }

    /// [`OutputSet::write`] with the writer supplied (tests use it to fail midway): `write`
    /// gets the staging path of an empty file the door has already created with the output's
    /// mode (so a writer that opens it by path never makes it wider), and fills it. A failed
    /// writer's file is removed: nothing half-written is ever switched into place.
    pub fn write_with(
        &self,
        name: &str,
        bytes: &[u8],
        secret: bool,
        write: impl FnOnce(&Utf8Path, &[u8]) -> std::io::Result<()>,
    ) -> Result<FileOutcome, OutputError> {
        self.stage(name, bytes, secret, |_, path| write(path, bytes))
    }

    fn stage(
        &self,
        name: &str,
        bytes: &[u8],
        secret: bool,
        fill: impl FnOnce(&mut std::fs::File, &Utf8Path) -> std::io::Result<()>,
    ) -> Result<FileOutcome, OutputError> {
        record::check_name(name)?;
        let in_place = self.target.join(name);
        // Secrets are rewritten whatever they hold: the bytes say nothing of the mode.
        let outcome = if !secret && holds_exactly(&in_place, bytes) {
            FileOutcome::Unchanged
        } else {
            let new = self.new_root();
            let staged = new.join(name);
            // Folders below staging's root only, never the root itself: a write racing an
            // interruption's removal of staging then fails instead of making it anew.
            let mut folder = new;
            for part in name
                .split('/')
                .rev()
                .skip(1)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
            {
                folder.push(part);
                match super::create_folder(&folder) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(OutputError::io("create the folder", folder)(e)),
                }
            }
            let private = secret || super::holds_secret(bytes);
            let replaced = std::fs::symlink_metadata(&in_place)
                .ok()
                .filter(std::fs::Metadata::is_file);
            let written = create_staged(&staged, private).and_then(|mut file| {
                if let Some(replaced) = &replaced {
                    take_over(&file, replaced, private);
                }
                let filled = fill(&mut file, &staged);
                if filled.is_err() {
                    // A full disk must not leave half a file to be switched into place.
                    let _ = std::fs::remove_file(&staged);
                }
                filled
            });
            written.map_err(OutputError::io("write", self.shown.join(name)))?;
            if secret {
                self.durable
                    .store(true, std::sync::atomic::Ordering::Relaxed);
            }
            FileOutcome::Written
        };
        self.outcomes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(name.to_owned(), outcome);
        Ok(outcome)
    }

    /// Keeps the recorded file `name` as it is, and recorded, though this run did not write it
    /// (a cluster that failed under `--keep-going` keeps its last good output).
    pub fn keep(&self, name: &str) {
        if self.recorded.contains(name) {
            self.kept
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(name.to_owned());
        }
    }

    /// Takes the file `name` in the target as this set's own, though no earlier run recorded
    /// it: for a command whose very job is to replace that file, given by the user (`certs
    /// renew` replaces the `issuer.crt` that `step` made, keeping the old one beside it). Only
    /// the file named is taken; nothing else of the user's is ever touched.
    pub fn adopt(&mut self, name: &str) -> Result<(), OutputError> {
        record::check_name(name)?;
        if self.target.join(name).is_file() {
            self.recorded.insert(name.to_owned());
        }
        Ok(())
    }

    /// Names of the files the record lists (written by earlier runs, or adopted), sorted.
    pub fn recorded(&self) -> impl Iterator<Item = &str> {
        self.recorded.iter().map(String::as_str)
    }

    /// Removes the recorded file `name` at commit, whatever the [`Removal`] rule (a retired
    /// certificate that has expired). A name the record does not list is left alone.
    pub fn remove(&self, name: &str) {
        if self.recorded.contains(name) {
            self.removing
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(name.to_owned());
        }
    }

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

    fn root_of_lock(&self) -> Utf8PathBuf {
        self.lock
            .as_ref()
            .map_or_else(|| self.target.clone(), |l| l.path().to_owned())
    }

    /// Fills the staging copy with everything in the target that this run neither wrote nor
    /// removes: folders made anew, everything else hard-linked (the same file, not a copy: a
    /// user's file stays the file it was). `Ok(false)` when something cannot be linked (another
    /// file system inside the target): the set then goes in file by file.
    fn copy_the_rest(&self, skip: &BTreeSet<&str>) -> Result<bool, OutputError> {
        if !self.target.is_dir() {
            return Ok(true);
        }
        let new = self.new_root();
        let mut stack: Vec<String> = vec![String::new()];
        while let Some(folder) = stack.pop() {
            let here = if folder.is_empty() {
                self.target.clone()
            } else {
                self.target.join(&folder)
            };
            let entries = here
                .read_dir_utf8()
                .map_err(OutputError::io("read the folder", &here))?;
            for entry in entries {
                let entry = entry.map_err(OutputError::io("read the folder", &here))?;
                let file_name = entry.file_name();
                let name = if folder.is_empty() {
                    file_name.to_owned()
                } else {
                    format!("{folder}/{file_name}")
                };
                if name == RECORD_NAME || skip.contains(name.as_str()) {
                    continue;
                }
                // Our own staging, when it sits inside the target.
                if entry.path() == self.staging {
                    continue;
                }
                let kind = entry
                    .file_type()
                    .map_err(OutputError::io("read", entry.path()))?;
                let copy = new.join(&name);
                if kind.is_dir() {
                    match super::create_folder(&copy) {
                        Ok(()) => {}
                        Err(e)
                            if e.kind() == std::io::ErrorKind::AlreadyExists && copy.is_dir() => {}
                        Err(e) => return Err(OutputError::io("create the folder", &copy)(e)),
                    }
                    if let Ok(meta) = std::fs::metadata(entry.path()) {
                        take_folder_over(&copy, &meta);
                    }
                    stack.push(name);
                    continue;
                }
                match std::fs::hard_link(entry.path(), &copy) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                        // Something this run writes is under it: a foreign file in the way.
                        return Err(OutputError::Foreign {
                            target: self.shown.clone(),
                            files: vec![self.shown.join(&name)],
                        });
                    }
                    Err(_) => return Ok(false),
                }
            }
        }
        Ok(true)
    }

    /// The fallback where the target cannot be switched in one step (a mount point, a target
    /// with something that cannot be linked): a journal of the whole switch is written into
    /// staging first, in one step (the commit point), then each file is renamed into place,
    /// stale files removed, and the record written. A run killed midway leaves the journal, and
    /// the next run on the target (writer, or reader: see [`complete_journals`]) completes the
    /// switch before it reads anything, so the set lands whole.
    fn move_file_by_file(
        &self,
        written: &BTreeSet<&str>,
        removed: &[String],
        new_record: &BTreeSet<String>,
    ) -> Result<(), OutputError> {
        let journal = Journal {
            target: self.target.clone(),
            moves: written.iter().map(|name| (*name).to_owned()).collect(),
            removals: removed.to_vec(),
            record: new_record.clone(),
        };
        let path = self.staging.join(cleanup::JOURNAL_FILE);
        write_atomically(&path, journal.text().as_bytes())?;
        // An interruption removes staging wholly before the journal or after the switch.
        let _hold = cleanup::hold();
        journal.apply(
            &self.staging,
            &self.shown,
            #[cfg(test)]
            &|moves| self.killed_after(moves),
        )
    }

    /// Tests only: ends the set as a SIGKILL ends its run: the kernel releases the lock, and
    /// staging stays as it is for the next run to find.
    #[cfg(test)]
    pub(super) fn killed(mut self) {
        cleanup::unregister(&self.staging);
        self.lock = None;
    }

    /// Tests only: fails as a SIGKILL would stop the run once the moves allowed are made (the
    /// caller then leaves staging, as the killed process would).
    #[cfg(test)]
    fn killed_after(&self, moves: usize) -> Result<(), OutputError> {
        if self.file_by_file.is_some_and(|allowed| moves >= allowed) {
            return Err(OutputError::io("put in place", self.shown.clone())(
                std::io::Error::other("killed (simulated SIGKILL)"),
            ));
        }
        Ok(())
    }

    /// Removes staging (unless it still holds a user's file that could not be carried over:
    /// then it stays, as ours, for the next run to retire), and makes the switch durable when
    /// it holds a secret.
    fn finish(&mut self) {
        if !self.keep_staging {
            let _ = cleanup::remove_tree(&self.staging);
        }
        cleanup::unregister(&self.staging);
        if self.durable.load(std::sync::atomic::Ordering::Relaxed) {
            if let Some(parent) = self.target.parent() {
                if let Ok(handle) = std::fs::File::open(parent) {
                    let _ = handle.sync_all();
                }
            }
        }
        self.created.clear();
        self.lock = None;
    }
}

impl Drop for OutputSet {
    fn drop(&mut self) {
        if self.lock.is_none() {
            return;
        }
        let _ = cleanup::remove_tree(&self.staging);
        cleanup::unregister(&self.staging);
        // Only if empty: a failed run leaves no folder it made for nothing.
        remove_if_empty(&self.created);
    }
}

/// After a switch: moves back what someone else added to the target, or replaced in it, while
/// the set was being copied (the old folder holds it now; it would be removed with staging).
/// `old` is the folder switched out, `target` the one switched in; names in `skip` are the
/// set's own (written or removed), and the record is the set's.
pub(super) fn carry_over_late_changes(old: &Utf8Path, target: &Utf8Path, skip: &BTreeSet<&str>) {
    let mut stack: Vec<String> = vec![String::new()];
    while let Some(folder) = stack.pop() {
        let here = if folder.is_empty() {
            old.to_owned()
        } else {
            old.join(&folder)
        };
        let Ok(entries) = here.read_dir_utf8() else {
            continue;
        };
        for entry in entries.flatten() {
            let name = if folder.is_empty() {
                entry.file_name().to_owned()
            } else {
                format!("{folder}/{}", entry.file_name())
            };
            if name == RECORD_NAME || skip.contains(name.as_str()) {
                continue;
            }
            let Ok(was) = std::fs::symlink_metadata(entry.path()) else {
                continue;
            };
            let now = std::fs::symlink_metadata(target.join(&name));
            match now {
                // A folder in both: look inside.
                Ok(now) if was.is_dir() && now.is_dir() => stack.push(name),
                // The very file (a hard link of it) is in place: nothing changed.
                Ok(now) if crate::files::identity_of(&was) == crate::files::identity_of(&now) => {}
                // Added or replaced meanwhile: the newer one goes into place, unless this set
                // put something of its own there (then the folder's new version wins).
                Ok(now) if now.is_dir() => {}
                _ => {
                    let _ = std::fs::rename(entry.path(), target.join(&name));
                }
            }
        }
    }
}

/// Retires the folder `old` that a switch took out of `target`: carries over what a user put
/// in it, removes what is ours (the record, the names in `ours`: old versions of this set's
/// files) and what is only another link of the file in place, and then the emptied folders.
/// A process whose working folder was the target, or that opened it before the switch, may
/// still create files in `old`: a few rounds catch them, and once `old` is gone such a process
/// gets an error instead of losing its file. Returns whether `old` is gone; if not, it holds a
/// user's file and stays.
pub(super) fn retire_old<S: AsRef<str> + Ord>(
    old: &Utf8Path,
    target: &Utf8Path,
    ours: &BTreeSet<S>,
) -> bool {
    let ours: BTreeSet<&str> = ours.iter().map(AsRef::as_ref).collect();
    for _ in 0..4 {
        carry_over_late_changes(old, target, &ours);
        dismantle(old, "", target, &ours);
        if std::fs::symlink_metadata(old).is_err() {
            return true;
        }
    }
    false
}

/// Removes, under `old`'s folder `folder` (relative; `""` for `old`), the entries that are ours
/// or links of the files in place in `target`, then the folders left empty.
fn dismantle(old: &Utf8Path, folder: &str, target: &Utf8Path, ours: &BTreeSet<&str>) {
    let here = if folder.is_empty() {
        old.to_owned()
    } else {
        old.join(folder)
    };
    if let Ok(entries) = here.read_dir_utf8() {
        for entry in entries.flatten() {
            let name = if folder.is_empty() {
                entry.file_name().to_owned()
            } else {
                format!("{folder}/{}", entry.file_name())
            };
            let Ok(was) = std::fs::symlink_metadata(entry.path()) else {
                continue;
            };
            if was.is_dir() {
                dismantle(old, &name, target, ours);
                continue;
            }
            let in_place = std::fs::symlink_metadata(target.join(&name)).is_ok_and(|now| {
                crate::files::identity_of(&was) == crate::files::identity_of(&now)
            });
            if name == RECORD_NAME || ours.contains(name.as_str()) || in_place {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    // Fails, and leaves it, when something is left in it.
    let _ = std::fs::remove_dir(&here);
}

/// Written into staging just before an exchange: the target, the identity of the folder that
/// goes out (the target's now; after the exchange, staging's `new`), and the names that are the
/// set's own. A run killed right after the exchange (or one that could not empty the old
/// folder) leaves it in staging with maybe a user's late file in it; a later run reads this to
/// retire it as the run would have. Whether the exchange happened is read off `new` itself, so
/// later switches of the target do not confuse it.
struct SwitchMarker;

impl SwitchMarker {
    const FILE: &'static str = "switch";

    fn write(
        staging: &Utf8Path,
        target: &Utf8Path,
        ours: &BTreeSet<String>,
    ) -> Result<(), OutputError> {
        let (dev, ino) = crate::files::identity(target).map_err(OutputError::io("read", target))?;
        let quoted = |name: &str| serde_json::Value::from(name).to_string();
        let mut text = format!("target {}\nfolder {dev} {ino}\n", quoted(target.as_str()));
        for name in ours {
            text.push_str(&format!("ours {}\n", quoted(name)));
        }
        write_atomically(&staging.join(Self::FILE), text.as_bytes())
    }

    /// For stale staging: `Some(true)` when it held a switch and its old folder is retired (or
    /// the switch never happened), `Some(false)` when a user's file keeps it, `None` when it
    /// holds no switch.
    fn retire(staging: &Utf8Path) -> Option<bool> {
        let text = std::fs::read_to_string(staging.join(Self::FILE)).ok()?;
        let mut target = None;
        let mut folder = None;
        let mut ours = BTreeSet::new();
        for line in text.lines() {
            let (word, rest) = line.split_once(' ')?;
            match word {
                "target" => target = serde_json::from_str::<String>(rest).ok(),
                "folder" => {
                    let (dev, ino) = rest.split_once(' ')?;
                    folder = Some((dev.parse::<u64>().ok()?, ino.parse::<u64>().ok()?));
                }
                "ours" => {
                    ours.insert(serde_json::from_str::<String>(rest).ok()?);
                }
                _ => return None,
            }
        }
        let target = Utf8PathBuf::from(target?);
        let old = staging.join("new");
        // Not exchanged: staging holds only the set's staged files and links.
        if crate::files::identity(&old).ok() != folder {
            return Some(true);
        }
        Some(retire_old(&old, &target, &ours))
    }
}

/// Retires the old folder of a switch a killed run left in `staging` (see [`SwitchMarker`]);
/// whether `staging` may now be removed whole.
pub(crate) fn staging_may_go(staging: &Utf8Path) -> bool {
    SwitchMarker::retire(staging).unwrap_or(true)
}

/// A file-by-file switch, written into its staging folder before any file moves: the target,
/// the staged files to move into it, the recorded files to remove, and the record to leave.
/// Each line is a word and a JSON string (any name reads back as written).
#[derive(Debug, PartialEq, Eq)]
struct Journal {
    target: Utf8PathBuf,
    moves: Vec<String>,
    removals: Vec<String>,
    record: BTreeSet<String>,
}

impl Journal {
    fn text(&self) -> String {
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
    fn apply(
        &self,
        staging: &Utf8Path,
        shown: &Utf8Path,
        #[cfg(test)] killed_after: &dyn Fn(usize) -> Result<(), OutputError>,
    ) -> Result<(), OutputError> {
        super::create_folders(&self.target).map_err(OutputError::io("create the folder", shown))?;
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
                super::create_folders(parent)
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

/// Creates `dir` and its missing parents; returns the folders it made, outermost first.
fn create_dirs(dir: &Utf8Path) -> Result<Vec<Utf8PathBuf>, OutputError> {
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
        match super::create_folder(&path) {
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
fn remove_if_empty(created: &[Utf8PathBuf]) {
    for made in created.iter().rev() {
        if std::fs::remove_dir(made).is_err() {
            break;
        }
    }
}

/// Gives the staged `file` what the file it replaces had: its owner and group (a run as root
/// must not hand a user's file to root; where this process may not, they stay its own) and its
/// mode, narrowed to owner-only for `private` content.
pub(super) fn take_over(file: &std::fs::File, replaced: &std::fs::Metadata, private: bool) {
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
fn take_folder_over(made: &Utf8Path, replaced: &std::fs::Metadata) {
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
fn create_staging_dir(path: &Utf8Path) -> std::io::Result<()> {
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
fn create_staged(path: &Utf8Path, private: bool) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(if private { 0o600 } else { 0o644 });
    }
    options.open(path)
}

fn write_file(path: &Utf8Path, bytes: &[u8]) -> Result<(), OutputError> {
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

fn write_atomically(path: &Utf8Path, bytes: &[u8]) -> Result<(), OutputError> {
    let suffix = cleanup::random_suffix()?;
    let temp = path.with_file_name(format!("{RECORD_NAME}.{suffix}.partial"));
    let result = write_ours(&temp, bytes).and_then(|()| std::fs::rename(&temp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result.map_err(OutputError::io("write", path))
}

/// Whether two paths are on one file system.
fn same_device(a: &Utf8Path, b: &Utf8Path) -> bool {
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
fn exchange(a: &Utf8Path, b: &Utf8Path) -> std::io::Result<bool> {
    use std::ffi::CString;
    let c_path = |p: &Utf8Path| {
        CString::new(p.as_str())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
    };
    let (a, b) = (c_path(a)?, c_path(b)?);
    // SAFETY: both are NUL-terminated paths that outlive the call.
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
