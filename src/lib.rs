//! meshchart: renders a Linkerd-compatible control plane from Jinja templates, Helm-style.
//!
//! The CLI in `main.rs` is a thin layer over these modules: [`chart`] reads charts, [`values`]
//! merges values as Helm does, [`engine`] renders templates, [`manifest`] frames and orders the
//! output, [`render`] ties them together, [`golden`] runs golden-file cases, and [`inject`] adds
//! the mesh's proxy to workloads (and takes it out again).

pub mod chart;
pub mod engine;
pub mod error;
pub mod flags;
pub mod golden;
pub mod inject;
pub mod manifest;
pub mod render;
pub mod values;
pub mod yaml;

pub use error::Error;
