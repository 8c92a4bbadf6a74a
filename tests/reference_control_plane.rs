//! The default render, compared with real Helm's render of the upstream chart, resource by
//! resource and field by field.
//!
//! Expected: `../shared/reference/pr5967-default.yaml` (upstream at the proxy-await commit), with
//! the sp-validator objects (its Deployment, Service, RBAC, Secret and webhook) taken from
//! `stable-2.10.2-sp-validator.yaml`, where sp-validator is a Deployment of its own as in our chart.
//!
//! Every difference must be listed, with its reason, in the control-plane table of
//! `tests/reference/DEVIATIONS.md`; a row that matches no difference fails the test too, so the
//! table cannot rot. Fields that are random or clock-based in the reference (webhook
//! certificates, the injector's checksum, the heartbeat schedule) are compared by shape.
//!
//! Comparison rules:
//! - resources are keyed by kind, namespace and name; comment-only documents are ignored;
//! - lists whose items are all maps with distinct `name`s (containers, env, ports, volumes,
//!   webhooks, ...) are matched by name (`env[name=LINKERD2_PROXY_LOG]`), and their order is
//!   compared separately (reported at the list's path); other lists by index (`rules[2]`);
//! - `data.values` of ConfigMap linkerd-config is YAML in a string: both sides are parsed and
//!   compared as trees (`data.values.proxy.await`).

mod support;

use meshchart::values::{Map, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Where the deviations table lives, and the heading it sits under.
const DEVIATIONS_FILE: &str = "tests/reference/DEVIATIONS.md";
const DEVIATIONS_HEADING: &str = "## Control plane";
/// The path of a difference that concerns a whole resource (missing or not in the reference).
const WHOLE_RESOURCE: &str = "(resource)";

/// What a shape-only field must look like on both sides.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// A non-empty standard base64 string.
    Base64,
    /// A lowercase hex SHA-256 digest.
    Sha256,
    /// A five-field cron schedule.
    Cron,
    /// Any string (webhook PEMs in the embedded values: empty upstream, set by us).
    String,
}

/// Fields that are random or clock-based in the reference: (resource, path) globs and the shape.
const SHAPE_ONLY: &[(&str, &str, Shape)] = &[
    ("Secret/linkerd-*-k8s-tls", "data.tls.crt", Shape::Base64),
    ("Secret/linkerd-*-k8s-tls", "data.tls.key", Shape::Base64),
    (
        "*WebhookConfiguration/*",
        "webhooks[name=*].clientConfig.caBundle",
        Shape::Base64,
    ),
    (
        "Deployment/*",
        "spec.template.metadata.annotations.checksum/config",
        Shape::Sha256,
    ),
    ("CronJob/linkerd-heartbeat", "spec.schedule", Shape::Cron),
    (
        "ConfigMap/linkerd-config",
        "data.values.proxyInjector.crtPEM",
        Shape::String,
    ),
    (
        "ConfigMap/linkerd-config",
        "data.values.proxyInjector.caBundle",
        Shape::String,
    ),
    (
        "ConfigMap/linkerd-config",
        "data.values.profileValidator.crtPEM",
        Shape::String,
    ),
    (
        "ConfigMap/linkerd-config",
        "data.values.profileValidator.caBundle",
        Shape::String,
    ),
];

/// One difference: the resource (`Kind/name`, namespace shown separately), a field path, and what
/// differs.
#[derive(Debug)]
struct Difference {
    kind: String,
    namespace: String,
    name: String,
    path: String,
    message: String,
}

impl Difference {
    fn resource(&self) -> String {
        format!("{}/{}", self.kind, self.name)
    }
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ns = if self.namespace.is_empty() {
            String::new()
        } else {
            format!("{}/", self.namespace)
        };
        write!(
            f,
            "{}/{ns}{}: {}: {}",
            self.kind, self.name, self.path, self.message
        )
    }
}

/// A row of the deviations table.
#[derive(Debug)]
struct Deviation {
    line: usize,
    resource: String,
    path: String,
    reason: String,
}

/// `*` matches any run of characters (dots and brackets included); everything else literally.
fn glob(pattern: &str, text: &str) -> bool {
    fn go(p: &[u8], t: &[u8]) -> bool {
        match p.split_first() {
            None => t.is_empty(),
            Some((b'*', rest)) => (0..=t.len()).any(|i| go(rest, &t[i..])),
            Some((c, rest)) => t.first() == Some(c) && go(rest, &t[1..]),
        }
    }
    go(pattern.as_bytes(), text.as_bytes())
}

