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

fn yaml_file(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    meshchart::yaml::parse_document(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn our_defaults_are_upstreams_plus_control_plane_await() {
    let mut ours = yaml_file(&repo().join(CONTROL_PLANE_VALUES).join("values.yaml"));
    let upstream = yaml_file(&repo().join(CASES_DIR).join("values.yaml"));
    let proxy = ours
        .as_map_mut()
        .and_then(|m| m.get_mut("proxy"))
        .and_then(Value::as_map_mut)
        .expect("proxy");
    assert_eq!(proxy.remove("controlPlaneAwait"), Some(Value::Bool(true)));
    let mut diffs = Vec::new();
    compare("", &upstream, &ours, &mut diffs);
    assert!(
        diffs.is_empty(),
        "values/values.yaml differs from upstream's: {diffs:#?}"
    );
}

#[test]
fn our_ha_overlay_holds_upstreams_values() {
    let ours = yaml_file(&repo().join(CONTROL_PLANE_VALUES).join("values-ha.yaml"));
    let upstream = yaml_file(&case_dir("ha").join("values-ha.yaml"));
    let mut diffs = Vec::new();
    compare("", &upstream, &ours, &mut diffs);
    assert!(
        diffs.is_empty(),
        "values/values-ha.yaml differs from upstream's: {diffs:#?}"
    );
}

fn crd_names(extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "render",
        "--linkerd",
        "edge-26.8.3",
        "--crds",
        "--namespace",
        "linkerd",
    ]
    .map(String::from)
    .to_vec();
    args.extend(extra.iter().map(|s| s.to_string()));
    let out = meshchart(&args).unwrap_or_else(|e| panic!("{extra:?}: {e}"));
    resources(&out, "crds")
        .into_keys()
        .map(|k| k.2)
        .filter(|n| n.ends_with(".gateway.networking.k8s.io"))
        .collect()
}

/// Which Gateway API CRDs each switch brings, as Helm 3.17.1 rendered upstream's chart.
#[test]
fn gateway_api_crds_follow_install_gateway_api_unless_a_route_switch_is_given() {
    let all = ["grpcroutes", "httproutes", "tcproutes", "tlsroutes"];
    let names = |list: &[&str]| -> Vec<String> {
        list.iter()
            .map(|n| format!("{n}.gateway.networking.k8s.io"))
            .collect()
    };
    assert_eq!(crd_names(&[]), names(&[]));
    assert_eq!(crd_names(&["--set", "installGatewayAPI=true"]), names(&all));
    assert_eq!(
        crd_names(&["--set", "installGatewayAPI=true,enableTlsRoutes=false"]),
        names(&["grpcroutes", "httproutes", "tcproutes"])
    );
    assert_eq!(
        crd_names(&["--set", "enableHttpRoutes=true"]),
        names(&["grpcroutes", "httproutes"])
    );
    assert_eq!(
        crd_names(&["--set", "enableTcpRoutes=true,installGatewayAPI=false"]),
        names(&["tcproutes"])
    );
}

fn proxy_of<'a>(deployment: &'a Value, list: &str) -> Option<&'a Map> {
    let items = deployment.get_path(&["spec", "template", "spec", list])?;
    match items {
        Value::Seq(items) => items
            .iter()
            .filter_map(Value::as_map)
            .find(|c| c.get("name").and_then(Value::as_str) == Some("linkerd-proxy")),
        _ => None,
    }
}

#[test]
fn control_plane_await_off_drops_only_the_control_planes_startup_probes() {
    let mut args = case_args("defaults");
    args.extend([
        "--set".to_owned(),
        "proxy.controlPlaneAwait=false".to_owned(),
    ]);
    let out = resources(&meshchart(&args).unwrap(), "controlPlaneAwait=false");
    let deployment = |name: &str| {
        &out[&(
            "Deployment".to_owned(),
            "linkerd".to_owned(),
            name.to_owned(),
        )]
    };
    for name in ["linkerd-destination", "linkerd-proxy-injector"] {
        let proxy = proxy_of(deployment(name), "initContainers").expect("a native-sidecar proxy");
        assert!(!proxy.contains_key("startupProbe"), "{name}: {proxy:?}");
        assert!(!proxy.contains_key("lifecycle"), "{name}: {proxy:?}");
    }
    // Identity's proxy never awaits; linkerd-config keeps the user's proxy.await.
    assert!(proxy_of(deployment("linkerd-identity"), "containers").is_some());
    let config = &out[&(
        "ConfigMap".to_owned(),
        "linkerd".to_owned(),
        "linkerd-config".to_owned(),
    )];
    assert_eq!(
        config.get_path(&["data", "values", "proxy", "await"]),
        Some(&Value::Bool(true))
    );
    assert_eq!(
        config.get_path(&["data", "values", "proxy", "controlPlaneAwait"]),
        Some(&Value::Bool(false))
    );
}

