//! Unit tests for the YAML loader and scalar resolution, kept apart so the loader reads on its own.

use super::*;

#[test]
fn yaml_1_1_booleans_resolve_in_plain_scalars_only() {
    let v = parse_document("a: yes\nb: 'yes'\nc: Off\n").unwrap();
    assert_eq!(v.get_path(&["a"]), Some(&Value::Bool(true)));
    assert_eq!(v.get_path(&["b"]), Some(&Value::String("yes".into())));
    assert_eq!(v.get_path(&["c"]), Some(&Value::Bool(false)));
}

#[test]
fn integers_stay_exact_and_octal_follows_go() {
    let v = parse_document("a: 1234567\nb: 0755\nc: 0x1F\nd: 1_000\ne: 08\nf: 1e3\ng: \"0755\"\n")
        .unwrap();
    assert_eq!(v.get_path(&["a"]), Some(&Value::Int(1234567)));
    assert_eq!(v.get_path(&["b"]), Some(&Value::Int(493)));
    assert_eq!(v.get_path(&["c"]), Some(&Value::Int(31)));
    assert_eq!(v.get_path(&["d"]), Some(&Value::Int(1000)));
    assert_eq!(v.get_path(&["e"]), Some(&Value::Float(8.0)));
    assert_eq!(v.get_path(&["f"]), Some(&Value::Float(1000.0)));
    assert_eq!(v.get_path(&["g"]), Some(&Value::String("0755".into())));
}

#[test]
fn an_overflowing_float_literal_stays_a_string() {
    let v = parse_document("a: 1e400\n").unwrap();
    assert_eq!(v.get_path(&["a"]), Some(&Value::String("1e400".into())));
}

#[test]
fn keys_that_look_like_booleans_become_their_json_string() {
    let v = parse_document("y: 1\nOff: 2\n").unwrap();
    assert!(v.get_path(&["true"]).is_some());
    assert!(v.get_path(&["false"]).is_some());
}

#[test]
fn null_keys_are_rejected_like_helm() {
    for text in ["m:\n  ~: x\n", "null: x\n"] {
        let e = parse_document(text).unwrap_err();
        assert!(e.message.contains("cannot be null"), "{e}");
    }
    let v = parse_document("\"null\": x\n").unwrap();
    assert!(v.get_path(&["null"]).is_some());
}

#[test]
fn merge_keys_fill_in_without_overriding() {
    let v = parse_document("base: &b {x: 1, z: 2}\nchild:\n  <<: *b\n  z: 3\n").unwrap();
    assert_eq!(v.get_path(&["child", "x"]), Some(&Value::Int(1)));
    assert_eq!(v.get_path(&["child", "z"]), Some(&Value::Int(3)));
}

#[test]
fn alias_bomb_is_rejected_quickly() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let p = i - 1;
        text.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    let e = parse_document(&text).unwrap_err();
    assert!(e.message.contains("alias bomb"), "{e}");
}

/// The stack meshchart's rendering threads have (`meshchart_helm::parallel::STACK_BYTES`).
const WORKER_STACK_BYTES: usize = 64 << 20;

