//! `meshchart golden` on a chart author's chart: runs that cannot pass by accident.

use crate::support;

use std::path::{Path, PathBuf};
use support::cli::{command, run};

/// A chart whose ConfigMap prints `Values.greeting` (required) and a Service.
fn chart() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("templates")).unwrap();
    std::fs::write(
        root.join("Chart.yaml"),
        "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(root.join("values.yaml"), "greeting: hello\n").unwrap();
    std::fs::write(
        root.join("templates/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n  namespace: {{ Release.Namespace }}\ndata:\n  greeting: {{ Values.greeting | required(\"greeting is required\") | quote }}\n",
    )
    .unwrap();
    std::fs::write(
        root.join("templates/svc.yaml"),
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n",
    )
    .unwrap();
    dir
}

fn case(chart: &Path, name: &str, args: &str) -> PathBuf {
    let dir = chart.join("golden").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("args"), args).unwrap();
    dir
}

fn golden(chart: &Path, extra: &[&str]) -> (Option<i32>, String, String) {
    let mut args = vec!["golden", chart.to_str().unwrap()];
    args.extend(extra);
    let out = run(&mut command(&args));
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_run_with_no_case_fails() {
    let chart = chart();
    std::fs::create_dir_all(chart.path().join("golden")).unwrap();
    let (code, _, stderr) = golden(chart.path(), &[]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("no golden cases under"), "{stderr}");
}

#[test]
fn update_refuses_to_turn_an_output_case_into_an_error_case_unless_accepted() {
    let chart = chart();
    let dir = case(chart.path(), "greeting", "--set greeting=hi\n");
    let (code, _, stderr) = golden(chart.path(), &["--update"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(dir.join("expected.yaml").is_file());
    // Now the case asks for an empty greeting, which `required` refuses.
    std::fs::write(dir.join("args"), "--set greeting=\n").unwrap();
    let (code, stdout, _) = golden(chart.path(), &["--update"]);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains("REFUSED greeting: now an error case"),
        "{stdout}"
    );
    assert!(stdout.contains("--accept-errors"), "{stdout}");
    assert!(dir.join("expected.yaml").is_file(), "nothing rewritten");
    assert!(!dir.join("expected-error.txt").exists());
    let (code, stdout, _) = golden(chart.path(), &["--update", "--accept-errors"]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout.contains("updated greeting: now an error case"),
        "{stdout}"
    );
    assert!(dir.join("expected-error.txt").is_file());
    assert!(!dir.join("expected.yaml").exists());
}

#[test]
fn one_case_can_be_run_or_updated_by_name() {
    let chart = chart();
    case(chart.path(), "a", "--set greeting=a\n");
    let b = case(chart.path(), "b", "--set greeting=b\n");
    let (code, stdout, _) = golden(chart.path(), &["--update", "--case", "a"]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout.contains("updated a") && !stdout.contains(" b\n"),
        "{stdout}"
    );
    assert!(!b.join("expected.yaml").exists());
    let (code, _, stderr) = golden(chart.path(), &["--case", "c"]);
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("no golden case \"c\"") && stderr.contains("a, b"),
        "{stderr}"
    );
}

#[test]
fn a_failing_case_names_the_resources_that_differ_and_how_to_update_it() {
    let chart = chart();
    let dir = case(chart.path(), "ns", "--namespace web\n");
    golden(chart.path(), &["--update"]);
    std::fs::write(dir.join("args"), "--namespace shop\n").unwrap();
    let (code, stdout, _) = golden(chart.path(), &[]);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains("resources that differ:\n  ConfigMap web/web (no longer rendered)\n  ConfigMap shop/web (new)\n"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("Service web"),
        "the Service did not change:\n{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "to accept this output: meshchart golden {} --cases {}/golden --update --case ns",
            chart.path().display(),
            chart.path().display()
        )),
        "{stdout}"
    );
}

#[test]
fn args_are_split_as_a_shell_splits_them() {
    let chart = chart();
    let dir = case(
        chart.path(),
        "quoted",
        "# a comment\n--set 'greeting=hello there' --namespace \"a b\"\n",
    );
    let (code, stdout, stderr) = golden(chart.path(), &["--update"]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let expected = std::fs::read_to_string(dir.join("expected.yaml")).unwrap();
    assert!(expected.contains("greeting: \"hello there\""), "{expected}");
    assert!(expected.contains("namespace: a b"), "{expected}");
}

#[test]
fn a_case_can_name_the_chart_it_renders_as_render_takes_it() {
    let chart = chart();
    let other = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(other.path().join("templates")).unwrap();
    std::fs::write(
        other.path().join("Chart.yaml"),
        "apiVersion: v2\nname: other\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(
        other.path().join("templates/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n",
    )
    .unwrap();
    let dir = case(
        chart.path(),
        "other",
        &format!("{} --namespace x\n", other.path().display()),
    );
    let (code, stdout, stderr) = golden(chart.path(), &["--update"]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let expected = std::fs::read_to_string(dir.join("expected.yaml")).unwrap();
    assert!(
        expected.contains("# Source: other/templates/cm.yaml"),
        "{expected}"
    );
}

#[test]
fn a_failing_case_shows_secret_data_masked_as_diff_does() {
    let chart = chart();
    std::fs::write(
        chart.path().join("templates/secret.yaml"),
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: web\ndata:\n  token: {{ Values.token | b64enc }}\n",
    )
    .unwrap();
    case(chart.path(), "secret", "--set token=first-secret-value\n");
    golden(chart.path(), &["--update"]);
    std::fs::write(
        chart.path().join("golden/secret/args"),
        "--set token=second-secret-value\n",
    )
    .unwrap();
    let (code, stdout, stderr) = golden(chart.path(), &[]);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert!(stdout.contains("token: <masked sha256:"), "{stdout}");
    for secret in ["first-secret-value", "second-secret-value"] {
        let encoded = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, secret);
        assert!(!stdout.contains(&encoded), "{secret} is printed:\n{stdout}");
    }
}
