//! Every golden case in the repository, through the same library code as `meshchart golden`.
//!
//! `UPDATE_GOLDEN=1 cargo test` rewrites the expected files in one run.

use crate::support;

use camino::{Utf8Path, Utf8PathBuf};
use meshchart::chart::Chart;
use meshchart::golden::{self, CaseOutcome};

fn repo() -> Utf8PathBuf {
    Utf8PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn check(chart: &Chart, cases: &Utf8Path) {
    let options = golden::GoldenOptions {
        update: golden::update_requested(),
        ..Default::default()
    };
    let reports = golden::run(
        chart,
        cases,
        &options,
        &meshchart::flags::CommandLineCaseArgs,
    )
    .unwrap();
    assert!(!reports.is_empty(), "no golden cases under {cases}");
    let failures: Vec<String> = reports
        .iter()
        .filter_map(|r| match &r.outcome {
            CaseOutcome::Failed(diff) => Some(format!("golden case {} differs:\n{diff}", r.name)),
            _ => None,
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{}\n(if the change is intended: UPDATE_GOLDEN=1 cargo test)",
        failures.join("\n")
    );
}

/// The release each template set is written from (one per embedded era of
/// `releases/releases.toml`), each with its control plane's cases in
/// `tests/golden/control-plane-<release>/`.
fn release_lines() -> Vec<&'static str> {
    meshchart::releases::template_set_releases()
}

#[test]
fn release_line_golden_cases_match() {
    for release in release_lines() {
        check(
            &meshchart::releases::embedded_line(release, "linkerd-control-plane").unwrap(),
            &repo().join(format!("tests/golden/control-plane-{release}")),
        );
    }
}

#[test]
fn every_golden_case_is_listed_in_its_readme() {
    let dirs = release_lines()
        .into_iter()
        .map(|release| format!("tests/golden/control-plane-{release}"));
    for dir in dirs {
        let dir = repo().join(dir);
        let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
        for case in golden::discover(&dir, &meshchart::flags::CommandLineCaseArgs).unwrap() {
            assert!(
                readme.contains(&format!("`{}`", case.name)),
                "{dir}/README.md has no line for case {}",
                case.name
            );
        }
    }
}

#[test]
fn fixture_charts_golden_cases_match() {
    let fixtures = repo().join("tests/fixtures");
    let mut checked = 0;
    for entry in fixtures.read_dir_utf8().unwrap() {
        let chart_dir = entry.unwrap().path().to_owned();
        let cases = chart_dir.join("golden");
        if cases.is_dir() {
            check(&Chart::from_dir(&chart_dir).unwrap(), &cases);
            checked += 1;
        }
    }
    assert!(checked > 0, "no fixture chart has golden cases");
}

/// Every file under `dir` with its bytes, in path order.
fn snapshot(dir: &std::path::Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files.push((path.clone(), Vec::new()));
                pending.push(path);
            } else {
                files.push((path.clone(), std::fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn a_golden_check_writes_nothing_not_even_key_files() {
    let cases = support::cli::scratch_dir("golden-check-writes-nothing");
    let case = cases.join("keys");
    std::fs::create_dir_all(case.join("certs")).unwrap();
    std::fs::write(case.join("args"), "--certs-dir\ncerts\n").unwrap();
    let cases_arg = cases.to_str().unwrap();
    let before = snapshot(&cases);
    let out = support::cli::meshchart(&["golden", "--cases", cases_arg]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("FAILED  keys"), "{stdout}");
    assert!(
        stdout.contains("holds no") && stdout.contains("a check writes nothing"),
        "{stdout}"
    );
    assert_eq!(
        snapshot(&cases),
        before,
        "the check changed the cases folder"
    );
    // --update creates the keys and the expectation; a check then passes, writing nothing.
    let out = support::cli::meshchart(&["golden", "--cases", cases_arg, "--update"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(case.join("certs").read_dir().unwrap().count() > 0);
    assert!(case.join("expected.yaml").is_file());
    let before = snapshot(&cases);
    let out = support::cli::meshchart(&["golden", "--cases", cases_arg]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(snapshot(&cases), before);
}
