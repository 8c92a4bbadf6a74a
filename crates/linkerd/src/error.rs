//! The library's top-level error: one variant per boundary, each already naming file, line or key.

use crate::chart::ChartError;
use crate::engine::RenderError;
use crate::identity::IdentityError;
use crate::inject::InjectError;
use crate::values::ValuesError;
use camino::Utf8PathBuf;

/// Anything that can stop a meshchart command.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or validating a chart.
    #[error(transparent)]
    Chart(#[from] ChartError),
    /// Choosing or reading a release line's chart.
    #[error(transparent)]
    Release(#[from] crate::releases::ReleaseError),
    /// Reading or merging values.
    #[error(transparent)]
    Values(#[from] ValuesError),
    /// Rendering templates.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// Identity or webhook certificate material.
    #[error(transparent)]
    Identity(#[from] IdentityError),
    /// Packaging a chart.
    #[error(transparent)]
    Package(#[from] crate::package::PackageError),
    /// Injecting or uninjecting workloads.
    #[error(transparent)]
    Inject(#[from] InjectError),
    /// An input refused by the input rules (see [`crate::input`]).
    #[error(transparent)]
    Input(#[from] crate::input::InputError),
    /// An output refused or not written (see [`crate::output`]).
    #[error(transparent)]
    Output(#[from] crate::output::OutputError),
    /// A flag's value is not usable.
    #[error("{0}")]
    Usage(String),
    /// Reading or writing a file.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: Utf8PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

impl Error {
    /// Wraps an I/O error with its path.
    pub fn io(path: impl Into<Utf8PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, source }
    }

    /// Whether this error, or one it was caused by, is a write to a pipe whose reader has
    /// gone (`meshchart render | head`): the command line then ends quietly.
    /// Not so for inject's and uninject's [`InjectError::OutputClosed`]: a stream cut short
    /// is reported.
    pub fn is_broken_pipe(&self) -> bool {
        if let Error::Inject(InjectError::OutputClosed { .. }) = self {
            return false;
        }
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(self);
        while let Some(error) = cause {
            if let Some(io) = error.downcast_ref::<std::io::Error>() {
                if io.kind() == std::io::ErrorKind::BrokenPipe {
                    return true;
                }
            }
            cause = error.source();
        }
        false
    }
}
