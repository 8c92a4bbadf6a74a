//! `values --explain`: where each effective value came from.
//!
//! The user's sources are applied one at a time with [`Assembler`], in Helm's order; after each,
//! the leaves it wrote take its name (`prod.yaml:7`, `--set proxy.await=false`). Leaves the user
//! did not write come from the chart's defaults (`values/values.yaml:42`). [`annotate`] then puts
//! each origin as a comment on the line of YAML output that holds the leaf, so the annotated
//! text still reads back as the same values.

use super::coalesce::coalesce;
use super::positions::{layout, leaves, lookup, Layout, NodeKind};
use super::set::apply_set_with_reader;
use super::sources::{Assembler, Source, ValueOverrides, ValuesError};
use super::Value;
use crate::input::Input;
use std::collections::BTreeMap;
use std::io::Read;

/// A leaf's path of map keys and list indices.
pub type LeafPath = Vec<String>;

/// The effective values and the origin of each leaf.
#[derive(Clone, Debug, PartialEq)]
pub struct Explained {
    /// The values templates see (user values coalesced onto the defaults).
    pub values: Value,
    /// Coalescing warnings.
    pub warnings: Vec<String>,
    /// Origin of every leaf of `values`.
    pub origins: BTreeMap<LeafPath, String>,
    /// Every leaf the user's sources wrote (nulls and later-overwritten ones included), with
    /// the source that wrote it last.
    pub user_origins: BTreeMap<LeafPath, String>,
    /// The `-f` files as read (once), named as in origins, in order.
    pub files: Vec<Input>,
}

/// The chart's defaults as a file: how to name it, and its text.
#[derive(Clone, Copy, Debug)]
pub struct DefaultsFile<'a> {
    /// The name shown (`values/values.yaml`).
    pub name: &'a str,
    /// Its text.
    pub text: &'a str,
}

/// How a source is named in origins (without a line).
pub fn source_label(source: &Source) -> String {
    match source {
        Source::File(f) if f == "-" => "<stdin>".to_owned(),
        Source::File(f) => f.clone(),
        Source::Set { mode, expression } => format!("{} {expression}", mode.flag()),
    }
}

/// Computes the effective values with the origin of each leaf. Each source is read once (by
/// the [`Assembler`], standard input only when a source asks for it); the origins come from the
/// kept text, parsed and laid out once per file, so the work grows linearly with the values.
pub fn explain(
    defaults_file: Option<DefaultsFile<'_>>,
    defaults: &Value,
    overrides: &ValueOverrides,
    stdin: &mut dyn Read,
) -> Result<Explained, ValuesError> {
    let sources = overrides.sources();
    let mut assembler = Assembler::for_sources(overrides, stdin, Default::default());
    let mut user_origins: BTreeMap<LeafPath, String> = BTreeMap::new();
    let mut files = Vec::new();
    for source in &sources {
        let before = assembler.values().clone();
        assembler.apply(source)?;
        let after = assembler.values();
        let label = source_label(source);
        // What this source wrote: the leaves of a file, or of the expression.
        let mut written: Vec<(LeafPath, String)> = Vec::new();
        match source {
            Source::File(f) => {
                let text = assembler.kept(f).unwrap_or_default();
                if let Ok(value) = crate::yaml::parse_document(text) {
                    let layout = layout(text).ok();
                    let lines = layout.as_ref().map(Layout::by_path).unwrap_or_default();
                    for (path, _) in leaves(&value) {
                        let origin = match lines.get(path.as_slice()) {
                            Some(node) => format!("{label}:{}", node.at.line),
                            None => label.clone(),
                        };
                        written.push((path, origin));
                    }
                }
                files.push(Input {
                    name: label.clone(),
                    text: text.to_owned(),
                });
            }
            Source::Set { mode, expression } => {
                let mut map = super::Map::new();
                let mut kept = |path: &str| Ok(assembler.kept(path).unwrap_or_default().to_owned());
                if apply_set_with_reader(&mut map, expression, *mode, &mut kept).is_ok() {
                    for (path, value) in leaves(&Value::Map(map)) {
                        if lookup(after, &path) == Some(value) {
                            written.push((path, label.clone()));
                        }
                    }
                }
            }
        }
        let mut this_source = std::collections::BTreeSet::new();
        for (path, origin) in written {
            this_source.insert(path.clone());
            user_origins.insert(path, origin);
        }
        // Anything else it changed (a `--set` index patching a list, say) is its doing too.
        for (path, value) in leaves(after) {
            if lookup(&before, &path) != Some(value) && !this_source.contains(&path) {
                user_origins.insert(path, label.clone());
            }
        }
    }
    let (user, mut warnings) = assembler.finish_with_warnings();
    let values = coalesce(defaults, user.clone(), &mut warnings);
    let default_layout = defaults_file.and_then(|f| layout(f.text).ok().map(|l| (f.name, l)));
    let default_lines = default_layout
        .as_ref()
        .map(|(_, l)| l.by_path())
        .unwrap_or_default();
    let mut origins = BTreeMap::new();
    for (path, value) in leaves(&values) {
        let from_user = lookup(&user, &path) == Some(value);
        let origin = match user_origins.get(&path) {
            Some(origin) if from_user => origin.clone(),
            _ => match &default_layout {
                Some((name, _)) if lookup(defaults, &path) == Some(value) => {
                    match default_lines.get(path.as_slice()) {
                        Some(n) => format!("{name}:{}", n.at.line),
                        None => (*name).to_owned(),
                    }
                }
                _ => user_origins
                    .get(&path)
                    .cloned()
                    .unwrap_or_else(|| "chart defaults".to_owned()),
            },
        };
        origins.insert(path, origin);
    }
    Ok(Explained {
        values,
        warnings,
        origins,
        user_origins,
        files,
    })
}

