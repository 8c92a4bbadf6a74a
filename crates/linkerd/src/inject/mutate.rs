//! Adding the mesh to a pod template: containers, volumes, annotations and labels.

use super::owned::{
    marker_value, Added, ADDED_MARKER, CONTROL_PLANE_NS_LABEL, DEFAULT_CONTAINER,
    IDENTITY_MODE_ANNOTATION, PROXY_VERSION_ANNOTATION, WORKLOAD_NS_LABEL,
};
use super::sidecar::{
    identity_volume, xtables_volume, PodAdditions, INIT_CONTAINER, XTABLES_VOLUME,
};
use super::workload::{item_name, text_at, truthy, WorkloadKind};
use crate::values::{Map, Value};

/// The containers to add, already rendered.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Sidecar {
    /// What the chart adds to the pod besides the containers (`None`: the chart declares
    /// nothing, and inject adds what the 2021 chart's era did).
    pub additions: Option<PodAdditions>,
    /// `linkerd-proxy`.
    pub proxy: Value,
    /// `linkerd-init`, or with the CNI plugin doing its job the chart's network validator, or
    /// none.
    pub init: Option<Value>,
    /// `linkerd-debug`, when asked for.
    pub debug: Option<Value>,
}

/// Where the proxy goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ProxyPlacement {
    /// `containers[0]`, so that (with its `linkerd-await` postStart hook) the app containers
    /// start only once it is ready: `proxy.await` on.
    First,
    /// After the app containers (and the debug container): `proxy.await` off.
    Last,
    /// A native sidecar (`proxy.nativeSidecar`): in `initContainers`, right after `linkerd-init`
    /// and before the pod's own init containers, which thus run with the proxy up. Kubernetes
    /// starts it before the app (holding the app until its startupProbe passes when awaited)
    /// and stops it after the app, so Jobs complete.
    NativeSidecar,
}

impl ProxyPlacement {
    /// The placement the pod's values ask for.
    pub(crate) fn from_values(values: &Value) -> ProxyPlacement {
        if truthy(values, &["proxy", "nativeSidecar"]) {
            ProxyPlacement::NativeSidecar
        } else if truthy(values, &["proxy", "await"]) {
            ProxyPlacement::First
        } else {
            ProxyPlacement::Last
        }
    }
}

/// Puts the sidecar containers into a pod spec. This is the one function that decides where
/// they go: `linkerd-debug` after the app containers, the proxy per `placement`, and
/// `linkerd-init` after the pod's own init containers, except with a native-sidecar proxy, where
/// `linkerd-init` and then the proxy go first (the pod's init containers get proxied traffic).
/// App containers and the pod's own init containers keep their relative order.
pub(crate) fn place_containers(
    spec: &mut Map,
    sidecar: Sidecar,
    placement: ProxyPlacement,
    added: &mut Vec<Added>,
) {
    let Sidecar {
        proxy, init, debug, ..
    } = sidecar;
    let proxy = if placement == ProxyPlacement::NativeSidecar {
        let inits = ensure_seq(spec, "initContainers", Added::InitContainers, added);
        let front: Vec<Value> = init.into_iter().chain(std::iter::once(proxy)).collect();
        inits.splice(0..0, front);
        None
    } else {
        if let Some(init) = init {
            ensure_seq(spec, "initContainers", Added::InitContainers, added).push(init);
        }
        Some(proxy)
    };
    // A pod without containers is never injected, so nothing is recorded for this list.
    let containers = ensure_seq(spec, "containers", Added::Volumes, &mut Vec::new());
    // A pod with a `linkerd-debug` container of its own keeps it, and gets no second one.
    if let Some(debug) = debug {
        if !containers.iter().any(|c| item_name(c) == item_name(&debug)) {
            containers.push(debug);
            added.push(Added::DebugContainer);
        }
    }
    match (placement, proxy) {
        (ProxyPlacement::First, Some(proxy)) => containers.insert(0, proxy),
        (_, Some(proxy)) => containers.push(proxy),
        (_, None) => {}
    }
}

