//! Helm's function library under Helm's names, as Jinja functions and filters.
//!
//! Every function is written once, taking its arguments in Sprig's order, and registered twice:
//!
//! - as a **function**, called as in Helm: `trimPrefix("ab", s)`, `default("d", v)`,
//!   `ternary("y", "n", cond)`, `printf("%s-%d", a, b)`;
//! - as a **filter** (where Helm users pipe it), which works like Go's pipeline: the piped value
//!   becomes the *last* argument, so `s | trimPrefix("ab")` is `trimPrefix("ab", s)` and
//!   `cond | ternary("y", "n")` is `ternary("y", "n", cond)`.
//!
//! Where a name is also a minijinja builtin (`indent`, `default`, `int`, `replace`, `trim`, `list`,
//! `dict`, `upper`, `lower`, `title`, `join`, `split`), ours replaces it with Sprig's meaning: for
//! example `v | list` is `[v]`, not the characters of a string, and `s | split(",")` is Sprig's
//! map `{_0: .., _1: ..}` (`splitList` gives a list). The `max` and `min` filters stay Jinja's
//! (`[3, 1] | max`); the functions `max(a, b)` and `min(a, b)` are Sprig's. `empty` is also a test:
//! `{% if v is empty %}`.
//!
//! Values are immutable here: `set`, `unset`, `merge` and `mergeOverwrite` return a new map and
//! never change their arguments (Sprig changes the first one in place). Rebind the result:
//! `{% set labels = set(labels, "tier", "web") %}`.
//!
//! Cluster and clock access (`lookup`, `now`, `randAlphaNum`, `genCA`, ...) fail with an error that
//! says so: a render must not depend on anything but the chart and its values.

mod collections;
mod encoding;
mod logic;
mod numbers;
mod offline;
mod printf;
mod regex;
mod semver;
mod strings;

use super::gofmt;
use minijinja::value::{Rest, Value, ValueKind, ValueOrKwargs};
use minijinja::{Environment, Error, ErrorKind};
use std::borrow::Cow;

pub use printf::sprintf;
pub use semver::satisfies as semver_satisfies;

/// The largest string a function may build (`repeat`, `printf` widths, `indent`, ...).
pub const MAX_STRING_BYTES: usize = 10 * 1024 * 1024;
/// The longest list a function may build (`until`, `untilStep`): [`MAX_STRING_BYTES`] at the
/// 32 bytes a slot minijinja's fuel counts, so a list has the same 10 MiB cap as a string.
pub const MAX_LIST_ITEMS: usize = MAX_STRING_BYTES / 32;

/// One library function: its usage line (name and Sprig's parameters) and how it is exposed.
struct Entry {
    usage: &'static str,
    call: fn(&Args) -> Result<Value, Error>,
    filter: bool,
    kwargs: bool,
}

impl Entry {
    /// A function that is also a filter (the piped value is its last argument).
    const fn both(usage: &'static str, call: fn(&Args) -> Result<Value, Error>) -> Entry {
        Entry {
            usage,
            call,
            filter: true,
            kwargs: false,
        }
    }

    /// A function only: nobody pipes into it, or a Jinja builtin filter of that name is better.
    const fn function(usage: &'static str, call: fn(&Args) -> Result<Value, Error>) -> Entry {
        Entry {
            usage,
            call,
            filter: false,
            kwargs: false,
        }
    }

    /// A function that also takes Jinja keyword arguments (only `dict(a=1)`).
    const fn with_kwargs(usage: &'static str, call: fn(&Args) -> Result<Value, Error>) -> Entry {
        Entry {
            usage,
            call,
            filter: false,
            kwargs: true,
        }
    }

    fn name(&self) -> &'static str {
        self.usage.split('(').next().unwrap_or(self.usage)
    }
}

