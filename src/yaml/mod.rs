//! YAML in and out: a Helm-compatible reader and a go-yaml-v2-compatible writer.

pub mod load;

pub use load::{parse_document, parse_documents, Position, YamlError};