/// Resources of a multi-document YAML stream, keyed by (kind, namespace, name).
type Resources = BTreeMap<(String, String, String), Value>;

fn text_at(value: &Value, path: &[&str]) -> String {
    value
        .get_path(path)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn key_of(value: &Value) -> Option<(String, String, String)> {
    let kind = text_at(value, &["kind"]);
    if kind.is_empty() {
        return None; // a comment-only document
    }
    Some((
        kind,
        text_at(value, &["metadata", "namespace"]),
        text_at(value, &["metadata", "name"]),
    ))
}

fn resources_of(documents: Vec<Value>) -> Resources {
    let mut resources = Resources::new();
    for doc in documents {
        if let Some(key) = key_of(&doc) {
            assert!(
                resources.insert(key.clone(), doc).is_none(),
                "{key:?} appears twice"
            );
        }
    }
    resources
}

fn reference_resources(file: &str) -> Resources {
    let text = support::reference_file(file);
    let docs = meshchart::yaml::parse_documents(&text)
        .unwrap_or_else(|e| panic!("reference {file} does not parse: {e}"));
    resources_of(docs)
}

/// The expected resources: upstream at A, with B's standalone sp-validator objects.
fn expected_resources() -> Resources {
    let mut expected = reference_resources("pr5967-default.yaml");
    for (key, doc) in reference_resources("stable-2.10.2-sp-validator.yaml") {
        // B's file also holds its RoleBinding linkerd-psp, which lists B's linkerd-controller.
        if key.2.contains("sp-validator") {
            expected.insert(key, doc);
        }
    }
    expected
}

fn rendered_resources() -> Resources {
    let rendered = support::render(&support::reference_values());
    resources_of(
        support::parsed(&rendered)
            .into_iter()
            .map(|(_, v)| v)
            .collect(),
    )
}

/// A value for messages: scalars as JSON, long strings and collections shortened.
fn show(value: &Value) -> String {
    fn json(value: &Value) -> serde_json::Value {
        match value {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => (*b).into(),
            Value::Int(i) => (*i).into(),
            Value::Float(f) => serde_json::Number::from_f64(*f)
                .map(serde_json::Value::Number)
                .unwrap_or(serde_json::Value::Null),
            Value::String(s) => s.clone().into(),
            Value::Seq(items) => items.iter().map(json).collect(),
            Value::Map(map) => map.iter().map(|(k, v)| (k.clone(), json(v))).collect(),
        }
    }
    let text = json(value).to_string();
    if text.chars().count() > 100 {
        let short: String = text.chars().take(97).collect();
        format!("{short}...")
    } else {
        text
    }
}

fn fits_shape(value: &Value, shape: Shape) -> bool {
    let Some(text) = value.as_str() else {
        return false;
    };
    match shape {
        Shape::Base64 => {
            use base64::Engine as _;
            !text.is_empty()
                && base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .is_ok()
        }
        Shape::Sha256 => {
            text.len() == 64
                && text
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        }
        Shape::Cron => text.split_whitespace().count() == 5,
        Shape::String => true,
    }
}

/// The names of a list whose items are all maps with distinct string `name`s.
fn item_names(items: &[Value]) -> Option<Vec<String>> {
    let names: Vec<String> = items
        .iter()
        .map(|item| {
            item.get_path(&["name"])
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .collect::<Option<_>>()?;
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    (sorted.len() == names.len()).then_some(names)
}

/// Walks two trees and reports every differing path.
struct Walker<'a> {
    resource: String,
    out: &'a mut Vec<(String, String)>,
}

impl Walker<'_> {
    fn report(&mut self, path: &str, message: String) {
        self.out.push((path.to_owned(), message));
    }

    fn compare(&mut self, path: &str, expected: &Value, got: &Value) {
        if let Some(shape) = SHAPE_ONLY
            .iter()
            .find(|(r, p, _)| glob(r, &self.resource) && glob(p, path))
            .map(|(_, _, s)| *s)
        {
            if !(fits_shape(expected, shape) && fits_shape(got, shape)) {
                self.report(
                    path,
                    format!(
                        "expected a {shape:?}-shaped value like {}, got {}",
                        show(expected),
                        show(got)
                    ),
                );
            }
            return;
        }
        if self.resource == "ConfigMap/linkerd-config" && path == "data.values" {
            if let (Some(e), Some(g)) = (expected.as_str(), got.as_str()) {
                let parse = |t: &str| meshchart::yaml::parse_document(t);
                if let (Ok(e), Ok(g)) = (parse(e), parse(g)) {
                    return self.compare(path, &e, &g);
                }
            }
        }
        match (expected, got) {
            (Value::Map(e), Value::Map(g)) => self.compare_maps(path, e, g),
            (Value::Seq(e), Value::Seq(g)) => self.compare_seqs(path, e, g),
            _ if expected == got => {}
            _ => self.report(
                path,
                format!("expected {}, got {}", show(expected), show(got)),
            ),
        }
    }

    fn compare_maps(&mut self, path: &str, expected: &Map, got: &Map) {
        let join = |key: &str| {
            if path.is_empty() {
                key.to_owned()
            } else {
                format!("{path}.{key}")
            }
        };
        for (key, e) in expected {
            match got.get(key) {
                Some(g) => self.compare(&join(key), e, g),
                None => self.report(&join(key), format!("missing (expected {})", show(e))),
            }
        }
        for (key, g) in got {
            if !expected.contains_key(key) {
                self.report(
                    &join(key),
                    format!("not in the reference (got {})", show(g)),
                );
            }
        }
    }

    fn compare_seqs(&mut self, path: &str, expected: &[Value], got: &[Value]) {
        if let (Some(e_names), Some(g_names)) = (item_names(expected), item_names(got)) {
            for (name, e) in e_names.iter().zip(expected) {
                let item_path = format!("{path}[name={name}]");
                match g_names.iter().position(|n| n == name) {
                    Some(i) => self.compare(&item_path, e, &got[i]),
                    None => self.report(&item_path, format!("missing (expected {})", show(e))),
                }
            }
            for (name, g) in g_names.iter().zip(got) {
                if !e_names.contains(name) {
                    self.report(
                        &format!("{path}[name={name}]"),
                        format!("not in the reference (got {})", show(g)),
                    );
                }
            }
            let common = |names: &[String], other: &[String]| -> Vec<String> {
                names
                    .iter()
                    .filter(|n| other.contains(n))
                    .cloned()
                    .collect()
            };
            let (e_order, g_order) = (common(&e_names, &g_names), common(&g_names, &e_names));
            if e_order != g_order {
                self.report(
                    path,
                    format!("order: expected {e_order:?}, got {g_order:?}"),
                );
            }
            return;
        }
        for (i, (e, g)) in expected.iter().zip(got).enumerate() {
            self.compare(&format!("{path}[{i}]"), e, g);
        }
        for (i, e) in expected.iter().enumerate().skip(got.len()) {
            self.report(
                &format!("{path}[{i}]"),
                format!("missing (expected {})", show(e)),
            );
        }
        for (i, g) in got.iter().enumerate().skip(expected.len()) {
            self.report(
                &format!("{path}[{i}]"),
                format!("not in the reference (got {})", show(g)),
            );
        }
    }
}

fn differences(expected: &Resources, got: &Resources) -> Vec<Difference> {
    let mut out = Vec::new();
    let difference = |key: &(String, String, String), path: &str, message: String| Difference {
        kind: key.0.clone(),
        namespace: key.1.clone(),
        name: key.2.clone(),
        path: path.to_owned(),
        message,
    };
    for (key, e) in expected {
        match got.get(key) {
            None => out.push(difference(
                key,
                WHOLE_RESOURCE,
                "missing (in the reference, not rendered)".into(),
            )),
            Some(g) => {
                let mut found = Vec::new();
                Walker {
                    resource: format!("{}/{}", key.0, key.2),
                    out: &mut found,
                }
                .compare("", e, g);
                out.extend(found.into_iter().map(|(p, m)| difference(key, &p, m)));
            }
        }
    }
    for key in got.keys().filter(|k| !expected.contains_key(*k)) {
        out.push(difference(
            key,
            WHOLE_RESOURCE,
            "not in the reference (rendered only by us)".into(),
        ));
    }
    out
}

/// Reads the table under [`DEVIATIONS_HEADING`]: `| resource | field path | reason |`.
fn deviations() -> Vec<Deviation> {
    let path = support::repo_root().join(DEVIATIONS_FILE);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut rows = Vec::new();
    let mut in_section = false;
    let mut seen_header = false;
    for (index, line) in text.lines().enumerate() {
        if line.starts_with("## ") {
            in_section = line.starts_with(DEVIATIONS_HEADING);
            continue;
        }
        let line = line.trim();
        if !in_section || !line.starts_with('|') {
            continue;
        }
        let cells: Vec<String> = line
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().trim_matches('`').trim().to_owned())
            .collect();
        if !seen_header {
            seen_header = true; // the header row
            continue;
        }
        if cells
            .iter()
            .all(|c| c.chars().all(|ch| ch == '-' || ch == ':'))
        {
            continue; // the separator row
        }
        assert!(
            cells.len() == 3 && cells.iter().all(|c| !c.is_empty()),
            "{DEVIATIONS_FILE}:{}: a row needs a resource, a field path and a reason: {line}",
            index + 1
        );
        let mut cells = cells.into_iter();
        rows.push(Deviation {
            line: index + 1,
            resource: cells.next().unwrap_or_default(),
            path: cells.next().unwrap_or_default(),
            reason: cells.next().unwrap_or_default(),
        });
    }
    assert!(
        !rows.is_empty(),
        "{DEVIATIONS_FILE}: no table under a heading starting with {DEVIATIONS_HEADING:?}"
    );
    rows
}