/// The library: one row per name, in Sprig's argument order.
const LIBRARY: &[Entry] = &[
    // Strings.
    Entry::both("indent(width, text)", strings::indent),
    Entry::both("nindent(width, text)", strings::nindent),
    Entry::both("trim(text)", strings::trim),
    Entry::both("trimAll(cutset, text)", strings::trim_all),
    Entry::both("trimPrefix(prefix, text)", strings::trim_prefix),
    Entry::both("trimSuffix(suffix, text)", strings::trim_suffix),
    Entry::both("upper(text)", strings::upper),
    Entry::both("lower(text)", strings::lower),
    Entry::both("title(text)", strings::title),
    Entry::both("replace(old, new, text)", strings::replace),
    Entry::both("contains(substring, text)", strings::contains),
    Entry::both("hasPrefix(prefix, text)", strings::has_prefix),
    Entry::both("hasSuffix(suffix, text)", strings::has_suffix),
    Entry::both("quote(value...)", strings::quote),
    Entry::both("squote(value...)", strings::squote),
    Entry::both("cat(value...)", strings::cat),
    Entry::both("nospace(text)", strings::nospace),
    Entry::both("trunc(length, text)", strings::trunc),
    Entry::both("repeat(count, text)", strings::repeat),
    Entry::both("join(separator, list)", strings::join),
    Entry::both("splitList(separator, text)", strings::split_list),
    Entry::both("split(separator, text)", strings::split),
    Entry::both("sortAlpha(list)", strings::sort_alpha),
    Entry::both("toStrings(list)", strings::to_strings),
    Entry::both("toString(value)", strings::to_string),
    Entry::both("print(value...)", strings::print),
    Entry::both("printf(format, value...)", printf::printf),
    // Encodings and digests.
    Entry::both("b64enc(text)", encoding::b64enc),
    Entry::both("b64dec(text)", encoding::b64dec),
    Entry::both("sha256sum(text)", encoding::sha256sum),
    Entry::both("sha1sum(text)", encoding::sha1sum),
    Entry::both("toYaml(value)", encoding::to_yaml),
    Entry::both("toJson(value)", encoding::to_json),
    Entry::both("toPrettyJson(value)", encoding::to_pretty_json),
    Entry::both("fromYaml(text)", encoding::from_yaml),
    Entry::both("fromYamlArray(text)", encoding::from_yaml_array),
    Entry::both("fromJson(text)", encoding::from_json),
    Entry::both("fromJsonArray(text)", encoding::from_json_array),
    // Defaults, conditions and failures.
    Entry::both("default(fallback, value)", logic::default),
    Entry::both("empty(value)", logic::empty),
    Entry::function("coalesce(value...)", logic::coalesce),
    Entry::both("ternary(if_true, if_false, condition)", logic::ternary),
    Entry::both("required(message, value)", logic::required),
    Entry::both("fail(message)", logic::fail),
    // Lists and maps.
    Entry::both("list(item...)", collections::list),
    Entry::with_kwargs("dict(key, value, ...)", collections::dict),
    Entry::both("keys(map...)", collections::keys),
    Entry::function("hasKey(map, key)", collections::has_key),
    Entry::both("has(needle, list)", collections::has),
    Entry::function("set(map, key, value)", collections::set),
    Entry::function("unset(map, key)", collections::unset),
    Entry::both("merge(destination, source...)", collections::merge),
    Entry::both(
        "mergeOverwrite(destination, source...)",
        collections::merge_overwrite,
    ),
    Entry::both("deepCopy(value)", collections::deep_copy),
    Entry::both("dig(key..., default, map)", collections::dig),
    Entry::both("len(value)", collections::len),
    Entry::both("until(count)", collections::until),
    Entry::function("untilStep(start, stop, step)", collections::until_step),
    Entry::function("seq(bounds...)", collections::seq),
    Entry::both("kindIs(kind, value)", collections::kind_is),
    Entry::both("kindOf(value)", collections::kind_of),
    Entry::both("typeOf(value)", collections::type_of),
    // Numbers.
    Entry::both("int(value)", numbers::int),
    Entry::both("int64(value)", numbers::int),
    Entry::both("atoi(text)", numbers::atoi),
    Entry::both("float64(value)", numbers::float64),
    Entry::both("add(number...)", numbers::add),
    Entry::both("sub(a, b)", numbers::sub),
    Entry::both("mul(number...)", numbers::mul),
    Entry::both("div(a, b)", numbers::div),
    Entry::both("mod(a, b)", numbers::modulo),
    Entry::function("max(number...)", numbers::max),
    Entry::function("min(number...)", numbers::min),
    Entry::both("addf(number...)", numbers::addf),
    Entry::both("subf(a, b...)", numbers::subf),
    Entry::both("mulf(number...)", numbers::mulf),
    Entry::both("divf(a, b...)", numbers::divf),
    // Versions and regular expressions.
    Entry::both("semverCompare(constraint, version)", semver::semver_compare),
    Entry::both("regexMatch(regex, text)", regex::regex_match),
    Entry::both("mustRegexMatch(regex, text)", regex::must_regex_match),
    Entry::both("regexFind(regex, text)", regex::regex_find),
    Entry::function(
        "regexReplaceAll(regex, text, replacement)",
        regex::regex_replace_all,
    ),
];

/// Registers the whole library (functions, filters and the `empty` test) on `env`.
pub fn register(env: &mut Environment<'static>) {
    for entry in LIBRARY {
        let (usage, call, kwargs) = (entry.usage, entry.call, entry.kwargs);
        env.add_function(entry.name(), move |args: Rest<ValueOrKwargs>| {
            let values = args.into_values();
            let args = Args::new(usage, &values, false);
            if !kwargs {
                args.reject_kwargs()?;
            }
            call(&args)
        });
        if entry.filter {
            env.add_filter(
                entry.name(),
                move |piped: Value, args: Rest<ValueOrKwargs>| {
                    let mut values = args.into_values();
                    values.push(piped);
                    let args = Args::new(usage, &values, true);
                    args.reject_kwargs()?;
                    call(&args)
                },
            );
        }
    }
    env.add_test("empty", |value: &Value| is_empty(value));
    offline::register(env);
}

