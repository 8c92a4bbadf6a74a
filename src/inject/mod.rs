//! `meshchart inject` and `uninject`: add the mesh's proxy to workloads, or take it out, the way
//! `linkerd inject --manual` / `linkerd uninject` do, but offline and with the chart's partials.

pub mod config;
pub mod error;
pub mod mutate;
pub mod owned;
pub mod parse;
pub mod quantity;
pub mod sidecar;
pub mod uninject;
pub mod workload;

pub use config::{InjectMode, PodConfig};
pub use error::{InjectError, Origin, WorkloadRef};
pub use sidecar::{ChartSidecars, Part, SidecarSource};