fn covers(row: &Deviation, difference: &Difference) -> bool {
    (row.resource == "*" || glob(&row.resource, &difference.resource()))
        && glob(&row.path, &difference.path)
}

#[test]
fn default_render_matches_upstream_except_listed_deviations() {
    let expected = expected_resources();
    let got = rendered_resources();
    let found = differences(&expected, &got);
    let rows = deviations();

    let mut report = String::new();
    let uncovered: Vec<&Difference> = found
        .iter()
        .filter(|d| !rows.iter().any(|row| covers(row, d)))
        .collect();
    if !uncovered.is_empty() {
        let _ = writeln!(
            report,
            "{} difference(s) from the reference not listed in {DEVIATIONS_FILE}:",
            uncovered.len()
        );
        for d in &uncovered {
            let _ = writeln!(report, "  {d}");
        }
    }
    let unused: Vec<&Deviation> = rows
        .iter()
        .filter(|row| !found.iter().any(|d| covers(row, d)))
        .collect();
    if !unused.is_empty() {
        let _ = writeln!(
            report,
            "{} row(s) of {DEVIATIONS_FILE} match no difference (remove or fix them):",
            unused.len()
        );
        for row in &unused {
            let _ = writeln!(
                report,
                "  line {}: {} | {} ({})",
                row.line, row.resource, row.path, row.reason
            );
        }
    }
    assert!(report.is_empty(), "{report}");
}

