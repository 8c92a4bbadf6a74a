//! The chart's workloads against the known issues of the Linkerd release that meshes them
//! ([`crate::proxy_support::KnownIssue`]): the warnings `inject` would give, found before
//! anything is deployed.

use crate::inject::workload::{pod_template, workload_kind};
use crate::proxy_support::{is_open_in, NotReadyService, NOT_READY_PEERS};
use crate::values::{Map, Value};

/// A rendered workload that runs into a known issue of `release`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KnownIssueHit {
    /// Its place in the documents given.
    pub document: usize,
    /// `Kind namespace/name` of the workload (no namespace: its name alone).
    pub workload: String,
    /// The warning, naming the issue and the release that fixed it.
    pub message: String,
}

/// The workloads among `documents` (one render's resources) that hit a known issue of the
/// Linkerd release `release` once meshed.
pub(crate) fn hits(documents: &[&Map], release: &str) -> Vec<KnownIssueHit> {
    let issue = NOT_READY_PEERS;
    if !is_open_in(release, &issue) {
        return Vec::new();
    }
    let services: Vec<NotReadyService> = documents
        .iter()
        .filter_map(|document| NotReadyService::from_document(document))
        .collect();
    if services.is_empty() {
        return Vec::new();
    }
    let text = |map: &Map, path: &[&str]| -> String {
        map.get(path[0])
            .and_then(|v| v.get_path(&path[1..]))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let mut found = Vec::new();
    for (index, document) in documents.iter().enumerate() {
        let kind_name = text(document, &["kind"]);
        let Some(kind) = workload_kind(&kind_name) else {
            continue;
        };
        let Some(template) = pod_template(document, kind) else {
            continue;
        };
        let labels = template
            .get("metadata")
            .and_then(|m| m.get_path(&["labels"]))
            .and_then(Value::as_map);
        let namespace = text(document, &["metadata", "namespace"]);
        let Some(service) = services.iter().find(|s| s.selects(&namespace, labels)) else {
            continue;
        };
        let name = text(document, &["metadata", "name"]);
        let workload = if namespace.is_empty() {
            format!("{kind_name} {name}")
        } else {
            format!("{kind_name} {namespace}/{name}")
        };
        found.push(KnownIssueHit {
            document: index,
            message: format!(
                "{workload}: its pods are selected by headless Service {} with \
                 publishNotReadyAddresses: true, and once meshed by Linkerd {release} {} ({}); \
                 {}",
                service.name,
                issue.what,
                issue.issue,
                issue.fix_for(release)
            ),
            workload,
        });
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn documents(yaml: &str) -> Vec<Map> {
        crate::yaml::parse_documents(yaml)
            .expect("valid YAML")
            .into_iter()
            .filter_map(|v| v.as_map().cloned())
            .collect()
    }

    const PEERS: &str = "\
kind: Service
metadata: {name: peers, namespace: db}
spec: {clusterIP: None, publishNotReadyAddresses: true, selector: {app: db}}
---
kind: StatefulSet
metadata: {name: db, namespace: db}
spec:
  template:
    metadata: {labels: {app: db, tier: data}}
    spec: {containers: [{name: db, image: db}]}
---
kind: Deployment
metadata: {name: web, namespace: db}
spec:
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: web}]}
";

    #[test]
    fn a_statefulset_behind_a_not_ready_headless_service_hits_13247_before_edge_25_1_1() {
        let docs = documents(PEERS);
        let refs: Vec<&Map> = docs.iter().collect();
        let found = hits(&refs, "edge-24.10.2");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].workload, "StatefulSet db/db");
        for needle in [
            "peers",
            "linkerd/linkerd2#13247",
            "edge-25.1.1",
            "edge-24.10.2",
        ] {
            assert!(found[0].message.contains(needle), "{}", found[0].message);
        }
    }

    #[test]
    fn the_same_workloads_hit_nothing_on_a_release_with_the_fix() {
        let docs = documents(PEERS);
        let refs: Vec<&Map> = docs.iter().collect();
        assert!(hits(&refs, "edge-26.8.3").is_empty());
    }

    #[test]
    fn a_service_that_does_not_publish_unready_addresses_is_no_hit() {
        let docs = documents(&PEERS.replace(
            "publishNotReadyAddresses: true",
            "publishNotReadyAddresses: false",
        ));
        let refs: Vec<&Map> = docs.iter().collect();
        assert!(hits(&refs, "edge-24.10.2").is_empty());
    }
}
