//! Writes [`Value`]s as YAML text the way Helm's `toYaml` does.
//!
//! Helm marshals values to JSON, reads the JSON back with go-yaml v2 and prints it with go-yaml
//! v2's emitter (sigs.k8s.io/yaml), then drops the final newline. This module reproduces that
//! emitter's decisions for the shapes a JSON round trip can produce: block mappings and
//! sequences with two-space indentation (sequences not indented under their key), `{}` and `[]`
//! for empty collections, go-yaml's key order, its choice among plain, single-quoted,
//! double-quoted and literal (`|`) scalars, and its folding of long scalars past column 80.
//!
//! The emitter state (column, indentation, "last written was whitespace / indentation") mirrors
//! libyaml's so that every indicator and line break lands where go-yaml puts it. Which strings
//! go-yaml quotes because they would read as another type is in `ambiguous`.
//!
//! Checked against helm 3.17.1 with random values (tricky characters, long and folded strings,
//! keys of every kind, nested collections, floats): outputs are identical, except that Helm's
//! order of keys whose go-yaml comparison is cyclic varies from run to run (see `key_order`).
//!
//! Every string we write reads back as the same string, with our reader and with go-yaml's.
//! Helm's `toYaml` does not promise that, and here we deliberately differ from it:
//!
//! - a NEL (U+0085), a line or paragraph separator (U+2028, U+2029) is written double-quoted
//!   as `\N`, `\L`, `\P`. Helm's JSON round trip folds a NEL like a line break (`"a\u0085b"`
//!   became `a b`), and go-yaml writes U+2028/U+2029 raw inside literal blocks and single quotes,
//!   where YAML 1.2 readers (ours, and most others) do not see a line break, so the indentation
//!   after it became part of the string;
//! - characters go-yaml's reader refuses (U+007F–U+009F but NEL, U+FFFE, U+FFFF) are escaped
//!   (`\x7F`); Helm printed nothing at all;
//! - a map key `<<` is double-quoted: go-yaml v2 writes it plain, which reads back as a merge;
//! - a map key longer than 1022 characters is written in the explicit `? key` form, which
//!   go-yaml, kubectl and our reader accept; Helm printed nothing because its JSON text cannot
//!   hold such a key on one line.

mod ambiguous;
mod key_order;

mod analysis;

use analysis::{analyze, is_break, is_printable, Analysis};

use super::json::UnsupportedValue;
use crate::number::format_yaml_float;
use crate::value::{Map, Value};
use std::fmt::Write as _;

/// Spaces per nesting level.
const BEST_INDENT: i32 = 2;
/// Scalars fold at the first suitable space once a line is longer than this.
const BEST_WIDTH: usize = 80;
/// The merge key, which only means "merge" when it is plain.
const MERGE_KEY: &str = "<<";
/// Longer keys (in bytes) are written in the explicit `? key` form.
const MAX_SIMPLE_KEY_BYTES: usize = 128;

/// Why a value cannot be written as YAML.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ToYamlError {
    /// NaN or an infinity, which JSON cannot hold (Helm prints nothing for them).
    #[error(transparent)]
    Json(#[from] UnsupportedValue),
    /// The text would pass the caller's cap (a value nested thousands deep indents every line).
    #[error("the YAML would be longer than the limit of {limit} bytes")]
    TooLong {
        /// The cap, in bytes.
        limit: usize,
    },
}

/// Helm's `toYaml`: the YAML text without its final newline, or the empty string for a value
/// YAML cannot hold ([`ToYamlError`]).
///
/// ```
/// use meshchart_yaml::{Map, Value};
/// let mut m = Map::new();
/// m.insert("enabled".into(), Value::from("yes"));
/// m.insert("ports".into(), Value::Seq(vec![Value::Int(80)]));
/// assert_eq!(meshchart_yaml::to_yaml(&Value::Map(m)), "enabled: \"yes\"\nports:\n- 80");
/// ```
pub fn to_yaml(value: &Value) -> String {
    try_to_yaml(value).unwrap_or_default()
}

/// The whole YAML document as go-yaml prints it: [`to_yaml`] plus the final newline.
pub fn to_yaml_document(value: &Value) -> String {
    match try_to_yaml(value) {
        Ok(mut text) => {
            text.push('\n');
            text
        }
        Err(_) => String::new(),
    }
}

