//! What inject writes, in one place, so that uninject removes exactly that.
//!
//! Inject owns: the `linkerd-proxy` and `linkerd-init` containers, the `linkerd-debug` container
//! when it added it (the marker says so; a pod may have a debug container of its own), the identity
//! and xtables volumes, the [`OWNED_ANNOTATIONS`] and [`OWNED_LABELS`] on the pod template
//! (except labels the workload's selector matches on, like a control-plane pod's), and the
//! [`ADDED_MARKER`] annotation. Everything else on the pod is the user's, including every
//! `config.linkerd.io/*` annotation and `linkerd.io/inject`.
//!
//! Some of what inject adds cannot be told apart from the user's own afterwards: a
//! `kubectl.kubernetes.io/default-container` annotation pointing at the first app container,
//! or an empty `annotations`/`labels`/`volumes`/`initContainers` that inject had to create. Inject
//! records those in the [`ADDED_MARKER`] annotation, a comma-separated list of [`Added`] tokens
//! (empty when it created nothing); uninject removes them only when the marker lists them (and,
//! for the default container, only while it still names the first app container), then removes
//! the marker. A pod without the marker was injected by someone else (upstream's `linkerd
//! inject`): there uninject drops the collections its removals emptied.

use super::workload::{spec_list, str_at};
use crate::values::{Map, Value};

use super::sidecar::{
    DEBUG_CONTAINER, IDENTITY_VOLUME, INIT_CONTAINER, NETWORK_VALIDATOR_CONTAINER, PROXY_CONTAINER,
    XTABLES_VOLUME,
};

/// The annotation recording what inject created that cannot be recognised later.
pub(crate) const ADDED_MARKER: &str = "meshchart.io/inject-added";

/// kubectl's default container for `logs`/`exec`, set by inject when the proxy goes first.
pub(crate) const DEFAULT_CONTAINER: &str = "kubectl.kubernetes.io/default-container";

/// Pod template annotations inject writes (and upstream's `created-by`, which uninject also
/// removes from pods injected by `linkerd inject`).
pub(crate) const OWNED_ANNOTATIONS: &[&str] = &[
    "linkerd.io/proxy-version",
    "linkerd.io/identity-mode",
    "linkerd.io/created-by",
    "linkerd.io/trust-root-sha256",
    ADDED_MARKER,
];

/// The proxy version annotation.
pub(crate) const PROXY_VERSION_ANNOTATION: &str = "linkerd.io/proxy-version";
/// The identity mode annotation (`default` or `disabled`).
pub(crate) const IDENTITY_MODE_ANNOTATION: &str = "linkerd.io/identity-mode";

/// The label naming the control plane's namespace.
pub(crate) const CONTROL_PLANE_NS_LABEL: &str = "linkerd.io/control-plane-ns";
/// The label naming the workload's namespace.
pub(crate) const WORKLOAD_NS_LABEL: &str = "linkerd.io/workload-ns";

/// Pod template labels inject writes.
pub(crate) const OWNED_LABELS: &[&str] = &[
    CONTROL_PLANE_NS_LABEL,
    WORKLOAD_NS_LABEL,
    "linkerd.io/proxy-deployment",
    "linkerd.io/proxy-replicaset",
    "linkerd.io/proxy-replicationcontroller",
    "linkerd.io/proxy-statefulset",
    "linkerd.io/proxy-daemonset",
    "linkerd.io/proxy-job",
    "linkerd.io/proxy-cronjob",
];

/// Containers inject adds to `containers`, always.
pub(crate) const OWNED_CONTAINERS: &[&str] = &[PROXY_CONTAINER];
/// The debug container, which inject adds when asked (recorded as [`Added::DebugContainer`]).
pub(crate) const OWNED_DEBUG_CONTAINER: &str = DEBUG_CONTAINER;
/// Containers inject adds to `initContainers` (the proxy too, where a native sidecar put it,
/// and the network validator that stands in for linkerd-init with the CNI plugin).
pub(crate) const OWNED_INIT_CONTAINERS: &[&str] =
    &[INIT_CONTAINER, PROXY_CONTAINER, NETWORK_VALIDATOR_CONTAINER];
/// Volumes inject adds: the 2021 chart's two, and those the release lines' charts declare
/// (the projected identity token; the pod-info files a tracing proxy reads).
pub(crate) const OWNED_VOLUMES: &[&str] = &[
    IDENTITY_VOLUME,
    XTABLES_VOLUME,
    "linkerd-identity-token",
    "linkerd-podinfo",
];

