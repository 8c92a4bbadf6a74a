//! Data that could change silently (NUL bytes, invalid UTF-8, byte order marks, wrong shapes) and links that leave a chart.

use super::*;

// --- Silently changed data -------------------------------------------------------------------

#[test]
fn a_nul_byte_in_a_values_file_is_an_error_with_line_and_column() {
    let dir = scratch_dir("values-nul");
    let file = write(
        &dir.join("v.yaml"),
        b"proxy:\n  logLevel: debug\0\n  await: false\n",
    );
    let out = run(&["render", "-f", &file]);
    assert_refused(&out, 1, &["v.yaml", "line 2, column 18", "NUL byte"]);
}

#[test]
fn a_nul_byte_in_inject_input_is_an_error_with_line_and_column() {
    let mut input = POD.as_bytes().to_vec();
    input.extend_from_slice(b"\0---\nkind: Pod\n");
    let out = run_with_stdin(&["inject", "-", "-f", INJECT_VALUES], input);
    assert_refused(&out, 1, &["<stdin>:9:1", "NUL byte"]);
}

#[test]
fn invalid_utf8_in_a_values_file_is_an_error_with_line_and_column() {
    let dir = scratch_dir("values-utf8");
    let file = write(&dir.join("v.yaml"), b"a: 1\nb: caf\xe9\n");
    let out = run(&["values", "-f", &file]);
    assert_refused(&out, 1, &["v.yaml", "line 2, column 7", "not UTF-8"]);
}

#[test]
fn a_byte_order_mark_before_a_values_file_is_dropped() {
    let dir = scratch_dir("values-bom");
    let file = write(
        &dir.join("v.yaml"),
        "\u{feff}proxy:\n  await: false\n".as_bytes(),
    );
    let out = run(&["values", "-f", &file]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("  await: false\n"), "{stdout}");
    assert!(!stdout.contains('\u{feff}'), "{stdout}");
}

#[test]
fn a_byte_order_mark_before_inject_input_is_dropped() {
    for input in [
        format!("\u{feff}{POD}"),
        "\u{feff}{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"web\"}, \
         \"spec\": {\"containers\": [{\"name\": \"web\", \"image\": \"nginx\"}]}}"
            .to_owned(),
    ] {
        let out = run_with_stdin(&["inject", "-", "-f", INJECT_VALUES], input.into_bytes());
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(
            text(&out.stderr),
            "pod \"web\" injected\n1 injected, 0 skipped, 0 warnings\n"
        );
        assert!(text(&out.stdout).contains("linkerd-proxy"));
    }
}

#[test]
fn a_byte_order_mark_before_a_later_document_of_an_inject_stream_is_dropped() {
    let second = POD.replace("name: web\n", "name: api\n");
    for input in [
        format!("{POD}\u{feff}---\n{second}"),
        format!("{POD}---\n\u{feff}{second}"),
    ] {
        let out = run_with_stdin(&["inject", "-", "-f", INJECT_VALUES], input.into_bytes());
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(
            text(&out.stderr),
            "pod \"web\" injected\npod \"api\" injected\n2 injected, 0 skipped, 0 warnings\n"
        );
    }
}

#[test]
fn one_fifo_named_twice_as_inject_input_is_refused_by_name_without_blocking() {
    let fifo = fed_fifo("inject-fifo-twice", "pods.yaml", POD);
    let name = fifo.to_str().unwrap();
    let out = run(&["inject", name, name, "-f", INJECT_VALUES]);
    assert_refused(&out, 1, &["pods.yaml", "FIFO named twice"]);
}

// --- Wrong shapes replaced, not refused ------------------------------------------------------

#[test]
fn a_workload_field_of_the_wrong_shape_is_an_error_naming_it() {
    for (field_yaml, field, expected, found) in [
        (
            "  initContainers: {a: 1}\n",
            "spec.initContainers",
            "a list",
            "a map",
        ),
        ("  volumes: x\n", "spec.volumes", "a list", "a string"),
    ] {
        let input = format!("{POD}{field_yaml}");
        let out = run_with_stdin(&["inject", "-", "-f", INJECT_VALUES], input.into_bytes());
        assert_refused(
            &out,
            1,
            &[
                "<stdin>:1: pod/web",
                &format!("{field} must be {expected}, found {found}"),
            ],
        );
    }
    let annotations = POD.replace("  name: web\n", "  name: web\n  annotations: [a, b]\n");
    let out = run_with_stdin(
        &["inject", "-", "-f", INJECT_VALUES],
        annotations.into_bytes(),
    );
    assert_refused(
        &out,
        1,
        &["metadata.annotations must be a map, found a list"],
    );
    let metadata = POD.replace("metadata:\n  name: web\n", "metadata: [1]\n");
    let out = run_with_stdin(&["inject", "-", "-f", INJECT_VALUES], metadata.into_bytes());
    assert_refused(
        &out,
        1,
        &["<stdin>:1: pod/", "metadata must be a map, found a list"],
    );
}

// --- Folders stay closed ---------------------------------------------------------------------

#[cfg(unix)]
#[test]
fn a_chart_link_that_leaves_the_chart_is_refused_by_name() {
    let dir = scratch_dir("chart-link-out");
    let chart = dir.join("chart");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    write(
        &chart.join("Chart.yaml"),
        b"apiVersion: v2\nname: c\nversion: 0.1.0\n",
    );
    std::os::unix::fs::symlink("../../..", chart.join("templates/up")).unwrap();
    let out = run(&["render", "--chart", chart.to_str().unwrap()]);
    assert_refused(&out, 1, &["templates/up", "symbolic link", "outside"]);
}