/// The workload a pod template belongs to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Owner<'a> {
    /// Its kind.
    pub kind: &'static WorkloadKind,
    /// Its name.
    pub name: &'a str,
    /// Its namespace ("" when the manifest leaves it to kubectl).
    pub namespace: &'a str,
}

/// Injects `sidecar` into `template` (a map with `metadata` and `spec`), configured by `values`.
/// The template must not hold a proxy already (uninject it first).
pub(crate) fn inject_template(
    template: &mut Map,
    owner: Owner<'_>,
    values: &Value,
    mut sidecar: Sidecar,
) {
    let mut added = Vec::new();
    let additions = sidecar.additions.take();
    let placement = ProxyPlacement::from_values(values);
    let identity = !truthy(values, &["proxy", "disableIdentity"]);
    let has_init = sidecar
        .init
        .as_ref()
        .is_some_and(|init| item_name(init) == INIT_CONTAINER);
    let first_app = template
        .get("spec")
        .and_then(Value::as_map)
        .and_then(|s| s.get("containers"))
        .and_then(|c| match c {
            Value::Seq(items) => items.first().map(item_name),
            _ => None,
        })
        .unwrap_or_default()
        .to_owned();

    let metadata = ensure_map(template, "metadata", Added::Metadata, &mut added);
    let annotations = ensure_map(metadata, "annotations", Added::Annotations, &mut added);
    match &additions {
        Some(additions) => annotations.extend(additions.annotations.clone()),
        None => {
            let version = match text_at(values, &["proxy", "image", "version"]) {
                v if v.is_empty() => text_at(values, &["linkerdVersion"]),
                v => v,
            };
            annotations.insert(PROXY_VERSION_ANNOTATION.into(), version.into());
            let mode = if identity { "default" } else { "disabled" };
            annotations.insert(IDENTITY_MODE_ANNOTATION.into(), mode.into());
        }
    }
    if placement == ProxyPlacement::First
        && !first_app.is_empty()
        && !annotations.contains_key(DEFAULT_CONTAINER)
    {
        annotations.insert(DEFAULT_CONTAINER.into(), first_app.into());
        added.push(Added::DefaultContainer);
    }

    let labels = ensure_map(metadata, "labels", Added::Labels, &mut added);
    match &additions {
        Some(additions) => labels.extend(additions.labels.clone()),
        None => {
            labels.insert(
                CONTROL_PLANE_NS_LABEL.into(),
                text_at(values, &["namespace"]).into(),
            );
        }
    }
    if let Some(label) = owner.kind.owner_label {
        labels.insert(label.into(), owner.name.into());
    }
    labels.insert(WORKLOAD_NS_LABEL.into(), owner.namespace.into());

    // Pods without a spec are never injected, so nothing is recorded for it.
    let spec = ensure_map(template, "spec", Added::Metadata, &mut Vec::new());
    if let Some(additions) = additions {
        if !additions.volumes.is_empty() {
            ensure_seq(spec, "volumes", Added::Volumes, &mut added).extend(additions.volumes);
        }
    } else if has_init || identity {
        let volumes = ensure_seq(spec, "volumes", Added::Volumes, &mut added);
        if has_init {
            let name = match text_at(values, &["proxyInit", "xtMountPath", "name"]) {
                n if n.is_empty() => XTABLES_VOLUME.to_owned(),
                n => n,
            };
            volumes.push(xtables_volume(&name));
        }
        if identity {
            volumes.push(identity_volume());
        }
    }
    place_containers(spec, sidecar, placement, &mut added);

    // Always written, even empty: its absence marks a pod injected by someone else.
    if let Some(annotations) = template
        .get_mut("metadata")
        .and_then(Value::as_map_mut)
        .and_then(|m| m.get_mut("annotations"))
        .and_then(Value::as_map_mut)
    {
        annotations.insert(ADDED_MARKER.into(), marker_value(&added).into());
    }
}

/// The map at `key`, created (and recorded as `token`) when missing or null.
fn ensure_map<'a>(
    owner: &'a mut Map,
    key: &str,
    token: Added,
    added: &mut Vec<Added>,
) -> &'a mut Map {
    let slot = owner.entry(key.to_owned()).or_insert(Value::Null);
    if !matches!(slot, Value::Map(_)) {
        if matches!(slot, Value::Null) {
            added.push(token);
        }
        *slot = Value::Map(Map::new());
    }
    match slot {
        Value::Map(map) => map,
        _ => unreachable!("made a map above"),
    }
}

