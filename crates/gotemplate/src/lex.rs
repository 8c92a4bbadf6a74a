//! The lexer: template text into items, with Go's trim markers, comments and error texts.
//!
//! It follows the rules of Go's `text/template/parse` lexer as documented and as observed
//! through Helm (`tests/cases/trim_*`, `comment_*`, `lit_*`): `{{- ` trims the white space
//! before the action only when a space, tab, CR or LF follows the dash (`{{-3}}` is the
//! number -3); ` -}}` likewise; a comment must follow the delimiter (and its trim marker)
//! directly and end right before the closing delimiter. Lexing stops at the first error item.

use std::borrow::Cow;

/// What an item is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A lexing error; the value is the message.
    Error,
    /// `true` or `false`.
    Bool,
    /// A printable ASCII character not otherwise used (`,` in `range $i, $x`).
    Char,
    /// A character constant, `'a'`.
    CharConstant,
    /// An imaginary number, `1i`.
    Complex,
    /// `=`.
    Assign,
    /// `:=`.
    Declare,
    /// End of input.
    Eof,
    /// `.Field`.
    Field,
    /// A function name.
    Identifier,
    /// `{{`.
    LeftDelim,
    /// `(`.
    LeftParen,
    /// A number.
    Number,
    /// `|`.
    Pipe,
    /// A raw string, `` `x` ``.
    RawString,
    /// `}}`.
    RightDelim,
    /// `)`.
    RightParen,
    /// A run of spaces inside an action.
    Space,
    /// A quoted string.
    String,
    /// Plain text outside actions.
    Text,
    /// `$x` or `$`.
    Variable,
    // Keywords (printed as `<word>` in errors).
    /// `block`.
    Block,
    /// `break`.
    Break,
    /// `continue`.
    Continue,
    /// `.`.
    Dot,
    /// `define`.
    Define,
    /// `else`.
    Else,
    /// `end`.
    End,
    /// `if`.
    If,
    /// `nil`.
    Nil,
    /// `range`.
    Range,
    /// `template`.
    Template,
    /// `with`.
    With,
}

impl Kind {
    fn is_keyword(self) -> bool {
        matches!(
            self,
            Kind::Block
                | Kind::Break
                | Kind::Continue
                | Kind::Dot
                | Kind::Define
                | Kind::Else
                | Kind::End
                | Kind::If
                | Kind::Nil
                | Kind::Range
                | Kind::Template
                | Kind::With
        )
    }
}

/// One item: its kind, byte offset and text. The text borrows from the template (only error
/// messages are owned), so items copy without allocating; lines are counted only when an
/// error needs one ([`line_at`]).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Item<'a> {
    /// What it is.
    pub kind: Kind,
    /// Byte offset of its start in the template text.
    pub pos: usize,
    /// Its text (the message, for errors).
    pub val: Cow<'a, str>,
}

/// The 1-based line of byte offset `pos` in `text`.
pub(crate) fn line_at(text: &str, pos: usize) -> usize {
    1 + text.as_bytes()[..pos.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

impl std::fmt::Display for Item<'_> {
    /// As Go prints an item in parse errors: `EOF`, the error text, `<keyword>`, or the
    /// quoted text cut to 10 characters.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            Kind::Eof => f.write_str("EOF"),
            Kind::Error => f.write_str(&self.val),
            k if k.is_keyword() => write!(f, "<{}>", self.val),
            _ if self.val.chars().count() > 10 => {
                let cut: String = self.val.chars().take(10).collect();
                write!(f, "{}...", crate::gofmt::quote(&cut, false))
            }
            _ => f.write_str(&crate::gofmt::quote(&self.val, false)),
        }
    }
}

const LEFT: &str = "{{";
const RIGHT: &str = "}}";

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_alnum(c: char) -> bool {
    c == '_' || c.is_alphabetic() || c.is_numeric()
}

/// `%#U` of a rune, as Go prints it: `U+002D '-'`.
pub(crate) fn sharp_u(c: char) -> String {
    if c.is_control() {
        format!("U+{:04X}", c as u32)
    } else {
        format!("U+{:04X} '{}'", c as u32, c)
    }
}

/// The lexer's state: the input and where it is.
struct Lexer<'a> {
    input: &'a str,
    pos: usize,
    start: usize,
    items: Vec<Item<'a>>,
    paren_depth: i64,
    done: bool,
}