#[test]
fn comparison_reports_each_differing_field_with_its_path() {
    let parse = |t: &str| resources_of(meshchart::yaml::parse_documents(t).unwrap());
    let expected = parse(
        "kind: Deployment\nmetadata: {name: web, namespace: ns1}\nspec:\n  containers:\n  - name: app\n    env:\n    - {name: A, value: one}\n    - {name: B, value: two}\n  - name: side\n  rules: [1, 2]\n",
    );
    let got = parse(
        "kind: Deployment\nmetadata: {name: web, namespace: ns1}\nspec:\n  containers:\n  - name: side\n  - name: app\n    env:\n    - {name: A, value: three}\n    - {name: C, value: four}\n  rules: [1, 3, 4]\n",
    );
    let found: Vec<String> = differences(&expected, &got)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        found,
        [
            "Deployment/ns1/web: spec.containers[name=app].env[name=A].value: expected \"one\", got \"three\"",
            "Deployment/ns1/web: spec.containers[name=app].env[name=B]: missing (expected {\"name\":\"B\",\"value\":\"two\"})",
            "Deployment/ns1/web: spec.containers[name=app].env[name=C]: not in the reference (got {\"name\":\"C\",\"value\":\"four\"})",
            "Deployment/ns1/web: spec.containers: order: expected [\"app\", \"side\"], got [\"side\", \"app\"]",
            "Deployment/ns1/web: spec.rules[1]: expected 2, got 3",
            "Deployment/ns1/web: spec.rules[2]: not in the reference (got 4)",
        ]
    );
}
