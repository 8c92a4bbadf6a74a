//! The parser: items into trees, with Go's grammar, scoping checks and error texts.
//!
//! The structure follows Go's `text/template/parse` as documented and observed, including its
//! three-item look-ahead buffer: a parse error names the line of the furthest item read, so
//! keeping the same buffer keeps the same line numbers (`tests/cases/parse_error_line`).

use std::rc::Rc;

use crate::ast::{Arg, Branch, Command, List, Node, Number, Pipe, TemplateCall, Tree};
use crate::error::Error;
use crate::lex::{lex, line_at, Item, Kind};
use crate::stack::addr as stack_addr;
use crate::value::Value;
use literal::{is_float_text, parse_float, parse_int, unquote_char, unquote_double};

mod literal;

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
    text: Rc<str>,
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
    text: &str,
    has_function: &dyn Fn(&str) -> bool,
) -> Result<Parsed, Error> {
    let blank = Item {
        kind: Kind::Eof,
        pos: 0,
        val: "".into(),
    };
    let mut p = Parser {
        file: Rc::from(file),
        text: Rc::from(text),
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
        let mut root = List::default();
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
                Parsed1::Node(n) => root.nodes.push(n),
                other => return Err(self.error(format!("unexpected {other}"))),
            }
        }
        Ok(root)
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
            let name = p.unquote(&t)?;
            p.expect(Kind::RightDelim, context)?;
            let (list, end) = p.item_list()?;
            if !matches!(end, Parsed1::End) {
                return Err(p.error(format!("unexpected {end} in {context}")));
            }
            p.add(name, list)
        })
    }

    fn item_list(&mut self) -> PResult<(List, Parsed1)> {
        let mut list = List::default();
        while self.peek_non_space().kind != Kind::Eof {
            match self.text_or_action()? {
                Parsed1::Node(n) => list.nodes.push(n),
                other => return Ok((list, other)),
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
            Kind::If => Node::If(self.parse_control("if")?),
            Kind::Range => Node::Range(self.parse_control("range")?),
            Kind::Template => self.template_control()?,
            Kind::With => Node::With(self.parse_control("with")?),
            _ => {
                self.backup();
                Node::Action(self.pipeline("command", Kind::RightDelim)?)
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
                    nodes: vec![Node::If(inner)],
                });
            } else if context == "with" && self.peek().kind == Kind::With {
                self.next();
                let inner = self.parse_control("with")?;
                else_list = Some(List {
                    nodes: vec![Node::With(inner)],
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
            Kind::String | Kind::RawString => self.unquote(t),
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
        Ok(Node::Template(TemplateCall {
            pos: t.pos,
            name,
            pipe,
        }))
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
        Ok(Node::Template(TemplateCall {
            pos: t.pos,
            name,
            pipe: Some(pipe),
        }))
    }

    fn pipeline(&mut self, context: &str, end: Kind) -> PResult<Pipe> {
        let token = self.peek_non_space();
        let mut pipe = Pipe {
            pos: token.pos,
            is_assign: false,
            decl: Vec::new(),
            cmds: Vec::new(),
        };
        // Declarations: `$x :=`, `$x =`, and in range `$i, $x :=`.
        loop {
            let v = self.peek_non_space();
            if v.kind != Kind::Variable {
                break;
            }
            self.next();
            let after = self.peek();
            let next = self.peek_non_space();
            if next.kind == Kind::Assign || next.kind == Kind::Declare {
                pipe.is_assign = next.kind == Kind::Assign;
                self.next_non_space();
                pipe.decl.push(v.val.to_string());
                self.vars.push(v.val.into_owned());
                break;
            } else if next.kind == Kind::Char && next.val == "," {
                self.next_non_space();
                pipe.decl.push(v.val.to_string());
                self.vars.push(v.val.into_owned());
                if context == "range" && pipe.decl.len() < 2 {
                    match self.peek_non_space().kind {
                        Kind::Variable | Kind::RightDelim | Kind::RightParen => continue,
                        _ => return Err(self.error("range can only initialize variables".into())),
                    }
                }
                return Err(self.error(format!("too many declarations in {context}")));
            } else if after.kind == Kind::Space {
                self.backup3(v, after);
                break;
            } else {
                self.backup2(v);
                break;
            }
        }
        loop {
            let t = self.next_non_space();
            match t.kind {
                k if k == end => {
                    self.check_pipeline(&pipe, context)?;
                    return Ok(pipe);
                }
                Kind::Bool
                | Kind::CharConstant
                | Kind::Complex
                | Kind::Dot
                | Kind::Field
                | Kind::Identifier
                | Kind::Number
                | Kind::Nil
                | Kind::RawString
                | Kind::String
                | Kind::Variable
                | Kind::LeftParen => {
                    self.backup();
                    let cmd = self.command()?;
                    pipe.cmds.push(cmd);
                }
                _ => return Err(self.unexpected(&t, context)),
            }
        }
    }

    fn check_pipeline(&self, pipe: &Pipe, context: &str) -> PResult<()> {
        if pipe.cmds.is_empty() {
            return Err(self.error(format!("missing value for {context}")));
        }
        for (i, c) in pipe.cmds.iter().enumerate().skip(1) {
            if matches!(
                c.args.first(),
                Some(Arg::Bool(..) | Arg::Dot(_) | Arg::Nil(_) | Arg::Number(..) | Arg::String(..))
            ) {
                return Err(self.error(format!(
                    "non executable command in pipeline stage {}",
                    i + 1
                )));
            }
        }
        Ok(())
    }

    fn command(&mut self) -> PResult<Command> {
        let pos = self.peek_non_space().pos;
        let mut cmd = Command {
            pos,
            args: Vec::new(),
        };
        loop {
            self.peek_non_space();
            if let Some(op) = self.operand()? {
                cmd.args.push(op);
            }
            let t = self.next();
            match t.kind {
                Kind::Space => continue,
                Kind::RightDelim | Kind::RightParen => self.backup(),
                Kind::Pipe => {}
                _ => return Err(self.unexpected(&t, "operand")),
            }
            break;
        }
        if cmd.args.is_empty() {
            return Err(self.error("empty command".into()));
        }
        Ok(cmd)
    }

    fn operand(&mut self) -> PResult<Option<Arg>> {
        let Some(node) = self.term()? else {
            return Ok(None);
        };
        if self.peek().kind != Kind::Field {
            return Ok(Some(node));
        }
        let pos = self.peek().pos;
        let mut fields = String::new();
        while self.peek().kind == Kind::Field {
            let f = self.next();
            if !fields.is_empty() {
                fields.push('.');
            }
            fields.push_str(&f.val[1..]);
        }
        Ok(Some(match node {
            Arg::Field(_, path) => Arg::Field(pos, format!("{path}.{fields}").into_boxed_str()),
            Arg::Variable(_, path) => {
                Arg::Variable(pos, format!("{path}.{fields}").into_boxed_str())
            }
            Arg::Bool(..) | Arg::String(..) | Arg::Number(..) | Arg::Nil(_) | Arg::Dot(_) => {
                let q = crate::gofmt::quote(&node.to_string(), false);
                return Err(self.error(format!("unexpected . after term {q}")));
            }
            other => Arg::Chain(pos, Box::new(other), fields.into_boxed_str()),
        }))
    }

    fn term(&mut self) -> PResult<Option<Arg>> {
        let t = self.next_non_space();
        let arg = match t.kind {
            Kind::Identifier => {
                if !(self.has_function)(&t.val) {
                    let q = crate::gofmt::quote(&t.val, false);
                    return Err(self.error(format!("function {q} not defined")));
                }
                Arg::Identifier(t.pos, t.val.into_owned())
            }
            Kind::Dot => Arg::Dot(t.pos),
            Kind::Nil => Arg::Nil(t.pos),
            Kind::Variable => {
                if !self.vars.iter().any(|v| *v == t.val) {
                    let q = crate::gofmt::quote(&t.val, false);
                    return Err(self.error(format!("undefined variable {q}")));
                }
                Arg::Variable(t.pos, t.val.into())
            }
            Kind::Field => Arg::Field(t.pos, t.val[1..].into()),
            Kind::Bool => Arg::Bool(t.pos, t.val == "true"),
            Kind::CharConstant | Kind::Complex | Kind::Number => {
                let n = self.number(&t)?;
                Arg::Number(t.pos, n)
            }
            Kind::LeftParen => {
                self.nest()?;
                let p = self.pipeline("parenthesized pipeline", Kind::RightParen);
                self.depth -= 1;
                Arg::Pipe(Box::new(p?))
            }
            Kind::String | Kind::RawString => {
                let s = self.unquote(&t)?;
                Arg::String(t.pos, t.val.into_owned(), Rc::from(s))
            }
            _ => {
                self.backup();
                return Ok(None);
            }
        };
        Ok(Some(arg))
    }

    fn unquote(&self, t: &Item) -> PResult<String> {
        let r = if t.kind == Kind::RawString {
            Some(t.val[1..t.val.len() - 1].replace('\r', ""))
        } else {
            unquote_double(&t.val)
        };
        r.ok_or_else(|| self.error("invalid syntax".into()))
    }

    /// Go's `newNumber` plus the value `idealConstant` makes of it at run time.
    fn number(&self, t: &Item) -> PResult<Number> {
        let text = t.val.to_string();
        if t.kind == Kind::CharConstant {
            let inner = &text[1..];
            let (c, tail) =
                unquote_char(inner, '\'').ok_or_else(|| self.error("invalid syntax".into()))?;
            if tail != "'" {
                return Err(self.error(format!("malformed character constant: {text}")));
            }
            return Ok(Number {
                value: Ok(Value::Int(c as i64)),
                text,
            });
        }
        if t.kind == Kind::Complex || text.ends_with('i') {
            // Go has complex constants; Helm's functions cannot use them, so we refuse them
            // while parsing rather than carry a complex type through the interpreter.
            return Err(self.error(format!(
                "complex number constants are not supported: {text}"
            )));
        }
        let int = parse_int(&text);
        let value = match int {
            Some(i) if i >= i64::MIN as i128 && i <= i64::MAX as i128 => {
                if is_float_text(&text) {
                    Ok(Value::Float(parse_float(&text).unwrap_or(i as f64)))
                } else {
                    Ok(Value::Int(i as i64))
                }
            }
            Some(i) if i >= 0 && i <= u64::MAX as i128 => {
                if is_float_text(&text) {
                    Ok(Value::Float(i as f64))
                } else {
                    Err(format!("{text} overflows int"))
                }
            }
            Some(_) => {
                return Err(self.error(format!(
                    "integer overflow: {}",
                    crate::gofmt::quote(&text, false)
                )))
            }
            None => match parse_float(&text) {
                Some(f) => {
                    if !text.contains(['.', 'e', 'E', 'p', 'P']) {
                        let q = crate::gofmt::quote(&text, false);
                        return Err(self.error(format!("integer overflow: {q}")));
                    }
                    Ok(Value::Float(f))
                }
                None => {
                    let q = crate::gofmt::quote(&text, false);
                    return Err(self.error(format!("illegal number syntax: {q}")));
                }
            },
        };
        Ok(Number { text, value })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Result<Parsed, Error> {
        parse("t", text, &|name| matches!(name, "printf" | "len"))
    }

    fn msg(text: &str) -> String {
        p(text).err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn unknown_functions_fail_to_parse() {
        assert_eq!(
            msg("{{ nosuch 1 }}"),
            "template: t:1: function \"nosuch\" not defined"
        );
    }

    #[test]
    fn undefined_variables_fail_to_parse() {
        assert_eq!(msg("{{ $y }}"), "template: t:1: undefined variable \"$y\"");
        assert_eq!(
            msg("{{ if true }}{{ $y := 1 }}{{ end }}{{ $y }}"),
            "template: t:1: undefined variable \"$y\""
        );
    }

    #[test]
    fn defines_become_separate_trees_before_the_file() {
        let parsed = p("{{ define \"x\" }}a{{ end }}b")
            .map(|p| p.trees)
            .unwrap_or_default();
        let names: Vec<_> = parsed.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["x", "t"]);
    }

    #[test]
    fn number_literals_follow_go() {
        let n = |s: &str| match p(&format!("{{{{ {s} }}}}"))
            .map(|mut p| p.trees.remove(0).root.nodes.remove(0))
        {
            Ok(Node::Action(mut pipe)) => match pipe.cmds.remove(0).args.remove(0) {
                Arg::Number(_, n) => n.value,
                _ => Err("not a number".into()),
            },
            _ => Err("no action".into()),
        };
        assert_eq!(n("0x1F"), Ok(Value::Int(31)));
        assert_eq!(n("0o17"), Ok(Value::Int(15)));
        assert_eq!(n("017"), Ok(Value::Int(15)));
        assert_eq!(n("1_000"), Ok(Value::Int(1000)));
        assert_eq!(n("1e3"), Ok(Value::Float(1000.0)));
        assert_eq!(n("0x1p4"), Ok(Value::Float(16.0)));
        assert_eq!(n("'a'"), Ok(Value::Int(97)));
    }

    #[test]
    fn nesting_past_the_limit_is_an_error_not_a_crash() {
        let deep = format!(
            "{{{{ {}1{} }}}}",
            "(".repeat(MAX_NESTING + 1),
            ")".repeat(MAX_NESTING + 1)
        );
        assert!(msg(&deep).contains("nesting deeper than"));
    }
}
