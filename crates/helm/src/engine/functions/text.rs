//! Sprig's word-level string functions: `substr`, `abbrev`, `abbrevboth`, `untitle`, `swapcase`,
//! `initials`, `wrap`, `wrapWith`, `plural`, `splitn`, and the case conversions `snakecase`,
//! `kebabcase` and `camelcase` (huandu/xstrings 1.5, as Helm 3.17 links it).
//!
//! Sprig slices strings by byte; where a byte offset would cut a character in two (Go would
//! print broken UTF-8) the cut moves to the character's start.

use super::args::Args;
use minijinja::value::Value;
use minijinja::Error;

/// The largest char boundary of `text` at or before `at` (clamped to its length).
fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// `substr(start, end, text)`: the bytes from `start` up to `end`. A negative `start` means
/// from the beginning, a negative `end` or one past the text means to the end; `start` past
/// `end` is an error (Helm: a Go panic, `slice bounds out of range`).
///
/// ```jinja
/// short: {{ Values.sha | substr(0, 7) }}
/// ```
pub(super) fn substr(args: &Args) -> Result<Value, Error> {
    args.exactly(3)?;
    let start = args.int(0, "start")?;
    let end = args.int(1, "end")?;
    let text = args.string(2, "text")?;
    let len = text.len() as i64;
    let (from, to) = if start < 0 {
        (0, end)
    } else if end < 0 || end > len {
        (start, len)
    } else {
        (start, end)
    };
    if to < 0 || to > len || from > to {
        return Err(args.error(format!(
            "slice bounds out of range [{from}:{to}] of a {len}-byte text"
        )));
    }
    let (from, to) = (
        floor_boundary(&text, from as usize),
        floor_boundary(&text, to as usize),
    );
    Ok(Value::from(&text[from..to]))
}

/// goutils' `AbbreviateFull`: `None` where it reports an illegal width.
fn abbreviate_full(text: &str, offset: i64, width: i64) -> Option<String> {
    if text.is_empty() {
        return Some(String::new());
    }
    if width < 4 {
        return None;
    }
    let len = text.len() as i64;
    if len <= width {
        return Some(text.to_owned());
    }
    let mut offset = offset.min(len);
    if len - offset < width - 3 {
        offset = len - (width - 3);
    }
    let cut = |from: i64, to: i64| {
        let from = floor_boundary(text, from.max(0) as usize);
        let to = floor_boundary(text, to.max(0) as usize);
        text[from..to.max(from)].to_owned()
    };
    if offset <= 4 {
        return Some(cut(0, width - 3) + "...");
    }
    if width < 7 {
        return None;
    }
    if offset + width - 3 < len {
        let rest = cut(offset, len);
        return Some(format!(
            "...{}",
            abbreviate_full(&rest, 0, width - 3).unwrap_or_default()
        ));
    }
    Some(format!("...{}", cut(len - (width - 3), len)))
}

/// `abbrev(width, text)`: `text` cut to `width` bytes with `...` at the end; a width under 4
/// leaves it as it is.
pub(super) fn abbrev(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let width = args.int(0, "width")?;
    let text = args.string(1, "text")?;
    if width < 4 {
        return Ok(Value::from(&*text));
    }
    Ok(Value::from(
        abbreviate_full(&text, 0, width).unwrap_or_default(),
    ))
}

/// `abbrevboth(left, right, text)`: abbreviated on both sides, the window starting near byte
/// `left`, at most `right` bytes long.
pub(super) fn abbrevboth(args: &Args) -> Result<Value, Error> {
    args.exactly(3)?;
    let left = args.int(0, "left")?;
    let right = args.int(1, "right")?;
    let text = args.string(2, "text")?;
    if right < 4 || (left > 0 && right < 7) {
        return Ok(Value::from(&*text));
    }
    Ok(Value::from(
        abbreviate_full(&text, left, right).unwrap_or_default(),
    ))
}

