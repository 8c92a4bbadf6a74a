//! The function library inside the engine: errors carry their template and line, recursion and
//! hostile arguments end in clear errors.

use crate::support::{self, RenderDocuments as _};

use meshchart::chart::Chart;
use meshchart::engine::{Engine, RenderError, RenderOptions};
use meshchart::values::Value;

fn chart(files: &[(&str, &str)]) -> Chart {
    support::chart_of("fn", files)
}

fn values(yaml: &str) -> Value {
    meshchart::yaml::parse_document(yaml).expect("values")
}

fn render_error(template: &str, values_yaml: &str) -> RenderError {
    let chart = chart(&[("templates/t.yaml", template)]);
    let engine = Engine::new(&chart).expect("compiles");
    match engine.render_documents(&values(values_yaml), &RenderOptions::default()) {
        Ok(r) => panic!("expected an error, rendered {:?}", r.to_stream()),
        Err(e) => e,
    }
}

#[test]
fn required_error_names_the_message_template_and_line() {
    let error = render_error(
        "a: 1\nb: {{ required(\"x is required\", Values.x) }}\n",
        "{}",
    );
    let text = error.to_string();
    assert!(text.contains("x is required"), "{text}");
    assert!(
        text.starts_with("fn/templates/t.yaml:2: x is required"),
        "{text}"
    );
    assert!(
        text.contains("required(\"x is required\", Values.x)"),
        "{text}"
    );
}

#[test]
fn required_as_a_filter_reports_the_same_way() {
    let text = render_error("b: {{ Values.x | required(\"set x\") }}\n", "x: \"\"").to_string();
    assert!(text.starts_with("fn/templates/t.yaml:1: set x"), "{text}");
}

#[test]
fn fail_error_carries_the_message_and_line() {
    let text = render_error(
        "{% if not Values.ok %}\n{{ fail(\"ok must be set\") }}\n{% endif %}\n",
        "ok: false",
    )
    .to_string();
    assert!(
        text.starts_with("fn/templates/t.yaml:2: ok must be set"),
        "{text}"
    );
}

#[test]
fn required_inside_an_include_names_the_partial_and_the_caller() {
    let chart = chart(&[
        (
            "templates/_image.tpl",
            "{{ required(\"image.tag is required\", Values.image.tag) }}",
        ),
        (
            "templates/t.yaml",
            "a: 1\nimage: {{ include(\"_image.tpl\") }}\n",
        ),
    ]);
    let engine = Engine::new(&chart).unwrap();
    let text = engine
        .render_documents(&values("image: {}"), &RenderOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        text.starts_with("fn/templates/_image.tpl:1: image.tag is required"),
        "{text}"
    );
    assert!(
        text.contains("included from fn/templates/t.yaml:2"),
        "{text}"
    );
}

#[test]
fn tpl_recursion_is_stopped_by_the_include_depth_guard() {
    let text = render_error("a: {{ tpl(Values.t) }}\n", "t: \"{{ tpl(Values.t) }}\"").to_string();
    assert!(
        text.contains("tpl nested more than 64 deep (does a value render itself with tpl?)"),
        "{text}"
    );
}

#[test]
fn hostile_arguments_end_in_errors_not_exhaustion() {
    for (template, expected) in [
        ("{{ printf(\"%9000000d%9000000d\", 1, 2) }}", "10 MiB"),
        ("{{ repeat(9000000000000, \"ab\") }}", "10 MiB"),
        ("{{ indent(9000000000000, \"a\") }}", "10 MiB"),
        ("{{ until(9000000000000) | len }}", "more than the limit"),
        (
            "{{ untilStep(0, 9223372036854775807, 1) | len }}",
            "more than the limit",
        ),
        (
            "{{ mustRegexMatch(\"(a{1000}){1000}\", \"a\") }}",
            "size limit",
        ),
        (
            "{{ regexReplaceAll(\"a\", repeat(5000, \"a\"), repeat(5000, \"b\")) }}",
            "10 MiB",
        ),
        (
            "{{ replace(\"a\", repeat(5000, \"b\"), repeat(5000, \"a\")) }}",
            "10 MiB",
        ),
    ] {
        let text = render_error(&format!("a: {template}\n"), "{}").to_string();
        assert!(text.contains(expected), "{template}: {text}");
    }
}

#[test]
fn extreme_numbers_do_not_overflow() {
    let chart = chart(&[(
        "templates/t.yaml",
        "a: {{ seq(9223372036854775807, 9223372036854775807) }} {{ trunc(-9223372036854775807, \"abc\") }} {{ div(-9223372036854775807 - 1, -1) }} {{ subf(1e300, 1e-300) }}\n",
    )]);
    let engine = Engine::new(&chart).unwrap();
    let out = engine
        .render_template("t.yaml", &values("{}"), &RenderOptions::default())
        .unwrap();
    // Go wraps end+1 around and prints nothing for that seq; we saturate and agree.
    assert_eq!(out, "a:  abc -9223372036854775808 1e+300\n");
}
