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

use super::sidecar::{
    DEBUG_CONTAINER, IDENTITY_VOLUME, INIT_CONTAINER, NETWORK_VALIDATOR_CONTAINER, PROXY_CONTAINER,
    XTABLES_VOLUME,
};

/// The annotation recording what inject created that cannot be recognised later.
pub const ADDED_MARKER: &str = "meshchart.io/inject-added";

/// kubectl's default container for `logs`/`exec`, set by inject when the proxy goes first.
pub const DEFAULT_CONTAINER: &str = "kubectl.kubernetes.io/default-container";

/// Pod template annotations inject writes (and upstream's `created-by`, which uninject also
/// removes from pods injected by `linkerd inject`).
pub const OWNED_ANNOTATIONS: &[&str] = &[
    "linkerd.io/proxy-version",
    "linkerd.io/identity-mode",
    "linkerd.io/created-by",
    "linkerd.io/trust-root-sha256",
    ADDED_MARKER,
];

/// The proxy version annotation.
pub const PROXY_VERSION_ANNOTATION: &str = "linkerd.io/proxy-version";
/// The identity mode annotation (`default` or `disabled`).
pub const IDENTITY_MODE_ANNOTATION: &str = "linkerd.io/identity-mode";

/// The label naming the control plane's namespace.
pub const CONTROL_PLANE_NS_LABEL: &str = "linkerd.io/control-plane-ns";
/// The label naming the workload's namespace.
pub const WORKLOAD_NS_LABEL: &str = "linkerd.io/workload-ns";

/// Pod template labels inject writes.
pub const OWNED_LABELS: &[&str] = &[
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
pub const OWNED_CONTAINERS: &[&str] = &[PROXY_CONTAINER];
/// The debug container, which inject adds when asked (recorded as [`Added::DebugContainer`]).
pub const OWNED_DEBUG_CONTAINER: &str = DEBUG_CONTAINER;
/// Containers inject adds to `initContainers` (the proxy too, where a native sidecar put it,
/// and the network validator that stands in for linkerd-init with the CNI plugin).
pub const OWNED_INIT_CONTAINERS: &[&str] =
    &[INIT_CONTAINER, PROXY_CONTAINER, NETWORK_VALIDATOR_CONTAINER];
/// Volumes inject adds: the 2021 chart's two, and those the release lines' charts declare
/// (the projected identity token; the pod-info files a tracing proxy reads).
pub const OWNED_VOLUMES: &[&str] = &[
    IDENTITY_VOLUME,
    XTABLES_VOLUME,
    "linkerd-identity-token",
    "linkerd-podinfo",
];

/// Something inject created that uninject cannot recognise without being told.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Added {
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
    pub const ALL: [Added; 7] = [
        Added::Metadata,
        Added::Annotations,
        Added::Labels,
        Added::InitContainers,
        Added::Volumes,
        Added::DefaultContainer,
        Added::DebugContainer,
    ];

    /// The token in the marker.
    pub fn token(self) -> &'static str {
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
pub fn marker_value(added: &[Added]) -> String {
    Added::ALL
        .iter()
        .filter(|a| added.contains(a))
        .map(|a| a.token())
        .collect::<Vec<_>>()
        .join(",")
}

/// Reads a marker's value; unknown tokens are ignored.
pub fn parse_marker(text: &str) -> Vec<Added> {
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
