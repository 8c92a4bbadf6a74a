//! `meshchart inject` / `uninject` from parsed flags to output: what `main.rs` and golden cases
//! call.

use super::control_plane::values_from_linkerd_config;
use super::input::{open_inputs, read_sources};
use super::sidecar::{ChartSidecars, SidecarSource, DEFAULT_CONTROL_PLANE_NAMESPACE};
use super::upstream_chart::UpstreamChartSidecars;
use super::{
    inject_stream_reporting, uninject_stream_reporting, Entry, InjectError, InjectOptions,
    Namespaces, OutputFormat, Report, ReportSink, Transformed,
};
use crate::chart::Chart;
use crate::engine::KubeVersion;
use crate::values::{coalesce, effective_values, Value, ValueOverrides};
use camino::Utf8PathBuf;
use std::io::{BufRead, Read, Seek, Write};

/// What `meshchart inject` is asked to do (the CLI's flags, as plain data).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InjectRequest {
    /// Files, folders or `-` (stdin).
    pub inputs: Vec<String>,
    /// `-f` and the `--set` family.
    pub overrides: ValueOverrides,
    /// A Namespace manifest whose `config.linkerd.io/*` annotations workloads inherit.
    pub namespace_annotations: Option<Utf8PathBuf>,
    /// The target cluster's Kubernetes version (default v1.32.0).
    pub kube_version: Option<String>,
    /// The folder `render --certs-dir` kept (trust anchors when the values give none).
    pub certs_dir: Option<Utf8PathBuf>,
    /// The control plane's `linkerd-config` ConfigMap (`-` for stdin): its values replace the
    /// chart defaults.
    pub config: Option<String>,
    /// How the stream is written (`-o json|yaml`).
    pub output: OutputFormat,
    /// Leave the per-resource report out (`--quiet`): only notes, the summary line and errors.
    pub quiet: bool,
}

/// A finished run: the stream for stdout (empty when it was streamed to a writer), the report,
/// and notes for stderr (values warnings).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Run {
    /// Output and report.
    pub transformed: Transformed,
    /// Coalesce warnings and the like.
    pub notes: Vec<String>,
}

/// Runs `meshchart inject` with `chart`'s defaults and partials, the output in memory.
pub fn run_inject(
    chart: &Chart,
    args: &InjectRequest,
    stdin: &mut dyn Read,
) -> Result<Run, InjectError> {
    in_memory(|out| run_inject_to(chart, args, stdin, out))
}

/// Runs `meshchart uninject`, the output in memory.
pub fn run_uninject(inputs: &[String], stdin: &mut dyn Read) -> Result<Run, InjectError> {
    in_memory(|out| run_uninject_to(inputs, stdin, out))
}

fn in_memory(
    run: impl FnOnce(&mut dyn Write) -> Result<Run, InjectError>,
) -> Result<Run, InjectError> {
    let mut output = Vec::new();
    let mut finished = run(&mut output)?;
    finished.transformed.output = String::from_utf8(output).map_err(|e| InjectError::Write {
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
    })?;
    Ok(finished)
}

/// The blocks [`held_back`] copies its output in.
const COPY_BLOCK_BYTES: usize = 256 * 1024;

/// Runs `run`, which writes its output as it goes, into an unnamed temporary file, and copies
/// that to `out` only when `run` succeeded: nothing reaches `out` from a run that fails, and
/// memory does not grow with the output.
pub fn held_back(
    out: &mut dyn Write,
    run: impl FnOnce(&mut dyn Write) -> Result<Run, InjectError>,
) -> Result<Run, InjectError> {
    let write_error = |source| InjectError::Write { source };
    const HELD_BACK: &str = "the output until the run succeeds";
    let mut spool = tempfile::tempfile().map_err(InjectError::temp_file(HELD_BACK))?;
    // Everything `run` writes goes to temporary files (this spool, a long List's parts, the
    // report): a write that fails there is a full or broken `$TMPDIR`.
    let finished = match run(&mut spool) {
        Err(InjectError::Write { source }) => Err(InjectError::temp_file(HELD_BACK)(source)),
        other => other,
    }?;
    spool.rewind().map_err(write_error)?;
    // Large blocks: `io::copy`'s 8 KiB made two system calls per 8 KiB into a line-buffered
    // standard output, a tenth of the time of an inject of 10,000 workloads.
    let mut block = vec![0u8; COPY_BLOCK_BYTES];
    let mut copied = 0u64;
    let copy = loop {
        let read = match spool.read(&mut block) {
            Ok(0) => break out.flush(),
            Ok(read) => read,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(write_error(e)),
        };
        if let Err(e) = write_counting(out, &block[..read], &mut copied) {
            break Err(e);
        }
    };
    match copy {
        Ok(()) => Ok(finished),
        // A reader that stops early (`inject big.yaml | head`) must not pass for a finished
        // run: the manifests were cut short, and a pipeline with `pipefail` has to see it.
        Err(source) if source.kind() == std::io::ErrorKind::BrokenPipe => {
            let (documents, total) = documents_written(&mut spool, copied).map_err(write_error)?;
            Err(InjectError::OutputClosed {
                bytes: copied,
                documents,
                total,
                source,
            })
        }
        Err(e) => Err(write_error(e)),
    }
}

