//! Values: how Helm's sources of values (`-f`, `--set`, chart defaults) merge into one tree.
//! The tree itself, [`Value`], lives with its YAML reader and writers in [`crate::yaml`].

mod coalesce;
mod explain;
mod known;
mod positions;
mod schema;
mod set;
mod sources;

pub use crate::yaml::{format_go_float, format_json_float, format_yaml_float, Map, Value};
pub use coalesce::{coalesce, merge_user_values};
pub use explain::{annotate, explain, DefaultsFile, Explained, LeafPath};
pub use known::{edit_distance, is_free_form, KnownKeys};
pub use positions::{walk, Shape, Step};
pub use schema::{default_key_paths, schema_key_paths, to_json, validate, SchemaCheck, Violation};
pub use set::{apply_set, apply_set_with_reader, parse_set, SetError, SetMode, SetProblem};
pub use sources::{
    effective_values, effective_values_with, user_values, user_values_noting, user_values_with,
    Assembler, KeptFiles, Source, ValueOverrides, ValuesError,
};
