//! The interpreter: walks a tree with Go's semantics (variables, scoping, truth, fields,
//! missing keys, calls, `break`/`continue`) and Go's error texts and positions.
//!
//! Go's reflection has two kinds of "nothing" that behave differently, and Helm's templates
//! meet both: a nil `interface{}` (a missing key under `missingkey=zero`, a `null` in
//! values) and an invalid value (what a pipeline yields for nil, what `$x` holds after
//! `$x := .missing`). A field of the first is an error (`nil pointer evaluating interface
//! {}.x`), of the second silently nothing. [`Slot`] keeps that distinction: `boxed` marks a
//! value still inside an `interface{}`, as container elements are.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::ast::{Arg, Branch, Command, List, Node, Pipe, TemplateCall, Tree};
use crate::error::{Error, FuncError};
use crate::funcs::{self, Builtin};
use crate::stack::addr as stack_addr;
use crate::template::{add_tree, Arity, Func, MissingKey, Templates};
use crate::value::{Map, Value};

mod context;
mod eval;

pub use context::Context;

/// A value as the interpreter holds it. `boxed` means "still inside an `interface{}`":
/// a map's value or a list's element. An unboxed `Null` is Go's invalid value.
#[derive(Clone, Debug)]
pub(crate) struct Slot {
    pub v: Value,
    pub boxed: bool,
}

impl Slot {
    fn plain(v: Value) -> Slot {
        Slot { v, boxed: false }
    }

    fn invalid() -> Slot {
        Slot::plain(Value::Null)
    }

    /// Go's invalid value: neither a value nor a nil interface.
    pub(crate) fn is_invalid(&self) -> bool {
        self.v.is_nil() && !self.boxed
    }
}

/// Where templates are looked up: the set, under any templates parsed by `tpl`-like calls.
pub(crate) struct Lookup<'a> {
    pub(crate) trees: &'a HashMap<String, Rc<Tree>>,
    pub(crate) parent: Option<&'a Lookup<'a>>,
}

impl<'a> Lookup<'a> {
    pub(crate) fn get(&self, name: &str) -> Option<&'a Tree> {
        match self.trees.get(name) {
            Some(t) => Some(t),
            None => self.parent.and_then(|p| p.get(name)),
        }
    }
}

