//! `meshchart inject` and `uninject`: add the mesh's proxy to workloads, or take it out, the way
//! `linkerd inject --manual` / `linkerd uninject` do, but offline and with the chart's partials.
//!
//! The pipeline, one input stream after another and one document at a time:
//! 1. [`input`] reads files, folders and stdin and splits each stream into documents that keep
//!    their exact text;
//! 2. for each workload ([`workload`]: Pod, Deployment, ReplicaSet, ReplicationController,
//!    StatefulSet, DaemonSet, Job, CronJob; `List` items in place), the pod template is first
//!    uninjected ([`uninject`]), so re-injection starts from scratch;
//! 3. [`config`] resolves the pod's configuration from the base values and the namespace's,
//!    workload's and pod template's annotations, and decides whether to skip it;
//! 4. [`sidecar`] renders the containers with the chart's partials (and, from a chart that
//!    declares them, the pod's other additions: annotations, labels, volumes) and [`mutate`]
//!    puts them in;
//! 5. a document that ends up equal to its input is written back byte for byte; a changed one is
//!    written in go-yaml's style (or as JSON when every input is JSON).
//!
//! Memory does not grow with the stream: inputs are read one document at a time (each input
//! twice: first for its `Namespace` documents, which lend their annotations to workloads before
//! and after them, then to transform it; stdin is copied to a temporary file for that), each
//! document is written out as soon as it is finished (documents are transformed in batches of
//! [`stream::DOCUMENTS_PER_BATCH`] on all cores, written in input order), and workloads with the same effective
//! configuration share one resolved configuration and one rendering of the sidecar containers,
//! each given its own inbound ports ([`ports_fill`]).
//! The command holds the output back (in a temporary file) until every document went through,
//! so a failure never leaves half a stream on stdout. The [`report`] has one entry per resource,
//! which the command also keeps in a temporary file ([`SpooledReport`]). The input cap applies
//! to each document, not to the stream; a `List` past [`input::STREAMED_LIST_BYTES`] is read and
//! transformed item by item (`kubectl get -A -o yaml` prints everything as one `List`).

pub mod command;
pub(crate) mod config;
pub(crate) mod control_plane;
pub(crate) mod error;
pub(crate) mod input;
pub(crate) mod mutate;
pub(crate) mod owned;
pub(crate) mod parse;
pub(crate) mod quantity;
pub(crate) mod report;
pub(crate) mod sidecar;
pub(crate) mod uninject;
pub mod upstream_chart;
pub mod workload;

mod list_assembly;
mod namespaces;
mod pod_extras;
mod ports_fill;
mod stream;
mod transform;
mod write;

pub use crate::proxy_support::NotReadyService;
pub use config::{InjectMode, PodConfig};
pub use error::{InjectError, Origin, SidecarError, WorkloadRef};
pub use input::{open_inputs, read_sources, split_json, Source, Stream};
pub use namespaces::Namespaces;
pub use report::{
    Entry, Outcome, Report, ReportFormat, ReportSink, SkipReason, SpooledReport, Summary, Warning,
};
pub use sidecar::{ChartSidecars, Part, SidecarSource};
pub use upstream_chart::UpstreamChartSidecars;

use namespaces::documents_mentioning;
use stream::run;
use transform::{Injector, Uninjector};

use std::collections::HashMap;
use std::io::Write;
use std::sync::Mutex;

use crate::values::Value;

/// The output stream and the report of one run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Transformed {
    /// What goes to stdout: YAML, or JSON when every input was JSON.
    pub output: String,
    /// What goes to stderr.
    pub report: Report,
}

/// What inject needs besides the inputs.
pub struct InjectOptions<'a> {
    /// Chart defaults merged with the user's `-f`/`--set` values.
    pub values: Value,
    /// Namespace annotations (from `--namespace-annotations`; input `Namespace`s are added).
    pub namespaces: Namespaces,
    /// Renders the sidecar containers.
    pub sidecars: &'a dyn SidecarSource,
}

/// Injects every workload of `sources` (text in memory) and returns the whole output.
pub fn inject(sources: &[Source], options: &InjectOptions<'_>) -> Result<Transformed, InjectError> {
    in_memory(sources, |inputs, out| inject_stream(inputs, options, out))
}

/// Removes the mesh from every workload of `sources` (text in memory).
pub fn uninject(sources: &[Source]) -> Result<Transformed, InjectError> {
    in_memory(sources, uninject_stream)
}

fn in_memory(
    sources: &[Source],
    run: impl FnOnce(&[Stream], &mut dyn Write) -> Result<Report, InjectError>,
) -> Result<Transformed, InjectError> {
    let inputs: Vec<Stream> = sources.iter().cloned().map(Stream::from).collect();
    let mut output = Vec::new();
    let report = run(&inputs, &mut output)?;
    Ok(Transformed {
        output: String::from_utf8(output).map_err(|e| InjectError::Write {
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        })?,
        report,
    })
}

/// Injects every workload of `inputs`, writing each document to `out` as soon as it is done.
/// On an error, `out` holds a partial stream: the caller holds it back (see
/// [`command::run_inject`]).
pub fn inject_stream(
    inputs: &[Stream],
    options: &InjectOptions<'_>,
    out: &mut dyn Write,
) -> Result<Report, InjectError> {
    let mut entries = Vec::new();
    inject_stream_reporting(inputs, options, OutputFormat::Auto, out, &mut entries)?;
    Ok(Report { entries })
}

/// How the injected stream is written (`inject -o`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutputFormat {
    /// YAML, or JSON when every input is JSON; documents nothing changed are written back
    /// byte for byte.
    #[default]
    Auto,
    /// YAML, whatever the inputs (`-o yaml`).
    Yaml,
    /// One compact JSON document per line for each input document, whatever the inputs, as
    /// `linkerd inject -o json` writes them (`-o json`); comments and separators are dropped.
    Json,
}

/// As [`inject_stream`], written in `format`, each report entry handed to `report` as soon as
/// its document is written (a [`SpooledReport`] keeps memory flat however long the stream).
pub fn inject_stream_reporting(
    inputs: &[Stream],
    options: &InjectOptions<'_>,
    format: OutputFormat,
    out: &mut dyn Write,
    report: &mut dyn ReportSink,
) -> Result<(), InjectError> {
    let mut namespaces = options.namespaces.clone();
    namespaces.scan_inputs(inputs)?;
    let transform = Injector {
        values: &options.values,
        namespaces: &namespaces,
        sidecars: options.sidecars,
        configs: Mutex::new(HashMap::new()),
    };
    run(inputs, &transform, format, out, report)
}

/// Removes the mesh from every workload of `inputs`, writing each document to `out` as soon as
/// it is done.
pub fn uninject_stream(inputs: &[Stream], out: &mut dyn Write) -> Result<Report, InjectError> {
    let mut entries = Vec::new();
    run(inputs, &Uninjector, OutputFormat::Auto, out, &mut entries)?;
    Ok(Report { entries })
}

/// As [`uninject_stream`], each report entry handed to `report` as it is made.
pub fn uninject_stream_reporting(
    inputs: &[Stream],
    out: &mut dyn Write,
    report: &mut dyn ReportSink,
) -> Result<(), InjectError> {
    run(inputs, &Uninjector, OutputFormat::Auto, out, report)
}
