//! Every case of Helm 3.17.1's recorded values corpus (`tests/reference/helm-corpus/values`):
//! the same files and flags through `effective_values`, compared with Helm's merged `.Values`,
//! its errors and its coalesce warnings. All failures are collected and reported together.
//!
//! Run with `--nocapture` to see each error case's message next to Helm's.

use std::path::{Path, PathBuf};

use meshchart::values::{effective_values, Value, ValueOverrides};
use serde_json::Value as Json;

/// Where we differ from Helm on purpose. For these cases Helm's expectation is patched at
/// `ours` (dotted key paths, our value as JSON) and the result must then match exactly, so our
/// side of the difference is pinned too.
struct Deliberate {
    case: &'static str,
    reason: &'static str,
    /// Key paths whose value differs from Helm's, with ours (JSON).
    ours: &'static [(&'static str, &'static str)],
    /// Where Helm succeeds and we refuse: what our error says.
    refused: Option<&'static str>,
    /// A warning of ours where Helm says nothing (it is not counted against Helm's).
    warns: Option<&'static str>,
}

/// Helm keeps the last of a key given twice in a values file; we refuse it, naming both lines.
const KEY_GIVEN_TWICE: &str = "a key given twice in a values file is an error naming both \
                               lines, as kubectl refuses such manifests; Helm silently keeps \
                               the last, which hides typos and merge accidents (issue 11)";

const DELIBERATE_DIFFERENCES: &[Deliberate] = &[
    Deliberate {
        case: "f-numbers",
        reason: "integers in values files stay exact 64-bit integers; Helm turns every number \
                 into a float64, so 9007199254740993 (2^53 + 1) comes out as 9007199254740992",
        ours: &[("precise", "9007199254740993")],
        refused: None,
        warns: None,
    },
    Deliberate {
        case: "f-duplicate-key-last-wins",
        reason: KEY_GIVEN_TWICE,
        ours: &[],
        refused: Some("the key \"a\" is given twice in one map: on line 1 and on line 2"),
        warns: None,
    },
    Deliberate {
        case: "yaml11-bool-keys-colliding",
        reason: KEY_GIVEN_TWICE,
        ours: &[],
        refused: Some("the key \"true\" is given twice in one map: on line 2 and on line 3"),
        warns: None,
    },
    Deliberate {
        case: "yaml11-bool-keys-colliding-mixed",
        reason: KEY_GIVEN_TWICE,
        ours: &[],
        refused: Some("the key \"true\" is given twice in one map: on line 2 and on line 3"),
        warns: None,
    },
    Deliberate {
        case: "f-multi-document-file",
        reason: "Helm reads only the first document of a values file and ignores the rest \
                 without a word; we read the same values and warn, naming the file and line",
        ours: &[],
        refused: None,
        warns: Some("values file a.yaml, line 2: a second YAML document starts here"),
    },
];

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/helm-corpus/values")
}

/// Turns `helm template CHART <args>` arguments into overrides.
fn overrides(args: &[String]) -> Result<ValueOverrides, String> {
    let mut o = ValueOverrides::default();
    let mut i = 0;
    while i < args.len() {
        let (flag, inline) = match args[i].split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(value.to_owned())),
            _ => (args[i].as_str(), None),
        };
        let value = match inline {
            Some(v) => v,
            None => {
                i += 1;
                args.get(i)
                    .cloned()
                    .ok_or_else(|| format!("{flag} has no value"))?
            }
        };
        match flag {
            "-f" | "--values" => o.files.push(value),
            "--set" => o.set.push(value),
            "--set-string" => o.set_string.push(value),
            "--set-file" => o.set_file.push(value),
            "--set-json" => o.set_json.push(value),
            "--set-literal" => o.set_literal.push(value),
            other => return Err(format!("unsupported argument {other:?}")),
        }
        i += 1;
    }
    Ok(o)
}