/// The node errors are reported at (Go's `state.at`).
#[derive(Clone, Copy)]
enum At<'a> {
    None,
    Arg(&'a Arg),
    Pipe(&'a Pipe),
    Cmd(&'a Command),
    Template(&'a TemplateCall),
}

enum Flow {
    Normal,
    Break,
    Continue,
}

/// One execution of one template.
pub(crate) struct State<'a> {
    set: &'a Templates,
    lookup: &'a Lookup<'a>,
    tree: &'a Tree,
    vars: Vec<(&'a str, Slot)>,
    depth: usize,
    /// Where the stack was when the outermost execution began, to measure how much of it
    /// nesting has used.
    stack_base: usize,
    at: At<'a>,
    out: String,
}

type R<T> = Result<T, Error>;

impl<'a> State<'a> {
    /// Runs `tree` with `data` as dot and `$`.
    pub(crate) fn run(
        set: &'a Templates,
        lookup: &'a Lookup<'a>,
        tree: &'a Tree,
        data: &Value,
        depth: usize,
        stack_base: Option<usize>,
    ) -> R<String> {
        let mut s = State {
            set,
            lookup,
            tree,
            vars: vec![("$", Slot::plain(data.clone()))],
            depth,
            stack_base: stack_base.unwrap_or_else(stack_addr),
            at: At::None,
            out: String::new(),
        };
        let dot = Slot::plain(data.clone());
        s.walk_list(&dot, &tree.root)?;
        Ok(s.out)
    }

    /// Go's `state.errorf`: the message with the location and text of the current node.
    fn error(&self, message: String) -> Error {
        self.error_with(message, None)
    }

    fn error_with(&self, message: String, cause: Option<Box<Error>>) -> Error {
        let (pos, context) = match self.at {
            At::None => (0, String::new()),
            At::Arg(a) => (a.pos(), a.to_string()),
            At::Pipe(p) => (p.pos, p.to_string()),
            At::Cmd(c) => (c.pos, c.to_string()),
            At::Template(t) => (t.pos, t.to_string()),
        };
        let text = &self.tree.text;
        let pos = pos.min(text.len());
        let before = &text.as_bytes()[..pos];
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let column = match before.iter().rposition(|&b| b == b'\n') {
            Some(i) => pos - i - 1,
            None => pos,
        };
        Error::Exec {
            file: self.tree.file.to_string(),
            line,
            column,
            template: self.tree.name.clone(),
            context,
            message,
            cause,
        }
    }

    /// Counts one level of nesting (a block, a parenthesized pipeline or a template call)
    /// against the set's limit, so deep input fails with an error instead of exhausting the
    /// stack.
    fn enter(&mut self) -> R<()> {
        self.check_depth()?;
        self.depth += 1;
        Ok(())
    }

    /// May execution nest one level deeper? Go's limit on template calls, counted over all
    /// nesting, and the stack budget, measured (frames differ between builds, so a count of
    /// levels alone cannot promise to stay within a thread's stack).
    fn check_depth(&self) -> R<()> {
        if self.depth >= self.set.max_depth {
            return Err(self.error(format!(
                "exceeded maximum template depth ({})",
                self.set.max_depth
            )));
        }
        if self.stack_base.abs_diff(stack_addr()) > self.set.stack_limit {
            return Err(self.error(format!(
                "exceeded the stack budget of {} bytes (templates nest too deeply)",
                self.set.stack_limit
            )));
        }
        Ok(())
    }

    fn walk_list(&mut self, dot: &Slot, list: &'a List) -> R<Flow> {
        for node in &list.nodes {
            match self.walk(dot, node)? {
                Flow::Normal => {}
                flow => return Ok(flow),
            }
        }
        Ok(Flow::Normal)
    }

    fn walk(&mut self, dot: &Slot, node: &'a Node) -> R<Flow> {
        match node {
            Node::Text(r) => self.out.push_str(&self.tree.text[r.clone()]),
            Node::Action(pipe) => {
                // Declarations print nothing and persist until the enclosing end.
                let v = self.eval_pipeline(dot, pipe)?;
                if pipe.decl.is_empty() {
                    self.print(&v);
                }
            }
            Node::If(b) | Node::With(b) | Node::Range(b) => {
                self.enter()?;
                let flow = match node {
                    Node::Range(_) => self.walk_range(dot, b),
                    _ => self.walk_if_with(dot, b, matches!(node, Node::With(_))),
                };
                self.depth -= 1;
                return flow;
            }
            Node::Template(t) => self.walk_template(dot, t)?,
            Node::Break => return Ok(Flow::Break),
            Node::Continue => return Ok(Flow::Continue),
        }
        Ok(Flow::Normal)
    }

    fn print(&mut self, v: &Slot) {
        if v.v.is_nil() {
            self.out.push_str("<no value>");
        } else {
            crate::gofmt::write_value(&mut self.out, &v.v);
        }
    }

    fn walk_if_with(&mut self, dot: &Slot, b: &'a Branch, with: bool) -> R<Flow> {
        let mark = self.vars.len();
        let r = (|| {
            let val = self.eval_pipeline(dot, &b.pipe)?;
            if val.v.is_true() {
                if with {
                    self.walk_list(&val, &b.list)
                } else {
                    self.walk_list(dot, &b.list)
                }
            } else if let Some(e) = &b.else_list {
                self.walk_list(dot, e)
            } else {
                Ok(Flow::Normal)
            }
        })();
        self.vars.truncate(mark);
        r
    }

    fn walk_range(&mut self, dot: &Slot, b: &'a Branch) -> R<Flow> {
        let mark = self.vars.len();
        let r = self.walk_range_inner(dot, b);
        self.vars.truncate(mark);
        r.map(|_| Flow::Normal)
    }

    fn walk_range_inner(&mut self, dot: &Slot, b: &'a Branch) -> R<()> {
        let val = self.eval_pipeline(dot, &b.pipe)?;
        let mark = self.vars.len();
        let items: Vec<(Slot, Slot)> = match (&val.v, val.v.as_map()) {
            (_, Some(m)) => m
                .borrow()
                .iter()
                .map(|(k, e)| {
                    (
                        Slot::plain(Value::str(k)),
                        Slot {
                            v: e.clone(),
                            boxed: true,
                        },
                    )
                })
                .collect(),
            (Value::Seq(l), _) => l
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    (
                        Slot::plain(Value::Int(i as i64)),
                        Slot {
                            v: e.clone(),
                            boxed: true,
                        },
                    )
                })
                .collect(),
            (Value::Null, _) => Vec::new(),
            (other, _) => {
                let mut s = String::new();
                crate::gofmt::write_value(&mut s, other);
                return Err(self.error(format!("range can't iterate over {s}")));
            }
        };
        if items.is_empty() {
            if let Some(e) = &b.else_list {
                self.walk_list(dot, e)?;
            }
            return Ok(());
        }
        let decl = &b.pipe.decl;
        for (index, elem) in items {
            if !decl.is_empty() {
                if b.pipe.is_assign {
                    if decl.len() > 1 {
                        self.set_var(&decl[0], index.clone())?;
                        self.set_var(&decl[1], elem.clone())?;
                    } else {
                        self.set_var(&decl[0], elem.clone())?;
                    }
                } else {
                    // The pipeline pushed the variables; the last is the element, the one
                    // before it (if two) the index.
                    let n = self.vars.len();
                    self.vars[n - 1].1 = elem.clone();
                    if decl.len() > 1 {
                        self.vars[n - 2].1 = index.clone();
                    }
                }
            }
            let flow = self.walk_list(&elem, &b.list);
            self.vars.truncate(mark);
            match flow? {
                Flow::Break => break,
                Flow::Normal | Flow::Continue => {}
            }
        }
        Ok(())
    }

    fn walk_template(&mut self, dot: &Slot, t: &'a TemplateCall) -> R<()> {
        self.at = At::Template(t);
        let Some(tree) = self.lookup.get(&t.name) else {
            let q = crate::gofmt::quote(&t.name, false);
            return Err(self.error(format!("template {q} not defined")));
        };
        self.check_depth()?;
        let dot = match &t.pipe {
            Some(p) => self.eval_pipeline(dot, p)?,
            None => Slot::invalid(),
        };
        // No dynamic scoping: the called template sees only `$`, which is its data.
        let mut inner = State {
            set: self.set,
            lookup: self.lookup,
            tree,
            vars: vec![("$", dot.clone())],
            depth: self.depth + 1,
            stack_base: self.stack_base,
            at: At::None,
            out: std::mem::take(&mut self.out),
        };
        let r = inner.walk_list(&dot, &tree.root);
        self.out = inner.out;
        r.map(|_| ())
    }

    fn set_var(&mut self, name: &str, v: Slot) -> R<()> {
        for (n, slot) in self.vars.iter_mut().rev() {
            if *n == name {
                *slot = v;
                return Ok(());
            }
        }
        Err(self.error(format!("undefined variable: {name}")))
    }

    fn var_value(&self, name: &str) -> R<Slot> {
        for (n, slot) in self.vars.iter().rev() {
            if *n == name {
                return Ok(slot.clone());
            }
        }
        Err(self.error(format!("undefined variable: {name}")))
    }
}
