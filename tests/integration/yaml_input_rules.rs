//! Inputs are read as kubectl reads them, and what we write reads back unchanged: flow-style
//! documents that start with `{`, `%YAML`/`%TAG` directives, keys given twice, over-long keys,
//! and the line-break characters U+0085, U+2028 and U+2029 (issue 11).

use crate::support;

use meshchart::values::Value;
use meshchart::yaml::parse_documents;
use std::process::Output;
use support::cli::{assert_refused, legacy_command, run_with_stdin, scratch_dir};

const VALUES: &str = "tests/golden/inject/values.yaml";

fn meshchart(args: &[&str], stdin: &str) -> Output {
    run_with_stdin(&mut legacy_command(args), stdin)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn inject(input: &str) -> Output {
    meshchart(&["inject", "-", "-f", VALUES], input)
}

fn assert_injected(out: &Output) -> Vec<Value> {
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr),
        "deployment \"web\" injected\n1 injected, 0 skipped, 0 warnings\n"
    );
    let docs = parse_documents(&text(&out.stdout)).expect("our output is YAML");
    let containers = docs[0]
        .get_path(&["spec", "template", "spec", "containers"])
        .and_then(|c| match c {
            Value::Seq(items) => Some(items.len()),
            _ => None,
        });
    assert_eq!(containers, Some(2), "{}", text(&out.stdout));
    docs
}

const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: web:v1
";

/// The path of a scratch file holding `content`.
fn scratch_file(test: &str, name: &str, content: &str) -> String {
    let path = scratch_dir(test).join(name);
    std::fs::write(&path, content).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn inject_reads_a_document_starting_with_a_brace_as_flow_style_yaml() {
    let input = "{apiVersion: apps/v1, kind: Deployment, metadata: {name: web},
  spec: {selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}},
  spec: {containers: [{name: web, image: 'web:v1'}]}}}}\n";
    let out = inject(input);
    assert_injected(&out);
    assert!(
        !text(&out.stdout).trim_start().starts_with('{'),
        "flow-style YAML in, block YAML out"
    );
}

#[test]
fn inject_still_reads_json_as_json() {
    let input = r#"{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
 "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {"metadata":
 {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "web:v1"}]}}}}"#;
    let out = inject(input);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).starts_with("{\n"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn inject_reports_malformed_json_as_json() {
    let out = inject("{\"kind\": \"Deployment\",\n  \"metadata\": {\"name\": \"web\"}\n");
    assert_refused(
        &out,
        1,
        &["<stdin>:3:0: invalid JSON: EOF while parsing an object"],
    );
}

#[test]
fn inject_accepts_a_yaml_1_1_directive() {
    assert_injected(&inject(&format!("%YAML 1.1\n---\n{DEPLOYMENT}")));
}

#[test]
fn inject_accepts_tag_directives_and_directives_of_later_documents() {
    let input = format!(
        "%TAG !k8s! tag:kubernetes.io,2024:\n# a comment\n--- !k8s!Deployment\n{DEPLOYMENT}...\n\
         %YAML 1.1\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
    );
    let out = inject(&input);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let docs = parse_documents(&text(&out.stdout)).unwrap();
    assert_eq!(docs.len(), 2, "{}", text(&out.stdout));
    assert_eq!(docs[1].get_path(&["kind"]), Some(&Value::from("ConfigMap")));
}

#[test]
fn values_files_accept_directives_and_flow_style() {
    let file = scratch_file(
        "values-directives",
        "v.yaml",
        "%YAML 1.1\n%TAG !e! tag:example.com,2000:\n---\n{proxy: {logLevel: debug}}\n",
    );
    let out = meshchart(&["values", "-f", &file], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("  logLevel: debug\n"));
}

/// Helm 3.17.1 (`helm template` with `-f` such a file) reads only the first document of a
/// values file and ignores the rest without a word, even a later one that is not valid YAML:
/// we read the same values, and say so.
#[test]
fn documents_after_the_first_of_a_values_file_are_ignored_as_helm_does_with_a_warning_naming_the_line(
) {
    let file = scratch_file(
        "values-documents",
        "v.yaml",
        "proxy:\n  logLevel: debug\n---\nproxy:\n  logLevel: [\n",
    );
    for command in [&["values"][..], &["render"][..], &["lint"][..]] {
        let args: Vec<&str> = command.iter().copied().chain(["-f", &file]).collect();
        let out = meshchart(&args, "");
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        let said = format!("{}{}", text(&out.stderr), text(&out.stdout));
        assert!(
            said.contains(&format!(
                "values file {file}, line 3: a second YAML document"
            )),
            "{args:?}: {said}"
        );
    }
    let values = meshchart(&["values", "-f", &file], "");
    assert!(text(&values.stdout).contains("  logLevel: debug\n"));
}

#[test]
fn a_key_given_twice_in_a_values_file_is_an_error_naming_both_lines() {
    let file = scratch_file(
        "values-twice",
        "v.yaml",
        "proxy:\n  logLevel: info\n  logFormat: plain\n  logLevel: debug\n",
    );
    let out = meshchart(&["values", "-f", &file], "");
    assert_refused(
        &out,
        1,
        &[
            "v.yaml, line 4",
            "\"logLevel\" is given twice",
            "on line 2 and on line 4",
        ],
    );
}

#[test]
fn a_key_given_twice_in_an_inject_input_is_an_error_naming_both_lines_of_the_file() {
    let input = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n---\n{DEPLOYMENT}        image: web:v2\n"
    );
    let out = inject(&input);
    assert_refused(
        &out,
        1,
        &[
            "<stdin>:22:",
            "\"image\" is given twice",
            "on line 21 and on line 22",
        ],
    );
}