/// [`to_yaml`], reporting why the value cannot be written.
pub fn try_to_yaml(value: &Value) -> Result<String, ToYamlError> {
    try_to_yaml_within(value, usize::MAX)
}

/// [`try_to_yaml`], failing once the text passes `limit` bytes instead of building it all.
pub fn try_to_yaml_within(value: &Value, limit: usize) -> Result<String, ToYamlError> {
    emit(value, limit, BEST_WIDTH, false)
}

/// The places of a map's keys, given in byte order, in the order [`to_yaml`] writes them
/// (go-yaml's, which is not byte order: see `key_order`). The text of a map with entries is its
/// entries' texts in this order, each written as a map of its own, joined by line breaks.
pub fn in_written_order(keys: &[&str]) -> Vec<usize> {
    key_order::ordered_places(keys)
}

/// Helm's `toYamlPretty` (go-yaml v3 with two-space indentation): as [`try_to_yaml_within`],
/// but a sequence under a key is indented below it, and long scalars are never folded.
pub fn try_to_yaml_pretty_within(value: &Value, limit: usize) -> Result<String, ToYamlError> {
    emit(value, limit, usize::MAX, true)
}

fn emit(
    value: &Value,
    limit: usize,
    best_width: usize,
    indent_sequences: bool,
) -> Result<String, ToYamlError> {
    let mut emitter = Emitter {
        limit,
        out: String::with_capacity(256),
        column: 0,
        indent: -1,
        whitespace: true,
        indention: true,
        best_width,
        indent_sequences,
    };
    emitter.node(value, false)?;
    // Document end: go-yaml ends the last line; Helm trims that one newline.
    emitter.write_indent();
    let mut out = emitter.out;
    if out.ends_with('\n') {
        out.pop();
    }
    Ok(out)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
}

struct Emitter {
    /// The most bytes `out` may reach.
    limit: usize,
    /// The column past which long scalars fold ([`BEST_WIDTH`]; unlimited for go-yaml v3).
    best_width: usize,
    /// go-yaml v3's layout: a sequence under a key is indented below it.
    indent_sequences: bool,
    out: String,
    /// Characters (not bytes) on the current line.
    column: usize,
    /// Current indentation; -1 before the root node.
    indent: i32,
    /// The last character written was whitespace (no separating space needed).
    whitespace: bool,
    /// Only indentation has been written on the current line so far.
    indention: bool,
}

impl Emitter {
    /// Writes one node. `mapping_value` is set for the value of a mapping entry, where a
    /// sequence is not indented under its key.
    fn node(&mut self, value: &Value, mapping_value: bool) -> Result<(), ToYamlError> {
        if self.out.len() > self.limit {
            return Err(ToYamlError::TooLong { limit: self.limit });
        }
        match value {
            Value::Null => self.token("null"),
            Value::Bool(true) => self.token("true"),
            Value::Bool(false) => self.token("false"),
            Value::Int(i) => {
                self.separate();
                let start = self.out.len();
                let _ = write!(self.out, "{i}");
                self.column += self.out.len() - start;
                self.end_token();
            }
            Value::Float(f) => {
                if !f.is_finite() {
                    return Err(UnsupportedValue(*f).into());
                }
                self.token(&format_yaml_float(*f));
            }
            Value::Number(text) => self.token(text),
            Value::String(s) => self.string(s, &analyze(s), false),
            Value::Seq(items) if items.is_empty() => self.empty_collection("[", "]"),
            Value::Seq(items) => return self.block_sequence(items, mapping_value),
            Value::Map(map) if map.is_empty() => self.empty_collection("{", "}"),
            Value::Map(map) => return self.block_mapping(map),
        }
        Ok(())
    }

    fn block_sequence(&mut self, items: &[Value], mapping_value: bool) -> Result<(), ToYamlError> {
        let saved = self.indent;
        let indentless = mapping_value && !self.indention && !self.indent_sequences;
        self.increase_indent(false, indentless);
        for item in items {
            self.write_indent();
            self.write_indicator("-", true, false, true);
            self.node(item, false)?;
        }
        self.indent = saved;
        Ok(())
    }

    fn block_mapping(&mut self, map: &Map) -> Result<(), ToYamlError> {
        let saved = self.indent;
        self.increase_indent(false, false);
        if key_order::byte_order_matches(map) {
            for (key, value) in map {
                self.entry(key, value)?;
            }
        } else {
            for (key, value) in key_order::ordered(map) {
                self.entry(key, value)?;
            }
        }
        self.indent = saved;
        Ok(())
    }

