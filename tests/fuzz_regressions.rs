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