/// Without `policyValidator` material the render still succeeds: meshchart's identity-material
/// step makes the policy validator a serving certificate for its Service in the release
/// namespace, and sets its caBundle to it (upstream's template makes a throwaway one).
#[test]
fn missing_policy_validator_certificate_is_generated_for_the_release_namespace() {
    let args: Vec<String> = case_args("defaults")
        .into_iter()
        .filter(|a| !a.starts_with("policyValidator."))
        .collect();
    // Drop the `--set-file` flags left without their values.
    let mut cleaned = Vec::new();
    for (i, a) in args.iter().enumerate() {
        if a == "--set-file" && args.get(i + 1).is_none_or(|n| n.starts_with("--")) {
            continue;
        }
        cleaned.push(a.clone());
    }
    let out = resources(&meshchart(&cleaned).expect("renders"), "no policyValidator");
    let key = |kind: &str, name: &str| (kind.to_owned(), String::new(), name.to_owned());
    let secret = &out[&(
        "Secret".to_owned(),
        "linkerd".to_owned(),
        "linkerd-policy-validator-k8s-tls".to_owned(),
    )];
    let config = &out[&key(
        "ValidatingWebhookConfiguration",
        "linkerd-policy-validator-webhook-config",
    )];
    let crt = secret
        .get_path(&["data", "tls.crt"])
        .and_then(Value::as_str)
        .expect("tls.crt");
    let Some(Value::Seq(hooks)) = config.get_path(&["webhooks"]) else {
        panic!("no webhooks: {config:?}");
    };
    assert_eq!(
        hooks[0].get_path(&["clientConfig", "caBundle"]),
        Some(&Value::String(crt.to_owned())),
        "the caBundle is the generated self-signed certificate"
    );
    let pinned = std::fs::read_to_string(repo().join("tests/certs/policy-validator.crt"))
        .expect("the pinned pair");
    assert!(
        !decode(crt).contains(pinned.trim()),
        "generated, not the pinned pair"
    );
}

fn decode(base64_text: &str) -> String {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(base64_text)
        .expect("base64");
    String::from_utf8(bytes).expect("PEM text")
}

/// As upstream: only `nft` and `legacy`; an empty mode is not taken for `legacy`.
#[test]
fn iptables_mode_other_than_nft_or_legacy_fails_the_render() {
    for mode in ["proxyInit.iptablesMode=", "proxyInit.iptablesMode=iptables"] {
        let mut args = case_args("defaults");
        args.extend(["--set".to_owned(), mode.to_owned()]);
        let err = meshchart(&args).expect_err(mode);
        assert!(err.contains("for proxyInit.iptablesMode"), "{mode}: {err}");
    }
}

/// `meshchart lint` takes upstream's own values files (its `values.yaml` and `values-ha.yaml` of
/// the tag) without an unknown key: values.schema.json declares the keys upstream's templates
/// read that its values.yaml leaves out.
#[test]
fn upstreams_values_files_lint_clean() {
    let mut lint: Vec<String> = case_args("ha");
    lint[0] = "lint".to_owned();
    lint.extend(["-f".to_owned(), format!("{CASES_DIR}/values.yaml")]);
    let out = meshchart(&lint).unwrap_or_else(|e| panic!("lint failed:\n{e}"));
    assert!(
        !out.contains("[ERROR]") && !out.contains("[WARNING]"),
        "{out}"
    );
}

#[test]
fn crd_chart_lints_clean_with_every_gateway_api_switch() {
    let args: Vec<String> = [
        "lint",
        "--linkerd",
        "edge-26.8.3",
        "--crds",
        "--set",
        "installGatewayAPI=true,enableHttpRoutes=false,enableTlsRoutes=true,enableTcpRoutes=false",
    ]
    .map(String::from)
    .to_vec();
    let out = meshchart(&args).unwrap_or_else(|e| panic!("lint failed:\n{e}"));
    assert!(
        !out.contains("[ERROR]") && !out.contains("[WARNING]"),
        "{out}"
    );
}

/// `meshchart render` of the control plane with no values at all: everything is generated, kept
/// in `--certs-dir`, and a second render from that folder is byte for byte the first.
#[test]
fn render_without_values_is_reproducible_from_the_certs_dir() {
    let certs = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("edge-26.8.3-no-values-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&certs);
    let args: Vec<String> = [
        "render",
        "--linkerd",
        "edge-26.8.3",
        "--namespace",
        "linkerd",
        "--certs-dir",
    ]
    .map(String::from)
    .into_iter()
    .chain([certs.to_string_lossy().into_owned()])
    .collect();
    let first = meshchart(&args).unwrap_or_else(|e| panic!("no values: {e}"));
    assert!(certs.join("policy-validator.crt").is_file());
    let second = meshchart(&args).unwrap_or_else(|e| panic!("from the certs dir: {e}"));
    let _ = std::fs::remove_dir_all(&certs);
    assert!(first == second, "the second render differs from the first");
    assert!(first.contains("name: linkerd-policy-validator-k8s-tls"));
}
