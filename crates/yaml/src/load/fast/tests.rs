//! The fast path against the full reader: wherever it answers, it gives the values the full
//! reader gives, on examples of every construct, on every YAML file of the repository's tests,
//! and on generated documents (seeded, so a failure repeats).

use crate::load::readers::{fast, full};
use crate::value::{Map, Value};

/// Checks both readers agree on `text` under both rule sets; says whether the fast path
/// answered (for the manifest rules).
fn agrees(text: &str) -> bool {
    let mut answered = false;
    for manifest in [false, true] {
        if let Some(quick) = fast(text, manifest) {
            let slow = full(text, manifest).unwrap_or_else(|e| {
                panic!("the fast path read text the full reader refuses ({e}):\n{text}")
            });
            assert_eq!(quick, slow, "manifest rules: {manifest}; text:\n{text}");
            answered = manifest;
        }
    }
    answered
}

/// The one document the fast path reads from `text` under the manifest rules.
fn read(text: &str) -> Value {
    assert!(agrees(text), "the fast path declined:\n{text}");
    fast(text, true)
        .and_then(|docs| docs.into_iter().next())
        .expect("one document")
}

fn map(entries: &[(&str, Value)]) -> Value {
    Value::Map(
        entries
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect::<Map>(),
    )
}

fn s(text: &str) -> Value {
    Value::String(text.to_owned())
}

#[test]
fn plain_scalars_resolve_as_yaml_1_1_and_big_integers_stay_as_written_in_manifests() {
    let doc = read("a: yes\nb: 0x10\nc: 1.5\nd: ~\ne: 12345678901234567890\nf: x #c\ng: '1'\n");
    assert_eq!(
        doc,
        map(&[
            ("a", Value::Bool(true)),
            ("b", Value::Int(16)),
            ("c", Value::Float(1.5)),
            ("d", Value::Null),
            ("e", Value::Number("12345678901234567890".into())),
            ("f", s("x")),
            ("g", s("1")),
        ])
    );
}

#[test]
fn keys_resolve_as_the_full_reader_resolves_them() {
    assert_eq!(
        read("yes: 1\n0x10: 2\n1.0: 3\n"),
        map(&[
            ("true", Value::Int(1)),
            ("16", Value::Int(2)),
            ("1", Value::Int(3)),
        ])
    );
}

#[test]
fn lists_nest_under_keys_at_the_keys_indent_or_deeper() {
    let text = "a:\n- x\n- k: 1\n  l:\n  - 2\n-\nb:\n    - []\n    - {}\nc:\n";
    assert_eq!(
        read(text),
        map(&[
            (
                "a",
                Value::Seq(vec![
                    s("x"),
                    map(&[("k", Value::Int(1)), ("l", Value::Seq(vec![Value::Int(2)]))]),
                    Value::Null,
                ])
            ),
            (
                "b",
                Value::Seq(vec![Value::Seq(vec![]), Value::Map(Map::new())])
            ),
            ("c", Value::Null),
        ])
    );
}

#[test]
fn quoted_scalars_decode_their_escapes() {
    assert_eq!(
        read("a: 'it''s'  # why\nb: \"tab\\there \\u00e9\\x41 \\\"q\\\"\"\nc: \"\"\n"),
        map(&[
            ("a", s("it's")),
            ("b", s("tab\there éA \"q\"")),
            ("c", s(""))
        ])
    );
}

#[test]
fn block_scalars_keep_or_fold_their_lines_as_chomping_says() {
    let text = "l: |\n  one\n\n  two\nk: |+\n  x\n\nf: >-\n  a\n  b\n\n  c\ns: |-\n  end\n";
    assert_eq!(
        read(text),
        map(&[
            ("l", s("one\n\ntwo\n")),
            ("k", s("x\n\n")),
            ("f", s("a b\nc")),
            ("s", s("end")),
        ])
    );
}

