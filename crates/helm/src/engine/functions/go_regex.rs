//! Go's regular expression syntax (RE2 as Go's `regexp` reads it) written in the `regex`
//! crate's, so a chart's pattern means what it means under Helm.
//!
//! The two mostly agree; where they differ, Go's reading is spelled out:
//!
//! - `\d`, `\w`, `\s` and `\b` are ASCII-only in Go and Unicode-aware in the crate: they become
//!   explicit ASCII classes (`[0-9]`, ...) and the ASCII word boundary.
//! - In a class, Go takes `-` after a class escape or a range as itself (`[\w-\.]` is a word
//!   character, a dash or a dot); the crate refuses the range. Go takes `[`, `&&`, `--` and `~~`
//!   as themselves; the crate reads nested classes and set operations. All are escaped.
//! - Go takes a `{` that opens no repetition (`a{`, `{x}`, `x{,3}`) as itself; the crate refuses
//!   it or reads it as a repetition.
//! - Go reads `\Q...\E` as literal text; the crate does not know it.

use std::fmt::Write as _;

/// `pattern` (Go's syntax) in the `regex` crate's syntax. A pattern Go refuses is passed on as
/// it is near enough for the crate to refuse it too.
pub(super) fn to_rust_syntax(pattern: &str) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => i = escape_outside_class(&chars, i, &mut out),
            '[' => i = class(&chars, i, &mut out),
            '{' => match repetition_end(&chars, i) {
                Some(end) => {
                    out.extend(&chars[i..end]);
                    i = end;
                }
                None => {
                    out.push_str("\\{");
                    i += 1;
                }
            },
            '}' => {
                out.push_str("\\}");
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// Where a repetition `{n}`, `{n,}` or `{n,m}` that starts at `start` ends, if it is one.
fn repetition_end(chars: &[char], start: usize) -> Option<usize> {
    let mut i = start + 1;
    let digits = |i: &mut usize| {
        let from = *i;
        while chars.get(*i).is_some_and(char::is_ascii_digit) {
            *i += 1;
        }
        *i > from
    };
    if !digits(&mut i) {
        return None;
    }
    if chars.get(i) == Some(&',') {
        i += 1;
        digits(&mut i);
    }
    (chars.get(i) == Some(&'}')).then_some(i + 1)
}

/// Go's ASCII class for a Perl class letter, without brackets.
fn perl_class(letter: char) -> Option<&'static str> {
    match letter.to_ascii_lowercase() {
        'd' => Some("0-9"),
        'w' => Some("0-9A-Za-z_"),
        's' => Some("\\t\\n\\x0C\\r "),
        _ => None,
    }
}

/// Writes the escape at `chars[at]` (a backslash) outside a class; returns where it ends.
fn escape_outside_class(chars: &[char], at: usize, out: &mut String) -> usize {
    let Some(&letter) = chars.get(at + 1) else {
        out.push('\\');
        return at + 1;
    };
    if let Some(class) = perl_class(letter) {
        let negated = if letter.is_ascii_uppercase() { "^" } else { "" };
        let _ = write!(out, "[{negated}{class}]");
        return at + 2;
    }
    match letter {
        'b' => out.push_str("(?-u:\\b)"),
        'B' => out.push_str("(?-u:\\B)"),
        'Q' => return quoted(chars, at + 2, out),
        _ => return copy_escape(chars, at, out),
    }
    at + 2
}

/// Writes `\Q...\E` text from `from` as literal characters; returns where it ends.
fn quoted(chars: &[char], from: usize, out: &mut String) -> usize {
    let mut i = from;
    while i < chars.len() {
        if chars[i] == '\\' && chars.get(i + 1) == Some(&'E') {
            return i + 2;
        }
        let mut buffer = [0u8; 4];
        out.push_str(&regex::escape(chars[i].encode_utf8(&mut buffer)));
        i += 1;
    }
    i
}

/// Copies the escape at `chars[at]` as it is (`\n`, `\x41`, `\x{263a}`, `\pL`, `\p{Greek}`,
/// `\.`), an octal escape written in hex; returns where it ends.
fn copy_escape(chars: &[char], at: usize, out: &mut String) -> usize {
    let Some(&letter) = chars.get(at + 1) else {
        out.push('\\');
        return at + 1;
    };
    let braced_end = |from: usize| {
        (from..chars.len())
            .find(|&j| chars[j] == '}')
            .map_or(chars.len(), |j| j + 1)
    };
    let end = match letter {
        'x' | 'p' | 'P' if chars.get(at + 2) == Some(&'{') => braced_end(at + 2),
        'x' => (at + 4).min(chars.len()),
        'p' | 'P' => (at + 3).min(chars.len()),
        '0'..='7' => {
            let mut end = at + 1;
            while end < chars.len() && end < at + 4 && ('0'..='7').contains(&chars[end]) {
                end += 1;
            }
            let digits: String = chars[at + 1..end].iter().collect();
            let code = u32::from_str_radix(&digits, 8).unwrap_or(0);
            let _ = write!(out, "\\x{{{code:X}}}");
            return end;
        }
        _ => at + 2,
    };
    out.extend(&chars[at..end]);
    end
}

