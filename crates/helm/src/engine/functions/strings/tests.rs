//! Unit tests for the string functions, kept apart from them so the implementation reads on its
//! own.

use crate::engine::functions::test_support::{err, ok, with_values};

#[test]
fn indent_pads_every_line_including_blank_and_last() {
    assert_eq!(ok(r#"{{ indent(2, "a\n\nb\n") }}"#), "  a\n  \n  b\n  ");
}

#[test]
fn indent_as_a_filter_takes_the_piped_text() {
    assert_eq!(ok(r#"{{ "a\nb" | indent(4) }}"#), "    a\n    b");
}

#[test]
fn indent_keeps_carriage_returns() {
    assert_eq!(ok(r#"{{ indent(2, "a\r\nb") }}"#), "  a\r\n  b");
}

#[test]
fn indent_rejects_a_negative_width() {
    assert!(err(r#"{{ indent(-1, "a") }}"#).contains("must not be negative"));
}

#[test]
fn indent_rejects_a_number_as_text() {
    assert!(err("{{ indent(2, 5) }}").contains("text must be a string, found number 5"));
}

#[test]
fn indent_refuses_a_huge_result() {
    assert!(err(r#"{{ indent(100000000, "a") }}"#).contains("10 MiB"));
}

#[test]
fn nindent_starts_with_a_newline() {
    assert_eq!(ok(r#"x:{{ "a\nb" | nindent(2) }}"#), "x:\n  a\n  b");
}

#[test]
fn trim_removes_unicode_space() {
    assert_eq!(ok("[{{ trim(\"\u{a0} a b \\n\") }}]"), "[a b]");
}

#[test]
fn trim_is_sprig_trim_as_a_filter() {
    assert_eq!(ok(r#"[{{ "  x  " | trim }}]"#), "[x]");
}

#[test]
fn trim_of_a_string_without_outer_space_is_that_string() {
    assert_eq!(ok(r#"[{{ trim("a b") }}]"#), "[a b]");
}

#[test]
fn trim_all_trims_a_cutset() {
    assert_eq!(ok(r#"{{ trimAll("$%", "$%$a$%") }}"#), "a");
}

#[test]
fn trim_prefix_strips_once() {
    assert_eq!(ok(r#"{{ trimPrefix("a", "aab") }}"#), "ab");
    assert_eq!(ok(r#"{{ "foo-bar" | trimPrefix("foo-") }}"#), "bar");
}

#[test]
fn trim_suffix_strips_once() {
    assert_eq!(ok(r#"{{ trimSuffix("\n", "text\n\n") }}"#), "text\n");
}

#[test]
fn upper_maps_one_character_to_one() {
    assert_eq!(ok(r#"{{ upper("straße é") }}"#), "STRAßE É");
}

#[test]
fn lower_maps_dotted_capital_i_to_i() {
    assert_eq!(ok(r#"{{ "ÀB İ" | lower }}"#), "àb i");
}

#[test]
fn title_only_touches_first_letters() {
    assert_eq!(
        ok(r#"{{ title("hello wORLD-foo_bar") }}"#),
        "Hello WORLD-Foo_bar"
    );
}

#[test]
fn replace_has_sprig_order_as_function_and_jinja_order_as_filter() {
    assert_eq!(ok(r#"{{ replace("a", "b", "banana") }}"#), "bbnbnb");
    assert_eq!(ok(r#"{{ "x.y.z" | replace(".", "-") }}"#), "x-y-z");
}

#[test]
fn replace_with_empty_old_inserts_everywhere() {
    assert_eq!(ok(r#"{{ replace("", "-", "abc") }}"#), "-a-b-c-");
}

#[test]
fn contains_is_a_substring_test() {
    assert_eq!(
        ok(r#"{{ contains("ell", "hello") }} {{ contains("x", "abc") }}"#),
        "true false"
    );
}

#[test]
fn contains_rejects_a_number() {
    assert!(err(r#"{{ contains("1", 123) }}"#).contains("must be a string"));
}

#[test]
fn has_prefix_tests_the_start() {
    assert_eq!(
        ok(r#"{{ hasPrefix("he", "hello") }} {{ "hello" | hasPrefix("lo") }}"#),
        "true false"
    );
}

#[test]
fn has_suffix_tests_the_end() {
    assert_eq!(
        ok(r#"{{ hasSuffix("lo", "hello") }} {{ "hello" | hasSuffix("he") }}"#),
        "true false"
    );
}

#[test]
fn quote_escapes_like_go() {
    assert_eq!(
        ok("{{ quote(\"say \\\"hi\\\"\\t\u{7}\u{a0}\u{200b}😀\") }}"),
        r#""say \"hi\"\t\a\u00a0\u200b😀""#
    );
}

#[test]
fn quote_skips_none_and_joins_several() {
    assert_eq!(
        ok(r#"{{ quote("a", none, 1, true) }}"#),
        r#""a" "1" "true""#
    );
    assert_eq!(
        with_values("[{{ quote(Values.missing) }}]", "{}").unwrap(),
        "[]"
    );
}

#[test]
fn quote_prints_lists_go_style() {
    assert_eq!(ok(r#"{{ ["a", "b"] | quote }}"#), r#""[a b]""#);
}

#[test]
fn squote_does_not_escape() {
    assert_eq!(
        ok(r#"{{ "it's" | squote }} {{ squote(5, true) }}"#),
        "'it's' '5' 'true'"
    );
}

#[test]
fn cat_joins_with_spaces_skipping_none() {
    assert_eq!(ok(r#"{{ cat("a", none, "b", 1) }}"#), "a b 1");
}

#[test]
fn nospace_removes_all_white_space() {
    assert_eq!(ok(r#"{{ nospace(" a b\tc\n") }}"#), "abc");
}

#[test]
fn trunc_keeps_head_or_tail() {
    assert_eq!(
        ok(r#"{{ trunc(3, "abcdef") }} {{ trunc(10, "abc") }} {{ trunc(-2, "abcdef") }}"#),
        "abc abc ef"
    );
}

#[test]
fn trunc_never_splits_a_character() {
    assert_eq!(ok(r#"{{ trunc(2, "héllo") }}"#), "h");
}

#[test]
fn repeat_repeats() {
    assert_eq!(ok(r#"{{ repeat(3, "ab") }}"#), "ababab");
}

#[test]
fn repeat_refuses_more_than_ten_mebibytes() {
    assert!(err(r#"{{ repeat(100000000000, "ab") }}"#).contains("10 MiB"));
    assert!(err(r#"{{ repeat(-1, "ab") }}"#).contains("must not be negative"));
}

#[test]
fn join_skips_none_and_prints_go_style() {
    assert_eq!(ok(r#"{{ join("-", [1, none, "b", true]) }}"#), "1-b-true");
    assert_eq!(ok(r#"{{ ["a", "b"] | join(",") }}"#), "a,b");
}

#[test]
fn split_list_keeps_empty_pieces() {
    assert_eq!(ok(r#"{{ splitList(",", "a,,b") }}"#), "[a  b]");
    assert_eq!(ok(r#"{{ splitList("", "ab") }}"#), "[a b]");
}

#[test]
fn split_returns_a_map_of_numbered_pieces() {
    assert_eq!(ok(r#"{{ split(",", "a,b,c") }}"#), "map[_0:a _1:b _2:c]");
    assert_eq!(ok(r#"{{ ("repo:tag" | split(":"))._1 }}"#), "tag");
}

#[test]
fn sort_alpha_sorts_as_strings() {
    assert_eq!(
        ok(r#"{{ sortAlpha([10, 9, 1, "b", "B"]) }}"#),
        "[1 10 9 B b]"
    );
}

#[test]
fn to_strings_prints_each_item() {
    assert_eq!(ok(r#"{{ toStrings([1, "a", none, 1.5]) }}"#), "[1 a 1.5]");
}

#[test]
fn to_string_is_go_v() {
    assert_eq!(
        ok(r#"{{ toString(none) }} {{ toString([1, "a", none]) }} {{ 1.5 | toString }}"#),
        "<nil> [1 a <nil>] 1.5"
    );
}

#[test]
fn print_spaces_only_between_non_strings() {
    assert_eq!(ok(r#"{{ print("a", 1, 2, "b", none) }}"#), "a1 2b<nil>");
}
