//! `meshchart inject` / `uninject` compared with upstream's own inject fixtures
//! (`tests/reference/inject/`, linkerd2 at the proxy-await commit; and, as cases `modern_*`,
//! today's native-sidecar fixtures in `tests/reference/inject-modern/`), case by case, field
//! by field, and report line by report line.
//!
//! Every difference must be listed, with its reason, in the inject table of
//! `tests/reference/DEVIATIONS.md` (columns: case, resource, field path, reason; `*` matches any
//! run of characters); a row that matches no difference fails the test too.
//!
//! How upstream's test settings are reproduced: the same proxy and debug versions and trust
//! anchors as values; upstream flags that only write `config.linkerd.io/*` override annotations
//! onto the pod are given as those annotations on the input's pod templates (they then appear on
//! both sides); flags that set values (resources, opaque ports, CNI) are given as `--set`.
//!
//! Paths: list items that carry a unique `name` are addressed as `[name=...]` and their order is
//! checked at the list's path; other list items by index. `(resource)` is a resource on one side
//! only, `(report)` a report line that differs, `(case)` a case we do not run at all (upstream's
//! behaviour there is one we replaced on purpose).

use crate::support;

use meshchart::inject::command::{run_inject, run_uninject, InjectRequest};
use meshchart::inject::workload::{pod_template_mut, workload_kind};
use meshchart::values::ValueOverrides;
use meshchart::values::{Map, Value};
use support::deviations::{read_table, unmatched};
use support::tree_diff::TreeDiff;

mod cases;

use cases::{Case, Run, CASES};

const DEVIATIONS_HEADING: &str = "## Inject";

/// The folder of today's upstream fixtures, next to `inject/`.
const MODERN: &str = "inject-modern";

/// A fixture: `inject/<name>`, or `<folder>/<file>` for a name with a folder (`inject-modern/`).
fn reference(name: &str) -> String {
    if name.contains('/') {
        support::reference_file(name)
    } else {
        support::reference_file(&format!("inject/{name}"))
    }
}

/// Adds `annotations` to every pod template of a manifest stream (upstream's override
/// annotations), and returns it as YAML.
fn with_pod_annotations(text: &str, annotations: &[(&str, &str)]) -> String {
    fn annotate(doc: &mut Value, annotations: &[(&str, &str)]) {
        let kind = doc
            .get_path(&["kind"])
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if kind == "List" {
            if let Some(Value::Seq(items)) = doc.as_map_mut().and_then(|m| m.get_mut("items")) {
                items.iter_mut().for_each(|i| annotate(i, annotations));
            }
            return;
        }
        let Some(kind) = workload_kind(&kind) else {
            return;
        };
        let Some(template) = pod_template_mut(doc, kind) else {
            return;
        };
        let metadata = template
            .entry("metadata".to_owned())
            .or_insert_with(|| Value::Map(Map::new()));
        let Value::Map(metadata) = metadata else {
            return;
        };
        let entry = metadata
            .entry("annotations".to_owned())
            .or_insert_with(|| Value::Map(Map::new()));
        if let Value::Map(map) = entry {
            for (k, v) in annotations {
                map.insert((*k).to_owned(), Value::from(*v));
            }
        }
    }
    if annotations.is_empty() {
        return text.to_owned();
    }
    let mut docs = documents(text);
    docs.iter_mut().for_each(|d| annotate(d, annotations));
    docs.iter()
        .map(meshchart::yaml::to_yaml_document)
        .collect::<Vec<_>>()
        .join("---\n")
}

fn value_flags(case: &Case) -> ValueOverrides {
    let anchors = support::reference_dir().join("valid-trust-anchors.pem");
    let mut set = vec![
        "proxy.image.version=test-inject-proxy-version".to_owned(),
        "debugContainer.image.version=test-inject-debug-version".to_owned(),
    ];
    set.extend(case.set.iter().map(|s| (*s).to_owned()));
    ValueOverrides {
        set,
        set_file: vec![format!("identityTrustAnchorsPEM={}", anchors.display())],
        ..ValueOverrides::default()
    }
}

/// Runs a case: output stream and text report, or the error.
fn run(case: &Case) -> Result<(String, String), String> {
    let input = with_pod_annotations(&reference(case.input), case.annotations);
    let mut stdin = input.as_bytes();
    let result = match case.run {
        Run::Uninject => run_uninject(&["-".into()], &mut stdin),
        _ => run_inject(
            &support::chart(),
            &InjectRequest {
                inputs: vec!["-".into()],
                overrides: value_flags(case),
                ..InjectRequest::default()
            },
            &mut stdin,
        ),
    };
    result
        .map(|r| {
            (
                r.transformed.output,
                r.transformed.report.render(Default::default()),
            )
        })
        .map_err(|e| e.to_string())
}