#[test]
fn a_key_given_twice_is_left_to_the_full_reader_in_a_manifest_and_the_last_wins_elsewhere() {
    let text = "a: 1\nb: 2\na: 3\n";
    assert_eq!(fast(text, true), None);
    assert_eq!(
        fast(text, false),
        Some(vec![map(&[("a", Value::Int(3)), ("b", Value::Int(2))])])
    );
    // `yes` and `true` are the same key.
    assert_eq!(fast("yes: 1\ntrue: 2\n", true), None);
}

#[test]
fn what_the_fast_path_is_unsure_of_goes_to_the_full_reader() {
    for text in [
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
        "a: [1, [2]]\n",
        "a: [a b]\n",
        "a: [x: 1]\n",
        "a: [1, ]\n",
        "a: [-]\n",
        "a: [\"a\\\"b\"]\n",
        "a: {b: 1}\n",
        "<<: {a: 1}\n",
        "a: foo\n  bar\n",
        "a: \"foo\n  bar\"\n",
        "? a\n: b\n",
        "\"a\": 1\n",
        "a:\tb\n",
        "a: 1\n---\nb: 2\n",
        "%YAML 1.1\n---\na: 1\n",
        "a: |2\n   x\n",
        "a: >\n  x\n    more\n",
        "a: |\n  x",
        "a: \"\\ud800\"\n",
        "a: .nan\n",
        "just a scalar\n",
        "# only a comment\n",
        "",
    ] {
        assert_eq!(fast(text, true), None, "{text:?}");
        agrees(text);
    }
}

#[test]
fn one_line_flow_lists_of_words_and_quoted_items_read_as_the_full_reader_reads_them() {
    // As workloads write a container's arguments.
    let doc = read(
        "args: [\"--store=1\", '--cache=2', --alpha=3, 8080, true, .5, 0x10]\nports: [ a ,b ]\n\
         list:\n- [x, 'y']\n",
    );
    assert_eq!(
        doc,
        map(&[
            (
                "args",
                Value::Seq(vec![
                    s("--store=1"),
                    s("--cache=2"),
                    s("--alpha=3"),
                    Value::Int(8080),
                    Value::Bool(true),
                    Value::Float(0.5),
                    Value::Int(16),
                ])
            ),
            ("ports", Value::Seq(vec![s("a"), s("b")])),
            ("list", Value::Seq(vec![Value::Seq(vec![s("x"), s("y")])])),
        ])
    );
}

/// Every YAML file under the repository's `tests/`, whole and cut at its `---` lines.
#[test]
fn every_yaml_file_of_the_tests_reads_the_same_by_both_readers() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests");
    let mut files = Vec::new();
    collect_yaml(&root, &mut files);
    assert!(
        files.len() > 100,
        "found {} files under {root:?}",
        files.len()
    );
    let (mut documents, mut answered) = (0, 0);
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        agrees(&text);
        for document in documents_of(&text) {
            documents += 1;
            answered += usize::from(agrees(document));
        }
    }
    // Most of these are rendered manifests, the fast path's ground.
    eprintln!("files: answered {answered} of {documents}");
    assert!(
        answered * 2 > documents,
        "answered {answered} of {documents}"
    );
}

fn collect_yaml(dir: &std::path::Path, files: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_yaml(&path, files);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            files.push(path);
        }
    }
}

/// The parts of a stream between its `---` lines.
fn documents_of(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with("---") {
            parts.push(&text[start..at]);
            start = at + line.len();
        }
        at += line.len();
    }
    parts.push(&text[start..]);
    parts
}

/// A small seeded generator (xorshift): the same documents on every run.
struct Random(u64);

impl Random {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
}

/// Keys the fast path reads, and (`ODD_KEYS`) keys it leaves to the full reader.
const KEYS: &[&str] = &[
    "a", "b", "name", "image", "yes", "on", "n", "1", "0x10", "1.0", "1e3", "a.b/c-d", "_x",
];
const ODD_KEYS: &[&str] = &["null", "\"q\"", "'q'", "<<", "? x", "a b", "x:y", "é"];

