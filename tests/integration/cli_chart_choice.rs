//! Which chart a command works on: named as Helm takes it, or the folder it runs in, said aloud;
//! never the embedded Linkerd chart by a silent fallback.

use crate::support;

use std::path::Path;
use support::cli::{command, run};

/// A chart author's small chart in a fresh folder; `broken` gives it a template that fails.
fn web_chart(broken: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("templates")).unwrap();
    std::fs::write(
        root.join("Chart.yaml"),
        "apiVersion: v2\nname: web\nversion: 1.2.3\n",
    )
    .unwrap();
    std::fs::write(root.join("values.yaml"), "replicas: 2\n").unwrap();
    let template = if broken {
        "kind: ConfigMap\nreplicas: {{ Values.replicas | nosuchfilter }}\n"
    } else {
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  replicas: \"{{ Values.replicas }}\"\n"
    };
    std::fs::write(root.join("templates/cm.yaml"), template).unwrap();
    dir
}

fn in_folder(dir: &Path, args: &[&str]) -> std::process::Output {
    run(command(args).current_dir(dir))
}

#[test]
fn a_chart_named_as_helm_takes_it_is_rendered() {
    let chart = web_chart(false);
    let out = run(&mut command(&["render", chart.path().to_str().unwrap()]));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("# Source: web/templates/cm.yaml"),
        "{stdout}"
    );
}

#[test]
fn a_positional_chart_and_linkerd_together_are_refused() {
    // One word beside --linkerd is Helm's NAME; a chart's path is no valid release name.
    let chart = web_chart(false);
    let out = run(&mut command(&[
        "render",
        chart.path().to_str().unwrap(),
        "--linkerd",
        "edge-24.10.2",
    ]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("not a valid release name"), "{stderr}");
    assert!(
        stderr.contains("--linkerd already names the chart"),
        "{stderr}"
    );
}

#[test]
fn lint_inside_a_chart_folder_lints_that_chart_and_says_so() {
    let chart = web_chart(true);
    let out = in_folder(chart.path(), &["lint"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stderr.contains("using the chart in ./"), "{stderr}");
    assert!(stdout.contains("==> Linting ./"), "{stdout}");
    assert_eq!(
        out.status.code(),
        Some(1),
        "a broken template fails lint:\n{stdout}"
    );
}

#[test]
fn package_inside_a_chart_folder_packages_that_chart() {
    let chart = web_chart(false);
    let out = in_folder(chart.path(), &["package", "-d", "out"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(chart.path().join("out/web-1.2.3.tgz").is_file());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("packaged ./: web 1.2.3"), "{stderr}");
}

#[test]
fn linkerd_inside_a_chart_folder_uses_the_embedded_line_without_a_note() {
    let chart = web_chart(false);
    let out = in_folder(chart.path(), &["values", "--linkerd", "edge-24.10.2"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("using the chart in ./"));
}

#[test]
fn golden_names_the_chart_and_the_cases_it_checked() {
    let chart = web_chart(false);
    let case = chart.path().join("golden/default");
    std::fs::create_dir_all(&case).unwrap();
    let rendered = run(&mut command(&["render", chart.path().to_str().unwrap()]));
    std::fs::write(case.join("expected.yaml"), &rendered.stdout).unwrap();
    let out = in_folder(chart.path(), &["golden"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.starts_with("golden cases ./golden of chart ./\n"),
        "{stdout}"
    );
}

#[test]
fn a_release_named_without_its_line_is_refused_suggesting_the_embedded_one() {
    let out = run(&mut command(&["render", "--linkerd", "26.8.3"]));
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "--linkerd 26.8.3 is not a Linkerd release meshchart embeds: did you mean edge-26.8.3?"
        ),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "nothing rendered");
}
