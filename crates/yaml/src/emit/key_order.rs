//! The order in which go-yaml v2 writes map keys.
//!
//! It is not byte order: go-yaml compares string keys rune by rune, puts non-letters before
//! letters at the first difference, and compares runs of digits by their numeric value, so
//! `a9` comes before `a10` and `a_b` before `aB`. (Helm's `toJson` uses plain byte order.)
//!
//! That comparison is not always transitive: for `009100`, `0a9~` and `9b~` each comes before
//! the next and the last before the first. Go sorts the keys in its random map order, so Helm
//! itself prints such sets in varying orders (observed with helm 3.17.1); we sort the byte-ordered
//! keys with a stable merge sort and always print the same one of Helm's orders.

use crate::value::{Map, Value};
use std::cmp::Ordering;
use std::sync::OnceLock;

/// The entries of `map` in go-yaml's key order.
pub(super) fn ordered(map: &Map) -> Vec<(&String, &Value)> {
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    merge_sort(&mut entries, |entry| entry.0);
    entries
}

/// The places of `keys` (given in byte order) in go-yaml's key order.
pub(super) fn ordered_places(keys: &[&str]) -> Vec<usize> {
    let mut places: Vec<usize> = (0..keys.len()).collect();
    merge_sort(&mut places, |&place| keys[place]);
    places
}

/// True when the byte order of `map` already is go-yaml's order (the usual case).
pub(super) fn byte_order_matches(map: &Map) -> bool {
    let mut keys = map.keys();
    let Some(mut previous) = keys.next() else {
        return true;
    };
    for key in keys {
        if less(key, previous) {
            return false;
        }
        previous = key;
    }
    true
}

/// go-yaml v2's `keyList.Less` for two string keys.
pub(super) fn less(a: &str, b: &str) -> bool {
    let mut ai = a.chars();
    let mut bi = b.chars();
    // Whether the digits right before the current position include one that is not `0`.
    let mut nonzero_digit_run = false;
    loop {
        let rest_a = ai.clone();
        let rest_b = bi.clone();
        let (ca, cb) = match (ai.next(), bi.next()) {
            (Some(ca), Some(cb)) => (ca, cb),
            (None, Some(_)) => return true,
            _ => return false,
        };
        if ca == cb {
            if is_digit(ca) {
                nonzero_digit_run |= ca != '0';
            } else {
                nonzero_digit_run = false;
            }
            continue;
        }
        let (la, lb) = (is_letter(ca), is_letter(cb));
        if la && lb {
            return ca < cb;
        }
        if la || lb {
            return lb;
        }
        let start = if (ca == '0' || cb == '0') && nonzero_digit_run {
            1
        } else {
            0
        };
        let (na, len_a) = digit_run(rest_a, start);
        let (nb, len_b) = digit_run(rest_b, start);
        if na != nb {
            return na < nb;
        }
        if len_a != len_b {
            return len_a < len_b;
        }
        return ca < cb;
    }
}

/// The value (wrapping like Go's int64) and length in runes of the run of digits at `chars`.
fn digit_run(chars: std::str::Chars<'_>, start: i64) -> (i64, usize) {
    let mut n = start;
    let mut len = 0;
    for c in chars.take_while(|&c| is_digit(c)) {
        n = n
            .wrapping_mul(10)
            .wrapping_add(i64::from(c as i32 - '0' as i32));
        len += 1;
    }
    (n, len)
}

/// Go's `unicode.IsLetter` (general category L).
fn is_letter(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphabetic()
    } else {
        classes().0.is_match(c.encode_utf8(&mut [0; 4]))
    }
}

/// Go's `unicode.IsDigit` (general category Nd).
fn is_digit(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_digit()
    } else {
        classes().1.is_match(c.encode_utf8(&mut [0; 4]))
    }
}

fn classes() -> &'static (regex::Regex, regex::Regex) {
    static CLASSES: OnceLock<(regex::Regex, regex::Regex)> = OnceLock::new();
    CLASSES.get_or_init(|| {
        (
            regex::Regex::new(r"^\p{L}$").expect("valid class"),
            regex::Regex::new(r"^\p{Nd}$").expect("valid class"),
        )
    })
}

