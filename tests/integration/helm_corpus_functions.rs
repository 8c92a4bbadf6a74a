//! Helm's recorded function corpus (`tests/reference/helm-corpus/functions/cases.json`, real
//! Helm 3.17.1 output), each case translated to our Jinja in `tests/helm_corpus/functions_jinja.json`
//! so Go and Jinja can be read side by side, rendered with the case's inputs as `Values`, and
//! compared with Helm's output exactly.
//!
//! - Cases Helm answers with an error must fail here too, with a message containing the
//!   translation's `error_contains` (for `required` and `fail`, Helm's own message).
//! - `DELIBERATE_DIFFERENCES` lists where we differ on purpose, why, and what we do instead; those
//!   cases are checked against our own behaviour.
//! - `SKIPPED` lists the cases not translated, and why. Every corpus case is in exactly one of
//!   the translations or `SKIPPED`.
//!
//! Corpus inputs are a values file for Helm, so every number in them is a float64 there; we keep
//! whole numbers as integers, which is most of the deliberate differences below.

use meshchart::chart::{Chart, ChartFile};
use meshchart::engine::{Engine, RenderOptions};
use meshchart::values::Value;
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::path::Path;

/// Corpus cases we do not translate.
const SKIPPED: &[(usize, &str)] = &[
    (
        242,
        "semver: returns a Go object with methods (.Major, .Prerelease); we offer semverCompare only",
    ),
    (
        266,
        "template: Go's `template` action has no Jinja counterpart; include() covers named templates",
    ),
];

/// What we do instead of Helm's output.
enum Ours {
    /// We render this text.
    Output(&'static str),
    /// We fail with a message containing this.
    Error(&'static str),
}

const FLOAT64: &str =
    "our values keep whole numbers as integers; Helm's values file made it a float64";
const SEMI_STRICT: &str =
    "printing an undefined value is an error here (SemiStrict), Helm prints nothing";

/// Where we differ from Helm on purpose: corpus index, reason, and our behaviour.
const DELIBERATE_DIFFERENCES: &[(usize, &str, Ours)] = &[
    (26, FLOAT64, Ours::Output("\"12345678\"")),
    (
        112,
        "b64dec fails on invalid input; Helm returns Go's error text as the value",
        Ours::Error("illegal base64 data at input byte 4"),
    ),
    (
        113,
        "b64dec fails on invalid input; Helm returns Go's error text as the value",
        Ours::Error("illegal base64 data at input byte 0"),
    ),
    (
        138,
        "hasKey of an undefined map is false (SemiStrict lets templates test undefined values)",
        Ours::Output("false"),
    ),
    (
        164,
        "values are immutable: set returns a changed copy, so the map it came from is unchanged",
        Ours::Output("orig changed"),
    ),
    (
        166,
        "dig works on Values itself (Helm's .Values is a chartutil.Values, which dig rejects)",
        Ours::Output("1.0"),
    ),
    (191, FLOAT64, Ours::Output("12345678")),
    (200, FLOAT64, Ours::Output("12345678")),
    (201, FLOAT64, Ours::Output("1234567")),
    (203, SEMI_STRICT, Ours::Error("is undefined")),
    (
        220,
        "fromYaml fails on invalid YAML; Helm returns a map with an Error key",
        Ours::Error("fromYaml(text): invalid YAML"),
    ),
    (
        221,
        "fromJson fails on invalid JSON; Helm returns a map with an Error key",
        Ours::Error("fromJson(text): invalid JSON"),
    ),
    (248, FLOAT64, Ours::Output("3")),
    (
        253,
        FLOAT64,
        Ours::Output("12345678 12345678.0 1.2345678e+07"),
    ),
    (
        262,
        "an included partial drops its single final newline, as Jinja drops a template's; Go's \
         define keeps it (the translation's partial is the define's body)",
        Ours::Output("metadata:\n  labels:\n    \n    app: demo\n    tier: web\n"),
    ),
    (264, SEMI_STRICT, Ours::Error("is undefined")),
    (268, SEMI_STRICT, Ours::Error("is undefined")),
    (
        270,
        "our 3 is an integer like the literal, so == holds; Helm cannot compare float64 with int",
        Ours::Output("true"),
    ),
    (
        273,
        "has compares numbers by value; Helm's list held float64s, which never equal the int 1",
        Ours::Output("true true true"),
    ),
    (
        280,
        "Go type names of our values: integers are int, Values is a plain map",
        Ours::Output("int int string map map[string]interface {} int int"),
    ),
    (
        286,
        "lookup fails: an offline render has no cluster; Helm's helm template returns an empty map",
        Ours::Error("`lookup` is not available in an offline render"),
    ),
    (
        289,
        "uuidv4 and randAlphaNum fail: a render must give the same output every time",
        Ours::Error("`uuidv4` is not available in an offline render"),
    ),
    (292, SEMI_STRICT, Ours::Error("is undefined")),
];

struct Case {
    fn_name: String,
    template: String,
    inputs: Json,
    output: Option<String>,
    error: Option<String>,
}

struct Translation {
    index: usize,
    fn_name: String,
    jinja: String,
    files: BTreeMap<String, String>,
    inputs: Option<Json>,
    error_contains: Option<String>,
}

fn load_cases() -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/reference/helm-corpus/functions/cases.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json: Vec<Json> = serde_json::from_str(&text).expect("cases.json is JSON");
    json.into_iter()
        .map(|c| Case {
            fn_name: c["fn"].as_str().unwrap().to_owned(),
            template: c["template"].as_str().unwrap().to_owned(),
            inputs: c["inputs"].clone(),
            output: c.get("output").and_then(Json::as_str).map(str::to_owned),
            error: c.get("error").and_then(Json::as_str).map(str::to_owned),
        })
        .collect()
}

fn load_translations() -> Vec<Translation> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/helm_corpus/functions_jinja.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json: Vec<Json> = serde_json::from_str(&text).expect("functions_jinja.json is JSON");
    json.into_iter()
        .map(|t| Translation {
            index: t["index"].as_u64().unwrap() as usize,
            fn_name: t["fn"].as_str().unwrap().to_owned(),
            jinja: t["jinja"].as_str().unwrap().to_owned(),
            files: t
                .get("files")
                .and_then(Json::as_object)
                .map(|files| {
                    files
                        .iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
                        .collect()
                })
                .unwrap_or_default(),
            inputs: t.get("inputs").cloned(),
            error_contains: t
                .get("error_contains")
                .and_then(Json::as_str)
                .map(str::to_owned),
        })
        .collect()
}

