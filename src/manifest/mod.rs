//! Rendered manifests: splitting a template's output into documents, Helm's install order, framing.

use regex::Regex;
use std::sync::OnceLock;

/// Helm 3.17.1's install order, as observed (kinds not listed sort after these, alphabetically).
pub const INSTALL_ORDER: &[&str] = &[
    "PriorityClass",
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
];

/// Hook names Helm accepts in `helm.sh/hook`.
pub const HOOK_EVENTS: &[&str] = &[
    "pre-install",
    "post-install",
    "pre-delete",
    "post-delete",
    "pre-upgrade",
    "post-upgrade",
    "pre-rollback",
    "post-rollback",
    "test",
    "test-success",
];

/// A document's place in Helm's order: listed kinds by index, then unknown kinds by name.
pub fn kind_rank(kind: &str) -> (usize, &str) {
    match INSTALL_ORDER.iter().position(|k| *k == kind) {
        Some(i) => (i, ""),
        None => (INSTALL_ORDER.len(), kind),
    }
}

fn separator() -> &'static Regex {
    static SEPARATOR: OnceLock<Regex> = OnceLock::new();
    // Helm's own rule: optional whitespace ending in a newline (or the start), `---`, whitespace.
    SEPARATOR.get_or_init(|| Regex::new(r"(?:^|\s*\n)---\s*").expect("valid regex"))
}

/// One document of a template's output, with where it starts in that output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DocumentSlice<'a> {
    /// The trimmed document text.
    pub text: &'a str,
    /// Byte offset of `text` in the template's whole output.
    pub offset: usize,
}

/// Splits a template's output into trimmed, non-empty documents, as Helm does.
pub fn split_documents(output: &str) -> Vec<DocumentSlice<'_>> {
    let trimmed = output.trim();
    let base = output.len() - output.trim_start().len();
    let mut documents = Vec::new();
    let mut start = 0;
    let mut push = |from: usize, to: usize| {
        let mut piece = &trimmed[from..to];
        // Helm keeps a literal `---` line when two separators touch; we drop it (engine.md 3.2).
        while let Some(rest) = piece.trim_start().strip_prefix("---") {
            piece = rest;
        }
        let from = to - piece.len();
        let piece = &trimmed[from..to];
        let text = piece.trim();
        if !text.is_empty() {
            let lead = piece.len() - piece.trim_start().len();
            documents.push(DocumentSlice {
                text,
                offset: base + from + lead,
            });
        }
    };
    for m in separator().find_iter(trimmed) {
        push(start, m.start());
        start = m.end();
    }
    push(start, trimmed.len());
    documents
}

/// 1-based line of byte `offset` in `text`.
pub fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<&str> {
        split_documents(s).into_iter().map(|d| d.text).collect()
    }

    #[test]
    fn documents_split_on_dashes_at_line_start() {
        assert_eq!(texts("a: 1\n---\nb: 2\n"), ["a: 1", "b: 2"]);
    }

    #[test]
    fn dashes_need_no_newline_after_them() {
        assert_eq!(texts("a: 3\n---b: 4"), ["a: 3", "b: 4"]);
    }

    #[test]
    fn dashes_inside_a_value_do_not_split() {
        assert_eq!(texts("x: \"---\"\n"), ["x: \"---\""]);
    }

    #[test]
    fn a_comment_after_the_separator_starts_the_document() {
        assert_eq!(texts("--- # comment\na: 2"), ["# comment\na: 2"]);
    }

    #[test]
    fn empty_documents_are_dropped() {
        assert_eq!(texts("---\n\n---\n  \n"), Vec::<&str>::new());
        assert_eq!(texts("a: 1\n---\n---\nb: 2"), ["a: 1", "b: 2"]);
    }

    #[test]
    fn offsets_point_at_each_document() {
        let out = "\n\nfirst: 1\n---\nsecond: 2\n";
        for d in split_documents(out) {
            assert_eq!(&out[d.offset..d.offset + d.text.len()], d.text);
        }
    }

    #[test]
    fn unknown_kinds_sort_after_known_ones_by_name() {
        assert!(kind_rank("APIService") < kind_rank(""));
        assert!(kind_rank("") < kind_rank("MutatingWebhookConfiguration"));
        assert!(kind_rank("Namespace") < kind_rank("ServiceAccount"));
    }
}
