//! The edge-26.8.3 release line: our charts in `templates/edge-26.8.3/` against what real Helm
//! renders from upstream's charts at that tag (`tests/reference/upstream/edge-26.8.3/`, whose
//! README says how each render was made).
//!
//! Each case renders with the meshchart binary from its `args`, both streams are split into
//! resources (matched by kind, namespace and name) and compared field by field. A difference must
//! be in [`ALLOWED`], whose rows are also the table "edge-26.8.3 line" of
//! `tests/reference/DEVIATIONS.md`; an allowed difference that no longer occurs in a case it names
//! fails too, so the list stays true.

use crate::support;

use meshchart::values::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::deviations::{glob, read_table};

mod behaviours;

const CASES_DIR: &str = "tests/reference/upstream/edge-26.8.3";
const DEVIATIONS_FILE: &str = "tests/reference/DEVIATIONS.md";
const DEVIATIONS_HEADING: &str = "## edge-26.8.3 line (";
/// Where the line's control-plane values live in the repository.
const CONTROL_PLANE_VALUES: &str = "values/edge-26.8.3/linkerd-control-plane";

/// The intended differences: (cases, resource, field path), each cell as in DEVIATIONS.md (cases
/// comma-separated; `*` matches any run of characters).
const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "crds, crds-gateway-api",
        "CustomResourceDefinition/*",
        "*.description",
    ),
    (
        "defaults, ha, classic-proxy, external-ca, await-off*, extras, scoped-overrides, heartbeat-from-clock",
        "ConfigMap/linkerd-config",
        "data.values.proxy.controlPlaneAwait",
    ),
    (
        "await-off",
        "Deployment/linkerd-destination",
        "spec.template.spec.initContainers[name=linkerd-proxy].startupProbe",
    ),
    (
        "await-off",
        "Deployment/linkerd-proxy-injector",
        "spec.template.spec.initContainers[name=linkerd-proxy].startupProbe",
    ),
    (
        "await-off-classic",
        "Deployment/linkerd-destination",
        "spec.template.spec.containers[name=linkerd-proxy].lifecycle",
    ),
    (
        "await-off-classic",
        "Deployment/linkerd-proxy-injector",
        "spec.template.spec.containers[name=linkerd-proxy].lifecycle",
    ),
    (
        "heartbeat-from-clock",
        "CronJob/linkerd-heartbeat",
        "spec.schedule",
    ),
    (
        "heartbeat-from-clock",
        "ConfigMap/linkerd-config",
        "data.values.heartbeatSchedule",
    ),
];

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn names_case(cases: &str, case: &str) -> bool {
    cases.split(',').any(|c| glob(c.trim(), case))
}

