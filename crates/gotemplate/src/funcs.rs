//! Go's builtin template functions: `and or not`, the comparisons, `len index slice`,
//! `print printf println`, `html js urlquery` and `call`.
//!
//! Messages are Go's (`incompatible types for comparison`, `index out of range: 5`, ...), as
//! recorded through Helm in `tests/cases/`. The comparisons and `len`/`index` see Go's two
//! kinds of nil (see `exec`), because Go's messages differ between them.

use std::collections::HashMap;

use crate::error::FuncError;
use crate::exec::Slot;
use crate::gofmt;
use crate::template::{Arity, Func};
use crate::value::Value;

/// One of Go's builtins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Builtin {
    And,
    Or,
    Not,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Len,
    Index,
    Slice,
    Print,
    Printf,
    Println,
    Html,
    Js,
    Urlquery,
    Call,
}

impl Builtin {
    pub(crate) fn arity(self) -> Arity {
        use Builtin::*;
        match self {
            And | Or | Eq | Index | Slice | Printf | Call => Arity::AtLeast(1),
            Not | Len => Arity::Exact(1),
            Ne | Lt | Le | Gt | Ge => Arity::Exact(2),
            Print | Println | Html | Js | Urlquery => Arity::AtLeast(0),
        }
    }
}

/// The builtin table every set starts with.
pub(crate) fn builtins() -> HashMap<String, Func> {
    use Builtin::*;
    let table = [
        ("and", And),
        ("or", Or),
        ("not", Not),
        ("eq", Eq),
        ("ne", Ne),
        ("lt", Lt),
        ("le", Le),
        ("gt", Gt),
        ("ge", Ge),
        ("len", Len),
        ("index", Index),
        ("slice", Slice),
        ("print", Print),
        ("printf", Printf),
        ("println", Println),
        ("html", Html),
        ("js", Js),
        ("urlquery", Urlquery),
        ("call", Call),
    ];
    table
        .into_iter()
        .map(|(n, b)| (n.to_string(), Func::Builtin(b)))
        .collect()
}

type FResult = Result<Slot, FuncError>;

fn plain(v: Value) -> FResult {
    Ok(Slot { v, boxed: false })
}

/// Calls a builtin other than `and`/`or` (the interpreter evaluates those itself).
pub(crate) fn call_builtin(b: Builtin, argv: &[Slot]) -> FResult {
    use Builtin::*;
    let values = || argv.iter().map(|s| s.v.clone()).collect::<Vec<_>>();
    match b {
        And | Or => plain(argv.last().map(|s| s.v.clone()).unwrap_or_default()),
        Not => plain(Value::Bool(!argv[0].v.is_true())),
        Eq => plain(Value::Bool(eq(&argv[0].v, &argv[1..])?)),
        Ne => plain(Value::Bool(!eq(&argv[0].v, &argv[1..2])?)),
        Lt => plain(Value::Bool(lt(&argv[0].v, &argv[1].v)?)),
        Le => plain(Value::Bool(le(&argv[0].v, &argv[1].v)?)),
        Gt => plain(Value::Bool(!le(&argv[0].v, &argv[1].v)?)),
        Ge => plain(Value::Bool(!lt(&argv[0].v, &argv[1].v)?)),
        Len => len(&argv[0]),
        Index => index(&argv[0], &argv[1..]),
        Slice => slice(&argv[0], &argv[1..]),
        Print => plain(Value::from(gofmt::sprint(&values()))),
        Println => plain(Value::from(gofmt::sprintln(&values()))),
        Printf => match &argv[0].v {
            Value::String(f) => plain(Value::from(gofmt::sprintf(f, &values()[1..]))),
            _ => Err(FuncError::WrongType {
                index: 0,
                expected: "string".into(),
            }),
        },
        Html => plain(Value::from(html_escape(&eval_args(argv)))),
        Js => plain(Value::from(js_escape(&eval_args(argv)))),
        Urlquery => plain(Value::from(query_escape(&eval_args(argv)))),
        Call => match &argv[0].v {
            Value::Null => Err("call of nil".into()),
            v => Err(format!("non-function of type {}", v.type_name()).into()),
        },
    }
}

/// Go's `evalArgs` for the escapers: one string as is, else `fmt.Sprint` of the operands
/// with nil printed as `<no value>`.
fn eval_args(argv: &[Slot]) -> String {
    if let [Slot {
        v: Value::String(s),
        ..
    }] = argv
    {
        return s.to_string();
    }
    let vals: Vec<Value> = argv
        .iter()
        .map(|s| {
            if s.v.is_nil() {
                Value::str("<no value>")
            } else {
                s.v.clone()
            }
        })
        .collect();
    gofmt::sprint(&vals)
}

/// Go's basic kinds for comparison; `None` for kinds that only `eq` compares (nil, lists,
/// maps, objects).
#[derive(PartialEq)]
enum Kind {
    Bool,
    Int,
    Float,
    String,
}

