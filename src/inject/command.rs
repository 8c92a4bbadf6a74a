//! `meshchart inject` / `uninject` from parsed flags to output: what `main.rs` and golden cases
//! call.

use super::control_plane::values_from_linkerd_config;
use super::flags::{InjectArgs, UninjectArgs};
use super::input::read_sources;
use super::sidecar::ChartSidecars;
use super::{inject, uninject, InjectError, InjectOptions, Namespaces, Transformed};
use crate::chart::Chart;
use crate::engine::KubeVersion;
use crate::error::Error;
use crate::values::{coalesce, effective_values};
use std::io::Read;

/// A finished run: the stream for stdout, the report, and notes for stderr (values warnings).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Run {
    /// Output and report.
    pub transformed: Transformed,
    /// Coalesce warnings and the like.
    pub notes: Vec<String>,
}

/// Runs `meshchart inject` with `chart`'s defaults and partials.
pub fn run_inject(chart: &Chart, args: &InjectArgs, stdin: &mut dyn Read) -> Result<Run, Error> {
    let stdin_readers = usize::from(args.values.reads_stdin())
        + usize::from(args.config.as_deref() == Some("-"))
        + args.inputs.iter().filter(|i| *i == "-").count().min(1);
    if stdin_readers > 1 {
        return Err(InjectError::StdinTwice.into());
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
    let (mut values, value_notes) = effective_values(&defaults, &args.values.overrides(), stdin)?;
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
                    }
                    .into())
                }
            }
        }
        None => Namespaces::default(),
    };
    let kube_version = match &args.kube_version {
        Some(v) => KubeVersion::parse(v).map_err(Error::Usage)?,
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

/// Runs `meshchart uninject`.
pub fn run_uninject(args: &UninjectArgs, stdin: &mut dyn Read) -> Result<Run, Error> {
    let sources = read_sources(&args.inputs, stdin)?;
    Ok(Run {
        transformed: uninject(&sources)?,
        notes: Vec::new(),
    })
}
