//! meshchart: renders a Linkerd-compatible control plane from Jinja templates, Helm-style.

pub mod chart;
pub mod engine;
pub mod manifest;
pub mod values;
pub mod yaml;
