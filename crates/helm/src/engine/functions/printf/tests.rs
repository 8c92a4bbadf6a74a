//! Unit tests for `printf` and Go's quoting, kept apart so the formatter reads on its own.

use super::sprintf;
use crate::engine::functions::test_support::{err, ok, with_values};
use crate::engine::gofmt::push_escaped;
use minijinja::value::Value;

proptest::proptest! {
    #[test]
    fn quoting_copies_plain_text_whole_and_escapes_the_rest_as_before(
        text in "[ -~\\t\\n\"\\\\\u{7f}\u{a0}\u{2028}\u{1F600}\u{200B}]{0,24}",
        ascii_only in proptest::bool::ANY,
    ) {
        let mut one_by_one = String::from('"');
        for c in text.chars() {
            push_escaped(&mut one_by_one, c, '"', ascii_only);
        }
        one_by_one.push('"');
        proptest::prop_assert_eq!(super::go_quote(&text, ascii_only), one_by_one);
    }
}

fn f(format: &str, args: &[Value]) -> String {
    sprintf(format, args).unwrap()
}

#[test]
fn printf_handles_the_common_verbs() {
    assert_eq!(
        ok(r#"{{ printf("%s|%d|%v|%q|%t|%05.2f", "s", 5, [1, 2], "a\"b", true, 3.14159) }}"#),
        r#"s|5|[1 2]|"a\"b"|true|03.14"#
    );
}

#[test]
fn printf_reports_a_wrong_verb_like_go() {
    assert_eq!(ok(r#"{{ printf("%d", "str") }}"#), "%!d(string=str)");
    assert_eq!(ok(r#"{{ printf("%s", 5) }}"#), "%!s(int=5)");
    assert_eq!(ok(r#"{{ printf("%d", 1.5) }}"#), "%!d(float64=1.5)");
    assert_eq!(ok(r#"{{ printf("%z", 1) }}"#), "%!z(int=1)");
}

#[test]
fn printf_reports_missing_and_extra_arguments() {
    assert_eq!(ok(r#"{{ printf("%s %s", "a") }}"#), "a %!s(MISSING)");
    assert_eq!(
        ok(r#"{{ printf("%s", "a", "b", none) }}"#),
        "a%!(EXTRA string=b, <nil>)"
    );
}

#[test]
fn printf_percent_and_noverb() {
    assert_eq!(
        ok(r#"{{ printf("100%") }} {{ printf("%%") }}"#),
        "100%!(NOVERB) %"
    );
}

#[test]
fn printf_width_precision_and_alignment() {
    assert_eq!(
        ok(r#"[{{ printf("%6.2f|%-6s|%6s|%-5d|%.3d|%05s", 3.14159, "ab", "cd", 3, 7, "ab") }}]"#),
        "[  3.14|ab    |    cd|3    |007|000ab]"
    );
}

#[test]
fn printf_integer_bases() {
    assert_eq!(
        f(
            "%x %X %o %O %#o %b %#x %c %U %#U %q",
            &[255, -255, 8, 8, 8, 5, 255, 65, 65, 65, 65].map(Value::from)
        ),
        "ff -FF 10 0o10 010 101 0xff A U+0041 U+0041 'A' 'A'"
    );
}

#[test]
fn printf_float_forms() {
    assert_eq!(
        f(
            "%e|%E|%g|%G|%.3g|%8.3e|%+.2f|%v|%g",
            &[1234.5678, 0.000012, 1e21, 1e-7, 1234.5678, 1234.5678, 2.5, 1234567.0, 100000.0]
                .map(Value::from)
        ),
        "1.234568e+03|1.200000E-05|1e+21|1E-07|1.23e+03|1.235e+03|+2.50|1.234567e+06|100000"
    );
}

#[test]
fn printf_g_with_precision_uses_plain_form_for_small_exponents() {
    assert_eq!(
        f("%.3g %.10g %.2g", &[1.5, 123.0, 0.0].map(Value::from)),
        "1.5 123 0"
    );
}

#[test]
fn printf_prints_integers_under_float_verbs() {
    assert_eq!(
        f("%.1f %g", &[Value::from(3), Value::from(12345678)]),
        "3.0 1.2345678e+07"
    );
}

#[test]
fn printf_hex_of_a_string() {
    assert_eq!(
        f("%x %X % x", &["hi", "hi", "hi"].map(Value::from)),
        "6869 6869 68 69"
    );
}

#[test]
fn printf_types() {
    assert_eq!(
        ok(r#"{{ printf("%T %T %T %T %T %T", 1, 1.5, "s", true, [1], {"a": 1}) }}"#),
        "int float64 string bool []interface {} map[string]interface {}"
    );
}

#[test]
fn printf_lists_apply_the_verb_to_each_item() {
    assert_eq!(
        ok(r#"{{ printf("%s", ["a", 1, none]) }}"#),
        "[a %!s(int=1) <nil>]"
    );
    assert_eq!(
        ok(r#"{{ printf("%v", {"b": 1, "a": none}) }}"#),
        "map[a:<nil> b:1]"
    );
}

#[test]
fn printf_nil_prints_nil_only_for_v() {
    assert_eq!(
        with_values(
            r#"{{ printf("%v %v %d", none, Values.missing, none) }}"#,
            "{}"
        )
        .unwrap(),
        "<nil> <nil> %!d(<nil>)"
    );
}

#[test]
fn printf_quotes_strings_go_style() {
    assert_eq!(
        f(
            "%q %+q %#q %.1q",
            &["é\n", "é", "a`b", "hello"].map(Value::from)
        ),
        r#""é\n" "\u00e9" "a`b" "h""#
    );
}

#[test]
fn printf_star_width_and_argument_indexes() {
    assert_eq!(
        f("[%*d] %[2]s %[1]s", &[Value::from(3), Value::from(7)]),
        "[  7] %!s(int=7) %!s(int=3)"
    );
    assert_eq!(f("%[3]d", &[Value::from(1)]), "%!d(BADINDEX)");
}

#[test]
fn printf_a_huge_width_is_not_a_number() {
    assert_eq!(
        f("%99999999d", &[Value::from(1)]),
        "%!(NOVERB)%!(EXTRA int=1)"
    );
}

#[test]
fn printf_matches_helm_on_a_recorded_table() {
    // Format, arguments (JSON: integers are Go ints, fractions float64) and Helm 3.17.1's output.
    let table: Vec<(String, Vec<serde_json::Value>, String)> = serde_json::from_str(include_str!(
        "../../../../../../tests/helm_corpus/printf_helm.json"
    ))
    .unwrap();
    let wrong: Vec<String> = table
        .iter()
        .filter_map(|(format, args, want)| {
            let args: Vec<Value> = args.iter().map(json).collect();
            let got = sprintf(format, &args).unwrap();
            (got != *want)
                .then(|| format!("{format:?} {args:?}\n  Helm: {want:?}\n  ours: {got:?}"))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} differences:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

fn json(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::from(()),
        serde_json::Value::Bool(b) => Value::from(*b),
        serde_json::Value::Number(n) if n.is_i64() => Value::from(n.as_i64().unwrap()),
        serde_json::Value::Number(n) => Value::from(n.as_f64().unwrap()),
        serde_json::Value::String(s) => Value::from(s.as_str()),
        serde_json::Value::Array(a) => Value::from(a.iter().map(json).collect::<Vec<_>>()),
        serde_json::Value::Object(o) => {
            Value::from_pairs(o.iter().map(|(k, v)| (k.as_str(), json(v))))
        }
    }
}

#[test]
fn printf_refuses_output_above_ten_mebibytes() {
    let message = err(r#"{{ printf("%9000000d%9000000d", 1, 2) }}"#);
    assert!(message.contains("10 MiB"), "{message}");
}

#[test]
fn printf_as_a_filter_takes_the_piped_value_last() {
    assert_eq!(ok(r#"{{ "b" | printf("%s-%s", "a") }}"#), "a-b");
}
