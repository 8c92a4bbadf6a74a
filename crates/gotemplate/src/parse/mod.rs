//! The parser: items into trees, with Go's grammar, scoping checks and error texts.
//!
//! The structure follows Go's `text/template/parse` as documented and observed, including its
//! three-item look-ahead buffer: a parse error names the line of the furthest item read, so
//! keeping the same buffer keeps the same line numbers (`tests/cases/parse_error_line`).

use std::rc::Rc;
use std::sync::Arc;

use crate::ast::{Arg, Branch, Command, List, Node, Number, Pipe, TemplateCall, Tree};
use crate::error::Error;
use crate::lex::{lex, line_at, Item, Kind};
use crate::stack::addr as stack_addr;
use crate::value::Value;
use literal::{is_float_text, parse_float, parse_int, unquote_char, unquote_double};

mod literal;
mod pipeline;

/// How deeply parentheses and control blocks may nest in one file. Go has no limit (its
/// stacks grow); ours keeps the parser within a thread's stack on hostile input (a level
/// costs about 4 KiB unoptimised, so 100 levels fit a test thread's 2 MiB). No chart we
/// know nests past a dozen.
pub const MAX_NESTING: usize = 100;

/// How much stack the parser may use for nesting, in bytes: safe on a 2 MiB thread.
const PARSE_STACK_LIMIT: usize = 1 << 20;

/// What one file parses into: its top-level tree and the trees of its `define`s and
/// `block`s, in the order Go adds them to the set (definitions first, the file last).
#[derive(Debug)]
pub(crate) struct Parsed {
    /// Every tree, the file's own last.
    pub trees: Vec<Tree>,
}

/// A parse-internal node: the list parser also returns `{{end}}` and `{{else}}`.
enum Parsed1 {
    Node(Node),
    End,
    Else,
}

impl std::fmt::Display for Parsed1 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Parsed1::End => f.write_str("{{end}}"),
            Parsed1::Else => f.write_str("{{else}}"),
            Parsed1::Node(_) => f.write_str("node"),
        }
    }
}

