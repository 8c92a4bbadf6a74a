//! Documents already checked, for renders that repeat them: a fleet's clusters share most of
//! their documents (CRDs, RBAC, most configuration) byte for byte, and checking a document's
//! YAML and reading its head is a fifth of rendering a cluster.
//!
//! Documents come back per template and place in its output: the first few of each are kept
//! with the shape of each of their lines. A later document that is one of them byte for byte
//! gets its head; the documents that do change between clusters (a Deployment naming the
//! cluster's domain, linkerd-config) change in values, not structure, and one that differs from
//! a kept one only in values on their own lines passes with its head, after one comparison of
//! their lines and a check of the changed values.

use crate::yaml::{self, LineShape, ManifestHead, YamlError};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{PoisonError, RwLock};

/// How much document text the cache keeps at most; past it, documents are checked every time.
const KEPT_BYTES: usize = 4 << 20;

/// References kept per document of a template (a cluster with HA values has other lines).
const REFERENCES_PER_DOCUMENT: usize = 4;

/// A document that passed the line check, with its lines' shapes (none when the fast check
/// could not read it: then only the same text matches) and its head.
struct Reference {
    text: Box<str>,
    shapes: Vec<LineShape>,
    head: ManifestHead,
}

/// The references of one template, by the document's place in its output.
type TemplateReferences = Vec<Vec<Reference>>;

/// Documents that passed the check, by template and place, for documents that repeat them
/// or differ from them in values.
#[derive(Default)]
pub(super) struct CheckedDocuments {
    references: RwLock<HashMap<String, TemplateReferences>>,
    kept_bytes: AtomicUsize,
}

impl CheckedDocuments {
    /// [`yaml::scan_manifest_head`] of `text`, the document at `index` in the output of
    /// `template`: from a reference for that document that it equals or differs from in
    /// values only, else checked in full.
    pub(super) fn head(
        &self,
        (template, index): (&str, usize),
        text: &str,
    ) -> Result<ManifestHead, YamlError> {
        if let Some(head) = self.head_by_reference((template, index), text) {
            return Ok(head);
        }
        let mut shapes = Vec::new();
        let head = yaml::scan_manifest_head_and_shapes(text, &mut shapes)?;
        let mut references = self
            .references
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        let documents = references.entry(template.to_owned()).or_default();
        if documents.len() <= index {
            documents.resize_with(index + 1, Vec::new);
        }
        if documents[index].len() < REFERENCES_PER_DOCUMENT && self.room_for(text) {
            documents[index].push(Reference {
                text: text.into(),
                shapes,
                head: head.clone(),
            });
        }
        Ok(head)
    }

    /// The head of `text` when it is a reference kept for the same document, or differs from
    /// one only in values. Comparing texts first stops at their first difference: documents
    /// that change by cluster are not hashed whole to find that they are new.
    fn head_by_reference(
        &self,
        (template, index): (&str, usize),
        text: &str,
    ) -> Option<ManifestHead> {
        let references = self
            .references
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        let kept = references.get(template)?.get(index)?;
        kept.iter()
            .find(|kept| *kept.text == *text)
            .or_else(|| {
                kept.iter()
                    .find(|kept| yaml::same_shape(&kept.text, &kept.shapes, text))
            })
            .map(|kept| kept.head.clone())
    }

    /// Takes room for `text` in what the cache keeps; false once it is full.
    fn room_for(&self, text: &str) -> bool {
        self.kept_bytes.fetch_add(text.len(), Ordering::Relaxed) + text.len() <= KEPT_BYTES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_document_gets_the_head_it_got_the_first_time() {
        let checked = CheckedDocuments::default();
        let text = "kind: ConfigMap\nmetadata:\n  name: a\n  namespace: b";
        let first = checked.head(("t", 0), text).expect("valid");
        assert_eq!(checked.head(("t", 0), text).expect("valid"), first);
        assert_eq!(
            (first.kind.as_str(), first.name.as_str()),
            ("ConfigMap", "a")
        );
    }

    #[test]
    fn invalid_documents_fail_every_time() {
        let checked = CheckedDocuments::default();
        assert!(checked.head(("t", 0), "a: [").is_err());
        assert!(checked.head(("t", 0), "a: [").is_err());
    }

    #[test]
    fn documents_differing_in_one_byte_are_checked_apart() {
        let checked = CheckedDocuments::default();
        assert_eq!(checked.head(("t", 0), "kind: A").expect("valid").kind, "A");
        assert_eq!(checked.head(("t", 0), "kind: B").expect("valid").kind, "B");
    }
}
