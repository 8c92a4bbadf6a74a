//! `toYaml` and `toJson` of the toyaml corpus values must equal Helm 3.17.1's text byte for byte.
//!
//! The corpus (`tests/reference/helm-corpus/toyaml/`, copied from the shared reference data) holds a
//! values file and the exact strings Helm's `{{ toYaml .Values }}` and `{{ toJson .Values }}`
//! returned for it.

use meshchart::values::Value;
use meshchart::yaml::{parse_document, to_json, to_yaml};
use similar::TextDiff;
use std::path::PathBuf;

/// Where we differ from Helm on purpose: Helm reads every number in a values file as a float64,
/// so integers beyond 2^53 lose precision; we keep integers exact (spec engine.md, "Our
/// decisions"). Each entry is (Helm's text, our text, why).
const EXACT_INTEGERS_YAML: &[(&str, &str, &str)] = &[
    (
        "beyond2pow53: 9007199254740992",
        "beyond2pow53: 9007199254740993",
        "2^53 + 1 has no float64; we keep the integer",
    ),
    (
        "int64Max: 9223372036854776000",
        "int64Max: 9223372036854775807",
        "i64::MAX stays exact instead of rounding to 2^63",
    ),
];

/// The same two integers in the JSON text.
const EXACT_INTEGERS_JSON: &[(&str, &str, &str)] = &[
    (
        "\"beyond2pow53\":9007199254740992",
        "\"beyond2pow53\":9007199254740993",
        "2^53 + 1 has no float64; we keep the integer",
    ),
    (
        "\"int64Max\":9223372036854776000",
        "\"int64Max\":9223372036854775807",
        "i64::MAX stays exact instead of rounding to 2^63",
    ),
];

fn corpus_file(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/reference/helm-corpus/toyaml")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Helm's text with our deliberate differences applied; each must match exactly once.
fn expected_with_deviations(helm: &str, deviations: &[(&str, &str, &str)]) -> String {
    let mut text = helm.to_owned();
    for (helm_text, ours, why) in deviations {
        assert_eq!(
            text.matches(helm_text).count(),
            1,
            "deviation no longer applies ({why}): {helm_text}"
        );
        text = text.replacen(helm_text, ours, 1);
    }
    text
}

fn assert_same_text(expected: &str, actual: &str) {
    if expected != actual {
        let diff = TextDiff::from_lines(expected, actual)
            .unified_diff()
            .header("expected", "actual")
            .to_string();
        panic!("output differs from Helm's:\n{diff}");
    }
}

#[test]
fn to_yaml_of_the_corpus_values_matches_helm() {
    let values = parse_document(&corpus_file("input.yaml")).expect("input.yaml parses");
    let expected = expected_with_deviations(&corpus_file("expected.yaml"), EXACT_INTEGERS_YAML);
    assert_same_text(&expected, &to_yaml(&values));
}

#[test]
fn to_json_of_the_corpus_values_matches_helm() {
    let values = parse_document(&corpus_file("input.yaml")).expect("input.yaml parses");
    let expected = expected_with_deviations(&corpus_file("expected.json"), EXACT_INTEGERS_JSON);
    assert_same_text(&expected, &to_json(&values));
}

/// Integral floats print as integers (`2.0` as `2`), so they read back as integers.
fn integral_floats_as_ints(value: Value) -> Value {
    match value {
        Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Value::Int(f as i64),
        Value::Seq(items) => Value::Seq(items.into_iter().map(integral_floats_as_ints).collect()),
        Value::Map(map) => Value::Map(
            map.into_iter()
                .map(|(k, v)| (k, integral_floats_as_ints(v)))
                .collect(),
        ),
        other => other,
    }
}

#[test]
fn to_yaml_output_reads_back_as_the_same_values() {
    let values = parse_document(&corpus_file("input.yaml")).expect("input.yaml parses");
    let reread = parse_document(&to_yaml(&values)).expect("toYaml output parses");
    assert_eq!(reread, integral_floats_as_ints(values));
}
