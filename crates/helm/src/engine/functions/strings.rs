//! String functions: indentation, trimming, case, quoting, splitting and joining, as Sprig has them.

use super::args::{check_size, strval, Args};
use crate::engine::gofmt::go_quote;
use minijinja::value::{Value, ValueKind};
use minijinja::Error;

/// `indent(width, text)`: pads *every* line with `width` spaces, the first and blank ones too.
///
/// ```jinja
/// {{ toYaml(Values.resources) | indent(4) }}
/// ```
/// Fails on a negative width or a non-string text.
pub(super) fn indent(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    Ok(Value::from(indented(args, "")?))
}

/// `nindent(width, text)`: a newline, then `indent(width, text)`.
///
/// ```jinja
/// labels:{{ include("_labels.tpl") | nindent(4) }}
/// ```
pub(super) fn nindent(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    Ok(Value::from(indented(args, "\n")?))
}

fn indented(args: &Args, lead: &str) -> Result<String, Error> {
    let width = args.int(0, "width")?;
    let text = args.string(1, "text")?;
    let width = usize::try_from(width)
        .map_err(|_| args.error(format!("width must not be negative, got {width}")))?;
    let lines = memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1;
    check_size(
        args,
        lead.len() + text.len() + lines.saturating_mul(width.saturating_add(1)),
    )?;
    let pad = " ".repeat(width);
    let mut out = String::with_capacity(lead.len() + text.len() + lines * width);
    out.push_str(lead);
    out.push_str(&pad);
    let mut start = 0;
    for at in memchr::memchr_iter(b'\n', text.as_bytes()) {
        out.push_str(&text[start..=at]);
        out.push_str(&pad);
        start = at + 1;
    }
    out.push_str(&text[start..]);
    Ok(out)
}

/// `trim(text)`: removes leading and trailing Unicode white space (Go's `TrimSpace`).
pub(super) fn trim(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let text = args.get(0);
    // A string with nothing to trim comes back as it is: the usual `toYaml | trim` and
    // `include | trim` would copy a whole block for nothing.
    if let Some(s) = text
        .as_str()
        .filter(|_| text.kind() == ValueKind::String && !text.is_safe())
    {
        if s.trim().len() == s.len() {
            return Ok(text);
        }
    }
    Ok(Value::from(args.string(0, "text")?.trim()))
}

/// `trimAll(cutset, text)`: removes every leading and trailing character found in `cutset`.
pub(super) fn trim_all(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let cutset = args.string(0, "cutset")?;
    let text = args.string(1, "text")?;
    Ok(Value::from(text.trim_matches(|c| cutset.contains(c))))
}

/// `trimPrefix(prefix, text)`: removes `prefix` once, if `text` starts with it.
///
/// ```jinja
/// {{ include("_probe.tpl") | indent(8) | trimPrefix("        ") }}
/// ```
pub(super) fn trim_prefix(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let prefix = args.string(0, "prefix")?;
    let text = args.string(1, "text")?;
    Ok(Value::from(text.strip_prefix(&*prefix).unwrap_or(&text)))
}

/// `trimSuffix(suffix, text)`: removes `suffix` once, if `text` ends with it.
pub(super) fn trim_suffix(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let suffix = args.string(0, "suffix")?;
    let text = args.string(1, "text")?;
    Ok(Value::from(text.strip_suffix(&*suffix).unwrap_or(&text)))
}

