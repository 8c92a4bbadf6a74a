//! The `all-functions` fixture chart: a small web application whose templates call every function
//! of the library. Its render is compared with `golden/default/expected.yaml` (the exact stream
//! `meshchart render` prints); `UPDATE_GOLDEN=1 cargo test --test integration fixture_all_functions` rewrites
//! the golden file. A second test keeps the chart honest: it must call every library function.

use crate::support::RenderDocuments as _;
use camino::Utf8PathBuf;
use meshchart::chart::Chart;
use meshchart::engine::{functions, Engine, RenderOptions};
use regex::Regex;

fn fixture() -> Utf8PathBuf {
    Utf8PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/all-functions")
}

fn render_case(case: &str) -> String {
    let chart = Chart::from_dir(&fixture()).expect("the fixture chart loads");
    let args_path = fixture().join("golden").join(case).join("args");
    let args = std::fs::read_to_string(&args_path).unwrap_or_default();
    // The shared golden runner will pass these to `meshchart render`; here only the default
    // values are supported, so a case with arguments belongs to that runner.
    assert!(
        args.trim().is_empty(),
        "{args_path}: arguments need the golden runner; this test renders default values only"
    );
    let values = chart.default_values().expect("values.yaml parses");
    let engine = Engine::new(&chart).unwrap_or_else(|e| panic!("{e}"));
    engine
        .render_documents(&values, &RenderOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .to_stream()
}

#[test]
fn all_functions_fixture_matches_its_golden_output() {
    let actual = render_case("default");
    let golden = fixture().join("golden/default/expected.yaml");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&golden)
        .unwrap_or_else(|e| panic!("{golden}: {e} (UPDATE_GOLDEN=1 writes it)"));
    if actual != expected {
        let diff = similar::TextDiff::from_lines(&expected, &actual)
            .unified_diff()
            .header("expected.yaml", "rendered")
            .to_string();
        panic!("the render differs from {golden} (UPDATE_GOLDEN=1 to accept):\n{diff}");
    }
}

#[test]
fn all_functions_fixture_calls_every_library_function() {
    let mut text = String::new();
    for entry in std::fs::read_dir(fixture().join("templates")).unwrap() {
        text.push_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap());
    }
    let mut names = functions::function_names();
    names.extend(["include", "tpl", "lookup"]);
    let missing: Vec<&str> = names
        .into_iter()
        .filter(|name| {
            // Called as a function, `name(`, or as a filter, `| name`.
            let pattern = format!(r"\b{name}\(|\|\s*{name}\b");
            !Regex::new(&pattern).unwrap().is_match(&text)
        })
        .collect();
    assert!(
        missing.is_empty(),
        "the all-functions fixture no longer calls: {}",
        missing.join(", ")
    );
}
