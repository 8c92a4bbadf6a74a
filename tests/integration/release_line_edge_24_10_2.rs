//! Our charts for Linkerd edge-24.10.2 (`templates/edge-24.10.2/`) against real Helm's render of
//! Linkerd's own charts at that tag, resource by resource and field by field.
//!
//! Each case folder under `tests/reference/upstream/edge-24.10.2/` holds `args` (our render's
//! arguments, one per line, paths relative to the repository root) and `helm.yaml` (Helm 3.17.1
//! with the same values; the folder's README gives each command); the arguments choose the
//! embedded line with `--linkerd edge-24.10.2` (and `--crds`). Resources are matched by kind,
//! namespace and name; each is flattened into its leaves (`spec.template.spec.containers[0].name`;
//! `data.values` of ConfigMap linkerd-config is YAML in a string and is flattened as the tree it
//! holds), and leaves are compared one by one.
//!
//! [`ALLOWED`] lists the intended differences; each must have its row in the "edge-24.10.2 line"
//! section of `tests/reference/DEVIATIONS.md` (and each row an entry here). A case fails on any
//! other difference, on a resource only one side has, and on an entry of its own that no longer
//! matches any difference, so the list stays true.

use crate::support;

use meshchart::values::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::deviations::glob;

/// Where the cases live, relative to the repository root.
const CASES: &str = "tests/reference/upstream/edge-24.10.2";
/// The deviations file and the heading of this line's table.
const DEVIATIONS_FILE: &str = "tests/reference/DEVIATIONS.md";
const DEVIATIONS_HEADING: &str = "## edge-24.10.2 line";
/// The path given to a difference that is a whole resource only one side has.
const WHOLE_RESOURCE: &str = "(resource)";
/// The render's instant: the pinned issuer certificate in `tests/certs/` is valid then (it
/// expired in November 2024, and meshchart checks it; Helm does not).
const SOURCE_DATE_EPOCH: &str = "1704067200";

/// An intended difference: the cases it occurs in, the resource (`Kind/name`) and the field path,
/// both globs where `*` matches any run of characters.
struct Allowed {
    cases: &'static [&'static str],
    resource: &'static str,
    path: &'static str,
}

/// The control-plane cases in which upstream puts a freshly generated certificate in each
/// webhook's caBundle (no caBundle given, no externalSecret).
const RANDOM_CA_BUNDLE: &[&str] = &["defaults"];

const ALLOWED: &[Allowed] = &[
    Allowed {
        cases: &["crds"],
        resource: "CustomResourceDefinition/*",
        path: "*.description",
    },
    Allowed {
        cases: RANDOM_CA_BUNDLE,
        resource: "*WebhookConfiguration/*",
        path: "webhooks[0].clientConfig.caBundle",
    },
    Allowed {
        cases: RANDOM_CA_BUNDLE,
        resource: "Deployment/*",
        path: "spec.template.metadata.annotations.checksum/config",
    },
    Allowed {
        cases: RANDOM_CA_BUNDLE,
        resource: "ConfigMap/linkerd-config",
        path: "data.values.*.caBundle",
    },
    Allowed {
        cases: &["external-ca-cni-await-off"],
        resource: "Deployment/*",
        path: "spec.template.spec.containers[0].lifecycle.postStart.exec.command[*]",
    },
    Allowed {
        cases: &["native-sidecar-await-off"],
        resource: "Deployment/*",
        path: "spec.template.spec.initContainers[1].startupProbe.*",
    },
    Allowed {
        cases: &["heartbeat-from-clock"],
        resource: "CronJob/linkerd-heartbeat",
        path: "spec.schedule",
    },
    Allowed {
        cases: &["heartbeat-from-clock"],
        resource: "ConfigMap/linkerd-config",
        path: "data.values.heartbeatSchedule",
    },
];

