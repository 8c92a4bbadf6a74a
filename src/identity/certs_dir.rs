//! The `--certs-dir` folder: generated material kept as PEM files and read back on later runs.
//!
//! Files come in sets (the trust anchor with its issuer, and one pair per webhook). A set is read
//! whole or not at all, and written whole or not at all: every file goes to a temporary name
//! first and is renamed into place only once all of them were written; on any error the files
//! and folders this call made are removed again, so the folder is left as it was.

use super::error::IdentityError;
use camino::{Utf8Path, Utf8PathBuf};
use std::fs;
use std::io::{ErrorKind, Write as _};
use std::sync::atomic::{AtomicUsize, Ordering};

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

/// Adds all `files` to `dir` (creating it) or, on error, none of them.
pub(crate) fn write_all(dir: &Utf8Path, files: &[NewFile]) -> Result<(), IdentityError> {
    if files.is_empty() {
        return Ok(());
    }
    let created = create_dirs(dir)?;
    let result = write_files(dir, files);
    if result.is_err() {
        for made in created.iter().rev() {
            let _ = fs::remove_dir(made);
        }
    }
    result
}

/// Creates `dir` and its missing parents; returns the folders it made, outermost first.
fn create_dirs(dir: &Utf8Path) -> Result<Vec<Utf8PathBuf>, IdentityError> {
    let mut missing = Vec::new();
    let mut current = Some(dir);
    while let Some(path) = current {
        if path.as_str().is_empty() || path.exists() {
            break;
        }
        missing.push(path.to_owned());
        current = path.parent();
    }
    missing.reverse();
    let mut created = Vec::new();
    for path in missing {
        match fs::create_dir(&path) {
            Ok(()) => created.push(path),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
            Err(source) => {
                for made in created.iter().rev() {
                    let _ = fs::remove_dir(made);
                }
                return Err(IdentityError::Io {
                    action: "create the folder",
                    path,
                    source,
                });
            }
        }
    }
    Ok(created)
}

fn write_files(dir: &Utf8Path, files: &[NewFile]) -> Result<(), IdentityError> {
    static SERIAL: AtomicUsize = AtomicUsize::new(0);
    let mut temps: Vec<Utf8PathBuf> = Vec::with_capacity(files.len());
    for file in files {
        let temp = dir.join(format!(
            ".{}.tmp-{}-{}",
            file.name,
            std::process::id(),
            SERIAL.fetch_add(1, Ordering::Relaxed)
        ));
        if let Err(e) = write_temp(&temp, file) {
            remove_all(&temps);
            return Err(e);
        }
        temps.push(temp);
    }
    let mut placed: Vec<Utf8PathBuf> = Vec::with_capacity(files.len());
    for (index, (file, temp)) in files.iter().zip(&temps).enumerate() {
        let target = dir.join(file.name);
        if let Err(source) = fs::rename(temp, &target) {
            remove_all(&placed);
            remove_all(&temps[index..]);
            return Err(IdentityError::Io {
                action: "write",
                path: target,
                source,
            });
        }
        placed.push(target);
    }
    // Make the renames durable where the platform allows it; the files are complete either way.
    if let Ok(handle) = fs::File::open(dir) {
        let _ = handle.sync_all();
    }
    Ok(())
}

fn write_temp(path: &Utf8Path, file: &NewFile) -> Result<(), IdentityError> {
    let io_error = |source| IdentityError::Io {
        action: "write",
        path: path.to_owned(),
        source,
    };
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(if file.secret { 0o600 } else { 0o644 });
    }
    let mut handle = options.open(path).map_err(io_error)?;
    let written = handle
        .write_all(file.contents.as_bytes())
        .and_then(|()| handle.sync_all());
    if let Err(source) = written {
        drop(handle);
        let _ = fs::remove_file(path);
        return Err(io_error(source));
    }
    Ok(())
}

fn remove_all(paths: &[Utf8PathBuf]) {
    for path in paths {
        let _ = fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_failed_rename_removes_the_files_already_placed() {
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
        // A name with a missing sub-folder makes the temporary file fail to open.
        let err = write_all(&dir, &[file("a.crt"), file("missing/b.crt")])
            .expect_err("cannot write into a missing sub-folder");
        assert!(err.to_string().contains("missing"), "{err}");
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
        assert_eq!(listing(&dir), ["a.crt", "a.key"]);
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
