//! A set of outputs: staged, then switched into place whole.

mod commit;
mod disk;
mod journal;
mod switch;

pub(super) use disk::take_over;
pub(crate) use journal::{complete_journals, has_journal};
#[cfg(test)]
pub(super) use switch::carry_over_late_changes;
pub(crate) use switch::staging_may_go;

use disk::{
    create_dirs, create_staged, create_staging_dir, remove_if_empty, same_device, take_folder_over,
    write_atomically,
};
use journal::Journal;

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
