//! Unit tests for the input door's shared rules (limits, names, reading files and stdin), kept
//! apart from `mod.rs` so the door's code reads on its own.

use super::*;

fn read(bytes: &[u8]) -> Result<String, InputError> {
    GuardedReader::new("in", Box::new(bytes), 1 << 20)?
        .read_to_end()
        .map(|i| i.text)
}

#[test]
fn a_byte_order_mark_is_dropped() {
    assert_eq!(read(b"\xEF\xBB\xBFproxy: 1\n").unwrap(), "proxy: 1\n");
    assert_eq!(decode("x", b"\xEF\xBB\xBFa".to_vec()).unwrap(), "a");
}

#[test]
fn a_nul_byte_is_named_with_line_and_column() {
    let e = read(b"a: 1\nb\xC3\xA9\0c\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "in:2:3: a NUL byte (binary data is not text)"
    );
    let e = decode("x", b"a\n\0".to_vec()).unwrap_err();
    assert_eq!(e.to_string(), "x:2:1: a NUL byte (binary data is not text)");
}

#[test]
fn invalid_utf8_is_named_with_line_and_column() {
    let e = read(b"a: 1\n\nkey: \xFF\n").unwrap_err();
    assert_eq!(e.to_string(), "in:3:6: not UTF-8 text");
}

#[test]
fn the_cap_stops_an_endless_source() {
    let endless = std::io::repeat(b'a');
    let e = GuardedReader::new("in", Box::new(endless), 1000)
        .unwrap()
        .read_to_end()
        .unwrap_err();
    assert!(matches!(e, InputError::TooLarge { limit: 1000, .. }), "{e}");
    assert_eq!(
        read(&[b'a'; 1000][..]).unwrap().len(),
        1000,
        "exactly the cap is allowed"
    );
}

#[test]
fn a_per_document_cap_counts_each_document_and_names_the_one_past_it() {
    let stream = "a: 1\n".repeat(100) + "b: 22222\n";
    let mut reader = GuardedReader::new("in", Box::new(stream.as_bytes()), 9)
        .unwrap()
        .per_document();
    let mut line = String::new();
    for _ in 0..100 {
        reader.start_document();
        assert!(
            reader.read_line(&mut line).unwrap(),
            "500 bytes in all pass"
        );
    }
    reader.start_document();
    assert!(
        reader.read_line(&mut line).unwrap(),
        "exactly the cap passes"
    );
    let mut reader = GuardedReader::new("in", Box::new("a: 1\nb: 2\n".as_bytes()), 9)
        .unwrap()
        .per_document();
    reader.read_line(&mut line).unwrap();
    let e = reader.read_line(&mut line).unwrap_err();
    assert!(
        matches!(
            e,
            InputError::DocumentTooLarge {
                line: 1,
                limit: 9,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn sizes_read_with_binary_units() {
    assert_eq!(parse_size("123"), Some(123));
    assert_eq!(parse_size("64MiB"), Some(64 << 20));
    assert_eq!(parse_size("2 GiB"), Some(2 << 30));
    assert_eq!(parse_size("1k"), Some(1024));
    assert_eq!(parse_size("lots"), None);
}

#[cfg(unix)]
#[test]
fn devices_are_refused_by_name_before_opening() {
    let e = read_path(Utf8Path::new("/dev/zero")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "/dev/zero: is a character device, not a regular file"
    );
}

#[test]
fn lines_are_handed_out_one_at_a_time() {
    let mut reader = GuardedReader::new("in", Box::new(&b"a\nb"[..]), 100).unwrap();
    let mut buf = String::new();
    assert!(reader.read_line(&mut buf).unwrap());
    assert_eq!((buf.as_str(), reader.line()), ("a\n", 1));
    assert!(reader.read_line(&mut buf).unwrap());
    assert_eq!((buf.as_str(), reader.line()), ("a\nb", 2));
    assert!(!reader.read_line(&mut buf).unwrap());
}

#[test]
fn a_line_longer_than_the_read_buffer_comes_out_whole() {
    // The reader buffers 64 KiB: this line starts in one fill and ends two fills later.
    let long = "x".repeat(150 * 1024);
    let stream = format!("a: 1\nb: {long}\nc: 3\n");
    let mut reader = GuardedReader::new("in", Box::new(stream.as_bytes()), 1 << 20).unwrap();
    let mut lines = Vec::new();
    let mut line = String::new();
    while reader.read_line(&mut line).unwrap() {
        lines.push(std::mem::take(&mut line));
    }
    assert_eq!(lines, ["a: 1\n", format!("b: {long}\n").as_str(), "c: 3\n"]);
    assert_eq!(reader.line(), 3);
}

#[test]
fn a_streamed_line_with_a_nul_is_refused_by_its_line_and_column() {
    let mut reader = GuardedReader::new("in.yaml", Box::new(&b"a: 1\nb: x\0y\n"[..]), 100).unwrap();
    let mut line = String::new();
    assert!(reader.read_line(&mut line).unwrap());
    let e = reader.read_line(&mut line).unwrap_err();
    assert!(
        matches!(
            e,
            InputError::Nul {
                line: 2,
                column: 5,
                ..
            }
        ),
        "{e}"
    );
}
