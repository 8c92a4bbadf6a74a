//! `meshchart functions`: the list a chart author reads to know what templates can call.

use crate::support;

use support::cli::meshchart;

fn listing() -> String {
    let out = meshchart(&["functions"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn functions_lists_every_library_function_with_its_arguments() {
    let text = listing();
    for name in meshchart::engine::functions::function_names() {
        assert!(
            text.lines()
                .any(|l| l.trim_start().starts_with(&format!("{name}("))),
            "{name} is not listed:\n{text}"
        );
    }
    assert!(text.contains("  substr(start, end, text)"), "{text}");
    assert!(text.contains("  include(name, ctx)"), "{text}");
}

#[test]
fn functions_says_why_each_refused_function_is_refused() {
    let text = listing();
    let refused = text
        .split("Refused on purpose")
        .nth(1)
        .expect("a section of refused functions");
    for name in [
        "now",
        "randAlphaNum",
        "lookup",
        "env",
        "expandenv",
        "genPrivateKey",
        "uuidv4",
    ] {
        let line = refused
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("{name} is not among the refused:\n{text}"));
        assert!(
            line.split_whitespace().count() > 3,
            "{name} has no reason: {line}"
        );
    }
}

#[test]
fn a_function_helm_has_and_meshchart_lacks_fails_with_what_to_do_instead() {
    let dir = tempfile::tempdir().unwrap();
    let chart = dir.path();
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: toml\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(
        chart.join("templates/cm.yaml"),
        "{{ fromToml(\"a = 1\") }}\n",
    )
    .unwrap();
    let out = meshchart(&["render", "--chart", chart.to_str().unwrap()]);
    support::cli::assert_refused(
        &out,
        1,
        &["`fromToml` is not supported by meshchart", "fromYaml"],
    );
}
