//! The `meshchart diff` golden cases under `tests/golden/diff/` (its README gives the layout).
//! `UPDATE_GOLDEN=1 cargo test --test integration diff_golden` rewrites the expectations that differ.

use camino::{Utf8Path, Utf8PathBuf};
use std::process::Command;

fn cases_dir() -> Utf8PathBuf {
    Utf8PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/diff")
}

/// The arguments of a case, split as every golden case's `args` are (as a shell splits them,
/// `#` comments skipped: see `meshchart::golden::args_file_arguments`).
fn case_args(case: &Utf8Path) -> Vec<String> {
    let text =
        std::fs::read_to_string(case.join("args")).unwrap_or_else(|e| panic!("{case}/args: {e}"));
    meshchart::golden::args_file_arguments(&text).unwrap_or_else(|e| panic!("{case}/args: {e}"))
}

/// Compares `actual` with the case's file `name`, or rewrites it when asked; a difference
/// is returned as a message.
fn expect(case: &Utf8Path, name: &str, actual: &str, update: bool) -> Option<String> {
    let path = case.join(name);
    let expected = std::fs::read_to_string(&path).ok();
    if expected.as_deref() == Some(actual) {
        return None;
    }
    if update {
        std::fs::write(&path, actual).unwrap_or_else(|e| panic!("{path}: {e}"));
        eprintln!("updated {path}");
        return None;
    }
    let Some(expected) = expected else {
        return Some(format!("{path} is missing"));
    };
    let diff = similar::TextDiff::from_lines(expected.as_str(), actual)
        .unified_diff()
        .header(path.as_str(), "actual")
        .to_string();
    Some(format!("{path} differs:\n{diff}"))
}

#[test]
fn diff_golden_cases_match() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1");
    let mut cases: Vec<Utf8PathBuf> = cases_dir()
        .read_dir_utf8()
        .expect("tests/golden/diff")
        .map(|entry| entry.expect("entry").path().to_owned())
        .filter(|path| path.join("args").is_file())
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no case under {}", cases_dir());
    let mut failures = Vec::new();
    for case in &cases {
        let out = Command::new(env!("CARGO_BIN_EXE_meshchart"))
            .arg("diff")
            .args(case_args(case))
            .current_dir(case)
            .env("SOURCE_DATE_EPOCH", "1700000000")
            .output()
            .expect("meshchart runs");
        let code = out
            .status
            .code()
            .map_or_else(|| "killed".to_owned(), |c| c.to_string());
        failures.extend(
            [
                ("expected-stdout.txt", String::from_utf8_lossy(&out.stdout)),
                ("expected-stderr.txt", String::from_utf8_lossy(&out.stderr)),
                ("expected-exit-code", format!("{code}\n").into()),
            ]
            .iter()
            .filter_map(|(name, actual)| expect(case, name, actual, update)),
        );
    }
    assert!(
        failures.is_empty(),
        "{}\n(if the change is intended: UPDATE_GOLDEN=1 cargo test --test integration diff_golden)",
        failures.join("\n")
    );
}

#[test]
fn every_diff_case_is_listed_in_the_readme() {
    let readme = std::fs::read_to_string(cases_dir().join("README.md")).expect("README.md");
    for entry in cases_dir().read_dir_utf8().expect("tests/golden/diff") {
        let path = entry.expect("entry").path().to_owned();
        if path.join("args").is_file() {
            let name = path.file_name().unwrap_or_default();
            assert!(
                readme.contains(&format!("`{name}`")),
                "tests/golden/diff/README.md has no line for case {name}"
            );
        }
    }
}
