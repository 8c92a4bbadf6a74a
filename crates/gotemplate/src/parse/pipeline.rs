//! Pipelines, commands and operands: what goes between an action's delimiters.

use super::*;

impl<'t> Parser<'_, 't> {
    pub(super) fn pipeline(&mut self, context: &str, end: Kind) -> PResult<Pipe> {
        let token = self.peek_non_space();
        let mut pipe = Pipe {
            pos: token.pos,
            is_assign: false,
            decl: Vec::new(),
            cmds: Box::default(),
        };
        let mut cmds = Vec::new();
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
                    pipe.cmds = cmds.into_boxed_slice();
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
                    cmds.push(cmd);
                }
                _ => return Err(self.unexpected(&t, context)),
            }
        }
    }

    pub(super) fn check_pipeline(&self, pipe: &Pipe, context: &str) -> PResult<()> {
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

    pub(super) fn command(&mut self) -> PResult<Command> {
        let pos = self.peek_non_space().pos;
        let mut args = Vec::new();
        loop {
            self.peek_non_space();
            if let Some(op) = self.operand()? {
                args.push(op);
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
        if args.is_empty() {
            return Err(self.error("empty command".into()));
        }
        Ok(Command {
            pos,
            args: args.into_boxed_slice(),
        })
    }

    pub(super) fn operand(&mut self) -> PResult<Option<Arg>> {
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

    pub(super) fn term(&mut self) -> PResult<Option<Arg>> {
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
                Arg::Number(t.pos, Box::new(n))
            }
            Kind::LeftParen => {
                self.nest()?;
                let p = self.pipeline("parenthesized pipeline", Kind::RightParen);
                self.depth -= 1;
                Arg::Pipe(Box::new(p?))
            }
            Kind::String | Kind::RawString => {
                let value = self.unquote(&t)?;
                // A raw string's source is its value in backquotes unless it held a CR (which
                // the value drops): kept only then, as charts embed whole dashboards in them.
                let source = match t.kind {
                    Kind::RawString if !t.val.contains('\r') => None,
                    _ => Some(t.val.as_ref().into()),
                };
                Arg::String(t.pos, source, value)
            }
            _ => {
                self.backup();
                return Ok(None);
            }
        };
        Ok(Some(arg))
    }

    pub(super) fn unquote(&self, t: &Item) -> PResult<Rc<str>> {
        let r = if t.kind == Kind::RawString {
            let inner = &t.val[1..t.val.len() - 1];
            Some(match inner.contains('\r') {
                true => Rc::from(inner.replace('\r', "")),
                false => Rc::from(inner),
            })
        } else {
            unquote_double(&t.val)
        };
        r.ok_or_else(|| self.error("invalid syntax".into()))
    }

    /// Go's `newNumber` plus the value `idealConstant` makes of it at run time.
    pub(super) fn number(&self, t: &Item) -> PResult<Number> {
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
