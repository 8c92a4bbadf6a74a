//! Which strings go-yaml v2 must double-quote because, written plain, a YAML 1.1 reader would
//! take them for something other than a string.
//!
//! go-yaml v2 asks its own resolver what a plain scalar would mean (`resolve("", s)`) and also
//! quotes base-60 floats (`1:20`) for older readers. The resolver looks at the first byte: letters
//! from `yYnNtTfFoO~` only match a fixed word list, `.` may start a float, and digits or signs may
//! start a timestamp, an integer (any Go base prefix, `_` ignored) or a float.

use crate::load::{
    go_parses_as_float, is_yaml_float, parse_go_integer, parses_finite, resolve_word,
};
use crate::timestamp::is_timestamp;

/// True when `s` must be double-quoted so that it reads back as a string.
pub(super) fn needs_double_quotes(s: &str) -> bool {
    resolves_to_non_string(s) || is_base60_float(s)
}

/// go-yaml v2's `resolve("", s)` gives a tag other than `!!str`.
fn resolves_to_non_string(s: &str) -> bool {
    let Some(&first) = s.as_bytes().first() else {
        return true; // the empty plain scalar is null
    };
    match first {
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' => {
            is_resolved_word(s)
        }
        b'.' => is_resolved_word(s) || go_parses_as_float(s),
        b'0'..=b'9' | b'+' | b'-' => {
            if is_resolved_word(s) || is_timestamp(s) {
                return true;
            }
            // Most numbers have no `_`: no copy for them (this runs for every string written).
            let plain: std::borrow::Cow<str> = if s.contains('_') {
                s.replace('_', "").into()
            } else {
                s.into()
            };
            parse_go_integer(&plain).is_some() || (is_yaml_float(&plain) && parses_finite(&plain))
        }
        _ => false,
    }
}

/// One of go-yaml v2's YAML 1.1 words: booleans, nulls, infinities, NaN.
fn is_resolved_word(s: &str) -> bool {
    resolve_word(s).is_some()
}

/// The YAML 1.1 base-60 float pattern go-yaml v2 still quotes:
/// `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`.
fn is_base60_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'-' | b'+')) {
        i += 1;
    }
    if !b.get(i).is_some_and(u8::is_ascii_digit) || !s.contains(':') {
        return false;
    }
    i += 1;
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
        i += 1;
    }
    let mut groups = 0;
    while b.get(i) == Some(&b':') {
        i += 1;
        match (b.get(i), b.get(i + 1)) {
            (Some(b'0'..=b'5'), Some(c)) if c.is_ascii_digit() => i += 2,
            (Some(c), _) if c.is_ascii_digit() => i += 1,
            _ => return false,
        }
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            i += 1;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::needs_double_quotes as q;

    #[test]
    fn yaml_1_1_words_need_quotes_in_every_spelling_go_yaml_knows() {
        for s in [
            "y", "Y", "yes", "Yes", "YES", "n", "No", "on", "ON", "off", "Off", "true", "False",
            "null", "Null", "NULL", "~", "", ".inf", "-.Inf", "+.INF", ".nan", ".NaN",
        ] {
            assert!(q(s), "{s:?}");
        }
    }

    #[test]
    fn other_spellings_and_words_stay_plain() {
        for s in [
            "yES", "tRUE", "nULL", "nan", "inf", "Infinity", "yesno", "o", "<<", "x",
        ] {
            assert!(!q(s), "{s:?}");
        }
    }

    #[test]
    fn integers_in_any_go_base_need_quotes() {
        for s in [
            "0",
            "123",
            "-7",
            "+7",
            "0123",
            "0o17",
            "0x1F",
            "0X1f",
            "0b101",
            "-0b101",
            "1_000",
            "09", // not octal, but still a float
            "18446744073709551615",
            "-9223372036854775808",
        ] {
            assert!(q(s), "{s:?}");
        }
    }

    #[test]
    fn out_of_range_or_malformed_numbers_are_strings() {
        for s in [
            "0x", "0xG", "1.2.3", "10.0.0.1", "1e", "1e400", "-", "+", "1a", "0b2",
        ] {
            assert!(!q(s), "{s:?}");
        }
    }

    #[test]
    fn integers_too_big_for_64_bits_still_read_as_floats() {
        for s in [
            "18446744073709551616",
            "+9223372036854775808",
            "-9223372036854775809",
        ] {
            assert!(q(s), "{s:?}");
        }
        assert!(!q("0x10000000000000000"));
    }

    #[test]
    fn floats_need_quotes() {
        for s in [
            "1.5", "1.10", "1e3", "1E+3", "-0.5", "+.5", ".5", ".5e3", "1.", "1e-400",
        ] {
            assert!(q(s), "{s:?}");
        }
    }

    #[test]
    fn dot_floats_follow_go_parse_float_underscore_rules() {
        assert!(q(".5_5"));
        assert!(!q("._5"));
        assert!(!q(".5_"));
        assert!(!q("."));
        assert!(!q(".e3"));
        assert!(!q(".5e"));
    }

    #[test]
    fn base60_floats_need_quotes() {
        for s in ["1:20", "-1:20", "190:20:30", "1:2", "1:20.5", "1_0:59"] {
            assert!(q(s), "{s:?}");
        }
        for s in ["1:60", "1:", "a:1", "1::2", "1:2:x", "1:234"] {
            assert!(!q(s), "{s:?}");
        }
    }

    #[test]
    fn timestamps_in_go_yaml_layouts_need_quotes() {
        for s in [
            "2024-01-15",
            "2024-1-5",
            "2024-02-29",
            "2024-01-15T10:20:30Z",
            "2024-01-15t10:20:30Z",
            "2024-01-15T1:2:3Z",
            "2024-01-15T10:20:30.123456789123Z",
            "2024-01-15T10:20:30,5Z",
            "2024-01-15T10:20:30+01:00",
            "2024-01-15 10:20:30",
            "2024-01-15   10:20:30.5",
        ] {
            assert!(q(s), "{s:?}");
        }
    }

    #[test]
    fn near_timestamps_that_go_rejects_stay_plain() {
        for s in [
            "2023-02-29",
            "2024-13-01",
            "2024-00-10",
            "2024-01-32",
            "2024-001-15",
            "2024-01-15T10:20:30",
            "2024-01-15T24:00:00Z",
            "2024-01-15T10:20:30+0100",
            "2024-01-15T10:20:30+25:00",
            "2024-01-15 10:20:30Z",
            "2024-01-15x",
            "20240-01-15",
            "2024-01-",
        ] {
            assert!(!q(s), "{s:?}");
        }
    }
}
