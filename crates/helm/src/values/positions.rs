//! Where each node of a YAML document sits: every map entry and list item by its path, with the
//! line of its key (or of its `- ` item), and every scalar as written (text and style).
//!
//! `values --explain` uses it to name the line a value came from (empty maps and lists
//! included, which the loader's leaf positions leave out) and to put comments on the lines of
//! its own output; `lint` uses it to find YAML 1.1 booleans (`yes`, `on`...) written plain.

use crate::values::Value;
use crate::yaml::load::resolve_plain;
use crate::yaml::{Position, YamlError};
use yaml_rust2::parser::Event;
use yaml_rust2::scanner::TScalarStyle;

/// What a node is.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum NodeKind {
    /// A scalar: its text as written, and whether it was plain (unquoted, not a block).
    Scalar {
        /// The scalar's text.
        text: String,
        /// Plain style (the only style YAML 1.1 resolution applies to).
        plain: bool,
        /// Literal or folded block style (`|`, `>`).
        block: bool,
    },
    /// A map or a list, with how many entries it has.
    Collection {
        /// Entries (or items).
        len: usize,
    },
    /// An alias (`*name`).
    Alias,
}

/// One node of the document.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Node {
    /// Map keys and list indices from the root.
    pub path: Vec<String>,
    /// Where the node's key is (for map values), or where the node starts (list items, root).
    pub at: Position,
    /// Where the value itself starts.
    pub value_at: Position,
    /// What it is.
    pub kind: NodeKind,
}

/// A map key as written.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct KeySite {
    /// Path of the entry (ending with the key as resolved).
    pub path: Vec<String>,
    /// Where the key is.
    pub at: Position,
    /// The key's text.
    pub text: String,
    /// Plain style.
    pub plain: bool,
}

/// Every node and key of the first document of `text`, in document order.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Layout {
    /// Value nodes.
    pub nodes: Vec<Node>,
    /// Map keys.
    pub keys: Vec<KeySite>,
}

impl Layout {
    /// The node at `path`.
    #[cfg(test)]
    fn node(&self, path: &[String]) -> Option<&Node> {
        self.nodes.iter().find(|n| n.path == path)
    }
}

/// A collection open in [`walk`].
enum Frame {
    Map {
        /// The key read, waiting for its value.
        key: Option<(String, Position)>,
        len: usize,
        /// Whether the map added a part to the path (all but the root do).
        in_path: bool,
    },
    Seq {
        len: usize,
        in_path: bool,
    },
    /// A collection past [`MAX_LAID_OUT_DEPTH`]: neither it nor what it holds is recorded.
    Deep,
}

/// Deepest nodes [`layout`] records. Each node keeps its whole path, so a document nested
/// thousands of levels deep would cost memory in the square of its depth; values that deep are
/// read (the loader takes 10,000 levels) but get no line numbers or comments.
pub(super) const MAX_LAID_OUT_DEPTH: usize = 100;

/// A key's text as the loader resolves it (a plain `y` is the key `"true"`).
fn key_string(text: &str, plain: bool) -> String {
    if !plain {
        return text.to_owned();
    }
    match resolve_plain(text) {
        Ok(Value::Bool(b)) => b.to_string(),
        Ok(Value::Int(i)) => i.to_string(),
        Ok(Value::Null) => "null".to_owned(),
        _ => text.to_owned(),
    }
}

/// What a node is, as [`walk`] meets it (a collection's entries follow it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape<'t> {
    /// A scalar (see [`NodeKind::Scalar`]).
    Scalar {
        /// The scalar's text.
        text: &'t str,
        /// Plain style.
        plain: bool,
        /// Literal or folded block style.
        block: bool,
    },
    /// A map or a list, whose entries come next, then [`Step::End`].
    Collection,
    /// An alias (`*name`).
    Alias,
}

/// One step of [`walk`], in document order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Step<'p, 't> {
    /// A map key as written; `path` is its entry's.
    Key {
        /// Path of the entry (ending with the key as resolved).
        path: &'p [String],
        /// Where the key is.
        at: Position,
        /// The key's text.
        text: &'t str,
        /// Plain style.
        plain: bool,
    },
    /// A node (see [`Node`]).
    Node {
        /// Map keys and list indices from the root.
        path: &'p [String],
        /// Where the node's key is (map values), or where the node starts.
        at: Position,
        /// Where the value itself starts.
        value_at: Position,
        /// What it is.
        shape: Shape<'t>,
    },
    /// The innermost open collection ends, with how many entries it had.
    End {
        /// Entries (or items).
        len: usize,
    },
}

