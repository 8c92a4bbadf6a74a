//! YAML in and out: a Helm-compatible reader and a go-yaml-v2-compatible writer.

pub mod emit;
mod head;
pub mod json;
pub mod load;

pub use emit::{to_yaml, to_yaml_document, try_to_yaml, try_to_yaml_within, ToYamlError};
pub use head::{
    same_shape, scan_manifest_head, scan_manifest_head_and_shapes, LineShape, ManifestHead,
};
pub use json::{to_json, to_pretty_json, try_to_json, try_to_pretty_json, UnsupportedValue};
pub use load::{parse_document, parse_documents, Position, YamlError};
