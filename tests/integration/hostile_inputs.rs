//! Hostile and odd inputs, each a "Why" of issue 11, as a user meets them through the binary:
//! every byte comes in through one door (`meshchart::input`). Each test says what must hold:
//! the error names the input (nothing on stdout, non-zero exit), or the data is kept as given.
//! Every run is bounded: a child that has not finished after [`DEADLINE`] is killed and the
//! test fails (that is a hang guard, not a speed check), and its address space is capped at
//! [`MEMORY_LIMIT_KIB`], so an unbounded read fails instead of eating the machine.

use crate::support;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};
use support::cli::{assert_refused, make_fifo, scratch_dir};

/// How long a run may take before we call it a hang.
const DEADLINE: Duration = Duration::from_secs(20);
/// The address space a run may reserve (`ulimit -v`), in KiB.
const MEMORY_LIMIT_KIB: u64 = 2 * 1024 * 1024;

const INJECT_VALUES: &str = "tests/golden/inject/values.yaml";

const POD: &str = "apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: web
    image: nginx
";

/// `meshchart ARGS` from the repository root, under the memory cap.
fn command(args: &[&str]) -> Command {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_LIMIT_KIB}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_meshchart"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Waits for `child` (its output drained meanwhile), killing it after [`DEADLINE`]; panics
/// when it had to be killed.
fn finish(mut child: Child, what: &str) -> Output {
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{what}: still running after {DEADLINE:?} (a hang); stderr: {}",
                text(&stderr.join().unwrap_or_default())
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

fn run(args: &[&str]) -> Output {
    finish(command(args).spawn().expect("spawn"), &args.join(" "))
}

fn run_with_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = command(args);
    command.envs(env.iter().copied());
    finish(command.spawn().expect("spawn"), &args.join(" "))
}

