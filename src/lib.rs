//! meshchart: renders a Linkerd-compatible control plane from Jinja templates, Helm-style.

pub mod values;
pub mod yaml;
