//! Inputs the fuzz targets in `fuzz/` found, kept as specifications (see fuzz/README.md). Each
//! test names the target and the artifact it came from.

use meshchart::values::{parse_set, SetMode, Value};
use meshchart::yaml::{parse_document, to_yaml};

#[test]
fn a_map_under_a_key_named_like_the_merge_key_reads_back_as_that_key() {
    // set_parser, crash-c5e1c6eb0a8d3ed10881dc69edb2deff3555efc3: `--set <<.x=D` printed
    // `<<:` plain, which reads back as a merge key, so the values lost a level.
    let values = Value::Map(parse_set("<<.x=D,d=.}=", SetMode::Set).unwrap());
    let yaml = to_yaml(&values);
    assert_eq!(yaml, "\"<<\":\n  x: D\nd: .}=");
    assert_eq!(parse_document(&yaml).unwrap(), values);
}

#[test]
fn a_quoted_merge_key_is_an_ordinary_key_and_a_plain_one_merges() {
    let quoted = parse_document("\"<<\": {x: 1}\n").unwrap();
    assert_eq!(quoted.get_path(&["<<", "x"]), Some(&Value::Int(1)));
    let plain = parse_document("<<: {x: 1}\n").unwrap();
    assert_eq!(plain.get_path(&["x"]), Some(&Value::Int(1)));
}

#[test]
fn a_whole_float_beyond_2_pow_53_reads_back_as_the_same_float64() {
    // yaml_round_trip, crash-71711098631ed8dccb00cbfed8d3cd7923da00b3: `001506913340988304952`
    // is no octal integer, so a float; it is written as its shortest digits (as Helm does),
    // which read back as an integer. Not a change of data: the same float64. The round-trip
    // check (tests/integration/support/yaml_round_trip.rs) compares such numbers as float64 since.
    let value = parse_document("a0iVersion: 001506913340988304952\n").unwrap();
    let Some(Value::Float(f)) = value.get_path(&["a0iVersion"]).cloned() else {
        panic!("{value:?}")
    };
    let yaml = to_yaml(&value);
    assert_eq!(yaml, "a0iVersion: 1506913340988305000");
    let back = parse_document(&yaml).unwrap();
    assert_eq!(
        back.get_path(&["a0iVersion"]),
        Some(&Value::Int(1_506_913_340_988_305_000))
    );
    assert_eq!(1_506_913_340_988_305_000_i64 as f64, f);
}

#[test]
fn a_dot_first_string_with_a_trailing_underscore_reads_back_as_that_string() {
    // yaml_round_trip proptest (tests/integration/yaml_round_trip.rs), found in CI: `.5_` was written plain,
    // as go-yaml v2 would (strconv.ParseFloat refuses a `_` that is not between digits), but our
    // reader dropped the `_` first and read 0.5. A `.`-first scalar is now read as written.
    let values = Value::Map([("k".to_owned(), Value::String(".5_".to_owned()))].into());
    let yaml = to_yaml(&values);
    assert_eq!(yaml, "k: .5_");
    assert_eq!(parse_document(&yaml).unwrap(), values);
    // What go-yaml v2 does read as floats still reads as floats.
    let floats = parse_document("a: .5\nb: .5_5\nc: .5e1_0\n").unwrap();
    assert_eq!(floats.get_path(&["a"]), Some(&Value::Float(0.5)));
    assert_eq!(floats.get_path(&["b"]), Some(&Value::Float(0.55)));
    assert_eq!(floats.get_path(&["c"]), Some(&Value::Float(0.5e10)));
}
