//! Unit tests for the dict and list functions, kept apart from them so the implementation
//! reads on its own.

use crate::engine::functions::test_support::{err, ok, with_values};

#[test]
fn list_as_a_filter_appends_the_piped_value() {
    assert_eq!(
        ok(r#"{{ "abc" | list }} {{ "c" | list("a", "b") }}"#),
        "[abc] [a b c]"
    );
}

#[test]
fn list_keeps_every_argument() {
    assert_eq!(
        ok(r#"{{ list(1, "a", none, true, 1.5) }} {{ list() }}"#),
        "[1 a <nil> true 1.5] []"
    );
}

#[test]
fn dict_builds_a_map_from_pairs() {
    assert_eq!(ok(r#"{{ dict("b", 1, "a", 2) }}"#), "map[a:2 b:1]");
}

#[test]
fn dict_prints_keys_and_pads_an_odd_pair() {
    assert_eq!(
        ok(r#"{{ dict(1, 2, true, "t", "odd") }}"#),
        "map[1:2 odd: true:t]"
    );
}

#[test]
fn dict_takes_keyword_arguments() {
    assert_eq!(ok(r#"{{ dict("a", 1, b=2) }}"#), "map[a:1 b:2]");
}

#[test]
fn keys_lists_the_keys_of_several_maps() {
    assert_eq!(ok(r#"{{ keys({"b": 1, "a": 2}, {"a": 3}) }}"#), "[a b a]");
    assert!(err(r#"{{ keys("x") }}"#).contains("map must be a map"));
}

#[test]
fn has_key_sees_none_values_and_tolerates_undefined_maps() {
    assert_eq!(
            with_values(
                r#"{{ hasKey(Values.m, "n") }} {{ hasKey(Values.m, "z") }} {{ hasKey(Values.missing, "a") }}"#,
                r#"{"m": {"n": null}}"#
            )
            .unwrap(),
            "true false false"
        );
}

#[test]
fn has_compares_numbers_by_value() {
    assert_eq!(
        ok(
            r#"{{ has(1, [1, 2]) }} {{ has(1.0, [1, 2]) }} {{ has("x", none) }} {{ [1] | has(3) }}"#
        ),
        "true true false false"
    );
}

#[test]
fn set_and_unset_return_new_maps() {
    assert_eq!(
        ok(
            r#"{% set d = dict("a", 1) %}{% set e = set(d, "b", 2) %}{% set f = unset(e, "a") %}{{ d }} {{ e }} {{ f }}"#
        ),
        "map[a:1] map[a:1 b:2] map[b:2]"
    );
}

#[test]
fn merge_keeps_destination_and_fills_its_empty_values() {
    assert_eq!(
            with_values(
                "{{ merge(Values.dst, Values.src) }}",
                r#"{"dst": {"s": "", "n": 0, "keep": "d", "l": [1], "m": {"x": 1}},
                   "src": {"s": "src", "n": 5, "keep": "s", "l": [2], "m": {"x": 9, "y": 2}, "new": 1, "nul": null}}"#
            )
            .unwrap(),
            "map[keep:d l:[1] m:map[x:1 y:2] n:5 new:1 s:src]"
        );
}

#[test]
fn merge_does_not_change_its_arguments() {
    assert_eq!(
        ok(r#"{% set d = dict("a", 1) %}{% set m = merge(d, dict("b", 2)) %}{{ d }} {{ m }}"#),
        "map[a:1] map[a:1 b:2]"
    );
}

#[test]
fn merge_as_a_filter_pipes_the_last_source() {
    assert_eq!(
        ok(r#"{{ {"a": 2, "b": 2} | merge({"a": 1}) }}"#),
        "map[a:1 b:2]"
    );
}

#[test]
fn merge_overwrite_lets_sources_win_deeply() {
    assert_eq!(
        with_values(
            "{{ mergeOverwrite(Values.dst, Values.src) }}",
            r#"{"dst": {"s": "dst", "m": {"x": 1, "z": 3}, "k": "scalar"},
                   "src": {"s": "", "m": {"x": 9, "y": 2}, "k": {"x": 1}, "nul": null}}"#
        )
        .unwrap(),
        "map[k:map[x:1] m:map[x:9 y:2 z:3] nul:<nil> s:]"
    );
}

#[test]
fn merge_overwrite_applies_sources_in_order() {
    assert_eq!(
        ok(r#"{{ mergeOverwrite(dict("a", 1), dict("a", 2, "b", 2), dict("a", 3)) }}"#),
        "map[a:3 b:2]"
    );
}

#[test]
fn merge_rejects_non_maps() {
    assert!(err(r#"{{ merge(dict(), "x") }}"#).contains("source must be a map"));
}

#[test]
fn deep_copy_is_an_equal_value() {
    assert_eq!(ok(r#"{{ deepCopy([1, {"a": [2]}]) }}"#), "[1 map[a:[2]]]");
}

#[test]
fn dig_follows_keys_or_returns_the_default() {
    assert_eq!(
            with_values(
                r#"{{ dig("image", "tag", "none", Values) }} {{ dig("image", "nope", "none", Values) }} {{ dig("a", "d", Values.missing) }}"#,
                r#"{"image": {"tag": "1.0"}}"#
            )
            .unwrap(),
            "1.0 none d"
        );
}

#[test]
fn dig_fails_when_stepping_into_a_scalar() {
    let message = with_values(
        r#"{{ dig("image", "tag", "none", Values) }}"#,
        r#"{"image": "flat"}"#,
    )
    .unwrap_err();
    assert!(
        message.contains("image is string \"flat\", not a map"),
        "{message}"
    );
}

#[test]
fn len_counts_bytes_items_and_keys() {
    assert_eq!(
        ok(r#"{{ len([1, 2, 3]) }} {{ len("héllo") }} {{ len({"a": 1}) }}"#),
        "3 6 1"
    );
    assert!(err("{{ len(none) }}").contains("has no length"));
}

#[test]
fn until_counts_from_zero() {
    assert_eq!(
        ok("{{ until(3) }} {{ until(-2) }} {{ until(0) }}"),
        "[0 1 2] [0 -1] []"
    );
}

#[test]
fn until_refuses_a_huge_list() {
    assert!(err("{{ until(100000000000) }}").contains("more than the limit"));
}

#[test]
fn until_step_and_seq() {
    assert_eq!(
            ok("{{ untilStep(0, 10, 4) }} {{ untilStep(5, 0, -2) }} {{ seq(3) }}|{{ seq(2, 0) }}|{{ seq(0, 5, 12) }}"),
            "[0 4 8] [5 3 1] 1 2 3|2 1 0|0 5 10"
        );
}

#[test]
fn kind_of_and_type_of_use_go_names() {
    assert_eq!(
        ok(
            r#"{{ kindOf(1) }} {{ kindOf(1.5) }} {{ kindOf("s") }} {{ kindOf([]) }} {{ kindOf({}) }} {{ kindOf(none) }} {{ typeOf([]) }} {{ typeOf(none) }}"#
        ),
        "int float64 string slice map invalid []interface {} <nil>"
    );
}

#[test]
fn kind_is_compares_the_kind() {
    assert_eq!(
        ok(r#"{{ kindIs("map", {}) }} {{ kindIs("slice", "x") }}"#),
        "true false"
    );
}
