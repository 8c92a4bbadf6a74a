//! Lines of a flow collection (`[ ... ]`, `{ ... }`) indented no deeper than the block that
//! holds the collection.
//!
//! go-yaml, the reader Helm checks rendered manifests with, takes them:
//!
//! ```yaml
//! command: [
//!   "/bin/sh",
//! ]
//! ```
//!
//! yaml-rust2 follows the YAML specification, which wants every line of the collection indented
//! past its key, and refuses the closing `]` with "invalid indentation". yaml-rust2 gives that
//! message only inside a flow collection (in block context it first unrolls its indentation to
//! the line's column), and there a line's leading spaces mean nothing; so the document is read
//! again with the refused line one column deeper, until it passes or fails for another reason.
//! The document's text is left as it was: only the check reads the deeper copy.

use crate::load::YamlError;

/// yaml-rust2's message for a line of a flow collection that is not indented enough.
const FLOW_LINE_NOT_INDENTED: &str = "invalid indentation";

/// How many lines may be moved before the document is judged as it is (each try reads the
/// whole document again).
const MAX_MOVED_LINES: usize = 256;

/// `scan(text)` as go-yaml judges `text`: when yaml-rust2 refuses a line of a flow collection
/// for its indentation, that line is moved one column deeper and `text` read again.
pub(super) fn scan_as_go_yaml<T>(
    text: &str,
    mut scan: impl FnMut(&str) -> Result<T, YamlError>,
) -> Result<T, YamlError> {
    let first = match scan(text) {
        Ok(read) => return Ok(read),
        Err(e) => e,
    };
    let mut error = first.clone();
    let mut moved = text.to_owned();
    for _ in 0..MAX_MOVED_LINES {
        if error.message != FLOW_LINE_NOT_INDENTED {
            break;
        }
        let Some(deeper) = one_column_deeper(&moved, error.position.line) else {
            break;
        };
        match scan(&deeper) {
            Ok(read) => return Ok(read),
            Err(e) => {
                error = e;
                moved = deeper;
            }
        }
    }
    // Still refused: the first complaint is about the text as written.
    Err(first)
}

/// `text` with one more space at the start of its 1-based `line`.
fn one_column_deeper(text: &str, line: usize) -> Option<String> {
    let start = if line <= 1 {
        0
    } else {
        text.match_indices('\n').nth(line - 2)?.0 + 1
    };
    let mut deeper = String::with_capacity(text.len() + 1);
    deeper.push_str(&text[..start]);
    deeper.push(' ');
    deeper.push_str(&text[start..]);
    Some(deeper)
}

#[cfg(test)]
mod tests {
    use crate::scan_manifest_head;

    #[test]
    fn a_flow_sequence_closed_at_its_keys_column_is_read_as_go_yaml_reads_it() {
        let text = "kind: Pod\nspec:\n  command: [\n    \"/bin/sh\",\n  ]\n  name: x\n";
        let head = scan_manifest_head(text).expect("go-yaml takes this");
        assert_eq!(head.kind, "Pod");
    }

    #[test]
    fn a_flow_mapping_closed_left_of_its_key_is_read_as_go_yaml_reads_it() {
        let text = "kind: Pod\nspec:\n    env: {\n  a: b,\n }\nmetadata:\n  name: p\n";
        let head = scan_manifest_head(text).expect("go-yaml takes this");
        assert_eq!(head.name, "p");
    }

    #[test]
    fn an_unclosed_flow_sequence_is_still_refused() {
        assert!(scan_manifest_head("kind: Pod\nspec:\n  command: [\n  \"a\",\nname: x\n").is_err());
    }
}
