//! `inject --config`: the control plane's own configuration, read from its `linkerd-config`
//! ConfigMap, so that injected proxies match the control plane that will run them (the offline
//! twin of `linkerd inject --manual`, which reads that ConfigMap from the cluster).
//!
//! The ConfigMap may come as a whole `meshchart render` output or as what
//! `kubectl get configmap linkerd-config -n linkerd -o yaml` prints (also inside a `v1 List`, or
//! as JSON). Its `data.values` holds the values the control plane was rendered with: trust
//! anchors, proxy image and version, ports, await settings, ... They replace the chart defaults;
//! `-f`/`--set` and then annotations still apply on top.

use super::documents_mentioning;
use super::error::InjectError;
use super::input::Source;
use crate::values::Value;

/// The ConfigMap that holds the control plane's values.
pub(crate) const LINKERD_CONFIG: &str = "linkerd-config";

/// The values in `source`'s `linkerd-config` ConfigMap.
pub(crate) fn values_from_linkerd_config(source: &Source) -> Result<Value, InjectError> {
    let error = |message: String| InjectError::Config {
        path: source.name.clone(),
        message,
    };
    let docs = documents_mentioning(&super::Stream::from(source.clone()), &[LINKERD_CONFIG])?;
    let mut found = Vec::new();
    for doc in &docs {
        collect(doc, &mut found);
    }
    let config = match found.as_slice() {
        [] => {
            return Err(error(format!(
                "holds no ConfigMap {LINKERD_CONFIG}: give a `meshchart render` output, or what \
                 `kubectl get configmap {LINKERD_CONFIG} -n linkerd -o yaml` prints"
            )))
        }
        [one] => *one,
        several => {
            let namespaces: Vec<&str> = several
                .iter()
                .map(|c| text(c, &["metadata", "namespace"]))
                .collect();
            return Err(error(format!(
                "holds {} ConfigMaps {LINKERD_CONFIG} (namespaces: {}): give the one of the \
                 control plane these workloads will use",
                several.len(),
                namespaces.join(", ")
            )));
        }
    };
    let text = match config.get_path(&["data", "values"]) {
        Some(Value::String(text)) => text,
        Some(other) => {
            return Err(error(format!(
                "data.values of ConfigMap {LINKERD_CONFIG} must be a string of YAML, not a {}",
                other.type_name()
            )))
        }
        None => {
            return Err(error(format!(
                "ConfigMap {LINKERD_CONFIG} has no data.values (the control plane's values, which \
                 linkerd 2.10 and later and meshchart write there)"
            )))
        }
    };
    let values = crate::yaml::parse_document(text).map_err(|e| {
        error(format!(
            "data.values of ConfigMap {LINKERD_CONFIG}, line {} column {}: {}",
            e.position.line, e.position.column, e.message
        ))
    })?;
    match values {
        Value::Map(_) => Ok(values),
        Value::Null => Err(error(format!(
            "data.values of ConfigMap {LINKERD_CONFIG} is empty"
        ))),
        other => Err(error(format!(
            "data.values of ConfigMap {LINKERD_CONFIG} must hold a map, not a {}",
            other.type_name()
        ))),
    }
}

/// Gathers the `linkerd-config` ConfigMaps of `doc` (itself, or the items of a `List`).
fn collect<'v>(doc: &'v Value, out: &mut Vec<&'v Value>) {
    let kind = text(doc, &["kind"]);
    if kind == "List" {
        if let Some(Value::Seq(items)) = doc.get_path(&["items"]) {
            items.iter().for_each(|item| collect(item, out));
        }
    } else if kind == "ConfigMap" && text(doc, &["metadata", "name"]) == LINKERD_CONFIG {
        out.push(doc);
    }
}

fn text<'v>(doc: &'v Value, path: &[&str]) -> &'v str {
    doc.get_path(path)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(text: &str) -> Source {
        Source {
            name: "cp.yaml".into(),
            text: text.into(),
        }
    }

    const CONFIG_MAP: &str = "kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: linkerd-config\n  namespace: linkerd\ndata:\n  values: |\n    linkerdVersion: stable-2.10.2\n    proxy:\n      logLevel: debug\n";

    #[test]
    fn reads_the_values_of_the_config_map_among_other_documents() {
        let text = format!("kind: Namespace\nmetadata: {{name: linkerd}}\n---\n{CONFIG_MAP}");
        let values = values_from_linkerd_config(&source(&text)).unwrap();
        assert_eq!(
            values
                .get_path(&["proxy", "logLevel"])
                .and_then(Value::as_str),
            Some("debug")
        );
    }

    #[test]
    fn reads_the_config_map_inside_a_list_and_from_json() {
        let list = format!(
            "apiVersion: v1\nkind: List\nitems:\n- {}",
            CONFIG_MAP.replace('\n', "\n  ")
        );
        assert!(values_from_linkerd_config(&source(&list)).is_ok());
        let json = Source {
            name: "cp.json".into(),
            text: r#"{"kind":"ConfigMap","metadata":{"name":"linkerd-config"},"data":{"values":"linkerdVersion: x\n"}}"#.into(),
        };
        assert!(values_from_linkerd_config(&json).is_ok());
    }

    #[test]
    fn two_config_maps_are_an_error_naming_their_namespaces() {
        let text = format!(
            "{CONFIG_MAP}---\n{}",
            CONFIG_MAP.replace("namespace: linkerd", "namespace: other")
        );
        let err = values_from_linkerd_config(&source(&text))
            .unwrap_err()
            .to_string();
        assert!(err.contains("(namespaces: linkerd, other)"), "{err}");
    }

    #[test]
    fn a_config_map_without_values_or_with_bad_yaml_is_an_error() {
        let no_values = "kind: ConfigMap\nmetadata: {name: linkerd-config}\ndata: {global: x}\n";
        let err = values_from_linkerd_config(&source(no_values))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("--config cp.yaml: ConfigMap linkerd-config has no data.values"),
            "{err}"
        );
        let bad = "kind: ConfigMap\nmetadata: {name: linkerd-config}\ndata:\n  values: \"a: [\"\n";
        let err = values_from_linkerd_config(&source(bad))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("data.values of ConfigMap linkerd-config, line "),
            "{err}"
        );
    }
}
