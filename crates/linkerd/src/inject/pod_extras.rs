//! What inject reads off a pod template besides its annotations: service-account mounts, inbound
//! and named ports, UDP, foreign sidecars, selector labels, and the values they turn into. Separate
//! because it only reads a template and knows nothing of streams or caches.

use super::workload;
use super::workload::{set_path, spec_list, str_at, WorkloadKind};
use crate::values::{Map, Value};

/// Mount path of the service account token, which the sidecars mount too when the app does.
const SA_MOUNT_PATH: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

/// Container names and image prefixes of sidecars that rule injection out: another mesh's, or a
/// Linkerd proxy under a name we would not remove.
const FOREIGN_SIDECAR_NAMES: &[&str] = &["istio-proxy", "istio-init", "istio-validation"];
const FOREIGN_SIDECAR_IMAGES: &[&str] = &[
    "cr.l5d.io/linkerd/proxy:",
    "cr.l5d.io/linkerd/proxy-init:",
    "gcr.io/istio-release/proxyv2:",
    "gcr.io/istio-release/proxy_init:",
    "docker.io/istio/proxyv2:",
    "istio/proxyv2:",
];

/// What the pod's first app container dictates to the sidecars: its capabilities (`add` and
/// `drop`) and its service account token mount, which the sidecars copy.
#[derive(Clone, Debug, Default)]
pub(super) struct PodExtras {
    pub(super) capabilities: Option<Map>,
    pub(super) sa_mount: Option<Map>,
    /// The ports the app containers listen on, for the proxy's `LINKERD2_PROXY_INBOUND_PORTS`.
    pub(super) inbound_ports: String,
}

pub(super) fn pod_extras(template: &Map) -> PodExtras {
    let inbound_ports = inbound_ports(template);
    let Some(first) = spec_list(template, "containers")
        .first()
        .and_then(Value::as_map)
    else {
        return PodExtras {
            inbound_ports,
            ..PodExtras::default()
        };
    };
    let capabilities = first
        .get("securityContext")
        .and_then(Value::as_map)
        .and_then(|s| s.get("capabilities"))
        .and_then(Value::as_map)
        .map(|caps| {
            ["add", "drop"]
                .into_iter()
                .filter_map(|key| caps.get(key).map(|list| (key.to_owned(), list.clone())))
                .collect()
        });
    let sa_mount = match first.get("volumeMounts") {
        Some(Value::Seq(mounts)) => mounts
            .iter()
            .filter_map(Value::as_map)
            .find(|m| str_at(m, &["mountPath"]) == SA_MOUNT_PATH)
            .map(|mount| {
                let mut sa = Map::new();
                sa.insert("mountPath".into(), SA_MOUNT_PATH.into());
                sa.insert("name".into(), str_at(mount, &["name"]).into());
                sa.insert(
                    "readOnly".into(),
                    Value::Bool(workload::is_true(Some(mount), "readOnly")),
                );
                sa
            }),
        _ => None,
    };
    PodExtras {
        capabilities,
        sa_mount,
        inbound_ports,
    }
}

/// The ports the pod's app containers declare, and those their liveness and readiness probes
/// reach by number (`httpGet`), comma-separated in text order ("10000" before "80"), as
/// upstream's injector lists them for `proxy.podInboundPorts`.
pub(super) fn inbound_ports(template: &Map) -> String {
    let mut ports = std::collections::BTreeSet::new();
    for container in spec_list(template, "containers")
        .iter()
        .filter_map(Value::as_map)
    {
        if let Some(Value::Seq(declared)) = container.get("ports") {
            for port in declared.iter().filter_map(Value::as_map) {
                if let Some(Value::Int(number)) = port.get("containerPort") {
                    ports.insert(number.to_string());
                }
            }
        }
        for probe in ["readinessProbe", "livenessProbe"] {
            if let Some(Value::Int(number)) = container
                .get(probe)
                .and_then(|p| p.get_path(&["httpGet", "port"]))
            {
                ports.insert(number.to_string());
            }
        }
    }
    ports.into_iter().collect::<Vec<_>>().join(",")
}