/// Runs `meshchart ARGS` from the repository root at a fixed instant (the pinned issuer
/// certificate is valid then) and returns its stdout; panics with stderr on failure.
fn meshchart(args: &[String]) -> Result<String, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_meshchart"))
        .args(args)
        .current_dir(repo())
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .output()
        .expect("run meshchart");
    if out.status.success() {
        Ok(String::from_utf8(out.stdout).expect("utf-8 output"))
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

fn case_dir(case: &str) -> PathBuf {
    repo().join(CASES_DIR).join(case)
}

/// The case's render arguments: one per line.
fn case_args(case: &str) -> Vec<String> {
    let path = case_dir(case).join("args");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut args = vec!["render".to_owned()];
    args.extend(text.lines().filter(|l| !l.is_empty()).map(str::to_owned));
    args
}

/// A stream's resources by `Kind/namespace/name`; linkerd-config's `data.values` is parsed.
fn resources(stream: &str, label: &str) -> BTreeMap<(String, String, String), Value> {
    let docs = meshchart::yaml::parse_documents(stream)
        .unwrap_or_else(|e| panic!("{label}: not valid YAML: {e}"));
    let mut out = BTreeMap::new();
    for mut doc in docs {
        if doc == Value::Null {
            continue;
        }
        let text = |path: &[&str]| {
            doc.get_path(path)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        let key = (
            text(&["kind"]),
            text(&["metadata", "namespace"]),
            text(&["metadata", "name"]),
        );
        assert!(
            !key.0.is_empty(),
            "{label}: a document without a kind: {doc:?}"
        );
        if key.0 == "ConfigMap" && key.2 == "linkerd-config" {
            let data = doc
                .as_map_mut()
                .and_then(|m| m.get_mut("data"))
                .and_then(Value::as_map_mut);
            if let Some(values) = data.and_then(|d| d.get_mut("values")) {
                let parsed = meshchart::yaml::parse_document(values.as_str().unwrap_or(""))
                    .unwrap_or_else(|e| panic!("{label}: linkerd-config data.values: {e}"));
                *values = parsed;
            }
        }
        assert!(
            out.insert(key.clone(), doc).is_none(),
            "{label}: {key:?} twice"
        );
    }
    out
}

/// One difference: the resource as `Kind/name`, the field path, what differs.
#[derive(Debug)]
struct Difference {
    resource: String,
    path: String,
    message: String,
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// The `name`s of a list whose items are all maps with distinct string names.
fn item_names(items: &[Value]) -> Option<Vec<String>> {
    let names: Vec<String> = items
        .iter()
        .map(|i| i.as_map()?.get("name")?.as_str().map(str::to_owned))
        .collect::<Option<_>>()?;
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    (!names.is_empty() && unique.len() == names.len()).then_some(names)
}

fn leaves(value: &Value) -> usize {
    match value {
        Value::Map(m) if !m.is_empty() => m.values().map(leaves).sum(),
        Value::Seq(s) if !s.is_empty() => s.iter().map(leaves).sum(),
        _ => 1,
    }
}

fn short(value: &Value) -> String {
    let text = format!("{value:?}");
    match text.char_indices().nth(120) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text,
    }
}

/// Compares `upstream` (expected) with `ours` at `path`, pushing `(path, message)` per difference.
fn compare(path: &str, upstream: &Value, ours: &Value, out: &mut Vec<(String, String)>) {
    match (upstream, ours) {
        (Value::Map(u), Value::Map(o)) => compare_maps(path, u, o, out),
        (Value::Seq(u), Value::Seq(o)) => {
            if let (Some(un), Some(on)) = (item_names(u), item_names(o)) {
                for (name, item) in un.iter().zip(u) {
                    let item_path = format!("{path}[name={name}]");
                    match on.iter().position(|n| n == name) {
                        Some(i) => compare(&item_path, item, &o[i], out),
                        None => out.push((
                            item_path,
                            format!("only upstream ({} leaves)", leaves(item)),
                        )),
                    }
                }
                for (name, item) in on.iter().zip(o) {
                    if !un.contains(name) {
                        out.push((
                            format!("{path}[name={name}]"),
                            format!("only ours ({} leaves)", leaves(item)),
                        ));
                    }
                }
                let common_u: Vec<&String> = un.iter().filter(|n| on.contains(n)).collect();
                let common_o: Vec<&String> = on.iter().filter(|n| un.contains(n)).collect();
                if common_u != common_o {
                    out.push((
                        path.to_owned(),
                        format!("order: upstream {common_u:?}, ours {common_o:?}"),
                    ));
                }
            } else {
                for i in 0..u.len().max(o.len()) {
                    let item_path = format!("{path}[{i}]");
                    match (u.get(i), o.get(i)) {
                        (Some(a), Some(b)) => compare(&item_path, a, b, out),
                        (Some(a), None) => {
                            out.push((item_path, format!("only upstream ({} leaves)", leaves(a))))
                        }
                        (None, Some(b)) => {
                            out.push((item_path, format!("only ours ({} leaves)", leaves(b))))
                        }
                        (None, None) => unreachable!(),
                    }
                }
            }
        }
        _ if upstream == ours => {}
        _ => out.push((
            path.to_owned(),
            format!("upstream {}, ours {}", short(upstream), short(ours)),
        )),
    }
}

fn compare_maps(path: &str, upstream: &Map, ours: &Map, out: &mut Vec<(String, String)>) {
    for (key, u) in upstream {
        match ours.get(key) {
            Some(o) => compare(&join(path, key), u, o, out),
            None => out.push((
                join(path, key),
                format!("only upstream ({} leaves: {})", leaves(u), short(u)),
            )),
        }
    }
    for (key, o) in ours {
        if !upstream.contains_key(key) {
            out.push((
                join(path, key),
                format!("only ours ({} leaves: {})", leaves(o), short(o)),
            ));
        }
    }
}

/// Every difference between upstream's render of a case and ours.
fn differences(case: &str) -> Vec<Difference> {
    let helm_path = case_dir(case).join("helm.yaml");
    let helm = std::fs::read_to_string(&helm_path)
        .unwrap_or_else(|e| panic!("{}: {e}", helm_path.display()));
    let ours =
        meshchart(&case_args(case)).unwrap_or_else(|e| panic!("case {case}: render failed:\n{e}"));
    let upstream = resources(&helm, &format!("{case}/helm.yaml"));
    let ours = resources(&ours, &format!("{case}: our render"));
    let mut found = Vec::new();
    for (key, u) in &upstream {
        let resource = format!("{}/{}", key.0, key.2);
        match ours.get(key) {
            None => found.push(Difference {
                resource,
                path: "(resource)".into(),
                message: "only upstream".into(),
            }),
            Some(o) => {
                let mut diffs = Vec::new();
                compare("", u, o, &mut diffs);
                found.extend(diffs.into_iter().map(|(path, message)| Difference {
                    resource: resource.clone(),
                    path,
                    message,
                }));
            }
        }
    }
    for key in ours.keys() {
        if !upstream.contains_key(key) {
            found.push(Difference {
                resource: format!("{}/{}", key.0, key.2),
                path: "(resource)".into(),
                message: "only ours".into(),
            });
        }
    }
    found
}

/// Fails on any difference [`ALLOWED`] does not cover and on any entry naming this case that
/// matched nothing. Returns how many allowed differences there were.
fn check_case(case: &str) -> usize {
    let found = differences(case);
    // Side-by-side counts, for reports (`cargo test -- --nocapture`).
    let count = |resource: bool, prefix: &str| {
        found
            .iter()
            .filter(|d| (d.path == "(resource)") == resource && d.message.starts_with(prefix))
            .count()
    };
    eprintln!(
        "counts {case}: resources only upstream {} / only ours {}; fields only upstream {} / \
         only ours {} / differing {} (order {})",
        count(true, "only upstream"),
        count(true, "only ours"),
        count(false, "only upstream"),
        count(false, "only ours"),
        count(false, "upstream "),
        count(false, "order")
    );
    let allowed: Vec<&(&str, &str, &str)> = ALLOWED
        .iter()
        .filter(|(cases, _, _)| names_case(cases, case))
        .collect();
    let covers = |entry: &(&str, &str, &str), d: &Difference| {
        glob(entry.1, &d.resource) && glob(entry.2, &d.path)
    };
    let unexpected: Vec<String> = found
        .iter()
        .filter(|d| !allowed.iter().any(|entry| covers(entry, d)))
        .map(|d| format!("  {} {}: {}", d.resource, d.path, d.message))
        .collect();
    let stale: Vec<String> = allowed
        .iter()
        .filter(|entry| !found.iter().any(|d| covers(entry, d)))
        .map(|(_, resource, path)| format!("  {resource} {path}"))
        .collect();
    assert!(
        unexpected.is_empty() && stale.is_empty(),
        "case {case}: {} difference(s) not in the allow-list (add a row to {DEVIATIONS_FILE} and \
         to ALLOWED, or fix the chart):\n{}\nallowed difference(s) that no longer occur:\n{}",
        unexpected.len(),
        unexpected.join("\n"),
        stale.join("\n")
    );
    found.len()
}

#[test]
fn default_values_render_as_upstream_does() {
    check_case("defaults");
}

#[test]
fn upstreams_ha_values_render_as_upstream_does() {
    check_case("ha");
}

#[test]
fn crd_chart_has_upstreams_schemas_without_descriptions() {
    assert!(
        check_case("crds") > 0,
        "the description deviation is expected to occur"
    );
}

#[test]
fn gateway_api_crds_on_request_match_upstreams() {
    check_case("crds-gateway-api");
}

#[test]
fn classic_sidecar_legacy_iptables_and_ipv6_render_as_upstream_does() {
    check_case("classic-proxy");
}

#[test]
fn external_ca_with_cni_and_psp_renders_as_upstream_does() {
    check_case("external-ca");
}

#[test]
fn labels_scheduling_tracing_monitoring_and_extra_args_render_as_upstream_does() {
    check_case("extras");
}

/// Every proxy setting a component overrides for its own proxy, set by the user: the overrides
/// stay on the components' proxies, and the user's values reach everything else (the policy
/// controller's `--default-policy` above all), as upstream's chart renders them.
#[test]
fn proxy_settings_the_components_override_reach_the_rest_as_the_user_set_them() {
    check_case("scoped-overrides");
}

#[test]
fn proxy_await_off_leaves_destination_and_injector_awaiting_their_proxy() {
    check_case("await-off");
}

#[test]
fn proxy_await_off_with_classic_sidecars_leaves_their_await_hook() {
    check_case("await-off-classic");
}

#[test]
fn a_heartbeat_schedule_left_unset_is_derived_from_the_cluster_not_the_clock() {
    check_case("heartbeat-from-clock");
}

/// The rows of the DEVIATIONS.md table "edge-26.8.3 line", as (cases, resource, path).
fn deviation_rows() -> Vec<(String, String, String)> {
    read_table(
        DEVIATIONS_HEADING,
        &["case", "resource", "field path", "reason"],
    )
    .into_iter()
    .map(|row| {
        let [cases, resource, path, _reason]: [String; 4] = row
            .cells
            .try_into()
            .expect("four cells, as read_table checks");
        (cases, resource, path)
    })
    .collect()
}

#[test]
fn every_allowed_difference_has_its_row_in_deviations_and_no_other_row_is_there() {
    let rows = deviation_rows();
    assert!(
        !rows.is_empty(),
        "{DEVIATIONS_FILE}: no table under {DEVIATIONS_HEADING:?}"
    );
    for (cases, resource, path) in ALLOWED {
        assert!(
            rows.iter()
                .any(|r| r.0 == *cases && r.1 == *resource && r.2 == *path),
            "{DEVIATIONS_FILE}: no row `{cases}` | `{resource}` | `{path}`"
        );
    }
    for row in &rows {
        assert!(
            ALLOWED
                .iter()
                .any(|(c, r, p)| row.0 == *c && row.1 == *r && row.2 == *p),
            "{DEVIATIONS_FILE}: row {row:?} is not in the test's ALLOWED list"
        );
    }
}
