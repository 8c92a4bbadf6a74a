//! Hostile templates end in a clear error, never a hang or a crash: self-including partials,
//! mutual includes, recursive macros and endless loops (bounded by the engine's fuel).

use crate::support::RenderDocuments as _;
use meshchart::chart::{Chart, ChartFile};
use meshchart::engine::{Engine, RenderOptions};
use meshchart::values::Value;
use std::time::{Duration, Instant};

fn render(templates: &[(&str, &str)]) -> (String, Duration) {
    let mut files = vec![ChartFile {
        path: "Chart.yaml".into(),
        text: "apiVersion: v2\nname: hostile\nversion: 0.1.0\n".into(),
    }];
    files.extend(templates.iter().map(|(path, text)| ChartFile {
        path: format!("templates/{path}"),
        text: (*text).into(),
    }));
    let chart = Chart::from_files("hostile", files).unwrap();
    let started = Instant::now();
    let result = Engine::new(&chart).and_then(|engine| {
        engine.render_documents(&Value::Map(Default::default()), &RenderOptions::default())
    });
    let error = match result {
        Ok(_) => panic!("a hostile template rendered without error"),
        Err(e) => e.to_string(),
    };
    (error, started.elapsed())
}

#[test]
fn a_partial_that_includes_itself_is_stopped_with_the_chain_named() {
    let (error, _) = render(&[
        ("_loop.tpl", "{{ include('_loop.tpl') }}"),
        ("a.yaml", "x: {{ include('_loop.tpl') }}"),
    ]);
    assert!(
        error.contains("nested more than") && error.contains("_loop.tpl"),
        "{error}"
    );
    assert!(
        error.lines().count() < 10,
        "the repeated include chain is folded: {error}"
    );
}

#[test]
fn partials_that_include_each_other_are_stopped() {
    let (error, _) = render(&[
        ("_ping.tpl", "{{ include('_pong.tpl') }}"),
        ("_pong.tpl", "{{ include('_ping.tpl') }}"),
        ("a.yaml", "x: {{ include('_ping.tpl') }}"),
    ]);
    assert!(
        error.contains("nested more than") && error.contains("_ping.tpl"),
        "{error}"
    );
}

#[test]
fn a_macro_that_calls_itself_is_stopped() {
    let (error, _) = render(&[(
        "a.yaml",
        "{% macro f() %}{{ f() }}{% endmacro %}x: {{ f() }}",
    )]);
    assert!(error.contains("hostile/templates/a.yaml"), "{error}");
    assert!(error.to_lowercase().contains("recursion"), "{error}");
}

#[test]
fn an_endless_loop_runs_out_of_fuel() {
    let (error, took) = render(&[(
        "a.yaml",
        "{% for i in range(100000) %}{% for j in range(100000) %}{% for k in range(100000) %}{% endfor %}{% endfor %}{% endfor %}",
    )]);
    assert!(error.contains("endless loop"), "{error}");
    assert!(error.contains("hostile/templates/a.yaml"), "{error}");
    // A debug build takes a few seconds to burn the budget; a hang would take forever.
    assert!(took < Duration::from_secs(120), "took {took:?}");
}
