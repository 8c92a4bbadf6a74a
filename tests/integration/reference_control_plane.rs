//! The default render, compared with real Helm's render of the upstream chart, resource by
//! resource and field by field.
//!
//! Expected: `tests/reference/pr5967-default.yaml` (upstream at the proxy-await commit), with
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

use crate::support;

use meshchart::values::Value;
use std::collections::BTreeMap;
use support::deviations::{glob, read_table, unmatched};
use support::tree_diff::{show, Rule, TreeDiff};

/// The heading the deviations table sits under.
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

/// The resources of upstream's render `file` at A, with B's standalone sp-validator objects
/// (from a default render: B has no HA reference).
fn with_sp_validator(file: &str) -> Resources {
    let mut expected = reference_resources(file);
    for (key, doc) in reference_resources("stable-2.10.2-sp-validator.yaml") {
        // B's file also holds its RoleBinding linkerd-psp, which lists B's linkerd-controller.
        if key.2.contains("sp-validator") {
            expected.insert(key, doc);
        }
    }
    expected
}

/// The expected resources: upstream's default render.
fn expected_resources() -> Resources {
    with_sp_validator("pr5967-default.yaml")
}

/// The expected HA resources: upstream's render of its own `values-ha.yaml`.
fn expected_ha_resources() -> Resources {
    with_sp_validator("pr5967-ha.yaml")
}

fn rendered_resources() -> Resources {
    resources_of_values(&support::reference_values())
}

/// Our render of upstream's `values-ha.yaml` (copied into `tests/reference/upstream-values/`)
/// over the reference values, as a user who brings that file gets it.
fn rendered_ha_resources() -> Resources {
    let mut flags = support::reference_flags();
    flags.files.push(
        support::reference_dir()
            .join("upstream-values/values-ha.yaml")
            .display()
            .to_string(),
    );
    resources_of_values(&support::values_with(&flags))
}

fn resources_of_values(values: &Value) -> Resources {
    let rendered = support::render(values);
    resources_of(
        support::parsed(&rendered)
            .into_iter()
            .map(|(_, v)| v)
            .collect(),
    )
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

/// The comparison's special cases in `resource`: shape-only fields, and `data.values` of
/// linkerd-config, which is YAML in a string.
fn rule(resource: &str, path: &str, expected: &Value, got: &Value) -> Rule {
    if let Some(shape) = SHAPE_ONLY
        .iter()
        .find(|(r, p, _)| glob(r, resource) && glob(p, path))
        .map(|(_, _, s)| *s)
    {
        let fits = fits_shape(expected, shape) && fits_shape(got, shape);
        return Rule::Decided((!fits).then(|| {
            format!(
                "expected a {shape:?}-shaped value like {}, got {}",
                show(expected),
                show(got)
            )
        }));
    }
    if resource == "ConfigMap/linkerd-config" && path == "data.values" {
        if let (Some(e), Some(g)) = (expected.as_str(), got.as_str()) {
            let parse = |t: &str| meshchart::yaml::parse_document(t);
            if let (Ok(e), Ok(g)) = (parse(e), parse(g)) {
                return Rule::Instead(e, g);
            }
        }
    }
    Rule::Compare
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
                let resource = format!("{}/{}", key.0, key.2);
                let found = TreeDiff::default()
                    .with_rule(|path, e, g| rule(&resource, path, e, g))
                    .run(e, g);
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

#[test]
fn default_render_matches_upstream_except_listed_deviations() {
    let expected = expected_resources();
    let got = rendered_resources();
    let found = differences(&expected, &got);
    let rows = read_table(DEVIATIONS_HEADING, &["resource", "field path", "reason"]);
    let report = unmatched(DEVIATIONS_HEADING, &rows, &found, |d| {
        vec![d.resource(), d.path.clone()]
    });
    assert!(report.is_empty(), "{report}");
}

/// The heading of the HA table; the control-plane table's rows apply to the HA render too.
const HA_DEVIATIONS_HEADING: &str = "## HA control plane";

#[test]
fn upstream_ha_values_render_as_upstream_except_listed_deviations() {
    let found = differences(&expected_ha_resources(), &rendered_ha_resources());
    let shared = read_table(DEVIATIONS_HEADING, &["resource", "field path", "reason"]);
    let key = |d: &Difference| vec![d.resource(), d.path.clone()];
    let ha_only: Vec<&Difference> = found
        .iter()
        .filter(|d| {
            let key = key(d);
            !shared
                .iter()
                .any(|row| row.covers(&key.iter().map(String::as_str).collect::<Vec<_>>()))
        })
        .collect();
    let rows = read_table(HA_DEVIATIONS_HEADING, &["resource", "field path", "reason"]);
    let report = unmatched(HA_DEVIATIONS_HEADING, &rows, &ha_only, |d| key(d));
    assert!(report.is_empty(), "{report}");
}

#[test]
fn upstream_ha_values_bring_the_pod_disruption_budgets() {
    let got = rendered_ha_resources();
    for name in ["linkerd-identity", "linkerd-dst", "linkerd-proxy-injector"] {
        let key = (
            "PodDisruptionBudget".to_owned(),
            "linkerd".to_owned(),
            name.to_owned(),
        );
        assert!(got.contains_key(&key), "no PodDisruptionBudget/{name}");
    }
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
