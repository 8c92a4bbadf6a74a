//! `meshchart values` golden cases: each folder under tests/golden/values holds an `args` file
//! (one argument per line, `#` comments, run from the case folder) and `expected.yaml`, the
//! exact stdout. `UPDATE_GOLDEN=1 cargo test --test integration values_golden` rewrites the expectations.

use crate::support;

use camino::Utf8Path;
use meshchart::golden::{args_file_arguments, expectation_diff, update_requested};
use std::path::Path;
use support::cli::{command, run};

#[test]
fn values_golden_cases() {
    let cases_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/values");
    let update = update_requested();
    let mut cases: Vec<_> = std::fs::read_dir(&cases_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("args").is_file())
        .collect();
    cases.sort();
    assert!(
        cases.len() >= 3,
        "cases missing under {}",
        cases_dir.display()
    );
    let mut failures = Vec::new();
    for case in &cases {
        let args_text = std::fs::read_to_string(case.join("args")).unwrap();
        let out = run(command(&["values"])
            .args(args_file_arguments(&args_text).unwrap())
            .current_dir(case));
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let actual = String::from_utf8(out.stdout).unwrap();
        let expected_file = case.join("expected.yaml");
        let expected = std::fs::read_to_string(&expected_file).unwrap_or_default();
        if actual == expected {
            continue;
        }
        if update {
            std::fs::write(&expected_file, &actual).unwrap();
            println!("updated {name}");
        } else {
            let diff = expectation_diff(Utf8Path::new("expected.yaml"), &expected, &actual);
            failures.push(format!("{name}:\n{diff}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n(UPDATE_GOLDEN=1 rewrites them)",
        failures.join("\n")
    );
}

#[test]
fn explained_output_reads_back_as_the_plain_output() {
    let cases_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/values");
    let plain = std::fs::read_to_string(cases_dir.join("two-files-and-set/expected.yaml")).unwrap();
    let explained =
        std::fs::read_to_string(cases_dir.join("two-files-and-set-explain/expected.yaml")).unwrap();
    assert_eq!(
        meshchart::yaml::parse_document(&explained).unwrap(),
        meshchart::yaml::parse_document(&plain).unwrap()
    );
    let stripped: String = explained
        .lines()
        .map(|l| l.split("  # ").next().unwrap())
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(stripped, plain, "--explain only adds comments");
}
