//! Values: the tree, how Helm's sources of values merge, and Go-style number printing.

mod number;
mod value;

pub use number::{format_go_float, format_json_float, format_yaml_float};
pub use value::{Map, Value};
