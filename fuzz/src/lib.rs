//! What the fuzz targets share: the round-trip check of our YAML writer.

use meshchart::values::Value;

#[path = "../../tests/integration/support/yaml_round_trip.rs"]
mod round_trip;

/// Writes `value` as YAML and reads it back: it must be the same data.
pub fn assert_yaml_round_trip(value: &Value) {
    if let Some((yaml, back)) = round_trip::write_and_read(value) {
        let back = back.unwrap_or_else(|e| panic!("our YAML does not read back: {e}\n{yaml}"));
        assert!(
            round_trip::same_data(&back, value),
            "the YAML round trip changed the data:\n{value:?}\nwas written as\n{yaml}\nand read back as\n{back:?}"
        );
    }
}
