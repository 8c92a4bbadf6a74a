//! Encodings: base64, digests, and YAML and JSON in both directions.
//!
//! Where Helm hides a failure inside the result (`b64dec` returning Go's error text, `fromYaml`
//! returning a map with an `Error` key, `toYaml` of a NaN printing nothing), we fail the render
//! with the reason instead: a Secret holding "illegal base64 data at input byte 4" is never what a
//! chart meant.

use super::args::Args;
use crate::digest::hex;
use crate::engine::convert::{from_jinja, to_jinja};
use crate::values::{Map, Value as Data};
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine as _;
use minijinja::value::Value;
use minijinja::Error;
use std::fmt::Write as _;

/// Go's `base64.StdEncoding`: padding required, stray bits in the last character tolerated.
const STD: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
);

/// `b64enc(text)`: standard base64 with padding.
///
/// ```jinja
/// data:
///   token: {{ Values.token | b64enc }}
/// ```
pub(super) fn b64enc(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(Value::from(STD.encode(args.bytes(0, "text")?)))
}

/// `b64dec(text)`: decodes standard base64 (line breaks are ignored, as Go does). Invalid input
/// is an error naming the first bad byte (Helm returns that message as the *value*). Bytes that
/// are not UTF-8 come back as a bytes value, which `b64enc` encodes back unchanged.
pub(super) fn b64dec(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let text: Vec<u8> = args
        .bytes(0, "text")?
        .iter()
        .copied()
        .filter(|b| *b != b'\r' && *b != b'\n')
        .collect();
    let bytes = STD.decode(&text).map_err(|e| {
        let at = match e {
            base64::DecodeError::InvalidByte(at, _)
            | base64::DecodeError::InvalidLastSymbol(at, _) => at,
            base64::DecodeError::InvalidLength(len) => len / 4 * 4,
            base64::DecodeError::InvalidPadding => text.len() / 4 * 4,
        };
        args.error(format!("illegal base64 data at input byte {at}"))
    })?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => Value::from(text),
        Err(e) => Value::from_bytes(e.into_bytes()),
    })
}

/// `sha256sum(text)`: the SHA-256 digest in lower-case hex.
///
/// ```jinja
/// checksum/config: {{ include("config.yaml") | sha256sum }}
/// ```
pub(super) fn sha256sum(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let text = args.bytes(0, "text")?;
    Ok(Value::from(hex(&crate::digest::sha256_remembered(text))))
}

/// `sha1sum(text)`: the SHA-1 digest in lower-case hex.
pub(super) fn sha1sum(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let text = args.bytes(0, "text")?;
    Ok(Value::from(hex(&crate::digest::sha1(text))))
}

/// `toYaml(value)`: Helm's YAML text (go-yaml v2 layout, sorted keys, ambiguous strings quoted)
/// without the final newline. A NaN or infinity, which Helm would silently print as nothing, is
/// an error.
///
/// ```jinja
/// resources: {{- toYaml(Values.resources) | nindent(2) }}
/// ```
pub(super) fn to_yaml(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let value = args.get(0);
    if let Some(text) = super::yaml_entries::to_yaml_recent(&value) {
        return Ok(Value::from(&*text));
    }
    if let Some(text) = super::yaml_entries::to_yaml_reusing_entries(&value) {
        return Ok(Value::from(text));
    }
    let text =
        crate::yaml::try_to_yaml_within(&from_jinja(&value)?, crate::limits::MAX_STRING_BYTES)
            .map_err(|e| args.error(e))?;
    super::yaml_entries::remember_recent(&value, &text);
    Ok(Value::from(text))
}

/// `toYamlPretty(value)`: YAML as Helm's `toYamlPretty` writes it (go-yaml v3, two spaces): a
/// list under a key is indented below it, and long strings stay on one line.
pub(super) fn to_yaml_pretty(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    crate::yaml::try_to_yaml_pretty_within(
        &from_jinja(&args.get(0))?,
        crate::limits::MAX_STRING_BYTES,
    )
    .map(Value::from)
    .map_err(|e| args.error(e))
}