/// Renders `templates/case.yaml` of a one-template chart (plus any partials) with `values`.
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
        .map_err(|e| e.to_string())
}

fn describe(result: &Result<String, String>) -> String {
    match result {
        Ok(text) => format!("output {text:?}"),
        Err(message) => format!("error {message:?}"),
    }
}

#[test]
fn helm_function_corpus_renders_the_same_in_jinja() {
    let cases = load_cases();
    let translations = load_translations();

    // Every case is translated or skipped, exactly once, and each translation names its case.
    let mut seen = vec![0usize; cases.len()];
    for t in &translations {
        assert!(
            t.index < cases.len(),
            "translation of case {} that does not exist",
            t.index
        );
        assert_eq!(
            t.fn_name, cases[t.index].fn_name,
            "translation {} names the wrong function",
            t.index
        );
        seen[t.index] += 1;
    }
    for (index, _) in SKIPPED {
        seen[*index] += 1;
    }
    let unaccounted: Vec<usize> = (0..cases.len()).filter(|i| seen[*i] != 1).collect();
    assert!(
        unaccounted.is_empty(),
        "cases neither translated nor skipped, or both: {unaccounted:?}"
    );

    let deliberate: BTreeMap<usize, (&str, &Ours)> = DELIBERATE_DIFFERENCES
        .iter()
        .map(|(i, why, ours)| (*i, (*why, ours)))
        .collect();
    let mut mismatches = Vec::new();
    let mut passed = 0;
    for t in &translations {
        let case = &cases[t.index];
        // Whole numbers that fit 64 bits become integers (Helm: float64).
        let values = Value::from(t.inputs.as_ref().unwrap_or(&case.inputs).clone());
        let result = render(&t.jinja, &t.files, &values);
        let problem = match (deliberate.get(&t.index), &result) {
            (Some((_, Ours::Output(want))), Ok(got)) if got == want => None,
            (Some((_, Ours::Error(want))), Err(got)) if got.contains(want) => None,
            (Some((why, ours)), _) => Some(format!(
                "deliberate difference ({why}) expected {}",
                match ours {
                    Ours::Output(o) => format!("output {o:?}"),
                    Ours::Error(e) => format!("an error containing {e:?}"),
                }
            )),
            (None, Ok(got)) if case.output.as_deref() == Some(got.as_str()) => None,
            (None, Err(got))
                if case.error.is_some()
                    && t.error_contains.as_deref().is_some_and(|e| got.contains(e)) =>
            {
                None
            }
            (None, _) if case.error.is_some() && t.error_contains.is_none() => Some(
                "Helm fails here: give the translation an error_contains, or list the case as a \
                 deliberate difference"
                    .to_owned(),
            ),
            (None, _) => Some(match (&case.output, &t.error_contains) {
                (Some(out), _) => format!("Helm renders {out:?}"),
                (None, Some(e)) => format!("Helm fails; expected our error to contain {e:?}"),
                (None, None) => unreachable!(),
            }),
        };
        match problem {
            None => passed += 1,
            Some(problem) => mismatches.push(format!(
                "case {} ({}): {problem}\n  Go:       {:?}\n  Jinja:    {:?}\n  Helm:     {}\n  we got:   {}",
                t.index,
                t.fn_name,
                case.template,
                t.jinja,
                match (&case.output, &case.error) {
                    (Some(o), _) => format!("output {o:?}"),
                    (_, Some(e)) => format!("error {e:?}"),
                    _ => String::new(),
                },
                describe(&result),
            )),
        }
    }
    eprintln!(
        "helm function corpus: {} cases run, {} passed ({} of them deliberately different), {} skipped, {} mismatches",
        translations.len(),
        passed,
        DELIBERATE_DIFFERENCES.len(),
        SKIPPED.len(),
        mismatches.len()
    );
    assert!(
        mismatches.is_empty(),
        "{} of {} corpus cases differ:\n\n{}",
        mismatches.len(),
        translations.len(),
        mismatches.join("\n\n")
    );
}

#[test]
fn deliberate_differences_really_differ_from_helm() {
    let cases = load_cases();
    for (index, why, ours) in DELIBERATE_DIFFERENCES {
        let case = &cases[*index];
        let same = match ours {
            Ours::Output(o) => case.output.as_deref() == Some(*o),
            Ours::Error(_) => case.error.is_some(),
        };
        assert!(
            !same,
            "case {index} is listed as different ({why}) but Helm agrees"
        );
    }
}
