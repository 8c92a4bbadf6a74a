//! What the modern release lines need to start on a real cluster, read from the sources of each
//! release (the release-lines issue's B1-B7): each check names what would fail without it.
//! The field-by-field comparisons with Helm's renders (`release_line_edge_*.rs`) cover these
//! too; here each is one stated requirement, for edge-24.10.2 and edge-26.8.3 alike.

use crate::support;

use meshchart::values::Value;
use support::cli::command;

const LINES: [&str; 2] = ["edge-24.10.2", "edge-26.8.3"];

/// The pinned identity and webhook material, so the renders need nothing generated.
fn material() -> Vec<String> {
    let mut args = Vec::new();
    let mut file = |key: &str, path: &str| {
        args.push("--set-file".to_owned());
        args.push(format!("{key}=tests/certs/{path}"));
    };
    file("identityTrustAnchorsPEM", "ca.crt");
    file("identity.issuer.tls.crtPEM", "issuer.crt");
    file("identity.issuer.tls.keyPEM", "issuer.key");
    for (key, name) in [
        ("proxyInjector", "proxy-injector"),
        ("profileValidator", "sp-validator"),
        ("policyValidator", "policy-validator"),
    ] {
        file(&format!("{key}.crtPEM"), &format!("{name}.crt"));
        file(&format!("{key}.keyPEM"), &format!("{name}.key"));
        file(&format!("{key}.caBundle"), &format!("{name}.crt"));
    }
    args
}

/// The documents of `meshchart render --linkerd LINE [extra]`.
fn render(line: &str, extra: &[String]) -> Vec<Value> {
    let out = command(&["render", "--linkerd", line, "-n", "linkerd"])
        .args(extra)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .output()
        .expect("run meshchart");
    assert!(
        out.status.success(),
        "{line}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    meshchart::yaml::parse_documents(&String::from_utf8(out.stdout).expect("UTF-8"))
        .expect("the render reads back")
}

fn control_plane(line: &str) -> Vec<Value> {
    render(line, &material())
}

fn crds(line: &str) -> Vec<Value> {
    render(line, &["--crds".to_owned()])
}

fn text<'v>(value: &'v Value, path: &[&str]) -> &'v str {
    value.get_path(path).and_then(Value::as_str).unwrap_or("")
}

fn find<'d>(docs: &'d [Value], kind: &str, name: &str) -> Option<&'d Value> {
    docs.iter()
        .find(|d| text(d, &["kind"]) == kind && text(d, &["metadata", "name"]) == name)
}

fn list<'v>(value: &'v Value, path: &[&str]) -> &'v [Value] {
    match value.get_path(path) {
        Some(Value::Seq(items)) => items,
        _ => &[],
    }
}

/// Every container of a Deployment's pod, init containers (native sidecars) included.
fn containers(deployment: &Value) -> impl Iterator<Item = &Value> {
    let spec = ["spec", "template", "spec"];
    list(deployment, &[spec[0], spec[1], spec[2], "initContainers"])
        .iter()
        .chain(list(deployment, &[spec[0], spec[1], spec[2], "containers"]))
}

fn container<'d>(deployment: &'d Value, name: &str) -> &'d Value {
    containers(deployment)
        .find(|c| text(c, &["name"]) == name)
        .unwrap_or_else(|| panic!("no container {name}"))
}

fn deployment<'d>(docs: &'d [Value], name: &str) -> &'d Value {
    find(docs, "Deployment", name).unwrap_or_else(|| panic!("no Deployment {name}"))
}

fn env_names(container: &Value) -> Vec<&str> {
    list(container, &["env"])
        .iter()
        .map(|e| text(e, &["name"]))
        .collect()
}

fn mount_paths(container: &Value) -> Vec<&str> {
    list(container, &["volumeMounts"])
        .iter()
        .map(|m| text(m, &["mountPath"]))
        .collect()
}

#[test]
fn every_proxy_knows_its_policy_service_or_it_exits_at_start() {
    for line in LINES {
        let docs = control_plane(line);
        for name in [
            "linkerd-destination",
            "linkerd-identity",
            "linkerd-proxy-injector",
        ] {
            let env = env_names(container(deployment(&docs, name), "linkerd-proxy"));
            for var in [
                "LINKERD2_PROXY_POLICY_SVC_ADDR",
                "LINKERD2_PROXY_POLICY_WORKLOAD",
            ] {
                assert!(env.contains(&var), "{line} {name}: no {var}");
            }
        }
    }
}

