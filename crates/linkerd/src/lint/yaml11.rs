//! YAML 1.1 booleans: `yes`, `on`, `y`, `Off`... written plain are booleans to Helm (and to
//! us), which is rarely what a reader of the file expects. Lint warns about each one.

use crate::values::Value;
use crate::values::{walk, Shape, Step};
use crate::yaml::load::resolve_plain;

/// One plain scalar that YAML 1.1 reads as a boolean but YAML 1.2 would not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Yaml11Boolean {
    /// 1-based line.
    pub line: usize,
    /// The dotted key path (for a key: the key as it is read).
    pub path: String,
    /// The text as written.
    pub text: String,
    /// The boolean it is read as.
    pub value: bool,
    /// Whether it is a map key rather than a value.
    pub is_key: bool,
}

impl Yaml11Boolean {
    /// The warning text.
    pub(crate) fn describe(&self) -> String {
        if self.is_key {
            format!(
                "key {:?} is read as {:?} (a YAML 1.1 boolean); quote it to keep the key {:?}",
                self.text,
                self.value.to_string(),
                self.text
            )
        } else {
            format!(
                "{}: {} is read as the boolean {} (YAML 1.1); write {} for a boolean or \"{}\" for a string",
                self.path, self.text, self.value, self.value, self.text
            )
        }
    }
}

fn yaml11_only(text: &str) -> Option<bool> {
    if matches!(text, "true" | "True" | "TRUE" | "false" | "False" | "FALSE") {
        return None;
    }
    match resolve_plain(text) {
        Ok(Value::Bool(b)) => Some(b),
        _ => None,
    }
}

/// Every YAML-1.1-only boolean in the first document of `text` (none if it does not parse).
/// The document is walked, not laid out whole: a values file of a million keys has few of them.
pub(crate) fn find(text: &str) -> Vec<Yaml11Boolean> {
    let mut keys = Vec::new();
    let mut values = Vec::new();
    let walked = walk(text, |step| match step {
        Step::Key {
            path,
            at,
            text,
            plain: true,
        } => {
            if let Some(value) = yaml11_only(text) {
                keys.push(Yaml11Boolean {
                    line: at.line,
                    path: path.join("."),
                    text: text.to_owned(),
                    value,
                    is_key: true,
                });
            }
        }
        Step::Node {
            path,
            value_at,
            shape: Shape::Scalar {
                text, plain: true, ..
            },
            ..
        } => {
            if let Some(value) = yaml11_only(text) {
                values.push(Yaml11Boolean {
                    line: value_at.line,
                    path: path.join("."),
                    text: text.to_owned(),
                    value,
                    is_key: false,
                });
            }
        }
        _ => {}
    });
    if walked.is_err() {
        return Vec::new();
    }
    // Keys before values on one line, as they were listed before the walk.
    let mut found = keys;
    found.append(&mut values);
    found.sort_by_key(|f| f.line);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_yes_on_and_off_are_found_with_their_line_and_path() {
        let found = find("a: true\nproxy:\n  await: yes\n  b: \"on\"\n  c: Off\ny: 1\n");
        let summary: Vec<(usize, &str, &str, bool)> = found
            .iter()
            .map(|f| (f.line, f.path.as_str(), f.text.as_str(), f.is_key))
            .collect();
        assert_eq!(
            summary,
            [
                (3, "proxy.await", "yes", false),
                (5, "proxy.c", "Off", false),
                (6, "true", "y", true)
            ]
        );
        assert_eq!(
            found[0].describe(),
            "proxy.await: yes is read as the boolean true (YAML 1.1); write true for a boolean or \"yes\" for a string"
        );
    }
}
