//! Unit tests for the lexer: trim markers, comments, lines and keywords.

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