/// A stable merge sort by [`less`] that cannot panic, whatever the comparison's quirks.
fn merge_sort<'k, T: Copy>(entries: &mut [T], key: impl Fn(&T) -> &'k str) {
    let cmp = |x: &T, y: &T| {
        if less(key(y), key(x)) {
            Ordering::Greater
        } else {
            Ordering::Less
        }
    };
    let mut width = 1;
    let mut buffer = entries.to_vec();
    while width < entries.len() {
        for start in (0..entries.len()).step_by(2 * width) {
            let mid = (start + width).min(entries.len());
            let end = (start + 2 * width).min(entries.len());
            let (mut i, mut j) = (start, mid);
            for slot in &mut buffer[start..end] {
                if j >= end || (i < mid && cmp(&entries[i], &entries[j]) != Ordering::Greater) {
                    *slot = entries[i];
                    i += 1;
                } else {
                    *slot = entries[j];
                    j += 1;
                }
            }
        }
        entries.copy_from_slice(&buffer);
        width *= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(keys: &[&str]) -> Vec<String> {
        let map: Map = keys.iter().map(|k| (k.to_string(), Value::Null)).collect();
        ordered(&map).into_iter().map(|(k, _)| k.clone()).collect()
    }

    #[test]
    fn plain_lowercase_keys_keep_byte_order() {
        assert_eq!(order(&["b", "a", "c"]), ["a", "b", "c"]);
        let map: Map = [
            ("a".to_string(), Value::Null),
            ("b".to_string(), Value::Null),
        ]
        .into();
        assert!(byte_order_matches(&map));
    }

    #[test]
    fn digit_runs_compare_by_number() {
        assert_eq!(order(&["a10", "a9", "a1"]), ["a1", "a9", "a10"]);
        assert_eq!(order(&["10", "9", "100"]), ["9", "10", "100"]);
    }

    #[test]
    fn non_letters_come_before_letters() {
        assert_eq!(order(&["aB", "a_b"]), ["a_b", "aB"]);
        assert_eq!(order(&["a~", "a1"]), ["a~", "a1"]);
        assert_eq!(order(&["Z", "_"]), ["_", "Z"]);
    }

    #[test]
    fn letters_compare_by_code_point() {
        assert_eq!(order(&["b", "B", "a", "A"]), ["A", "B", "a", "b"]);
        assert_eq!(order(&["é", "z"]), ["z", "é"]);
    }

    #[test]
    fn a_prefix_comes_first() {
        assert_eq!(order(&["ab", "a", ""]), ["", "a", "ab"]);
    }

    #[test]
    fn leading_zeros_make_a_longer_run_sort_later() {
        assert_eq!(order(&["01", "1"]), ["1", "01"]);
        assert_eq!(order(&["a01", "a1"]), ["a1", "a01"]);
    }

    #[test]
    fn the_toyaml_corpus_keys_sort_as_helm_printed_them() {
        let keys = [
            "key with spaces",
            "true",
            "123",
            "",
            "a.b",
            "-dash",
            "Upper",
            "lower",
        ];
        assert_eq!(
            order(&keys),
            [
                "",
                "-dash",
                "123",
                "Upper",
                "a.b",
                "key with spaces",
                "lower",
                "true"
            ]
        );
    }

    #[test]
    fn a_cyclic_key_set_always_comes_out_in_one_of_helms_orders() {
        assert!(less("009100", "0a9~") && less("0a9~", "9b~") && less("9b~", "009100"));
        // Helm 3.17.1 printed these keys (with `a9Aa10_` after them) in three different orders
        // over twelve runs; this is one of them.
        assert_eq!(order(&["9b~", "0a9~", "009100"]), ["9b~", "009100", "0a9~"]);
    }

    #[test]
    fn non_ascii_letters_and_digits_use_unicode_classes() {
        assert!(is_letter('é'));
        assert!(is_letter('日'));
        assert!(!is_letter('😀'));
        assert!(is_digit('٣'));
        assert!(!is_digit('Ⅻ'));
        assert_eq!(order(&["a", "😀"]), ["😀", "a"]);
    }
}
