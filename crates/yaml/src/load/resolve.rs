//! How a scalar's text becomes a value, as Helm's YAML 1.1 reader resolves it: tags, the YAML 1.1
//! words (`yes`, `off`, `~`), Go's integer and float syntax. Separate from the loader, which
//! only walks events and builds the tree; the JSON reader and the fast path use these too.

use super::{err, YamlError};
use crate::events::Position;
use crate::value::Value;
use yaml_rust2::parser::Tag;
use yaml_rust2::scanner::TScalarStyle;

/// The text of YAML 1.1's merge key.
pub(super) const MERGE_KEY: &str = "<<";

/// A plain, untagged `<<`: YAML 1.1's merge key. Quoted, it is an ordinary key.
pub(super) fn is_merge_key(text: &str, style: TScalarStyle, tag: Option<&Tag>) -> bool {
    text == MERGE_KEY && style == TScalarStyle::Plain && tag.is_none()
}

pub(crate) fn is_str_tag(tag: Option<&Tag>) -> bool {
    tag.is_some_and(|t| t.suffix == "str" || t.suffix == "tag:yaml.org,2002:str")
}

/// Resolves a scalar in value position: a plain one as [`resolve_plain`], a quoted one as a
/// string, and one with an explicit tag, quoted or not, as [`resolve_tagged`].
pub fn resolve_scalar(
    text: &str,
    style: TScalarStyle,
    tag: Option<&Tag>,
    at: Position,
) -> Result<Value, YamlError> {
    if let Some(tag) = tag {
        return resolve_tagged(text, tag).map_err(|m| err(at, m));
    }
    if style != TScalarStyle::Plain {
        return Ok(Value::String(text.to_owned()));
    }
    resolve_plain(text).map_err(|m| err(at, m))
}

/// The type a core-schema tag names (`!!int`, `!<tag:yaml.org,2002:int>`); `None` for a local
/// or other tag.
fn core_type(tag: &Tag) -> Option<&str> {
    if tag.handle == "!!" {
        return Some(&tag.suffix);
    }
    format!("{}{}", tag.handle, tag.suffix)
        .strip_prefix("tag:yaml.org,2002:")
        .and_then(|rest| tag.suffix.get(tag.suffix.len() - rest.len()..))
}

/// A scalar with an explicit tag, as go-yaml v2 (Helm's and kubectl's reader) decodes it,
/// whatever its quoting: `!!str` keeps the text; `!!binary` is base64 decoded; `!!int`,
/// `!!float` and `!!bool` resolve the text as a plain scalar and must get that type (an
/// integer serves as a float), else it is an error (`!!int "abc"`); `!!timestamp` keeps the
/// text of a timestamp (as go-yaml does for generic values) and refuses any other; any other
/// tag (`!!null`, a local `!tag`) is not resolved: the text.
pub fn resolve_tagged(text: &str, tag: &Tag) -> Result<Value, String> {
    let text_value = || Value::String(text.to_owned());
    match core_type(tag) {
        Some("str") => Ok(text_value()),
        Some("binary") => {
            use base64::Engine as _;
            // Go's decoder skips line breaks (a folded block of base64).
            let packed: String = text.chars().filter(|c| !matches!(c, '\r' | '\n')).collect();
            base64::engine::general_purpose::STANDARD
                .decode(packed.as_bytes())
                .map(|bytes| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
                .map_err(|_| "!!binary value contains invalid base64 data".to_owned())
        }
        Some(wanted @ ("int" | "float" | "bool" | "timestamp")) => {
            let resolved = if text.is_empty() {
                Value::Null
            } else {
                resolve_plain(text)?
            };
            match (wanted, resolved) {
                ("int", Value::Int(i)) => Ok(Value::Int(i)),
                ("float", Value::Float(f)) => Ok(Value::Float(f)),
                ("float", Value::Int(i)) => Ok(Value::Float(i as f64)),
                ("bool", Value::Bool(b)) => Ok(Value::Bool(b)),
                ("timestamp", Value::String(_)) if super::super::timestamp::is_timestamp(text) => {
                    Ok(text_value())
                }
                (_, other) => Err(format!(
                    "cannot decode !!{} `{text}` as a !!{wanted}",
                    match other {
                        Value::Null => "null",
                        Value::Bool(_) => "bool",
                        Value::Int(_) => "int",
                        Value::Float(_) => "float",
                        _ => "str",
                    }
                )),
            }
        }
        _ => Ok(text_value()),
    }
}

pub(crate) fn resolve_key(
    text: &str,
    style: TScalarStyle,
    tag: Option<&Tag>,
    at: Position,
) -> Result<String, YamlError> {
    if is_str_tag(tag) || (tag.is_none() && (style != TScalarStyle::Plain || text == "<<")) {
        return Ok(text.to_owned());
    }
    let resolved = match tag {
        Some(tag) => resolve_tagged(text, tag),
        None => resolve_plain(text),
    };
    Ok(match resolved.map_err(|m| err(at, m))? {
        // Helm (via JSON) cannot have a null key: `~:`, `null:` or an empty key fail there too.
        Value::Null if text.is_empty() => return Err(err(at, "a map key cannot be empty")),
        Value::Null => {
            return Err(err(
                at,
                format!("a map key cannot be null (`{text}`); quote it to use it as a string"),
            ))
        }
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => crate::number::format_go_float(f),
        Value::Number(text) | Value::String(text) => text,
        Value::Seq(_) | Value::Map(_) => text.to_owned(),
    })
}

/// go-yaml v2's table of YAML 1.1 words (nulls, booleans, infinities, NaN): what a plain
/// scalar that is one of them resolves to, or `None` for any other text.
pub(crate) fn resolve_word(text: &str) -> Option<Result<Value, String>> {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => Some(Ok(Value::Null)),
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            Some(Ok(Value::Bool(true)))
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            Some(Ok(Value::Bool(false)))
        }
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF"
        | ".nan" | ".NaN" | ".NAN" => Some(Err(format!(
            "unsupported value {text}: infinity and NaN have no JSON form"
        ))),
        _ => None,
    }
}

