//! The Linkerd side of meshchart, over the Helm-style renderer of `meshchart-helm`.
//!
//! [`releases`] is the table of Linkerd releases whose charts are compiled in, and
//! [`chart_source`] says which chart a command works on (one of those, or the user's).
//! [`identity`] fills in the certificates a control plane's values lack and keeps their
//! lifecycle; [`proxy_support`] knows what each proxy release understands; [`inject`] adds the
//! mesh's proxy to workloads and takes it out again. [`render`] ties chart, values, identity and
//! the renderer together for one render, [`fleet`] for many clusters at once; [`golden`] runs
//! golden-file cases (render's and inject's), [`lint`] and [`diff`] review charts and renders.

#![deny(missing_docs)]
// What is `pub` is the crate's surface: an item only the crate uses says `pub(crate)`.
#![warn(unreachable_pub)]

use meshchart_helm::{chart, digest, engine, epoch, files, input, manifest, output, package};
use meshchart_helm::{parallel, redact, values, yaml};

pub mod chart_source;
pub mod diff;
mod error;
pub mod fleet;
pub mod golden;
pub mod identity;
pub mod inject;
pub mod lint;
pub mod proxy_support;
pub mod releases;
pub mod render;

pub use chart_source::ChartSource;
pub use error::Error;
