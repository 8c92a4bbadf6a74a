//! The `--set` expression grammar: key paths, escapes, `{a,b}` lists and JSON values, read
//! into assignments before anything is applied.

use super::{escape_key, SetMode, SetProblem, MAX_INDEX, MAX_NESTED_KEYS, MAX_PATH_PARTS};
use crate::yaml::Value;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Seg {
    Key(String),
    Index(usize),
}

pub(super) fn path_string(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&escape_key(k));
            }
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// A value as written, before typing or file reading.
#[derive(Debug)]
pub(super) enum RawValue {
    /// Nothing at all after `=` (end of expression): the empty string, never typed or read.
    Empty,
    Text(String),
    List(Vec<String>),
    Json(Value),
}

pub(super) struct Assignment {
    pub(super) path: Vec<Seg>,
    pub(super) value: RawValue,
}

pub(super) struct Scanner<'a> {
    src: &'a str,
    pos: usize,
    escapes: bool,
}

impl Scanner<'_> {
    pub(super) fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    pub(super) fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    /// Reads up to (and consumes) the first unescaped stop character; `None` at the end.
    pub(super) fn read_until(&mut self, stops: &[char]) -> (String, Option<char>) {
        let mut out = String::new();
        while let Some(c) = self.bump() {
            if stops.contains(&c) {
                return (out, Some(c));
            }
            if c == '\\' && self.escapes {
                match self.bump() {
                    Some(next) => out.push(next),
                    None => return (out, None),
                }
            } else {
                out.push(c);
            }
        }
        (out, None)
    }

    pub(super) fn rest(&mut self) -> &str {
        let rest = &self.src[self.pos..];
        self.pos = self.src.len();
        rest
    }

    /// Skips whitespace and one `,`; true when the value there is empty (a `,` or the end).
    pub(super) fn skip_empty_value(&mut self) -> bool {
        loop {
            match self.peek() {
                None => return true,
                Some(',') => {
                    self.bump();
                    return true;
                }
                Some(c) if c.is_whitespace() => {
                    self.bump();
                }
                Some(_) => return false,
            }
        }
    }
}

pub(super) struct Parser<'a> {
    scanner: Scanner<'a>,
    mode: SetMode,
    /// The key of the last `--set-json` value when no `,` followed it (Helm then reads a new
    /// assignment right away: `a=1 b=2` sets both).
    json_without_comma: Option<String>,
}

impl<'a> Parser<'a> {
    /// A parser at the start of `expression`, reading it as `mode` says.
    pub(super) fn new(expression: &'a str, mode: SetMode) -> Self {
        Parser {
            scanner: Scanner {
                src: expression,
                pos: 0,
                escapes: mode != SetMode::SetLiteral,
            },
            mode,
            json_without_comma: None,
        }
    }

    /// The next `path=value`, or `None` at the end of the expression.
    pub(super) fn next_assignment(&mut self) -> Result<Option<Assignment>, SetProblem> {
        let after_json = self.json_without_comma.take();
        self.next_assignment_inner()
            .map_err(|problem| match (problem, after_json) {
                (SetProblem::NoValue(text), Some(key)) => SetProblem::TextAfterJson { key, text },
                (problem, _) => problem,
            })
    }

