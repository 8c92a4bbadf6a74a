//! Work and memory budgets: quadratic work, template memory, time and memory ceilings, output caps.

use super::*;

// --- Quadratic work --------------------------------------------------------------------------

#[test]
fn values_explain_and_lint_of_four_thousand_keys_finish() {
    let dir = scratch_dir("many-keys");
    let mut yaml = String::from("extra:\n");
    for i in 0..4000 {
        yaml.push_str(&format!("  key{i:05}: value-{i}\n"));
    }
    let file = write(&dir.join("v.yaml"), yaml.as_bytes());
    let out = run(&["values", "-f", &file, "--explain"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains(&format!("key03999: value-3999  # {file}:4001")));
    let out = run(&["lint", "-f", &file]);
    let stdout = text(&out.stdout);
    assert_eq!(
        stdout.matches("unknown key extra").count(),
        1,
        "one report for one unknown key: {stdout}"
    );
}

// --- Template memory -------------------------------------------------------------------------

#[test]
fn a_string_doubled_with_tilde_stops_at_the_template_budget() {
    let chart = chart_with_template(
        "string-doubling",
        "s.yaml",
        "{% set ns = namespace(s=\"ab\") %}\n\
         {% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}\n\
         x: {{ ns.s | length }}\n",
    );
    let out = run(&["render", "--chart", &chart]);
    assert_refused(&out, 1, &["c/templates/s.yaml:2", "budget"]);
}

#[test]
fn a_long_list_built_with_plus_is_refused_where_it_is_printed_or_converted() {
    for (tail, needle) in [
        ("{{ ns.s }}", "the list printed here has 1073741824 items"),
        ("{{ ns.s | toYaml }}", "a list of 1073741824 items"),
    ] {
        let chart = chart_with_template(
            "list-doubling",
            "l.yaml",
            &format!(
                "{{% set ns = namespace(s=[1]) %}}\n\
                 {{% for i in range(30) %}}{{% set ns.s = ns.s + ns.s %}}{{% endfor %}}\n\
                 x: {tail}\n"
            ),
        );
        let out = run(&["render", "--chart", &chart]);
        assert_refused(&out, 1, &["c/templates/l.yaml:3", needle]);
    }
}

#[test]
fn a_list_doubled_past_every_budget_stops_at_the_time_limit() {
    // Past minijinja's lazy depth (32) `+` sizes and copies the whole list without charging any
    // budget; the process's time limit stops it, with a message and nothing on stdout.
    let chart = chart_with_template(
        "list-doubling-unprinted",
        "l.yaml",
        "{% set ns = namespace(s=[1]) %}\n\
         {% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}\n\
         x: 1\n",
    );
    let out = run_with_env(
        &["render", "--chart", &chart],
        &[
            ("MESHCHART_MAX_SECONDS", "2"),
            ("MESHCHART_MAX_MEMORY", "256MiB"),
        ],
    );
    let stderr = text(&out.stderr);
    assert!(!out.status.success(), "stderr: {stderr}");
    assert!(out.stdout.is_empty(), "stdout: {}", text(&out.stdout));
    assert!(
        stderr.contains("ran for 2 s, its time limit (MESHCHART_MAX_SECONDS)")
            || stderr.contains("needed more memory than its ceiling allows"),
        "{stderr}"
    );
}

#[test]
fn a_heap_past_the_memory_ceiling_stops_the_process_with_a_message() {
    // A 40 MB value is under the input cap, but reading, merging and printing it needs more
    // than a 64 MiB heap.
    let dir = scratch_dir("memory-ceiling");
    let big = write(&dir.join("big.txt"), &vec![b'a'; 40_000_000]);
    let out = run_with_env(
        &["values", "--set-file", &format!("a={big}")],
        &[("MESHCHART_MAX_MEMORY", "64MiB")],
    );
    let stderr = text(&out.stderr);
    assert!(!out.status.success(), "stderr: {stderr}");
    assert!(out.stdout.is_empty(), "stdout: {}", text(&out.stdout));
    assert!(
        stderr.contains("needed more memory than its ceiling allows"),
        "{stderr}"
    );
}

#[test]
fn an_unreadable_time_limit_is_an_error_naming_it() {
    let out = run_with_env(&["render"], &[("MESHCHART_MAX_SECONDS", "soon")]);
    assert_refused(
        &out,
        1,
        &["MESHCHART_MAX_SECONDS=\"soon\": not a whole number"],
    );
}

#[test]
fn an_unreadable_memory_ceiling_is_an_error_naming_it() {
    let out = run_with_env(&["render"], &[("MESHCHART_MAX_MEMORY", "lots")]);
    assert_refused(&out, 1, &["MESHCHART_MAX_MEMORY=\"lots\": not a size"]);
}

#[test]
fn the_render_output_cap_names_the_template_and_line() {
    let chart = chart_with_template(
        "output-cap",
        "big.yaml",
        "a: 1\n{% for i in range(100) %}\nk{{ i }}: {{ \"x\" * 100 }}\n{% endfor %}\n",
    );
    let out = run(&["render", "--chart", &chart, "--max-output-bytes", "2KiB"]);
    assert_refused(
        &out,
        1,
        &[
            "c/templates/big.yaml:3",
            "limit of 2048 bytes",
            "--max-output-bytes",
        ],
    );
    let out = run(&["render", "--chart", &chart, "--max-output-bytes", "1MiB"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}