/// One difference between Helm's render and ours.
#[derive(Debug)]
struct Difference {
    /// `Kind/name`.
    resource: String,
    namespace: String,
    path: String,
    what: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ns = if self.namespace.is_empty() {
            String::new()
        } else {
            format!(" (namespace {})", self.namespace)
        };
        write!(f, "{}{ns}: {}: {}", self.resource, self.path, self.what)
    }
}

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn case_dir(case: &str) -> PathBuf {
    repo_root().join(CASES).join(case)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Our render of `case`: `meshchart render` with the case's arguments, from the repository root.
fn render(case: &str) -> String {
    let args: Vec<String> = read(&case_dir(case).join("args"))
        .lines()
        .map(str::to_owned)
        .collect();
    render_with(&args)
}

fn render_with(args: &[String]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_meshchart"))
        .arg("render")
        .args(args)
        .current_dir(repo_root())
        .env("SOURCE_DATE_EPOCH", SOURCE_DATE_EPOCH)
        .output()
        .expect("run meshchart");
    assert!(
        out.status.success(),
        "meshchart render {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 render")
}

/// (Kind/name, namespace) of each resource of a stream, with its leaves.
type Resources = BTreeMap<(String, String), BTreeMap<String, Value>>;

fn text_at(doc: &Value, path: &[&str]) -> String {
    doc.get_path(path)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// Splits a stream into resources and flattens each into its leaves.
fn resources(origin: &str, text: &str) -> Resources {
    let docs = meshchart::yaml::parse_documents(text)
        .unwrap_or_else(|e| panic!("{origin} does not parse: {e}"));
    let mut out = Resources::new();
    for mut doc in docs {
        let kind = text_at(&doc, &["kind"]);
        if kind.is_empty() {
            continue; // a document of comments only
        }
        let name = text_at(&doc, &["metadata", "name"]);
        let namespace = text_at(&doc, &["metadata", "namespace"]);
        if kind == "ConfigMap" && name == "linkerd-config" {
            expand_embedded_values(&mut doc);
        }
        let mut leaves = BTreeMap::new();
        flatten("", &doc, &mut leaves);
        let key = (format!("{kind}/{name}"), namespace);
        assert!(
            out.insert(key.clone(), leaves).is_none(),
            "{origin}: {key:?} appears twice"
        );
    }
    out
}

/// Replaces linkerd-config's `data.values` string with the tree it holds.
fn expand_embedded_values(doc: &mut Value) {
    let Some(data) = doc
        .as_map_mut()
        .and_then(|m| m.get_mut("data"))
        .and_then(Value::as_map_mut)
    else {
        return;
    };
    if let Some(Value::String(text)) = data.get("values") {
        let tree = meshchart::yaml::parse_document(text)
            .unwrap_or_else(|e| panic!("linkerd-config data.values does not parse: {e}"));
        data.insert("values".to_owned(), tree);
    }
}

fn flatten(path: &str, value: &Value, out: &mut BTreeMap<String, Value>) {
    let join = |key: &str| {
        if path.is_empty() {
            key.to_owned()
        } else {
            format!("{path}.{key}")
        }
    };
    match value {
        Value::Map(map) if !map.is_empty() => {
            for (key, item) in map {
                flatten(&join(key), item, out);
            }
        }
        Value::Seq(items) if !items.is_empty() => {
            for (index, item) in items.iter().enumerate() {
                flatten(&format!("{path}[{index}]"), item, out);
            }
        }
        // Scalars, and empty maps and lists, are leaves.
        _ => {
            out.insert(path.to_owned(), value.clone());
        }
    }
}

fn show(value: &Value) -> String {
    let text = match value {
        Value::String(s) => format!("{s:?}"),
        Value::Map(_) => "{}".to_owned(),
        Value::Seq(_) => "[]".to_owned(),
        other => format!("{other:?}"),
    };
    if text.chars().count() > 100 {
        format!("{}...", text.chars().take(100).collect::<String>())
    } else {
        text
    }
}

fn differences(upstream: &Resources, ours: &Resources) -> Vec<Difference> {
    let mut found = Vec::new();
    let mut push = |key: &(String, String), path: &str, what: String| {
        found.push(Difference {
            resource: key.0.clone(),
            namespace: key.1.clone(),
            path: path.to_owned(),
            what,
        })
    };
    for (key, expected) in upstream {
        let Some(got) = ours.get(key) else {
            push(key, WHOLE_RESOURCE, "only upstream renders it".into());
            continue;
        };
        for (path, e) in expected {
            match got.get(path) {
                None => push(key, path, format!("only upstream: {}", show(e))),
                Some(g) if g != e => {
                    push(key, path, format!("upstream {}, ours {}", show(e), show(g)))
                }
                Some(_) => {}
            }
        }
        for (path, g) in got.iter().filter(|(p, _)| !expected.contains_key(*p)) {
            push(key, path, format!("only ours: {}", show(g)));
        }
    }
    for key in ours.keys().filter(|k| !upstream.contains_key(*k)) {
        push(key, WHOLE_RESOURCE, "only ours renders it".into());
    }
    found
}

/// Compares `case` and panics with every unexplained difference and every entry of
/// [`ALLOWED`] for this case that matched nothing.
fn assert_matches_upstream(case: &str) {
    let helm = read(&case_dir(case).join("helm.yaml"));
    let upstream = resources(&format!("{case}/helm.yaml"), &helm);
    let ours = resources(&format!("our render of {case}"), &render(case));
    let found = differences(&upstream, &ours);
    // Side-by-side counts, for reports (`cargo test -- --nocapture`).
    let count = |resource: bool, prefix: &str| {
        found
            .iter()
            .filter(|d| (d.path == WHOLE_RESOURCE) == resource && d.what.starts_with(prefix))
            .count()
    };
    eprintln!(
        "counts {case}: resources upstream {} / ours {}, only upstream {} / only ours {}; \
         fields only upstream {} / only ours {} / differing {}",
        upstream.len(),
        ours.len(),
        count(true, "only upstream"),
        count(true, "only ours"),
        count(false, "only upstream"),
        count(false, "only ours"),
        count(false, "upstream ")
    );
    let allowed: Vec<&Allowed> = ALLOWED.iter().filter(|a| a.cases.contains(&case)).collect();
    let covers =
        |a: &Allowed, d: &Difference| glob(a.resource, &d.resource) && glob(a.path, &d.path);
    let mut report = String::new();
    let unexplained: Vec<&Difference> = found
        .iter()
        .filter(|d| !allowed.iter().any(|a| covers(a, d)))
        .collect();
    if !unexplained.is_empty() {
        let _ = writeln!(
            report,
            "{case}: {} difference(s) from Helm's render not in the allow-list:",
            unexplained.len()
        );
        for d in unexplained.iter().take(60) {
            let _ = writeln!(report, "  {d}");
        }
    }
    for a in allowed
        .iter()
        .filter(|a| !found.iter().any(|d| covers(a, d)))
    {
        let _ = writeln!(
            report,
            "{case}: allowed difference {} {} no longer occurs: take it out of the list (and its row out of {DEVIATIONS_FILE})",
            a.resource, a.path
        );
    }
    assert!(report.is_empty(), "{report}");
}

#[test]
fn crd_chart_renders_upstreams_crds_without_descriptions() {
    assert_matches_upstream("crds");
}

#[test]
fn default_values_render_as_upstream_except_random_webhook_certificates() {
    assert_matches_upstream("defaults");
}

#[test]
fn upstream_ha_values_render_as_upstream_with_identical_config_checksums() {
    assert_matches_upstream("ha");
}

#[test]
fn native_sidecar_ipv6_and_root_proxy_init_render_as_upstream() {
    assert_matches_upstream("native-sidecar-ipv6");
}

#[test]
fn many_optional_values_over_ha_render_as_upstream() {
    assert_matches_upstream("many-values");
}

/// Every proxy setting a component overrides for its own proxy, set by the user: the overrides
/// stay on the components' proxies, and the user's values reach everything else (the policy
/// controller's `--default-policy` above all), as upstream's chart renders them.
#[test]
fn proxy_settings_the_components_override_reach_the_rest_as_the_user_set_them() {
    assert_matches_upstream("scoped-overrides");
}

#[test]
fn external_ca_cni_and_await_off_render_as_upstream_but_control_plane_still_awaits() {
    assert_matches_upstream("external-ca-cni-await-off");
}

#[test]
fn native_sidecars_with_await_off_render_as_upstream_but_control_plane_still_probes() {
    assert_matches_upstream("native-sidecar-await-off");
}

#[test]
fn a_heartbeat_schedule_left_unset_is_derived_from_the_cluster_not_the_clock() {
    assert_matches_upstream("heartbeat-from-clock");
}

/// The rows of the "edge-24.10.2 line" table: (resource, field path) of each.
fn deviation_rows() -> Vec<(String, String)> {
    let text = read(&repo_root().join(DEVIATIONS_FILE));
    let mut rows = Vec::new();
    let mut in_section = false;
    for line in text.lines() {
        if line.starts_with("## ") {
            in_section = line.starts_with(DEVIATIONS_HEADING);
            continue;
        }
        if !in_section || !line.starts_with('|') {
            continue;
        }
        let cells: Vec<&str> = line
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().trim_matches('`'))
            .collect();
        let header_or_rule = cells[0] == "resource" || cells[0].chars().all(|c| c == '-');
        if !header_or_rule {
            assert_eq!(
                cells.len(),
                3,
                "{DEVIATIONS_FILE}: a row needs resource, field path and reason: {line}"
            );
            rows.push((cells[0].to_owned(), cells[1].to_owned()));
        }
    }
    rows
}

#[test]
fn every_allowed_difference_has_its_deviations_row_and_back() {
    let rows = deviation_rows();
    assert!(
        !rows.is_empty(),
        "{DEVIATIONS_FILE}: no table under {DEVIATIONS_HEADING:?}"
    );
    let mut report = String::new();
    for a in ALLOWED {
        if !rows.iter().any(|(r, p)| r == a.resource && p == a.path) {
            let _ = writeln!(
                report,
                "allowed {} {} has no row in {DEVIATIONS_FILE}",
                a.resource, a.path
            );
        }
    }
    for (r, p) in &rows {
        if !ALLOWED.iter().any(|a| a.resource == r && a.path == p) {
            let _ = writeln!(
                report,
                "row {r} {p} of {DEVIATIONS_FILE} is not in the test's allow-list"
            );
        }
    }
    assert!(report.is_empty(), "{report}");
}

/// The Deployment `name` of a render, as (containers, initContainers) of its pod spec.
fn pod_containers(rendered: &str, name: &str) -> (Vec<Value>, Vec<Value>) {
    let docs = meshchart::yaml::parse_documents(rendered).expect("render parses");
    let doc = docs
        .into_iter()
        .find(|d| {
            text_at(d, &["kind"]) == "Deployment" && text_at(d, &["metadata", "name"]) == name
        })
        .unwrap_or_else(|| panic!("no Deployment {name}"));
    let list = |key: &str| match doc.get_path(&["spec", "template", "spec", key]) {
        Some(Value::Seq(items)) => items.clone(),
        _ => Vec::new(),
    };
    (list("containers"), list("initContainers"))
}

fn proxy_awaits(container: &Value) -> bool {
    container.get_path(&["lifecycle", "postStart"]).is_some()
}

fn named<'a>(containers: &'a [Value], name: &str) -> &'a Value {
    containers
        .iter()
        .find(|c| text_at(c, &["name"]) == name)
        .unwrap_or_else(|| panic!("no container {name}"))
}