/// Scalars the fast path reads, and (`ODD_SCALARS`) ones it mostly leaves to the full reader.
const SCALARS: &[&str] = &[
    "foo",
    "yes",
    "No",
    "on",
    "~",
    "null",
    "true",
    "1",
    "-1",
    "+1",
    "0x1F",
    "0o17",
    "017",
    "0b101",
    "1_000",
    "1.5",
    ".5",
    "1e3",
    "1e400",
    "12345678901234567890",
    "-12345678901234567890",
    "0.",
    "-x",
    ":x",
    "a:b",
    "a #b",
    "a#b",
    "x  ",
    "http://x.y/z",
    "a b c",
    "2001-12-14",
    "<<",
    "=",
    "a,b",
    "a]",
    "é",
    "'it''s'",
    "''",
    "\"\"",
    "\"a\\tb\"",
    "\"\\u00e9\\x41\\U0001F600\"",
    "\"a\\\"b\\\\\"",
    "\"\\0\\a\\b\\v\\f\\r\\e\\ \\/\\N\\_\\L\\P\"",
    "{}",
    "[]",
    "[\"--store=1\", '--cache=2', --alpha=3]",
    "[8080, true, .5, 0x10, 012, ~]",
    "# c",
    "9223372036854775808",
    "-9223372036854775809",
    "0x",
    "1__0",
    "+.5",
    "._",
    "1:2",
    "0:30",
    "'a' # c",
    "\"a\" # c",
    "'a''' #c",
    "\"a\\\"\"  # c",
    "8080",
    "0",
    "00",
    "123456789012345678",
    "1234567890123456789",
    "007",
];
const ODD_SCALARS: &[&str] = &[
    "-",
    "a: b",
    ".nan",
    ".inf",
    "\"\\ud800\"",
    "\"a\\qb\"",
    "'a'#c",
    "\"a\"#c",
    "'a' b",
    "\"a\" \"b\"",
    "\"a\\\"",
    "[a, b]",
    "[a, , b]",
    "[a, b,]",
    "[-]",
    "[a:b]",
    "['a''b']",
    "[\"a\\tb\"]",
    "[--x=1, +1, =, _y, /z]",
    "{a: 1}",
    "&a x",
    "*a",
    "!!str 1",
    "?",
    "'a",
    "\"a",
];

