//! Long runs and their progress (#37): a bar on stderr only when stderr is a terminal (never
//! under these tests, whose stderr is a pipe), so off a terminal stderr holds no bar and ends
//! with the run's one-line summary; `--quiet` leaves only warnings, errors and that summary.
//! Stdout holds the output alone either way.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Output;
use support::cli::{legacy_command, meshchart, run, scratch_dir};

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// What a drawn bar leaves in a stream: carriage returns, the terminal's erase-line sequence,
/// or the bar's blocks.
fn assert_no_bar(text: &str) {
    for mark in ["\r", "\x1b[", "█", "░"] {
        assert!(!text.contains(mark), "{mark:?} in: {text}");
    }
}

/// A fleet folder of three clusters and an output folder beside it (not made).
fn fleet(name: &str) -> (PathBuf, PathBuf) {
    let root = scratch_dir(name);
    let dir = root.join("fleet");
    std::fs::create_dir_all(&dir).unwrap();
    for (cluster, level) in [("east", "debug"), ("north", "info"), ("west", "warn")] {
        std::fs::write(
            dir.join(format!("{cluster}.yaml")),
            format!("controllerLogLevel: {level}\n"),
        )
        .unwrap();
    }
    (dir, root.join("out"))
}

/// `render --fleet DIR --output-dir OUT` with the pinned certificates, then `extra`.
fn render_fleet(dir: &Path, out: &Path, extra: &[&str]) -> Output {
    let (dir, out) = (dir.to_string_lossy(), out.to_string_lossy());
    let mut args = vec![
        "render",
        "--fleet",
        &dir,
        "--output-dir",
        &out,
        "--certs-dir",
        "tests/certs",
    ];
    args.extend(extra);
    run(legacy_command(&args).env("SOURCE_DATE_EPOCH", "1700000000"))
}

const FLEET_SUMMARY: &str = "3 clusters: 3 rendered, 3 written, 0 unchanged, 0 removed, 0 failed";

