//! The value keys a Go chart's templates may read, for the warning about keys a chart does not
//! read.
//!
//! A Go chart may read a key its values.yaml leaves out (upstream Linkerd's
//! `heartbeatSchedule` is only a comment there, read by `{{ if .Values.heartbeatSchedule }}`),
//! and Helm takes any key. A key counts as read when a template of the chart, or of one of its
//! subcharts, names it as a field (`.heartbeatSchedule`) or as a quoted string (`index .Values
//! "key"`, `hasKey $m "key"`), or when it is a subchart's name or alias (its section holds the
//! subchart's values).

use crate::chart::Chart;
use std::collections::BTreeSet;

/// How deep subcharts are searched (as deep as they render).
const MAX_DEPTH: usize = 20;

/// Every key the templates of `chart` and its subcharts name.
pub fn keys_templates_mention(chart: &Chart) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    gather(chart, &mut keys, 0);
    keys
}

/// The top-level keys of `chart`'s values that are its subcharts' sections: their names and
/// their dependencies' aliases.
pub fn subchart_sections(chart: &Chart) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for dependency in super::dependencies::dependencies(chart) {
        names.insert(dependency.name.clone());
        if let Some(alias) = dependency.alias {
            names.insert(alias);
        }
    }
    for sub in chart.load_subcharts().unwrap_or_default() {
        names.insert(sub.metadata.name.clone());
    }
    names
}

fn gather(chart: &Chart, keys: &mut BTreeSet<String>, depth: usize) {
    for template in &chart.templates {
        mentioned_in(&template.text, keys);
    }
    if depth >= MAX_DEPTH {
        return;
    }
    // A subchart that cannot be read fails the render itself, with its own error.
    for sub in chart.load_subcharts().unwrap_or_default() {
        gather(&sub, keys, depth + 1);
    }
}

/// Adds each field name (`.name`) and each quoted word (`"name"`) of `text` to `keys`.
fn mentioned_in(text: &str, keys: &mut BTreeSet<String>) {
    let bytes = text.as_bytes();
    let is_name = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    let mut i = 0;
    while i < bytes.len() {
        let opener = bytes[i];
        if opener == b'.' || opener == b'"' {
            let start = i + 1;
            let mut end = start;
            while end < bytes.len() && is_name(bytes[end]) {
                end += 1;
            }
            let closed = opener == b'.' || bytes.get(end) == Some(&b'"');
            if end > start && closed {
                keys.insert(text[start..end].to_owned());
            }
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::mentioned_in;
    use std::collections::BTreeSet;

    #[test]
    fn fields_and_quoted_keys_count_as_read() {
        let mut keys = BTreeSet::new();
        mentioned_in(
            "{{ if .Values.heartbeatSchedule }}{{ index .Values \"extra-key\" }}{{ end }}",
            &mut keys,
        );
        for key in ["Values", "heartbeatSchedule", "extra-key"] {
            assert!(keys.contains(key), "{key} in {keys:?}");
        }
        assert!(!keys.contains("end"));
    }
}
