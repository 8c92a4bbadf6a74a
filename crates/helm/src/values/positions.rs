//! Where each node of a YAML document sits: every map entry and list item by its path, with the
//! line of its key (or of its `- ` item), and every scalar as written (text and style).
//!
//! `values --explain` uses it to name the line a value came from (empty maps and lists
//! included, which the loader's leaf positions leave out) and to put comments on the lines of
//! its own output; `lint` uses it to find YAML 1.1 booleans (`yes`, `on`...) written plain.

use crate::values::Value;
use crate::yaml::load::resolve_plain;
use crate::yaml::{Position, YamlError};
use std::collections::HashMap;
use yaml_rust2::parser::Event;
use yaml_rust2::scanner::TScalarStyle;

/// What a node is.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
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
pub struct Node {
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
pub struct KeySite {
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
pub struct Layout {
    /// Value nodes.
    pub nodes: Vec<Node>,
    /// Map keys.
    pub keys: Vec<KeySite>,
}

impl Layout {
    /// The node at `path`.
    pub fn node(&self, path: &[String]) -> Option<&Node> {
        self.nodes.iter().find(|n| n.path == path)
    }

    /// Every node by its path (the first, when a path repeats), for many lookups.
    pub fn by_path(&self) -> HashMap<&[String], &Node> {
        let mut index = HashMap::with_capacity(self.nodes.len());
        for node in &self.nodes {
            index.entry(node.path.as_slice()).or_insert(node);
        }
        index
    }
}

enum Frame {
    Map {
        path: Vec<String>,
        node: usize,
        key: Option<(String, Position)>,
        len: usize,
    },
    Seq {
        path: Vec<String>,
        node: usize,
        len: usize,
    },
    /// A collection past [`MAX_LAID_OUT_DEPTH`]: neither it nor what it holds is recorded.
    Deep,
}

/// Deepest nodes [`layout`] records. Each node keeps its whole path, so a document nested
/// thousands of levels deep would cost memory in the square of its depth; values that deep are
/// read (the loader takes 10,000 levels) but get no line numbers or comments.
pub const MAX_LAID_OUT_DEPTH: usize = 100;

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

/// Walks the first document of `text`.
pub fn layout(text: &str) -> Result<Layout, YamlError> {
    let mut events = crate::yaml::events::Events::new(text);
    let mut out = Layout::default();
    let mut stack: Vec<Frame> = Vec::new();
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
                if let Some(Frame::Map { path, key, .. }) = stack.last_mut() {
                    if key.is_none() {
                        let resolved = key_string(&text, plain);
                        let mut key_path = path.clone();
                        key_path.push(resolved.clone());
                        out.keys.push(KeySite {
                            path: key_path,
                            at,
                            text,
                            plain,
                        });
                        *key = Some((resolved, at));
                        continue;
                    }
                }
                let block = matches!(style, TScalarStyle::Literal | TScalarStyle::Folded);
                let (path, key_at) = child(&mut stack, at);
                out.nodes.push(Node {
                    path,
                    at: key_at,
                    value_at: at,
                    kind: NodeKind::Scalar { text, plain, block },
                });
            }
            Event::Alias(_) => {
                let (path, key_at) = child(&mut stack, at);
                out.nodes.push(Node {
                    path,
                    at: key_at,
                    value_at: at,
                    kind: NodeKind::Alias,
                });
            }
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                let (path, key_at) = child(&mut stack, at);
                out.nodes.push(Node {
                    path: path.clone(),
                    at: key_at,
                    value_at: at,
                    kind: NodeKind::Collection { len: 0 },
                });
                let node = out.nodes.len() - 1;
                stack.push(if matches!(event, Event::MappingStart(..)) {
                    Frame::Map {
                        path,
                        node,
                        key: None,
                        len: 0,
                    }
                } else {
                    Frame::Seq { path, node, len: 0 }
                });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                if let Some(Frame::Map { node, len, .. } | Frame::Seq { node, len, .. }) =
                    stack.pop()
                {
                    out.nodes[node].kind = NodeKind::Collection { len };
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// The path and key position of the next value in the innermost collection.
fn child(stack: &mut [Frame], at: Position) -> (Vec<String>, Position) {
    match stack.last_mut() {
        // (Values inside a deep collection are skipped before they get here.)
        None | Some(Frame::Deep) => (Vec::new(), at),
        Some(Frame::Map { path, key, len, .. }) => {
            let (name, key_at) = key.take().unwrap_or_default();
            *len += 1;
            let mut p = path.clone();
            p.push(name);
            (p, key_at)
        }
        Some(Frame::Seq { path, len, .. }) => {
            let mut p = path.clone();
            p.push(len.to_string());
            *len += 1;
            (p, at)
        }
    }
}

/// Every leaf of `value` (scalars, and empty maps and lists) with its path of keys and indices.
pub fn leaves(value: &Value) -> Vec<(Vec<String>, &Value)> {
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

/// The value at a path of map keys and list indices.
pub fn lookup<'a, S: AsRef<str>>(value: &'a Value, path: &[S]) -> Option<&'a Value> {
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
