//! Masks the values Helm makes up at random, named as `tools/record.py` names them: a document's
//! `# Source:` template and a key path (`spec.template.metadata.annotations.checksum/secret`,
//! with `-` for a list item). The path rules here and in `record.py::line_paths` are the same.

/// The text a masked value becomes.
const MASK: &str = "<random>";

/// `text` with every line at one of `random`'s (source, key path) replaced by [`MASK`]: a key's
/// value after `key:`, or the whole content of a line inside a block scalar.
pub fn mask(text: &str, random: &[(String, String)]) -> String {
    if random.is_empty() {
        return text.to_owned();
    }
    let paths = LinePaths;
    let mut out = String::with_capacity(text.len());
    for (line, (source, path, key_end)) in text.split('\n').zip(paths.of(text)) {
        let masked = random.iter().any(|(s, p)| *s == source && *p == path);
        let line_out = if !masked {
            line.to_owned()
        } else if let Some(end) = key_end {
            format!("{}: {MASK}", &line[..end])
        } else {
            let content = line.trim_start_matches(' ');
            format!("{}{MASK}", &line[..line.len() - content.len()])
        };
        out.push_str(&line_out);
        out.push('\n');
    }
    out.pop();
    out
}

/// Walks a stream's lines keeping the document's source and the key path above each line.
struct LinePaths;

impl LinePaths {
    /// For each line: its document's source, its key path, and where a key line's key ends.
    fn of(&self, text: &str) -> Vec<(String, String, Option<usize>)> {
        let mut out = Vec::new();
        let mut source = String::new();
        let mut stack: Vec<(usize, String)> = Vec::new();
        let mut block: Option<usize> = None;
        let joined = |stack: &[(usize, String)]| {
            stack
                .iter()
                .map(|(_, s)| s.as_str())
                .collect::<Vec<_>>()
                .join(".")
        };
        for line in text.split('\n') {
            if line == "---" {
                source.clear();
                stack.clear();
                block = None;
                out.push((source.clone(), String::new(), None));
                continue;
            }
            if let Some(name) = line.strip_prefix("# Source: ").filter(|_| stack.is_empty()) {
                source = name.to_owned();
                out.push((source.clone(), String::new(), None));
                continue;
            }
            let mut content = line.trim_start_matches(' ');
            let mut indent = line.len() - content.len();
            if let Some(block_indent) = block {
                if content.is_empty() || indent > block_indent {
                    out.push((source.clone(), joined(&stack), None));
                    continue;
                }
                block = None;
            }
            if content.is_empty() || content.starts_with('#') {
                out.push((source.clone(), joined(&stack), None));
                continue;
            }
            while content.starts_with("- ") || content == "-" {
                while stack
                    .last()
                    .is_some_and(|(i, s)| *i > indent || (*i == indent && s == "-"))
                {
                    stack.pop();
                }
                stack.push((indent, "-".to_owned()));
                content = content.get(2..).unwrap_or_default();
                indent += 2;
            }
            let mut key_end = None;
            if let Some((key, after)) = key_of(content) {
                while stack.last().is_some_and(|(i, _)| *i >= indent) {
                    stack.pop();
                }
                stack.push((indent, key.to_owned()));
                key_end = Some(line.len() - content.len() + key.len());
                let rest = after.trim();
                let is_block = rest.starts_with(['|', '>'])
                    && rest[1..]
                        .chars()
                        .all(|c| c.is_ascii_digit() || c == '+' || c == '-');
                if is_block {
                    block = Some(indent);
                }
            }
            out.push((source.clone(), joined(&stack), key_end));
        }
        out
    }
}

/// A mapping key at the start of `content` and the text after its colon, as `record.py`'s `KEY`
/// pattern finds them: a quoted key, or plain text up to the first `:` followed by a space or the
/// line's end (no `#` inside, not starting with a space, quote or `- `).
fn key_of(content: &str) -> Option<(&str, &str)> {
    let bytes = content.as_bytes();
    let first = *bytes.first()?;
    let key_len = if first == b'"' {
        let mut i = 1;
        loop {
            match bytes.get(i)? {
                b'\\' => i += 2,
                b'"' => break i + 1,
                _ => i += 1,
            }
        }
    } else if first == b'\'' {
        1 + content[1..].find('\'')? + 1
    } else {
        let lone_dash = first == b'-'
            && bytes
                .get(1)
                .is_none_or(|b| b.is_ascii_whitespace() || *b == b':');
        if first.is_ascii_whitespace() || first == b'#' || lone_dash {
            return None;
        }
        let colon = content.find(':')?;
        if content[..colon].contains('#') {
            return None;
        }
        colon
    };
    let rest = &content[key_len..];
    let after = rest.strip_prefix(':')?;
    if !(after.is_empty() || after.starts_with(' ')) {
        return None;
    }
    Some((&content[..key_len], after))
}

#[cfg(test)]
mod tests {
    use super::mask;

    fn random(source: &str, path: &str) -> Vec<(String, String)> {
        vec![(source.to_owned(), path.to_owned())]
    }

    const STREAM: &str = "---\n# Source: c/templates/secret.yaml\napiVersion: v1\nkind: Secret\n\
                          data:\n  password: \"cmFuZA==\"\n  tls.crt: |\n    line one\n    line two\n\
                          ---\n# Source: c/templates/deploy.yaml\nspec:\n  template:\n    metadata:\n\
                          \x20     annotations:\n        checksum/secret: abc\n    spec:\n\
                          \x20     containers:\n      - name: app\n        env:\n        - name: A\n\
                          \x20         value: x\n";

    #[test]
    fn a_listed_key_keeps_its_name_and_loses_its_value() {
        let masked = mask(STREAM, &random("c/templates/secret.yaml", "data.password"));
        assert!(masked.contains("  password: <random>\n"), "{masked}");
        assert!(masked.contains("line one"));
    }

    #[test]
    fn a_block_scalar_under_a_listed_key_is_masked_line_by_line() {
        let masked = mask(STREAM, &random("c/templates/secret.yaml", "data.tls.crt"));
        assert!(
            masked.contains("  tls.crt: <random>\n    <random>\n    <random>\n"),
            "{masked}"
        );
    }

    #[test]
    fn keys_under_list_items_are_named_with_a_dash_step() {
        let masked = mask(
            STREAM,
            &random(
                "c/templates/deploy.yaml",
                "spec.template.spec.containers.-.env.-.value",
            ),
        );
        assert!(masked.contains("          value: <random>\n"), "{masked}");
        assert!(masked.contains("- name: A"), "{masked}");
    }

    #[test]
    fn the_same_path_in_another_document_is_left_alone() {
        let masked = mask(STREAM, &random("c/templates/other.yaml", "data.password"));
        assert_eq!(masked, STREAM);
    }
}
