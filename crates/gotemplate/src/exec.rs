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

    fn eval_pipeline(&mut self, dot: &Slot, pipe: &'a Pipe) -> R<Slot> {
        self.at = At::Pipe(pipe);
        let mut value: Option<Slot> = None;
        for cmd in &pipe.cmds {
            let mut v = self.eval_command(dot, cmd, value.take())?;
            // Take a value out of its interface, as Go does after each command: a nil
            // interface becomes the invalid value.
            v.boxed = false;
            value = Some(v);
        }
        let value = value.unwrap_or_else(Slot::invalid);
        for name in &pipe.decl {
            if pipe.is_assign {
                self.set_var(name, value.clone())?;
            } else {
                self.vars.push((name, value.clone()));
            }
        }
        Ok(value)
    }

    fn eval_nested_pipeline(&mut self, dot: &Slot, pipe: &'a Pipe) -> R<Slot> {
        self.enter()?;
        let r = self.eval_pipeline(dot, pipe);
        self.depth -= 1;
        r
    }

    fn not_a_function(&self, args: &[Arg], fin: &Option<Slot>) -> R<()> {
        if args.len() > 1 || fin.is_some() {
            return Err(self.error(format!("can't give argument to non-function {}", args[0])));
        }
        Ok(())
    }

    fn eval_command(&mut self, dot: &Slot, cmd: &'a Command, fin: Option<Slot>) -> R<Slot> {
        let first = &cmd.args[0];
        match first {
            Arg::Field(_, path) => {
                self.at = At::Arg(first);
                self.eval_field_chain(dot, dot.clone(), path, &cmd.args, fin)
            }
            Arg::Chain(..) => self.eval_chain(dot, first, &cmd.args, fin),
            Arg::Identifier(_, name) => self.eval_function(dot, first, name, cmd, fin),
            Arg::Pipe(p) => {
                self.not_a_function(&cmd.args, &fin)?;
                self.eval_nested_pipeline(dot, p)
            }
            Arg::Variable(_, path) => self.eval_variable(dot, first, path, &cmd.args, fin),
            _ => {
                self.at = At::Arg(first);
                self.not_a_function(&cmd.args, &fin)?;
                match first {
                    Arg::Bool(_, b) => Ok(Slot::plain(Value::Bool(*b))),
                    Arg::Dot(_) => Ok(dot.clone()),
                    Arg::Nil(_) => Err(self.error("nil is not a command".into())),
                    Arg::Number(_, n) => {
                        n.value.clone().map(Slot::plain).map_err(|m| self.error(m))
                    }
                    Arg::String(_, _, s) => Ok(Slot::plain(Value::String(s.clone()))),
                    _ => Err(self.error(format!("can't evaluate command {first}"))),
                }
            }
        }
    }

    fn eval_chain(
        &mut self,
        dot: &Slot,
        chain: &'a Arg,
        args: &'a [Arg],
        fin: Option<Slot>,
    ) -> R<Slot> {
        self.at = At::Arg(chain);
        let Arg::Chain(_, node, fields) = chain else {
            return Err(self.error("internal error: not a chain".into()));
        };
        if let Arg::Nil(_) = **node {
            return Err(self.error(format!("indirection through explicit nil in {chain}")));
        }
        // Errors in the fields point at the last node evaluated inside the term, as in Go.
        let recv = self.eval_arg(dot, node)?;
        self.eval_field_chain(dot, recv, fields, args, fin)
    }

    fn eval_variable(
        &mut self,
        dot: &Slot,
        var: &'a Arg,
        path: &'a str,
        args: &'a [Arg],
        fin: Option<Slot>,
    ) -> R<Slot> {
        self.at = At::Arg(var);
        let (name, fields) = match path.split_once('.') {
            Some((name, fields)) => (name, Some(fields)),
            None => (path, None),
        };
        let value = self.var_value(name)?;
        match fields {
            None => {
                self.not_a_function(args, &fin)?;
                Ok(value)
            }
            Some(fields) => self.eval_field_chain(dot, value, fields, args, fin),
        }
    }

    /// Fields `A.B.C` of a receiver: all but the last take no arguments.
    fn eval_field_chain(
        &mut self,
        dot: &Slot,
        mut recv: Slot,
        path: &'a str,
        args: &'a [Arg],
        fin: Option<Slot>,
    ) -> R<Slot> {
        let (init, last) = match path.rsplit_once('.') {
            Some((init, last)) => (Some(init), last),
            None => (None, path),
        };
        for ident in init.into_iter().flat_map(|i| i.split('.')) {
            recv = self.eval_field(dot, ident, &[], None, recv)?;
        }
        self.eval_field(dot, last, args, fin, recv)
    }

    fn eval_field(
        &mut self,
        dot: &Slot,
        name: &str,
        args: &'a [Arg],
        fin: Option<Slot>,
        recv: Slot,
    ) -> R<Slot> {
        if recv.is_invalid() {
            if self.set.missing_key == MissingKey::Error {
                let q = crate::gofmt::quote(name, false);
                return Err(self.error(format!("nil data; no entry for key {q}")));
            }
            return Ok(Slot::invalid());
        }
        if recv.v.is_nil() {
            return Err(self.error(format!("nil pointer evaluating interface {{}}.{name}")));
        }
        let has_args = args.len() > 1 || fin.is_some();
        let typ = if recv.boxed {
            "interface {}"
        } else {
            recv.v.type_name()
        };
        match &recv.v {
            Value::Map(m) => self.map_field(m, name, has_args),
            Value::Object(o) => {
                let o = o.clone();
                if let Some(arity) = o.method_arity(name) {
                    let num_in = args.len().saturating_sub(1) + usize::from(fin.is_some());
                    match arity {
                        Arity::Exact(n) if num_in != n => {
                            return Err(self.error(format!(
                                "wrong number of args for {name}: want {n} got {num_in}"
                            )));
                        }
                        Arity::AtLeast(n) if num_in < n => {
                            return Err(self.error(format!(
                                "wrong number of args for {name}: want at least {n} got {}",
                                args.len().saturating_sub(1)
                            )));
                        }
                        _ => {}
                    }
                    let mut argv = Vec::new();
                    for a in args.iter().skip(1) {
                        argv.push(self.eval_arg(dot, a)?.v);
                    }
                    if let Some(f) = fin {
                        argv.push(f.v);
                    }
                    return match o.get(name, &argv) {
                        Some(Ok(v)) => Ok(Slot::plain(v)),
                        Some(Err(m)) => Err(self.error(format!("error calling {name}: {m}"))),
                        None => {
                            Err(self.error(format!("can't evaluate field {name} in type {typ}")))
                        }
                    };
                }
                // A named map type: its keys, after its methods.
                if let Some(m) = o.as_map() {
                    return self.map_field(m, name, has_args);
                }
                if has_args {
                    return Err(self.error(format!(
                        "{name} has arguments but cannot be invoked as function"
                    )));
                }
                match o.get(name, &[]) {
                    Some(Ok(v)) => Ok(Slot::plain(v)),
                    Some(Err(m)) => Err(self.error(m)),
                    None => Err(self.error(format!("can't evaluate field {name} in type {typ}"))),
                }
            }
            _ => Err(self.error(format!("can't evaluate field {name} in type {typ}"))),
        }
    }

    /// A key of a map used as a field, with the set's missing-key rule.
    fn map_field(&self, m: &Rc<RefCell<Map>>, name: &str, has_args: bool) -> R<Slot> {
        if has_args {
            return Err(self.error(format!("{name} is not a method but has arguments")));
        }
        let found = m.borrow().get(name).cloned();
        match found {
            Some(v) => Ok(Slot { v, boxed: true }),
            None => match self.set.missing_key {
                MissingKey::Invalid => Ok(Slot::invalid()),
                MissingKey::Zero => Ok(Slot {
                    v: Value::Null,
                    boxed: true,
                }),
                MissingKey::Error => {
                    let q = crate::gofmt::quote(name, false);
                    Err(self.error(format!("map has no entry for key {q}")))
                }
            },
        }
    }

    /// Evaluates an argument (Go's `evalArg` for an `interface{}` or `reflect.Value`
    /// parameter): the `nil` literal is the invalid value, a missing key a nil interface.
    fn eval_arg(&mut self, dot: &Slot, arg: &'a Arg) -> R<Slot> {
        self.at = At::Arg(arg);
        match arg {
            Arg::Dot(_) => Ok(dot.clone()),
            Arg::Nil(_) => Ok(Slot::invalid()),
            Arg::Field(_, path) => {
                self.eval_field_chain(dot, dot.clone(), path, std::slice::from_ref(arg), None)
            }
            Arg::Variable(_, path) => {
                self.eval_variable(dot, arg, path, std::slice::from_ref(arg), None)
            }
            Arg::Pipe(p) => self.eval_nested_pipeline(dot, p),
            Arg::Identifier(_, name) => {
                let cmd_args = std::slice::from_ref(arg);
                self.eval_function_args(dot, arg, name, cmd_args, None, None)
            }
            Arg::Chain(..) => self.eval_chain(dot, arg, std::slice::from_ref(arg), None),
            Arg::Bool(_, b) => Ok(Slot::plain(Value::Bool(*b))),
            Arg::Number(_, n) => n.value.clone().map(Slot::plain).map_err(|m| self.error(m)),
            Arg::String(_, _, s) => Ok(Slot::plain(Value::String(s.clone()))),
        }
    }

    fn eval_function(
        &mut self,
        dot: &Slot,
        ident: &'a Arg,
        name: &'a str,
        cmd: &'a Command,
        fin: Option<Slot>,
    ) -> R<Slot> {
        self.eval_function_args(dot, ident, name, &cmd.args, fin, Some(cmd))
    }

    fn eval_function_args(
        &mut self,
        dot: &Slot,
        ident: &'a Arg,
        name: &'a str,
        cmd_args: &'a [Arg],
        fin: Option<Slot>,
        cmd: Option<&'a Command>,
    ) -> R<Slot> {
        self.at = At::Arg(ident);
        let Some(func) = self.set.funcs.get(name).cloned() else {
            let q = crate::gofmt::quote(name, false);
            return Err(self.error(format!("{q} is not a defined function")));
        };
        let args = &cmd_args[1..];
        let num_in = args.len() + usize::from(fin.is_some());
        let arity = match &func {
            Func::Builtin(b) => b.arity(),
            Func::User(a, _) => *a,
        };
        match arity {
            Arity::Exact(n) if num_in != n => {
                return Err(self.error(format!(
                    "wrong number of args for {name}: want {n} got {num_in}"
                )));
            }
            Arity::AtLeast(n) if num_in < n => {
                return Err(self.error(format!(
                    "wrong number of args for {name}: want at least {n} got {}",
                    args.len()
                )));
            }
            _ => {}
        }
        // `and` and `or` evaluate their operands only as far as needed.
        if let Func::Builtin(b @ (Builtin::And | Builtin::Or)) = func {
            let want = b == Builtin::Or;
            let mut v = Slot::invalid();
            for a in args {
                v = self.eval_arg(dot, a)?;
                v.boxed = false;
                if v.v.is_true() == want {
                    return Ok(v);
                }
            }
            if let Some(f) = fin {
                v = f;
            }
            return Ok(v);
        }
        let mut argv = Vec::with_capacity(num_in);
        for a in args {
            argv.push(self.eval_arg(dot, a)?);
        }
        if let Some(f) = fin {
            argv.push(f);
        }
        let result = match func {
            // Go passes `call` the callee's source text, for its message.
            Func::Builtin(Builtin::Call) if !argv[0].v.is_nil() => {
                let callee = args.first().map(|a| a.to_string()).unwrap_or_default();
                Err(FuncError::Message(format!(
                    "non-function {callee} of type {}",
                    argv[0].v.type_name()
                )))
            }
            Func::Builtin(b) => funcs::call_builtin(b, &argv),
            Func::User(_, f) => {
                let values: Vec<Value> = argv.iter().map(|s| s.v.clone()).collect();
                let mut ctx = Context { state: self };
                f(&mut ctx, &values).map(Slot::plain)
            }
        };
        // Go points a failed call at the whole command (or at the function's name when it
        // is itself an argument); a successful one leaves the last argument as the position.
        if result.is_err() {
            self.at = match cmd {
                Some(c) => At::Cmd(c),
                None => At::Arg(ident),
            };
        }
        match result {
            Ok(v) => Ok(v),
            Err(FuncError::Message(m)) => Err(self.error(format!("error calling {name}: {m}"))),
            Err(FuncError::Template(e)) => {
                Err(self.error_with(format!("error calling {name}: {e}"), Some(e)))
            }
            Err(FuncError::WrongType { index, expected }) => {
                let arg = args.get(index);
                if let Some(a) = arg {
                    self.at = At::Arg(a);
                }
                // Go converts a literal operand to the parameter's type itself and words the
                // failure differently from a value that arrives with the wrong type.
                if let Some(lit @ (Arg::Bool(..) | Arg::Number(..) | Arg::String(..))) = arg {
                    let want = match expected.as_str() {
                        "int" | "int64" | "int32" | "uint" | "uint64" => "integer",
                        "float64" | "float32" => "float",
                        other => other,
                    };
                    return Err(self.error(format!("expected {want}; found {lit}")));
                }
                let got = argv.get(index).map(|s| s.v.type_name()).unwrap_or("<nil>");
                Err(self.error(format!(
                    "wrong type for value; expected {expected}; got {got}"
                )))
            }
        }
    }
}

