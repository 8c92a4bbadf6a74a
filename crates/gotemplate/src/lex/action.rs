//! Lexing inside an action: spaces, quotes, fields and variables, identifiers and numbers.

use super::*;

impl<'a> Lexer<'a> {
    /// Items inside `{{ }}` until the closing delimiter.
    pub(super) fn lex_inside_action(&mut self) {
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

    pub(super) fn lex_space(&mut self) {
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

    pub(super) fn lex_quote(&mut self, q: char, unterminated: &str, kind: Kind) -> bool {
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

    pub(super) fn lex_field_or_variable(&mut self, kind: Kind) -> bool {
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

    pub(super) fn lex_identifier(&mut self) -> bool {
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

    pub(super) fn accept(&mut self, set: &str) -> bool {
        match self.input.as_bytes().get(self.pos) {
            Some(&c) if set.as_bytes().contains(&c) => {
                self.pos += 1;
                true
            }
            _ => false,
        }
    }

    pub(super) fn accept_run(&mut self, set: &str) {
        while self.accept(set) {}
    }

    /// Go's scanNumber: accepts a superset of number syntax; the parser checks the rest.
    pub(super) fn scan_number(&mut self) -> bool {
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

    pub(super) fn lex_number(&mut self) -> bool {
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
