//! A label or annotation a template writes twice in one map: the later one counts.
//!
//! Charts write their own labels and then the user's (`commonLabels`, `podAnnotations`); a user
//! who gives a key the chart also writes (`app.kubernetes.io/part-of`) gets it twice in one map.
//! Helm prints that as it is, kubectl refuses it, and Helm's own reader keeps the later value.
//! For a `labels` or `annotations` map under a `metadata`, whose entries are one-line strings,
//! which value is meant is clear: the later one, as Helm reads it. The earlier line is dropped,
//! so the key is written once with that value. Any other key given twice stays an error.

use crate::yaml::{first_duplicate_key_in, DuplicateKey};

/// How many repeated keys one document may have merged: each costs a read of the document.
const MAX_MERGED: usize = 64;

/// `text` (one document) with every earlier line of a label or annotation given twice dropped,
/// when that is all that keeps it from reading; `None` when it has no such repeat, or a repeat
/// of another kind.
pub fn later_labels_and_annotations_win(text: &str) -> Option<String> {
    let mut merged = text.to_owned();
    for _ in 0..MAX_MERGED {
        let Some(repeat) = first_duplicate_key_in(&merged) else {
            return (merged != text).then_some(merged);
        };
        if !is_label_or_annotation(&repeat) {
            return None;
        }
        merged = without_line(&merged, one_line_entry(&merged, repeat.first_line)?);
    }
    None
}

fn is_label_or_annotation(repeat: &DuplicateKey) -> bool {
    matches!(
        repeat.map_path.as_slice(),
        [.., metadata, map] if metadata == "metadata" && (map == "labels" || map == "annotations")
    )
}

/// The 1-based `line` when it holds a whole `key: value` entry (the next line is not indented
/// deeper, and the value is no block scalar), so dropping it drops the entry and nothing else.
fn one_line_entry(text: &str, line: usize) -> Option<usize> {
    let mut lines = text.lines().skip(line.checked_sub(1)?);
    let entry = lines.next()?;
    let indent = entry.len() - entry.trim_start().len();
    let value = entry.split_once(": ").map(|(_, v)| v.trim())?;
    if value.starts_with(['|', '>', '&', '*', '!']) {
        return None;
    }
    let continues = lines.next().is_some_and(|next| {
        let content = next.trim_start();
        !content.is_empty() && next.len() - content.len() > indent
    });
    (!continues).then_some(line)
}

fn without_line(text: &str, line: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for (number, piece) in text.split_inclusive('\n').enumerate() {
        if number + 1 != line {
            out.push_str(piece);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_given_twice_keeps_the_later_value_once() {
        let text = "kind: ConfigMap\nmetadata:\n  name: a\n  labels:\n    app.kubernetes.io/part-of: Linkerd\n    team: x\n    app.kubernetes.io/part-of: mesh\n";
        assert_eq!(
            later_labels_and_annotations_win(text).as_deref(),
            Some("kind: ConfigMap\nmetadata:\n  name: a\n  labels:\n    team: x\n    app.kubernetes.io/part-of: mesh\n")
        );
    }

    #[test]
    fn a_pod_template_annotation_given_twice_keeps_the_later_value_once() {
        let text = "spec:\n  template:\n    metadata:\n      annotations:\n        a: \"1\"\n        a: \"2\"\n";
        assert_eq!(
            later_labels_and_annotations_win(text).as_deref(),
            Some("spec:\n  template:\n    metadata:\n      annotations:\n        a: \"2\"\n")
        );
    }

    #[test]
    fn any_other_key_given_twice_is_left_to_be_refused() {
        assert_eq!(
            later_labels_and_annotations_win("spec:\n  a: 1\n  a: 2\n"),
            None
        );
        assert_eq!(
            later_labels_and_annotations_win("metadata:\n  name: a\n  name: b\n"),
            None
        );
    }

    #[test]
    fn a_repeated_label_whose_first_value_spans_lines_is_left_to_be_refused() {
        let text = "metadata:\n  labels:\n    a: |\n      x\n    a: y\n";
        assert_eq!(later_labels_and_annotations_win(text), None);
    }

    #[test]
    fn a_document_without_repeats_is_not_rewritten() {
        assert_eq!(
            later_labels_and_annotations_win("metadata:\n  name: a\n"),
            None
        );
    }
}