/// Writes `bytes` to `out`, adding to `copied` what the reader took, even of a write that fails.
fn write_counting(out: &mut dyn Write, mut bytes: &[u8], copied: &mut u64) -> std::io::Result<()> {
    while !bytes.is_empty() {
        match out.write(bytes) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => {
                *copied += n as u64;
                bytes = &bytes[n..];
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// How many documents of the output in `spool` lie whole within its first `copied` bytes, and
/// how many it holds. A document starts at the beginning and at each `---` line (YAML), or at
/// each line (JSON lines, whose output starts with `{`); one ends where the next starts.
fn documents_written(spool: &mut std::fs::File, copied: u64) -> std::io::Result<(u64, u64)> {
    spool.rewind()?;
    let mut text = std::io::BufReader::new(spool);
    let mut first = [0u8; 1];
    if text.read(&mut first)? == 0 {
        return Ok((0, 0));
    }
    let json = first[0] == b'{';
    let mut starts = 1u64;
    // Starts at or before `copied`: the document before each of them is whole.
    let mut starts_reached = 1u64;
    let mut at = 1u64;
    let mut line = Vec::new();
    // The first line, read on from its first byte.
    text.read_until(b'\n', &mut line)?;
    at += line.len() as u64;
    loop {
        line.clear();
        let read = text.read_until(b'\n', &mut line)?;
        if read == 0 {
            break;
        }
        let marker = json
            || (line.starts_with(b"---")
                && matches!(line.get(3), None | Some(b' ' | b'\t' | b'\n' | b'\r')));
        if marker {
            starts += 1;
            if at <= copied {
                starts_reached += 1;
            }
        }
        at += read as u64;
    }
    let whole = if copied >= at {
        starts
    } else {
        starts_reached - 1
    };
    Ok((whole, starts))
}

/// Refuses a request in which more than one input reads standard input (values, `--config`,
/// the workloads): it can be read once.
pub fn check_stdin_readers(args: &InjectRequest) -> Result<(), InjectError> {
    let stdin_readers = usize::from(args.overrides.reads_stdin())
        + usize::from(args.config.as_deref() == Some("-"))
        + args.inputs.iter().filter(|i| *i == "-").count().min(1);
    if stdin_readers > 1 {
        return Err(InjectError::StdinTwice);
    }
    Ok(())
}

/// The Linkerd release the control plane of `--config` runs: the `linkerdVersion` of its
/// `linkerd-config` values (`None` when they name none). `stdin` stands for `-`.
pub fn config_release(config: &str, stdin: &mut dyn Read) -> Result<Option<String>, InjectError> {
    let [source] = read_sources(&[config.to_owned()], stdin)?
        .try_into()
        .map_err(|_| InjectError::Config {
            path: config.to_owned(),
            message: "expected one file, not a folder".into(),
        })?;
    let values = values_from_linkerd_config(&source)?;
    Ok(values
        .get_path(&["linkerdVersion"])
        .and_then(|v| v.as_str())
        .filter(|v| !v.is_empty())
        .map(str::to_owned))
}

/// Runs `meshchart inject`, writing the output to `out` document by document.
pub fn run_inject_to(
    chart: &Chart,
    args: &InjectRequest,
    stdin: &mut dyn Read,
    out: &mut dyn Write,
) -> Result<Run, InjectError> {
    let mut entries = Vec::new();
    let notes = run_inject_reporting(chart, args, stdin, out, &mut entries)?;
    Ok(finished(Report { entries }, notes))
}

/// Runs `meshchart inject`, writing the output to `out` document by document and the report
/// to `report` entry by entry; returns the notes for stderr.
pub fn run_inject_reporting(
    chart: &Chart,
    args: &InjectRequest,
    stdin: &mut dyn Read,
    out: &mut dyn Write,
    report: &mut dyn ReportSink,
) -> Result<Vec<String>, InjectError> {
    check_stdin_readers(args)?;
    let mut notes = Vec::new();
    let mut defaults = chart.default_values()?;
    if let Some(config) = &args.config {
        let [source] = read_sources(std::slice::from_ref(config), stdin)?
            .try_into()
            .map_err(|_| InjectError::Config {
                path: config.clone(),
                message: "expected one file, not a folder".into(),
            })?;
        let control_plane = values_from_linkerd_config(&source)?;
        defaults = coalesce(&defaults, control_plane, &mut notes);
        notes.push(format!(
            "took the control plane's values from ConfigMap linkerd-config in {}",
            source.name
        ));
    }
    let (mut values, value_notes) = effective_values(&defaults, &args.overrides, stdin)?;
    notes.extend(value_notes);
    if let Some(dir) = &args.certs_dir {
        notes.extend(crate::identity::trust_anchors_from_dir(&mut values, dir)?);
    }
    // The anchors go into every pod's environment: anything but certificates is refused here,
    // before a workload is read.
    let anchors_set_by = args
        .overrides
        .described_setter_of("identityTrustAnchorsPEM")
        .or_else(|| args.config.as_ref().map(|c| format!("--config {c}")));
    crate::identity::check_trust_anchors(&values, anchors_set_by.as_deref())?;
    let namespaces = match &args.namespace_annotations {
        Some(path) => {
            let source = read_sources(&[path.to_string()], &mut std::io::empty())?;
            match source.as_slice() {
                [one] => Namespaces::from_file(one)?,
                _ => {
                    return Err(InjectError::NamespaceFile {
                        path: path.to_string(),
                        message: "expected one file".into(),
                    })
                }
            }
        }
        None => Namespaces::default(),
    };
    let kube_version = match &args.kube_version {
        Some(v) => KubeVersion::parse(v).map_err(InjectError::Usage)?,
        None => KubeVersion::default(),
    };
    let inputs = open_inputs(&args.inputs, stdin)?;
    // The 2021 chart names the control plane's namespace in its values; the release lines'
    // partials take it from Release.Namespace, which upstream's CLI sets from
    // --linkerd-namespace (default linkerd).
    let control_plane_namespace = match values.get_path(&["namespace"]) {
        Some(Value::String(ns)) if !ns.is_empty() => ns.clone(),
        _ => DEFAULT_CONTROL_PLANE_NAMESPACE.to_owned(),
    };
    // A chart in Go templates is upstream's own (inject --chart): its partials, through the Go
    // front end; ours are Jinja.
    let (ours, upstream);
    let sidecars: &dyn SidecarSource = if meshchart_helm::gotpl::is_go_template_chart(chart) {
        upstream = UpstreamChartSidecars::new(chart, &control_plane_namespace, kube_version)?;
        &upstream
    } else {
        ours = ChartSidecars::new(chart)?
            .for_kube_version(kube_version)
            .in_namespace(&control_plane_namespace);
        &ours
    };
    inject_stream_reporting(
        &inputs,
        &InjectOptions {
            values,
            namespaces,
            sidecars,
        },
        args.output,
        out,
        report,
    )?;
    Ok(notes)
}

/// Runs `meshchart uninject`, writing the output to `out` document by document.
pub fn run_uninject_to(
    inputs: &[String],
    stdin: &mut dyn Read,
    out: &mut dyn Write,
) -> Result<Run, InjectError> {
    let mut entries: Vec<Entry> = Vec::new();
    run_uninject_reporting(inputs, stdin, out, &mut entries)?;
    Ok(finished(Report { entries }, Vec::new()))
}

/// Runs `meshchart uninject`, writing the output to `out` and the report to `report` as it goes.
pub fn run_uninject_reporting(
    inputs: &[String],
    stdin: &mut dyn Read,
    out: &mut dyn Write,
    report: &mut dyn ReportSink,
) -> Result<(), InjectError> {
    let inputs = open_inputs(inputs, stdin)?;
    uninject_stream_reporting(&inputs, out, report)
}

fn finished(report: Report, notes: Vec<String>) -> Run {
    Run {
        transformed: Transformed {
            output: String::new(),
            report,
        },
        notes,
    }
}
