//! Documents already checked, for renders that repeat them: a fleet's clusters share most of
//! their documents (CRDs, RBAC, most configuration) byte for byte, and checking a document's
//! YAML and reading its head is a fifth of rendering a cluster.
//!
//! The documents that do change between clusters (a Deployment naming the cluster's domain,
//! linkerd-config) change in values, not structure. The first of each template's documents is
//! kept as a reference with the shape of each of its lines; the same document of a later
//! cluster that differs from it only in values on their own lines passes with its head, after
//! one comparison of their lines and a check of the changed values.

use crate::yaml::{self, LineShape, ManifestHead, YamlError};
use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{PoisonError, RwLock};

/// How much document text the cache keeps at most; past it, documents are checked every time.
const KEPT_BYTES: usize = 4 << 20;

/// References kept per document of a template (a cluster with HA values has other lines).
const REFERENCES_PER_DOCUMENT: usize = 4;

/// Documents with the same hash of their text, each with its head.
type SameHash = Vec<(Box<str>, ManifestHead)>;

/// A document that passed the line check, with its lines' shapes and its head.
struct Reference {
    text: Box<str>,
    shapes: Vec<LineShape>,
    head: ManifestHead,
}

/// The references of one template, by the document's place in its output.
type TemplateReferences = Vec<Vec<Reference>>;

/// The heads of documents that passed the check, by their exact text, and references for
/// documents that differ from them in values.
#[derive(Default)]
pub struct CheckedDocuments {
    heads: RwLock<HashMap<u64, SameHash>>,
    references: RwLock<HashMap<String, TemplateReferences>>,
    kept_bytes: AtomicUsize,
}

impl CheckedDocuments {
    /// [`yaml::scan_manifest_head`] of `text`, the document at `index` in the output of
    /// `template`: from the cache when the same text passed before, or from a reference for
    /// that document that it differs from in values only.
    pub fn head(
        &self,
        (template, index): (&str, usize),
        text: &str,
    ) -> Result<ManifestHead, YamlError> {
        // Hashed outside the lock, so threads only wait for each other to look up or insert.
        let key = BuildHasherDefault::<DefaultHasher>::default().hash_one(text);
        let known = self
            .heads
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            .and_then(|same_hash| same_hash.iter().find(|(kept, _)| **kept == *text))
            .map(|(_, head)| head.clone());
        if let Some(head) = known {
            return Ok(head);
        }
        if let Some(head) = self.head_by_reference((template, index), text) {
            return Ok(head);
        }
        let mut shapes = Vec::new();
        let head = yaml::scan_manifest_head_and_shapes(text, &mut shapes)?;
        if !shapes.is_empty() && self.room_for(text) {
            let mut references = self
                .references
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            let documents = references.entry(template.to_owned()).or_default();
            if documents.len() <= index {
                documents.resize_with(index + 1, Vec::new);
            }
            if documents[index].len() < REFERENCES_PER_DOCUMENT {
                documents[index].push(Reference {
                    text: text.into(),
                    shapes,
                    head: head.clone(),
                });
            }
        }
        if self.room_for(text) {
            self.heads
                .write()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(key)
                .or_default()
                .push((text.into(), head.clone()));
        }
        Ok(head)
    }

    /// The head of `text` when it differs only in values from a reference kept for the same
    /// document.
    fn head_by_reference(
        &self,
        (template, index): (&str, usize),
        text: &str,
    ) -> Option<ManifestHead> {
        let references = self
            .references
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        references
            .get(template)?
            .get(index)?
            .iter()
            .find(|kept| yaml::same_shape(&kept.text, &kept.shapes, text))
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
