//! The control-plane chart's values.schema.json: it declares every key of values/values.yaml
//! (and of the HA overlay), the defaults pass it, and it catches what it should.
//!
//! When values.yaml gains a key, `cargo run -- schema --chart . --write` adds it to the schema
//! with its type inferred from the default; refine it by hand there.

use crate::support;

use meshchart::chart::Chart;
use meshchart::lint::schema::{undeclared_keys, validate, SCHEMA_FILE};
use std::process::Output;
use support::cli::{legacy_command, run};

fn chart() -> Chart {
    meshchart::releases::embedded_line("edge-21.4.4", "linkerd-control-plane").unwrap()
}

fn schema(chart: &Chart) -> serde_json::Value {
    let file = chart
        .file(SCHEMA_FILE)
        .expect("the chart has a values.schema.json");
    serde_json::from_str(&file.text).unwrap()
}

/// The values the chart requires and cannot default (certificates, schedule), as flags.
/// The pinned certificate set, so lint renders the chart without generating anything.
fn required_values() -> Vec<String> {
    vec!["--certs-dir".into(), "tests/certs".into()]
}

/// Lints at the golden instant, when the pinned set's issuer is valid.
fn lint(extra: &[&str]) -> Output {
    run(legacy_command(&["lint"])
        .args(required_values())
        .args(extra)
        .env("SOURCE_DATE_EPOCH", "1700000000"))
}

#[test]
fn every_key_of_values_yaml_is_declared_in_the_schema() {
    let chart = chart();
    let missing = undeclared_keys(&schema(&chart), &chart.default_values().unwrap());
    assert!(
        missing.is_empty(),
        "values/values.yaml has keys values.schema.json lacks: {missing:?}\n\
         run `cargo run -- schema --chart . --write` and refine the new entries"
    );
}

#[test]
fn every_key_of_the_ha_overlay_is_declared_in_the_schema() {
    let chart = chart();
    let overlay = chart.overlay("values-ha.yaml").unwrap();
    let values = chart.parse_values_file(overlay).unwrap();
    let missing = undeclared_keys(&schema(&chart), &values);
    assert!(
        missing.is_empty(),
        "values-ha.yaml keys missing from the schema: {missing:?}"
    );
}

#[test]
fn the_default_values_pass_the_schema() {
    let chart = chart();
    let text = &chart.file(SCHEMA_FILE).unwrap().text;
    let violations = validate(text, &chart.default_values().unwrap()).unwrap();
    assert!(violations.is_empty(), "{violations:?}");
}

#[test]
fn the_schema_file_is_as_the_generator_writes_it() {
    // Hand edits stay, but the layout is serde_json's, so `schema --write` never reformats it.
    let (text, added) = meshchart::lint::schema::complete_schema(&chart()).unwrap();
    assert!(added.is_empty(), "{added:?}");
    assert_eq!(text, &*chart().file(SCHEMA_FILE).unwrap().text);
}

#[test]
fn the_control_plane_lints_clean_with_its_required_values() {
    let out = lint(&[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        !stdout.contains("[ERROR]") && !stdout.contains("[WARNING]"),
        "{stdout}"
    );
}

#[test]
fn the_ha_overlay_lints_clean() {
    let out = lint(&[
        "-f",
        "values/edge-21.4.4/linkerd-control-plane/values-ha.yaml",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
}

#[test]
fn the_schema_rejects_proxy_await_yes_naming_the_key_path() {
    let out = lint(&["--set-string", "proxy.await=yes"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("proxy.await: \"yes\" is not of type \"boolean\""),
        "{stdout}"
    );
}

#[test]
fn a_misspelt_proxy_key_is_caught_with_a_suggestion() {
    // The schema leaves `proxy` open (no additionalProperties: false): a warning, an error
    // under --strict.
    let out = lint(&["--set", "proxy.awiat=false"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("[WARNING] --set proxy.awiat=false: unknown key proxy.awiat")
            && stdout.contains("(did you mean proxy.await?)"),
        "{stdout}"
    );
    let out = lint(&["--strict", "--set", "proxy.awiat=false"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn the_default_inbound_policy_is_one_of_linkerds() {
    let out = lint(&["--set", "proxy.defaultInboundPolicy=allow-all"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("proxy.defaultInboundPolicy: \"allow-all\" is not one of"),
        "{stdout}"
    );
}

/// A chart author's chart whose schema is hand-written: `schema --write` adds what is missing.
fn hand_written(schema: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("templates")).unwrap();
    std::fs::write(
        dir.path().join("Chart.yaml"),
        "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("values.yaml"),
        "replicas: 1\nconfig:\n  mode: fast\nimage: nginx\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("values.schema.json"), schema).unwrap();
    dir
}

fn write_schema(dir: &std::path::Path) -> (String, String) {
    let out = support::cli::meshchart(&["schema", dir.to_str().unwrap(), "--write"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        std::fs::read_to_string(dir.join("values.schema.json")).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn schema_write_never_shadows_a_hand_written_additional_properties() {
    let written = "{\n  \"type\": \"object\",\n  \"properties\": {\n    \"replicas\": {\"type\": \"integer\"},\n    \"config\": {\"type\": \"object\", \"additionalProperties\": {\"type\": \"string\"}},\n    \"image\": {\"type\": \"string\"}\n  }\n}\n";
    let dir = hand_written(written);
    let (text, stderr) = write_schema(dir.path());
    assert_eq!(
        text, written,
        "nothing missing: the file is left as written"
    );
    assert!(stderr.contains("(0 key(s) added)"), "{stderr}");
}

#[test]
fn schema_write_adds_only_what_is_missing_in_the_files_key_order_and_counts_it() {
    let dir = hand_written(
        r#"{"title": "web", "properties": {"replicas": {"type": "integer", "minimum": 1}}, "type": "object"}"#,
    );
    let (text, stderr) = write_schema(dir.path());
    assert!(
        stderr.contains("(3 key(s) added)"),
        "config, config.mode, image: {stderr}"
    );
    let title = text.find("\"title\"").unwrap();
    let properties = text.find("\"properties\"").unwrap();
    let kind = text.rfind("\"type\": \"object\"\n}").unwrap();
    assert!(title < properties && properties < kind, "{text}");
    let replicas = text.find("\"replicas\"").unwrap();
    let image = text.find("\"image\"").unwrap();
    assert!(replicas < image, "hand-written keys first:\n{text}");
    assert!(text.contains("\"minimum\": 1"), "{text}");
}

#[test]
fn schema_write_counts_every_key_of_a_new_schema() {
    let dir = hand_written("{}");
    std::fs::remove_file(dir.path().join("values.schema.json")).unwrap();
    let (_, stderr) = write_schema(dir.path());
    assert!(
        stderr.contains("a new schema declaring the defaults' 4 key(s)"),
        "{stderr}"
    );
}
