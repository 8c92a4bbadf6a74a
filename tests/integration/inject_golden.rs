//! The inject/uninject golden cases under `tests/golden/inject/` (see `meshchart::golden::inject`
//! for the case layout). `UPDATE_GOLDEN=1 cargo test --test integration inject_golden` rewrites the
//! expectations that differ; review the diff before committing.

use camino::Utf8PathBuf;
use meshchart::golden::{update_requested, CaseOutcome};

#[test]
fn inject_golden_cases() {
    check_cases("tests/golden/inject", "edge-21.4.4");
}

#[test]
fn release_line_inject_golden_cases() {
    for line in ["edge-24.10.2", "edge-26.8.3"] {
        check_cases(&format!("tests/golden/inject-{line}"), line);
    }
}

/// Runs the cases under `folder` with `line`'s control-plane chart.
fn check_cases(folder: &str, line: &str) {
    let dir = Utf8PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(folder);
    let chart = meshchart::releases::embedded_line(line, "linkerd-control-plane")
        .unwrap_or_else(|e| panic!("cannot read the chart: {e}"));
    let reports = meshchart::golden::inject::run(
        &chart,
        &dir,
        update_requested(),
        &meshchart::flags::CommandLineCaseArgs,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(!reports.is_empty(), "no cases under {dir}");
    let mut failures = String::new();
    for report in &reports {
        match &report.outcome {
            CaseOutcome::Passed => {}
            CaseOutcome::Updated | CaseOutcome::Retyped(_) => {
                eprintln!("updated {}", report.name)
            }
            CaseOutcome::Failed(diff) | CaseOutcome::Refused(diff) => {
                failures.push_str(&format!("FAILED {}\n{diff}\n", report.name));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{failures}(UPDATE_GOLDEN=1 rewrites the expectations)"
    );
}

/// Every `uninject-<case>` case undoes `<case>`: its output, parsed, is `<case>`'s input.
#[test]
fn uninject_cases_restore_the_inject_inputs() {
    let dir = Utf8PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/inject");
    let parse = |path: &camino::Utf8Path| -> Vec<meshchart::values::Value> {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let source = meshchart::inject::Source {
            name: path.to_string(),
            text,
        };
        if source.is_json() {
            meshchart::inject::split_json(&source.name, &source.text)
                .unwrap_or_else(|e| panic!("{e}"))
                .into_iter()
                .map(|(_, v)| v)
                .filter(|v| !matches!(v, meshchart::values::Value::Null))
                .collect()
        } else {
            meshchart::yaml::parse_documents(&source.text).unwrap_or_else(|e| panic!("{path}: {e}"))
        }
    };
    let mut checked = 0;
    for entry in dir.read_dir_utf8().expect("cases folder") {
        let case = entry.expect("entry").path().to_owned();
        let Some(original) = case.file_name().and_then(|n| n.strip_prefix("uninject-")) else {
            continue;
        };
        // Upstream's partially injected fixture: its input is not what inject started from.
        if original == "already-injected" {
            continue;
        }
        let original_dir = dir.join(original);
        let input = ["input.yaml", "input.json"]
            .iter()
            .map(|f| original_dir.join(f))
            .find(|p| p.is_file())
            .unwrap_or_else(|| panic!("{original_dir} has no input file"));
        let output = case.join("expected.yaml");
        assert_eq!(
            parse(&output),
            parse(&input),
            "{output} is not {input} (uninject did not restore the input)"
        );
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} round-trip cases");
}