/// Runs `test` on a thread with the stack the CLI's threads have: deep values are walked
/// and dropped recursively.
fn on_a_worker_stack(test: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(WORKER_STACK_BYTES)
        .spawn(test)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn flow_nesting_is_read_to_the_limit_and_refused_past_it() {
    let nested = |depth: usize| format!("{}x{}", "[".repeat(depth), "]".repeat(depth));
    on_a_worker_stack(move || {
        let read = parse_document(&nested(MAX_DEPTH - 1)).expect("reads");
        let mut depth = 0;
        let mut node = &read;
        while let Value::Seq(items) = node {
            depth += 1;
            node = &items[0];
        }
        assert_eq!((depth, node), (MAX_DEPTH - 1, &Value::String("x".into())));
        let e = parse_document(&nested(MAX_DEPTH + 1)).unwrap_err();
        assert!(
            e.message.contains("nesting deeper than 10000 levels"),
            "{e}"
        );
    });
}

#[test]
fn flow_text_reads_the_same_past_255_levels_as_below() {
    // Past 255 levels the events come from libyaml: every shape of flow text must read
    // as it does from yaml-rust2 a few levels down.
    let samples = [
        "{a: 1, b: [2, 3.5, -0x1F], c: ~, d: yes, e: 'it''s', f: \"\\t\\u00e9\"}",
        "[&x {k: v}, *x, !!str 12, !!int \"7\", !!float 1, !!binary aGk=, !local t]",
        "{k: multi line\n  plain folded\n  here, ? explicit : key, empty: , \"json\": 1}",
        "[a: b, c, {<<: {m: 1, n: 2}, n: 3}, '', \"\", [], {}]",
        "[1e3, 0o17, 017, 1_000, +12, 2001-12-14, null, Null, ~]",
        "{ # a comment\n x: 1, # another\n y: [2] }",
    ];
    let unwrap = |mut value: Value, levels: usize| {
        for _ in 0..levels {
            let Value::Seq(mut items) = value else {
                panic!("not a list")
            };
            assert_eq!(items.len(), 1);
            value = items.remove(0);
        }
        value
    };
    for sample in samples {
        let at = |levels: usize| {
            let text = format!("{}{sample}{}", "[".repeat(levels), "]".repeat(levels));
            unwrap(parse_document(&text).expect(sample), levels)
        };
        assert_eq!(at(300), at(3), "{sample}");
    }
}

/// Flow text built from pieces that stress the readers: scalars in every style, tags,
/// keys with and without values, nested collections.
fn flow_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let scalar = proptest::sample::select(vec![
        "1",
        "-2",
        "0x1A",
        "017",
        "1e3",
        "3.25",
        "yes",
        "off",
        "~",
        "null",
        "''",
        "'a''b'",
        "\"\"",
        "\"t\\tu\\u00e9\"",
        "plain words",
        "a-b_c",
        "!!str 5",
        "!!int '6'",
        "!t x",
        "2001-12-14",
        "'#not'",
        "\"line\\nbreak\"",
    ]);
    let leaf = scalar.prop_map(str::to_owned);
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4)
                .prop_map(|items| format!("[{}]", items.join(", "))),
            proptest::collection::vec(inner, 0..4).prop_map(|values| {
                let entries: Vec<String> = values
                    .iter()
                    .enumerate()
                    .map(|(i, v)| format!("k{i}: {v}"))
                    .collect();
                format!("{{{}}}", entries.join(",\n "))
            }),
        ]
    })
}

proptest::proptest! {
    #[test]
    fn any_flow_text_reads_the_same_past_255_levels_as_below(text in flow_text()) {
        let at = |levels: usize| {
            let wrapped = format!("{}{text}{}", "[".repeat(levels), "]".repeat(levels));
            let mut value = parse_document(&wrapped);
            for _ in 0..levels {
                value = value.map(|v| match v {
                    Value::Seq(mut items) if items.len() == 1 => items.remove(0),
                    other => other,
                });
            }
            value.map_err(|e| e.message)
        };
        proptest::prop_assert_eq!(at(300), at(2));
    }
}

#[test]
fn block_nesting_is_read_to_the_limit_and_refused_past_it() {
    // Deep values are walked recursively: on a stack like the CLI's threads'.
    let nested = |depth: usize| -> String {
        (0..depth)
            .map(|i| format!("{}- \n", "  ".repeat(i)))
            .collect::<String>()
            + &"  ".repeat(depth)
            + "x\n"
    };
    on_a_worker_stack(move || {
        assert!(parse_document(&nested(MAX_DEPTH - 1)).is_ok());
        let e = parse_document(&nested(MAX_DEPTH + 1)).unwrap_err();
        assert!(
            e.message.contains("nesting deeper than 10000 levels"),
            "{e}"
        );
    });
}

#[test]
fn a_repeated_key_names_both_lines_and_the_map_it_is_in() {
    let text = "a: 1\nouter:\n  b: 1\n  list:\n  - {c: 1, d: 2}\n  - c: 1\n    e: 2\n    c: 3\n";
    let error = parse_values_document(text).unwrap_err();
    assert_eq!(
        error.message,
        "the key \"c\" is given twice in one map: on line 6 and on line 8"
    );
    assert_eq!(error.position.line, 8);
    let repeated = first_duplicate_key_in(text).unwrap();
    assert_eq!(
        (repeated.map_path, repeated.first_line, repeated.second_line),
        (
            vec!["outer".to_owned(), "list".to_owned(), "[]".to_owned()],
            6,
            8
        )
    );
}

#[test]
fn a_merge_key_never_counts_as_a_repeat_of_a_quoted_one() {
    for text in [
        "<<: 1\n\"<<\": 2\n",
        "\"<<\": 1\n<<: 2\n",
        "base: &b {x: 1}\nm:\n  <<: *b\n  <<: *b\n",
    ] {
        assert!(parse_values_document(text).is_ok(), "{text}");
    }
    let error = parse_values_document("\"<<\": 1\n<<: 2\n'<<': 3\n").unwrap_err();
    assert_eq!(
        error.message,
        "the key \"<<\" is given twice in one map: on line 1 and on line 3"
    );
}

