//! Values: how Helm's sources of values (`-f`, `--set`, chart defaults) merge into one tree.
//! The tree itself, [`Value`], lives with its YAML reader and writers in [`crate::yaml`].

pub mod coalesce;
pub mod explain;
pub mod known;
pub mod positions;
pub mod schema;
pub mod set;
pub mod sources;

pub use crate::yaml::{format_go_float, format_json_float, format_yaml_float, Map, Value};
pub use coalesce::{coalesce, merge_user_values};
pub use set::{apply_set, apply_set_with_reader, parse_set, SetError, SetMode, SetProblem};
pub use sources::{
    effective_values, effective_values_with, user_values, user_values_noting, user_values_with,
    Assembler, KeptFiles, Source, ValueOverrides, ValuesError,
};
