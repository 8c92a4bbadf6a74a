//! Values: the tree, how Helm's sources of values merge, and Go-style number printing.

pub mod coalesce;
pub mod explain;
mod number;
pub mod positions;
pub mod set;
pub mod sources;
mod value;

pub use coalesce::{coalesce, merge_user_values};
pub use number::{format_go_float, format_json_float, format_yaml_float};
pub use set::{apply_set, apply_set_with_reader, parse_set, SetError, SetMode, SetProblem};
pub use sources::{
    effective_values, effective_values_with, user_values, user_values_with, Assembler, KeptFiles,
    Source, ValueOverrides, ValuesError,
};
pub use value::{Map, Value};