#[test]
fn control_plane_await_decides_destination_and_injector_and_identity_never_awaits() {
    let mut args: Vec<String> = read(&case_dir("defaults").join("args"))
        .lines()
        .map(str::to_owned)
        .collect();
    args.extend(["--set".into(), "proxy.await=true".into()]);
    args.extend(["--set".into(), "proxy.controlPlaneAwait=false".into()]);
    let rendered = render_with(&args);
    for name in [
        "linkerd-destination",
        "linkerd-proxy-injector",
        "linkerd-identity",
    ] {
        let (containers, _) = pod_containers(&rendered, name);
        assert!(
            !proxy_awaits(named(&containers, "linkerd-proxy")),
            "{name}'s proxy awaits with proxy.controlPlaneAwait=false"
        );
    }
    // The user's proxy.await reaches linkerd-config (the injector's values); our key does not.
    let config = resources("render", &rendered);
    let leaves = &config[&("ConfigMap/linkerd-config".to_owned(), "linkerd".to_owned())];
    assert_eq!(
        leaves.get("data.values.proxy.await"),
        Some(&Value::Bool(true))
    );
    assert!(!leaves.contains_key("data.values.proxy.controlPlaneAwait"));

    let rendered = render_with(
        &read(&case_dir("defaults").join("args"))
            .lines()
            .map(str::to_owned)
            .collect::<Vec<_>>(),
    );
    for (name, awaits) in [
        ("linkerd-destination", true),
        ("linkerd-proxy-injector", true),
        ("linkerd-identity", false),
    ] {
        let (containers, _) = pod_containers(&rendered, name);
        assert_eq!(
            proxy_awaits(named(&containers, "linkerd-proxy")),
            awaits,
            "{name}"
        );
    }
}

