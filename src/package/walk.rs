//! Walking a chart folder the way Helm's loader does: `.helmignore` applied to folders (an
//! ignored folder is skipped whole) and files, symbolic links followed, size limits enforced.

use super::helmignore::{HelmIgnore, HELMIGNORE};
use crate::chart::{ChartError, MAX_CHART_BYTES, MAX_CHART_FILES};
use camino::{Utf8Path, Utf8PathBuf};

/// What to do with hidden entries (names starting with `.`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hidden {
    /// Keep them unless `.helmignore` says otherwise (Helm's packaging).
    Keep,
    /// Skip them (rendering a folder: `.git`, editor files), but still obey `.helmignore`.
    Skip,
}

/// A chart folder's files after `.helmignore`.
#[derive(Debug, Clone, Default)]
pub struct Walked {
    /// Path relative to the chart root (`/`-separated), and content; sorted by path.
    pub files: Vec<(String, Vec<u8>)>,
    /// Things worth telling the user (followed symbolic links).
    pub notes: Vec<String>,
}

/// The chart's ignore rules: its `.helmignore` if it has one, else Helm's default rule only.
pub fn ignore_rules(dir: &Utf8Path) -> Result<HelmIgnore, ChartError> {
    let path = dir.join(HELMIGNORE);
    match std::fs::read_to_string(&path) {
        Ok(text) => HelmIgnore::parse(&text).map_err(|source| ChartError::HelmIgnore {
            origin: dir.to_string(),
            source,
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(HelmIgnore::defaults()),
        Err(source) => Err(ChartError::Io { path, source }),
    }
}

/// Reads every file of the chart folder `dir` that `.helmignore` keeps.
pub fn walk_chart_dir(dir: &Utf8Path, hidden: Hidden) -> Result<Walked, ChartError> {
    let rules = ignore_rules(dir)?;
    let mut walker = Walker {
        root: dir,
        rules: &rules,
        hidden,
        walked: Walked::default(),
        total: 0,
        visited: Vec::new(),
    };
    walker.walk(dir)?;
    let mut walked = walker.walked;
    walked.files.sort_by(|a, b| a.0.cmp(&b.0));
    if !walked.files.iter().any(|(p, _)| p == "Chart.yaml") && dir.join("Chart.yaml").is_file() {
        if let Some(rule) = rules.ignored_by("Chart.yaml", false) {
            return Err(ChartError::ChartYamlIgnored {
                origin: dir.to_string(),
                rule: rule.to_string(),
            });
        }
    }
    Ok(walked)
}

struct Walker<'a> {
    root: &'a Utf8Path,
    rules: &'a HelmIgnore,
    hidden: Hidden,
    walked: Walked,
    total: u64,
    visited: Vec<std::path::PathBuf>,
}

impl Walker<'_> {
    fn walk(&mut self, dir: &Utf8Path) -> Result<(), ChartError> {
        let io = |path: &Utf8Path| {
            let path: Utf8PathBuf = path.to_owned();
            move |source| ChartError::Io { path, source }
        };
        // A link back up the tree would loop forever: visit each real folder once.
        let real = dir.as_std_path().canonicalize().map_err(io(dir))?;
        if self.visited.contains(&real) {
            return Ok(());
        }
        self.visited.push(real);
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
            // Helm follows symbolic links and stores what they point at.
            let meta = std::fs::metadata(path).map_err(io(path))?;
            if meta.is_dir() {
                if !self.rules.ignores(&relative, true) {
                    if link {
                        self.note_link(&relative);
                    }
                    self.walk(path)?;
                }
                continue;
            }
            if self.rules.ignores(&relative, false) {
                continue;
            }
            if !meta.is_file() {
                return Err(ChartError::IrregularFile {
                    origin: self.root.to_string(),
                    file: relative,
                });
            }
            if link {
                self.note_link(&relative);
            }
            self.total += meta.len();
            if self.walked.files.len() >= MAX_CHART_FILES || self.total > MAX_CHART_BYTES {
                return Err(ChartError::TooLarge {
                    origin: self.root.to_string(),
                    what: format!("{MAX_CHART_FILES} files or {MAX_CHART_BYTES} bytes"),
                });
            }
            let bytes = std::fs::read(path).map_err(io(path))?;
            self.walked.files.push((relative, bytes));
        }
        Ok(())
    }

    fn note_link(&mut self, relative: &str) {
        self.walked.notes.push(format!(
            "warning: {}/{relative} is a symbolic link: the content it points at is used",
            self.root
        ));
    }
}
