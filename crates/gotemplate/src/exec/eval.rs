//! Evaluating pipelines, commands, fields, variables and function calls: what an action's
//! `{{ ... }}` computes, with Go's errors.

use super::*;

impl<'a> State<'a> {
    pub(super) fn eval_pipeline(&mut self, dot: &Slot, pipe: &'a Pipe) -> R<Slot> {
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

    pub(super) fn eval_nested_pipeline(&mut self, dot: &Slot, pipe: &'a Pipe) -> R<Slot> {
        self.enter()?;
        let r = self.eval_pipeline(dot, pipe);
        self.depth -= 1;
        r
    }

    pub(super) fn not_a_function(&self, args: &[Arg], fin: &Option<Slot>) -> R<()> {
        if args.len() > 1 || fin.is_some() {
            return Err(self.error(format!("can't give argument to non-function {}", args[0])));
        }
        Ok(())
    }

    pub(super) fn eval_command(
        &mut self,
        dot: &Slot,
        cmd: &'a Command,
        fin: Option<Slot>,
    ) -> R<Slot> {
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

    pub(super) fn eval_chain(
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

    pub(super) fn eval_variable(
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
    pub(super) fn eval_field_chain(
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

    pub(super) fn eval_field(
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
    pub(super) fn map_field(&self, m: &Rc<RefCell<Map>>, name: &str, has_args: bool) -> R<Slot> {
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
    pub(super) fn eval_arg(&mut self, dot: &Slot, arg: &'a Arg) -> R<Slot> {
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

    pub(super) fn eval_function(
        &mut self,
        dot: &Slot,
        ident: &'a Arg,
        name: &'a str,
        cmd: &'a Command,
        fin: Option<Slot>,
    ) -> R<Slot> {
        self.eval_function_args(dot, ident, name, &cmd.args, fin, Some(cmd))
    }

    pub(super) fn eval_function_args(
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