    pub(super) fn next_assignment_inner(&mut self) -> Result<Option<Assignment>, SetProblem> {
        let key_stops: &[char] = if self.mode == SetMode::SetLiteral {
            &['=', '[', '.']
        } else {
            &['=', '[', ',', '.']
        };
        let mut path: Vec<Seg> = Vec::new();
        let mut nested = 0;
        loop {
            let (key, stop) = self.scanner.read_until(key_stops);
            match stop {
                None if key.is_empty() && path.is_empty() => return Ok(None),
                None if key.is_empty() => {
                    return Err(SetProblem::NoValue(format!("{}.", path_string(&path))))
                }
                None => {
                    path.push(Seg::Key(key));
                    return Err(SetProblem::NoValue(path_string(&path)));
                }
                Some(',') => {
                    path.push(Seg::Key(key));
                    return Err(SetProblem::NoValueBeforeComma(path_string(&path)));
                }
                Some('.') => {
                    nested += 1;
                    if nested > MAX_NESTED_KEYS {
                        return Err(SetProblem::TooDeep);
                    }
                    push(&mut path, Seg::Key(key))?;
                }
                Some('=') => {
                    push(&mut path, Seg::Key(key))?;
                    let value = self.read_value(&path)?;
                    return Ok(Some(Assignment { path, value }));
                }
                Some(_) => {
                    // `[`: one or more indices, then `=`, `.` or another `[`.
                    push(&mut path, Seg::Key(key))?;
                    loop {
                        let index = self.read_index()?;
                        push(&mut path, Seg::Index(index))?;
                        let (junk, stop) = self.scanner.read_until(&['[', '.', '=']);
                        if !junk.is_empty() {
                            return Err(SetProblem::DataAfterIndex(junk));
                        }
                        match stop {
                            Some('[') => continue,
                            Some('.') => break,
                            Some(_) => {
                                let value = self.read_value(&path)?;
                                return Ok(Some(Assignment { path, value }));
                            }
                            None => return Err(SetProblem::NoValue(path_string(&path))),
                        }
                    }
                }
            }
        }
    }

    pub(super) fn read_index(&mut self) -> Result<usize, SetProblem> {
        let (text, stop) = self.scanner.read_until(&[']']);
        if stop.is_none() {
            return Err(SetProblem::UnterminatedIndex);
        }
        let digits = text.strip_prefix(['+', '-']).unwrap_or(&text);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(SetProblem::BadIndex(text));
        }
        if text.starts_with('-') && digits.bytes().any(|b| b != b'0') {
            return Err(SetProblem::NegativeIndex(text));
        }
        match digits.parse::<usize>() {
            Ok(i) if i <= MAX_INDEX => Ok(i),
            _ => Err(SetProblem::IndexTooLarge(text)),
        }
    }

    /// Reads the value after `=`.
    pub(super) fn read_value(&mut self, path: &[Seg]) -> Result<RawValue, SetProblem> {
        match self.mode {
            SetMode::SetLiteral => Ok(RawValue::Text(self.scanner.rest().to_owned())),
            SetMode::SetJson => {
                if self.scanner.skip_empty_value() {
                    return Ok(RawValue::Json(Value::Null));
                }
                let rest = &self.scanner.src[self.scanner.pos..];
                if crate::yaml::json::json_too_deep(rest).is_some() {
                    return Err(SetProblem::BadJson {
                        key: path_string(path),
                        message: crate::yaml::json::json_too_deep_message(),
                    });
                }
                let mut stream = crate::yaml::json::json_deserializer(rest).into_iter();
                let parsed: Option<Result<serde_json::Value, _>> = stream.next();
                let json = match parsed {
                    Some(Ok(json)) => json,
                    Some(Err(e)) => {
                        return Err(SetProblem::BadJson {
                            key: path_string(path),
                            message: e.to_string(),
                        })
                    }
                    None => serde_json::Value::Null,
                };
                self.scanner.pos += stream.byte_offset();
                if !self.scanner.skip_empty_value() {
                    self.json_without_comma = Some(path_string(path));
                }
                Ok(RawValue::Json(Value::from(json)))
            }
            SetMode::Set | SetMode::SetString | SetMode::SetFile => match self.scanner.peek() {
                None => Ok(RawValue::Empty),
                Some('{') => {
                    self.scanner.bump();
                    let mut items = Vec::new();
                    loop {
                        match self.scanner.read_until(&[',', '}']) {
                            (_, None) => return Err(SetProblem::UnterminatedList),
                            (item, Some('}')) => {
                                items.push(item);
                                if self.scanner.peek() == Some(',') {
                                    self.scanner.bump();
                                }
                                return Ok(RawValue::List(items));
                            }
                            (item, Some(_)) => items.push(item),
                        }
                    }
                }
                Some(_) => Ok(RawValue::Text(self.scanner.read_until(&[',']).0)),
            },
        }
    }
}

pub(super) fn push(path: &mut Vec<Seg>, seg: Seg) -> Result<(), SetProblem> {
    if path.len() >= MAX_PATH_PARTS {
        return Err(SetProblem::TooLong);
    }
    path.push(seg);
    Ok(())
}