/// YAML 1.1 resolution of a plain scalar as go-yaml v2 does it, keeping integers exact.
pub fn resolve_plain(text: &str) -> Result<Value, String> {
    if let Some(resolved) = resolve_word(text) {
        return resolved;
    }
    let first = text.as_bytes()[0];
    if first == b'.' {
        // go-yaml v2 hands a `.`-first scalar to strconv.ParseFloat as written: `_` counts only
        // between digits (`.5_` stays a string), unlike the digit-first case below.
        if go_parses_as_float(text) {
            if let Ok(f) = text.replace('_', "").parse::<f64>() {
                return Ok(Value::Float(f));
            }
        }
        return Ok(Value::String(text.to_owned()));
    }
    if !(first.is_ascii_digit() || first == b'-' || first == b'+') {
        return Ok(Value::String(text.to_owned()));
    }
    // The usual number, a few decimal digits (no sign, `_` or leading zero, which would make it
    // octal; at most 18, which fit 64 bits): read at once, not through the general rules below,
    // which copy the text twice (a sixth of reading a manifest's values).
    if text.len() <= 18
        && (first != b'0' || text.len() == 1)
        && text.bytes().all(|b| b.is_ascii_digit())
    {
        return text.parse().map(Value::Int).map_err(|e| e.to_string());
    }
    let plain: String = text.chars().filter(|&c| c != '_').collect();
    if let Some(number) = parse_go_integer(&plain) {
        return Ok(match i64::try_from(number) {
            Ok(i) => Value::Int(i),
            Err(_) => Value::Float(number as f64),
        });
    }
    if is_yaml_float(&plain) {
        // An overflowing literal such as `1e400` stays a string, as it does in Helm.
        if let Ok(Some(f)) = plain.parse::<f64>().map(|f| f.is_finite().then_some(f)) {
            return Ok(Value::Float(f));
        }
    }
    Ok(Value::String(text.to_owned()))
}

/// Whether a plain scalar that resolved to a float is written as a decimal integer (digits after
/// an optional sign, `_` between them, no leading zero, which would make it octal): one too big
/// for 64 bits, which a float would round.
pub(super) fn is_integer_text(text: &str) -> bool {
    let plain: String = text.chars().filter(|&c| c != '_').collect();
    let digits = plain.strip_prefix(['-', '+']).unwrap_or(&plain);
    !digits.starts_with('0') && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Decimal float text that Go's `strconv.ParseFloat` reads without a range error.
pub(crate) fn parses_finite(s: &str) -> bool {
    s.parse::<f64>().is_ok_and(f64::is_finite)
}

/// Go's `strconv.ParseFloat(s, 64)` accepts `s`, which starts with `.`: digits after the dot,
/// an optional exponent, and `_` only between digits.
pub(crate) fn go_parses_as_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 1; // the dot
    let mut mantissa_digits = 0;
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
        mantissa_digits += usize::from(b[i] != b'_');
        i += 1;
    }
    if mantissa_digits == 0 {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        if !b.get(i).is_some_and(u8::is_ascii_digit) {
            return false;
        }
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            i += 1;
        }
    }
    if i != b.len() || !underscores_between_digits(s) {
        return false;
    }
    parses_finite(&s.replace('_', ""))
}

/// Go's rule for `_` in number literals: each one sits between two digits.
fn underscores_between_digits(s: &str) -> bool {
    let b = s.as_bytes();
    b.iter().enumerate().all(|(i, &c)| {
        c != b'_'
            || (i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit))
    })
}

/// Go's `strconv.ParseInt(s, 0, 64)` extended to the u64 range: sign, then `0x`, `0o`, `0b` or a
/// leading `0` for octal.
pub(crate) fn parse_go_integer(s: &str) -> Option<i128> {
    let (negative, digits) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let signed = s.len() != digits.len();
    let lower = digits.to_ascii_lowercase();
    // Go's ParseUint (the u64 fallback) takes no sign, so `+0x...` beyond i64 is not an integer.
    let unsigned_only = |value: u64| signed && !negative && value > i64::MAX as u64;
    let (radix, body) = if let Some(rest) = lower.strip_prefix("0x") {
        (16, rest)
    } else if let Some(rest) = lower.strip_prefix("0o") {
        (8, rest)
    } else if let Some(rest) = lower.strip_prefix("0b") {
        (2, rest)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let unsigned = u64::from_str_radix(body, radix).ok()?;
    if unsigned_only(unsigned) {
        return None;
    }
    let magnitude = unsigned as i128;
    let value = if negative { -magnitude } else { magnitude };
    if value < i64::MIN as i128 {
        return None;
    }
    Some(value)
}

/// go-yaml v2's float syntax: `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`.
pub(crate) fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        i += 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = i - int_start;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let frac_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if int_digits == 0 && i == frac_start {
            return false;
        }
    } else if int_digits == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
            i += 1;
        }
        let exp_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp_start {
            return false;
        }
    }
    i == b.len()
}