    fn entry(&mut self, key: &str, value: &Value) -> Result<(), ToYamlError> {
        self.write_indent();
        let analysis = analyze(key);
        if !analysis.multiline && key.len() <= MAX_SIMPLE_KEY_BYTES {
            self.string(key, &analysis, true);
            self.write_indicator(":", false, false, false);
        } else {
            self.write_indicator("?", true, false, true);
            self.string(key, &analysis, false);
            self.write_indent();
            self.write_indicator(":", true, false, true);
        }
        self.node(value, true)
    }

    /// `{}` or `[]`: go-yaml writes empty collections in flow style.
    fn empty_collection(&mut self, open: &str, close: &str) {
        self.write_indicator(open, true, true, false);
        self.write_indicator(close, false, false, false);
    }

    /// A plain scalar that needs no analysis: `null`, booleans and numbers.
    fn token(&mut self, text: &str) {
        self.separate();
        self.out.push_str(text);
        self.column += text.len();
        self.end_token();
    }

    fn separate(&mut self) {
        if !self.whitespace {
            self.put(' ');
        }
    }

    fn end_token(&mut self) {
        self.whitespace = false;
        self.indention = false;
    }

    /// A string scalar in the style go-yaml picks (`encoder.stringv`, then the emitter's
    /// `select_scalar_style`).
    fn string(&mut self, s: &str, analysis: &Analysis, simple_key: bool) {
        let mut style = if s.contains('\n') {
            Style::Literal
        } else if ambiguous::needs_double_quotes(s) || (simple_key && s == MERGE_KEY) {
            // A plain `<<` key would read back as a merge key (go-yaml v2 writes it plain).
            Style::DoubleQuoted
        } else {
            Style::Plain
        };
        if simple_key && analysis.multiline {
            style = Style::DoubleQuoted;
        }
        if style == Style::Plain && (!analysis.plain_allowed || (s.is_empty() && simple_key)) {
            style = Style::SingleQuoted;
        }
        if style == Style::SingleQuoted && !analysis.single_quoted_allowed {
            style = Style::DoubleQuoted;
        }
        if style == Style::Literal && (!analysis.block_allowed || simple_key) {
            style = Style::DoubleQuoted;
        }
        let saved = self.indent;
        self.increase_indent(true, false);
        let allow_breaks = !simple_key;
        match style {
            Style::Plain => self.write_plain(s, allow_breaks),
            Style::SingleQuoted => self.write_single_quoted(s, allow_breaks),
            Style::DoubleQuoted => self.write_double_quoted(s, allow_breaks),
            Style::Literal => self.write_literal(s),
        }
        self.indent = saved;
    }

    fn write_plain(&mut self, s: &str, allow_breaks: bool) {
        self.separate();
        let chars = if s.is_ascii() {
            s.len()
        } else {
            s.chars().count()
        };
        // Plain scalars never hold line breaks; a space can only fold past column 80.
        if !allow_breaks
            || self.column + chars <= self.best_width.saturating_add(1)
            || !s.contains(' ')
        {
            self.out.push_str(s);
            self.column += chars;
        } else {
            let mut spaces = false;
            let mut iter = s.chars().peekable();
            while let Some(c) = iter.next() {
                if c == ' ' {
                    let next_is_space = iter.peek() == Some(&' ');
                    if !spaces && self.column > self.best_width && !next_is_space {
                        self.write_indent();
                    } else {
                        self.put(' ');
                    }
                    spaces = true;
                } else {
                    self.put(c);
                    self.indention = false;
                    spaces = false;
                }
            }
        }
        self.end_token();
    }

