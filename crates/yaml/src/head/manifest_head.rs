//! The part of a rendered manifest that ordering and hooks read.

/// What ordering and hooks need from a rendered manifest: its kind, name, namespace and hook.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ManifestHead {
    /// `kind` (empty when absent).
    pub kind: String,
    /// `metadata.name` (empty when absent).
    pub name: String,
    /// `metadata.namespace` (empty when absent).
    pub namespace: String,
    /// `metadata.annotations["helm.sh/hook"]`, when present.
    pub hook: Option<String>,
}
