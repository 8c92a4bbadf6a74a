//! `meshchart inject` / `uninject` from parsed flags to output: what `main.rs` and golden cases
//! call.

use super::flags::{InjectArgs, UninjectArgs};
use super::input::read_sources;
use super::sidecar::ChartSidecars;
use super::{inject, uninject, InjectError, InjectOptions, Namespaces, Transformed};
use crate::chart::Chart;
use crate::engine::KubeVersion;
use crate::error::Error;
use crate::values::effective_values;
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
    if args.values.reads_stdin() && args.inputs.iter().any(|i| i == "-") {
        return Err(InjectError::StdinTwice.into());
    }
    let defaults = chart.default_values()?;
    let (mut values, mut notes) = effective_values(&defaults, &args.values.overrides(), stdin)?;
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