/// Go's `unicode.ToLower` / `ToUpper` / `ToTitle`: one character for one.
fn go_lower(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

fn go_upper(c: char) -> char {
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

/// `untitle(text)`: the first letter of each space-separated word in lower case.
pub(super) fn untitle(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let text = args.string(0, "text")?;
    let mut next = true;
    let out: String = text
        .chars()
        .map(|c| {
            if c.is_whitespace() {
                next = true;
                c
            } else if next {
                next = false;
                go_lower(c)
            } else {
                c
            }
        })
        .collect();
    Ok(Value::from(out))
}

/// `swapcase(text)`: upper case becomes lower; lower case becomes upper (title case at the
/// start of a word), as goutils' `SwapCase` does.
pub(super) fn swapcase(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let text = args.string(0, "text")?;
    let mut whitespace = true;
    let out: String = text
        .chars()
        .map(|c| {
            if c.is_uppercase() {
                whitespace = false;
                go_lower(c)
            } else if c.is_lowercase() {
                whitespace = false;
                go_upper(c)
            } else {
                whitespace = c.is_whitespace();
                c
            }
        })
        .collect();
    Ok(Value::from(out))
}

/// `initials(text)`: the first character of each white-space-separated word.
pub(super) fn initials(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let text = args.string(0, "text")?;
    let mut gap = true;
    let mut out = String::new();
    for c in text.chars() {
        if c.is_whitespace() {
            gap = true;
        } else if gap {
            out.push(c);
            gap = false;
        }
    }
    Ok(Value::from(out))
}

/// goutils' `WrapCustom`: breaks at the last space before `width` bytes; long words are cut
/// (`long_words`) or left whole.
fn wrap_custom(text: &str, width: i64, newline: &str, long_words: bool) -> String {
    if text.is_empty() {
        return String::new();
    }
    let newline = if newline.is_empty() { "\n" } else { newline };
    let width = width.max(1) as usize;
    let bytes = text.as_bytes();
    let len = text.len();
    let mut offset = 0;
    let mut out = String::new();
    while len - offset > width {
        if bytes[offset] == b' ' {
            offset += 1;
            continue;
        }
        let end = floor_boundary(text, width + offset + 1);
        if let Some(space) = text[offset..end].rfind(' ') {
            out.push_str(&text[offset..offset + space]);
            out.push_str(newline);
            offset += space + 1;
        } else if long_words {
            let end = floor_boundary(text, width + offset).max(offset + 1);
            let end = (offset + 1..=len)
                .find(|&e| e >= end && text.is_char_boundary(e))
                .unwrap_or(len);
            out.push_str(&text[offset..end]);
            out.push_str(newline);
            offset = end;
        } else {
            let end = floor_boundary(text, width + offset);
            match text[end..].find(' ') {
                Some(space) => {
                    out.push_str(&text[offset..end + space]);
                    out.push_str(newline);
                    offset = end + space + 1;
                }
                None => {
                    out.push_str(&text[offset..]);
                    offset = len;
                }
            }
        }
    }
    out.push_str(&text[offset..]);
    out
}

/// `wrap(width, text)`: breaks lines at spaces so they are at most `width` bytes; a longer word
/// stays whole.
pub(super) fn wrap(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let width = args.int(0, "width")?;
    let text = args.string(1, "text")?;
    Ok(Value::from(wrap_custom(&text, width, "", false)))
}

/// `wrapWith(width, separator, text)`: like `wrap`, with `separator` for the line break, and
/// long words cut too.
pub(super) fn wrap_with(args: &Args) -> Result<Value, Error> {
    args.exactly(3)?;
    let width = args.int(0, "width")?;
    let separator = args.string(1, "separator")?;
    let text = args.string(2, "text")?;
    Ok(Value::from(wrap_custom(&text, width, &separator, true)))
}

/// `plural(one, many, count)`: `one` when `count` is 1, else `many`.
pub(super) fn plural(args: &Args) -> Result<Value, Error> {
    args.exactly(3)?;
    let count = args.int(2, "count")?;
    Ok(if count == 1 { args.get(0) } else { args.get(1) })
}

/// `splitn(separator, n, text)`: at most `n` pieces as a map `{_0: .., _1: ..}`, the last
/// holding the rest (a negative `n` means all, 0 none).
pub(super) fn splitn(args: &Args) -> Result<Value, Error> {
    args.exactly(3)?;
    let separator = args.string(0, "separator")?;
    let n = args.int(1, "n")?;
    let text = args.string(2, "text")?;
    let parts: Vec<&str> = match n {
        0 => Vec::new(),
        n if n < 0 => split_all(&text, &separator),
        n => {
            if separator.is_empty() {
                let chars: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
                let n = (n as usize).min(chars.len());
                let mut parts: Vec<&str> = Vec::new();
                for (k, &at) in chars.iter().enumerate().take(n) {
                    let end = if k + 1 == n {
                        text.len()
                    } else {
                        chars.get(k + 1).copied().unwrap_or(text.len())
                    };
                    parts.push(&text[at..end]);
                }
                parts
            } else {
                text.splitn(n as usize, &*separator).collect()
            }
        }
    };
    Ok(Value::from_pairs(
        parts
            .into_iter()
            .enumerate()
            .map(|(i, part)| (format!("_{i}"), Value::from(part))),
    ))
}

fn split_all<'t>(text: &'t str, separator: &str) -> Vec<&'t str> {
    if separator.is_empty() {
        text.char_indices()
            .map(|(i, c)| &text[i..i + c.len_utf8()])
            .collect()
    } else {
        text.split(separator).collect()
    }
}

