//! Taking the mesh out of a pod template: exactly what inject adds (see [`super::owned`]).

use super::owned::{
    parse_marker, Added, ADDED_MARKER, DEFAULT_CONTAINER, OWNED_ANNOTATIONS, OWNED_CONTAINERS,
    OWNED_DEBUG_CONTAINER, OWNED_INIT_CONTAINERS, OWNED_LABELS, OWNED_VOLUMES,
};
use super::sidecar::PROXY_CONTAINER;
use super::workload::item_name;
use crate::values::{Map, Value};

/// Removes the sidecars, volumes, annotations and labels inject adds from `template` (a map with
/// `metadata` and `spec`). Returns whether anything was removed.
///
/// Labels the workload's selector matches on (`selector`) are kept even when inject owns them:
/// without them the pod template would no longer match its own selector, which Kubernetes
/// rejects. This is what keeps a control-plane pod's `linkerd.io` labels (upstream leaves a
/// control-plane pod's metadata alone for that reason).
pub(crate) fn uninject_template(template: &mut Map, selector: &Map) -> bool {
    let mut changed = false;
    let added = template
        .get("metadata")
        .and_then(Value::as_map)
        .and_then(|m| m.get("annotations"))
        .and_then(Value::as_map)
        .and_then(|a| a.get(ADDED_MARKER))
        .and_then(Value::as_str)
        .map(parse_marker);
    let marked = added.is_some();
    let added = added.unwrap_or_default();

    // Whether an emptied collection goes: when the marker says inject created it; without a
    // marker (a pod injected by upstream's `linkerd inject`), when what we removed emptied it.
    let drop_if_empty =
        |token: Added, emptied_by_us: bool| added.contains(&token) || (!marked && emptied_by_us);

    if let Some(spec) = template.get_mut("spec").and_then(Value::as_map_mut) {
        let proxied = ["containers", "initContainers"]
            .iter()
            .any(|key| has_named(spec, key, PROXY_CONTAINER));
        changed |= remove_named(spec, "containers", OWNED_CONTAINERS);
        // The debug container goes when inject added it, or from a pod that upstream's inject
        // meshed (a proxy, no marker); a pod's own `linkerd-debug` stays.
        if added.contains(&Added::DebugContainer) || (!marked && proxied) {
            changed |= remove_named(spec, "containers", &[OWNED_DEBUG_CONTAINER]);
        }
        for (token, key, owned) in [
            (
                Added::InitContainers,
                "initContainers",
                OWNED_INIT_CONTAINERS,
            ),
            (Added::Volumes, "volumes", OWNED_VOLUMES),
        ] {
            let removed = remove_named(spec, key, owned);
            changed |= removed;
            if drop_if_empty(token, removed)
                && matches!(spec.get(key), Some(Value::Seq(s)) if s.is_empty())
            {
                spec.remove(key);
            }
        }
    }
    let first_app = template
        .get("spec")
        .and_then(Value::as_map)
        .and_then(|s| s.get("containers"))
        .and_then(|c| match c {
            Value::Seq(items) => items.first().map(|i| item_name(i).to_owned()),
            _ => None,
        })
        .unwrap_or_default();

    let Some(metadata) = template.get_mut("metadata").and_then(Value::as_map_mut) else {
        return changed;
    };
    let mut emptied_metadata = false;
    for (token, key, owned) in [
        (Added::Annotations, "annotations", OWNED_ANNOTATIONS),
        (Added::Labels, "labels", OWNED_LABELS),
    ] {
        let Some(map) = metadata.get_mut(key).and_then(Value::as_map_mut) else {
            continue;
        };
        let owned = owned
            .iter()
            .filter(|k| token != Added::Labels || !selector.contains_key(**k));
        let mut removed = false;
        for k in owned {
            removed |= map.remove(*k).is_some();
        }
        if token == Added::Annotations
            && added.contains(&Added::DefaultContainer)
            && map.get(DEFAULT_CONTAINER).and_then(Value::as_str) == Some(first_app.as_str())
        {
            map.remove(DEFAULT_CONTAINER);
        }
        changed |= removed;
        if drop_if_empty(token, removed) && map.is_empty() {
            metadata.remove(key);
            emptied_metadata = true;
        }
    }
    if drop_if_empty(Added::Metadata, emptied_metadata) && metadata.is_empty() {
        template.remove("metadata");
    }
    changed
}

/// Whether list `key` has an item called `name`.
fn has_named(spec: &Map, key: &str, name: &str) -> bool {
    matches!(spec.get(key), Some(Value::Seq(items)) if items.iter().any(|i| item_name(i) == name))
}

/// Removes the items of list `key` whose `name` is one of `names`.
fn remove_named(spec: &mut Map, key: &str, names: &[&str]) -> bool {
    let Some(Value::Seq(items)) = spec.get_mut(key) else {
        return false;
    };
    let before = items.len();
    items.retain(|item| !names.contains(&item_name(item)));
    items.len() != before
}