/// Go's `unicode.ToUpper`: one character in, one out (`ß` stays `ß`, unlike Rust's `SS`).
fn simple_upper(c: char) -> char {
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

/// Go's `unicode.ToLower`: one character in, one out (`İ` becomes `i`).
fn simple_lower(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

/// `upper(text)`: upper case, one character for one (Go's `ToUpper`: `straße` → `STRAßE`).
pub(super) fn upper(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let text = args.string(0, "text")?;
    Ok(Value::from(
        text.chars().map(simple_upper).collect::<String>(),
    ))
}

/// `lower(text)`: lower case, one character for one (Go's `ToLower`).
pub(super) fn lower(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let text = args.string(0, "text")?;
    Ok(Value::from(
        text.chars().map(simple_lower).collect::<String>(),
    ))
}

/// `title(text)`: upper-cases the first letter of each word and leaves the rest alone (Go's
/// `strings.Title`; Jinja's `title` would also lower-case the rest).
pub(super) fn title(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let text = args.string(0, "text")?;
    let is_separator = |c: char| {
        if c.is_ascii() {
            !(c.is_ascii_alphanumeric() || c == '_')
        } else {
            !(c.is_alphabetic() || c.is_numeric()) && c.is_whitespace()
        }
    };
    let mut previous = ' ';
    let titled = text
        .chars()
        .map(|c| {
            let out = if is_separator(previous) {
                simple_upper(c)
            } else {
                c
            };
            previous = c;
            out
        })
        .collect::<String>();
    Ok(Value::from(titled))
}

/// `replace(old, new, text)`: replaces every `old`; as a filter `s | replace("old", "new")`.
/// An empty `old` inserts `new` between all characters (`-a-b-c-`).
pub(super) fn replace(args: &Args) -> Result<Value, Error> {
    args.exactly(3)?;
    let old = args.string(0, "old")?;
    let new = args.string(1, "new")?;
    let text = args.string(2, "text")?;
    let count = if old.is_empty() {
        text.chars().count() + 1
    } else {
        text.matches(&*old).count()
    };
    check_size(
        args,
        (text.len() + count.saturating_mul(new.len())).saturating_sub(count * old.len()),
    )?;
    Ok(Value::from(text.replace(&*old, &new)))
}

/// `contains(substring, text)`: whether `text` contains `substring`.
pub(super) fn contains(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let needle = args.string(0, "substring")?;
    let text = args.string(1, "text")?;
    Ok(Value::from(text.contains(&*needle)))
}

/// `hasPrefix(prefix, text)`: whether `text` starts with `prefix`.
pub(super) fn has_prefix(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let prefix = args.string(0, "prefix")?;
    Ok(Value::from(args.string(1, "text")?.starts_with(&*prefix)))
}

/// `hasSuffix(suffix, text)`: whether `text` ends with `suffix`.
pub(super) fn has_suffix(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let suffix = args.string(0, "suffix")?;
    Ok(Value::from(args.string(1, "text")?.ends_with(&*suffix)))
}

/// `quote(value...)`: each value in Go double quotes with Go escapes (`"say \"hi\""`), joined by
/// spaces; none and undefined values are skipped, so `quote(Values.missing)` is empty.
///
/// ```jinja
/// port: {{ Values.port | quote }}
/// ```
pub(super) fn quote(args: &Args) -> Result<Value, Error> {
    let quoted: Vec<String> = present(args).map(|v| go_quote(&strval(v), false)).collect();
    Ok(Value::from(quoted.join(" ")))
}

/// `squote(value...)`: each value in single quotes, nothing escaped (`'it's'`), joined by spaces.
pub(super) fn squote(args: &Args) -> Result<Value, Error> {
    let quoted: Vec<String> = present(args).map(|v| format!("'{}'", strval(v))).collect();
    Ok(Value::from(quoted.join(" ")))
}

/// `cat(value...)`: the values printed Go-style and joined by spaces, none skipped.
pub(super) fn cat(args: &Args) -> Result<Value, Error> {
    let parts: Vec<String> = present(args).map(strval).collect();
    Ok(Value::from(parts.join(" ")))
}

fn present<'a>(args: &Args<'a>) -> impl Iterator<Item = &'a Value> {
    args.all()
        .iter()
        .filter(|v| !v.is_undefined() && !v.is_none())
}

/// `nospace(text)`: removes all Unicode white space. (Sprig works byte by byte and garbles any
/// non-ASCII text here; we keep it intact.)
pub(super) fn nospace(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let text = args.string(0, "text")?;
    Ok(Value::from(
        text.chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>(),
    ))
}

/// `trunc(length, text)`: the first `length` bytes, or with a negative length the last ones
/// (`trunc(-2, "abcdef")` is `ef`). Sprig cuts bytes; we never cut inside a character.
pub(super) fn trunc(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let length = args.int(0, "length")?;
    let text = args.string(1, "text")?;
    let len = text.len() as i64;
    let out = if length < 0 && len + length > 0 {
        let mut start = (len + length) as usize;
        while !text.is_char_boundary(start) {
            start += 1;
        }
        &text[start..]
    } else if length >= 0 && len > length {
        let mut end = length as usize;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        &text[..end]
    } else {
        &text[..]
    };
    Ok(Value::from(out))
}