/// Runs with `stdin` on standard input (written from a thread, so a child that stops reading
/// cannot block the test).
fn run_with_stdin(args: &[&str], stdin: Vec<u8>) -> Output {
    let mut child = command(args).stdin(Stdio::piped()).spawn().expect("spawn");
    let mut pipe = child.stdin.take().expect("stdin");
    std::thread::spawn(move || {
        let _ = pipe.write_all(&stdin);
    });
    finish(child, &args.join(" "))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn write(path: &Path, bytes: &[u8]) -> String {
    std::fs::write(path, bytes).unwrap();
    path.to_string_lossy().into_owned()
}

/// A FIFO named `name` in a fresh folder, written `content` once from a thread (a second reader,
/// which must not come, would block forever).
fn fed_fifo(folder: &str, name: &str, content: &'static str) -> PathBuf {
    let path = scratch_dir(folder).join(name);
    make_fifo(&path);
    let writer = path.clone();
    std::thread::spawn(move || {
        if let Ok(mut fifo) = std::fs::OpenOptions::new().write(true).open(&writer) {
            let _ = fifo.write_all(content.as_bytes());
        }
    });
    path
}

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

fn chart_with_template(name: &str, template_name: &str, template: &str) -> String {
    let chart = scratch_dir(name).join("chart");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    write(
        &chart.join("Chart.yaml"),
        b"apiVersion: v2\nname: c\nversion: 0.1.0\n",
    );
    write(
        &chart.join("templates").join(template_name),
        template.as_bytes(),
    );
    chart.to_string_lossy().into_owned()
}

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

// --- Names that break the framing ------------------------------------------------------------

#[cfg(unix)]
#[test]
fn a_template_file_name_with_a_newline_is_refused_by_name() {
    let chart = chart_with_template(
        "newline-name",
        "cm.yaml\nevil: injected",
        "kind: ConfigMap\nmetadata:\n  name: cm\n",
    );
    let out = run(&["render", "--chart", &chart]);
    assert_refused(
        &out,
        1,
        &[
            "\"templates/cm.yaml\\nevil: injected\"",
            "control character",
        ],
    );
}

// --- Leftovers -------------------------------------------------------------------------------

#[cfg(unix)]
#[test]
fn golden_update_replaces_a_symlinked_expectation_instead_of_writing_through_it() {
    let chart = chart_with_template(
        "golden-symlink",
        "cm.yaml",
        "kind: ConfigMap\nmetadata:\n  name: cm\n",
    );
    let chart = Path::new(&chart);
    let cases = chart.parent().unwrap().join("cases");
    let case = cases.join("basic");
    std::fs::create_dir_all(&case).unwrap();
    let outside = chart.parent().unwrap().join("outside.yaml");
    write(&outside, b"precious\n");
    std::os::unix::fs::symlink(&outside, case.join("expected.yaml")).unwrap();
    let out = run(&[
        "golden",
        "--chart",
        chart.to_str().unwrap(),
        "--cases",
        cases.to_str().unwrap(),
        "--update",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious\n");
    let expected = case.join("expected.yaml");
    assert!(!std::fs::symlink_metadata(&expected).unwrap().is_symlink());
    assert!(std::fs::read_to_string(&expected)
        .unwrap()
        .contains("kind: ConfigMap"));
}

// --- A reader that stops early ----------------------------------------------------------------

#[test]
fn inject_into_a_pipe_closed_early_says_how_far_it_got_and_fails() {
    let stream: String = (0..3000)
        .map(|i| {
            format!(
                "---\n{}",
                POD.replace("name: web\n", &format!("name: web-{i}\n"))
            )
        })
        .collect();
    let input = write(
        &scratch_dir("closed-pipe").join("big.yaml"),
        stream.as_bytes(),
    );
    let mut child = command(&["inject", &input, "-f", INJECT_VALUES])
        .spawn()
        .expect("spawn");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut head = [0u8; 100];
    std::io::Read::read_exact(&mut stdout, &mut head).expect("the first bytes");
    drop(stdout);
    let out = finish(child, "inject | head -c 100");
    let stderr = text(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("broken pipe") && stderr.contains("of 3000 document(s) were written whole"),
        "{stderr}"
    );
}

// --- Deep folders ------------------------------------------------------------------------------

/// Makes `levels` nested folders named `d` under `root` and returns the deepest.
fn nested_folders(root: &Path, levels: usize) -> PathBuf {
    let mut deepest = root.to_path_buf();
    for _ in 0..levels {
        deepest.push("d");
    }
    std::fs::create_dir_all(&deepest).unwrap();
    deepest
}

/// Walking a folder resolved each folder's real path anew and compared it with every folder
/// before it, cubic in the depth (a file 1,000 levels down took 14 s). The run must now finish
/// well inside the hang guard.
#[test]
fn a_file_fifteen_hundred_folders_deep_is_found_by_render_and_inject() {
    let chart = scratch_dir("deep-chart");
    write(
        &chart.join("Chart.yaml"),
        b"apiVersion: v2\nname: deep\nversion: 0.1.0\n",
    );
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    write(
        &chart.join("templates/cm.yaml"),
        b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\n",
    );
    write(
        &nested_folders(&chart.join("files"), 1500).join("f.txt"),
        b"x",
    );
    let render = run(&["render", "--chart", chart.to_str().unwrap()]);
    assert!(render.status.success(), "{}", text(&render.stderr));
    assert!(text(&render.stdout).contains("name: deep"));

    let manifests = scratch_dir("deep-inject");
    write(
        &nested_folders(&manifests, 1500).join("pod.yaml"),
        POD.as_bytes(),
    );
    let inject = run(&["inject", manifests.to_str().unwrap(), "-f", INJECT_VALUES]);
    assert!(inject.status.success(), "{}", text(&inject.stderr));
    assert!(text(&inject.stderr).contains("pod \"web\" injected"));
}

// --- The temporary folder ------------------------------------------------------------------------

#[test]
fn inject_with_a_missing_tmpdir_is_an_error_naming_tmpdir_and_its_path() {
    let missing = scratch_dir("missing-tmpdir").join("not-there");
    let input = write(
        &scratch_dir("tmpdir-input").join("pod.yaml"),
        POD.as_bytes(),
    );
    let out = run_with_env(
        &["inject", &input, "-f", INJECT_VALUES],
        &[("TMPDIR", missing.to_str().unwrap())],
    );
    assert_refused(
        &out,
        1,
        &[
            &format!("$TMPDIR ({})", missing.display()),
            "temporary file",
        ],
    );
}