fn basic_kind(v: &Value) -> Option<Kind> {
    match v {
        Value::Bool(_) => Some(Kind::Bool),
        Value::Int(_) | Value::Int64(_) => Some(Kind::Int),
        Value::Float(_) => Some(Kind::Float),
        Value::String(_) => Some(Kind::String),
        _ => None,
    }
}

const INCOMPATIBLE: &str = "incompatible types for comparison";
const BAD_TYPE: &str = "invalid type for comparison";

fn fmt_s(v: &Value) -> String {
    gofmt::sprintf("%s", std::slice::from_ref(v))
}

/// Go's `eq`: true if the first operand equals any of the others.
fn eq(a: &Value, rest: &[Slot]) -> Result<bool, FuncError> {
    if rest.is_empty() {
        return Err("missing argument for comparison".into());
    }
    let k1 = basic_kind(a);
    for s in rest {
        let b = &s.v;
        let k2 = basic_kind(b);
        let truth = if k1 != k2 {
            // Different kinds compare unequal only when one side is nil.
            if !a.is_nil() && !b.is_nil() {
                return Err(INCOMPATIBLE.into());
            }
            false
        } else {
            match (a, b) {
                (Value::Bool(x), Value::Bool(y)) => x == y,
                (Value::Float(x), Value::Float(y)) => x == y,
                (Value::String(x), Value::String(y)) => x == y,
                _ if k1 == Some(Kind::Int) => a.as_int() == b.as_int(),
                (Value::Null, _) | (_, Value::Null) => a.is_nil() && b.is_nil(),
                _ => {
                    if std::mem::discriminant(a) != std::mem::discriminant(b) {
                        return Err(format!(
                            // Go's format is "%s: %v, %s: %v" over (a, a's type, b's type, b).
                            "non-comparable types {}: {}, {}: {}",
                            fmt_s(a),
                            a.type_name(),
                            b.type_name(),
                            b
                        )
                        .into());
                    }
                    match (a, b) {
                        (Value::Object(x), Value::Object(y)) if a.as_map().is_none() => {
                            std::rc::Rc::ptr_eq(x, y)
                        }
                        _ => {
                            return Err(format!(
                                "non-comparable type {}: {}",
                                fmt_s(b),
                                b.type_name()
                            )
                            .into())
                        }
                    }
                }
            }
        };
        if truth {
            return Ok(true);
        }
    }
    Ok(false)
}

fn lt(a: &Value, b: &Value) -> Result<bool, FuncError> {
    let k1 = basic_kind(a).ok_or(BAD_TYPE)?;
    let k2 = basic_kind(b).ok_or(BAD_TYPE)?;
    if k1 != k2 {
        return Err(INCOMPATIBLE.into());
    }
    Ok(match (a, b) {
        (Value::Float(x), Value::Float(y)) => x < y,
        (Value::String(x), Value::String(y)) => x.as_bytes() < y.as_bytes(),
        (Value::Bool(_), _) => return Err(BAD_TYPE.into()),
        _ => a.as_int() < b.as_int(),
    })
}

fn le(a: &Value, b: &Value) -> Result<bool, FuncError> {
    if lt(a, b)? {
        return Ok(true);
    }
    eq(
        a,
        &[Slot {
            v: b.clone(),
            boxed: false,
        }],
    )
}

fn len(s: &Slot) -> FResult {
    let n = match &s.v {
        // Go takes the type of the invalid value and panics; Helm shows the panic's text.
        Value::Null if !s.boxed => {
            return Err("reflect: call of reflect.Value.Type on zero Value".into())
        }
        Value::Null => return Err("len of nil pointer".into()),
        Value::String(x) => x.len(),
        Value::Seq(l) => l.len(),
        v => match v.as_map() {
            Some(m) => m.borrow().len(),
            None => return Err(format!("len of type {}", v.type_name()).into()),
        },
    };
    plain(Value::Int(n as i64))
}

/// Go's `indexArg`: an integer index within `0..=cap`.
fn index_arg(i: &Value, cap: usize) -> Result<usize, FuncError> {
    let x = match i {
        Value::Int(x) | Value::Int64(x) => *x,
        Value::Null => return Err("cannot index slice/array with nil".into()),
        v => return Err(format!("cannot index slice/array with type {}", v.type_name()).into()),
    };
    if x < 0 || x as u64 > cap as u64 {
        return Err(format!("index out of range: {x}").into());
    }
    Ok(x as usize)
}

