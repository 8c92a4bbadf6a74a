//! What every library function shares: its arguments in Sprig's order, Go's names for types,
//! Go's printing of a value as a string, emptiness as Sprig tests it, and the size cap.

use crate::engine::gofmt;
use crate::limits::MAX_STRING_BYTES;
use minijinja::value::{Value, ValueKind};
use minijinja::{Error, ErrorKind};
use std::borrow::Cow;

/// The arguments of one call, in Sprig's order, with the usage line for messages.
pub(crate) struct Args<'a> {
    usage: &'static str,
    values: &'a [Value],
    piped: bool,
}

impl<'a> Args<'a> {
    pub(crate) fn new(usage: &'static str, values: &'a [Value], piped: bool) -> Args<'a> {
        Args {
            usage,
            values,
            piped,
        }
    }

    pub(crate) fn reject_kwargs(&self) -> Result<(), Error> {
        if self.values.iter().any(Value::is_kwargs) {
            return Err(self.error("keyword arguments are not supported here"));
        }
        Ok(())
    }

    /// How many arguments there are.
    pub(super) fn len(&self) -> usize {
        self.values.len()
    }

    /// All arguments.
    pub(super) fn all(&self) -> &'a [Value] {
        self.values
    }

    /// Argument `i` (undefined when missing).
    pub(super) fn get(&self, i: usize) -> Value {
        self.values.get(i).cloned().unwrap_or_default()
    }

    /// An error about this call, prefixed with its usage line.
    pub(super) fn error(&self, message: impl std::fmt::Display) -> Error {
        let form = if self.piped {
            " (as a filter, the piped value is the last argument)"
        } else {
            ""
        };
        Error::new(
            ErrorKind::InvalidOperation,
            format!("{}{form}: {message}", self.usage),
        )
    }

    /// Fails unless there are exactly `n` arguments.
    pub(super) fn exactly(&self, n: usize) -> Result<(), Error> {
        self.between(n, n)
    }

    /// Fails unless there are at least `min` and at most `max` arguments.
    pub(super) fn between(&self, min: usize, max: usize) -> Result<(), Error> {
        let got = self.values.len();
        if got < min || got > max {
            let wanted = match (min, max) {
                (a, b) if a == b => format!("{a}"),
                (a, usize::MAX) => format!("at least {a}"),
                (a, b) => format!("{a} to {b}"),
            };
            let s = if max == 1 { "" } else { "s" };
            return Err(self.error(format!("expected {wanted} argument{s}, got {got}")));
        }
        Ok(())
    }

    /// Argument `i` as a string (bytes are read as UTF-8); anything else is an error, as in Helm.
    pub(super) fn string(&self, i: usize, what: &str) -> Result<Cow<'a, str>, Error> {
        let value = self.values.get(i);
        match value.map(Value::kind) {
            Some(ValueKind::String) => Ok(Cow::Borrowed(
                value.and_then(Value::as_str).unwrap_or_default(),
            )),
            Some(ValueKind::Bytes) => Ok(String::from_utf8_lossy(
                value.and_then(Value::as_bytes).unwrap_or_default(),
            )),
            _ => Err(self.type_error(i, what, "a string")),
        }
    }

    /// Argument `i` as raw bytes: a string's UTF-8 or a bytes value.
    pub(super) fn bytes(&self, i: usize, what: &str) -> Result<&'a [u8], Error> {
        let value = self.values.get(i);
        match value.map(Value::kind) {
            Some(ValueKind::String) => {
                Ok(value.and_then(Value::as_str).unwrap_or_default().as_bytes())
            }
            Some(ValueKind::Bytes) => Ok(value.and_then(Value::as_bytes).unwrap_or_default()),
            _ => Err(self.type_error(i, what, "a string")),
        }
    }

    /// Argument `i` as an integer (a float with no fraction is accepted too).
    pub(super) fn int(&self, i: usize, what: &str) -> Result<i64, Error> {
        let value = self.get(i);
        if value.kind() == ValueKind::Number {
            if let Some(n) = value.as_i64().filter(|_| value.is_integer()) {
                return Ok(n);
            }
            if let Ok(f) = f64::try_from(value.clone()) {
                if f.fract() == 0.0 && f.abs() < 9.2e18 {
                    return Ok(f as i64);
                }
            }
        }
        Err(self.type_error(i, what, "an integer"))
    }

    /// Argument `i` as a boolean; strings such as `"true"` are an error, as in Helm.
    pub(super) fn bool(&self, i: usize, what: &str) -> Result<bool, Error> {
        let value = self.get(i);
        match value.kind() {
            ValueKind::Bool => Ok(value.is_true()),
            _ => Err(self.type_error(i, what, "a boolean")),
        }
    }

    fn type_error(&self, i: usize, what: &str, expected: &str) -> Error {
        let found = match self.values.get(i) {
            None => "nothing (argument missing)".to_owned(),
            Some(v) => describe(v),
        };
        self.error(format!("{what} must be {expected}, found {found}"))
    }
}

