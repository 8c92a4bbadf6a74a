//! The output door from the command line (issue 26): fleets and `--output-dir` never lose a
//! user's file, never overlap their inputs, land whole under SIGKILL at any instant, and
//! concurrent runs into one target never mix. `--certs-dir` fills likewise.
//!
//! Kill and concurrency rounds are few by default, to keep `cargo test` short on a small
//! machine; `MESHCHART_DOOR_ROUNDS=50` runs 50 of each (the acceptance), and
//! `MESHCHART_DOOR_CLUSTERS` sets the kill tests' fleet size (default 2,000).

use crate::support;

mod filesystems;
mod fleet_rules;
mod kills;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use support::cli::{legacy_command, run, scratch_dir};

const RECORD: &str = meshchart::output::RECORD_NAME;
const STAGING: &str = meshchart::output::STAGING_MARKER;
/// A two-template chart that renders in microseconds: fleets of thousands stay quick.
const SMALL_CHART: &str = "tests/fixtures/output-dir";

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn rounds(default: usize) -> usize {
    env_number("MESHCHART_DOOR_ROUNDS", default)
}

fn s(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

/// Every file under `dir` with its bytes, relative (folders implied); `{}` when `dir` is absent.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path
                    .strip_prefix(dir)
                    .expect("inside")
                    .display()
                    .to_string();
                files.insert(relative, std::fs::read(&path).expect("read"));
            }
        }
    }
    files
}

/// Staging folders left beside `target` (in its parent) or inside it.
fn staging_left(target: &Path) -> Vec<String> {
    let mut left = Vec::new();
    for folder in [target.parent().expect("a parent"), target] {
        if let Ok(entries) = std::fs::read_dir(folder) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.contains(STAGING) || name.contains(".meshchart-fleet-") {
                    left.push(entry.path().display().to_string());
                }
            }
        }
    }
    left
}

/// A fleet folder of `NAME.yaml` clusters `c<i>` for `i` in `ids`, each naming itself with `tag`.
fn write_fleet(dir: &Path, ids: impl IntoIterator<Item = usize>, tag: &str) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).expect("fleet folder");
    for i in ids {
        std::fs::write(
            dir.join(format!("c{i}.yaml")),
            format!("name: c{i}-{tag}\n"),
        )
        .expect("cluster");
    }
}

fn fleet_command(fleet: &Path, out: &Path) -> Command {
    legacy_command(&[
        "render",
        "--chart",
        SMALL_CHART,
        "--fleet",
        s(fleet),
        "--output-dir",
        s(out),
    ])
}

/// Runs `command` to the end, quietly, and insists it succeeded.
fn complete(mut command: Command) -> Duration {
    let started = Instant::now();
    let output = run(&mut command);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    started.elapsed()
}

fn spawn_quiet(mut command: Command) -> Child {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start meshchart")
}

/// The instant of kill round `round` of `rounds` across a run of `length`: spread evenly with
/// a little jitter over twice the length, so the kills land at many points, the last ones
/// around the switch (a run under load takes up to twice the one measured).
fn kill_delay(round: usize, rounds: usize, length: Duration) -> Duration {
    let jitter = (round * 7919 % 101) as f64 / 101.0;
    let fraction = (round as f64 + jitter) / rounds.max(1) as f64 * 2.0;
    length.mul_f64(fraction)
}

fn fleet_output(fleet: &Path, out: &Path) -> std::process::Output {
    run(&mut fleet_command(fleet, out))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `command` run under umask 000, where a file made with the default mode is 0666.
fn under_umask_000(mut command: Command) -> std::process::Output {
    use std::os::unix::process::CommandExt as _;
    // SAFETY: umask(2) is async-signal-safe, and nothing else runs between fork and exec.
    unsafe {
        command.pre_exec(|| {
            libc::umask(0);
            Ok(())
        });
    }
    run(&mut command)
}

fn mode_of(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).expect("meta").permissions().mode() & 0o777
}