/// Names of the library's functions (`include` and `tpl` are the engine's), for docs and tests.
pub fn function_names() -> Vec<&'static str> {
    LIBRARY.iter().map(Entry::name).collect()
}

/// Names registered only to fail with the reason they cannot work offline (`lookup`, `now`, ...).
pub fn offline_names() -> Vec<&'static str> {
    offline::NAMES.to_vec()
}

/// Names of the filters the library registers.
pub fn filter_names() -> Vec<&'static str> {
    LIBRARY
        .iter()
        .filter(|e| e.filter)
        .map(Entry::name)
        .collect()
}

/// The arguments of one call, in Sprig's order, with the usage line for messages.
pub(crate) struct Args<'a> {
    usage: &'static str,
    values: &'a [Value],
    piped: bool,
}

impl<'a> Args<'a> {
    fn new(usage: &'static str, values: &'a [Value], piped: bool) -> Args<'a> {
        Args {
            usage,
            values,
            piped,
        }
    }

    fn reject_kwargs(&self) -> Result<(), Error> {
        if self.values.iter().any(Value::is_kwargs) {
            return Err(self.error("keyword arguments are not supported here"));
        }
        Ok(())
    }

    /// How many arguments there are.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// All arguments.
    pub fn all(&self) -> &'a [Value] {
        self.values
    }

    /// Argument `i` (undefined when missing).
    pub fn get(&self, i: usize) -> Value {
        self.values.get(i).cloned().unwrap_or_default()
    }

    /// An error about this call, prefixed with its usage line.
    pub fn error(&self, message: impl std::fmt::Display) -> Error {
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
    pub fn exactly(&self, n: usize) -> Result<(), Error> {
        self.between(n, n)
    }

    /// Fails unless there are at least `min` and at most `max` arguments.
    pub fn between(&self, min: usize, max: usize) -> Result<(), Error> {
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
    pub fn string(&self, i: usize, what: &str) -> Result<Cow<'a, str>, Error> {
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
    pub fn bytes(&self, i: usize, what: &str) -> Result<&'a [u8], Error> {
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
    pub fn int(&self, i: usize, what: &str) -> Result<i64, Error> {
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
    pub fn bool(&self, i: usize, what: &str) -> Result<bool, Error> {
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

#[cfg(test)]
pub(crate) mod test_support {
    //! A tiny environment with the library, for the unit tests of each module.

    use minijinja::value::Value;
    use minijinja::{Environment, UndefinedBehavior};

    /// Renders `template` with `ctx` the way the engine's environment would (SemiStrict, Go printing).
    pub fn render(template: &str, ctx: Value) -> Result<String, String> {
        let mut env = Environment::new();
        env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
        env.set_undefined_behavior(UndefinedBehavior::SemiStrict);
        env.set_formatter(|out, state, value| {
            if value.is_undefined() && state.undefined_behavior() != UndefinedBehavior::Lenient {
                return Err(minijinja::Error::from(minijinja::ErrorKind::UndefinedError));
            }
            let mut text = String::new();
            crate::engine::gofmt::write_display(&mut text, value);
            out.write_str(&text)
                .map_err(|_| minijinja::Error::from(minijinja::ErrorKind::WriteFailure))
        });
        super::register(&mut env);
        env.render_str(template, ctx).map_err(|e| {
            let mut message = e.detail().unwrap_or_default().to_owned();
            if message.is_empty() {
                message = e.kind().to_string();
            }
            message
        })
    }

    /// Renders `template` with no context; panics on error.
    pub fn ok(template: &str) -> String {
        match render(template, Value::from(())) {
            Ok(s) => s,
            Err(e) => panic!("{template}: unexpected error: {e}"),
        }
    }

    /// Renders `template` with no context; panics unless it fails, returns the message.
    pub fn err(template: &str) -> String {
        match render(template, Value::from(())) {
            Ok(s) => panic!("{template}: expected an error, got {s:?}"),
            Err(e) => e,
        }
    }

    /// Renders `template` with `Values` = `values` (JSON text).
    pub fn with_values(template: &str, values: &str) -> Result<String, String> {
        let json: serde_json::Value = serde_json::from_str(values).expect("test JSON");
        let values = crate::engine::to_jinja(&crate::values::Value::from(json));
        render(template, Value::from_pairs([("Values", values)]))
    }
}