/// The kinds of word xstrings splits a text into.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Word {
    None,
    Number,
    Upper,
    Alphabet,
    Connector,
    Punct,
    Other,
}

fn is_connector(c: char) -> bool {
    c == '-' || c == '_' || c.is_whitespace()
}

/// xstrings' `isAlphabet`: a letter that is not a CJK ideograph.
fn is_alphabet(c: char) -> bool {
    c.is_alphabetic() && !is_cjk(c)
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x2E80..=0x2FDF | 0x3005..=0x3007 | 0x3021..=0x3029 | 0x3038..=0x303B
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x3134F)
}

/// Go's `unicode.IsPunct` for the characters charts meet: ASCII punctuation other than
/// symbols (`$+<=>^`|~` are symbols in Unicode, not punctuation), and non-ASCII punctuation.
fn is_punct(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_punctuation()
            && !matches!(c, '$' | '+' | '<' | '=' | '>' | '^' | '`' | '|' | '~')
    } else {
        !c.is_alphanumeric()
            && !c.is_whitespace()
            && !c.is_control()
            && {
                let cat_punct = matches!(c,
                '\u{00A1}' | '\u{00A7}' | '\u{00AB}' | '\u{00B6}' | '\u{00B7}' | '\u{00BB}' | '\u{00BF}'
                | '\u{2010}'..='\u{2027}' | '\u{2030}'..='\u{205E}' | '\u{3001}'..='\u{3003}'
                | '\u{3008}'..='\u{3011}' | '\u{FF01}'..='\u{FF0F}');
                cat_punct
            }
    }
}

fn is_upper(c: char) -> bool {
    c.is_uppercase()
}

fn is_number(c: char) -> bool {
    c.is_numeric()
}

/// xstrings' `nextWord`: the next word of `text`, its kind and its length in bytes.
fn next_word(text: &str) -> (Word, usize) {
    let mut chars = text.char_indices().peekable();
    let Some((_, first)) = chars.next() else {
        return (Word::None, 0);
    };
    let end_while = |pred: &dyn Fn(char) -> bool| -> usize {
        text.char_indices()
            .skip(1)
            .find(|&(_, c)| !pred(c))
            .map_or(text.len(), |(i, _)| i)
    };
    if is_connector(first) {
        return (Word::Connector, end_while(&is_connector));
    }
    if is_punct(first) {
        return (Word::Punct, end_while(&is_punct));
    }
    if is_upper(first) {
        let rest: Vec<(usize, char)> = text.char_indices().skip(1).collect();
        let Some(&(_, second)) = rest.first() else {
            return (Word::Upper, text.len());
        };
        if is_upper(second) {
            // "HTTPServer": "HTTP" then "Server".
            let mut end = text.len();
            let mut prev_start = rest[0].0;
            let mut stop = None;
            for &(i, c) in &rest {
                if !is_upper(c) {
                    stop = Some((i, c));
                    break;
                }
                prev_start = i;
            }
            if let Some((i, c)) = stop {
                end = i;
                if is_alphabet(c) {
                    end = prev_start;
                }
            }
            return (Word::Upper, end);
        }
        if is_alphabet(second) {
            let end = rest
                .iter()
                .skip(1)
                .find(|&&(_, c)| !is_alphabet(c) || is_upper(c))
                .map_or(text.len(), |&(i, _)| i);
            return (Word::Upper, end);
        }
        return (Word::Upper, rest[0].0);
    }
    if is_alphabet(first) {
        return (
            Word::Alphabet,
            end_while(&|c: char| is_alphabet(c) && !is_upper(c)),
        );
    }
    if is_number(first) {
        return (Word::Number, end_while(&is_number));
    }
    (
        Word::Other,
        end_while(&|c: char| !(is_connector(c) || is_alphabet(c) || is_number(c) || is_punct(c))),
    )
}