/// A value for error messages: its kind and, when short, how it prints.
pub(crate) fn describe(value: &Value) -> String {
    match value.kind() {
        ValueKind::Undefined => "an undefined value".to_owned(),
        ValueKind::None => "none".to_owned(),
        ValueKind::String => {
            let s = value.as_str().unwrap_or_default();
            if s.chars().count() > 40 {
                let head: String = s.chars().take(40).collect();
                format!("string {head:?}...")
            } else {
                format!("string {s:?}")
            }
        }
        kind => {
            let mut text = strval(value);
            if text.chars().count() > 40 {
                text = text.chars().take(40).collect::<String>() + "...";
            }
            let kind = match kind {
                ValueKind::Number => "number",
                ValueKind::Bool => "boolean",
                ValueKind::Seq | ValueKind::Iterable => "list",
                ValueKind::Map => "map",
                _ => "value",
            };
            format!("{kind} {text}")
        }
    }
}

/// Sprig's `strval`: a string as itself, anything else as Go's `%v` (nil is `<nil>`).
pub(crate) fn strval(value: &Value) -> String {
    if let Some(s) = value.as_str() {
        return s.to_owned();
    }
    if let Some(b) = value.as_bytes() {
        return String::from_utf8_lossy(b).into_owned();
    }
    let mut out = String::new();
    gofmt::write_nested(&mut out, value);
    out
}

/// Helm's emptiness (`default`, `empty`, `coalesce`): undefined, none, false, 0, "", [] and {}.
/// `"0"` and `" "` are not empty; neither are the built-in objects such as `Capabilities`.
pub(crate) fn is_empty(value: &Value) -> bool {
    match value.kind() {
        ValueKind::Undefined | ValueKind::None => true,
        ValueKind::Bool => !value.is_true(),
        ValueKind::Number => match value.as_i64().filter(|_| value.is_integer()) {
            Some(n) => n == 0,
            None => f64::try_from(value.clone()).is_ok_and(|f| f == 0.0),
        },
        ValueKind::String | ValueKind::Bytes | ValueKind::Seq | ValueKind::Map => {
            value.len() == Some(0)
        }
        _ => false,
    }
}

/// Go's type name for a value, as `%T` and `typeOf` print it (our integers are Go `int`).
pub(crate) fn go_type(value: &Value) -> &'static str {
    match value.kind() {
        ValueKind::Undefined | ValueKind::None => "<nil>",
        ValueKind::Bool => "bool",
        ValueKind::Number if value.is_integer() => "int",
        ValueKind::Number => "float64",
        ValueKind::String => "string",
        ValueKind::Bytes => "[]uint8",
        ValueKind::Seq | ValueKind::Iterable => "[]interface {}",
        ValueKind::Map => "map[string]interface {}",
        _ => "interface {}",
    }
}

/// Fails when a string a function is about to build would pass [`MAX_STRING_BYTES`].
pub(crate) fn check_size(args: &Args, bytes: usize) -> Result<(), Error> {
    if bytes > MAX_STRING_BYTES {
        return Err(args.error(format!(
            "the result would be {bytes} bytes, more than the limit of {MAX_STRING_BYTES} (10 MiB)"
        )));
    }
    Ok(())
}
