//! The lexer: template text into items, with Go's trim markers, comments and error texts.
//!
//! It follows the rules of Go's `text/template/parse` lexer as documented and as observed
//! through Helm (`tests/cases/trim_*`, `comment_*`, `lit_*`): `{{- ` trims the white space
//! before the action only when a space, tab, CR or LF follows the dash (`{{-3}}` is the
//! number -3); ` -}}` likewise; a comment must follow the delimiter (and its trim marker)
//! directly and end right before the closing delimiter. Lexing stops at the first error item.

use std::borrow::Cow;

mod action;

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
mod tests;