/// `repeat(count, text)`: `text` `count` times; at most 10 MiB.
pub(super) fn repeat(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let count = args.int(0, "count")?;
    let text = args.string(1, "text")?;
    let count = usize::try_from(count)
        .map_err(|_| args.error(format!("count must not be negative, got {count}")))?;
    check_size(args, count.saturating_mul(text.len()))?;
    Ok(Value::from(text.repeat(count)))
}

/// Sprig's `strslice`: a list's items printed Go-style, none skipped; a single value as one item.
fn string_items(value: &Value) -> Vec<String> {
    match value.kind() {
        ValueKind::Undefined | ValueKind::None => Vec::new(),
        ValueKind::Seq | ValueKind::Iterable => value
            .try_iter()
            .map(|items| {
                items
                    .filter(|v| !v.is_none() && !v.is_undefined())
                    .map(|v| strval(&v))
                    .collect()
            })
            .unwrap_or_default(),
        _ => vec![strval(value)],
    }
}

/// `join(separator, list)`: the items printed Go-style, none skipped, joined by `separator`.
///
/// ```jinja
/// args: [{{ Values.args | join(", ") }}]
/// ```
pub(super) fn join(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let separator = args.string(0, "separator")?;
    Ok(Value::from(string_items(&args.get(1)).join(&separator)))
}

fn split_parts<'t>(text: &'t str, separator: &str) -> Vec<&'t str> {
    if separator.is_empty() {
        // Go splits into characters; Rust would add empty strings at both ends.
        text.char_indices()
            .map(|(i, c)| &text[i..i + c.len_utf8()])
            .collect()
    } else {
        text.split(separator).collect()
    }
}

/// `splitList(separator, text)`: the pieces between separators, as a list.
pub(super) fn split_list(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let separator = args.string(0, "separator")?;
    let text = args.string(1, "text")?;
    Ok(Value::from(
        split_parts(&text, &separator)
            .into_iter()
            .map(Value::from)
            .collect::<Vec<_>>(),
    ))
}

/// `split(separator, text)`: the pieces as a map `{_0: a, _1: b}`, as Sprig returns them (use
/// `splitList` for a list). `(split(":", image))._0` is the part before the first colon.
pub(super) fn split(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let separator = args.string(0, "separator")?;
    let text = args.string(1, "text")?;
    Ok(Value::from_pairs(
        split_parts(&text, &separator)
            .into_iter()
            .enumerate()
            .map(|(i, part)| (format!("_{i}"), Value::from(part))),
    ))
}

/// `sortAlpha(list)`: the items as strings, sorted byte-wise (`["1", "10", "9", "B", "b"]`).
pub(super) fn sort_alpha(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let value = args.get(0);
    let mut items = match value.kind() {
        ValueKind::Seq | ValueKind::Iterable => string_items(&value),
        _ => vec![strval(&value)],
    };
    items.sort();
    Ok(Value::from(items))
}

/// `toStrings(list)`: the items printed Go-style, none skipped.
pub(super) fn to_strings(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(Value::from(string_items(&args.get(0))))
}

/// `toString(value)`: the value as Go's `%v` prints it (`<nil>` for none, `[1 2]` for a list).
pub(super) fn to_string(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(Value::from(strval(&args.get(0))))
}

/// `print(value...)`: Go's `fmt.Sprint`: values printed `%v`, a space between two neighbours
/// only when neither is a string.
pub(super) fn print(args: &Args) -> Result<Value, Error> {
    let mut out = String::new();
    let mut previous_is_string = true;
    for (i, value) in args.all().iter().enumerate() {
        let is_string = value.kind() == ValueKind::String;
        if i > 0 && !is_string && !previous_is_string {
            out.push(' ');
        }
        out.push_str(&strval(value));
        previous_is_string = is_string;
    }
    Ok(Value::from(out))
}

/// `println(value...)`: Go's `fmt.Sprintln`: values printed `%v`, a space between each two, and
/// a newline at the end.
pub(super) fn println(args: &Args) -> Result<Value, Error> {
    let parts: Vec<String> = args.all().iter().map(strval).collect();
    Ok(Value::from(parts.join(" ") + "\n"))
}

/// `hello()`: Sprig's greeting, `Hello!`.
pub(super) fn hello(args: &Args) -> Result<Value, Error> {
    args.exactly(0)?;
    Ok(Value::from("Hello!"))
}

#[cfg(test)]
mod tests;
