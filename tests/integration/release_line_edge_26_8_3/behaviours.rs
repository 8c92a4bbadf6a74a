//! The edge-26.8.3 line's behaviours beyond the recorded cases: its values files against upstream's, the CRD switches, control-plane await, generated certificates, lint.

use super::*;
use meshchart::values::{Map, Value};
use std::path::PathBuf;
use support::release_line::{compare, meshchart, repo, resources, yaml_file};

#[test]
fn our_defaults_are_upstreams_plus_control_plane_await() {
    let mut ours = yaml_file(&repo().join(CONTROL_PLANE_VALUES).join("values.yaml"));
    let upstream = yaml_file(&repo().join(LINE.cases_dir()).join("values.yaml"));
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
    let upstream = yaml_file(&LINE.case_dir("ha").join("values-ha.yaml"));
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
    let mut args = LINE.case_args("defaults");
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
    let args: Vec<String> = LINE
        .case_args("defaults")
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
        let mut args = LINE.case_args("defaults");
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
    let mut lint: Vec<String> = LINE.case_args("ha");
    lint[0] = "lint".to_owned();
    lint.extend(["-f".to_owned(), format!("{}/values.yaml", LINE.cases_dir())]);
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
