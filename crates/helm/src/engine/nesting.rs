//! A look at each template's expressions before minijinja parses them: its parser guards the
//! nesting of brackets, but reads each `not` of a run like `not not not … true` with one more
//! level of recursion, so 200,000 of them ran the stack out before any line could be named.

use super::RenderError;
use crate::chart::Chart;

/// The most `not`s in a row an expression may hold; minijinja's own guard on brackets stops a
/// few hundred levels in, and no template negates a value more than twice.
pub(super) const MAX_NOTS_IN_A_ROW: usize = 100;

/// Refuses the first template of `chart` (named `chart_name/templates/...`) holding an
/// expression nested deeper than the parser can take, naming its line.
pub(super) fn check_expression_nesting(chart_name: &str, chart: &Chart) -> Result<(), RenderError> {
    for template in &chart.templates {
        if let Some(line) = first_run_of_nots(&template.text) {
            return Err(RenderError::Template {
                template: format!("{chart_name}/templates/{}", template.path),
                line: Some(line),
                message: format!(
                    "expression nested too deeply: more than {MAX_NOTS_IN_A_ROW} `not` in a row"
                ),
                source_line: None,
                included_from: Vec::new(),
            });
        }
    }
    Ok(())
}

/// The line on which a run of more than [`MAX_NOTS_IN_A_ROW`] `not` words starts inside a
/// `{{ }}` or `{% %}` tag (outside string literals), if any.
fn first_run_of_nots(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    // Every render checks every template: the byte-by-byte walk below runs only where two
    // `not`s follow each other at all, which memchr's search rules out for nearly every text.
    if !has_not_after_not(bytes) {
        return None;
    }
    let mut line = 1;
    let mut i = 0;
    let mut in_tag = false;
    let mut quote: Option<u8> = None;
    let mut run = 0;
    let mut run_line = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\n' {
            line += 1;
        }
        if !in_tag {
            if b == b'{' && matches!(bytes.get(i + 1), Some(b'{' | b'%')) {
                in_tag = true;
                i += 2;
                continue;
            }
            i += 1;
            continue;
        }
        if let Some(q) = quote {
            if b == b'\\' {
                i += 1;
            } else if b == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        match b {
            b'"' | b'\'' => {
                quote = Some(b);
                run = 0;
            }
            b'}' | b'%' if bytes.get(i + 1) == Some(&b'}') => {
                in_tag = false;
                run = 0;
                i += 2;
                continue;
            }
            _ if b.is_ascii_alphanumeric() || b == b'_' => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                if &bytes[start..i] == b"not" {
                    if run == 0 {
                        run_line = line;
                    }
                    run += 1;
                    if run > MAX_NOTS_IN_A_ROW {
                        return Some(run_line);
                    }
                } else {
                    run = 0;
                }
                continue;
            }
            _ if b.is_ascii_whitespace() => {}
            _ => run = 0,
        }
        i += 1;
    }
    None
}

/// Whether `not`, white space and `not` follow each other somewhere in `bytes`: the start of
/// any run of two or more.
fn has_not_after_not(bytes: &[u8]) -> bool {
    memchr::memmem::find_iter(bytes, b"not").any(|at| {
        let rest = &bytes[at + 3..];
        let gap = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
        gap > 0 && rest[gap..].starts_with(b"not")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_run_of_nots_is_found_on_its_line_and_a_short_one_is_not() {
        let deep = format!(
            "a: 1\nb: {{{{ {}true }}}}\n",
            "not ".repeat(MAX_NOTS_IN_A_ROW + 1)
        );
        assert_eq!(first_run_of_nots(&deep), Some(2));
        assert_eq!(first_run_of_nots("{{ not not x }} not not"), None);
        let quoted = format!("{{{{ \"{}\" }}}}", "not ".repeat(MAX_NOTS_IN_A_ROW + 1));
        assert_eq!(first_run_of_nots(&quoted), None);
    }

    #[test]
    fn only_a_text_with_two_nots_in_a_row_is_walked() {
        assert!(!has_not_after_not(
            b"annotations: {{ not x }} knot here, nothing"
        ));
        assert!(has_not_after_not(b"{{ not\n\tnot x }}"));
        let deep = format!("{{{{ {}true }}}}", "not\n".repeat(MAX_NOTS_IN_A_ROW + 1));
        assert_eq!(first_run_of_nots(&deep), Some(1));
    }
}
