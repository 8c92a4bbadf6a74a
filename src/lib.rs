//! meshchart: renders a Linkerd-compatible control plane from Jinja templates, Helm-style.
//!
//! The CLI in `main.rs` is a thin layer over these modules: [`input`] is the one door every
//! byte a user hands us comes through (see its rules), [`output`] the one door every file we
//! write goes through (see its rules), [`chart`] reads charts, [`values`]
//! merges values as Helm does, [`identity`] fills in the certificates the values lack, [`engine`]
//! renders templates, [`manifest`] frames and orders the output, [`render`] ties them together
//! (and [`fleet`] renders many clusters at once),
//! [`golden`] runs golden-file cases (render's and inject's), [`inject`] adds the mesh's proxy to
//! workloads (and takes it out again), [`package`] writes chart archives, [`lint`] and [`diff`]
//! review charts and renders; [`redact`] keeps private keys out of messages; [`files`] the check that a file already holds its bytes, [`proxy_support`] what each proxy
//! release understands, [`limits`] and [`arena`] the process's ceilings and its heap.

#![deny(missing_docs)]

pub mod arena;
pub mod chart_source;
pub mod diff;
mod error;
pub mod fleet;
pub mod golden;
pub mod identity;
pub mod inject;
pub mod limits;
pub mod lint;
pub mod proxy_support;
pub mod releases;
pub mod render;

pub use chart_source::ChartSource;
pub use error::Error;
pub use meshchart_helm::{
    chart, digest, engine, epoch, files, input, manifest, output, package, parallel, redact,
    values, yaml,
};