#[test]
fn a_key_given_twice_in_a_json_inject_input_is_an_error_naming_both_lines() {
    let input =
        "{\"kind\": \"Deployment\",\n \"metadata\": {\"name\": \"a\"},\n \"kind\": \"Pod\"}\n";
    let out = inject(input);
    assert_refused(
        &out,
        1,
        &[
            "<stdin>:3:",
            "\"kind\" is given twice",
            "on line 1 and on line 3",
        ],
    );
}

#[test]
fn merge_keys_may_repeat_and_explicit_keys_override_them() {
    let file = scratch_file(
        "values-merge",
        "v.yaml",
        "base: &b {a: 1}\nmore: &m {c: 3}\nproxy:\n  <<: *b\n  <<: *m\n  a: 2\n",
    );
    let out = meshchart(&["values", "-f", &file], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn an_implicit_key_over_1024_characters_is_an_error_naming_the_key_and_its_line() {
    // YAML (and so kubectl and Helm) limit `key: value` keys to 1024 characters.
    let key = format!("longkey{}", "k".repeat(1100));
    let file = scratch_file(
        "values-long-key",
        "v.yaml",
        &format!("extra:\n  {key}: v\n"),
    );
    let out = meshchart(&["values", "-f", &file], "");
    assert_refused(
        &out,
        1,
        &[
            "v.yaml, line 2, column 3: the key longkeykkk",
            "1107 characters long",
            "`? key`",
        ],
    );
}

#[test]
fn a_key_over_1024_characters_in_explicit_form_is_read_and_written_back_the_same() {
    let key = "k".repeat(1100);
    let file = scratch_file(
        "values-explicit-long-key",
        "v.yaml",
        &format!("extra:\n  ? {key}\n  : v\n"),
    );
    let out = meshchart(&["values", "-f", &file], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let printed = text(&out.stdout);
    assert!(
        printed.contains(&format!("  ? {key}\n  : v\n")),
        "{printed}"
    );
    let again = scratch_file("values-explicit-long-key-again", "v.yaml", &printed);
    let out = meshchart(&["values", "-f", &again], "");
    assert_eq!(
        parse_documents(&text(&out.stdout)).unwrap()[0].get_path(&["extra"]),
        parse_documents(&printed).unwrap()[0].get_path(&["extra"])
    );
}

#[test]
fn a_nel_in_an_env_value_survives_inject_and_uninject() {
    let input = DEPLOYMENT.replace(
        "image: web:v1\n",
        "image: web:v1\n        env:\n        - name: A\n          value: \"a\\Nb\\Lc\\Pd\"\n",
    );
    let out = inject(&input);
    let injected = assert_injected(&out);
    let value = |docs: &[Value]| match docs[0].get_path(&["spec", "template", "spec", "containers"])
    {
        Some(Value::Seq(containers)) => containers
            .iter()
            .find(|c| c.get_path(&["name"]) == Some(&Value::from("web")))
            .and_then(|c| match c.get_path(&["env"]) {
                Some(Value::Seq(env)) => env.first()?.get_path(&["value"]).cloned(),
                _ => None,
            }),
        _ => None,
    };
    assert_eq!(
        value(&injected),
        Some(Value::from("a\u{85}b\u{2028}c\u{2029}d"))
    );
    let back = meshchart(&["uninject", "-"], &text(&out.stdout));
    assert!(back.status.success(), "{}", text(&back.stderr));
    assert_eq!(
        parse_documents(&text(&back.stdout)).unwrap(),
        parse_documents(&input).unwrap()
    );
}

#[test]
fn values_output_with_line_separators_reads_back_unchanged_round_after_round() {
    let file = scratch_file(
        "values-separators",
        "v.yaml",
        "extra:\n  note: \"one\\Ltwo\\Pthree\\nfour\\n\"\n",
    );
    let note = |output: &str| {
        let docs = parse_documents(output).expect("values output is YAML");
        docs[0].get_path(&["extra", "note"]).cloned()
    };
    let expected = Some(Value::from("one\u{2028}two\u{2029}three\nfour\n"));
    let mut current = text(&meshchart(&["values", "-f", &file], "").stdout);
    for round in 0..3 {
        assert_eq!(note(&current), expected, "round {round}:\n{current}");
        let again = scratch_file(&format!("values-separators-{round}"), "v.yaml", &current);
        current = text(&meshchart(&["values", "-f", &again], "").stdout);
    }
}

#[test]
fn explicit_tags_read_as_go_yaml_v2_reads_them_quoted_or_not() {
    let doc = |text: &str| meshchart::yaml::parse_document(text);
    let cases = [
        ("a: !!int \"3\"", Value::Int(3)),
        ("a: !!int 3", Value::Int(3)),
        ("a: !!float \"1\"", Value::Float(1.0)),
        ("a: !!bool \"yes\"", Value::Bool(true)),
        ("a: !!str 4", Value::from("4")),
        ("a: !!binary aGVsbG8=", Value::from("hello")),
        ("a: !!binary |\n  aGVs\n  bG8=", Value::from("hello")),
        ("a: !<tag:yaml.org,2002:int> \"7\"", Value::Int(7)),
        // go-yaml v2 resolves only core types: anything else keeps its text.
        ("a: !local 5", Value::from("5")),
        ("a: !!null \"x\"", Value::from("x")),
        // A timestamp stays its text, as go-yaml v2 decodes one into a generic value.
        ("a: !!timestamp 2001-12-14", Value::from("2001-12-14")),
        (
            "a: !!timestamp \"2001-12-14t21:59:43.10-05:00\"",
            Value::from("2001-12-14t21:59:43.10-05:00"),
        ),
        (
            "a: !!timestamp 2001-12-14 21:59:43,5",
            Value::from("2001-12-14 21:59:43,5"),
        ),
        // A number too large for a float stays the string it is written as.
        ("a: 1E400", Value::from("1E400")),
    ];
    for (text, expected) in cases {
        assert_eq!(
            doc(text).unwrap().get_path(&["a"]),
            Some(&expected),
            "{text}"
        );
    }
    for (text, message) in [
        ("a: !!int \"abc\"", "cannot decode !!str `abc` as a !!int"),
        ("a: !!bool 1", "cannot decode !!int `1` as a !!bool"),
        (
            "a: !!timestamp abc",
            "cannot decode !!str `abc` as a !!timestamp",
        ),
        (
            "a: !!timestamp 12",
            "cannot decode !!int `12` as a !!timestamp",
        ),
        (
            "a: !!timestamp 2001-02-29",
            "cannot decode !!str `2001-02-29` as a !!timestamp",
        ),
        // With `T` a zone must follow.
        (
            "a: !!timestamp 2001-12-14T21:59:43",
            "cannot decode !!str `2001-12-14T21:59:43` as a !!timestamp",
        ),
        (
            "a: !!binary \"not base64!\"",
            "!!binary value contains invalid base64 data",
        ),
    ] {
        let e = doc(text).unwrap_err();
        assert!(e.message.contains(message), "{text}: {e}");
    }
}

#[test]
fn json_with_a_number_too_large_for_a_float_stays_json_the_number_a_string() {
    let deployment = "{\"apiVersion\": \"apps/v1\", \"kind\": \"Deployment\", \"metadata\": \
        {\"name\": \"web\", \"annotations\": {\"n\": 1E400}}, \"spec\": {\"selector\": \
        {\"matchLabels\": {\"app\": \"web\"}}, \"template\": {\"metadata\": {\"labels\": \
        {\"app\": \"web\"}}, \"spec\": {\"containers\": [{\"name\": \"web\", \"image\": \
        \"nginx\"}]}}}}\n";
    let config_map = "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \
        \"c\"}, \"data\": {\"big\": 1E400}}\n";
    let out = meshchart(
        &["inject", "-", "-f", VALUES],
        &format!("{config_map}{deployment}"),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with(config_map),
        "untouched, byte for byte: {stdout}"
    );
    let injected = &stdout[config_map.len()..];
    let parsed: serde_json::Value = serde_json::from_str(injected).expect("the output is JSON");
    assert_eq!(parsed["metadata"]["annotations"]["n"], "1E400");
    assert!(injected.contains("linkerd-proxy"));
}