/// Compares our value with Helm's JSON; numbers compare by value (Helm's float64 `1` equals our
/// `Int(1)`), but two integers must be exactly equal.
fn compare(ours: &Value, helm: &Json, path: &str, diffs: &mut Vec<String>) {
    let same = match (ours, helm) {
        (Value::Null, Json::Null) => true,
        (Value::Bool(a), Json::Bool(b)) => a == b,
        (Value::String(a), Json::String(b)) => a == b,
        (Value::Int(a), Json::Number(n)) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(b), _, _) => i128::from(*a) == i128::from(b),
            (None, Some(b), _) => i128::from(*a) == i128::from(b),
            (None, None, Some(b)) => *a as f64 == b,
            _ => false,
        },
        (Value::Float(a), Json::Number(n)) => n.as_f64() == Some(*a),
        (Value::Seq(a), Json::Array(b)) => {
            if a.len() != b.len() {
                diffs.push(format!(
                    "{path}: list of {} items, Helm has {}",
                    a.len(),
                    b.len()
                ));
                return;
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                compare(x, y, &format!("{path}[{i}]"), diffs);
            }
            return;
        }
        (Value::Map(a), Json::Object(b)) => {
            for key in a.keys().filter(|k| !b.contains_key(*k)) {
                diffs.push(format!("{path}.{key}: we have it, Helm does not"));
            }
            for (key, y) in b {
                match a.get(key) {
                    Some(x) => compare(x, y, &format!("{path}.{key}"), diffs),
                    None => diffs.push(format!("{path}.{key}: Helm has it, we do not")),
                }
            }
            return;
        }
        _ => false,
    };
    if !same {
        diffs.push(format!("{path}: ours {ours:?}, Helm {helm}"));
    }
}

/// Replaces the value at a dotted key path.
fn patch(json: &mut Json, path: &str, value: Json) {
    let mut at = json;
    for key in path.split('.') {
        at = at
            .get_mut(key)
            .unwrap_or_else(|| panic!("DELIBERATE_DIFFERENCES: no {path} in Helm's expect"));
    }
    *at = value;
}

/// The key path a Helm coalesce warning names: `... for demo.nested.a (...)` gives `nested.a`.
fn warning_path(helm: &str) -> Option<&str> {
    let rest = &helm[helm.find(" for demo.")? + " for demo.".len()..];
    let end = rest.find([':', ' ']).unwrap_or(rest.len());
    Some(&rest[..end])
}

/// Names an error message must mention because Helm's does: a file, a key, an index.
fn must_mention(helm: &str, args: &[String]) -> Vec<String> {
    let mut names = Vec::new();
    for marker in ["failed to parse ", "open "] {
        if let Some(at) = helm.find(marker) {
            let rest = &helm[at + marker.len()..];
            if let Some(end) = rest.find(':') {
                names.push(rest[..end].to_owned());
            }
        }
    }
    for marker in ["key \"", "key map \"", "parsing \""] {
        if let Some(at) = helm.find(marker) {
            let rest = &helm[at + marker.len()..];
            if let Some(end) = rest.find('"') {
                names.push(rest[..end].to_owned());
            }
        }
    }
    for marker in ["index of ", "negative "] {
        if let Some(at) = helm.find(marker) {
            let rest = &helm[at + marker.len()..];
            let end = rest.find(' ').unwrap_or(rest.len());
            names.push(rest[..end].to_owned());
        }
    }
    if helm.contains("failed parsing --set") {
        // Our message must quote the expression (all these cases have exactly one).
        if let Some(expr) = args.iter().rev().find(|a| !a.starts_with('-')) {
            names.push(expr.clone());
        }
    }
    names
}

/// A directory of its own for one case, removed afterwards.
struct CaseDir(PathBuf);

impl CaseDir {
    fn new(index: usize) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "meshchart-helm-corpus-values-{}-{index}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create a temp dir");
        CaseDir(dir)
    }
}

