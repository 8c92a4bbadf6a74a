//! Reads that could block or never end, and inputs read twice: each read once, bounded, named.

use super::*;

// --- Unbounded reads -------------------------------------------------------------------------

#[test]
fn values_set_file_from_a_device_is_refused_by_name() {
    let out = run(&["values", "--set-file", "a=/dev/zero"]);
    assert_refused(&out, 1, &["/dev/zero", "character device"]);
}

#[test]
fn a_values_file_that_is_a_device_is_refused_by_name() {
    let out = run(&["values", "-f", "/dev/zero"]);
    assert_refused(&out, 1, &["/dev/zero", "character device"]);
}

#[test]
fn inject_of_a_device_is_refused_by_name() {
    let out = run(&["inject", "/dev/zero", "-f", INJECT_VALUES]);
    assert_refused(&out, 1, &["/dev/zero", "character device"]);
}

#[test]
fn diff_of_a_device_is_refused_by_name() {
    let dir = scratch_dir("diff-device");
    let other = write(&dir.join("x.yaml"), POD.as_bytes());
    let out = run(&["diff", "/dev/zero", &other]);
    assert_refused(&out, 2, &["/dev/zero", "character device"]);
}

#[test]
fn a_chart_that_is_a_device_is_refused_by_name() {
    let out = run(&["render", "--chart", "/dev/zero"]);
    assert_refused(&out, 1, &["/dev/zero", "character device"]);
}

#[cfg(unix)]
#[test]
fn an_inject_folder_link_out_to_a_device_is_refused_by_name() {
    let dir = scratch_dir("inject-link-device");
    write(&dir.join("pod.yaml"), POD.as_bytes());
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.yaml")).unwrap();
    let out = run(&["inject", dir.to_str().unwrap(), "-f", INJECT_VALUES]);
    assert_refused(&out, 1, &["zero.yaml", "symbolic link", "/dev/zero"]);
}

#[test]
fn a_values_fifo_named_twice_under_two_names_is_read_once() {
    let fifo = fed_fifo(
        "values-fifo-twice",
        "values.yaml",
        "proxy:\n  logLevel: debug\n",
    );
    let same = fifo.parent().unwrap().join(".").join("values.yaml");
    let out = run(&[
        "render",
        "-f",
        fifo.to_str().unwrap(),
        "-f",
        same.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("logLevel: debug"));
}

#[test]
fn a_fifo_inside_an_inject_folder_is_refused_without_blocking() {
    let dir = scratch_dir("inject-fifo");
    write(&dir.join("pod.yaml"), POD.as_bytes());
    make_fifo(&dir.join("x.yaml"));
    let out = run(&["inject", dir.to_str().unwrap(), "-f", INJECT_VALUES]);
    assert_refused(&out, 1, &["x.yaml", "FIFO"]);
}

#[test]
fn endless_standard_input_stops_at_the_input_cap() {
    let mut command = command(&["values", "-f", "-"]);
    command
        .env("MESHCHART_MAX_INPUT_BYTES", "1MiB")
        .stdin(Stdio::piped());
    let mut child = command.spawn().expect("spawn");
    let mut pipe = child.stdin.take().expect("stdin");
    std::thread::spawn(move || {
        let line = b"key: value\n".repeat(1000);
        while pipe.write_all(&line).is_ok() {}
    });
    let out = finish(child, "values -f - from an endless pipe");
    assert_refused(
        &out,
        1,
        &[
            "<stdin>",
            "input limit of 1048576 bytes",
            "MESHCHART_MAX_INPUT_BYTES",
        ],
    );
}

#[test]
fn an_input_over_the_cap_is_refused_and_the_cap_can_be_raised() {
    let dir = scratch_dir("input-cap");
    // 200 different keys (a key given twice would be refused for that instead).
    let values: String = (0..200).map(|i| format!("k{i}: 0123456789\n")).collect();
    let file = write(&dir.join("big.yaml"), values.as_bytes());
    let out = run_with_env(
        &["values", "-f", &file],
        &[("MESHCHART_MAX_INPUT_BYTES", "1KiB")],
    );
    assert_refused(&out, 1, &["big.yaml", "input limit of 1024 bytes"]);
    let out = run_with_env(
        &["values", "-f", &file],
        &[("MESHCHART_MAX_INPUT_BYTES", "1MiB")],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
}

// --- Read twice ------------------------------------------------------------------------------

#[test]
fn a_values_file_fifo_is_read_once_even_with_explain() {
    let fifo = fed_fifo("values-fifo", "values.yaml", "proxy:\n  logLevel: debug\n");
    let out = run(&["values", "-f", fifo.to_str().unwrap(), "--explain"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(&format!("logLevel: debug  # {}:2", fifo.display())),
        "{stdout}"
    );
}

#[test]
fn a_set_file_fifo_is_read_once_even_with_explain() {
    let fifo = fed_fifo("set-file-fifo", "extra.txt", "from-a-fifo");
    let set_file = format!("extra={}", fifo.display());
    let out = run(&["values", "--set-file", &set_file, "--explain"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("extra: from-a-fifo  # --set-file"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn diff_of_standard_input_with_itself_reads_it_once() {
    let app = std::fs::read(format!(
        "{}/tests/golden/inject/deployment/input.yaml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let out = run_with_stdin(&["diff", "-", "-"], app);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        !text(&out.stdout).contains("removed"),
        "{}",
        text(&out.stdout)
    );
}
