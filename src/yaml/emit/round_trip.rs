//! What Helm's JSON round trip does to strings before go-yaml prints them.
//!
//! `toYaml` marshals values to JSON and reads that JSON back with go-yaml v2. Go's JSON leaves
//! most characters raw, and go-yaml's reader and scanner treat a few of those specially:
//!
//! - U+007F–U+0084, U+0086–U+009F, U+FFFE and U+FFFF are rejected ("control characters are not
//!   allowed"), so Helm prints nothing;
//! - a raw NEL (U+0085) is a line break inside the double-quoted JSON string, so it is folded
//!   like one: with the spaces around it, one NEL becomes a space and `n + 1` NELs become `n`
//!   newlines; a `---` or `...` right after a NEL is a document marker and an error;
//! - a map key is only valid on one line and within 1024 characters of JSON text, so a key with
//!   a NEL, or whose JSON string runs past 1022 characters, is an error.

use super::ToYamlError;

/// Characters go-yaml's reader refuses; Go's JSON writes them raw.
pub(super) fn is_rejected(c: char) -> bool {
    matches!(u32::from(c), 0x7F..=0x84 | 0x86..=0x9F | 0xFFFE | 0xFFFF)
}

const NEL: char = '\u{85}';

/// A map key whose JSON string runs past 1022 characters: the `:` after it is more than 1024
/// characters from the key's opening quote, beyond YAML's limit for implicit keys.
pub(super) fn key_too_long(key: &str) -> bool {
    // Escapes count in full; every character takes at most six JSON characters.
    key.len() * 6 > 1022 && json_text_chars(key) > 1022
}

/// The string go-yaml reads back from the JSON form of `s`, which holds a NEL.
pub(super) fn fold_line_breaks(s: &str) -> Result<String, ToYamlError> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    let mut at_line_start = false;
    loop {
        if at_line_start && is_document_marker(&chars[i..]) {
            return Err(ToYamlError::Reread("found unexpected document indicator"));
        }
        while i < chars.len() && chars[i] != ' ' && chars[i] != NEL {
            out.push(chars[i]);
            i += 1;
        }
        if i == chars.len() {
            return Ok(out);
        }
        // A run of spaces and line breaks (escaped characters are content, not blanks).
        let mut spaces = 0;
        let mut breaks = 0;
        while i < chars.len() && (chars[i] == ' ' || chars[i] == NEL) {
            if chars[i] == NEL {
                breaks += 1;
                at_line_start = true;
            } else {
                if breaks == 0 {
                    spaces += 1;
                }
                at_line_start = false;
            }
            i += 1;
        }
        match breaks {
            0 => out.extend(std::iter::repeat_n(' ', spaces)),
            1 => out.push(' '),
            n => out.extend(std::iter::repeat_n('\n', n - 1)),
        }
    }
}

/// `---` or `...` followed by a blank or a break (the closing quote is neither).
fn is_document_marker(rest: &[char]) -> bool {
    rest.len() >= 4
        && (rest[..3] == ['-'; 3] || rest[..3] == ['.'; 3])
        && matches!(rest[3], ' ' | NEL)
}

/// Length in characters of `s` as Go's JSON writes it, without the quotes (at most six
/// characters per character).
fn json_text_chars(s: &str) -> usize {
    s.chars()
        .map(|c| match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            '\0'..='\u{1f}' | '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => 6,
            _ => 1,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c1_controls_del_and_nonchars_are_rejected_but_nel_is_read() {
        for c in [
            '\u{7f}', '\u{80}', '\u{84}', '\u{86}', '\u{9f}', '\u{fffe}', '\u{ffff}',
        ] {
            assert!(is_rejected(c), "{c:?}");
        }
        for c in ['\u{85}', '\u{a0}', '\t', '\u{1}', '\u{fffd}', '😀'] {
            assert!(!is_rejected(c), "{c:?}");
        }
    }

    #[test]
    fn one_nel_folds_with_its_spaces_into_one_space() {
        assert_eq!(fold_line_breaks("a\u{85}b").unwrap(), "a b");
        assert_eq!(fold_line_breaks("a  \u{85}  b").unwrap(), "a b");
        assert_eq!(fold_line_breaks("\u{85}").unwrap(), " ");
    }

    #[test]
    fn more_nels_become_one_newline_fewer() {
        assert_eq!(fold_line_breaks("a\u{85}\u{85}b").unwrap(), "a\nb");
        assert_eq!(fold_line_breaks("a\u{85} \u{85}\u{85}b").unwrap(), "a\n\nb");
    }

    #[test]
    fn spaces_away_from_nels_are_kept() {
        assert_eq!(fold_line_breaks("x  y\u{85}z  ").unwrap(), "x  y z  ");
    }

    #[test]
    fn a_document_marker_after_a_nel_is_an_error() {
        assert!(fold_line_breaks("a\u{85}--- b").is_err());
        assert!(fold_line_breaks("a\u{85}...\u{85}").is_err());
        assert_eq!(fold_line_breaks("a\u{85}---").unwrap(), "a ---");
        assert_eq!(fold_line_breaks("a\u{85} --- b").unwrap(), "a --- b");
    }

    #[test]
    fn keys_must_fit_1022_json_characters_with_escapes_counted_in_full() {
        // Helm 3.17.1: toYaml of such keys is empty from 1023 `k`, 171 `<`, `x` + 511 `"`.
        assert!(!key_too_long(&"k".repeat(1022)));
        assert!(key_too_long(&"k".repeat(1023)));
        assert!(!key_too_long(&"<".repeat(170)));
        assert!(key_too_long(&"<".repeat(171)));
        assert!(!key_too_long(&format!("x{}", "\"".repeat(510))));
        assert!(key_too_long(&format!("x{}", "\"".repeat(511))));
        assert!(!key_too_long(&"é".repeat(1022)));
    }
}