    fn write_single_quoted(&mut self, s: &str, allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let mut spaces = false;
        let mut breaks = false;
        let last = s.len().saturating_sub(1);
        let mut iter = s.char_indices().peekable();
        while let Some((i, c)) = iter.next() {
            if c == ' ' {
                let next_is_space = matches!(iter.peek(), Some((_, ' ')));
                if allow_breaks
                    && !spaces
                    && self.column > self.best_width
                    && i > 0
                    && i < last
                    && !next_is_space
                {
                    self.write_indent();
                } else {
                    self.put(' ');
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.write_indicator("'", false, false, false);
        self.end_token();
    }

    fn write_double_quoted(&mut self, s: &str, allow_breaks: bool) {
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        self.write_indicator("\"", true, false, false);
        // libyaml tests for a byte order mark at the start of the whole value, not at each
        // character, so a value starting with U+FEFF has every character escaped.
        let starts_with_bom = s.starts_with('\u{feff}');
        let last = s.len().saturating_sub(1);
        let mut spaces = false;
        let mut iter = s.char_indices().peekable();
        while let Some((i, c)) = iter.next() {
            if starts_with_bom || !is_printable(c) || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                let short = match c {
                    '\0' => Some('0'),
                    '\u{7}' => Some('a'),
                    '\u{8}' => Some('b'),
                    '\t' => Some('t'),
                    '\n' => Some('n'),
                    '\u{b}' => Some('v'),
                    '\u{c}' => Some('f'),
                    '\r' => Some('r'),
                    '\u{1b}' => Some('e'),
                    '"' => Some('"'),
                    '\\' => Some('\\'),
                    '\u{85}' => Some('N'),
                    '\u{a0}' => Some('_'),
                    '\u{2028}' => Some('L'),
                    '\u{2029}' => Some('P'),
                    _ => None,
                };
                if let Some(letter) = short {
                    self.put(letter);
                } else {
                    let code = u32::from(c);
                    let (letter, digits) = match code {
                        0..=0xFF => ('x', 2),
                        0x100..=0xFFFF => ('u', 4),
                        _ => ('U', 8),
                    };
                    self.put(letter);
                    for k in (0..digits).rev() {
                        self.put(char::from(HEX[((code >> (4 * k)) & 0xF) as usize]));
                    }
                }
                spaces = false;
            } else if c == ' ' {
                if allow_breaks && !spaces && self.column > self.best_width && i > 0 && i < last {
                    self.write_indent();
                    // A space opening the next line would be lost: escape it.
                    if matches!(iter.peek(), Some((_, ' '))) {
                        self.put('\\');
                    }
                } else {
                    self.put(' ');
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.write_indicator("\"", false, false, false);
        self.end_token();
    }

    fn write_literal(&mut self, s: &str) {
        self.write_indicator("|", true, false, false);
        // An explicit indentation indicator when the text starts with a space or a break.
        if s.starts_with(|c: char| c == ' ' || is_break(c)) {
            self.write_indicator("2", false, false, false);
        }
        // Chomping: `-` without a final break, `+` with two (or only one character, a break).
        let mut from_end = s.chars().rev();
        let chomp = match (from_end.next(), from_end.next()) {
            (Some(last), _) if !is_break(last) => Some("-"),
            (None, _) => Some("-"),
            (Some(_), None) => Some("+"),
            (Some(_), Some(previous)) if is_break(previous) => Some("+"),
            _ => None,
        };
        if let Some(chomp) = chomp {
            self.write_indicator(chomp, false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        if s.is_ascii() {
            self.write_ascii_literal_lines(s);
        } else {
            self.write_literal_chars(s);
        }
    }

    /// The body of a literal scalar, character by character.
    fn write_literal_chars(&mut self, s: &str) {
        let mut breaks = true;
        for c in s.chars() {
            if is_break(c) {
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
    }

    /// The body of a literal scalar in ASCII (certificates, configs): a run of characters up to
    /// a break at a time, as [`Emitter::write_literal_chars`] writes it.
    fn write_ascii_literal_lines(&mut self, s: &str) {
        let bytes = s.as_bytes();
        let mut breaks = true;
        let mut start = 0;
        while start < bytes.len() {
            let run = memchr::memchr2(b'\n', b'\r', &bytes[start..]).unwrap_or(bytes.len() - start);
            if run == 0 {
                self.write_break(char::from(bytes[start]));
                self.indention = true;
                breaks = true;
                start += 1;
                continue;
            }
            if breaks {
                self.write_indent();
            }
            self.out.push_str(&s[start..start + run]);
            self.column += run;
            self.indention = false;
            breaks = false;
            start += run;
        }
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    /// Starts a new line unless only indentation has been written, then indents.
    fn write_indent(&mut self) {
        let indent = usize::try_from(self.indent).unwrap_or(0);
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(
        &mut self,
        indicator: &str,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        self.out.push_str(indicator);
        self.column += indicator.len();
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    /// Writes one character (of the value or of the syntax) on the current line.
    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    /// Copies a line break from the value: `\n` as a newline, others (U+2028...) as they are.
    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.put(c);
            self.column = 0;
        }
    }
}

#[cfg(test)]
mod tests;