/// What a function sees of the execution that called it: enough to run other templates, as
/// Helm's `include` and `tpl` do.
pub struct Context<'s, 'a> {
    state: &'s mut State<'a>,
}

impl Context<'_, '_> {
    /// The name of the template being executed (a file name, or a `define`'s name).
    pub fn template_name(&self) -> &str {
        &self.state.tree.name
    }

    /// The file the executing template was parsed from.
    pub fn file_name(&self) -> &str {
        &self.state.tree.file
    }

    /// How many template executions enclose this call.
    pub fn depth(&self) -> usize {
        self.state.depth
    }

    /// Executes the template `name` with `data`, returning its output (Go's
    /// `ExecuteTemplate` on the set, which Helm's `include` is).
    pub fn execute(&mut self, name: &str, data: &Value) -> Result<String, Error> {
        let s = &*self.state;
        let Some(tree) = s.lookup.get(name) else {
            return Err(Error::NoTemplate {
                name: name.to_string(),
                set: s.set.name.clone(),
            });
        };
        s.check_depth()?;
        State::run(s.set, s.lookup, tree, data, s.depth + 1, Some(s.stack_base))
    }

    /// Parses `text` as a template named `name` over the set (its `define`s shadow the set's
    /// for this execution only) and executes it with `data`: what Helm's `tpl` does.
    pub fn execute_text(&mut self, name: &str, text: &str, data: &Value) -> Result<String, Error> {
        let s = &*self.state;
        s.check_depth()?;
        let funcs = &s.set.funcs;
        let parsed = crate::parse::parse(name, text, &|n| funcs.contains_key(n))?;
        let mut trees = HashMap::new();
        for t in parsed.trees {
            add_tree(&mut trees, t);
        }
        let lookup = Lookup {
            trees: &trees,
            parent: Some(s.lookup),
        };
        let Some(tree) = lookup.get(name) else {
            return Err(Error::NoTemplate {
                name: name.to_string(),
                set: s.set.name.clone(),
            });
        };
        State::run(s.set, &lookup, tree, data, s.depth + 1, Some(s.stack_base))
    }
}
