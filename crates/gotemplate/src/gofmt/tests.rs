//! Unit tests for Go's fmt printing: floats, spacing, operand errors, flags and quoting.

use super::*;

fn v(f: f64) -> String {
    format_float_v(f)
}

#[test]
fn float_v_uses_exponent_from_one_million() {
    assert_eq!(v(1e6), "1e+06");
    assert_eq!(v(999999.0), "999999");
    assert_eq!(v(1234567.5), "1.2345675e+06");
    assert_eq!(v(123456.7), "123456.7");
}

#[test]
fn float_v_uses_exponent_below_one_ten_thousandth() {
    assert_eq!(v(0.0001), "0.0001");
    assert_eq!(v(0.00001), "1e-05");
    assert_eq!(v(1.25e-7), "1.25e-07");
}

#[test]
fn float_v_prints_integral_values_without_point() {
    assert_eq!(v(42.0), "42");
    assert_eq!(v(0.0), "0");
    assert_eq!(v(-2.5), "-2.5");
    assert_eq!(v(1.2345678901234567e19), "1.2345678901234567e+19");
}

#[test]
fn sprint_spaces_only_between_non_strings() {
    let args = [
        Value::str("a"),
        Value::Int(1),
        Value::Int(2),
        Value::str("b"),
    ];
    assert_eq!(sprint(&args), "a1 2b");
}

#[test]
fn printf_reports_wrong_missing_and_extra_operands() {
    assert_eq!(sprintf("%d", &[Value::str("x")]), "%!d(string=x)");
    assert_eq!(sprintf("%s %s", &[Value::str("a")]), "a %!s(MISSING)");
    assert_eq!(
        sprintf("%s", &[Value::str("a"), Value::Int(3)]),
        "a%!(EXTRA int=3)"
    );
}

#[test]
fn printf_float_verbs() {
    let f = [Value::Float(1234567.5)];
    assert_eq!(sprintf("%f", &f), "1234567.500000");
    assert_eq!(sprintf("%e", &f), "1.234568e+06");
    assert_eq!(sprintf("%.2e", &f), "1.23e+06");
    assert_eq!(sprintf("%g", &f), "1.2345675e+06");
    assert_eq!(sprintf("%.3g", &[Value::Float(1.23456)]), "1.23");
    assert_eq!(
        sprintf("%8.3f|%-8.2f|", &[Value::Float(1.23456), Value::Float(2.5)]),
        "   1.235|2.50    |"
    );
}

#[test]
fn printf_integer_flags() {
    let args = [Value::Int(42), Value::Int(255), Value::Int(7)];
    assert_eq!(sprintf("%05d %#x %+d", &args), "00042 0xff +7");
    assert_eq!(sprintf("%x", &[Value::Int(-255)]), "-ff");
}

#[test]
fn a_written_width_is_refused_only_once_it_grew_past_a_million() {
    // Go checks the bound before taking each digit: 1000001 passes, 100000001 does not.
    assert_eq!(sprintf("%1000001d", &[Value::Int(5)]).len(), 1000001);
    assert_eq!(
        sprintf("[%100000001d]x", &[Value::Int(5)]),
        "[%!(NOVERB)%!(EXTRA int=5)"
    );
}

#[test]
fn quote_escapes_like_strconv() {
    assert_eq!(quote("héllo\n\t\"", false), "\"héllo\\n\\t\\\"\"");
    assert_eq!(quote("\u{1}\u{2028}", false), "\"\\x01\\u2028\"");
}
