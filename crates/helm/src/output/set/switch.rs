//! The exchange of staging with the target and what follows it: the old folder retired, late
//! changes by someone else carried over, and the marker that lets a later run finish the job a
//! killed run left. Separate because it is also run at startup, on stale staging, without a set.

use super::super::record::RECORD_NAME;
use super::super::OutputError;
use super::disk::write_atomically;
use camino::{Utf8Path, Utf8PathBuf};
use std::collections::BTreeSet;

/// After a switch: moves back what someone else added to the target, or replaced in it, while
/// the set was being copied (the old folder holds it now; it would be removed with staging).
/// `old` is the folder switched out, `target` the one switched in; names in `skip` are the
/// set's own (written or removed), and the record is the set's.
pub(in crate::output) fn carry_over_late_changes(
    old: &Utf8Path,
    target: &Utf8Path,
    skip: &BTreeSet<&str>,
) {
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
pub(super) struct SwitchMarker;

impl SwitchMarker {
    const FILE: &'static str = "switch";

    pub(super) fn write(
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