/// Walks the first document of `text` as [`layout`] lays it out, one step at a time, holding
/// only the path to the current node: what [`layout`] would keep of a huge document need not
/// be kept at once.
pub fn walk(text: &str, mut visit: impl FnMut(Step<'_, '_>)) -> Result<(), YamlError> {
    let mut events = crate::yaml::events::Events::new(text);
    let mut stack: Vec<Frame> = Vec::new();
    let mut path: Vec<String> = Vec::new();
    loop {
        let (event, at) = events.next_event().map_err(|e| YamlError {
            position: e.position,
            message: e.message,
        })?;
        match event {
            Event::StreamEnd | Event::DocumentEnd => break,
            Event::Scalar(..) | Event::Alias(_) if matches!(stack.last(), Some(Frame::Deep)) => {}
            Event::MappingStart(..) | Event::SequenceStart(..)
                if matches!(stack.last(), Some(Frame::Deep))
                    || stack.len() >= MAX_LAID_OUT_DEPTH =>
            {
                stack.push(Frame::Deep);
            }
            Event::Scalar(text, style, _, _) => {
                let plain = style == TScalarStyle::Plain;
                if let Some(Frame::Map {
                    key: key @ None, ..
                }) = stack.last_mut()
                {
                    let resolved = key_string(&text, plain);
                    path.push(resolved);
                    visit(Step::Key {
                        path: &path,
                        at,
                        text: &text,
                        plain,
                    });
                    let resolved = path.pop().unwrap_or_default();
                    *key = Some((resolved, at));
                    continue;
                }
                let block = matches!(style, TScalarStyle::Literal | TScalarStyle::Folded);
                let (in_path, key_at) = enter_child(&mut stack, &mut path, at);
                visit(Step::Node {
                    path: &path,
                    at: key_at,
                    value_at: at,
                    shape: Shape::Scalar {
                        text: &text,
                        plain,
                        block,
                    },
                });
                if in_path {
                    path.pop();
                }
            }
            Event::Alias(_) => {
                let (in_path, key_at) = enter_child(&mut stack, &mut path, at);
                visit(Step::Node {
                    path: &path,
                    at: key_at,
                    value_at: at,
                    shape: Shape::Alias,
                });
                if in_path {
                    path.pop();
                }
            }
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                let (in_path, key_at) = enter_child(&mut stack, &mut path, at);
                visit(Step::Node {
                    path: &path,
                    at: key_at,
                    value_at: at,
                    shape: Shape::Collection,
                });
                stack.push(if matches!(event, Event::MappingStart(..)) {
                    Frame::Map {
                        key: None,
                        len: 0,
                        in_path,
                    }
                } else {
                    Frame::Seq { len: 0, in_path }
                });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                if let Some(Frame::Map { len, in_path, .. } | Frame::Seq { len, in_path }) =
                    stack.pop()
                {
                    visit(Step::End { len });
                    if in_path {
                        path.pop();
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Every node and key of the first document of `text`, each with its whole path.
pub(super) fn layout(text: &str) -> Result<Layout, YamlError> {
    let mut out = Layout::default();
    // The collections open, by their index in `out.nodes`.
    let mut open: Vec<usize> = Vec::new();
    walk(text, |step| match step {
        Step::Key {
            path,
            at,
            text,
            plain,
        } => out.keys.push(KeySite {
            path: path.to_vec(),
            at,
            text: text.to_owned(),
            plain,
        }),
        Step::Node {
            path,
            at,
            value_at,
            shape,
        } => {
            let kind = match shape {
                Shape::Scalar { text, plain, block } => NodeKind::Scalar {
                    text: text.to_owned(),
                    plain,
                    block,
                },
                Shape::Alias => NodeKind::Alias,
                Shape::Collection => {
                    open.push(out.nodes.len());
                    NodeKind::Collection { len: 0 }
                }
            };
            out.nodes.push(Node {
                path: path.to_vec(),
                at,
                value_at,
                kind,
            });
        }
        Step::End { len } => {
            if let Some(node) = open.pop() {
                out.nodes[node].kind = NodeKind::Collection { len };
            }
        }
    })?;
    Ok(out)
}

/// Adds the next value of the innermost collection to `path` (its key or index); returns
/// whether it did (the root has no part), and where the value's key is.
fn enter_child(stack: &mut [Frame], path: &mut Vec<String>, at: Position) -> (bool, Position) {
    match stack.last_mut() {
        // (Values inside a deep collection are skipped before they get here.)
        None | Some(Frame::Deep) => (false, at),
        Some(Frame::Map { key, len, .. }) => {
            let (name, key_at) = key.take().unwrap_or_default();
            *len += 1;
            path.push(name);
            (true, key_at)
        }
        Some(Frame::Seq { len, .. }) => {
            path.push(len.to_string());
            *len += 1;
            (true, at)
        }
    }
}

/// Every leaf of `value` (scalars, and empty maps and lists) with its path of keys and indices.
pub(super) fn leaves(value: &Value) -> Vec<(Vec<String>, &Value)> {
    let mut out = Vec::new();
    collect_leaves(value, &mut Vec::new(), &mut out);
    out
}

fn collect_leaves<'a>(
    value: &'a Value,
    path: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, &'a Value)>,
) {
    match value {
        Value::Map(m) if !m.is_empty() => {
            for (k, v) in m {
                path.push(k.clone());
                collect_leaves(v, path, out);
                path.pop();
            }
        }
        Value::Seq(items) if !items.is_empty() => {
            for (i, v) in items.iter().enumerate() {
                path.push(i.to_string());
                collect_leaves(v, path, out);
                path.pop();
            }
        }
        _ => out.push((path.clone(), value)),
    }
}

/// Calls `visit` with every leaf of `value` ([`leaves`]' order) and its path, building no path
/// per leaf: for values with a million leaves.
pub(super) fn for_each_leaf(value: &Value, mut visit: impl FnMut(&[String], &Value)) {
    fn walk_leaves(
        value: &Value,
        path: &mut Vec<String>,
        visit: &mut dyn FnMut(&[String], &Value),
    ) {
        match value {
            Value::Map(m) if !m.is_empty() => {
                for (k, v) in m {
                    path.push(k.clone());
                    walk_leaves(v, path, visit);
                    path.pop();
                }
            }
            Value::Seq(items) if !items.is_empty() => {
                for (i, v) in items.iter().enumerate() {
                    path.push(i.to_string());
                    walk_leaves(v, path, visit);
                    path.pop();
                }
            }
            _ => visit(path, value),
        }
    }
    walk_leaves(value, &mut Vec::new(), &mut visit);
}

/// The value at a path of map keys and list indices.
pub(super) fn lookup<'a, S: AsRef<str>>(value: &'a Value, path: &[S]) -> Option<&'a Value> {
    let mut current = value;
    for part in path {
        current = match current {
            Value::Map(m) => m.get(part.as_ref())?,
            Value::Seq(items) => items.get(part.as_ref().parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(current)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(parts: &[&str]) -> Vec<String> {
        parts.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn each_map_entry_is_placed_on_its_key_line() {
        let l = layout("a:\n  b: 1\n  empty: {}\nl:\n- x\n- k: v\n").unwrap();
        assert_eq!(l.node(&p(&["a", "b"])).unwrap().at.line, 2);
        assert_eq!(l.node(&p(&["a", "empty"])).unwrap().at.line, 3);
        assert_eq!(
            l.node(&p(&["a", "empty"])).unwrap().kind,
            NodeKind::Collection { len: 0 }
        );
        assert_eq!(l.node(&p(&["l", "0"])).unwrap().at.line, 5);
        assert_eq!(l.node(&p(&["l", "1", "k"])).unwrap().at.line, 6);
    }

    #[test]
    fn plain_keys_resolve_as_the_loader_does() {
        let l = layout("y: 1\n\"n\": 2\n").unwrap();
        assert_eq!(l.keys[0].path, p(&["true"]));
        assert_eq!(l.keys[1].path, p(&["n"]));
        assert!(l.keys[0].plain && !l.keys[1].plain);
    }

    #[test]
    fn leaves_include_empty_collections_and_list_items() {
        let v = crate::yaml::parse_document("a: {}\nb: [1, {c: 2}]\n").unwrap();
        let paths: Vec<Vec<String>> = leaves(&v).into_iter().map(|(p, _)| p).collect();
        assert_eq!(paths, [p(&["a"]), p(&["b", "0"]), p(&["b", "1", "c"])]);
        assert_eq!(lookup(&v, &["b", "1", "c"]), Some(&Value::Int(2)));
    }
}
