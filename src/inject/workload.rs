//! Which kinds carry pods, where their pod template sits, and small accessors on the tree.

use crate::values::{Map, Value};

/// A kind that inject handles, with the path from the document root to its pod template.
///
/// The pod template is the map holding `metadata` and `spec`: for a Pod that is the document
/// itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkloadKind {
    /// The canonical kind name.
    pub kind: &'static str,
    /// Map keys from the root to the pod template.
    pub template_path: &'static [&'static str],
    /// The `linkerd.io/proxy-<kind>` label naming the workload (none for bare Pods).
    pub owner_label: Option<&'static str>,
}

/// Every kind that is injected (matched case-insensitively, as upstream does; `apiVersion` is
/// not consulted).
pub const WORKLOAD_KINDS: &[WorkloadKind] = &[
    WorkloadKind {
        kind: "Pod",
        template_path: &[],
        owner_label: None,
    },
    WorkloadKind {
        kind: "Deployment",
        template_path: &["spec", "template"],
        owner_label: Some("linkerd.io/proxy-deployment"),
    },
    WorkloadKind {
        kind: "ReplicaSet",
        template_path: &["spec", "template"],
        owner_label: Some("linkerd.io/proxy-replicaset"),
    },
    WorkloadKind {
        kind: "ReplicationController",
        template_path: &["spec", "template"],
        owner_label: Some("linkerd.io/proxy-replicationcontroller"),
    },
    WorkloadKind {
        kind: "StatefulSet",
        template_path: &["spec", "template"],
        owner_label: Some("linkerd.io/proxy-statefulset"),
    },
    WorkloadKind {
        kind: "DaemonSet",
        template_path: &["spec", "template"],
        owner_label: Some("linkerd.io/proxy-daemonset"),
    },
    WorkloadKind {
        kind: "Job",
        template_path: &["spec", "template"],
        owner_label: Some("linkerd.io/proxy-job"),
    },
    WorkloadKind {
        kind: "CronJob",
        template_path: &["spec", "jobTemplate", "spec", "template"],
        owner_label: Some("linkerd.io/proxy-cronjob"),
    },
];

/// Looks a kind up in [`WORKLOAD_KINDS`].
pub fn workload_kind(kind: &str) -> Option<&'static WorkloadKind> {
    WORKLOAD_KINDS
        .iter()
        .find(|k| k.kind.eq_ignore_ascii_case(kind))
}

/// The pod template of a workload document, if it has one.
pub fn pod_template_mut<'a>(root: &'a mut Value, kind: &WorkloadKind) -> Option<&'a mut Map> {
    let mut current = root.as_map_mut()?;
    for key in kind.template_path {
        current = current.get_mut(*key)?.as_map_mut()?;
    }
    Some(current)
}

/// A string at `path` under `map`, or "".
pub fn str_at<'a>(map: &'a Map, path: &[&str]) -> &'a str {
    let Some((first, rest)) = path.split_first() else {
        return "";
    };
    let mut current = map.get(*first);
    for key in rest {
        current = current.and_then(|v| v.as_map()).and_then(|m| m.get(*key));
    }
    current.and_then(Value::as_str).unwrap_or_default()
}

/// The string map at `metadata.<field>` of a map (annotations or labels), if it is one.
pub fn meta_map<'a>(owner: &'a Map, field: &str) -> Option<&'a Map> {
    owner.get("metadata")?.as_map()?.get(field)?.as_map()
}

/// A string entry of a metadata map: `metadata.<field>.<key>`.
pub fn meta_entry<'a>(owner: &'a Map, field: &str, key: &str) -> Option<&'a str> {
    meta_map(owner, field)?.get(key)?.as_str()
}

/// The list at `spec.<field>` of a pod template (containers, initContainers, volumes).
pub fn spec_list<'a>(template: &'a Map, field: &str) -> &'a [Value] {
    template
        .get("spec")
        .and_then(Value::as_map)
        .and_then(|s| s.get(field))
        .and_then(|v| match v {
            Value::Seq(items) => Some(items.as_slice()),
            _ => None,
        })
        .unwrap_or_default()
}

/// The `name` of a container or volume.
pub fn item_name(item: &Value) -> &str {
    item.as_map()
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// Whether a field holds YAML `true`.
pub fn is_true(map: Option<&Map>, key: &str) -> bool {
    matches!(map.and_then(|m| m.get(key)), Some(Value::Bool(true)))
}

/// Whether a field holds YAML `false`.
pub fn is_false(map: Option<&Map>, key: &str) -> bool {
    matches!(map.and_then(|m| m.get(key)), Some(Value::Bool(false)))
}

/// Sets `value` at `path` in a values tree, creating (or replacing non-map) parents.
pub fn set_path(root: &mut Value, path: &[&str], value: Value) {
    let Some((last, parents)) = path.split_last() else {
        *root = value;
        return;
    };
    let mut current = root;
    for key in parents {
        if !matches!(current, Value::Map(_)) {
            *current = Value::Map(Map::new());
        }
        let Value::Map(map) = current else {
            unreachable!("made a map above")
        };
        current = map
            .entry((*key).to_owned())
            .or_insert_with(|| Value::Map(Map::new()));
    }
    if !matches!(current, Value::Map(_)) {
        *current = Value::Map(Map::new());
    }
    if let Value::Map(map) = current {
        map.insert((*last).to_owned(), value);
    }
}

/// Helm's truthiness of a value at `path` (missing is false).
pub fn truthy(values: &Value, path: &[&str]) -> bool {
    values.get_path(path).is_some_and(|v| !v.is_empty_like())
}

/// A values leaf as text (strings as they are, numbers as digits), "" when missing or empty.
pub fn text_at(values: &Value, path: &[&str]) -> String {
    match values.get_path(path) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Int(i)) => i.to_string(),
        Some(Value::Float(f)) => crate::values::format_go_float(*f),
        Some(Value::Bool(b)) => b.to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_match_case_insensitively() {
        assert_eq!(
            workload_kind("deployment").map(|k| k.kind),
            Some("Deployment")
        );
        assert_eq!(workload_kind("CRONJOB").map(|k| k.kind), Some("CronJob"));
        assert!(workload_kind("Service").is_none());
    }

    #[test]
    fn set_path_creates_parents() {
        let mut v = Value::Map(Map::new());
        set_path(&mut v, &["proxy", "ports", "admin"], Value::Int(1));
        assert_eq!(
            v.get_path(&["proxy", "ports", "admin"]),
            Some(&Value::Int(1))
        );
        set_path(&mut v, &["proxy", "ports"], Value::from("x"));
        set_path(&mut v, &["proxy", "ports", "admin"], Value::Int(2));
        assert_eq!(
            v.get_path(&["proxy", "ports", "admin"]),
            Some(&Value::Int(2))
        );
    }
}