fn push_lower(out: &mut String, kind: Word, word: &str, connector: char) {
    if kind != Word::Upper && kind != Word::Connector {
        out.push_str(word);
        return;
    }
    for c in word.chars() {
        if is_connector(c) {
            out.push(connector);
        } else if is_upper(c) {
            out.push(go_lower(c));
        } else {
            out.push(c);
        }
    }
}

/// xstrings' `camelCaseToLowerCase`, behind `snakecase` and `kebabcase`.
fn camel_to_lower(text: &str, connector: char) -> String {
    let mut out = String::new();
    if text.is_empty() {
        return out;
    }
    let take = |rest: &str| -> (Word, String, String) {
        let (kind, len) = next_word(rest);
        (kind, rest[..len].to_owned(), rest[len..].to_owned())
    };
    let (mut kind, mut word, mut rest) = take(text);
    while !rest.is_empty() {
        if kind != Word::Connector {
            push_lower(&mut out, kind, &word, connector);
        }
        let prev = kind;
        let last = word.clone();
        (kind, word, rest) = take(&rest);
        match prev {
            Word::Number => {
                while kind == Word::Alphabet || kind == Word::Number {
                    push_lower(&mut out, kind, &word, connector);
                    (kind, word, rest) = take(&rest);
                }
                if kind != Word::None && kind != Word::Punct && kind != Word::Connector {
                    out.push(connector);
                }
            }
            Word::Connector => push_lower(&mut out, prev, &last, connector),
            Word::Punct => {}
            _ => {
                if kind != Word::Number {
                    if kind != Word::Connector && kind != Word::Punct {
                        out.push(connector);
                    }
                    continue;
                }
                if rest.is_empty() {
                    continue;
                }
                let number = word.clone();
                (kind, word, rest) = take(&rest);
                if kind != Word::Alphabet {
                    push_lower(&mut out, Word::Number, &number, connector);
                    if kind != Word::Connector && kind != Word::Punct {
                        out.push(connector);
                    }
                    continue;
                }
                out.push(connector);
                push_lower(&mut out, Word::Number, &number, connector);
                while kind == Word::Alphabet || kind == Word::Number {
                    push_lower(&mut out, kind, &word, connector);
                    (kind, word, rest) = take(&rest);
                }
                if kind != Word::None && kind != Word::Connector && kind != Word::Punct {
                    out.push(connector);
                }
            }
        }
    }
    push_lower(&mut out, kind, &word, connector);
    out
}

/// `snakecase(text)`: `FirstName` → `first_name`, `HTTPServer` → `http_server`.
pub(super) fn snakecase(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(Value::from(camel_to_lower(&args.string(0, "text")?, '_')))
}

/// `kebabcase(text)`: `FirstName` → `first-name`.
pub(super) fn kebabcase(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(Value::from(camel_to_lower(&args.string(0, "text")?, '-')))
}

/// xstrings' `ToPascalCase`: words split at `_`, `-` and spaces, each capitalised; a word in
/// capitals is lowered after its first letter (`HTTP_SERVER` → `HttpServer`).
fn pascal_case(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    let mut first_upper;
    let mut r0;
    loop {
        match chars.next() {
            None => return out,
            Some(c) if is_connector(c) => out.push(c),
            Some(c) => {
                first_upper = is_upper(c);
                r0 = go_upper(c);
                break;
            }
        }
    }
    for c in chars {
        let r1 = r0;
        r0 = c;
        if is_connector(r0) && is_connector(r1) {
            out.push(r1);
            continue;
        }
        if is_connector(r1) {
            first_upper = is_upper(r0);
            r0 = go_upper(r0);
        } else {
            if first_upper {
                if is_upper(r0) {
                    r0 = go_lower(r0);
                } else {
                    first_upper = false;
                }
            }
            out.push(r1);
        }
    }
    out.push(r0);
    out
}

/// `camelcase(text)`: `http_server` → `HttpServer` (upper camel case, as Sprig's `camelcase`).
pub(super) fn camelcase(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(Value::from(pascal_case(&args.string(0, "text")?)))
}
