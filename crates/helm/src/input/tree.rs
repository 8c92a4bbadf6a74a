//! Walking folders the user hands us: a chart folder (every file, as Helm's loader reads it) and
//! an inject folder (its manifests).
//!
//! Both walks stay inside their folder: a symbolic link whose target lies outside it is refused
//! by name (a `templates/up -> ../../..` link would otherwise walk `/`), and one inside it is
//! followed once (a link back up the tree is not walked again). Only regular files are read: a
//! device, socket or FIFO is refused by name, so a walk never blocks or reads without end.

use super::{special_kind, InputError, MAX_CHART_BYTES, MAX_CHART_FILES};
use camino::{Utf8Path, Utf8PathBuf};
use std::path::PathBuf;

/// What to do with hidden entries (names starting with `.`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hidden {
    /// Keep them unless the filter says otherwise (Helm's packaging).
    Keep,
    /// Skip them (rendering a folder: `.git`, editor files), but still obey the filter.
    Skip,
}

/// A chart folder's files after the ignore filter.
#[derive(Debug, Clone, Default)]
pub struct Walked {
    /// Path relative to the chart root (`/`-separated), and content; sorted by path.
    pub files: Vec<(String, Vec<u8>)>,
    /// Things worth telling the user (followed symbolic links).
    pub notes: Vec<String>,
}

/// Decides whether a path relative to the root (`/`-separated) is left out; the flag says
/// whether it is a folder.
pub(crate) type Ignore<'a> = &'a dyn Fn(&str, bool) -> bool;

/// Reads every file of the chart folder `dir` that `ignored` keeps, within the chart caps.
pub(crate) fn chart_files(
    dir: &Utf8Path,
    hidden: Hidden,
    ignored: Ignore<'_>,
) -> Result<Walked, InputError> {
    let mut walker = Walker::new(dir, hidden, ignored)?;
    let mut files = Vec::new();
    walker.walk(dir, &mut |walker, relative, path, len| {
        walker.total += len;
        if files.len() >= MAX_CHART_FILES || walker.total > MAX_CHART_BYTES {
            return Err(InputError::ChartTooLarge {
                name: dir.to_string(),
                what: format!("{MAX_CHART_FILES} files or {MAX_CHART_BYTES} bytes"),
            });
        }
        let bytes = std::fs::read(path).map_err(|e| InputError::io(path.as_str(), e))?;
        files.push((relative, bytes));
        Ok(())
    })?;
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(Walked {
        files,
        notes: walker.notes,
    })
}

/// The files under `dir` whose extension is one of `extensions`, recursively, in lexical order
/// (inject's folder inputs). Hidden entries are walked like any other.
pub fn manifest_files(dir: &Utf8Path, extensions: &[&str]) -> Result<Vec<Utf8PathBuf>, InputError> {
    let ignored = |relative: &str, is_dir: bool| {
        !is_dir
            && !Utf8Path::new(relative)
                .extension()
                .is_some_and(|e| extensions.contains(&e))
    };
    let mut walker = Walker::new(dir, Hidden::Keep, &ignored)?;
    let mut files = Vec::new();
    walker.walk(dir, &mut |_, _, path, _| {
        files.push(path.to_owned());
        Ok(())
    })?;
    Ok(files)
}

type Visit<'v> = dyn FnMut(&mut Walker<'_>, String, &Utf8Path, u64) -> Result<(), InputError> + 'v;

struct Walker<'a> {
    root: &'a Utf8Path,
    real_root: PathBuf,
    ignored: Ignore<'a>,
    hidden: Hidden,
    notes: Vec<String>,
    total: u64,
    /// The real folders walked so far, by identity: resolving each folder's real path anew
    /// (a system call per component) and comparing it with every one before made a walk cubic
    /// in its depth.
    visited: std::collections::HashSet<FolderIdentity>,
}

/// What tells two folders apart, however they were reached: device and inode on Unix, the
/// resolved path elsewhere.
#[cfg(unix)]
type FolderIdentity = (u64, u64);
#[cfg(not(unix))]
type FolderIdentity = PathBuf;

#[cfg(unix)]
fn folder_identity(dir: &Utf8Path) -> std::io::Result<FolderIdentity> {
    crate::files::identity(dir)
}

#[cfg(not(unix))]
fn folder_identity(dir: &Utf8Path) -> std::io::Result<FolderIdentity> {
    dir.as_std_path().canonicalize()
}

impl<'a> Walker<'a> {
    fn new(root: &'a Utf8Path, hidden: Hidden, ignored: Ignore<'a>) -> Result<Self, InputError> {
        let real_root = root
            .as_std_path()
            .canonicalize()
            .map_err(|e| InputError::io(root.as_str(), e))?;
        Ok(Walker {
            root,
            real_root,
            ignored,
            hidden,
            notes: Vec::new(),
            total: 0,
            visited: std::collections::HashSet::new(),
        })
    }

    fn walk(&mut self, dir: &Utf8Path, visit: &mut Visit<'_>) -> Result<(), InputError> {
        let io = |path: &Utf8Path| {
            let name = path.to_string();
            move |e| InputError::io(&name, e)
        };
        // A link back up the tree would loop forever: visit each real folder once.
        if !self.visited.insert(folder_identity(dir).map_err(io(dir))?) {
            return Ok(());
        }
        let mut entries: Vec<_> = dir
            .read_dir_utf8()
            .map_err(io(dir))?
            .collect::<Result<_, _>>()
            .map_err(io(dir))?;
        entries.sort_by(|a, b| a.file_name().cmp(b.file_name()));
        for entry in entries {
            let path = entry.path();
            if self.hidden == Hidden::Skip && entry.file_name().starts_with('.') {
                continue;
            }
            let relative = path
                .strip_prefix(self.root)
                .unwrap_or(path)
                .as_str()
                .replace('\\', "/");
            let link = entry.file_type().map_err(io(path))?.is_symlink();
            if link {
                self.check_link(path)?;
            }
            let meta = std::fs::metadata(path).map_err(io(path))?;
            if meta.is_dir() {
                if !(self.ignored)(&relative, true) {
                    if link {
                        self.note_link(&relative);
                    }
                    self.walk(path, visit)?;
                }
                continue;
            }
            if (self.ignored)(&relative, false) {
                continue;
            }
            if let Some(kind) = special_kind(&meta.file_type()) {
                return Err(InputError::SpecialFile {
                    name: path.to_string(),
                    kind,
                });
            }
            if link {
                self.note_link(&relative);
            }
            visit(self, relative, path, meta.len())?;
        }
        Ok(())
    }

    /// Refuses a link whose target (resolved) lies outside the root.
    fn check_link(&self, path: &Utf8Path) -> Result<(), InputError> {
        let target = path
            .as_std_path()
            .canonicalize()
            .map_err(|e| InputError::io(path.as_str(), e))?;
        if target.starts_with(&self.real_root) {
            return Ok(());
        }
        Err(InputError::LinkOutside {
            name: path.to_string(),
            target: target.to_string_lossy().into_owned(),
            root: self.root.to_string(),
        })
    }

    fn note_link(&mut self, relative: &str) {
        self.notes.push(format!(
            "warning: {}/{relative} is a symbolic link: the content it points at is used",
            self.root
        ));
    }
}
