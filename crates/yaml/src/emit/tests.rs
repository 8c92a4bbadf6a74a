//! Specifications of `toYaml` output, many taken from Helm 3.17.1's functions corpus.

use super::analysis::{analyze_chars, is_quiet};
use super::*;

fn map(entries: &[(&str, Value)]) -> Value {
    Value::Map(
        entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
}

fn s(text: &str) -> Value {
    Value::from(text)
}

fn seq(items: &[Value]) -> Value {
    Value::Seq(items.to_vec())
}

// Cases from the functions corpus (Helm 3.17.1 template output).

#[test]
fn empty_string_null_and_empty_collections_at_the_root() {
    assert_eq!(to_yaml(&s("")), "\"\"");
    assert_eq!(to_yaml(&Value::Null), "null");
    assert_eq!(to_yaml(&seq(&[])), "[]");
    assert_eq!(to_yaml(&map(&[])), "{}");
}

#[test]
fn root_scalars_are_quoted_only_when_ambiguous() {
    assert_eq!(to_yaml(&Value::Int(5)), "5");
    assert_eq!(to_yaml(&s("yes")), "\"yes\"");
    assert_eq!(to_yaml(&s("5")), "\"5\"");
    assert_eq!(to_yaml(&Value::Bool(true)), "true");
}

#[test]
fn a_list_holding_a_map_puts_the_first_key_after_the_dash() {
    let v = seq(&[s("a"), map(&[("k", s("v"))])]);
    assert_eq!(to_yaml(&v), "- a\n- k: v");
}

#[test]
fn a_root_multiline_string_is_a_literal_block_indented_two() {
    assert_eq!(to_yaml(&s("multi\nline\n")), "|\n  multi\n  line");
}

#[test]
fn nested_maps_indent_two_and_empty_maps_are_braces() {
    let v = map(&[
        ("limits", map(&[("cpu", s("100m")), ("memory", s("128Mi"))])),
        ("requests", map(&[])),
    ]);
    assert_eq!(
        to_yaml(&v),
        "limits:\n  cpu: 100m\n  memory: 128Mi\nrequests: {}"
    );
}

#[test]
fn integral_file_numbers_print_as_integers() {
    let v = map(&[("b", Value::Float(2.0)), ("a", Value::Float(1.0))]);
    assert_eq!(to_yaml(&v), "a: 1\nb: 2");
}

// Block structure.

#[test]
fn lists_are_not_indented_under_their_key() {
    let v = map(&[("key", seq(&[s("a"), s("b")]))]);
    assert_eq!(to_yaml(&v), "key:\n- a\n- b");
    let v = map(&[("outer", map(&[("key", seq(&[s("a")]))]))]);
    assert_eq!(to_yaml(&v), "outer:\n  key:\n  - a");
}

#[test]
fn lists_in_lists_share_the_dash_line() {
    let v = seq(&[seq(&[Value::Int(1), Value::Int(2)]), seq(&[s("a")])]);
    assert_eq!(to_yaml(&v), "- - 1\n  - 2\n- - a");
}

#[test]
fn maps_in_lists_continue_under_the_first_key() {
    let v = seq(&[
        map(&[("name", s("a"))]),
        map(&[("name", s("b")), ("x", Value::Null)]),
    ]);
    assert_eq!(to_yaml(&v), "- name: a\n- name: b\n  x: null");
}

#[test]
fn a_list_under_a_key_inside_a_list_item() {
    let v = seq(&[map(&[("a", seq(&[Value::Int(1), Value::Int(2)]))])]);
    assert_eq!(to_yaml(&v), "- a:\n  - 1\n  - 2");
}

#[test]
fn empty_collections_inside_lists() {
    let v = seq(&[map(&[]), seq(&[])]);
    assert_eq!(to_yaml(&v), "- {}\n- []");
}

#[test]
fn keys_follow_go_yaml_order_not_byte_order() {
    let v = map(&[
        ("a10", Value::Int(1)),
        ("a9", Value::Int(2)),
        ("a_b", Value::Int(3)),
        ("aB", Value::Int(4)),
    ]);
    assert_eq!(to_yaml(&v), "a_b: 3\na9: 2\na10: 1\naB: 4");
}

#[test]
fn keys_are_quoted_like_values() {
    let v = map(&[
        ("", s("x")),
        ("null", s("x")),
        ("on", s("x")),
        ("a: b", s("x")),
        ("key with spaces", s("x")),
    ]);
    assert_eq!(
        to_yaml(&v),
        "\"\": x\n'a: b': x\nkey with spaces: x\n\"null\": x\n\"on\": x"
    );
}

#[test]
fn keys_longer_than_128_bytes_use_the_explicit_form() {
    let long = "k".repeat(129);
    let v = map(&[(long.as_str(), s("v"))]);
    assert_eq!(to_yaml(&v), format!("? {long}\n: v"));
    let just_fits = "k".repeat(128);
    let v = map(&[(just_fits.as_str(), s("v"))]);
    assert_eq!(to_yaml(&v), format!("{just_fits}: v"));
}

#[test]
fn multiline_keys_use_the_explicit_form_with_a_literal_block() {
    let v = map(&[("a\nb", Value::Int(1))]);
    assert_eq!(to_yaml(&v), "? |-\n  a\n  b\n: 1");
}

// Quoting.

#[test]
fn indicators_and_edge_spaces_use_single_quotes() {
    for (text, yaml) in [
        ("*x", "'*x'"),
        ("x ", "'x '"),
        (" x", "' x'"),
        ("- x", "'- x'"),
        ("#x", "'#x'"),
        ("a #x", "'a #x'"),
        ("a: b", "'a: b'"),
        ("a:", "'a:'"),
        ("---", "'---'"),
        ("...", "'...'"),
        ("'it' x", "'''it'' x'"),
    ] {
        assert_eq!(to_yaml(&s(text)), yaml, "{text:?}");
    }
}

#[test]
fn inner_indicators_that_cannot_start_a_token_stay_plain() {
    for text in [
        "a:b",
        "a#b",
        "a, b",
        "=",
        "<<",
        "x-y",
        "it's",
        "say \"hi\"",
        "a\\nb",
        "?x",
        "-x",
    ] {
        assert_eq!(to_yaml(&s(text)), text, "{text:?}");
    }
}

#[test]
fn strings_that_would_read_as_other_types_use_double_quotes() {
    for text in [
        "true",
        "No",
        "y",
        "~",
        "null",
        "0123",
        "1.5",
        "1e3",
        ".5",
        "0x1F",
        "1:20",
        "2030-01-01T00:00:00Z",
        "2024-01-15",
    ] {
        assert_eq!(to_yaml(&s(text)), format!("\"{text}\""), "{text:?}");
    }
    for text in ["1.2.3", "10.0.0.1", "2024-01-15T10:20:30", "v1.0"] {
        assert_eq!(to_yaml(&s(text)), text, "{text:?}");
    }
}

#[test]
fn unprintable_characters_force_double_quotes_with_yaml_escapes() {
    assert_eq!(to_yaml(&s("a\tb")), "\"a\\tb\"");
    assert_eq!(to_yaml(&s("\u{7}")), "\"\\a\"");
    assert_eq!(to_yaml(&s("😀")), "\"\\U0001F600\"");
    assert_eq!(
        to_yaml(&s("\u{1}\u{1b}\u{8}\u{b}\u{c}\0")),
        "\"\\x01\\e\\b\\v\\f\\0\""
    );
    assert_eq!(to_yaml(&s("a\r\nb")), "\"a\\r\\nb\"");
    assert_eq!(to_yaml(&s("q\"\\\t")), "\"q\\\"\\\\\\t\"");
}

#[test]
fn printable_non_ascii_stays_plain() {
    for text in ["café", "日本語", "a\u{a0}b", "a\u{200b}b"] {
        assert_eq!(to_yaml(&s(text)), text, "{text:?}");
    }
}

#[test]
fn a_leading_byte_order_mark_escapes_every_character() {
    assert_eq!(to_yaml(&s("\u{feff}ab")), "\"\\uFEFF\\x61\\x62\"");
}

// Where we differ from Helm on purpose: every string reads back as itself.

#[test]
fn characters_go_yaml_cannot_read_raw_are_escaped_instead_of_printing_nothing() {
    assert_eq!(to_yaml(&map(&[("k", s("\u{7f}"))])), "k: \"\\x7F\"");
    assert_eq!(to_yaml(&map(&[("k", s("a\u{80}"))])), "k: \"a\\x80\"");
    assert_eq!(to_yaml(&map(&[("k", s("\u{fffe}"))])), "k: \"\\uFFFE\"");
    assert_eq!(to_yaml(&map(&[("\u{9f}", s("v"))])), "\"\\x9F\": v");
}

#[test]
fn a_nel_is_escaped_not_folded_like_a_line_break() {
    assert_eq!(to_yaml(&map(&[("k", s("a\u{85}b"))])), "k: \"a\\Nb\"");
    assert_eq!(
        to_yaml(&map(&[("k", s("a\u{85}\u{85}b\n"))])),
        "k: \"a\\N\\Nb\\n\""
    );
    assert_eq!(
        to_yaml(&map(&[("k", s("a\u{85}--- b"))])),
        "k: \"a\\N--- b\""
    );
    // A key holding a line break is not a simple key: go-yaml writes the explicit form.
    assert_eq!(to_yaml(&map(&[("a\u{85}b", s("v"))])), "? \"a\\Nb\"\n: v");
}

#[test]
fn line_and_paragraph_separators_are_escaped_even_beside_newlines() {
    assert_eq!(to_yaml(&map(&[("k", s("a\u{2028}b"))])), "k: \"a\\Lb\"");
    assert_eq!(
        to_yaml(&map(&[("k", s("a\u{2029}b\nc\n"))])),
        "k: \"a\\Pb\\nc\\n\""
    );
}

#[test]
fn a_carriage_return_is_escaped_so_no_reader_turns_it_into_a_newline() {
    assert_eq!(to_yaml(&map(&[("k", s("a\r\nb\n"))])), "k: \"a\\r\\nb\\n\"");
}

#[test]
fn keys_longer_than_a_json_line_allows_are_written_in_explicit_form() {
    let long = "k".repeat(1023);
    assert_eq!(
        to_yaml(&map(&[(long.as_str(), s("v"))])),
        format!("? {long}\n: v")
    );
}

// Multi-line strings.

#[test]
fn literal_blocks_chomp_by_trailing_newlines() {
    assert_eq!(to_yaml(&map(&[("k", s("a\nb\n"))])), "k: |\n  a\n  b");
    assert_eq!(to_yaml(&map(&[("k", s("a\nb"))])), "k: |-\n  a\n  b");
    assert_eq!(to_yaml(&map(&[("k", s("a\nb\n\n"))])), "k: |+\n  a\n  b\n");
    assert_eq!(to_yaml(&map(&[("k", s("\n"))])), "k: |2+\n");
}

#[test]
fn literal_blocks_starting_with_space_or_newline_state_their_indentation() {
    assert_eq!(to_yaml(&map(&[("k", s("  x\ny\n"))])), "k: |2\n    x\n  y");
    assert_eq!(to_yaml(&map(&[("k", s("\nx"))])), "k: |2-\n\n  x");
}

#[test]
fn literal_blocks_leave_empty_lines_empty() {
    assert_eq!(to_yaml(&map(&[("k", s("a\n\nb"))])), "k: |-\n  a\n\n  b");
}

#[test]
fn literal_blocks_in_lists_and_before_other_keys() {
    let v = map(&[
        ("a", seq(&[s("x\ny")])),
        ("b", s("p\nq\n")),
        ("c", Value::Int(1)),
    ]);
    assert_eq!(to_yaml(&v), "a:\n- |-\n  x\n  y\nb: |\n  p\n  q\nc: 1");
}

#[test]
fn multiline_strings_that_cannot_be_blocks_are_double_quoted() {
    // A space before a line break, or a tab anywhere.
    assert_eq!(to_yaml(&s("a  \nb\n")), "\"a  \\nb\\n\"");
    assert_eq!(to_yaml(&s("a\n\tb\n")), "\"a\\n\\tb\\n\"");
    // A space right after a break still allows a block.
    assert_eq!(to_yaml(&s("a\n b")), "|-\n  a\n   b");
}

#[test]
fn long_lines_in_literal_blocks_are_not_folded() {
    let line = "word ".repeat(30);
    let text = format!("{}\n", line.trim_end());
    assert_eq!(to_yaml(&s(&text)), format!("|\n  {}", line.trim_end()));
}

// Folding past column 80.

#[test]
fn long_plain_strings_fold_at_the_first_space_past_column_80() {
    let words = ["word"; 20].join(" ");
    let first = ["word"; 17].join(" ");
    let rest = ["word"; 3].join(" ");
    assert_eq!(to_yaml(&s(&words)), format!("{first}\n  {rest}"));
    let v = map(&[("k", map(&[("k", s(&words))]))]);
    let first = ["word"; 16].join(" ");
    let rest = ["word"; 4].join(" ");
    assert_eq!(to_yaml(&v), format!("k:\n  k: {first}\n    {rest}"));
}

#[test]
fn folding_skips_runs_of_spaces_and_never_breaks_words() {
    let text = format!("{}  {}", "x".repeat(85), "y");
    assert_eq!(to_yaml(&s(&text)), text);
    let text = "z".repeat(200);
    assert_eq!(to_yaml(&s(&text)), text);
}

#[test]
fn keys_never_fold() {
    let key = ["key"; 30].join(" ");
    let v = map(&[(key.as_str(), Value::Int(1))]);
    assert_eq!(to_yaml(&v), format!("{key}: 1"));
}

#[test]
fn single_quoted_strings_fold_too() {
    let text = format!("a: {}", ["word"; 20].join(" "));
    let first = format!("a: {}", ["word"; 16].join(" "));
    let rest = ["word"; 4].join(" ");
    assert_eq!(to_yaml(&s(&text)), format!("'{first}\n  {rest}'"));
}

#[test]
fn double_quoted_strings_fold_and_escape_a_leading_space() {
    let text = format!("\t{}", ["word"; 20].join(" ") + " end");
    let first = ["word"; 16].join(" ");
    let rest = ["word"; 4].join(" ") + " end";
    assert_eq!(
        to_yaml(&map(&[("k", s(&text))])),
        format!("k: \"\\t{first}\n  {rest}\"")
    );
    let text = format!("\t{}  x", ["word"; 16].join(" "));
    assert_eq!(
        to_yaml(&map(&[("k", s(&text))])),
        format!("k: \"\\t{first}\n  \\ x\"")
    );
}

// Numbers and errors.

#[test]
fn floats_print_as_helm_does_after_its_json_round_trip() {
    let v = seq(&[
        Value::Float(1e-7),
        Value::Float(1e20),
        Value::Float(1234567.5),
        Value::Float(-0.0),
        Value::Float(2.5),
        Value::Int(i64::MIN),
    ]);
    assert_eq!(
        to_yaml(&v),
        "- 1e-07\n- 1e+20\n- 1.2345675e+06\n- 0\n- 2.5\n- -9223372036854775808"
    );
}

#[test]
fn nan_or_infinity_anywhere_prints_nothing() {
    let v = map(&[("a", Value::Int(1)), ("b", seq(&[Value::Float(f64::NAN)]))]);
    assert_eq!(to_yaml(&v), "");
    assert_eq!(to_yaml_document(&v), "");
    let err = try_to_yaml(&Value::Float(f64::NEG_INFINITY)).unwrap_err();
    assert_eq!(err.to_string(), "json: unsupported value: -Inf");
}

#[test]
fn the_document_form_keeps_the_final_newline() {
    assert_eq!(to_yaml_document(&map(&[("a", Value::Int(1))])), "a: 1\n");
    assert_eq!(to_yaml_document(&s("a\n\n")), "|+\n  a\n\n");
}

#[test]
fn deep_nesting_is_written_without_trouble() {
    let mut v = s("leaf");
    for _ in 0..200 {
        v = map(&[("k", seq(&[v]))]);
    }
    let text = to_yaml(&v);
    assert!(text.ends_with("- leaf"), "{}", &text[text.len() - 40..]);
    assert_eq!(text.lines().count(), 201);
}

#[test]
fn the_quiet_fast_path_agrees_with_the_character_analysis() {
    let alphabet = [
        "a", "Z", "0", "_", ".", "/", "+", "=", "-", ",", "@", "%", "(", ")", "~",
    ];
    let mut checked = 0;
    for a in alphabet {
        for b in alphabet {
            for c in alphabet {
                let four = format!("{a}{b}{c}{c}");
                for s in [a.to_owned(), format!("{a}{b}"), format!("{a}{b}{c}"), four] {
                    if is_quiet(&s) {
                        assert_eq!(analyze(&s), analyze_chars(&s), "{s:?}");
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 1000, "{checked}");
    for s in [
        "linkerd-proxy",
        "cr.l5d.io/linkerd/proxy",
        "10.0.0.0/8,100.64.0.0/10",
        "4191",
    ] {
        assert!(is_quiet(s), "{s}");
        assert_eq!(analyze(s), analyze_chars(s), "{s:?}");
    }
}

#[test]
fn a_long_string_is_analyzed_the_same_the_second_time() {
    let pem = format!(
        "-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n",
        "A".repeat(300)
    );
    let first = analyze(&pem);
    assert_eq!(first, analyze_chars(&pem));
    assert_eq!(analyze(&pem), first);
}

#[test]
fn yaml_past_the_callers_limit_is_an_error_before_it_is_built() {
    let mut deep = Value::Int(1);
    // 200 levels indent their last lines 400 columns: about 40 KB in all.
    for _ in 0..200 {
        deep = map(&[("a", deep)]);
    }
    let err = try_to_yaml_within(&deep, 10_000).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the YAML would be longer than the limit of 10000 bytes"
    );
    assert!(try_to_yaml_within(&deep, 100_000).is_ok());
}

#[test]
fn ascii_literal_bodies_are_written_as_character_by_character() {
    let bodies = [
        "a\nb\n",
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
        "\n\nx\n\n",
        "  leading\n  spaces\n",
        "cr\r\nlf\rmixed\n",
        "\r",
        "no break at the end",
        "tab\there\n",
    ];
    for body in bodies {
        for indent in [-1, 0, 4] {
            let fresh = || Emitter {
                limit: usize::MAX,
                out: String::from("key: |\n"),
                column: 0,
                indent,
                whitespace: true,
                indention: true,
                best_width: super::BEST_WIDTH,
                indent_sequences: false,
            };
            let (mut by_runs, mut by_chars) = (fresh(), fresh());
            by_runs.write_ascii_literal_lines(body);
            by_chars.write_literal_chars(body);
            assert_eq!(by_runs.out, by_chars.out, "{body:?} at indent {indent}");
            assert_eq!(
                (by_runs.column, by_runs.indention, by_runs.whitespace),
                (by_chars.column, by_chars.indention, by_chars.whitespace),
                "{body:?} at indent {indent}"
            );
        }
    }
}

#[test]
fn the_quiet_byte_table_lets_stand_letters_digits_and_its_marks_only() {
    // Every byte after the first: quiet when a letter, a digit or one of `_./+=-,@%()~:`.
    for byte in 0..=255u8 {
        let rule = byte.is_ascii_alphanumeric() || b"_./+=-,@%()~:".contains(&byte);
        // Beyond ASCII the character is two bytes of UTF-8, neither of them quiet.
        let text = format!("a{}b", char::from(byte));
        assert_eq!(is_quiet(&text), rule, "{byte:#04x}");
    }
}

/// `value`'s text written entry by entry: each entry as a map of its own, in written order.
fn written_entry_by_entry(value: &Map) -> String {
    let keys: Vec<&str> = value.keys().map(String::as_str).collect();
    in_written_order(&keys)
        .into_iter()
        .map(|place| to_yaml(&map(&[(keys[place], value[keys[place]].clone())])))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_maps_text_is_its_entries_texts_each_written_alone() {
    // Every map of the golden renders (the charts' values and manifests) and odd keys and values:
    // keys go-yaml orders apart from byte order, keys and strings needing quotes, long text that
    // folds, literal blocks, empty collections.
    let golden = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden");
    let mut maps = Vec::new();
    let mut dirs = vec![golden];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).expect("golden folder") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml") {
                let text = std::fs::read_to_string(&path).expect("golden file");
                for document in text.split("\n---") {
                    if let Ok(Value::Map(m)) = crate::load::parse_document(document) {
                        maps.push(m);
                    }
                }
            }
        }
    }
    let long = "word ".repeat(40);
    let odd = map(&[
        ("a10", s("x")),
        ("a9", s("y")),
        ("a_b", Value::Int(1)),
        ("aB", Value::Bool(true)),
        ("", s("")),
        ("yes", s("no")),
        ("- dash", s("key: value")),
        ("multi\nline key", s("line one\nline two\n")),
        ("folded", s(&long)),
        ("empty", map(&[])),
        ("none", seq(&[])),
        (
            "nested",
            map(&[("list", seq(&[s("a"), map(&[("k", s(&long))])]))]),
        ),
        ("009100", Value::Null),
        ("0a9~", Value::Null),
        ("9b~", Value::Null),
    ]);
    let Value::Map(odd) = odd else { unreachable!() };
    maps.push(odd);
    assert!(maps.len() > 100, "only {} maps", maps.len());
    for m in &maps {
        assert_eq!(to_yaml(&Value::Map(m.clone())), written_entry_by_entry(m));
    }
}
