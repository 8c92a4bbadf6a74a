//! What can stop `inject` / `uninject`: every variant names the file, and the workload when there is one.

use crate::engine::RenderError;
use crate::input::InputError;
use std::fmt;

/// A resource in the input, for messages: where it starts and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkloadRef {
    /// The file (or `<stdin>`).
    pub source: String,
    /// The line its document starts on (1-based).
    pub line: usize,
    /// Its `kind`, as written.
    pub kind: String,
    /// Its `metadata.name` (or `generateName`), possibly empty.
    pub name: String,
    /// Its `metadata.namespace`, possibly empty.
    pub namespace: String,
}

impl fmt::Display for WorkloadRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {}/{}",
            self.source,
            self.line,
            self.kind.to_lowercase(),
            self.name
        )?;
        if !self.namespace.is_empty() {
            write!(f, " (namespace {})", self.namespace)?;
        }
        Ok(())
    }
}

/// Where a configuration annotation was read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The annotations of the `Namespace` the workload lives in.
    Namespace(String),
    /// The workload's own `metadata.annotations`.
    Workload,
    /// The pod template's `metadata.annotations`.
    PodTemplate,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Namespace(ns) => write!(f, "namespace {ns}"),
            Origin::Workload => f.write_str("workload metadata"),
            Origin::PodTemplate => f.write_str("pod template"),
        }
    }
}

/// Why `inject` or `uninject` stopped. Nothing is written to stdout when one of these occurs.
#[derive(Debug, thiserror::Error)]
pub enum InjectError {
    /// An input was refused by the input rules (see [`crate::input`]).
    #[error(transparent)]
    Input(#[from] InputError),
    /// The chart (its defaults or its partials) could not be used.
    #[error(transparent)]
    Chart(Box<crate::chart::ChartError>),
    /// The user's values could not be assembled.
    #[error(transparent)]
    Values(Box<crate::values::ValuesError>),
    /// The trust anchors from `--certs-dir` could not be read.
    #[error(transparent)]
    Identity(Box<crate::identity::IdentityError>),
    /// The chart's partials do not compile.
    #[error(transparent)]
    Engine(Box<RenderError>),
    /// A flag's value is not usable (`--kube-version`).
    #[error("{0}")]
    Usage(String),
    /// An input is not valid YAML.
    #[error("{path}:{line}:{column}: invalid YAML: {message}")]
    Yaml {
        /// The file.
        path: String,
        /// 1-based line in the file.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// An input is not valid JSON.
    #[error("{path}:{line}:{column}: invalid JSON: {message}")]
    Json {
        /// The file.
        path: String,
        /// 1-based line in the file.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// A configuration annotation has a value we do not accept.
    #[error(
        "{workload}: annotation {annotation} has an invalid value {value:?} (on the {origin}); \
         allowed: {allowed}"
    )]
    InvalidAnnotation {
        /// The workload whose pods the annotation configures.
        workload: Box<WorkloadRef>,
        /// The annotation key.
        annotation: String,
        /// Its value.
        value: String,
        /// Where it was read.
        origin: Origin,
        /// The values it may take.
        allowed: String,
    },
    /// A field inject reads or rewrites has the wrong shape (it would be overwritten).
    #[error("{workload}: {field} must be {expected}, found {found}")]
    Shape {
        /// The workload.
        workload: Box<WorkloadRef>,
        /// The field's path from the document root.
        field: String,
        /// The shape it must have.
        expected: &'static str,
        /// The shape found.
        found: &'static str,
    },
    /// Annotations that are valid alone but not together.
    #[error("{workload}: {message}")]
    Conflict {
        /// The workload.
        workload: Box<WorkloadRef>,
        /// What clashes.
        message: String,
    },
    /// A sidecar partial failed to render, or rendered something that is not a container.
    #[error("{workload}: rendering the {container} container: {source}")]
    Render {
        /// The workload being injected.
        workload: Box<WorkloadRef>,
        /// `linkerd-proxy`, `linkerd-init` or `linkerd-debug`.
        container: &'static str,
        /// What went wrong.
        source: Box<SidecarError>,
    },
    /// The sidecar rendered once for the pod's configuration and given its inbound ports is not
    /// what rendering it for the pod gives (checked by debug builds only: a bug).
    #[error(
        "{workload}: the sidecar rendered for its configuration and given this pod's inbound \
         ports differs from the one rendered for the pod (a bug in meshchart)"
    )]
    FilledSidecarDiffers {
        /// The workload being injected.
        workload: Box<WorkloadRef>,
    },
    /// The chart's inject partial failed, or declared its pod additions in another shape.
    #[error("{workload}: rendering what the chart adds to the pod: {source}")]
    Additions {
        /// The workload being injected.
        workload: Box<WorkloadRef>,
        /// What went wrong.
        source: Box<SidecarError>,
    },
    /// `inject --chart` was given a Go-template chart that lacks a partial Linkerd's
    /// control-plane chart has (see [`super::upstream_chart`]).
    #[error(
        "{chart}: not a Linkerd control-plane chart: no template defines {partial:?} (upstream's \
         linkerd-control-plane chart has it in {file}); give the chart `helm pull \
         linkerd/linkerd-control-plane` fetches, or one of meshchart's lines with --linkerd"
    )]
    NotAControlPlaneChart {
        /// The chart's folder or archive.
        chart: String,
        /// The partial it lacks.
        partial: &'static str,
        /// Where upstream's chart defines it.
        file: &'static str,
    },
    /// A changed document could not be written back (a value YAML/JSON cannot hold).
    #[error("{workload}: cannot write the injected resource: {message}")]
    Emit {
        /// The workload.
        workload: Box<WorkloadRef>,
        /// The writer's message.
        message: String,
    },
    /// `--namespace-annotations` does not hold a Namespace.
    #[error("{path}: {message}")]
    NamespaceFile {
        /// The file.
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// `--config` does not hold a usable `linkerd-config` ConfigMap.
    #[error("--config {path}: {message}")]
    Config {
        /// The file (or `<stdin>`).
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// A pod needs the identity trust anchors and nothing gave them.
    #[error(
        "{workload}: no identity trust anchors: give the control plane's configuration with \
         --config FILE (a `meshchart render` output or `kubectl get configmap linkerd-config -n \
         linkerd -o yaml`), the folder render kept with --certs-dir DIR, or the PEM with \
         --set-file identityTrustAnchorsPEM=FILE"
    )]
    NoTrustAnchors {
        /// The first workload that needed them.
        workload: Box<WorkloadRef>,
    },
    /// One FIFO named twice as an input (by the same name or another): it can be read once.
    #[error("{path}: a FIFO named twice as an input; it can be read only once, so name it once")]
    FifoTwice {
        /// The second name given for it.
        path: String,
    },
    /// `-` was given twice (or also used by `-f -`).
    #[error("stdin (-) can be read only once")]
    StdinTwice,
    /// A temporary file (in `$TMPDIR`, or the system's temporary folder) could not be made or
    /// written: a missing, full or unwritable `$TMPDIR`.
    #[error(
        "$TMPDIR ({dir}): cannot make or write the temporary file that holds {purpose}: {source}"
    )]
    TempFile {
        /// The temporary folder used.
        dir: String,
        /// What the file holds (`the output until the run succeeds`, ...).
        purpose: &'static str,
        /// The OS error.
        source: std::io::Error,
    },
    /// The output's reader went away (a broken pipe, as in `inject big.yaml | head`): the
    /// manifests were cut short.
    #[error(
        "writing the output: its reader closed it (broken pipe) after {bytes} bytes: \
         {documents} of {total} document(s) were written whole, the rest not"
    )]
    OutputClosed {
        /// Bytes the reader took.
        bytes: u64,
        /// Documents the reader took whole.
        documents: u64,
        /// Documents in the whole output.
        total: u64,
        /// The OS error.
        source: std::io::Error,
    },
    /// The output could not be written (or held back until the run finished).
    #[error("writing the output: {source}")]
    Write {
        /// The OS error.
        source: std::io::Error,
    },
}