/// `toJson(value)`: compact JSON as Go writes it (sorted keys, `<`, `>` and `&` escaped).
///
/// ```jinja
/// config.json: {{ toJson(Values.config) | quote }}
/// ```
pub(super) fn to_json(args: &Args) -> Result<Value, Error> {
    encode_one(args, crate::yaml::try_to_json)
}

/// The one argument of `args`, encoded by `encode` (the `to*Json` family); what it cannot
/// encode is the call's error.
fn encode_one<E: std::fmt::Display>(
    args: &Args,
    encode: fn(&Data) -> Result<String, E>,
) -> Result<Value, Error> {
    args.exactly(1)?;
    encode(&from_jinja(&args.get(0))?)
        .map(Value::from)
        .map_err(|e| args.error(e))
}

/// `toPrettyJson(value)`: JSON indented by two spaces, as Go's `MarshalIndent` writes it.
pub(super) fn to_pretty_json(args: &Args) -> Result<Value, Error> {
    encode_one(args, crate::yaml::try_to_pretty_json)
}

fn parse_yaml(args: &Args) -> Result<Data, Error> {
    let text = args.string(0, "text")?;
    crate::yaml::parse_document(&text).map_err(|e| args.error(format!("invalid YAML: {e}")))
}

/// `fromYaml(text)`: a YAML map read into a value (YAML 1.1 scalars, as Helm reads them, so
/// `[x, y]` is `["x", true]`). Invalid YAML, or a document that is not a map, is an error.
///
/// ```jinja
/// {% set config = fromYaml(include("_config.tpl")) %}
/// ```
pub(super) fn from_yaml(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    match parse_yaml(args)? {
        Data::Null => Ok(to_jinja(&Data::Map(Map::new()))),
        map @ Data::Map(_) => Ok(to_jinja(&map)),
        other => Err(args.error(format!(
            "the YAML is a {}, not a map (fromYamlArray reads lists)",
            other.type_name()
        ))),
    }
}

/// `fromYamlArray(text)`: a YAML list read into a value; anything else is an error.
pub(super) fn from_yaml_array(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    match parse_yaml(args)? {
        Data::Null => Ok(Value::from(Vec::<Value>::new())),
        list @ Data::Seq(_) => Ok(to_jinja(&list)),
        other => Err(args.error(format!("the YAML is a {}, not a list", other.type_name()))),
    }
}

fn parse_json(args: &Args) -> Result<Data, Error> {
    let text = args.string(0, "text")?;
    if let Some((line, column)) = crate::yaml::json::json_too_deep(&text) {
        return Err(args.error(format!(
            "invalid JSON: {} at line {line} column {column}",
            crate::yaml::json::json_too_deep_message()
        )));
    }
    let mut reader = crate::yaml::json::json_deserializer(&text);
    serde::Deserialize::deserialize(&mut reader)
        .and_then(|value: serde_json::Value| reader.end().map(|()| value))
        .map(Data::from)
        .map_err(|e| args.error(format!("invalid JSON: {e}")))
}

/// `fromJson(text)`: a JSON object read into a value; invalid JSON or a non-object is an error.
pub(super) fn from_json(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    match parse_json(args)? {
        Data::Null => Ok(to_jinja(&Data::Map(Map::new()))),
        map @ Data::Map(_) => Ok(to_jinja(&map)),
        other => Err(args.error(format!(
            "the JSON is a {}, not an object (fromJsonArray reads arrays)",
            other.type_name()
        ))),
    }
}

/// `fromJsonArray(text)`: a JSON array read into a value; anything else is an error.
pub(super) fn from_json_array(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    match parse_json(args)? {
        Data::Null => Ok(Value::from(Vec::<Value>::new())),
        list @ Data::Seq(_) => Ok(to_jinja(&list)),
        other => Err(args.error(format!("the JSON is a {}, not an array", other.type_name()))),
    }
}