struct Parser<'f, 't> {
    file: Rc<str>,
    text: Arc<String>,
    items: Vec<Item<'t>>,
    next_item: usize,
    token: [Item<'t>; 3],
    peek_count: usize,
    vars: Vec<String>,
    /// Where the action being parsed began (Go's actionLine), for error texts.
    action_pos: Option<usize>,
    range_depth: usize,
    depth: usize,
    stack_base: usize,
    has_function: &'f dyn Fn(&str) -> bool,
    trees: Vec<Tree>,
}

type PResult<T> = Result<T, Error>;

/// Parses one file named `file`. `has_function` tells which identifiers are functions: as in
/// Go, calling an unknown function is a parse error.
pub(crate) fn parse(
    file: &str,
    text: &Arc<String>,
    has_function: &dyn Fn(&str) -> bool,
) -> Result<Parsed, Error> {
    let blank = Item {
        kind: Kind::Eof,
        pos: 0,
        val: "".into(),
    };
    let mut p = Parser {
        file: Rc::from(file),
        text: text.clone(),
        items: lex(text),
        next_item: 0,
        token: [blank.clone(), blank.clone(), blank],
        peek_count: 0,
        vars: vec!["$".to_string()],
        action_pos: None,
        range_depth: 0,
        depth: 0,
        stack_base: stack_addr(),
        has_function,
        trees: Vec::new(),
    };
    let root = p.parse_top()?;
    p.add(file.to_string(), root)?;
    Ok(Parsed { trees: p.trees })
}

impl<'t> Parser<'_, 't> {
    fn lex_next(&mut self) -> Item<'t> {
        let i = self.next_item.min(self.items.len() - 1);
        self.next_item += 1;
        self.items[i].clone()
    }

    fn next(&mut self) -> Item<'t> {
        if self.peek_count > 0 {
            self.peek_count -= 1;
        } else {
            self.token[0] = self.lex_next();
        }
        self.token[self.peek_count].clone()
    }

    fn backup(&mut self) {
        self.peek_count += 1;
    }

    fn backup2(&mut self, t1: Item<'t>) {
        self.token[1] = t1;
        self.peek_count = 2;
    }

    fn backup3(&mut self, t2: Item<'t>, t1: Item<'t>) {
        self.token[1] = t1;
        self.token[2] = t2;
        self.peek_count = 3;
    }

    fn peek(&mut self) -> Item<'t> {
        if self.peek_count > 0 {
            return self.token[self.peek_count - 1].clone();
        }
        self.peek_count = 1;
        self.token[0] = self.lex_next();
        self.token[0].clone()
    }

    fn next_non_space(&mut self) -> Item<'t> {
        loop {
            let t = self.next();
            if t.kind != Kind::Space {
                return t;
            }
        }
    }

    fn peek_non_space(&mut self) -> Item<'t> {
        let t = self.next_non_space();
        self.backup();
        t
    }

    /// The line of an item; Go's parse errors name the line of the furthest item read.
    fn line(&self, item: &Item<'_>) -> usize {
        line_at(&self.text, item.pos)
    }

    fn error(&self, message: String) -> Error {
        Error::Parse {
            file: self.file.to_string(),
            line: self.line(&self.token[0]),
            message,
        }
    }

    fn unexpected(&self, token: &Item, context: &str) -> Error {
        if token.kind == Kind::Error {
            let mut extra = String::new();
            let action_line = self.action_pos.map(|p| line_at(&self.text, p)).unwrap_or(0);
            if action_line != 0 && action_line != self.line(token) {
                extra = format!(" in action started at {}:{action_line}", self.file);
                if token.val.ends_with(" action") {
                    extra = extra[" in action".len()..].to_string();
                }
            }
            return self.error(format!("{token}{extra}"));
        }
        self.error(format!("unexpected {token} in {context}"))
    }

    fn expect(&mut self, kind: Kind, context: &str) -> PResult<Item<'t>> {
        let t = self.next_non_space();
        if t.kind != kind {
            return Err(self.unexpected(&t, context));
        }
        Ok(t)
    }

    /// Go's `Tree.add`: a name may be defined twice in one file only if one body is empty.
    fn add(&mut self, name: String, root: List) -> PResult<()> {
        if let Some(i) = self.trees.iter().position(|t| t.name == name) {
            if self.trees[i].root.is_empty_tree(&self.text) {
                self.trees.remove(i);
            } else if !root.is_empty_tree(&self.text) {
                return Err(self.error(format!(
                    "template: multiple definition of template {}",
                    crate::gofmt::quote(&name, false)
                )));
            } else {
                return Ok(());
            }
        }
        self.trees.push(Tree {
            name,
            file: self.file.clone(),
            text: self.text.clone(),
            root,
        });
        Ok(())
    }

    fn parse_top(&mut self) -> PResult<List> {
        let mut nodes = Vec::new();
        while self.peek().kind != Kind::Eof {
            if self.peek().kind == Kind::LeftDelim {
                let delim = self.next();
                if self.next_non_space().kind == Kind::Define {
                    self.parse_definition()?;
                    continue;
                }
                self.backup2(delim);
            }
            match self.text_or_action()? {
                Parsed1::Node(n) => nodes.push(n),
                other => return Err(self.error(format!("unexpected {other}"))),
            }
        }
        Ok(List {
            nodes: nodes.into_boxed_slice(),
        })
    }

    /// Runs `f` as the parse of a separate tree (a define's or a block's body): fresh
    /// variables, no enclosing range, no enclosing action.
    fn in_new_tree<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        let vars = std::mem::replace(&mut self.vars, vec!["$".to_string()]);
        let range_depth = std::mem::replace(&mut self.range_depth, 0);
        let action_pos = self.action_pos.take();
        let r = f(self);
        self.vars = vars;
        self.range_depth = range_depth;
        self.action_pos = action_pos;
        r
    }

    fn parse_definition(&mut self) -> PResult<()> {
        self.in_new_tree(|p| {
            let context = "define clause";
            let t = p.next_non_space();
            if t.kind != Kind::String && t.kind != Kind::RawString {
                return Err(p.unexpected(&t, context));
            }
            let name = p.unquote(&t)?.to_string();
            p.expect(Kind::RightDelim, context)?;
            let (list, end) = p.item_list()?;
            if !matches!(end, Parsed1::End) {
                return Err(p.error(format!("unexpected {end} in {context}")));
            }
            p.add(name, list)
        })
    }

    fn item_list(&mut self) -> PResult<(List, Parsed1)> {
        let mut nodes = Vec::new();
        while self.peek_non_space().kind != Kind::Eof {
            match self.text_or_action()? {
                Parsed1::Node(n) => nodes.push(n),
                other => {
                    let list = List {
                        nodes: nodes.into_boxed_slice(),
                    };
                    return Ok((list, other));
                }
            }
        }
        Err(self.error("unexpected EOF".into()))
    }

    fn text_or_action(&mut self) -> PResult<Parsed1> {
        let t = self.next_non_space();
        match t.kind {
            Kind::Text => Ok(Parsed1::Node(Node::Text(t.pos..t.pos + t.val.len()))),
            Kind::LeftDelim => {
                self.action_pos = Some(t.pos);
                let r = self.action();
                self.action_pos = None;
                r
            }
            _ => Err(self.unexpected(&t, "input")),
        }
    }

    fn action(&mut self) -> PResult<Parsed1> {
        let t = self.next_non_space();
        let node = match t.kind {
            Kind::Block => self.block_control()?,
            Kind::Break | Kind::Continue => self.break_control(&t)?,
            Kind::Else => return self.else_control(),
            Kind::End => {
                self.expect(Kind::RightDelim, "end")?;
                return Ok(Parsed1::End);
            }
            Kind::If => Node::If(Box::new(self.parse_control("if")?)),
            Kind::Range => Node::Range(Box::new(self.parse_control("range")?)),
            Kind::Template => self.template_control()?,
            Kind::With => Node::With(Box::new(self.parse_control("with")?)),
            _ => {
                self.backup();
                Node::Action(Box::new(self.pipeline("command", Kind::RightDelim)?))
            }
        };
        Ok(Parsed1::Node(node))
    }

    fn break_control(&mut self, kw: &Item) -> PResult<Node> {
        let word = if kw.kind == Kind::Break {
            "break"
        } else {
            "continue"
        };
        let t = self.next_non_space();
        if t.kind != Kind::RightDelim {
            return Err(self.unexpected(&t, &format!("{{{{{word}}}}}")));
        }
        if self.range_depth == 0 {
            return Err(self.error(format!("{{{{{word}}}}} outside {{{{range}}}}")));
        }
        Ok(if kw.kind == Kind::Break {
            Node::Break
        } else {
            Node::Continue
        })
    }

    fn else_control(&mut self) -> PResult<Parsed1> {
        let peek = self.peek_non_space();
        if peek.kind == Kind::If || peek.kind == Kind::With {
            // `{{else if}}` and `{{else with}}`: the keyword stays for the caller.
            return Ok(Parsed1::Else);
        }
        self.expect(Kind::RightDelim, "else")?;
        Ok(Parsed1::Else)
    }

    fn nest(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.error(format!("nesting deeper than {MAX_NESTING} levels")));
        }
        // The level count keeps errors predictable; the measured stack keeps a build with
        // larger frames (an unoptimised one) from overflowing before the count is reached.
        if self.stack_base.abs_diff(stack_addr()) > PARSE_STACK_LIMIT {
            return Err(self.error(format!(
                "nesting too deep for the parser's stack budget ({PARSE_STACK_LIMIT} bytes)"
            )));
        }
        Ok(())
    }

    fn parse_control(&mut self, context: &str) -> PResult<Branch> {
        self.nest()?;
        let mark = self.vars.len();
        let r = self.parse_control_inner(context);
        self.vars.truncate(mark);
        self.depth -= 1;
        r
    }

    fn parse_control_inner(&mut self, context: &str) -> PResult<Branch> {
        let pipe = self.pipeline(context, Kind::RightDelim)?;
        if context == "range" {
            self.range_depth += 1;
        }
        let listed = self.item_list();
        if context == "range" {
            self.range_depth -= 1;
        }
        let (list, next) = listed?;
        let mut else_list = None;
        if let Parsed1::Else = next {
            if context == "if" && self.peek().kind == Kind::If {
                self.next();
                let inner = self.parse_control("if")?;
                else_list = Some(List {
                    nodes: Box::new([Node::If(Box::new(inner))]),
                });
            } else if context == "with" && self.peek().kind == Kind::With {
                self.next();
                let inner = self.parse_control("with")?;
                else_list = Some(List {
                    nodes: Box::new([Node::With(Box::new(inner))]),
                });
            } else {
                let (l, next) = self.item_list()?;
                if !matches!(next, Parsed1::End) {
                    return Err(self.error(format!("expected end; found {next}")));
                }
                else_list = Some(l);
            }
        }
        Ok(Branch {
            pipe,
            list,
            else_list,
        })
    }

    fn template_name(&mut self, t: &Item, context: &str) -> PResult<String> {
        match t.kind {
            Kind::String | Kind::RawString => self.unquote(t).map(|name| name.to_string()),
            _ => Err(self.unexpected(t, context)),
        }
    }

    fn template_control(&mut self) -> PResult<Node> {
        let context = "template clause";
        let t = self.next_non_space();
        let name = self.template_name(&t, context)?;
        let pipe = if self.next_non_space().kind != Kind::RightDelim {
            self.backup();
            Some(self.pipeline(context, Kind::RightDelim)?)
        } else {
            None
        };
        Ok(Node::Template(Box::new(TemplateCall {
            pos: t.pos,
            name,
            pipe,
        })))
    }

    fn block_control(&mut self) -> PResult<Node> {
        let context = "block clause";
        let t = self.next_non_space();
        let name = self.template_name(&t, context)?;
        let pipe = self.pipeline(context, Kind::RightDelim)?;
        self.nest()?;
        let body = self.in_new_tree(|p| {
            let (list, end) = p.item_list()?;
            if !matches!(end, Parsed1::End) {
                return Err(p.error(format!("unexpected {end} in {context}")));
            }
            Ok(list)
        });
        self.depth -= 1;
        self.add(name.clone(), body?)?;
        Ok(Node::Template(Box::new(TemplateCall {
            pos: t.pos,
            name,
            pipe: Some(pipe),
        })))
    }
}

#[cfg(test)]
mod tests;