/// A difference: case, resource (`Kind/name`), path, message.
#[derive(Debug)]
struct Difference {
    case: String,
    resource: String,
    path: String,
    message: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {}: {}: {}",
            self.case, self.resource, self.path, self.message
        )
    }
}

fn resource_name(doc: &Value) -> String {
    let at = |p: &[&str]| {
        doc.get_path(p)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    format!("{}/{}", at(&["kind"]), at(&["metadata", "name"]))
}

fn documents(text: &str) -> Vec<Value> {
    meshchart::yaml::parse_documents(text)
        .expect("YAML parses")
        .into_iter()
        .filter(|d| !matches!(d, Value::Null))
        .collect()
}

/// The per-resource lines of a text report (upstream's `‼` and `√` check lines are left out),
/// with our reasons and notes stripped: `deployment "web" injected`.
fn report_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty() && !l.starts_with('‼') && !l.starts_with('√'))
        .map(|l| {
            let l = l.split(": ").next().unwrap_or(l);
            let l = l.split(" (").next().unwrap_or(l);
            l.split("; ").next().unwrap_or(l).to_owned()
        })
        .collect()
}

fn differences(case: &Case) -> Vec<Difference> {
    let mut out = Vec::new();
    let mut diff = |resource: &str, path: &str, message: String| {
        out.push(Difference {
            case: case.name.to_owned(),
            resource: resource.to_owned(),
            path: path.to_owned(),
            message,
        })
    };
    match case.run {
        Run::Skipped(why) => {
            diff("*", "(case)", format!("not run: {why}"));
            return out;
        }
        Run::Error => {
            if run(case).is_ok() {
                diff("*", "(case)", "upstream fails, we did not".into());
            }
            return out;
        }
        _ => {}
    }
    let (output, report) = match run(case) {
        Ok(r) => r,
        Err(e) => {
            diff("*", "(case)", format!("failed: {e}"));
            return out;
        }
    };
    let expected = documents(&reference(case.golden));
    let got = documents(&output);
    for (i, e) in expected.iter().enumerate() {
        let name = resource_name(e);
        match got.get(i) {
            Some(g) if resource_name(g) == name => {
                for (p, m) in TreeDiff::default().run(e, g) {
                    diff(&name, &p, m);
                }
            }
            _ => diff(
                &name,
                "(resource)",
                "missing (in the reference, not in our output)".into(),
            ),
        }
    }
    for g in got.iter().skip(expected.len()) {
        diff(
            &resource_name(g),
            "(resource)",
            "not in the reference (in our output only)".into(),
        );
    }
    if let Some(report_file) = case.report {
        let expected = report_lines(&reference(report_file));
        let got = report_lines(&report);
        if expected != got {
            diff(
                "*",
                "(report)",
                format!("expected {expected:?}, got {got:?}"),
            );
        }
    }
    out
}

#[test]
fn reference_pairs_match_except_listed_deviations() {
    let found: Vec<Difference> = CASES.iter().flat_map(differences).collect();
    let rows = read_table(
        DEVIATIONS_HEADING,
        &["case", "resource", "field path", "reason"],
    );
    let report = unmatched(DEVIATIONS_HEADING, &rows, &found, |d| {
        vec![d.case.clone(), d.resource.clone(), d.path.clone()]
    });
    assert!(report.is_empty(), "{report}");
}

#[test]
fn every_reference_fixture_is_used() {
    let dir = support::reference_dir().join("inject");
    let used: Vec<&str> = CASES
        .iter()
        .flat_map(|c| [c.input, c.golden, c.report.unwrap_or_default()])
        .collect();
    let mut unused = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("reference/inject exists") {
        let name = entry
            .expect("readable")
            .file_name()
            .to_string_lossy()
            .into_owned();
        // Verbose reports and upstream's error texts are not compared (our report and errors
        // have their own wording); the stdout goldens of failing runs are empty files.
        let skipped = name.ends_with(".verbose")
            || name.ends_with(".stderr")
            || name.ends_with(".bad.golden")
            // The report of an uninject run that has no golden upstream (not in TestUninjectYAML).
            || name == "inject_emojivoto_pod_with_requests_uninject.report";
        if !skipped && !used.contains(&name.as_str()) {
            unused.push(name);
        }
    }
    for entry in std::fs::read_dir(support::reference_dir().join(MODERN))
        .expect("reference/inject-modern exists")
    {
        let name = format!(
            "{MODERN}/{}",
            entry.expect("readable").file_name().to_string_lossy()
        );
        if !used.contains(&name.as_str()) {
            unused.push(name);
        }
    }
    unused.sort();
    assert!(
        unused.is_empty(),
        "reference fixtures no case uses: {unused:?}"
    );
}
