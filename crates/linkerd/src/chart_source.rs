//! Which chart a command works on: a Linkerd release line compiled into the binary, or a chart
//! folder or archive the user names.

use crate::chart::Chart;
use crate::package::PackageSource;
use crate::releases::{self, ReleaseError};
use crate::yaml::{Map, Value};
use camino::{Utf8Path, Utf8PathBuf};

/// Where a chart comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChartSource {
    /// A release line's chart compiled into the binary (see [`releases`]).
    Embedded {
        /// The release line `--linkerd` names; `None` to take the user's `linkerdVersion`, or
        /// else the default line.
        release: Option<String>,
        /// The line's CRD chart (`--crds`) rather than its control plane.
        crds: bool,
    },
    /// A chart folder on disk.
    Path(Utf8PathBuf),
    /// A chart archive (`.tgz`), read in memory.
    Archive(Utf8PathBuf),
}

impl std::fmt::Display for ChartSource {
    /// How reports name the chart: its folder or archive, or the embedded line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChartSource::Path(path) | ChartSource::Archive(path) => write!(f, "{path}"),
            ChartSource::Embedded { release, crds } => write!(
                f,
                "the embedded Linkerd {} chart ({})",
                if *crds { "CRD" } else { "control plane" },
                release.as_deref().unwrap_or("default release line")
            ),
        }
    }
}

impl ChartSource {
    /// The default line's control plane.
    pub fn default_line() -> ChartSource {
        ChartSource::Embedded {
            release: None,
            crds: false,
        }
    }

    /// `--chart` if given (a file is an archive, anything else a folder), else the default
    /// line's control plane.
    pub fn from_flag(path: Option<&Utf8Path>) -> ChartSource {
        match path {
            Some(p) if p.is_file() => ChartSource::Archive(p.to_owned()),
            Some(p) => ChartSource::Path(p.to_owned()),
            None => ChartSource::default_line(),
        }
    }

    /// Reads the chart; an embedded one of the line `--linkerd` named, else the default line.
    pub fn load(&self) -> Result<Chart, ReleaseError> {
        self.load_for(&Value::Map(Map::new()))
            .map(|(chart, _)| chart)
    }

    /// Reads the chart for a user whose own values (`-f`/`--set`, without the chart's
    /// defaults) are `user_values`: an embedded chart comes from the line [`releases::choose_line`]
    /// picks, with the warning that choice gives.
    pub fn load_for(&self, user_values: &Value) -> Result<(Chart, Option<String>), ReleaseError> {
        match self {
            ChartSource::Embedded { release, crds } => {
                let choice = releases::choose_line(release.as_deref(), user_values)?;
                let name = if *crds {
                    releases::CRDS_CHART
                } else {
                    releases::CONTROL_PLANE_CHART
                };
                Ok((
                    releases::embedded_line(&choice.release, name)?,
                    choice.warning,
                ))
            }
            ChartSource::Path(p) => Ok((Chart::from_dir(p)?, None)),
            ChartSource::Archive(p) => Ok((Chart::from_archive(p)?, None)),
        }
    }
}

impl ChartSource {
    /// Packages the chart this names (see [`crate::package::package_source`]): an embedded
    /// line's chart from its compiled-in files.
    pub fn package(
        &self,
        options: &crate::package::PackageOptions,
    ) -> Result<(crate::package::Package, Vec<String>), crate::Error> {
        let packaged = match self {
            ChartSource::Embedded { .. } => {
                let chart = self.load()?;
                crate::package::package_source(PackageSource::Chart(&chart), options)
            }
            ChartSource::Path(dir) => {
                crate::package::package_source(PackageSource::Dir(dir), options)
            }
            ChartSource::Archive(path) => {
                crate::package::package_source(PackageSource::Archive(path), options)
            }
        };
        Ok(packaged?)
    }
}