/// The values the sidecar partials render with, but for the inbound ports
/// ([`with_inbound_ports`]): the pod's configuration plus the pod's [`PodExtras`] and the
/// workload kind.
pub(super) fn pod_values(mut values: Value, extras: &PodExtras, kind: &WorkloadKind) -> Value {
    set_path(
        &mut values,
        &["proxy", "workloadKind"],
        Value::from(kind.kind.to_lowercase()),
    );
    // Both sidecars copy what the first app container dictates.
    for (key, map) in [
        ("capabilities", &extras.capabilities),
        ("saMountPath", &extras.sa_mount),
    ] {
        if let Some(map) = map {
            for sidecar in ["proxy", "proxyInit"] {
                set_path(&mut values, &[sidecar, key], Value::Map(map.clone()));
            }
        }
    }
    values
}

/// `values` ([`pod_values`]) with the pod's inbound ports ([`PodExtras::inbound_ports`]), which
/// the release lines' proxy partials read (the 2021 one has no such setting).
pub(super) fn with_inbound_ports(mut values: Value, inbound_ports: &str) -> Value {
    set_path(
        &mut values,
        &["proxy", "podInboundPorts"],
        Value::from(inbound_ports),
    );
    values
}

/// The labels a workload's selector matches its pods on (`spec.selector.matchLabels`, or a
/// ReplicationController's `spec.selector`).
pub(super) fn selector_labels(doc: &Value, kind: &WorkloadKind) -> Map {
    let path: &[&str] = match kind.kind {
        "Pod" | "CronJob" => return Map::new(),
        "ReplicationController" => &["spec", "selector"],
        _ => &["spec", "selector", "matchLabels"],
    };
    doc.get_path(path)
        .and_then(Value::as_map)
        .cloned()
        .unwrap_or_default()
}

/// A container that shows the pod is meshed by someone else already.
pub(super) fn foreign_sidecar(template: &Map) -> Option<String> {
    spec_list(template, "containers")
        .iter()
        .chain(spec_list(template, "initContainers"))
        .filter_map(Value::as_map)
        .find(|c| {
            let name = str_at(c, &["name"]);
            let image = str_at(c, &["image"]);
            FOREIGN_SIDECAR_NAMES.contains(&name)
                || FOREIGN_SIDECAR_IMAGES.iter().any(|p| image.starts_with(p))
        })
        .map(|c| str_at(c, &["name"]).to_owned())
}

/// Named ports of the app containers (for `opaque-ports` names).
pub(super) fn named_ports(template: &Map) -> Vec<(String, i64)> {
    let mut out = Vec::new();
    for container in spec_list(template, "containers") {
        let Some(Value::Seq(ports)) = container.as_map().and_then(|c| c.get("ports")) else {
            continue;
        };
        for port in ports.iter().filter_map(Value::as_map) {
            if let (Some(Value::String(name)), Some(Value::Int(number))) =
                (port.get("name"), port.get("containerPort"))
            {
                out.push((name.clone(), *number));
            }
        }
    }
    out
}

pub(super) fn uses_udp(template: &Map) -> bool {
    spec_list(template, "containers").iter().any(|c| {
        matches!(c.as_map().and_then(|c| c.get("ports")), Some(Value::Seq(ports))
            if ports.iter().filter_map(Value::as_map).any(|p| str_at(p, &["protocol"]) == "UDP"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inbound_ports_are_the_containers_ports_and_numeric_probe_ports_in_text_order() {
        let template = crate::yaml::parse_document(
            "spec:\n  containers:\n  - ports:\n    - containerPort: 80\n    - containerPort: 10000\n\
             \x20   readinessProbe: {httpGet: {port: 9090}}\n\
             \x20   livenessProbe: {httpGet: {port: http}}\n\
             \x20 - ports:\n    - containerPort: 80\n",
        )
        .unwrap();
        let template = template.as_map().unwrap();
        assert_eq!(inbound_ports(template), "10000,80,9090");
        assert_eq!(inbound_ports(&Map::new()), "");
    }
}
