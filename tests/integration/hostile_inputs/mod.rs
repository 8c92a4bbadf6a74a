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

mod budgets;
mod data;
mod leftovers;
mod reads;

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
