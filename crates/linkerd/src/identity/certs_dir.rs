//! The `--certs-dir` folder: generated material kept as PEM files and read back on later runs.
//!
//! Files come in sets (the trust anchor with its issuer, and one pair per webhook). A set is read
//! whole or not at all, and written whole or not at all, through the output door
//! ([`crate::output`]): generated in staging, switched into place in one step under the
//! folder's lock, and read back. Readers hold the lock shared, so they never see a set being
//! replaced; a run that finds sets missing takes it exclusive and looks again before it makes
//! any (two runs filling one empty folder at once: the second reads the first one's set).

use super::error::IdentityError;
use crate::output::{OutputSet, Removal, TargetLock};
use camino::Utf8Path;

/// A file to add to the folder.
pub(crate) struct NewFile {
    /// Its name inside the folder.
    pub name: &'static str,
    /// Its text.
    pub contents: String,
    /// A private key: written with mode 0600.
    pub secret: bool,
}

/// Reads the set `names` from `dir`: `Some` with their texts in order when all exist, `None` when
/// none does (or the folder does not exist), and an error naming what is missing otherwise.
pub(crate) fn load<const N: usize>(
    dir: &Utf8Path,
    names: &[&'static str; N],
) -> Result<Option<[String; N]>, IdentityError> {
    let mut texts: [Option<String>; N] = std::array::from_fn(|_| None);
    for (name, slot) in names.iter().zip(&mut texts) {
        let path = dir.join(name);
        match crate::input::read_path(&path) {
            Ok(input) => *slot = Some(input.text),
            Err(crate::input::InputError::NotFound { .. }) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let names_where = |present: bool| -> Vec<&str> {
        names
            .iter()
            .zip(&texts)
            .filter(|(_, text)| text.is_some() == present)
            .map(|(name, _)| *name)
            .collect()
    };
    let missing = names_where(false);
    if missing.is_empty() {
        Ok(Some(texts.map(Option::unwrap_or_default)))
    } else if missing.len() == N {
        Ok(None)
    } else {
        Err(IdentityError::IncompleteCertsDir {
            dir: dir.to_owned(),
            present: names_where(true).join(", "),
            missing: missing.join(", "),
        })
    }
}

/// Opens `dir` for adding files, under its exclusive lock (made if missing): a second run
/// waits here until the first has committed its set, then reads that set instead of making
/// its own.
pub(crate) fn open_for_writing(dir: &Utf8Path) -> Result<OutputSet, IdentityError> {
    Ok(OutputSet::begin(dir, None)?)
}

/// Takes a shared lock on `dir` when it exists, so a set is never read while another run
/// replaces it; `None` when there is no folder (nothing to read).
pub(crate) fn lock_for_reading(dir: &Utf8Path) -> Result<Option<TargetLock>, IdentityError> {
    if !dir.is_dir() {
        return Ok(None);
    }
    Ok(Some(TargetLock::shared(dir)?))
}

/// Adds all `files` to the folder of `set` in one step, or none of them, then reads them back:
/// what the render uses is what the folder holds.
pub(crate) fn commit(set: OutputSet, files: &[NewFile]) -> Result<(), IdentityError> {
    let dir = set.folder().to_owned();
    for file in files {
        set.write(file.name, file.contents.as_bytes(), file.secret)?;
    }
    set.commit(Removal::None)?;
    for file in files {
        let path = dir.join(file.name);
        let kept = crate::input::read_path(&path)?;
        if kept.text != file.contents {
            return Err(IdentityError::Io {
                action: "read back",
                path,
                source: std::io::Error::other("the file does not hold what was just written"),
            });
        }
    }
    Ok(())
}

/// Adds all `files` to `dir` (creating it) or, on error, none of them.
#[cfg(test)]
pub(crate) fn write_all(dir: &Utf8Path, files: &[NewFile]) -> Result<(), IdentityError> {
    if files.is_empty() {
        return Ok(());
    }
    commit(open_for_writing(dir)?, files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    use camino::Utf8PathBuf;

    fn scratch(name: &str) -> Utf8PathBuf {
        let dir = Utf8PathBuf::from_path_buf(std::env::temp_dir())
            .expect("UTF-8 temp dir")
            .join(format!("meshchart-certs-dir-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    fn listing(dir: &Utf8Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .expect("readable")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn file(name: &'static str) -> NewFile {
        NewFile {
            name,
            contents: format!("{name}\n"),
            secret: name.ends_with(".key"),
        }
    }

    #[test]
    fn a_folder_where_a_file_goes_is_named_and_nothing_is_written() {
        let dir = scratch("rename");
        fs::create_dir_all(dir.join("b.crt/occupied")).expect("setup");
        let err = write_all(&dir, &[file("a.crt"), file("b.crt"), file("c.key")])
            .expect_err("b.crt is a non-empty folder, so it cannot be replaced");
        assert!(err.to_string().contains("b.crt"), "{err}");
        assert_eq!(listing(&dir), ["b.crt"]);
        fs::remove_dir_all(&dir).expect("cleanup");
    }

    #[test]
    fn a_failed_write_removes_folders_it_created() {
        let parent = scratch("created");
        let dir = parent.join("nested/certs");
        // A name that leaves the folder is refused after the folders were made.
        let err = write_all(&dir, &[file("a.crt"), file("../b.crt")])
            .expect_err("cannot write outside the folder");
        assert!(err.to_string().contains("b.crt"), "{err}");
        assert!(
            !parent.exists(),
            "folders made by the failed call are removed"
        );
    }

    #[cfg(unix)]
    #[test]
    fn keys_are_written_with_mode_0600() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = scratch("modes");
        write_all(&dir, &[file("a.crt"), file("a.key")]).expect("written");
        let mode = |name: &str| {
            fs::metadata(dir.join(name))
                .expect("exists")
                .permissions()
                .mode()
                & 0o777
        };
        assert_eq!(mode("a.key"), 0o600);
        assert_eq!(mode("a.crt") & 0o600, 0o600);
        assert_eq!(
            listing(&dir),
            [crate::output::RECORD_NAME, "a.crt", "a.key"]
        );
        fs::remove_dir_all(&dir).expect("cleanup");
    }

    #[test]
    fn load_reports_a_partial_set() {
        let dir = scratch("partial");
        write_all(&dir, &[file("a.crt")]).expect("written");
        let err = load(&dir, &["a.crt", "a.key"]).expect_err("partial");
        let text = err.to_string();
        assert!(
            text.contains("a.key") && text.contains(dir.as_str()),
            "{text}"
        );
        fs::remove_dir_all(&dir).expect("cleanup");
    }

    #[test]
    fn load_of_a_missing_folder_is_an_empty_set() {
        let dir = scratch("absent");
        assert!(load(&dir, &["a.crt"]).expect("no error").is_none());
    }
}
