//! The rest of Sprig: each case of `tests/helm_corpus/sprig_cases.json` is a Go template and our
//! Jinja translation of it; `tests/helm_corpus/sprig_helm.json` holds what Helm 3.17.1 rendered for
//! each Go template (recorded by `record_sprig_cases_with_real_helm` below, see
//! `tests/helm_corpus/README.md`). Our render of the translation must give Helm's text exactly;
//! where Helm fails, ours must fail too with a message containing the case's `error_contains`.
//! A case may instead carry `deliberate`: why we differ and what we render or say instead.
//!
//! Together with `helm_corpus_functions.rs` this is the function corpus: every function the
//! library registers has at least one recorded case (`every_library_function_has_a_recorded_case`).

use crate::support;

use meshchart::chart::{Chart, ChartFile};
use meshchart::engine::{Engine, RenderOptions};
use meshchart::values::Value;
use serde_json::Value as Json;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/helm_corpus")
}

fn read_json(name: &str) -> Json {
    let path = corpus_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

struct Case {
    fn_name: String,
    go: String,
    jinja: String,
    inputs: Json,
    /// Files of the chart besides its template (`.Files` reads them), by path.
    files: BTreeMap<String, String>,
    error_contains: Option<String>,
    deliberate: Option<Json>,
}

fn cases() -> Vec<Case> {
    let Json::Array(cases) = read_json("sprig_cases.json") else {
        panic!("sprig_cases.json is a list");
    };
    cases
        .into_iter()
        .map(|c| Case {
            fn_name: c["fn"].as_str().expect("fn").to_owned(),
            go: c["go"].as_str().expect("go").to_owned(),
            jinja: c["jinja"].as_str().expect("jinja").to_owned(),
            inputs: c
                .get("inputs")
                .cloned()
                .unwrap_or(Json::Object(Default::default())),
            files: c
                .get("files")
                .and_then(Json::as_object)
                .map(|files| {
                    files
                        .iter()
                        .map(|(k, v)| (k.clone(), v.as_str().expect("file text").to_owned()))
                        .collect()
                })
                .unwrap_or_default(),
            error_contains: c
                .get("error_contains")
                .and_then(Json::as_str)
                .map(str::to_owned),
            deliberate: c.get("deliberate").cloned(),
        })
        .collect()
}

/// The key a recording is found by: the Go template, its values and its files, exactly.
fn key(go: &str, inputs: &Json, files: &Json) -> String {
    format!("{go}\u{0}{inputs}\u{0}{files}")
}

fn files_json(files: &BTreeMap<String, String>) -> Json {
    Json::Object(
        files
            .iter()
            .map(|(k, v)| (k.clone(), Json::from(v.as_str())))
            .collect(),
    )
}

/// Helm's recorded result: `Ok(output)` or `Err(stderr)`.
fn recordings() -> BTreeMap<String, Result<String, String>> {
    let Json::Array(recorded) = read_json("sprig_helm.json") else {
        panic!("sprig_helm.json is a list");
    };
    recorded
        .into_iter()
        .map(|r| {
            let go = r["template"].as_str().expect("template");
            let result = match (r.get("output"), r.get("error")) {
                (Some(Json::String(o)), _) => Ok(o.clone()),
                (_, Some(Json::String(e))) => Err(e.clone()),
                _ => panic!("recording of {go:?} has neither output nor error"),
            };
            let files = r
                .get("files")
                .cloned()
                .unwrap_or(Json::Object(Default::default()));
            (key(go, &r["inputs"], &files), result)
        })
        .collect()
}

fn render(jinja: &str, files: &BTreeMap<String, String>, values: &Value) -> Result<String, String> {
    let mut chart_files = vec![
        ChartFile {
            path: "Chart.yaml".into(),
            text: "apiVersion: v2\nname: fn\nversion: 0.1.0\n".into(),
        },
        ChartFile {
            path: "templates/case.yaml".into(),
            text: jinja.into(),
        },
    ];
    chart_files.extend(files.iter().map(|(path, text)| ChartFile {
        path: path.clone(),
        text: text.as_str().into(),
    }));
    let chart = Chart::from_files("corpus", chart_files).map_err(|e| e.to_string())?;
    let engine = Engine::new(&chart).map_err(|e| e.to_string())?;
    engine
        .render_template("case.yaml", values, &RenderOptions::default())
        .map_err(|e| {
            let mut message = e.to_string();
            let mut source = std::error::Error::source(&e);
            while let Some(s) = source {
                message.push_str(&format!(": {s}"));
                source = s.source();
            }
            message
        })
}

#[test]
fn sprig_corpus_renders_as_helm_recorded_it() {
    let recorded = recordings();
    let mut problems = Vec::new();
    let mut passed = 0;
    let cases = cases();
    for (i, case) in cases.iter().enumerate() {
        let Some(helm) = recorded.get(&key(&case.go, &case.inputs, &files_json(&case.files)))
        else {
            problems.push(format!(
                "case {i} ({}): no recording of {:?}; run `HELM_BIN=... cargo test --test \
                 integration helm_corpus_sprig -- --ignored record_sprig_cases_with_real_helm`",
                case.fn_name, case.go
            ));
            continue;
        };
        let ours = render(&case.jinja, &case.files, &Value::from(case.inputs.clone()));
        let problem = match (&case.deliberate, helm, &ours) {
            (Some(d), _, _) => {
                let why = d["why"].as_str().unwrap_or_default();
                assert!(
                    !why.is_empty(),
                    "case {i}: a deliberate difference says why"
                );
                match (
                    d.get("output").and_then(Json::as_str),
                    d.get("error_contains").and_then(Json::as_str),
                    &ours,
                ) {
                    (Some(want), _, Ok(got)) if got == want => {
                        if helm.as_ref().ok() == Some(got) {
                            Some(format!(
                                "listed as deliberately different ({why}) but Helm agrees"
                            ))
                        } else {
                            None
                        }
                    }
                    (_, Some(want), Err(got)) if got.contains(want) => {
                        if helm.is_err() {
                            Some(format!(
                                "listed as deliberately different ({why}) but Helm fails too"
                            ))
                        } else {
                            None
                        }
                    }
                    _ => Some(format!("deliberate difference ({why}): expected {d}")),
                }
            }
            (None, Ok(want), Ok(got)) if got == want => None,
            (None, Ok(want), _) => Some(format!("Helm renders {want:?}")),
            (None, Err(_), Err(got)) => match &case.error_contains {
                Some(want) if got.contains(want.as_str()) => None,
                Some(want) => Some(format!("our error should contain {want:?}")),
                None => Some("Helm fails here: give the case an error_contains".to_owned()),
            },
            (None, Err(helm_error), Ok(_)) => Some(format!("Helm fails: {helm_error}")),
        };
        match problem {
            None => passed += 1,
            Some(problem) => problems.push(format!(
                "case {i} ({}): {problem}\n  Go:     {:?}\n  Jinja:  {:?}\n  we got: {:?}",
                case.fn_name, case.go, case.jinja, ours
            )),
        }
    }
    eprintln!(
        "sprig corpus: {} cases, {passed} as Helm recorded them, {} problems",
        cases.len(),
        problems.len()
    );
    assert!(
        problems.is_empty(),
        "{} of {} cases differ:\n\n{}",
        problems.len(),
        cases.len(),
        problems.join("\n\n")
    );
}

#[test]
fn every_recording_belongs_to_a_case() {
    let wanted: BTreeSet<String> = cases()
        .iter()
        .map(|c| key(&c.go, &c.inputs, &files_json(&c.files)))
        .collect();
    let stale: Vec<String> = recordings()
        .into_keys()
        .filter(|k| !wanted.contains(k))
        .collect();
    assert!(stale.is_empty(), "recordings no case uses: {stale:?}");
}

/// Function names of the original corpus's translations (`functions_jinja.json`).
fn first_corpus_functions() -> BTreeSet<String> {
    let Json::Array(translations) = read_json("functions_jinja.json") else {
        panic!("functions_jinja.json is a list");
    };
    translations
        .iter()
        .filter_map(|t| t["fn"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn every_library_function_has_a_recorded_case() {
    let mut covered = first_corpus_functions();
    covered.extend(cases().into_iter().map(|c| c.fn_name));
    let missing: Vec<&str> = meshchart::engine::functions::function_names()
        .into_iter()
        .filter(|name| !covered.contains(*name))
        .collect();
    assert!(
        missing.is_empty(),
        "functions without a case recorded from Helm: {missing:?}"
    );
}

/// Runs real Helm on each case's Go template and writes `sprig_helm.json`. Not a check: run it
/// after adding cases (`HELM_BIN=/path/to/helm cargo test --test integration helm_corpus_sprig -- --ignored
/// record_sprig_cases_with_real_helm`).
#[test]
#[ignore = "records Helm's outputs; run by hand after adding cases"]
fn record_sprig_cases_with_real_helm() {
    let Some(helm) = support::cli::helm_or_skip("record_sprig_cases_with_real_helm") else {
        return;
    };
    let version = std::process::Command::new(&helm)
        .args(["version", "--short"])
        .output()
        .expect("helm version");
    let version = String::from_utf8_lossy(&version.stdout).trim().to_owned();
    assert!(
        version.starts_with("v3.17.1"),
        "the corpus is Helm 3.17.1's, this is {version}"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let chart = dir.path().join("fn");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: fn\nversion: 0.1.0\n",
    )
    .unwrap();
    let values = dir.path().join("values.json");
    const BEGIN: &str = "BEGIN<<";
    const END: &str = ">>END";
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for case in cases() {
        if !seen.insert(key(&case.go, &case.inputs, &files_json(&case.files))) {
            continue;
        }
        let _ = std::fs::remove_dir_all(&chart);
        std::fs::create_dir_all(chart.join("templates")).unwrap();
        std::fs::write(
            chart.join("Chart.yaml"),
            "apiVersion: v2\nname: fn\nversion: 0.1.0\n",
        )
        .unwrap();
        for (path, text) in &case.files {
            let target = chart.join(path);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::write(target, text).unwrap();
        }
        std::fs::write(&values, case.inputs.to_string()).unwrap();
        std::fs::write(
            chart.join("templates/case.yaml"),
            format!("{BEGIN}{}{END}", case.go),
        )
        .unwrap();
        let run = |debug: bool| {
            let mut command = std::process::Command::new(&helm);
            command.arg("template").arg(&chart).arg("-f").arg(&values);
            if debug {
                // Prints the rendered text even when it is not YAML.
                command.arg("--debug");
            }
            command.output().expect("run helm")
        };
        let first = run(false);
        let stderr = String::from_utf8_lossy(&first.stderr).trim().to_owned();
        let output = if first.status.success() {
            Some(String::from_utf8_lossy(&first.stdout).into_owned())
        } else if stderr.contains("YAML parse error") {
            Some(String::from_utf8_lossy(&run(true).stdout).into_owned())
        } else {
            None
        };
        let mut record = serde_json::Map::new();
        record.insert("fn".into(), Json::from(case.fn_name.clone()));
        record.insert("template".into(), Json::from(case.go.clone()));
        record.insert("inputs".into(), case.inputs.clone());
        if !case.files.is_empty() {
            record.insert("files".into(), files_json(&case.files));
        }
        match output {
            Some(stdout) => {
                let start = stdout.find(BEGIN).expect("begin marker") + BEGIN.len();
                let end = stdout.rfind(END).expect("end marker");
                record.insert("output".into(), Json::from(&stdout[start..end]));
            }
            None => {
                record.insert("error".into(), Json::from(stderr));
            }
        }
        out.push(Json::Object(record));
    }
    let mut text = String::from("[\n");
    for (i, record) in out.iter().enumerate() {
        text.push_str("  ");
        text.push_str(&record.to_string());
        text.push_str(if i + 1 < out.len() { ",\n" } else { "\n" });
    }
    text.push_str("]\n");
    std::fs::write(corpus_dir().join("sprig_helm.json"), text).unwrap();
}