#[test]
fn identity_and_the_injector_read_the_trust_roots_from_their_config_map() {
    for line in LINES {
        let docs = control_plane(line);
        assert!(
            find(&docs, "ConfigMap", "linkerd-identity-trust-roots").is_some(),
            "{line}: no trust-roots ConfigMap"
        );
        for (name, main) in [
            ("linkerd-identity", "identity"),
            ("linkerd-proxy-injector", "proxy-injector"),
        ] {
            let mounts = mount_paths(container(deployment(&docs, name), main));
            assert!(
                mounts
                    .iter()
                    .any(|m| m.starts_with("/var/run/linkerd/identity/trust-roots")),
                "{line} {name}: trust roots not mounted: {mounts:?}"
            );
        }
    }
}

#[test]
fn destination_gets_the_ipv6_flag_with_endpoint_slices_on() {
    for line in LINES {
        let docs = control_plane(line);
        let args: Vec<&str> = list(
            container(deployment(&docs, "linkerd-destination"), "destination"),
            &["args"],
        )
        .iter()
        .filter_map(Value::as_str)
        .collect();
        assert!(
            args.iter().any(|a| a.starts_with("-enable-ipv6=")),
            "{line}: {args:?}"
        );
        assert!(
            args.contains(&"-enable-endpoint-slices=true"),
            "{line}: {args:?}"
        );
    }
}

#[test]
fn the_resources_destination_watches_are_served_and_granted() {
    for line in LINES {
        let crds = crds(line);
        let servers = find(
            &crds,
            "CustomResourceDefinition",
            "servers.policy.linkerd.io",
        )
        .expect("the Server CRD");
        assert!(
            list(servers, &["spec", "versions"])
                .iter()
                .any(|v| text(v, &["name"]) == "v1beta3"
                    && v.get_path(&["served"]) == Some(&Value::Bool(true))),
            "{line}: Server v1beta3 not served"
        );
        assert!(find(
            &crds,
            "CustomResourceDefinition",
            "externalworkloads.workload.linkerd.io"
        )
        .is_some());
        let docs = control_plane(line);
        let granted: Vec<&str> = ["linkerd-linkerd-destination", "linkerd-policy"]
            .iter()
            .filter_map(|role| find(&docs, "ClusterRole", role))
            .flat_map(|role| list(role, &["rules"]))
            .flat_map(|rule| list(rule, &["resources"]))
            .filter_map(Value::as_str)
            .collect();
        for resource in ["externalworkloads", "servers", "endpointslices"] {
            assert!(
                granted.contains(&resource),
                "{line}: {resource} not granted"
            );
        }
    }
}

#[test]
fn the_policy_controller_and_its_service_webhook_and_role_are_there() {
    for line in LINES {
        let docs = control_plane(line);
        container(deployment(&docs, "linkerd-destination"), "policy");
        assert!(find(&docs, "Service", "linkerd-policy").is_some(), "{line}");
        assert!(
            find(&docs, "ClusterRole", "linkerd-policy").is_some(),
            "{line}"
        );
        assert!(
            find(
                &docs,
                "ValidatingWebhookConfiguration",
                "linkerd-policy-validator-webhook-config"
            )
            .is_some(),
            "{line}"
        );
        assert!(find(
            &crds(line),
            "CustomResourceDefinition",
            "httproutes.policy.linkerd.io"
        )
        .is_some());
    }
}

#[test]
fn linkerd_config_carries_the_iptables_mode_the_injector_reads() {
    for line in LINES {
        let docs = control_plane(line);
        let config = find(&docs, "ConfigMap", "linkerd-config").expect("linkerd-config");
        let values = meshchart::yaml::parse_document(text(config, &["data", "values"]))
            .expect("its values read");
        assert!(
            !text(&values, &["proxyInit", "iptablesMode"]).is_empty(),
            "{line}: no proxyInit.iptablesMode"
        );
    }
}

