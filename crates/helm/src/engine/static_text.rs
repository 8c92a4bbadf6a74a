//! Long runs of plain text in templates, lifted out of the source the template engine compiles.
//!
//! minijinja's lexer walks every byte of template text one character at a time, counting lines
//! and columns. A CRD template is a hundred kilobytes of text around a handful of tags, and
//! lexing was a quarter of rendering the CRD chart. Here each long run of whole lines between
//! two tags is replaced, before compiling, by an expression printing the same text from a table
//! ([`TABLE`]). The expression keeps the run's newlines inside it, so every line after it keeps
//! its number, and error messages (which quote the original template) point where they did.
//!
//! Only the middle of a run is lifted: the run's first line with text and its last stay in
//! place, so whitespace control (`{%-`, `-%}`), which trims a run from its ends up to the
//! first character that is not whitespace, trims exactly what it trimmed before. A template
//! this scanner is unsure about (a `{% raw %}` block, a tag that does not end) is compiled as
//! written: the scanner mirrors minijinja's default syntax, which the engine uses.

use crate::chart::SharedText;
use memchr::memmem;
use minijinja::value::{Object, ObjectRepr};
use std::ops::Range;
use std::sync::Arc;

/// The global holding the lifted texts, indexed by the expressions that replace them.
pub(super) const TABLE: &str = "__meshchart_static_text";

/// Runs shorter than this stay in place: lifting them saves less than the lookup costs.
const SHORTEST_LIFTED: usize = 256;

/// The global [`TABLE`] for `texts`: a list of [`LiftedText`]s, so a lookup hands out a
/// reference to one.
pub(super) fn table_value(texts: Vec<minijinja::Value>) -> minijinja::Value {
    minijinja::Value::from(texts)
}

/// A lifted run of text: a range of its template's own text, which the table refers to instead
/// of holding a copy (a CRD chart's lifted runs are hundreds of kilobytes). It prints as that text.
#[derive(Debug)]
pub(super) struct LiftedText {
    template: SharedText,
    range: Range<usize>,
}

impl LiftedText {
    /// The text it prints.
    pub(super) fn text(&self) -> &str {
        &self.template[self.range.clone()]
    }
}

impl Object for LiftedText {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.text())
    }
}

/// `template` with its long text runs replaced by lookups into `table` (a [`LiftedText`] of
/// each appended there); `None` when nothing was lifted.
pub(super) fn lift(template: &SharedText, table: &mut Vec<minijinja::Value>) -> Option<String> {
    let source: &str = template;
    if !mostly_long_text(source.as_bytes()) {
        return None;
    }
    let runs = text_runs(source)?;
    let mut lifted = String::new();
    let mut copied = 0;
    for run in runs {
        let Some(middle) = liftable_middle(source, run) else {
            continue;
        };
        let text = &source[middle.clone()];
        lifted.push_str(&source[copied..middle.start]);
        let newlines = memchr::memchr_iter(b'\n', text.as_bytes()).count();
        lifted.push_str("{{ ");
        lifted.push_str(TABLE);
        lifted.push_str(&format!("[{}]", table.len()));
        lifted.extend(std::iter::repeat_n('\n', newlines));
        lifted.push_str(" }}");
        table.push(minijinja::Value::from_object(LiftedText {
            template: template.clone(),
            range: middle.clone(),
        }));
        copied = middle.end;
    }
    if copied == 0 {
        return None;
    }
    lifted.push_str(&source[copied..]);
    Some(lifted)
}

/// Whether long stretches between tags make up at least half of `bytes`, measured at
/// memchr's speed from where tags start. Lifting pays for scanning every tag only then: a
/// template dense with tags (most partials) compiles as written.
fn mostly_long_text(bytes: &[u8]) -> bool {
    let mut last = 0;
    let mut long_gaps = 0;
    for at in memchr::memchr_iter(b'{', bytes) {
        if !matches!(bytes.get(at + 1), Some(b'{' | b'%' | b'#')) {
            continue;
        }
        if at - last >= SHORTEST_LIFTED {
            long_gaps += at - last;
        }
        last = at;
    }
    if bytes.len() - last >= SHORTEST_LIFTED {
        long_gaps += bytes.len() - last;
    }
    long_gaps * 2 >= bytes.len()
}

/// The part of the text run `run` of `source` that can be lifted: from the start of the line
/// after the run's first line with text, to the end of the line before its last line with text
/// (that line's newline stays). `None` when that is too short.
fn liftable_middle(source: &str, run: Range<usize>) -> Option<Range<usize>> {
    if run.len() < SHORTEST_LIFTED {
        return None;
    }
    let text = &source[run.clone()];
    let first_text = text.find(|c: char| !c.is_whitespace())?;
    let last_text = text.rfind(|c: char| !c.is_whitespace())?;
    let start = first_text + memchr::memchr(b'\n', &text.as_bytes()[first_text..])? + 1;
    // The newline that ends the line before the last line with text.
    let end = memchr::memrchr(b'\n', &text.as_bytes()[..last_text])?;
    (end > start && end - start >= SHORTEST_LIFTED).then(|| run.start + start..run.start + end)
}

