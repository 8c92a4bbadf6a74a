//! meshchart: renders a Linkerd-compatible control plane from Jinja templates, Helm-style, and
//! injects its proxy into workloads.
//!
//! The work is done by the workspace's crates, re-exported here as one library for the binary,
//! the tests and the benchmarks: `meshchart-yaml` (the data tree: [`yaml`]), `meshchart-helm`
//! (the Helm-style renderer: [`input`], [`chart`], [`values`], [`engine`], [`manifest`],
//! [`package`], [`output`], ...) and `meshchart-linkerd` (the release lines, [`identity`],
//! [`inject`], and the commands over both: [`render`], [`fleet`], [`lint`], [`diff`],
//! [`golden`]). What belongs to the process alone lives here: [`limits`], the ceilings on its
//! heap and running time, [`arena`], its heap, and [`copy`], its byte copies on musl. [`flags`] re-exports `meshchart-cli`, the
//! command line's flag groups, for the tests that read golden cases as the command line does. The
//! command line (`main.rs`, `cli/`, one file per command) is a thin layer of clap over these.

#![deny(missing_docs)]
// What is `pub` is the crate's surface: an item only the crate uses says `pub(crate)`.
#![warn(unreachable_pub)]

pub mod arena;
pub mod copy;
pub mod limits;

/// The command line's flag groups (the `meshchart-cli` crate), for the tests that read golden
/// cases as the command line does.
pub use meshchart_cli as flags;

pub use meshchart_helm::{
    chart, digest, engine, epoch, files, input, manifest, output, package, parallel, redact,
    values, yaml,
};
pub use meshchart_linkerd::{
    chart_source, diff, fleet, golden, identity, inject, lint, proxy_support, releases, render,
    ChartSource, Error,
};
