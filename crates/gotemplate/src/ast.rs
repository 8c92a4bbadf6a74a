//! The parse tree. Nodes print themselves as Go prints them in execution errors
//! (`at <.Values.x>`), so `Display` here is part of the error format.

use std::fmt;
use std::rc::Rc;

use crate::value::Value;

/// A parsed template: a file's top level, or one `define`/`block`.
#[derive(Debug)]
pub(crate) struct Tree {
    /// Its name: the file name for a file's top level, the defined name otherwise.
    pub name: String,
    /// The file it was parsed from (Go's `ParseName`), named in error locations.
    pub file: Rc<str>,
    /// The whole text of that file, to turn node offsets into lines and columns.
    pub text: std::sync::Arc<String>,
    /// Its body.
    pub root: List,
}

/// A sequence of nodes.
///
/// Parse trees live as long as the chart renders, and a large chart's are most of its memory:
/// lists, commands and operands are sized exactly (boxed slices, not vectors grown by
/// doubling), and the larger node kinds are boxed so that text nodes, about half of all, stay
/// small. kube-prometheus-stack's trees took 15 MB before, of 1.7 MB of template text.
#[derive(Debug, Default)]
pub(crate) struct List {
    /// The nodes, in order.
    pub nodes: Box<[Node]>,
}

impl List {
    /// Go's `IsEmptyTree`: only white space text (and comments). An empty `define` does not
    /// replace a non-empty one of the same name. `text` is the tree's source.
    pub(crate) fn is_empty_tree(&self, text: &str) -> bool {
        self.nodes
            .iter()
            .all(|n| matches!(n, Node::Text(r) if text[r.clone()].trim().is_empty()))
    }
}

/// A node of a list.
#[derive(Debug)]
pub(crate) enum Node {
    /// Plain text: a byte range of the tree's source, so parsing copies no text (templates
    /// are mostly text, CRDs entirely).
    Text(std::ops::Range<usize>),
    /// `{{ pipeline }}`.
    Action(Box<Pipe>),
    /// `{{ if }}`.
    If(Box<Branch>),
    /// `{{ range }}`.
    Range(Box<Branch>),
    /// `{{ with }}`.
    With(Box<Branch>),
    /// `{{ template "name" pipeline }}` (also what a `block` leaves in place).
    Template(Box<TemplateCall>),
    /// `{{ break }}`.
    Break,
    /// `{{ continue }}`.
    Continue,
}

/// The parts of `if`, `range` and `with`.
#[derive(Debug)]
pub(crate) struct Branch {
    /// The condition or collection.
    pub pipe: Pipe,
    /// The body.
    pub list: List,
    /// The `else` part.
    pub else_list: Option<List>,
}

/// `{{ template "name" pipeline }}`.
#[derive(Debug)]
pub(crate) struct TemplateCall {
    /// Offset of the name.
    pub pos: usize,
    /// The template called.
    pub name: String,
    /// Its data, if any.
    pub pipe: Option<Pipe>,
}

/// A pipeline: optional declarations, then commands joined by `|`.
#[derive(Debug)]
pub(crate) struct Pipe {
    /// Offset of its first token.
    pub pos: usize,
    /// `=` rather than `:=`.
    pub is_assign: bool,
    /// The variables declared or assigned (at most two, in `range`).
    pub decl: Vec<String>,
    /// The commands.
    pub cmds: Box<[Command]>,
}

/// One command of a pipeline: an operand and its arguments.
#[derive(Debug)]
pub(crate) struct Command {
    /// Offset of its first token.
    pub pos: usize,
    /// The operands; the first is the function, field or value.
    pub args: Box<[Arg]>,
}

/// An operand.
#[derive(Debug)]
pub(crate) enum Arg {
    /// `.`.
    Dot(usize),
    /// `nil`.
    Nil(usize),
    /// `true`, `false`.
    Bool(usize, bool),
    /// A number or character constant (boxed: the largest operand, and a rare one).
    Number(usize, Box<Number>),
    /// A string: its source form (`None` for a raw string that is its value in backquotes)
    /// and its value.
    String(usize, Option<Box<str>>, Rc<str>),
    /// `.A.B`: the field names joined by dots (`A.B`); one allocation however long.
    Field(usize, Box<str>),
    /// `$x.A.B`: the variable name (with `$`), then field names, joined by dots.
    Variable(usize, Box<str>),
    /// A function name.
    Identifier(usize, String),
    /// `(pipeline).A.B`, or fields of another term: the term and its fields joined by dots.
    Chain(usize, Box<Arg>, Box<str>),
    /// `(pipeline)`.
    Pipe(Box<Pipe>),
}

/// A number constant: its text and the value Go would make of it as an `interface{}`
/// argument, or the error Go reports on using it (`overflows int`).
#[derive(Debug)]
pub(crate) struct Number {
    /// As written.
    pub text: String,
    /// Go's ideal constant: `int` or `float64`.
    pub value: Result<Value, String>,
}

impl Arg {
    /// The byte offset Go reports for this operand.
    pub(crate) fn pos(&self) -> usize {
        match self {
            Arg::Dot(p)
            | Arg::Nil(p)
            | Arg::Bool(p, _)
            | Arg::Number(p, _)
            | Arg::String(p, _, _)
            | Arg::Field(p, _)
            | Arg::Variable(p, _)
            | Arg::Identifier(p, _)
            | Arg::Chain(p, _, _) => *p,
            Arg::Pipe(p) => p.pos,
        }
    }
}

impl fmt::Display for Pipe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.decl.is_empty() {
            f.write_str(&self.decl.join(", "))?;
            f.write_str(" := ")?;
        }
        for (i, c) in self.cmds.iter().enumerate() {
            if i > 0 {
                f.write_str(" | ")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, a) in self.args.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            match a {
                Arg::Pipe(p) => write!(f, "({p})")?,
                a => write!(f, "{a}")?,
            }
        }
        Ok(())
    }
}

impl fmt::Display for Arg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arg::Dot(_) => f.write_str("."),
            Arg::Nil(_) => f.write_str("nil"),
            Arg::Bool(_, b) => write!(f, "{b}"),
            Arg::Number(_, n) => f.write_str(&n.text),
            Arg::String(_, Some(quoted), _) => f.write_str(quoted),
            Arg::String(_, None, raw) => write!(f, "`{raw}`"),
            Arg::Field(_, path) => write!(f, ".{path}"),
            Arg::Variable(_, path) => f.write_str(path),
            Arg::Identifier(_, name) => f.write_str(name),
            Arg::Chain(_, node, fields) => {
                match &**node {
                    Arg::Pipe(p) => write!(f, "({p})")?,
                    n => write!(f, "{n}")?,
                }
                write!(f, ".{fields}")
            }
            Arg::Pipe(p) => write!(f, "{p}"),
        }
    }
}

impl fmt::Display for TemplateCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = crate::gofmt::quote(&self.name, false);
        match &self.pipe {
            Some(p) => write!(f, "{{{{template {name} {p}}}}}"),
            None => write!(f, "{{{{template {name}}}}}"),
        }
    }
}
