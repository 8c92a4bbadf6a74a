//! The data tree ([`Value`]) and its text forms: a Helm-compatible YAML reader, go-yaml-v2-compatible
//! YAML and JSON writers, and Go-style number printing.

#![deny(missing_docs)]
// What is `pub` is the crate's surface: an item only the crate uses says `pub(crate)`.
#![warn(unreachable_pub)]

pub mod emit;
pub mod events;
mod head;
pub mod json;
pub mod load;
mod number;
mod timestamp;
mod value;

pub use emit::{
    in_written_order, to_yaml, to_yaml_document, try_to_yaml, try_to_yaml_pretty_within,
    try_to_yaml_within, ToYamlError,
};
pub use events::line_of;
pub use head::{
    same_shape, scan_manifest_head, scan_manifest_head_and_shapes, LineShape, ManifestHead,
};
pub use json::{
    to_json, to_pretty_json, try_to_json, try_to_pretty_json, try_to_raw_json, UnsupportedValue,
};
pub use load::{
    first_duplicate_key_in, parse_document, parse_documents, DuplicateKey, Position, YamlError,
};
pub use number::{format_go_float, format_json_float, format_yaml_float};
pub use value::{Map, Value};

/// The deepest nesting of lists and maps meshchart reads (YAML, JSON) or converts from a
/// template: as deep as kubectl reads, whose decoders stop at 10,000 (Go's `encoding/json`,
/// `maxNestingDepth`; go-yaml's scanner, "exceeded max depth of 10000"). Past it a clear error;
/// within it every walk of a value fits the stacks of the threads that render.
pub const MAX_NESTING: usize = 10_000;