#[test]
fn a_fleet_off_a_terminal_draws_no_bar_and_ends_stderr_with_its_summary() {
    let (dir, out) = fleet("progress-fleet-pipe");
    let output = render_fleet(&dir, &out, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let err = stderr(&output);
    assert_no_bar(&err);
    assert_eq!(err.lines().last(), Some(FLEET_SUMMARY), "{err}");
    assert_no_bar(&stdout(&output));
    assert_eq!(stdout(&output).lines().count(), 3, "{}", stdout(&output));
}

#[test]
fn a_quiet_fleet_says_only_its_summary() {
    let (dir, out) = fleet("progress-fleet-quiet");
    let output = render_fleet(&dir, &out, &["--quiet"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stderr(&output), format!("{FLEET_SUMMARY}\n"));
    assert_eq!(stdout(&output), "", "no listing of the files");
    assert!(out.join("east.yaml").is_file(), "the clusters are written");
}

#[test]
fn a_quiet_fleet_still_says_which_cluster_failed() {
    let (dir, out) = fleet("progress-fleet-quiet-failure");
    std::fs::write(dir.join("broken.yaml"), "proxy: [unclosed\n").unwrap();
    let output = render_fleet(&dir, &out, &["-q"]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("broken.yaml"), "{err}");
    assert_eq!(
        err.lines().last(),
        Some("4 clusters: 3 rendered, 0 written, 0 unchanged, 0 removed, 1 failed"),
        "{err}"
    );
}

#[test]
fn a_quiet_render_to_an_output_dir_lists_nothing_and_writes_every_file() {
    let out = scratch_dir("progress-render-quiet").join("out");
    let out_text = out.to_string_lossy();
    let output = run(legacy_command(&[
        "render",
        "--output-dir",
        &out_text,
        "--certs-dir",
        "tests/certs",
        "-q",
    ])
    .env("SOURCE_DATE_EPOCH", "1700000000"));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "");
    assert!(!stderr(&output).contains("note:"), "{}", stderr(&output));
    assert!(out.read_dir().unwrap().next().is_some(), "files written");
}

/// `count` Deployments in one file of a scratch folder named `name`.
fn workloads(name: &str, count: usize) -> String {
    let path = scratch_dir(name).join("apps.yaml");
    let text: String = (0..count)
        .map(|i| {
            format!(
                "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web-{i}\nspec:\n  \
                 template:\n    metadata:\n      labels: {{app: web}}\n    spec:\n      \
                 containers:\n      - name: web\n        image: nginx\n"
            )
        })
        .collect();
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn inject_off_a_terminal_draws_no_bar_and_ends_stderr_with_its_summary() {
    let input = workloads("progress-inject-pipe", 40);
    let out = meshchart(&[
        "inject",
        &input,
        "--set-file",
        "identityTrustAnchorsPEM=tests/certs/ca.crt",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert_no_bar(&err);
    assert_eq!(
        err.lines().count(),
        41,
        "a line per workload and the summary: {err}"
    );
    assert_eq!(
        err.lines().last(),
        Some("40 injected, 0 skipped, 0 warnings")
    );
    assert_no_bar(&stdout(&out));
}

#[test]
fn quiet_inject_says_only_its_summary() {
    let input = workloads("progress-inject-quiet", 40);
    let out = meshchart(&[
        "inject",
        &input,
        "--set-file",
        "identityTrustAnchorsPEM=tests/certs/ca.crt",
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "40 injected, 0 skipped, 0 warnings\n");
    assert_eq!(stdout(&out).matches("kind: Deployment").count(), 40);
}

#[test]
fn lint_quiet_leaves_out_info_findings_as_helm_lint_does() {
    // A chart without an icon (an INFO) and with a name Kubernetes refuses (a WARNING).
    let chart = scratch_dir("progress-lint-quiet").join("app");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: app\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(
        chart.join("templates/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n",
    )
    .unwrap();
    let chart = chart.to_string_lossy();
    let loud = meshchart(&["lint", &chart]);
    let quiet = meshchart(&["lint", &chart, "--quiet"]);
    assert!(stdout(&quiet).contains("[WARNING]"), "{}", stdout(&quiet));
    assert!(stdout(&loud).contains("[INFO]"), "{}", stdout(&loud));
    assert!(!stdout(&quiet).contains("[INFO]"), "{}", stdout(&quiet));
    let loud_text = stdout(&loud);
    let without_info: Vec<&str> = loud_text
        .lines()
        .filter(|l| !l.starts_with("[INFO]"))
        .collect();
    assert_eq!(stdout(&quiet).lines().collect::<Vec<_>>(), without_info);
    assert_eq!(quiet.status.code(), loud.status.code());
}

#[test]
fn uninject_off_a_terminal_draws_no_bar_and_quiet_says_nothing() {
    let input = workloads("progress-uninject", 5);
    let injected = meshchart(&[
        "inject",
        &input,
        "--set-file",
        "identityTrustAnchorsPEM=tests/certs/ca.crt",
    ]);
    let injected_file = scratch_dir("progress-uninject-input").join("injected.yaml");
    std::fs::write(&injected_file, &injected.stdout).unwrap();
    let path = injected_file.to_string_lossy();
    let loud = meshchart(&["uninject", &path]);
    assert_eq!(loud.status.code(), Some(0), "{}", stderr(&loud));
    assert_no_bar(&stderr(&loud));
    assert_eq!(stderr(&loud).lines().count(), 5, "{}", stderr(&loud));
    let quiet = meshchart(&["uninject", &path, "--quiet"]);
    assert_eq!(quiet.status.code(), Some(0), "{}", stderr(&quiet));
    assert_eq!(stderr(&quiet), "");
    assert_eq!(quiet.stdout, loud.stdout, "the stream is the same");
}