/// Mostly one of `usual`, now and then one of `odd`.
fn pick_mostly<'a>(r: &mut Random, usual: &[&'a str], odd: &[&'a str]) -> &'a str {
    if r.below(16) == 0 {
        r.pick(odd)
    } else {
        r.pick(usual)
    }
}

const BLOCK_HEADERS: &[&str] = &["|", "|-", "|+", ">", ">-", ">+", "|  ", "|-  "];
const ODD_BLOCK_HEADERS: &[&str] = &["|2", "> # c", ">2-"];

const BLOCK_LINES: &[&str] = &[
    "text",
    "more text  ",
    "# not a comment",
    "",
    "",
    "- x",
    "a: b",
];
const ODD_BLOCK_LINES: &[&str] = &["  ", " indented", "      "];

/// Writes a random map at `indent` (`first_prefix` replaces the first line's indentation, for
/// a map that starts after a list's dash).
fn gen_map(
    r: &mut Random,
    out: &mut String,
    indent: usize,
    depth: usize,
    first_prefix: Option<&str>,
) {
    let entries = 1 + r.below(4);
    for i in 0..entries {
        if r.below(8) == 0 {
            out.push_str(&" ".repeat(r.below(indent + 3)));
            out.push_str(if r.below(2) == 0 { "# comment\n" } else { "\n" });
        }
        match (i, first_prefix) {
            (0, Some(prefix)) => out.push_str(prefix),
            _ => out.push_str(&" ".repeat(indent)),
        }
        out.push_str(pick_mostly(r, KEYS, ODD_KEYS));
        out.push(':');
        gen_value(r, out, indent, depth);
    }
}

/// Writes what follows a key's colon: a scalar, a block scalar or a nested collection.
fn gen_value(r: &mut Random, out: &mut String, indent: usize, depth: usize) {
    match r.below(if depth > 4 { 3 } else { 6 }) {
        0 | 1 => {
            out.push(' ');
            out.push_str(pick_mostly(r, SCALARS, ODD_SCALARS));
            out.push('\n');
        }
        2 => gen_block(r, out, indent),
        3 => {
            out.push('\n');
            let at = indent + 1 + r.below(4);
            gen_map(r, out, at, depth + 1, None);
        }
        4 => {
            out.push('\n');
            let at = indent + if r.below(2) == 0 { 0 } else { 2 };
            gen_seq(r, out, at, depth + 1);
        }
        _ => out.push_str(if r.below(2) == 0 {
            "\n"
        } else {
            " # nothing\n"
        }),
    }
}

fn gen_block(r: &mut Random, out: &mut String, indent: usize) {
    out.push(' ');
    out.push_str(pick_mostly(r, BLOCK_HEADERS, ODD_BLOCK_HEADERS));
    out.push('\n');
    let width = indent + 1 + r.below(3);
    for _ in 0..r.below(5) {
        let line = pick_mostly(r, BLOCK_LINES, ODD_BLOCK_LINES);
        if !line.is_empty() {
            out.push_str(&" ".repeat(width));
        }
        out.push_str(line);
        out.push('\n');
    }
}

fn gen_seq(r: &mut Random, out: &mut String, indent: usize, depth: usize) {
    for _ in 0..1 + r.below(4) {
        let dash = format!("{}- ", " ".repeat(indent));
        match r.below(if depth > 4 { 2 } else { 5 }) {
            0 | 1 => {
                out.push_str(&dash);
                out.push_str(pick_mostly(r, SCALARS, ODD_SCALARS));
                out.push('\n');
            }
            2 => gen_map(r, out, indent + 2, depth + 1, Some(&dash)),
            3 => {
                out.push_str(&" ".repeat(indent));
                out.push_str("-\n");
                let at = indent + 2 + r.below(2);
                gen_map(r, out, at, depth + 1, None);
            }
            _ => {
                out.push_str(&" ".repeat(indent));
                out.push_str("-\n");
                let at = indent + r.below(3);
                gen_seq(r, out, at, depth + 1);
            }
        }
    }
}

/// A random small edit: characters YAML treats specially, inserted, or a character removed.
fn mutate(r: &mut Random, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..1 + r.below(3) {
        let at = r.below(chars.len() + 1);
        if r.below(3) == 0 && at < chars.len() {
            chars.remove(at);
        } else {
            let special = [
                ' ', '-', ':', '#', '\'', '"', '\n', '|', '>', '{', '}', '[', ']', '&', '*', '!',
                '?', '%', '\t', '\\', 'x', '1',
            ];
            chars.insert(at, special[r.below(special.len())]);
        }
    }
    chars.into_iter().collect()
}

#[test]
fn generated_documents_read_the_same_by_both_readers() {
    let mut r = Random(0x2026_1203);
    let (mut answered, mut total) = (0, 0);
    for round in 0..20_000 {
        let mut text = String::new();
        if round % 2 == 0 {
            gen_map(&mut r, &mut text, 0, 0, None);
        } else {
            gen_seq(&mut r, &mut text, 0, 0);
        }
        total += 1;
        answered += usize::from(agrees(&text));
        agrees(&mutate(&mut r, &text));
    }
    eprintln!("generated: answered {answered} of {total}");
    assert!(answered * 10 > total, "answered {answered} of {total}");
}