/// `sha512sum(text)`: the SHA-512 digest in lower-case hex.
pub(super) fn sha512sum(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let text = args.bytes(0, "text")?;
    Ok(Value::from(hex(ring::digest::digest(
        &ring::digest::SHA512,
        text,
    )
    .as_ref())))
}

/// `adler32sum(text)`: the Adler-32 checksum, in decimal.
pub(super) fn adler32sum(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in args.bytes(0, "text")? {
        a = (a + u32::from(byte)) % 65521;
        b = (b + a) % 65521;
    }
    Ok(Value::from(((b << 16) | a).to_string()))
}

const BASE32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// `b32enc(text)`: standard base32 with padding.
pub(super) fn b32enc(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let bytes = args.bytes(0, "text")?;
    let mut out = String::with_capacity(bytes.len().div_ceil(5) * 8);
    for group in bytes.chunks(5) {
        let mut buffer = [0u8; 5];
        buffer[..group.len()].copy_from_slice(group);
        let bits = buffer
            .iter()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
        let chars = (group.len() * 8).div_ceil(5);
        for i in 0..8 {
            if i < chars {
                out.push(char::from(BASE32[((bits >> (35 - 5 * i)) & 31) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    Ok(Value::from(out))
}

/// `b32dec(text)`: decodes standard base32. Invalid input is an error naming the first bad
/// byte (Helm returns that message as the *value*).
pub(super) fn b32dec(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let text: Vec<u8> = args
        .bytes(0, "text")?
        .iter()
        .copied()
        .filter(|b| *b != b'\r' && *b != b'\n')
        .collect();
    let bad = |at: usize| args.error(format!("illegal base32 data at input byte {at}"));
    if text.len() % 8 != 0 {
        return Err(bad(text.len() / 8 * 8));
    }
    let mut out = Vec::with_capacity(text.len() / 8 * 5);
    for (g, group) in text.chunks(8).enumerate() {
        let padding = group.iter().rev().take_while(|&&b| b == b'=').count();
        let data = 8 - padding;
        if !matches!(data, 8 | 7 | 5 | 4 | 2) || (padding > 0 && g + 1 != text.len() / 8) {
            return Err(bad(g * 8 + data.min(7)));
        }
        let mut bits = 0u64;
        for (i, &c) in group.iter().enumerate() {
            let v = if i < data {
                BASE32
                    .iter()
                    .position(|&x| x == c)
                    .ok_or_else(|| bad(g * 8 + i))? as u64
            } else {
                0
            };
            bits = (bits << 5) | v;
        }
        let bytes = data * 5 / 8;
        for i in 0..bytes {
            out.push((bits >> (32 - 8 * i)) as u8);
        }
    }
    Ok(match String::from_utf8(out) {
        Ok(text) => Value::from(text),
        Err(e) => Value::from_bytes(e.into_bytes()),
    })
}

/// `toRawJson(value)`: compact JSON like `toJson`, with `<`, `>` and `&` left unescaped.
pub(super) fn to_raw_json(args: &Args) -> Result<Value, Error> {
    encode_one(args, crate::yaml::try_to_raw_json)
}

/// `toToml(value)`: a map as TOML, the way Helm's encoder (BurntSushi/toml) writes it: plain
/// keys first, then each table, indented two spaces a level. Anything but a map is an error.
///
/// ```jinja
/// config.toml: |
///   {{- toToml(Values.config) | nindent(2) }}
/// ```
pub(super) fn to_toml(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let value = from_jinja(&args.get(0))?;
    let Data::Map(map) = &value else {
        return Err(args.error(format!(
            "toml: top-level values must be maps, not a {}",
            value.type_name()
        )));
    };
    let mut out = String::new();
    write_toml_table(&mut out, map, &[]).map_err(|e| args.error(e))?;
    Ok(Value::from(out))
}

/// A TOML key, bare when it can be.
fn toml_key(key: &str) -> String {
    if !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        key.to_owned()
    } else {
        toml_string(key)
    }
}

fn toml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn is_table(value: &Data) -> bool {
    matches!(value, Data::Map(_))
}

fn is_table_array(value: &Data) -> bool {
    matches!(value, Data::Seq(items) if !items.is_empty() && items.iter().all(is_table))
}

/// A value inline (`1`, `"a"`, `[1, 2]`, `{a = 1}` inside arrays).
fn toml_inline(value: &Data) -> Result<String, String> {
    Ok(match value {
        Data::Null => return Err("toml: cannot encode a nil value inside an array".into()),
        Data::Bool(b) => b.to_string(),
        Data::Int(i) => i.to_string(),
        Data::Number(text) => text.clone(),
        Data::Float(f) => {
            if f.is_nan() {
                "nan".into()
            } else if f.is_infinite() {
                if *f > 0.0 {
                    "inf".into()
                } else {
                    "-inf".into()
                }
            } else {
                let text = crate::yaml::format_go_float(*f);
                if text.contains(['.', 'e', 'E']) {
                    text
                } else {
                    format!("{text}.0")
                }
            }
        }
        Data::String(s) => toml_string(s),
        Data::Seq(items) => {
            let parts: Result<Vec<String>, String> = items.iter().map(toml_inline).collect();
            format!("[{}]", parts?.join(", "))
        }
        Data::Map(map) => {
            let parts: Result<Vec<String>, String> = map
                .iter()
                .filter(|(_, v)| !matches!(v, Data::Null))
                .map(|(k, v)| Ok(format!("{} = {}", toml_key(k), toml_inline(v)?)))
                .collect();
            format!("{{{}}}", parts?.join(", "))
        }
    })
}

/// Writes the plain keys of `map` (a table `path.len()` deep), then its tables and arrays of
/// tables, laid out as BurntSushi/toml does: two spaces a level, a blank line before each
/// top-level table and each `[[...]]`, once something has been written.
fn write_toml_table(out: &mut String, map: &Map, path: &[String]) -> Result<(), String> {
    let indent = "  ".repeat(path.len());
    for (key, value) in map.iter() {
        if matches!(value, Data::Null) || is_table(value) || is_table_array(value) {
            continue;
        }
        let _ = writeln!(out, "{indent}{} = {}", toml_key(key), toml_inline(value)?);
    }
    for (key, value) in map.iter() {
        let mut inner = path.to_vec();
        inner.push(toml_key(key));
        let name = inner.join(".");
        let header_indent = "  ".repeat(path.len());
        match value {
            Data::Map(sub) => {
                if inner.len() == 1 && !out.is_empty() {
                    out.push('\n');
                }
                let _ = writeln!(out, "{header_indent}[{name}]");
                write_toml_table(out, sub, &inner)?;
            }
            Data::Seq(items) if is_table_array(value) => {
                for item in items {
                    if let Data::Map(sub) = item {
                        if !out.is_empty() {
                            out.push('\n');
                        }
                        let _ = writeln!(out, "{header_indent}[[{name}]]");
                        write_toml_table(out, sub, &inner)?;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::engine::functions::test_support::{err, ok};

    #[test]
    fn b64enc_encodes_utf8_with_padding() {
        assert_eq!(
            ok(r#"{{ b64enc("hello") }} [{{ b64enc("") }}] {{ "héllo 😀" | b64enc }}"#),
            "aGVsbG8= [] aMOpbGxvIPCfmIA="
        );
    }

    #[test]
    fn b64enc_rejects_numbers() {
        assert!(err("{{ b64enc(5) }}").contains("text must be a string"));
    }

    #[test]
    fn b64dec_decodes_and_pipes() {
        assert_eq!(
            ok(r#"{{ "aGVsbG8gd29ybGQ=" | b64dec | upper }}"#),
            "HELLO WORLD"
        );
        assert_eq!(ok("{{ b64dec(\"aGVs\\nbG8=\") }}"), "hello");
    }

    #[test]
    fn b64dec_fails_on_invalid_input() {
        assert!(err(r#"{{ b64dec("aGVsbG8") }}"#).contains("illegal base64 data at input byte 4"));
        assert!(err(r#"{{ b64dec("!!!") }}"#).contains("illegal base64 data at input byte 0"));
    }

    #[test]
    fn b64dec_keeps_binary_bytes_for_b64enc() {
        assert_eq!(ok(r#"{{ "/wA=" | b64dec | b64enc }}"#), "/wA=");
    }

    #[test]
    fn sha256sum_is_lower_hex() {
        assert_eq!(
            ok(r#"{{ sha256sum("hello") }}"#),
            "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
        );
    }

    #[test]
    fn sha1sum_is_lower_hex() {
        assert_eq!(
            ok(r#"{{ "hello" | sha1sum }}"#),
            "aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d"
        );
    }

    #[test]
    fn to_yaml_writes_helm_yaml_without_the_final_newline() {
        assert_eq!(
            ok(r#"{{ toYaml({"b": ["x", {"k": "yes"}], "a": 1}) }}"#),
            "a: 1\nb:\n- x\n- k: \"yes\""
        );
        assert_eq!(ok(r#"{{ {"a": 1} | toYaml | nindent(2) }}"#), "\n  a: 1");
    }

    #[test]
    fn to_yaml_of_nan_is_an_error() {
        assert!(err(r#"{{ toYaml(float64("NaN")) }}"#).starts_with("toYaml(value): "));
    }

    #[test]
    fn to_json_is_compact_and_html_safe() {
        assert_eq!(
            ok(r#"{{ toJson({"b": [1, 2.5, none], "a": "<a href='x'>&"}) }}"#),
            r#"{"a":"\u003ca href='x'\u003e\u0026","b":[1,2.5,null]}"#
        );
    }

    #[test]
    fn to_pretty_json_indents_two_spaces() {
        assert_eq!(
            ok(r#"{{ {"b": [1], "a": {}} | toPrettyJson }}"#),
            "{\n  \"a\": {},\n  \"b\": [\n    1\n  ]\n}"
        );
    }

    #[test]
    fn from_yaml_reads_yaml_1_1() {
        assert_eq!(
            ok(r#"{{ fromYaml("a: 1\nb: [x, y]") }}"#),
            "map[a:1 b:[x true]]"
        );
        assert_eq!(ok(r#"{{ fromYaml("") }}"#), "map[]");
    }

    #[test]
    fn from_yaml_fails_on_invalid_yaml_or_a_list() {
        assert!(err(r#"{{ fromYaml("a: [1") }}"#).contains("invalid YAML"));
        assert!(err(r#"{{ fromYaml("- a") }}"#).contains("not a map"));
    }

    #[test]
    fn from_yaml_array_reads_a_list() {
        assert_eq!(ok(r#"{{ fromYamlArray("- a\n- 1") }}"#), "[a 1]");
        assert!(err(r#"{{ fromYamlArray("a: 1") }}"#).contains("not a list"));
    }

    #[test]
    fn from_json_reads_an_object() {
        assert_eq!(
            ok(r#"{{ fromJson("{\"a\": [1, 2.5, null]}") }}"#),
            "map[a:[1 2.5 <nil>]]"
        );
        assert!(err(r#"{{ fromJson("bad") }}"#).contains("invalid JSON"));
        assert!(err(r#"{{ fromJson("[1]") }}"#).contains("not an object"));
    }

    #[test]
    fn from_json_array_reads_an_array() {
        assert_eq!(ok(r#"{{ fromJsonArray("[1, \"a\"]") }}"#), "[1 a]");
    }
}
