//! The YAML writer's round-trip promise, shared by `tests/integration/yaml_round_trip.rs` and the fuzz
//! targets (`fuzz/src/lib.rs` includes this file).

use meshchart::values::Value;

/// Whether `read` (what came back) is the data `written` was: equal, except that a whole float
/// may come back as the integer its shortest digits spell (Helm's JSON round trip prints
/// `2.0` as `2`, and `2.9045381379106899e17` as `290453813791069000`): the same float64.
pub fn same_data(read: &Value, written: &Value) -> bool {
    match (read, written) {
        (Value::Int(i), Value::Float(f)) => *i as f64 == *f,
        (Value::Seq(a), Value::Seq(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_data(x, y))
        }
        (Value::Map(a), Value::Map(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((ka, va), (kb, vb))| ka == kb && same_data(va, vb))
        }
        _ => read == written,
    }
}

/// Writes `value` as a YAML document, as `values` and `inject` do, and reads the text back;
/// returns the text and what was read, or `None` when the value cannot be written (NaN or an
/// infinity). (`toYaml` in templates drops the document's final newline, as Helm's does, so a
/// string ending in blank lines written last keeps one fewer there.)
pub fn write_and_read(value: &Value) -> Option<(String, Result<Value, String>)> {
    let mut yaml = meshchart::yaml::try_to_yaml(value).ok()?;
    yaml.push('\n');
    let back = meshchart::yaml::parse_document(&yaml).map_err(|e| e.to_string());
    Some((yaml, back))
}
