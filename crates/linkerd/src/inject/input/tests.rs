//! Unit tests for reading manifests: opening files, folders and stdin, and splitting YAML and JSON
//! streams into documents.

use super::*;
use crate::values::Value;
use yaml_chunks::split_yaml;

#[test]
fn a_word_across_two_blocks_of_a_file_is_found() {
    let dir = tempfile::tempdir().unwrap();
    // Every cut of the word at the first and second block ends (blocks of 64 KiB read
    // after the overlap kept from the one before).
    for offset in ((1 << 16) - 12..(1 << 16) + 12).chain((2 << 16) - 4..(2 << 16) + 16) {
        let path = Utf8PathBuf::from_path_buf(dir.path().join("s.yaml")).unwrap();
        let text = format!("{}Namespace\n", "#".repeat(offset));
        std::fs::write(&path, &text).unwrap();
        let file = Stream::new(path.to_string(), StreamOrigin::File(path.clone()));
        assert_eq!(
            file.mentions(&["List", "Namespace"]).unwrap(),
            [false, true],
            "at {offset}"
        );
        let spooled = Stream::new(
            "-".into(),
            StreamOrigin::Spooled(std::fs::File::open(&path).unwrap()),
        );
        assert_eq!(spooled.mentions(&["Namespace"]).unwrap(), [true]);
        let text = Stream::from(Source {
            name: "t".into(),
            text,
        });
        assert_eq!(
            text.mentions(&["Namespace", "List"]).unwrap(),
            [true, false]
        );
    }
}

fn rebuild(chunks: &[Chunk<'_>]) -> String {
    chunks
        .iter()
        .map(|c| format!("{}{}", c.separator, c.body))
        .collect()
}

/// Streams with every kind of separator, blank documents, CRLF and no final newline.
const STREAMS: [&str; 8] = [
    "",
    "a: 1\n",
    "---\na: 1\n---\nb: 2\n",
    "a: 1\n---\n\n---\n\n---\n",
    "# c\n--- # comment\nk: v\n--- {x: 1}\n---",
    "a: 1\r\n---\r\nb: 2",
    "----\nx: ---\n",
    "a: 1\n---\n%YAML 1.1\n# c\n---\nb: 2\n...\n%TAG ! tag:x,2000:\n--- {c: 3}\n",
];

#[test]
fn streamed_chunks_are_the_chunks_of_the_whole_text() {
    for text in STREAMS {
        let stream = Stream::from(Source {
            name: "t.yaml".into(),
            text: text.into(),
        });
        let streamed: Vec<OwnedChunk> = stream
            .yaml_chunks()
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let streamed: Vec<Chunk<'_>> = streamed.iter().map(OwnedChunk::as_chunk).collect();
        assert_eq!(streamed, split_yaml(text), "{text:?}");
    }
}

#[test]
fn split_keeps_every_byte() {
    for text in STREAMS {
        assert_eq!(rebuild(&split_yaml(text)), text, "{text:?}");
    }
}

#[test]
fn split_finds_documents_and_lines() {
    let chunks = split_yaml("---\na: 1\n---\n\n---\nb: 2\n");
    let bodies: Vec<_> = chunks.iter().map(|c| (c.body, c.line)).collect();
    assert_eq!(
        bodies,
        vec![("", 1), ("a: 1\n", 2), ("\n", 4), ("b: 2\n", 6)]
    );
    // Content on the separator line starts the document itself.
    let chunks = split_yaml("a: 1\n--- {b: 2}\n");
    assert_eq!(chunks[1].separator, "");
    assert_eq!(chunks[1].body, "--- {b: 2}\n");
    // `----` and `---x` are not separators.
    assert_eq!(split_yaml("----\n---x\n").len(), 1);
}

#[test]
fn directives_stay_with_the_document_their_separator_starts() {
    let text = "a: 1\n---\n%YAML 1.1\n# c\n---\nb: 2\n";
    let chunks = split_yaml(text);
    let bodies: Vec<_> = chunks.iter().map(|c| (c.body, c.line)).collect();
    assert_eq!(
        bodies,
        vec![("a: 1\n", 1), ("%YAML 1.1\n# c\n---\nb: 2\n", 3)]
    );
    assert_eq!(rebuild(&chunks), text);
}

#[test]
fn only_a_valid_json_stream_is_json() {
    let source = |text: &str| Source {
        name: "s".into(),
        text: text.into(),
    };
    assert!(source(" {\"a\": 1} [2]").is_json());
    assert!(!source("{a: 1}").is_json());
    assert!(!source("[a, b]\n").is_json());
    assert!(
        source("{\"a\": ").is_json(),
        "neither: JSON's error is shown"
    );
    assert!(!source("kind: Pod").is_json());
}

#[test]
fn yaml_errors_point_into_the_file() {
    let text = "a: 1\n---\nkind: Pod\nmetadata:\n  name: [x\n";
    let chunks = split_yaml(text);
    let err = parse_yaml_chunk("f.yaml", &chunks[1]).unwrap_err();
    let InjectError::Yaml { line, .. } = err else {
        panic!("{err}")
    };
    assert!(line >= 5, "{line}");
}

#[test]
fn json_stream_keeps_every_byte() {
    let text = " {\"a\": 1}\n\n[1, 2] {\"b\": {\"c\": null}}\n";
    let chunks = split_json("x.json", text).unwrap();
    let rebuilt: String = chunks
        .iter()
        .map(|(c, _)| format!("{}{}", c.separator, c.body))
        .collect();
    assert_eq!(rebuilt, text);
    assert_eq!(chunks[0].1.get_path(&["a"]), Some(&Value::Int(1)));
    assert_eq!(chunks[2].0.line, 3);
    let err = split_json("x.json", "{\"a\": 1,\n  }").unwrap_err();
    assert_eq!(err.to_string(), "x.json:2:3: invalid JSON: trailing comma");
}
