//! `meshchart inject` / `uninject` from parsed flags to output: what `main.rs` and golden cases
//! call.

use super::control_plane::values_from_linkerd_config;
use super::input::read_sources;
use super::sidecar::ChartSidecars;
use super::{inject, uninject, InjectError, InjectOptions, Namespaces, Transformed};
use crate::chart::Chart;
use crate::engine::KubeVersion;
use crate::values::{coalesce, effective_values, ValueOverrides};
use camino::Utf8PathBuf;
use std::io::Read;

/// What `meshchart inject` is asked to do (the CLI's flags, as plain data).
#[derive(Clone, Debug, Default)]
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
}

/// A finished run: the stream for stdout, the report, and notes for stderr (values warnings).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Run {
    /// Output and report.
    pub transformed: Transformed,
    /// Coalesce warnings and the like.
    pub notes: Vec<String>,
}

/// Runs `meshchart inject` with `chart`'s defaults and partials.
pub fn run_inject(
    chart: &Chart,
    args: &InjectRequest,
    stdin: &mut dyn Read,
) -> Result<Run, InjectError> {
    let stdin_readers = usize::from(args.overrides.reads_stdin())
        + usize::from(args.config.as_deref() == Some("-"))
        + args.inputs.iter().filter(|i| *i == "-").count().min(1);
    if stdin_readers > 1 {
        return Err(InjectError::StdinTwice);
    }
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
    let sources = read_sources(&args.inputs, stdin)?;
    let sidecars = ChartSidecars::new(chart)?.for_kube_version(kube_version);
    let transformed = inject(
        &sources,
        &InjectOptions {
            values,
            namespaces,
            sidecars: &sidecars,
        },
    )?;
    Ok(Run { transformed, notes })
}

/// Runs `meshchart uninject` on `inputs` (files, folders, `-`).
pub fn run_uninject(inputs: &[String], stdin: &mut dyn Read) -> Result<Run, InjectError> {
    let sources = read_sources(inputs, stdin)?;
    Ok(Run {
        transformed: uninject(&sources)?,
        notes: Vec::new(),
    })
}
