//! Our YAML writer round-trips: every value it writes reads back as the same data
//! (`load(emit(v)) == v`), for arbitrary Unicode strings and keys and nested values.

use crate::support::yaml_round_trip as round_trip;

use meshchart::values::{Map, Value};
use meshchart::yaml::{parse_document, to_yaml};
use proptest::prelude::*;
use round_trip::{same_data, write_and_read};

/// Characters YAML treats specially somewhere: line breaks of every kind, controls, quotes,
/// indicators, byte order marks and non-characters.
const SPECIAL: &[char] = &[
    '\u{85}', '\u{2028}', '\u{2029}', '\r', '\n', '\t', ' ', '\0', '\u{1b}', '\u{7f}', '\u{80}',
    '\u{9f}', '\u{a0}', '\u{feff}', '\u{fffe}', '\u{ffff}', '"', '\'', '\\', '#', ':', '-', '?',
    '{', '}', '[', ']', ',', '&', '*', '!', '|', '>', '%', '@', '`', '.', '~', '<', '=',
];

/// Whole scalars that read as something other than a string when written plain.
const WORDS: &[&str] = &[
    "yes", "No", "on", "OFF", "y", "null", "~", "true", "1", "-1", "0755", "0x1F", "1e3", "1_000",
    ".5", "+1", ".inf", "-.Inf", ".nan", "<<", "---", "...", "- ", ": ", " #", "=", "08", "1e400",
];

/// A lowercase word (cheaper to generate than a regex strategy, which counts in debug builds).
fn word(chars: &'static str) -> impl Strategy<Value = String> {
    let chars: Vec<char> = chars.chars().collect();
    prop::collection::vec(proptest::sample::select(chars), 1..9).prop_map(String::from_iter)
}

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => any::<char>().prop_map(String::from),
        3 => proptest::sample::select(SPECIAL).prop_map(String::from),
        2 => word("abcdefghijklmnopqrstuvwxyz0123456789"),
        1 => proptest::sample::select(WORDS).prop_map(String::from),
    ]
}

/// Arbitrary Unicode text biased towards what YAML makes hard; sometimes long enough to fold.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => prop::collection::vec(piece(), 0..8).prop_map(|p| p.concat()),
        2 => prop::collection::vec(prop_oneof![word("abcdefghijklmnopqrstuvwxyz"), piece()], 0..30)
            .prop_map(|p| p.join(" ")),
        1 => proptest::sample::select(WORDS).prop_map(String::from),
    ]
}

/// Keys: like values, and now and then longer than a one-line JSON key can be (1022).
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        20 => text(),
        1 => (1000usize..1100, piece()).prop_map(|(n, p)| format!("{}{p}", "k".repeat(n))),
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        2 => any::<i64>().prop_map(Value::Int),
        2 => any::<f64>()
            .prop_filter("YAML has no NaN or infinity", |f| f.is_finite())
            .prop_map(Value::Float),
        8 => text().prop_map(Value::String),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    // Built once: prop_recursive calls its closure for every case it generates.
    let keys = key().boxed();
    leaf().prop_recursive(4, 32, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Seq),
            prop::collection::vec((keys.clone(), inner), 0..6)
                .prop_map(|entries| Value::Map(entries.into_iter().collect::<Map>())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    #[test]
    fn every_value_the_writer_prints_reads_back_as_the_same_data(v in value()) {
        let (yaml, back) = write_and_read(&v).expect("finite values can be written");
        let back = back.map_err(|e| TestCaseError::fail(format!("{e}\n{yaml}")))?;
        prop_assert!(same_data(&back, &v), "read back {:?}\nfrom:\n{}", back, yaml);
    }
}

fn reread(v: &Value) -> Value {
    parse_document(&to_yaml(v)).expect("our YAML reads back")
}

fn env_value(text: &str) -> Value {
    let mut env = Map::new();
    env.insert("name".into(), Value::from("A"));
    env.insert("value".into(), Value::from(text));
    Value::Map(env)
}

#[test]
fn a_nel_in_an_env_value_survives_writing_and_reading() {
    let v = env_value("a\u{85}b");
    assert_eq!(reread(&v), v);
}

#[test]
fn line_and_paragraph_separators_survive_repeated_round_trips() {
    let v = env_value("line one\u{2028}line two\u{2029}\nthird\n");
    let mut current = v.clone();
    for _ in 0..3 {
        current = reread(&current);
    }
    assert_eq!(current, v);
}