/// The text runs of `source` (what lies outside tags and comments), as minijinja's lexer splits
/// them with the default syntax; `None` when unsure.
fn text_runs(source: &str) -> Option<Vec<Range<usize>>> {
    let bytes = source.as_bytes();
    let mut runs = Vec::new();
    let mut position = 0;
    loop {
        let Some(marker) = next_start_marker(bytes, position) else {
            runs.push(position..bytes.len());
            return Some(runs);
        };
        runs.push(position..marker);
        position = match bytes[marker + 1] {
            b'#' => marker + 2 + memmem::find(&bytes[marker + 2..], b"#}")? + 2,
            kind => tag_end(bytes, marker, kind)?,
        };
    }
}

/// Where the next `{{`, `{%` or `{#` starts, from `from` on.
fn next_start_marker(bytes: &[u8], from: usize) -> Option<usize> {
    let mut search = from;
    loop {
        let at = search + memchr::memchr(b'{', &bytes[search..])?;
        if matches!(bytes.get(at + 1), Some(b'{' | b'%' | b'#')) {
            return Some(at);
        }
        search = at + 1;
    }
}

/// Just past the end of the tag opened at `marker` (`{{` when `kind` is `{`, `{%` when it is
/// `%`). As in minijinja, an end marker counts only outside strings and brackets; a raw block
/// or a tag that never ends gives `None`.
fn tag_end(bytes: &[u8], marker: usize, kind: u8) -> Option<usize> {
    let close = if kind == b'{' { b'}' } else { b'%' };
    let mut at = marker + 2;
    if matches!(bytes.get(at), Some(b'-' | b'+')) {
        at += 1;
    }
    if kind == b'%' && opens_raw_block(&bytes[at..]) {
        return None;
    }
    let mut depth: isize = 0;
    loop {
        match *bytes.get(at)? {
            quote @ (b'\'' | b'"') => {
                at = string_end(bytes, at, quote)?;
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' => depth -= 1,
            b'}' if depth == 0 && close == b'}' && bytes.get(at + 1) == Some(&b'}') => {
                return Some(at + 2)
            }
            b'}' => depth -= 1,
            b'%' if depth == 0 && close == b'%' && bytes.get(at + 1) == Some(&b'}') => {
                return Some(at + 2)
            }
            b'-' | b'+'
                if depth == 0
                    && bytes.get(at + 1) == Some(&close)
                    && bytes.get(at + 2) == Some(&b'}') =>
            {
                return Some(at + 3)
            }
            _ => {}
        }
        at += 1;
    }
}

/// Just past the string literal opened by `quote` at `at`; a backslash escapes the next byte.
fn string_end(bytes: &[u8], at: usize, quote: u8) -> Option<usize> {
    let mut i = at + 1;
    loop {
        match *bytes.get(i)? {
            b'\\' => i += 2,
            b if b == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
}

/// Whether a block tag whose content starts at `rest` is `{% raw %}`.
fn opens_raw_block(rest: &[u8]) -> bool {
    let content = rest.trim_ascii_start();
    content.starts_with(b"raw")
        && content
            .get(3)
            .is_none_or(|b| b.is_ascii_whitespace() || matches!(b, b'-' | b'+' | b'%'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An environment with the engine's syntax.
    fn environment() -> minijinja::Environment<'static> {
        let mut env = minijinja::Environment::new();
        let syntax = minijinja::syntax::SyntaxConfig::builder()
            .keep_trailing_newline(true)
            .build()
            .expect("syntax");
        env.set_syntax(syntax);
        env
    }

    /// `source` rendered with its long text lifted.
    fn render(source: &str) -> String {
        let mut env = environment();
        let mut table = Vec::new();
        let lifted = lift(&SharedText::from(source), &mut table);
        env.add_global(TABLE, table_value(table));
        env.add_template_owned("t", lifted.unwrap_or_else(|| source.to_owned()))
            .expect("compiles");
        env.get_template("t")
            .and_then(|t| t.render(minijinja::context! { x => "X", items => vec![1, 2] }))
            .expect("renders")
    }

    /// `source` rendered as written.
    fn plain(source: &str) -> String {
        environment()
            .render_str(
                source,
                minijinja::context! { x => "X", items => vec![1, 2] },
            )
            .expect("renders")
    }

    fn block(lines: usize) -> String {
        (0..lines)
            .map(|i| format!("      line{i}: {{not a tag}} value {i}\n"))
            .collect()
    }

    #[test]
    fn a_long_run_between_tags_is_lifted_and_renders_the_same() {
        let source = format!("a: {{{{ x }}}}\n{}b: {{{{ x }}}}\n", block(40));
        let mut table = Vec::new();
        let lifted = lift(&SharedText::from(source.as_str()), &mut table).expect("lifted");
        assert_eq!(table.len(), 1);
        assert_eq!(lifted.lines().count(), source.lines().count());
        assert_eq!(render(&source), plain(&source));
    }

    #[test]
    fn a_lifted_run_refers_to_the_templates_text_instead_of_a_copy() {
        let template = SharedText::from(format!("a: {{{{ x }}}}\n{}b: {{{{ x }}}}\n", block(40)));
        let mut table = Vec::new();
        lift(&template, &mut table).expect("lifted");
        let lifted = table[0]
            .downcast_object_ref::<LiftedText>()
            .expect("a lifted text");
        let held = template.as_bytes().as_ptr_range();
        assert!(held.contains(&lifted.text().as_ptr()));
        assert!(template.contains(lifted.text()));
    }

    #[test]
    fn whitespace_control_trims_what_it_trimmed_before() {
        for source in [
            format!(
                "{{%- if true -%}}\n\n  {}\n\n{{%- endif -%}}\nend",
                block(30)
            ),
            format!("{{{{ x -}}}}   \n{}   {{{{- x }}}}", block(30)),
            format!("{{# c -#}}\n{}\n  \n{{#- c #}}", block(30)),
            format!("{{% for i in items %}}\n{}{{% endfor %}}", block(30)),
        ] {
            assert!(
                lift(&SharedText::from(source.as_str()), &mut Vec::new()).is_some(),
                "{source}"
            );
            assert_eq!(render(&source), plain(&source), "{source}");
        }
    }

    /// Templates put together from tags with every whitespace control, comments, blank and
    /// indented lines and long text: lifted or not, each renders the same.
    #[test]
    fn pieced_together_templates_render_the_same_lifted() {
        const PIECES: &[&str] = &[
            "{{ x }}",
            "{{- x }}",
            "{{ x -}}",
            "{{+ x +}}",
            "{# note #}",
            "{#- note -#}",
            "{% if true %}",
            "{%- if true -%}",
            "{% endif %}",
            "{%- endif %}",
            "\n",
            "   ",
            "\n\n  \n",
            "\t",
            "{{ '}}' }}",
            "{{ {'a': 1}['a'] }}",
            " \u{3000}\n",
        ];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut lifted_some = 0;
        for _ in 0..400 {
            let mut source = String::new();
            let mut open_ifs = 0;
            for _ in 0..12 {
                match next(PIECES.len() + 2) {
                    i if i < PIECES.len() => {
                        let piece = PIECES[i];
                        if piece.contains("endif") {
                            if open_ifs == 0 {
                                continue;
                            }
                            open_ifs -= 1;
                        } else if piece.contains("if true") {
                            open_ifs += 1;
                        }
                        source.push_str(piece);
                    }
                    _ => source.push_str(&block(next(20))),
                }
            }
            for _ in 0..open_ifs {
                source.push_str("{% endif %}");
            }
            lifted_some +=
                usize::from(lift(&SharedText::from(source.as_str()), &mut Vec::new()).is_some());
            assert_eq!(render(&source), plain(&source), "{source:?}");
        }
        assert!(
            lifted_some > 100,
            "only {lifted_some} templates were lifted"
        );
    }

    #[test]
    fn strings_and_brackets_holding_end_markers_do_not_end_a_tag() {
        let source = format!(
            "{{{{ '}}}}' ~ {{'k': {{'j': '%}}'}}}}['k']['j'] }}}}\n{}{{{{ \"a\\\"}}}}\" }}}}\n",
            block(30)
        );
        assert_eq!(render(&source), plain(&source));
    }

    #[test]
    fn a_raw_block_leaves_the_template_as_written() {
        let source = format!("{{% raw %}}{{{{ x }}}}\n{}{{% endraw %}}\n", block(30));
        assert_eq!(
            lift(&SharedText::from(source.as_str()), &mut Vec::new()),
            None
        );
    }

    #[test]
    fn a_tag_that_never_ends_leaves_the_template_as_written() {
        let source = format!("{}{{{{ x ", block(30));
        assert_eq!(
            lift(&SharedText::from(source.as_str()), &mut Vec::new()),
            None
        );
    }

    #[test]
    fn short_runs_stay_in_place() {
        assert_eq!(
            lift(
                &SharedText::from("a: {{ x }}\nb: c\nd: {{ x }}\n"),
                &mut Vec::new()
            ),
            None
        );
    }
}