impl InjectError {
    /// Wraps a failure to make or write a temporary file holding `purpose`, naming `$TMPDIR`.
    pub fn temp_file(purpose: &'static str) -> impl FnOnce(std::io::Error) -> InjectError {
        move |source| InjectError::TempFile {
            dir: std::env::temp_dir().display().to_string(),
            purpose,
            source,
        }
    }
}

/// Boxed wrappers keep [`InjectError`] small; `?` converts as `#[from]` would.
macro_rules! boxed_from {
    ($($variant:ident($source:ty)),* $(,)?) => {$(
        impl From<$source> for InjectError {
            fn from(source: $source) -> InjectError {
                InjectError::$variant(Box::new(source))
            }
        }
    )*};
}

boxed_from!(
    Chart(crate::chart::ChartError),
    Values(crate::values::ValuesError),
    Identity(crate::identity::IdentityError),
    Engine(RenderError),
);

/// Why a sidecar container could not be produced.
#[derive(Debug, thiserror::Error)]
pub enum SidecarError {
    /// The chart's partial failed.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// The partial's output is not a YAML mapping.
    #[error("the partial {template} did not render a container mapping: {message}")]
    NotAContainer {
        /// The partial.
        template: String,
        /// Why.
        message: String,
    },
    /// The chart's inject partial did not declare pod additions in the expected shape.
    #[error("the partial {template} did not render what inject adds to a pod: {message}")]
    BadAdditions {
        /// The partial.
        template: String,
        /// Why.
        message: String,
    },
}