/// Writes the class opening at `chars[at]` (`[`); returns where it ends.
fn class(chars: &[char], at: usize, out: &mut String) -> usize {
    let mut i = at + 1;
    out.push('[');
    if chars.get(i) == Some(&'^') {
        out.push('^');
        i += 1;
    }
    let mut first = true;
    while i < chars.len() {
        if chars[i] == ']' && !first {
            out.push(']');
            return i + 1;
        }
        first = false;
        // `[:alpha:]`, which both read alike.
        if chars[i] == '[' && chars.get(i + 1) == Some(&':') {
            if let Some(close) = (i + 2..chars.len().saturating_sub(1))
                .find(|&j| chars[j] == ':' && chars[j + 1] == ']')
            {
                out.extend(&chars[i..close + 2]);
                i = close + 2;
                continue;
            }
        }
        if chars[i] == '\\' {
            if let Some(&letter) = chars.get(i + 1) {
                if let Some(class) = perl_class(letter) {
                    if letter.is_ascii_uppercase() {
                        let _ = write!(out, "[^{class}]");
                    } else {
                        out.push_str(class);
                    }
                    i += 2;
                    continue;
                }
                if matches!(letter, 'p' | 'P') {
                    i = copy_escape(chars, i, out);
                    continue;
                }
            }
        }
        let (low, after_low) = class_char(chars, i);
        // `a-z` is a range unless the dash is last (`[a-]`).
        if chars.get(after_low) == Some(&'-') && chars.get(after_low + 1).is_some_and(|c| *c != ']')
        {
            out.push_str(&low);
            out.push('-');
            let (high, after_high) = class_char(chars, after_low + 1);
            out.push_str(&high);
            i = after_high;
        } else {
            out.push_str(&low);
            i = after_low;
        }
    }
    // Unclosed: the crate refuses it as Go does.
    i
}

/// One character of a class at `chars[at]`, written for the crate; and where it ends.
fn class_char(chars: &[char], at: usize) -> (String, usize) {
    if chars[at] == '\\' && at + 1 < chars.len() {
        let mut written = String::new();
        let end = copy_escape(chars, at, &mut written);
        return (written, end);
    }
    let c = chars[at];
    let written = if matches!(c, '\\' | '[' | ']' | '-' | '&' | '~' | '^') {
        format!("\\{c}")
    } else {
        c.to_string()
    };
    (written, at + 1)
}

#[cfg(test)]
mod tests {
    use super::to_rust_syntax;
    use regex::Regex;

    fn go_match(pattern: &str, text: &str) -> bool {
        Regex::new(&to_rust_syntax(pattern))
            .unwrap_or_else(|e| panic!("{pattern}: {e}"))
            .is_match(text)
    }

    #[test]
    fn a_dash_after_a_class_escape_is_itself_as_in_go() {
        assert!(go_match(r"^[\w-\.]+$", "my-master.group_1"));
        assert!(!go_match(r"^[\w-\.]+$", "a b"));
    }

    #[test]
    fn perl_classes_are_ascii_only_as_in_go() {
        assert!(!go_match(r"^\w+$", "café"));
        assert!(!go_match(r"^\d$", "٣"));
        assert!(go_match(r"^\W$", "é"));
        assert!(go_match(r"^[^\d]$", "x"));
    }

    #[test]
    fn a_brace_that_opens_no_repetition_is_itself_as_in_go() {
        assert!(go_match(r"^a{$", "a{"));
        assert!(go_match(r"^{x}$", "{x}"));
        assert!(go_match(r"^a{2}$", "aa"));
    }

    #[test]
    fn set_operators_and_brackets_in_a_class_are_themselves_as_in_go() {
        assert!(go_match(r"^[a&&b]+$", "a&b"));
        assert!(go_match(r"^[[]$", "["));
        assert!(go_match(r"^[a~~]$", "~"));
    }

    #[test]
    fn quoted_text_is_literal_as_in_go() {
        assert!(go_match(r"^\Qa.b*\E$", "a.b*"));
        assert!(!go_match(r"^\Qa.b\E$", "axb"));
    }

    #[test]
    fn posix_classes_ranges_and_escapes_pass_through() {
        assert!(go_match(r"^[[:alpha:]0-9\x41-\x{5A}]+$", "abZ9"));
        assert!(go_match(r"^\101$", "A"));
        assert!(go_match(r"\bword\b", "a word here"));
    }
}