/// The value of a container's `--name=value` argument, if it has one.
fn flag<'v>(container: &'v Value, name: &str) -> Option<&'v str> {
    let prefix = format!("--{name}=");
    list(container, &["args"])
        .iter()
        .filter_map(Value::as_str)
        .find_map(|arg| arg.strip_prefix(&prefix))
}

/// The policy controller's `--default-policy` is the cluster's default for every meshed pod
/// without its own annotation: it must be the user's `proxy.defaultInboundPolicy`, as upstream's
/// chart writes it. Destination's own proxy is forced to all-unauthenticated (the API server must
/// reach its webhooks), and that override must stay on the proxy.
#[test]
fn the_policy_controllers_default_policy_is_the_users_not_destinations_proxy_override() {
    for line in LINES {
        for policy in [
            "cluster-authenticated",
            "all-authenticated",
            "deny",
            "audit",
        ] {
            let mut args = material();
            args.push("--set".to_owned());
            args.push(format!("proxy.defaultInboundPolicy={policy}"));
            let docs = render(line, &args);
            let destination = deployment(&docs, "linkerd-destination");
            assert_eq!(
                flag(container(destination, "policy"), "default-policy"),
                Some(policy),
                "{line}: the policy controller's --default-policy"
            );
            let proxy_env = list(container(destination, "linkerd-proxy"), &["env"]);
            let proxy_policy = proxy_env
                .iter()
                .find(|e| text(e, &["name"]) == "LINKERD2_PROXY_INBOUND_DEFAULT_POLICY")
                .map(|e| text(e, &["value"]));
            assert_eq!(
                proxy_policy,
                Some("all-unauthenticated"),
                "{line}: destination's own proxy keeps its override"
            );
        }
    }
}

/// Every `labels` or `annotations` map under a `metadata`, anywhere in `value`.
fn metadata_maps<'v>(value: &'v Value, out: &mut Vec<(&'v str, &'v Value)>) {
    match value {
        Value::Map(map) => {
            for (key, child) in map {
                if key == "metadata" {
                    for name in ["labels", "annotations"] {
                        if let Some(found) = child.get_path(&[name]) {
                            out.push((name, found));
                        }
                    }
                }
                metadata_maps(child, out);
            }
        }
        Value::Seq(items) => items.iter().for_each(|item| metadata_maps(item, out)),
        _ => {}
    }
}

/// A user's commonLabels or podAnnotations key that the chart writes too is written once, with
/// the user's value (the later one, as Helm's reader takes it), where upstream's chart writes the
/// key twice and kubectl refuses the document; the annotations the chart must force on its own
/// pods (destination's default-inbound-policy) come after the user's and keep the chart's value.
#[test]
fn a_common_label_or_pod_annotation_the_chart_also_writes_is_written_once_with_the_later_value() {
    for line in LINES {
        let mut args = material();
        for set in [
            "commonLabels.app\\.kubernetes\\.io/part-of=mesh",
            "podAnnotations.linkerd\\.io/created-by=me",
            "podAnnotations.config\\.linkerd\\.io/default-inbound-policy=deny",
        ] {
            args.push("--set".to_owned());
            args.push(set.to_owned());
        }
        let docs = render(line, &args);
        let mut maps = Vec::new();
        docs.iter().for_each(|doc| metadata_maps(doc, &mut maps));
        let part_of: Vec<&str> = maps
            .iter()
            .filter(|(name, _)| *name == "labels")
            .filter_map(|(_, map)| map.get_path(&["app.kubernetes.io/part-of"]))
            .filter_map(Value::as_str)
            .collect();
        assert!(part_of.len() > 20, "{line}: {part_of:?}");
        assert!(part_of.iter().all(|v| *v == "mesh"), "{line}: {part_of:?}");
        let pod = ["spec", "template", "metadata", "annotations"];
        let destination_pod = deployment(&docs, "linkerd-destination")
            .get_path(&pod)
            .expect("pod annotations");
        assert_eq!(
            text(
                destination_pod,
                &["config.linkerd.io/default-inbound-policy"]
            ),
            "all-unauthenticated",
            "{line}"
        );
        assert_eq!(
            text(destination_pod, &["linkerd.io/created-by"]),
            "me",
            "{line}"
        );
    }
}