impl Drop for CaseDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs one case; returns what went wrong.
fn run_case(index: usize, case: &Json, defaults: &Value) -> Vec<String> {
    let name = case["name"].as_str().unwrap_or("?");
    let args: Vec<String> = case["args"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let dir = CaseDir::new(index);
    if let Some(files) = case["files"].as_object() {
        for (file, content) in files {
            std::fs::write(dir.0.join(file), content.as_str().unwrap_or_default())
                .expect("write a case file");
        }
    }
    let o = match overrides(&args) {
        Ok(o) => o,
        Err(e) => return vec![e],
    };
    // The case's files are named relative to the working directory, as for Helm. This is the
    // only test in this binary, so changing the directory races with nothing.
    std::env::set_current_dir(&dir.0).expect("enter the case dir");
    let result = effective_values(defaults, &o, &mut std::io::empty());
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).expect("leave the case dir");

    let mut problems = Vec::new();
    if let Some(helm_error) = case.get("error").and_then(Json::as_str) {
        match result {
            Ok((v, _)) => problems.push(format!(
                "Helm fails ({helm_error}) but we succeed with {v:?}"
            )),
            Err(e) => {
                let ours = e.to_string();
                println!("{name}\n  helm: {helm_error}\n  ours: {ours}");
                for needed in must_mention(helm_error, &args) {
                    if !ours.contains(&needed) {
                        problems.push(format!(
                            "our error does not mention {needed:?}: {ours} (Helm: {helm_error})"
                        ));
                    }
                }
            }
        }
        return problems;
    }

    let deliberate = DELIBERATE_DIFFERENCES.iter().find(|d| d.case == name);
    if let Some(refused) = deliberate.and_then(|d| d.refused) {
        return match result {
            Err(e) if e.to_string().contains(refused) => Vec::new(),
            Err(e) => vec![format!("we fail, but not with {refused:?}: {e}")],
            Ok((v, _)) => vec![format!("we should refuse ({refused}) but got {v:?}")],
        };
    }
    let (values, warnings) = match result {
        Ok(ok) => ok,
        Err(e) => return vec![format!("we fail: {e}")],
    };
    let mut expect = case["expect"].clone();
    if let Some(d) = deliberate {
        for (path, ours) in d.ours {
            let ours: Json = serde_json::from_str(ours).expect("DELIBERATE_DIFFERENCES JSON");
            patch(&mut expect, path, ours);
        }
    }
    compare(&values, &expect, "", &mut problems);
    let mut warnings = warnings;
    if let Some(ours) = deliberate.and_then(|d| d.warns) {
        let before = warnings.len();
        warnings.retain(|w| !w.contains(ours));
        if warnings.len() == before {
            problems.push(format!("no warning of ours says {ours:?}: {warnings:?}"));
        }
    }

    let helm_warnings: Vec<&str> = case
        .get("warnings")
        .and_then(Json::as_array)
        .map(|w| w.iter().filter_map(Json::as_str).collect())
        .unwrap_or_default();
    if helm_warnings.len() != warnings.len() {
        problems.push(format!(
            "warnings: Helm {helm_warnings:?}, ours {warnings:?}"
        ));
    }
    for helm in &helm_warnings {
        let Some(path) = warning_path(helm) else {
            problems.push(format!(
                "cannot find the key path in Helm's warning {helm:?}"
            ));
            continue;
        };
        if !warnings.iter().any(|w| w.contains(&format!("\"{path}\""))) {
            problems.push(format!(
                "no warning of ours names \"{path}\" (Helm: {helm}; ours: {warnings:?})"
            ));
        }
    }
    problems
}

#[test]
fn every_helm_values_case_matches() {
    let dir = corpus_dir();
    let cases_text = std::fs::read_to_string(dir.join("cases.json"))
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.join("cases.json").display()));
    let cases: Vec<Json> = serde_json::from_str(&cases_text).expect("cases.json is JSON");
    let defaults_text =
        std::fs::read_to_string(dir.join("chart-values.yaml")).expect("chart-values.yaml");
    let defaults = meshchart::yaml::parse_document(&defaults_text).expect("chart defaults parse");
    assert_eq!(cases.len(), 188, "the corpus changed size");

    for d in DELIBERATE_DIFFERENCES {
        assert!(
            cases.iter().any(|c| c["name"] == d.case),
            "DELIBERATE_DIFFERENCES names an unknown case {}",
            d.case
        );
        assert!(!d.reason.is_empty());
    }

    let mut failures = Vec::new();
    for (index, case) in cases.iter().enumerate() {
        let problems = run_case(index, case, &defaults);
        if !problems.is_empty() {
            let name = case["name"].as_str().unwrap_or("?");
            failures.push(format!("{name}:\n    {}", problems.join("\n    ")));
        }
    }
    println!(
        "{} of {} Helm values cases match ({} with a deliberate difference: {})",
        cases.len() - failures.len(),
        cases.len(),
        DELIBERATE_DIFFERENCES.len(),
        DELIBERATE_DIFFERENCES
            .iter()
            .map(|d| d.case)
            .collect::<Vec<_>>()
            .join(", ")
    );
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from Helm:\n  {}",
        failures.len(),
        cases.len(),
        failures.join("\n  ")
    );
}