fn index(item: &Slot, keys: &[Slot]) -> FResult {
    if item.v.is_nil() {
        return Err("index of untyped nil".into());
    }
    let mut cur = item.clone();
    for k in keys {
        let next = match &cur.v {
            Value::Null => return Err("index of nil pointer".into()),
            Value::Seq(l) => {
                let x = index_arg(&k.v, l.len())?;
                match l.get(x) {
                    Some(v) => Slot {
                        v: v.clone(),
                        boxed: true,
                    },
                    None => return Err("reflect: slice index out of range".into()),
                }
            }
            Value::String(s) => {
                let x = index_arg(&k.v, s.len())?;
                match s.as_bytes().get(x) {
                    Some(b) => Slot {
                        v: Value::Int(i64::from(*b)),
                        boxed: false,
                    },
                    None => return Err("reflect: string index out of range".into()),
                }
            }
            v if v.as_map().is_some() => {
                let key = match &k.v {
                    Value::String(s) => s.clone(),
                    Value::Null => return Err("value is nil; should be of type string".into()),
                    v => {
                        return Err(
                            format!("value has type {}; should be string", v.type_name()).into(),
                        )
                    }
                };
                let found = v.as_map().and_then(|m| m.borrow().get(&*key).cloned());
                Slot {
                    v: found.unwrap_or(Value::Null),
                    boxed: true,
                }
            }
            v => return Err(format!("can't index item of type {}", v.type_name()).into()),
        };
        cur = next;
    }
    Ok(cur)
}

fn slice(item: &Slot, idx: &[Slot]) -> FResult {
    if item.v.is_nil() {
        return Err("slice of untyped nil".into());
    }
    if idx.len() > 3 {
        return Err(format!("too many slice indexes: {}", idx.len()).into());
    }
    let len = match &item.v {
        Value::String(s) => {
            if idx.len() == 3 {
                return Err("cannot 3-index slice a string".into());
            }
            s.len()
        }
        Value::Seq(l) => l.len(),
        v => return Err(format!("can't slice item of type {}", v.type_name()).into()),
    };
    let mut bounds = [0, len, len];
    for (i, x) in idx.iter().enumerate() {
        bounds[i] = index_arg(&x.v, len)?;
    }
    if bounds[0] > bounds[1] {
        return Err(format!("invalid slice index: {} > {}", bounds[0], bounds[1]).into());
    }
    if idx.len() == 3 && bounds[1] > bounds[2] {
        return Err(format!("invalid slice index: {} > {}", bounds[1], bounds[2]).into());
    }
    match &item.v {
        Value::String(s) => match s.get(bounds[0]..bounds[1]) {
            Some(sub) => plain(Value::str(sub)),
            // Go slices bytes; a cut inside a UTF-8 sequence keeps the bytes, which a Rust
            // string cannot hold, so the cut is refused instead.
            None => Err("slice bounds split a UTF-8 sequence".into()),
        },
        Value::Seq(l) => plain(Value::seq(l[bounds[0]..bounds[1]].to_vec())),
        _ => Err("unreachable".into()),
    }
}

/// Go's `template.HTMLEscapeString`.
pub(crate) fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\0' => out.push('\u{FFFD}'),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// Go's `template.JSEscapeString`.
pub(crate) fn js_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '<' => out.push_str("\\u003C"),
            '>' => out.push_str("\\u003E"),
            '&' => out.push_str("\\u0026"),
            '=' => out.push_str("\\u003D"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c if c.is_ascii() => out.push(c),
            c if gofmt::is_print(c) => out.push(c),
            c => out.push_str(&format!("\\u{:04X}", c as u32)),
        }
    }
    out
}

/// Go's `url.QueryEscape`.
pub(crate) fn query_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: Value) -> Slot {
        Slot { v, boxed: false }
    }

    #[test]
    fn eq_refuses_int_against_float() {
        assert_eq!(
            eq(&Value::Float(42.0), &[s(Value::Int(42))]),
            Err(INCOMPATIBLE.into())
        );
    }

    #[test]
    fn eq_is_false_against_nil_without_error() {
        assert_eq!(eq(&Value::str("a"), &[s(Value::Null)]), Ok(false));
        assert_eq!(eq(&Value::Null, &[s(Value::Null)]), Ok(true));
    }

    #[test]
    fn eq_takes_any_of_several_operands() {
        let rest = [s(Value::str("x")), s(Value::str("hello"))];
        assert_eq!(eq(&Value::str("hello"), &rest), Ok(true));
    }

    #[test]
    fn lt_refuses_bools_and_lists() {
        assert_eq!(
            lt(&Value::Bool(true), &Value::Bool(false)),
            Err(BAD_TYPE.into())
        );
        assert_eq!(
            lt(&Value::seq(vec![]), &Value::seq(vec![])),
            Err(BAD_TYPE.into())
        );
    }

    #[test]
    fn len_counts_bytes_and_tells_the_two_nils_apart() {
        assert_eq!(len(&s(Value::str("héllo"))).map(|s| s.v), Ok(Value::Int(6)));
        let boxed = Slot {
            v: Value::Null,
            boxed: true,
        };
        assert_eq!(len(&boxed).map(|s| s.v), Err("len of nil pointer".into()));
    }

    #[test]
    fn escapers_match_go() {
        assert_eq!(
            html_escape("<a href='x'>&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&#34;&lt;/a&gt;"
        );
        assert_eq!(js_escape("a='b'\n"), "a\\u003D\\'b\\'\\u000A");
        assert_eq!(query_escape("a b&c=d/é"), "a+b%26c%3Dd%2F%C3%A9");
    }
}
