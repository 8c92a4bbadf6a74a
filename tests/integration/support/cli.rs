//! The `meshchart` binary as the command-line tests run it, and their scratch folders.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// `meshchart ARGS`, to be run from the repository root (change what a test needs, then [`run`]).
pub fn command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_meshchart"));
    command.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    command
}

/// The release line the tests written for the 2021 chart render, and the newest Kubernetes it
/// runs on.
pub const LEGACY_LINE: [&str; 4] = ["--linkerd", "edge-21.4.4", "--kube-version", "1.24.0"];

/// `meshchart ARGS` on the edge-21.4.4 line: `--linkerd edge-21.4.4` after the subcommand, and
/// for the commands that render a control plane, `--kube-version 1.24.0` unless ARGS give one
/// (inject checks no chart range; `--chart` names its own chart).
pub fn legacy_command(args: &[&str]) -> Command {
    let takes_a_line = matches!(
        args.first(),
        Some(&("render" | "lint" | "values" | "diff" | "golden" | "package" | "inject"))
    );
    if args.contains(&"--chart") || !takes_a_line {
        return command(args);
    }
    let mut full: Vec<&str> = args.iter().take(1).copied().collect();
    let renders = matches!(args.first(), Some(&("render" | "lint" | "diff" | "golden")));
    if !args.contains(&"--linkerd") {
        full.extend(&LEGACY_LINE[..2]);
    }
    if renders && !args.iter().any(|a| a.starts_with("--kube-version")) {
        full.extend(&LEGACY_LINE[2..]);
    }
    full.extend(args.iter().skip(1));
    command(&full)
}

/// Runs `command` with nothing on stdin and collects its exit status, stdout and stderr.
pub fn run(command: &mut Command) -> Output {
    command.output().expect("run meshchart")
}

/// Runs `meshchart ARGS` from the repository root.
pub fn meshchart(args: &[&str]) -> Output {
    run(&mut command(args))
}

/// Runs `command` with `stdin` on its standard input.
pub fn run_with_stdin(command: &mut Command, stdin: &str) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run meshchart");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("meshchart finishes")
}

/// A fresh, empty folder of this test process under the system temp dir, named after `name`.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("meshchart-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Says that `test` did not run because `tool` is missing (`why`), where `cargo test` shows it
/// even for a passing test: the line goes straight to stderr, past the test harness's capture.
/// Where the environment names the tool in `MESHCHART_REQUIRED_TOOLS` (comma-separated; CI lists
/// what it installed), a missing tool fails the test instead of skipping it.
pub fn skip(test: &str, tool: &str, why: &str) {
    let required = std::env::var("MESHCHART_REQUIRED_TOOLS").unwrap_or_default();
    if required.split(',').any(|t| t.trim() == tool) {
        panic!("{test}: {why}, but MESHCHART_REQUIRED_TOOLS says {tool} is installed");
    }
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED {test}: {why}");
}

/// Helm, or `None` after saying (see [`skip`]) that `test` skipped without it.
pub fn helm_or_skip(test: &str) -> Option<PathBuf> {
    let found = helm();
    if found.is_none() {
        skip(
            test,
            "helm",
            "helm is not installed (set HELM_BIN or put helm on PATH; ../shared/tools/get-helm.sh installs it)",
        );
    }
    found
}

/// Makes a FIFO (named pipe) at `path`, as `mkfifo` does, without needing that tool.
pub fn make_fifo(path: &std::path::Path) {
    use std::os::unix::ffi::OsStrExt as _;
    let name = std::ffi::CString::new(path.as_os_str().as_bytes()).expect("no NUL in the path");
    // SAFETY: `name` is a valid NUL-terminated path that outlives the call.
    let made = unsafe { libc::mkfifo(name.as_ptr(), 0o644) };
    assert_eq!(
        made,
        0,
        "mkfifo {}: {}",
        path.display(),
        std::io::Error::last_os_error()
    );
}

/// Helm, if this machine has it: `HELM_BIN`, else `helm` on PATH.
pub fn helm() -> Option<PathBuf> {
    if let Some(bin) = std::env::var_os("HELM_BIN").filter(|b| !b.is_empty()) {
        return Some(PathBuf::from(bin));
    }
    std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("helm"))
            .find(|candidate| candidate.is_file())
    })
}

/// Asserts a refusal: exit `code`, nothing on stdout, and each of `needles` in the message.
pub fn assert_refused(out: &Output, code: i32, needles: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "stderr: {stderr}");
    assert!(
        out.stdout.is_empty(),
        "stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    for needle in needles {
        assert!(stderr.contains(needle), "{needle:?} not in: {stderr}");
    }
}
