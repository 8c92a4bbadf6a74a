//! Unit tests for the parser: Go's messages, trees and number literals.

use super::*;

fn p(text: &str) -> Result<Parsed, Error> {
    parse("t", &std::sync::Arc::new(text.to_owned()), &|name| {
        matches!(name, "printf" | "len")
    })
}

fn msg(text: &str) -> String {
    p(text).err().map(|e| e.to_string()).unwrap_or_default()
}

#[test]
fn unknown_functions_fail_to_parse() {
    assert_eq!(
        msg("{{ nosuch 1 }}"),
        "template: t:1: function \"nosuch\" not defined"
    );
}

#[test]
fn undefined_variables_fail_to_parse() {
    assert_eq!(msg("{{ $y }}"), "template: t:1: undefined variable \"$y\"");
    assert_eq!(
        msg("{{ if true }}{{ $y := 1 }}{{ end }}{{ $y }}"),
        "template: t:1: undefined variable \"$y\""
    );
}

#[test]
fn defines_become_separate_trees_before_the_file() {
    let parsed = p("{{ define \"x\" }}a{{ end }}b")
        .map(|p| p.trees)
        .unwrap_or_default();
    let names: Vec<_> = parsed.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["x", "t"]);
}

#[test]
fn number_literals_follow_go() {
    let n = |s: &str| match p(&format!("{{{{ {s} }}}}"))
        .map(|mut p| p.trees.remove(0).root.nodes.into_vec().remove(0))
    {
        Ok(Node::Action(pipe)) => match pipe.cmds.into_vec().remove(0).args.into_vec().remove(0) {
            Arg::Number(_, n) => n.value,
            _ => Err("not a number".into()),
        },
        _ => Err("no action".into()),
    };
    assert_eq!(n("0x1F"), Ok(Value::Int(31)));
    assert_eq!(n("0o17"), Ok(Value::Int(15)));
    assert_eq!(n("017"), Ok(Value::Int(15)));
    assert_eq!(n("1_000"), Ok(Value::Int(1000)));
    assert_eq!(n("1e3"), Ok(Value::Float(1000.0)));
    assert_eq!(n("0x1p4"), Ok(Value::Float(16.0)));
    assert_eq!(n("'a'"), Ok(Value::Int(97)));
}

#[test]
fn nesting_past_the_limit_is_an_error_not_a_crash() {
    let deep = format!(
        "{{{{ {}1{} }}}}",
        "(".repeat(MAX_NESTING + 1),
        ")".repeat(MAX_NESTING + 1)
    );
    assert!(msg(&deep).contains("nesting deeper than"));
}