/// A container of the pod's own that carries one of the names inject owns (a `linkerd-proxy`
/// running nginx, say): its name and image. Inject would replace it and uninject would delete
/// it, so both leave such a pod alone.
///
/// A container is the mesh's when something besides its name says so: the pod carries
/// [`ADDED_MARKER`], or the container runs one of the mesh's images (`…/proxy`, `…/proxy-init`
/// under any registry and tag), has the proxy's `LINKERD2_PROXY_*` environment, the proxy-init
/// arguments (`--incoming-proxy-port`), or the network validator's binary. A container with no
/// image at all is not a workload's own (Kubernetes rejects it), so it counts as the mesh's.
pub(crate) fn foreign_container_with_owned_name(template: &Map) -> Option<(String, String)> {
    let marked = template
        .get("metadata")
        .and_then(Value::as_map)
        .and_then(|m| m.get("annotations"))
        .and_then(Value::as_map)
        .is_some_and(|a| a.contains_key(ADDED_MARKER));
    if marked {
        return None;
    }
    let candidates = spec_list(template, "containers")
        .iter()
        .map(|c| (c, OWNED_CONTAINERS))
        .chain(
            spec_list(template, "initContainers")
                .iter()
                .map(|c| (c, OWNED_INIT_CONTAINERS)),
        );
    candidates
        .filter_map(|(container, owned)| container.as_map().map(|c| (c, owned)))
        .find(|(container, owned)| {
            owned.contains(&str_at(container, &["name"])) && !looks_like_the_mesh(container)
        })
        .map(|(container, _)| {
            (
                str_at(container, &["name"]).to_owned(),
                str_at(container, &["image"]).to_owned(),
            )
        })
}

/// Whether a container bears one of the marks of the mesh's own containers (see
/// [`foreign_container_with_owned_name`]).
fn looks_like_the_mesh(container: &Map) -> bool {
    let image = str_at(container, &["image"]);
    if image.is_empty() {
        return true;
    }
    let repository = image.split('@').next().unwrap_or(image);
    let last = repository.rsplit('/').next().unwrap_or(repository);
    let last = last.split(':').next().unwrap_or(last);
    if matches!(last, "proxy" | "proxy-init") {
        return true;
    }
    let strings = |key: &str| -> Vec<&str> {
        match container.get(key) {
            Some(Value::Seq(items)) => items.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        }
    };
    let proxy_env = match container.get("env") {
        Some(Value::Seq(vars)) => vars
            .iter()
            .filter_map(Value::as_map)
            .any(|v| str_at(v, &["name"]).starts_with("LINKERD2_PROXY_")),
        _ => false,
    };
    proxy_env
        || strings("args").contains(&"--incoming-proxy-port")
        || strings("command")
            .iter()
            .any(|c| c.ends_with("linkerd2-network-validator"))
}

/// Something inject created that uninject cannot recognise without being told.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Added {
    /// The pod template had no `metadata`.
    Metadata,
    /// The pod template had no `metadata.annotations`.
    Annotations,
    /// The pod template had no `metadata.labels`.
    Labels,
    /// The pod had no `initContainers`.
    InitContainers,
    /// The pod had no `volumes`.
    Volumes,
    /// Inject set [`DEFAULT_CONTAINER`].
    DefaultContainer,
    /// Inject added the `linkerd-debug` container.
    DebugContainer,
}

impl Added {
    /// Every token, in the order the marker lists them.
    pub(crate) const ALL: [Added; 7] = [
        Added::Metadata,
        Added::Annotations,
        Added::Labels,
        Added::InitContainers,
        Added::Volumes,
        Added::DefaultContainer,
        Added::DebugContainer,
    ];

    /// The token in the marker.
    pub(crate) fn token(self) -> &'static str {
        match self {
            Added::Metadata => "metadata",
            Added::Annotations => "annotations",
            Added::Labels => "labels",
            Added::InitContainers => "initContainers",
            Added::Volumes => "volumes",
            Added::DefaultContainer => "default-container",
            Added::DebugContainer => "debug-container",
        }
    }
}

/// Writes the marker's value (empty when nothing needs recording; the marker is still written).
pub(crate) fn marker_value(added: &[Added]) -> String {
    Added::ALL
        .iter()
        .filter(|a| added.contains(a))
        .map(|a| a.token())
        .collect::<Vec<_>>()
        .join(",")
}

/// Reads a marker's value; unknown tokens are ignored.
pub(crate) fn parse_marker(text: &str) -> Vec<Added> {
    text.split(',')
        .filter_map(|t| Added::ALL.into_iter().find(|a| a.token() == t.trim()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_round_trips_in_a_fixed_order() {
        let text = marker_value(&[Added::DefaultContainer, Added::Annotations]);
        assert_eq!(text, "annotations,default-container");
        assert_eq!(
            parse_marker(&text),
            vec![Added::Annotations, Added::DefaultContainer]
        );
        assert_eq!(parse_marker("bogus, volumes"), vec![Added::Volumes]);
    }
}
