//! Documents already checked, for renders that repeat them: a fleet's clusters share most of
//! their documents (CRDs, RBAC, most configuration) byte for byte, and checking a document's
//! YAML and reading its head is a fifth of rendering a cluster.

use crate::yaml::{self, ManifestHead, YamlError};
use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{PoisonError, RwLock};

/// How much document text the cache keeps at most; past it, documents are checked every time.
const KEPT_BYTES: usize = 4 << 20;

/// Documents with the same hash of their text, each with its head.
type SameHash = Vec<(Box<str>, ManifestHead)>;

/// The heads of documents that passed the check, by their exact text.
#[derive(Default)]
pub struct CheckedDocuments {
    heads: RwLock<HashMap<u64, SameHash>>,
    kept_bytes: AtomicUsize,
}

impl CheckedDocuments {
    /// [`yaml::scan_manifest_head`] of `text`, from the cache when the same text passed before.
    pub fn head(&self, text: &str) -> Result<ManifestHead, YamlError> {
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
        let head = yaml::scan_manifest_head(text)?;
        if self.kept_bytes.fetch_add(text.len(), Ordering::Relaxed) + text.len() <= KEPT_BYTES {
            self.heads
                .write()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(key)
                .or_default()
                .push((text.into(), head.clone()));
        }
        Ok(head)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_document_gets_the_head_it_got_the_first_time() {
        let checked = CheckedDocuments::default();
        let text = "kind: ConfigMap\nmetadata:\n  name: a\n  namespace: b";
        let first = checked.head(text).expect("valid");
        assert_eq!(checked.head(text).expect("valid"), first);
        assert_eq!(
            (first.kind.as_str(), first.name.as_str()),
            ("ConfigMap", "a")
        );
    }

    #[test]
    fn invalid_documents_fail_every_time() {
        let checked = CheckedDocuments::default();
        assert!(checked.head("a: [").is_err());
        assert!(checked.head("a: [").is_err());
    }

    #[test]
    fn documents_differing_in_one_byte_are_checked_apart() {
        let checked = CheckedDocuments::default();
        assert_eq!(checked.head("kind: A").expect("valid").kind, "A");
        assert_eq!(checked.head("kind: B").expect("valid").kind, "B");
    }
}
