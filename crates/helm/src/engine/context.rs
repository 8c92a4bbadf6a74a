//! The objects templates see besides `Values`: `Release`, `Chart`, `Capabilities`, `Template`.

use minijinja::value::{Enumerator, Object, ObjectRepr, Value};
use minijinja::{Error, ErrorKind, State};
use std::fmt;
use std::sync::Arc;

/// Group/versions Helm 3.17.1 reports with no cluster (`helm template`), plus `--api-versions`.
pub const DEFAULT_API_VERSIONS: &[&str] = &[
    "v1",
    "admissionregistration.k8s.io/v1",
    "admissionregistration.k8s.io/v1alpha1",
    "admissionregistration.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1",
    "apiextensions.k8s.io/v1beta1",
    "apiregistration.k8s.io/v1",
    "apiregistration.k8s.io/v1beta1",
    "apps/v1",
    "apps/v1beta1",
    "apps/v1beta2",
    "authentication.k8s.io/v1",
    "authentication.k8s.io/v1alpha1",
    "authentication.k8s.io/v1beta1",
    "authorization.k8s.io/v1",
    "authorization.k8s.io/v1beta1",
    "autoscaling/v1",
    "autoscaling/v2",
    "autoscaling/v2beta1",
    "autoscaling/v2beta2",
    "batch/v1",
    "batch/v1beta1",
    "certificates.k8s.io/v1",
    "certificates.k8s.io/v1alpha1",
    "certificates.k8s.io/v1beta1",
    "coordination.k8s.io/v1",
    "coordination.k8s.io/v1beta1",
    "discovery.k8s.io/v1",
    "discovery.k8s.io/v1beta1",
    "events.k8s.io/v1",
    "events.k8s.io/v1beta1",
    "extensions/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1",
    "flowcontrol.apiserver.k8s.io/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1beta2",
    "flowcontrol.apiserver.k8s.io/v1beta3",
    "networking.k8s.io/v1",
    "networking.k8s.io/v1alpha1",
    "networking.k8s.io/v1beta1",
    "node.k8s.io/v1",
    "node.k8s.io/v1alpha1",
    "node.k8s.io/v1beta1",
    "policy/v1",
    "policy/v1beta1",
    "rbac.authorization.k8s.io/v1",
    "rbac.authorization.k8s.io/v1alpha1",
    "rbac.authorization.k8s.io/v1beta1",
    "resource.k8s.io/v1alpha3",
    "resource.k8s.io/v1beta1",
    "scheduling.k8s.io/v1",
    "scheduling.k8s.io/v1alpha1",
    "scheduling.k8s.io/v1beta1",
    "storage.k8s.io/v1",
    "storage.k8s.io/v1alpha1",
    "storage.k8s.io/v1beta1",
    "storagemigration.k8s.io/v1alpha1",
];

/// A Kubernetes version as `--kube-version` gives it (`1.28`, `v1.28.3`, `1.28.3-gke.100`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KubeVersion {
    /// Major version.
    pub major: u64,
    /// Minor version.
    pub minor: u64,
    /// Patch version.
    pub patch: u64,
    /// Anything after `-` (pre-release or vendor suffix).
    pub suffix: String,
}

impl Default for KubeVersion {
    fn default() -> Self {
        KubeVersion {
            major: 1,
            minor: 32,
            patch: 0,
            suffix: String::new(),
        }
    }
}

impl KubeVersion {
    /// Parses `1.28`, `v1.28.3` or `1.28.3-gke.100`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let bad =
            || format!("invalid kube version {text:?}: expected MAJOR.MINOR[.PATCH], like 1.30.0");
        let body = text.trim().strip_prefix('v').unwrap_or(text.trim());
        let (numbers, suffix) = match body.split_once(['-', '+']) {
            Some((n, s)) => (n, s.to_owned()),
            None => (body, String::new()),
        };
        let parts: Vec<&str> = numbers.split('.').collect();
        if parts.is_empty() || parts.len() > 3 {
            return Err(bad());
        }
        let number = |i: usize| -> Result<u64, String> {
            match parts.get(i) {
                None => Ok(0),
                Some(p) => p.parse().map_err(|_| bad()),
            }
        };
        Ok(KubeVersion {
            major: number(0)?,
            minor: number(1)?,
            patch: number(2)?,
            suffix,
        })
    }

    /// `v1.32.0` (with any suffix).
    pub fn version(&self) -> String {
        let base = format!("v{}.{}.{}", self.major, self.minor, self.patch);
        if self.suffix.is_empty() {
            base
        } else {
            format!("{base}-{}", self.suffix)
        }
    }

    /// The version as a semver value, for comparisons.
    pub fn semver(&self) -> semver::Version {
        semver::Version::new(self.major, self.minor, self.patch)
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.version())
    }
}

impl Object for KubeVersion {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        match key.as_str()? {
            "Version" | "GitVersion" => Some(Value::from(self.version())),
            "Major" => Some(Value::from(self.major.to_string())),
            "Minor" => Some(Value::from(self.minor.to_string())),
            _ => None,
        }
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Str(&["Version", "Major", "Minor", "GitVersion"])
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.version())
    }
}

/// `Capabilities.APIVersions`: a list of group/versions with Helm's `Has` method.
#[derive(Debug)]
pub struct ApiVersions(pub Vec<String>);

impl Object for ApiVersions {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        self.0.get(key.as_usize()?).map(|s| Value::from(s.as_str()))
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Seq(self.0.len())
    }

    fn call_method(
        self: &Arc<Self>,
        _state: &mut State<'_, '_>,
        method: &str,
        args: &[Value],
    ) -> Result<Value, Error> {
        match (method, args) {
            ("Has", [version]) => Ok(Value::from(
                self.0.iter().any(|v| Some(v.as_str()) == version.as_str()),
            )),
            ("Has", _) => Err(Error::new(
                ErrorKind::InvalidOperation,
                "APIVersions.Has takes one group/version, like \"apps/v1\"",
            )),
            _ => Err(Error::from(ErrorKind::UnknownMethod)),
        }
    }
}