#[test]
fn identity_proxy_stays_a_regular_container_with_native_sidecars() {
    let rendered = render("native-sidecar-ipv6");
    let (containers, init) = pod_containers(&rendered, "linkerd-identity");
    assert!(!proxy_awaits(named(&containers, "linkerd-proxy")));
    assert!(init
        .iter()
        .all(|c| text_at(c, &["name"]) != "linkerd-proxy"));
    let (containers, init) = pod_containers(&rendered, "linkerd-destination");
    assert!(containers
        .iter()
        .all(|c| text_at(c, &["name"]) != "linkerd-proxy"));
    let proxy = named(&init, "linkerd-proxy");
    assert_eq!(text_at(proxy, &["restartPolicy"]), "Always");
    assert!(proxy.get_path(&["startupProbe"]).is_some());
}

/// `meshchart render` of the control plane with no values at all: everything is generated, kept
/// in `--certs-dir`, and a second render from that folder is byte for byte the first.
#[test]
fn render_without_values_is_reproducible_from_the_certs_dir() {
    let certs = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("edge-24.10.2-no-values-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&certs);
    let args: Vec<String> = ["--linkerd", "edge-24.10.2", "-n", "linkerd", "--certs-dir"]
        .map(String::from)
        .into_iter()
        .chain([certs.to_string_lossy().into_owned()])
        .collect();
    let first = render_with(&args);
    assert!(certs.join("policy-validator.crt").is_file());
    let second = render_with(&args);
    let _ = std::fs::remove_dir_all(&certs);
    assert!(first == second, "the second render differs from the first");
    assert!(first.contains("name: linkerd-policy-validator-k8s-tls"));
}
