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
pub fn pod_template<'a>(root: &'a Map, kind: &WorkloadKind) -> Option<&'a Map> {
    let mut current = root;
    for key in kind.template_path {
        current = current.get(*key)?.as_map()?;
    }
    Some(current)
}

/// The pod template of a workload document, if it has one, to change.
pub fn pod_template_mut<'a>(root: &'a mut Value, kind: &WorkloadKind) -> Option<&'a mut Map> {
    let mut current = root.as_map_mut()?;
    for key in kind.template_path {
        current = current.get_mut(*key)?.as_map_mut()?;
    }
    Some(current)
}

/// A workload field whose value has the wrong shape (`initContainers: {a: 1}`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeProblem {
    /// The field's path from the document root (`spec.template.spec.initContainers`).
    pub field: String,
    /// The shape it must have: `a map`, `a list`.
    pub expected: &'static str,
    /// The shape found: `a list`, `a string`, ...
    pub found: &'static str,
}

fn shape(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Int(_) => "an integer",
        Value::Float(_) | Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Seq(_) => "a list",
        Value::Map(_) => "a map",
    }
}

fn problem(path: &[&str], expected: &'static str, found: &Value) -> ShapeProblem {
    ShapeProblem {
        field: path.join("."),
        expected,
        found: shape(found),
    }
}

/// The map at `key` of `owner` (`None` when absent or null), or the problem.
fn map_field<'a>(
    owner: &'a Map,
    path: &mut Vec<&'a str>,
    key: &'a str,
) -> Result<Option<&'a Map>, ShapeProblem> {
    match owner.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Map(m)) => Ok(Some(m)),
        Some(other) => {
            path.push(key);
            Err(problem(path, "a map", other))
        }
    }
}

fn check_metadata<'a>(owner: &'a Map, path: &[&'a str]) -> Result<(), ShapeProblem> {
    let mut at = path.to_vec();
    let Some(metadata) = map_field(owner, &mut at, "metadata")? else {
        return Ok(());
    };
    at.push("metadata");
    for field in ["annotations", "labels"] {
        map_field(metadata, &mut at.clone(), field)?;
    }
    Ok(())
}

/// Checks the fields inject reads and rewrites: `metadata` (with `annotations` and `labels`)
/// of the workload and of its pod template, the path down to the template, the pod `spec`,
/// and its `containers`, `initContainers` and `volumes` (lists of maps). An absent or null
/// field is fine (there is nothing to replace); any other shape would be silently overwritten,
/// so it is refused.
pub fn check_shapes(doc: &Value, kind: &WorkloadKind) -> Result<(), ShapeProblem> {
    let Some(root) = doc.as_map() else {
        return Ok(());
    };
    check_metadata(root, &[])?;
    let mut path: Vec<&str> = Vec::new();
    let mut template = root;
    for key in kind.template_path {
        match map_field(template, &mut path, key)? {
            Some(next) => template = next,
            // No pod template: reported as such, not an error.
            None => return Ok(()),
        }
        path.push(key);
    }
    if !kind.template_path.is_empty() {
        check_metadata(template, &path)?;
    }
    let Some(spec) = map_field(template, &mut path, "spec")? else {
        return Ok(());
    };
    path.push("spec");
    for field in ["containers", "initContainers", "volumes"] {
        match spec.get(field) {
            None | Some(Value::Null) => {}
            Some(Value::Seq(items)) => {
                for (index, item) in items.iter().enumerate() {
                    if !matches!(item, Value::Map(_)) {
                        let name = format!("{field}[{index}]");
                        let mut at = path.clone();
                        at.push(&name);
                        return Err(problem(&at, "a map", item));
                    }
                }
            }
            Some(other) => {
                path.push(field);
                return Err(problem(&path, "a list", other));
            }
        }
    }
    Ok(())
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

    fn shape_of(yaml: &str) -> Result<(), ShapeProblem> {
        let doc = crate::yaml::parse_document(yaml).unwrap();
        let kind = workload_kind(doc.get_path(&["kind"]).unwrap().as_str().unwrap()).unwrap();
        check_shapes(&doc, kind)
    }

    #[test]
    fn wrong_shapes_are_named_with_their_path() {
        let cases = [
            (
                "kind: Pod\nspec: {initContainers: {a: 1}}",
                "spec.initContainers",
                "a list",
                "a map",
            ),
            (
                "kind: Pod\nmetadata: {annotations: [a, b]}",
                "metadata.annotations",
                "a map",
                "a list",
            ),
            ("kind: Pod\nmetadata: [1]", "metadata", "a map", "a list"),
            (
                "kind: Deployment\nspec: {template: {metadata: {labels: x}}}",
                "spec.template.metadata.labels",
                "a map",
                "a string",
            ),
            (
                "kind: Deployment\nspec: {template: {spec: {containers: [1]}}}",
                "spec.template.spec.containers[0]",
                "a map",
                "an integer",
            ),
            ("kind: Deployment\nspec: [1]", "spec", "a map", "a list"),
            (
                "kind: CronJob\nspec: {jobTemplate: {spec: {template: {spec: {volumes: {}}}}}}",
                "spec.jobTemplate.spec.template.spec.volumes",
                "a list",
                "a map",
            ),
        ];
        for (yaml, field, expected, found) in cases {
            assert_eq!(
                shape_of(yaml),
                Err(ShapeProblem {
                    field: field.into(),
                    expected,
                    found
                }),
                "{yaml}"
            );
        }
    }

    #[test]
    fn absent_and_null_fields_are_fine() {
        for yaml in [
            "kind: Pod",
            "kind: Pod\nmetadata:\nspec: {containers: [{name: a}], initContainers: null}",
            "kind: Deployment\nspec: {}",
            "kind: Deployment\nspec: {template: {metadata: {annotations: {}}}}",
        ] {
            assert_eq!(shape_of(yaml), Ok(()), "{yaml}");
        }
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