/// Splits a template into items; the last is `Eof` or `Error`.
pub(crate) fn lex(input: &str) -> Vec<Item<'_>> {
    let mut l = Lexer {
        input,
        pos: 0,
        start: 0,
        // Room for about ten items per action, so the vector rarely grows (growing was a
        // tenth of parsing); counting delimiters is a fast substring search.
        items: Vec::with_capacity(count_left(input) * 10 + 2),
        paren_depth: 0,
        done: false,
    };
    l.run();
    l.items
}

impl<'a> Lexer<'a> {
    fn rest(&self) -> &'a str {
        &self.input[self.pos..]
    }

    fn emit_range(&mut self, kind: Kind, start: usize, end: usize) {
        self.items.push(Item {
            kind,
            pos: start,
            val: Cow::Borrowed(&self.input[start..end]),
        });
    }

    fn emit(&mut self, kind: Kind) {
        self.emit_range(kind, self.start, self.pos);
        self.start = self.pos;
    }

    fn error(&mut self, msg: String) {
        self.items.push(Item {
            kind: Kind::Error,
            pos: self.start,
            val: Cow::Owned(msg),
        });
        self.done = true;
    }

    fn peek_char(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn next_char(&mut self) -> Option<char> {
        let c = self.peek_char()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn run(&mut self) {
        while !self.done {
            self.lex_text();
        }
    }

    /// Text up to the next `{{`, then the action or comment.
    fn lex_text(&mut self) {
        match find_left(self.rest()) {
            Some(x) => {
                let delim = self.pos + x;
                let after = &self.input[delim + LEFT.len()..];
                let trim = has_left_trim(after);
                let mut end = delim;
                if trim {
                    while end > self.start && is_space(self.input.as_bytes()[end - 1]) {
                        end -= 1;
                    }
                }
                if end > self.start {
                    self.emit_range(Kind::Text, self.start, end);
                }
                self.pos = delim;
                self.start = delim;
                self.lex_left_delim(trim);
            }
            None => {
                self.pos = self.input.len();
                if self.pos > self.start {
                    self.emit(Kind::Text);
                }
                self.emit(Kind::Eof);
                self.done = true;
            }
        }
    }

    fn lex_left_delim(&mut self, trim: bool) {
        let marker = if trim { 2 } else { 0 };
        let after = self.pos + LEFT.len() + marker;
        if self.input[after..].starts_with("/*") {
            self.pos = after;
            self.start = after;
            self.lex_comment();
            return;
        }
        self.pos += LEFT.len();
        self.emit(Kind::LeftDelim);
        self.pos += marker;
        self.start = self.pos;
        self.paren_depth = 0;
        self.lex_inside_action();
    }

    fn lex_comment(&mut self) {
        self.pos += 2;
        let Some(x) = self.rest().find("*/") else {
            return self.error("unclosed comment".into());
        };
        self.pos += x + 2;
        let Some(trim) = self.at_right_delim() else {
            return self.error("comment ends before closing delimiter".into());
        };
        if trim {
            self.pos += 2;
        }
        self.pos += RIGHT.len();
        if trim {
            self.skip_leading_space();
        }
        self.start = self.pos;
    }

    fn skip_leading_space(&mut self) {
        while self.pos < self.input.len() && is_space(self.input.as_bytes()[self.pos]) {
            self.pos += 1;
        }
    }

    /// At `}}` or ` -}}`? Some(true) for the trimming form.
    fn at_right_delim(&self) -> Option<bool> {
        let r = self.rest();
        if has_right_trim(r) && r[2..].starts_with(RIGHT) {
            return Some(true);
        }
        if r.starts_with(RIGHT) {
            return Some(false);
        }
        None
    }

    fn at_terminator(&self) -> bool {
        let r = self.rest();
        match r.as_bytes().first() {
            None => true,
            Some(&c) if is_space(c) => true,
            Some(b'.' | b',' | b'|' | b':' | b')' | b'(') => true,
            _ => r.starts_with(RIGHT),
        }
    }

    /// Items inside `{{ }}` until the closing delimiter.
    fn lex_inside_action(&mut self) {
        loop {
            if let Some(trim) = self.at_right_delim() {
                if self.paren_depth != 0 {
                    return self.error("unclosed left paren".into());
                }
                if trim {
                    self.pos += 2;
                    self.start = self.pos;
                }
                self.pos += RIGHT.len();
                self.emit(Kind::RightDelim);
                if trim {
                    self.skip_leading_space();
                    self.start = self.pos;
                }
                return;
            }
            let Some(c) = self.next_char() else {
                return self.error("unclosed action".into());
            };
            match c {
                ' ' | '\t' | '\r' | '\n' => {
                    self.pos -= 1;
                    self.lex_space();
                }
                '=' => self.emit(Kind::Assign),
                ':' => {
                    if self.next_char() != Some('=') {
                        return self.error("expected :=".into());
                    }
                    self.emit(Kind::Declare);
                }
                '|' => self.emit(Kind::Pipe),
                '"' => {
                    if !self.lex_quote('"', "unterminated quoted string", Kind::String) {
                        return;
                    }
                }
                '`' => {
                    let Some(x) = self.rest().find('`') else {
                        return self.error("unterminated raw quoted string".into());
                    };
                    self.pos += x + 1;
                    self.emit(Kind::RawString);
                }
                '$' => {
                    if !self.lex_field_or_variable(Kind::Variable) {
                        return;
                    }
                }
                '\'' => {
                    if !self.lex_quote('\'', "unterminated character constant", Kind::CharConstant)
                    {
                        return;
                    }
                }
                // `.5` is a number; `.x` and a lone `.` are fields (a `.` at the very end of
                // the input goes to the number lexer, as in Go).
                '.' if self
                    .rest()
                    .as_bytes()
                    .first()
                    .is_some_and(|c| !c.is_ascii_digit()) =>
                {
                    if !self.lex_field_or_variable(Kind::Field) {
                        return;
                    }
                }
                '.' | '+' | '-' | '0'..='9' => {
                    self.pos -= 1;
                    if !self.lex_number() {
                        return;
                    }
                }
                c if is_alnum(c) => {
                    self.pos -= c.len_utf8();
                    if !self.lex_identifier() {
                        return;
                    }
                }
                '(' => {
                    self.paren_depth += 1;
                    self.emit(Kind::LeftParen);
                }
                ')' => {
                    self.paren_depth -= 1;
                    if self.paren_depth < 0 {
                        return self.error("unexpected right paren".into());
                    }
                    self.emit(Kind::RightParen);
                }
                c if c.is_ascii() && !c.is_ascii_control() => self.emit(Kind::Char),
                c => {
                    return self.error(format!("unrecognized character in action: {}", sharp_u(c)));
                }
            }
        }
    }

    fn lex_space(&mut self) {
        let mut n = 0;
        while self.pos < self.input.len() && is_space(self.input.as_bytes()[self.pos]) {
            self.pos += 1;
            n += 1;
        }
        // A space right before `-}}` belongs to the trim marker.
        let before = &self.input[self.pos - 1..];
        if has_right_trim(before) && before[2..].starts_with(RIGHT) {
            self.pos -= 1;
            if n == 1 {
                return;
            }
        }
        self.emit(Kind::Space);
    }

    fn lex_quote(&mut self, q: char, unterminated: &str, kind: Kind) -> bool {
        loop {
            match self.next_char() {
                Some('\\') => match self.next_char() {
                    Some('\n') | None => {
                        self.error(unterminated.into());
                        return false;
                    }
                    Some(_) => {}
                },
                Some('\n') | None => {
                    self.error(unterminated.into());
                    return false;
                }
                Some(c) if c == q => break,
                Some(_) => {}
            }
        }
        self.emit(kind);
        true
    }

    fn lex_field_or_variable(&mut self, kind: Kind) -> bool {
        if self.at_terminator() {
            self.emit(if kind == Kind::Variable {
                Kind::Variable
            } else {
                Kind::Dot
            });
            return true;
        }
        let mut bad = None;
        while let Some(c) = self.peek_char() {
            if is_alnum(c) {
                self.pos += c.len_utf8();
            } else {
                bad = Some(c);
                break;
            }
        }
        if !self.at_terminator() {
            self.error(format!(
                "bad character {}",
                sharp_u(bad.unwrap_or('\u{FFFD}'))
            ));
            return false;
        }
        self.emit(kind);
        true
    }

    fn lex_identifier(&mut self) -> bool {
        while let Some(c) = self.peek_char() {
            if is_alnum(c) {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
        if !self.at_terminator() {
            let c = self.peek_char().unwrap_or('\u{FFFD}');
            self.error(format!("bad character {}", sharp_u(c)));
            return false;
        }
        let kind = match &self.input[self.start..self.pos] {
            "block" => Kind::Block,
            "break" => Kind::Break,
            "continue" => Kind::Continue,
            "define" => Kind::Define,
            "else" => Kind::Else,
            "end" => Kind::End,
            "if" => Kind::If,
            "nil" => Kind::Nil,
            "range" => Kind::Range,
            "template" => Kind::Template,
            "with" => Kind::With,
            "true" | "false" => Kind::Bool,
            _ => Kind::Identifier,
        };
        self.emit(kind);
        true
    }

    fn accept(&mut self, set: &str) -> bool {
        match self.input.as_bytes().get(self.pos) {
            Some(&c) if set.as_bytes().contains(&c) => {
                self.pos += 1;
                true
            }
            _ => false,
        }
    }

    fn accept_run(&mut self, set: &str) {
        while self.accept(set) {}
    }

    /// Go's scanNumber: accepts a superset of number syntax; the parser checks the rest.
    fn scan_number(&mut self) -> bool {
        self.accept("+-");
        let mut digits = "0123456789_";
        if self.accept("0") {
            if self.accept("xX") {
                digits = "0123456789abcdefABCDEF_";
            } else if self.accept("oO") {
                digits = "01234567_";
            } else if self.accept("bB") {
                digits = "01_";
            }
        }
        self.accept_run(digits);
        if self.accept(".") {
            self.accept_run(digits);
        }
        if digits.len() == 11 && self.accept("eE") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        if digits.len() == 23 && self.accept("pP") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        self.accept("i");
        if let Some(c) = self.peek_char() {
            if is_alnum(c) {
                self.pos += c.len_utf8();
                return false;
            }
        }
        true
    }

    fn lex_number(&mut self) -> bool {
        if !self.scan_number() {
            let text = self.input[self.start..self.pos].to_string();
            self.error(format!(
                "bad number syntax: {}",
                crate::gofmt::quote(&text, false)
            ));
            return false;
        }
        if matches!(self.peek_char(), Some('+' | '-')) {
            // A complex constant such as 1+2i: no spaces, must end in i.
            if !self.scan_number() || !self.input[..self.pos].ends_with('i') {
                let text = self.input[self.start..self.pos].to_string();
                self.error(format!(
                    "bad number syntax: {}",
                    crate::gofmt::quote(&text, false)
                ));
                return false;
            }
            self.emit(Kind::Complex);
        } else {
            self.emit(Kind::Number);
        }
        true
    }
}

/// Where the next `{{` starts: a search for `{` (which the standard library does a word at
/// a time) and a look at the byte after, faster than a two-byte substring search.
fn find_left(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(i) = s[from..].find('{') {
        let at = from + i;
        if b.get(at + 1) == Some(&b'{') {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// How many `{{` the input holds (an overlapping `{{{` counts once, as the lexer sees it).
fn count_left(s: &str) -> usize {
    let mut n = 0;
    let mut from = 0;
    while let Some(i) = find_left(&s[from..]) {
        n += 1;
        from += i + 2;
    }
    n
}

fn has_left_trim(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2 && b[0] == b'-' && is_space(b[1])
}

fn has_right_trim(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2 && is_space(b[0]) && b[1] == b'-'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<(Kind, String)> {
        lex(s)
            .into_iter()
            .map(|i| (i.kind, i.val.into_owned()))
            .collect()
    }

    #[test]
    fn left_trim_marker_needs_a_space_after_the_dash() {
        let items = kinds("a {{-1}}");
        assert_eq!(items[0], (Kind::Text, "a ".into()));
        assert_eq!(items[2], (Kind::Number, "-1".into()));
    }

    #[test]
    fn trim_markers_remove_surrounding_white_space() {
        let items = kinds("a \n {{- 1 -}} \n b");
        assert_eq!(items[0], (Kind::Text, "a".into()));
        assert_eq!(items.last().map(|i| i.0), Some(Kind::Eof));
        assert!(items.contains(&(Kind::Text, "b".into())));
    }

    #[test]
    fn comments_vanish_with_their_trim_markers() {
        assert_eq!(
            kinds("x {{- /* c */ -}} y"),
            vec![
                (Kind::Text, "x".into()),
                (Kind::Text, "y".into()),
                (Kind::Eof, "".into())
            ]
        );
    }

    #[test]
    fn a_comment_must_end_at_the_delimiter() {
        let items = kinds("{{/* c */ 1 }}");
        assert_eq!(
            items.last().map(|i| i.1.as_str()),
            Some("comment ends before closing delimiter")
        );
    }

    #[test]
    fn items_carry_their_line() {
        let text = "a\nb {{ .x\n .y }}";
        let items = lex(text);
        let y = items
            .iter()
            .find(|i| i.val == ".y")
            .map(|i| line_at(text, i.pos));
        assert_eq!(y, Some(3));
    }

    #[test]
    fn keywords_print_in_angle_brackets_in_errors() {
        let items = lex("{{ end }}");
        assert_eq!(items[2].to_string(), "<end>");
    }
}
