//! Encodings: base64, digests, and YAML and JSON in both directions.
//!
//! Where Helm hides a failure inside the result (`b64dec` returning Go's error text, `fromYaml`
//! returning a map with an `Error` key, `toYaml` of a NaN printing nothing), we fail the render
//! with the reason instead: a Secret holding "illegal base64 data at input byte 4" is never what a
//! chart meant.

use super::args::Args;
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
pub fn b64enc(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(Value::from(STD.encode(args.bytes(0, "text")?)))
}

/// `b64dec(text)`: decodes standard base64 (line breaks are ignored, as Go does). Invalid input
/// is an error naming the first bad byte (Helm returns that message as the *value*). Bytes that
/// are not UTF-8 come back as a bytes value, which `b64enc` encodes back unchanged.
pub fn b64dec(args: &Args) -> Result<Value, Error> {
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

fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// `sha256sum(text)`: the SHA-256 digest in lower-case hex.
///
/// ```jinja
/// checksum/config: {{ include("config.yaml") | sha256sum }}
/// ```
pub fn sha256sum(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let text = args.bytes(0, "text")?;
    Ok(Value::from(hex(&crate::digest::sha256_remembered(text))))
}

/// `sha1sum(text)`: the SHA-1 digest in lower-case hex.
pub fn sha1sum(args: &Args) -> Result<Value, Error> {
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
pub fn to_yaml(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    crate::yaml::try_to_yaml_within(&from_jinja(&args.get(0))?, crate::limits::MAX_STRING_BYTES)
        .map(Value::from)
        .map_err(|e| args.error(e))
}

/// `toJson(value)`: compact JSON as Go writes it (sorted keys, `<`, `>` and `&` escaped).
///
/// ```jinja
/// config.json: {{ toJson(Values.config) | quote }}
/// ```
pub fn to_json(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    crate::yaml::try_to_json(&from_jinja(&args.get(0))?)
        .map(Value::from)
        .map_err(|e| args.error(e))
}

/// `toPrettyJson(value)`: JSON indented by two spaces, as Go's `MarshalIndent` writes it.
pub fn to_pretty_json(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    crate::yaml::try_to_pretty_json(&from_jinja(&args.get(0))?)
        .map(Value::from)
        .map_err(|e| args.error(e))
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
pub fn from_yaml(args: &Args) -> Result<Value, Error> {
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
pub fn from_yaml_array(args: &Args) -> Result<Value, Error> {
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
pub fn from_json(args: &Args) -> Result<Value, Error> {
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
pub fn from_json_array(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    match parse_json(args)? {
        Data::Null => Ok(Value::from(Vec::<Value>::new())),
        list @ Data::Seq(_) => Ok(to_jinja(&list)),
        other => Err(args.error(format!("the JSON is a {}, not an array", other.type_name()))),
    }
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
