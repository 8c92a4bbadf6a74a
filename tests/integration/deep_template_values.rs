//! Values a template builds nested tens of thousands deep end in a clear error or a render,
//! never in a crash: our converters and printing refuse a value nested past 10,000 levels, the
//! threads' stacks hold minijinja's drop of the deepest value the fuel lets a template build,
//! and what still recurses past a stack ends in a clear error (limits::catch_stack_overflow).

use crate::support;

use support::cli::{run, scratch_dir};

/// A chart whose one template nests a map `outer * 10` levels deep, then applies `use_it`.
fn deep_chart(name: &str, outer: usize, use_it: &str) -> std::path::PathBuf {
    let dir = scratch_dir(name);
    std::fs::create_dir_all(dir.join("templates")).unwrap();
    std::fs::write(
        dir.join("Chart.yaml"),
        "apiVersion: v2\nname: deep\nversion: 0.1.0\n",
    )
    .unwrap();
    let template = format!(
        "{{%- set deep = namespace(v=1) -%}}{{%- for i in range({outer}) -%}}{{%- for j in range(10) -%}}\
         {{%- set deep.v = {{\"a\": deep.v}} -%}}{{%- endfor -%}}{{%- endfor -%}}kind: A\n{use_it}\n"
    );
    std::fs::write(dir.join("templates/a.yaml"), template).unwrap();
    dir
}

fn render(chart: &std::path::Path) -> std::process::Output {
    let chart = chart.to_str().unwrap();
    run(support::cli::command(&["render", "--chart", chart]).env("SOURCE_DATE_EPOCH", "1700000000"))
}

#[test]
fn a_map_nested_as_deep_as_the_fuel_allows_is_an_error_not_a_crash() {
    let out = render(&deep_chart("deep-fuel", 9000, ""));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("used up its budget"), "{stderr}");
}

#[test]
fn a_deep_map_renders_when_it_fits_the_budget() {
    let out = render(&deep_chart("deep-fits", 3000, "depth: fine"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("depth: fine"));
}

#[test]
fn to_yaml_of_a_map_nested_past_the_limit_is_refused() {
    let out = render(&deep_chart(
        "deep-yaml",
        3000,
        "v: {{ deep.v | toYaml | length }}",
    ));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("a value nested deeper than 10000 levels"),
        "{stderr}"
    );
}

#[test]
fn printing_a_map_nested_past_the_limit_is_refused() {
    let out = render(&deep_chart("deep-print", 1100, "v: {{ deep.v }}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("the value printed here is nested deeper than 10000 levels"),
        "{stderr}"
    );
}

#[test]
fn a_map_nested_past_any_stack_and_printed_as_a_string_ends_in_a_clear_error() {
    // `~` prints the value inside minijinja, recursing once a level: 30,000 levels of maps
    // need more than a thread's stack (parallel::STACK_BYTES) in some builds, not in others.
    let out = render(&deep_chart(
        "deep-concat",
        3000,
        "v: {{ (\"x\" ~ deep.v) | length }}",
    ));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let clear = stderr.contains("error: meshchart ran out of stack (SIGSEGV): a template built")
        || stderr.contains("used up its budget");
    assert!(
        out.status.success() || (out.status.code() == Some(1) && clear),
        "{:?}: {stderr}",
        out.status
    );
}