#[test]
fn syntax_errors_carry_line_and_column() {
    let e = parse_document("a: 1\nb: [unclosed\n").unwrap_err();
    assert!(e.position.line >= 2, "{e}");
}

#[test]
fn positions_name_each_leaf() {
    let (_, pos) = parse_document_with_positions("a:\n  b: 1\nl:\n  - x\n  - y\n").unwrap();
    let find = |p: &[&str]| pos.iter().find(|(k, _)| k == p).map(|(_, at)| at.line);
    assert_eq!(find(&["a", "b"]), Some(2));
    assert_eq!(find(&["l", "0"]), Some(4));
    assert_eq!(find(&["l", "1"]), Some(5));
}

#[test]
fn a_text_with_every_key_once_reads_in_one_pass_as_parse_document_reads_it() {
    let text =
        "a: 1\nb:\n  c: [x, y]\n  d: &anchor {e: f}\ng: *anchor\nh:\n  <<: *anchor\n  i: j\n";
    assert_eq!(
        parse_document_if_keys_unique(text),
        Some(parse_document(text).expect("valid"))
    );
    assert_eq!(parse_document_if_keys_unique(""), Some(Value::Null));
}

#[test]
fn a_repeated_key_or_an_error_is_left_to_the_slower_readings() {
    assert_eq!(parse_document_if_keys_unique("a: 1\nb: 2\na: 3\n"), None);
    assert_eq!(parse_document_if_keys_unique("a: [1\n"), None);
}

/// The duplicate-key check with every value kept, as it was before keys-only loading.
fn duplicate_with_values_kept(text: &str) -> (Option<DuplicateKey>, Option<String>) {
    let mut loader = Loader::new(text, false);
    loader.unique_keys = true;
    let outcome = loader.read();
    (loader.duplicate, outcome.err().map(|e| e.to_string()))
}

fn duplicate_keys_only(text: &str) -> (Option<DuplicateKey>, Option<String>) {
    let mut loader = Loader::new(text, false);
    loader.unique_keys = true;
    loader.keys_only = true;
    let outcome = loader.read();
    (loader.duplicate, outcome.err().map(|e| e.to_string()))
}

#[test]
fn checking_keys_only_finds_what_keeping_every_value_finds() {
    let texts = [
        // A repeat deep in a document, after large siblings.
        "a:\n  b:\n    c: 1\n    d: [1, 2, {e: 3}]\n  f:\n    g: 1\n    g: 2\n",
        // Merge keys take in anchored maps, alone and in a list, inline or by alias.
        "base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  x: 3\n",
        "one: &o {x: 1}\ntwo: &t {y: 2}\nm:\n  <<: [*o, *t]\n  z: 1\n  z: 2\n",
        "m:\n  <<: [{p: 1}, {q: 2}]\n  p: 3\n",
        "m:\n  <<: {p: 1, p: 2}\n",
        // A merge of something that is no map is an error of its own, not a repeat.
        "s: &s [1, 2]\nm:\n  <<: *s\n",
        "v: &v 1\nm:\n  <<: *v\n",
        // Anchored values reused as values and inside lists after being dropped from their map.
        "a: &a {k: [1, 2]}\nb: *a\nc: [*a, *a]\nd: {k: 1, k: 1}\n",
        "- &x {a: 1}\n- *x\n- {a: 1, b: 2, a: 3}\n",
        // Quoted merge-like keys, repeats across documents and in flow maps.
        "m:\n  '<<': 1\n  <<: {a: 1}\n  '<<': 2\n",
        "a: 1\n---\na: 1\na: 2\n",
        "{a: 1, b: {c: 1, c: 2}}\n",
        "plain: 1\n",
    ];
    for text in texts {
        assert_eq!(
            duplicate_keys_only(text),
            duplicate_with_values_kept(text),
            "{text}"
        );
    }
}

#[test]
fn checking_keys_only_keeps_no_values_of_the_document() {
    let mut loader = Loader::new("a:\n  b: [1, 2]\n  c: {d: text}\n", false);
    loader.unique_keys = true;
    loader.keys_only = true;
    loader.read().unwrap();
    let map = |pairs: &[(&str, Value)]| {
        Value::Map(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    };
    assert_eq!(loader.docs, vec![map(&[("a", Value::Null)])]);
}