/// The list at `key`, created (and recorded as `token`) when missing or null.
fn ensure_seq<'a>(
    owner: &'a mut Map,
    key: &str,
    token: Added,
    added: &mut Vec<Added>,
) -> &'a mut Vec<Value> {
    let slot = owner.entry(key.to_owned()).or_insert(Value::Null);
    if !matches!(slot, Value::Seq(_)) {
        if matches!(slot, Value::Null) {
            added.push(token);
        }
        *slot = Value::Seq(Vec::new());
    }
    match slot {
        Value::Seq(items) => items,
        _ => unreachable!("made a list above"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn container(name: &str) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), name.into());
        Value::Map(m)
    }

    fn names(spec: &Map, key: &str) -> Vec<String> {
        match spec.get(key) {
            Some(Value::Seq(items)) => items.iter().map(|i| item_name(i).to_owned()).collect(),
            _ => Vec::new(),
        }
    }

    fn spec() -> Map {
        let mut spec = Map::new();
        spec.insert(
            "containers".into(),
            Value::Seq(vec![container("a"), container("b")]),
        );
        spec.insert(
            "initContainers".into(),
            Value::Seq(vec![container("setup")]),
        );
        spec
    }

    fn sidecar() -> Sidecar {
        Sidecar {
            additions: None,
            proxy: container("linkerd-proxy"),
            init: Some(container("linkerd-init")),
            debug: Some(container("linkerd-debug")),
        }
    }

    #[test]
    fn proxy_first_when_awaiting() {
        let mut spec = spec();
        place_containers(&mut spec, sidecar(), ProxyPlacement::First, &mut Vec::new());
        assert_eq!(
            names(&spec, "containers"),
            ["linkerd-proxy", "a", "b", "linkerd-debug"]
        );
        assert_eq!(names(&spec, "initContainers"), ["setup", "linkerd-init"]);
    }

    #[test]
    fn native_sidecar_goes_after_linkerd_init_before_the_pods_init_containers() {
        let mut spec = spec();
        let mut added = Vec::new();
        place_containers(
            &mut spec,
            sidecar(),
            ProxyPlacement::NativeSidecar,
            &mut added,
        );
        assert_eq!(names(&spec, "containers"), ["a", "b", "linkerd-debug"]);
        assert_eq!(
            names(&spec, "initContainers"),
            ["linkerd-init", "linkerd-proxy", "setup"]
        );
        assert_eq!(added, [Added::DebugContainer]);
    }

    #[test]
    fn native_sidecar_without_linkerd_init_creates_the_init_list() {
        let mut spec = spec();
        spec.remove("initContainers");
        let mut added = Vec::new();
        let sidecar = Sidecar {
            init: None,
            ..sidecar()
        };
        place_containers(
            &mut spec,
            sidecar,
            ProxyPlacement::NativeSidecar,
            &mut added,
        );
        assert_eq!(names(&spec, "initContainers"), ["linkerd-proxy"]);
        assert_eq!(added, [Added::InitContainers, Added::DebugContainer]);
    }

    #[test]
    fn a_pods_own_debug_container_is_kept_and_not_doubled() {
        let mut spec = spec();
        spec.insert(
            "containers".into(),
            Value::Seq(vec![container("a"), container("linkerd-debug")]),
        );
        let mut added = Vec::new();
        place_containers(&mut spec, sidecar(), ProxyPlacement::Last, &mut added);
        assert_eq!(
            names(&spec, "containers"),
            ["a", "linkerd-debug", "linkerd-proxy"]
        );
        assert!(!added.contains(&Added::DebugContainer), "{added:?}");
    }

    #[test]
    fn proxy_last_without_await() {
        let mut spec = spec();
        place_containers(&mut spec, sidecar(), ProxyPlacement::Last, &mut Vec::new());
        assert_eq!(
            names(&spec, "containers"),
            ["a", "b", "linkerd-debug", "linkerd-proxy"]
        );
    }
}