/// Appends `  # <origin>` to the line of `yaml` (a document printed from the explained values)
/// that holds each leaf: the key's line for a block scalar (`key: |-`), the last line of the
/// value otherwise, so folded scalars stay intact.
pub fn annotate(yaml: &str, origins: &BTreeMap<LeafPath, String>) -> String {
    let Ok(l) = layout(yaml) else {
        return yaml.to_owned();
    };
    let lines: Vec<&str> = yaml.lines().collect();
    let mut notes: BTreeMap<usize, String> = BTreeMap::new();
    for (i, node) in l.nodes.iter().enumerate() {
        let is_leaf = match &node.kind {
            NodeKind::Scalar { .. } | NodeKind::Alias => true,
            NodeKind::Collection { len } => *len == 0,
        };
        let Some(origin) = origins.get(&node.path).filter(|_| is_leaf) else {
            continue;
        };
        let block = matches!(node.kind, NodeKind::Scalar { block: true, .. });
        let line = if block {
            node.at.line
        } else {
            let next = l
                .nodes
                .get(i + 1)
                .map(|n| n.at.line)
                .unwrap_or(lines.len() + 1);
            let mut end = next.saturating_sub(1).max(node.at.line);
            while end > node.at.line && lines.get(end - 1).is_some_and(|t| t.trim().is_empty()) {
                end -= 1;
            }
            end
        };
        notes.insert(line, origin.clone());
    }
    let mut out = String::with_capacity(yaml.len() + notes.len() * 32);
    for (index, text) in lines.iter().enumerate() {
        out.push_str(text);
        if let Some(origin) = notes.get(&(index + 1)) {
            out.push_str("  # ");
            out.push_str(origin);
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {

    /// Standard input that fails the test if anything reads it.
    struct UntouchableStdin;

    impl std::io::Read for UntouchableStdin {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            panic!("standard input was read");
        }
    }

    #[test]
    fn a_set_value_of_dash_does_not_read_standard_input() {
        let overrides = ValueOverrides {
            set: vec!["name=-".into()],
            ..Default::default()
        };
        let explained = explain(
            None,
            &Value::Map(Default::default()),
            &overrides,
            &mut UntouchableStdin,
        )
        .unwrap();
        assert_eq!(
            explained.values.get_path(&["name"]),
            Some(&Value::String("-".into()))
        );
    }

    use super::*;
    use crate::yaml::parse_document;

    const DEFAULTS: &str = "proxy:\n  await: true\n  image: proxy\nports: [1, 2]\nlabels: {}\n";

    fn p(parts: &[&str]) -> LeafPath {
        parts.iter().map(|s| s.to_string()).collect()
    }

    fn run(o: &ValueOverrides) -> Explained {
        let file = DefaultsFile {
            name: "values.yaml",
            text: DEFAULTS,
        };
        explain(
            Some(file),
            &parse_document(DEFAULTS).unwrap(),
            o,
            &mut std::io::empty(),
        )
        .unwrap()
    }

    #[test]
    fn untouched_leaves_name_the_defaults_line() {
        let e = run(&ValueOverrides::default());
        assert_eq!(e.origins[&p(&["proxy", "image"])], "values.yaml:3");
        assert_eq!(e.origins[&p(&["ports", "1"])], "values.yaml:4");
        assert_eq!(e.origins[&p(&["labels"])], "values.yaml:5");
    }

    #[test]
    fn a_set_flag_names_its_expression() {
        let e = run(&ValueOverrides {
            set: vec!["proxy.await=false".into()],
            ..Default::default()
        });
        assert_eq!(
            e.origins[&p(&["proxy", "await"])],
            "--set proxy.await=false"
        );
        assert_eq!(e.origins[&p(&["proxy", "image"])], "values.yaml:3");
    }

    #[test]
    fn a_later_file_takes_over_the_leaves_it_writes() {
        let dir = std::env::temp_dir().join(format!("meshchart-explain-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = dir.join("a.yaml");
        let b = dir.join("b.yaml");
        std::fs::write(&a, "proxy:\n  image: a\n  await: false\n").unwrap();
        std::fs::write(&b, "# b\nproxy:\n  image: a\n").unwrap();
        let (a, b) = (
            a.to_string_lossy().into_owned(),
            b.to_string_lossy().into_owned(),
        );
        let e = run(&ValueOverrides {
            files: vec![a.clone(), b.clone()],
            ..Default::default()
        });
        assert_eq!(e.origins[&p(&["proxy", "image"])], format!("{b}:3"));
        assert_eq!(e.origins[&p(&["proxy", "await"])], format!("{a}:3"));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn annotations_land_on_each_leaf_line_and_keep_the_yaml_valid() {
        let yaml =
            "a: |-\n  one\n  two\nb:\n  c: folded text that\n    goes on\n  d: {}\nl:\n- x\n";
        let mut origins = BTreeMap::new();
        for (path, origin) in [
            (p(&["a"]), "A"),
            (p(&["b", "c"]), "C"),
            (p(&["b", "d"]), "D"),
            (p(&["l", "0"]), "X"),
        ] {
            origins.insert(path, origin.to_owned());
        }
        let out = annotate(yaml, &origins);
        assert_eq!(
            out,
            "a: |-  # A\n  one\n  two\nb:\n  c: folded text that\n    goes on  # C\n  d: {}  # D\nl:\n- x  # X\n"
        );
        assert_eq!(parse_document(&out).unwrap(), parse_document(yaml).unwrap());
    }
}
