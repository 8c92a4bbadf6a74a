//! Kubernetes API versions that were deprecated and then stopped being served, so that lint can
//! say, as `helm lint` does, which rendered documents a cluster of the `--kube-version` will
//! refuse or soon refuse.
//!
//! The table is Kubernetes' deprecation guide (kubernetes.io/docs/reference/using-api/
//! deprecation-guide): each group/version and kind with the minor release that deprecated it,
//! the one that stopped serving it, and what replaces it. The release that deprecated each is
//! the one the API's own lifecycle gives (and `helm lint` 3.17.1 prints); the guide's entries
//! Helm does not know (CustomResourceDefinition and APIService v1beta1, PodSecurityPolicy) are
//! here too.

use crate::engine::KubeVersion;

/// One API version of one kind that Kubernetes deprecated, then removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ApiRemoval {
    /// `apiVersion` as documents write it (`policy/v1beta1`).
    pub api_version: &'static str,
    /// The kind (`PodDisruptionBudget`).
    pub kind: &'static str,
    /// The 1.x minor release that deprecated it.
    pub deprecated_in: u64,
    /// The 1.x minor release from which it is no longer served.
    pub removed_in: u64,
    /// What to write instead (`policy/v1 PodDisruptionBudget`), when something replaces it.
    pub replacement: Option<&'static str>,
}

const fn removal(
    api_version: &'static str,
    kind: &'static str,
    deprecated_in: u64,
    removed_in: u64,
    replacement: Option<&'static str>,
) -> ApiRemoval {
    ApiRemoval {
        api_version,
        kind,
        deprecated_in,
        removed_in,
        replacement,
    }
}

/// Every removal of Kubernetes' deprecation guide, by the release that removed it.
#[rustfmt::skip]
pub(crate) const API_REMOVALS: &[ApiRemoval] = &[
    // 1.16
    removal("extensions/v1beta1", "DaemonSet", 8, 16, Some("apps/v1 DaemonSet")),
    removal("extensions/v1beta1", "Deployment", 8, 16, Some("apps/v1 Deployment")),
    removal("extensions/v1beta1", "ReplicaSet", 8, 16, Some("apps/v1 ReplicaSet")),
    removal("extensions/v1beta1", "NetworkPolicy", 9, 16, Some("networking.k8s.io/v1 NetworkPolicy")),
    removal("extensions/v1beta1", "PodSecurityPolicy", 11, 16, Some("policy/v1beta1 PodSecurityPolicy")),
    removal("apps/v1beta1", "Deployment", 8, 16, Some("apps/v1 Deployment")),
    removal("apps/v1beta1", "StatefulSet", 8, 16, Some("apps/v1 StatefulSet")),
    removal("apps/v1beta1", "ControllerRevision", 8, 16, Some("apps/v1 ControllerRevision")),
    removal("apps/v1beta2", "DaemonSet", 9, 16, Some("apps/v1 DaemonSet")),
    removal("apps/v1beta2", "Deployment", 9, 16, Some("apps/v1 Deployment")),
    removal("apps/v1beta2", "ReplicaSet", 9, 16, Some("apps/v1 ReplicaSet")),
    removal("apps/v1beta2", "StatefulSet", 9, 16, Some("apps/v1 StatefulSet")),
    removal("apps/v1beta2", "ControllerRevision", 9, 16, Some("apps/v1 ControllerRevision")),
    // 1.22
    removal("admissionregistration.k8s.io/v1beta1", "MutatingWebhookConfiguration", 16, 22, Some("admissionregistration.k8s.io/v1 MutatingWebhookConfiguration")),
    removal("admissionregistration.k8s.io/v1beta1", "ValidatingWebhookConfiguration", 16, 22, Some("admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration")),
    removal("apiextensions.k8s.io/v1beta1", "CustomResourceDefinition", 16, 22, Some("apiextensions.k8s.io/v1 CustomResourceDefinition")),
    removal("apiregistration.k8s.io/v1beta1", "APIService", 19, 22, Some("apiregistration.k8s.io/v1 APIService")),
    removal("authentication.k8s.io/v1beta1", "TokenReview", 19, 22, Some("authentication.k8s.io/v1 TokenReview")),
    removal("authorization.k8s.io/v1beta1", "SubjectAccessReview", 19, 22, Some("authorization.k8s.io/v1 SubjectAccessReview")),
    removal("authorization.k8s.io/v1beta1", "LocalSubjectAccessReview", 19, 22, Some("authorization.k8s.io/v1 LocalSubjectAccessReview")),
    removal("authorization.k8s.io/v1beta1", "SelfSubjectAccessReview", 19, 22, Some("authorization.k8s.io/v1 SelfSubjectAccessReview")),
    removal("authorization.k8s.io/v1beta1", "SelfSubjectRulesReview", 19, 22, Some("authorization.k8s.io/v1 SelfSubjectRulesReview")),
    removal("certificates.k8s.io/v1beta1", "CertificateSigningRequest", 19, 22, Some("certificates.k8s.io/v1 CertificateSigningRequest")),
    removal("coordination.k8s.io/v1beta1", "Lease", 19, 22, Some("coordination.k8s.io/v1 Lease")),
    removal("extensions/v1beta1", "Ingress", 14, 22, Some("networking.k8s.io/v1 Ingress")),
    removal("networking.k8s.io/v1beta1", "Ingress", 19, 22, Some("networking.k8s.io/v1 Ingress")),
    removal("networking.k8s.io/v1beta1", "IngressClass", 19, 22, Some("networking.k8s.io/v1 IngressClass")),
    removal("rbac.authorization.k8s.io/v1beta1", "ClusterRole", 17, 22, Some("rbac.authorization.k8s.io/v1 ClusterRole")),
    removal("rbac.authorization.k8s.io/v1beta1", "ClusterRoleBinding", 17, 22, Some("rbac.authorization.k8s.io/v1 ClusterRoleBinding")),
    removal("rbac.authorization.k8s.io/v1beta1", "Role", 17, 22, Some("rbac.authorization.k8s.io/v1 Role")),
    removal("rbac.authorization.k8s.io/v1beta1", "RoleBinding", 17, 22, Some("rbac.authorization.k8s.io/v1 RoleBinding")),
    removal("scheduling.k8s.io/v1beta1", "PriorityClass", 14, 22, Some("scheduling.k8s.io/v1 PriorityClass")),
    removal("storage.k8s.io/v1beta1", "CSIDriver", 19, 22, Some("storage.k8s.io/v1 CSIDriver")),
    removal("storage.k8s.io/v1beta1", "CSINode", 17, 22, Some("storage.k8s.io/v1 CSINode")),
    removal("storage.k8s.io/v1beta1", "StorageClass", 19, 22, Some("storage.k8s.io/v1 StorageClass")),
    removal("storage.k8s.io/v1beta1", "VolumeAttachment", 19, 22, Some("storage.k8s.io/v1 VolumeAttachment")),
    // 1.25
    removal("batch/v1beta1", "CronJob", 21, 25, Some("batch/v1 CronJob")),
    removal("discovery.k8s.io/v1beta1", "EndpointSlice", 21, 25, Some("discovery.k8s.io/v1 EndpointSlice")),
    removal("events.k8s.io/v1beta1", "Event", 22, 25, Some("events.k8s.io/v1 Event")),
    removal("autoscaling/v2beta1", "HorizontalPodAutoscaler", 22, 25, Some("autoscaling/v2 HorizontalPodAutoscaler")),
    removal("policy/v1beta1", "PodDisruptionBudget", 21, 25, Some("policy/v1 PodDisruptionBudget")),
    removal("policy/v1beta1", "PodSecurityPolicy", 21, 25, None),
    removal("node.k8s.io/v1beta1", "RuntimeClass", 22, 25, Some("node.k8s.io/v1 RuntimeClass")),
    // 1.26
    removal("flowcontrol.apiserver.k8s.io/v1beta1", "FlowSchema", 23, 26, Some("flowcontrol.apiserver.k8s.io/v1beta3 FlowSchema")),
    removal("flowcontrol.apiserver.k8s.io/v1beta1", "PriorityLevelConfiguration", 23, 26, Some("flowcontrol.apiserver.k8s.io/v1beta3 PriorityLevelConfiguration")),
    removal("autoscaling/v2beta2", "HorizontalPodAutoscaler", 23, 26, Some("autoscaling/v2 HorizontalPodAutoscaler")),
    // 1.27
    removal("storage.k8s.io/v1beta1", "CSIStorageCapacity", 24, 27, Some("storage.k8s.io/v1 CSIStorageCapacity")),
    // 1.29
    removal("flowcontrol.apiserver.k8s.io/v1beta2", "FlowSchema", 26, 29, Some("flowcontrol.apiserver.k8s.io/v1beta3 FlowSchema")),
    removal("flowcontrol.apiserver.k8s.io/v1beta2", "PriorityLevelConfiguration", 26, 29, Some("flowcontrol.apiserver.k8s.io/v1beta3 PriorityLevelConfiguration")),
    // 1.32
    removal("flowcontrol.apiserver.k8s.io/v1beta3", "FlowSchema", 29, 32, Some("flowcontrol.apiserver.k8s.io/v1 FlowSchema")),
    removal("flowcontrol.apiserver.k8s.io/v1beta3", "PriorityLevelConfiguration", 29, 32, Some("flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration")),
];

/// What lint says of a document of `api_version` and `kind` for a cluster at `kube`: `None`
/// when the API is not deprecated there (or Kubernetes never deprecated it). The words are
/// `helm lint`'s, so that a message found in Helm's output is found in ours.
pub(crate) fn finding(api_version: &str, kind: &str, kube: &KubeVersion) -> Option<String> {
    let entry = API_REMOVALS
        .iter()
        .find(|r| r.api_version == api_version && r.kind == kind)?;
    // Every entry is of Kubernetes 1.x; a 2.x cluster is past all of them.
    let minor = if kube.major > 1 { u64::MAX } else { kube.minor };
    if kube.major < 1 || minor < entry.deprecated_in {
        return None;
    }
    let mut text = format!(
        "{api_version} {kind} is deprecated in v1.{}+, unavailable in v1.{}+",
        entry.deprecated_in, entry.removed_in
    );
    if let Some(replacement) = entry.replacement {
        text.push_str(&format!("; use {replacement}"));
    }
    if minor >= entry.removed_in {
        text.push_str(&format!(
            " (--kube-version {} no longer serves it)",
            kube.version()
        ));
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kube(text: &str) -> KubeVersion {
        KubeVersion::parse(text).unwrap()
    }

    #[test]
    fn an_api_deprecated_but_still_served_is_said_in_helms_words() {
        assert_eq!(
            finding("batch/v1beta1", "CronJob", &kube("1.24.0")).as_deref(),
            Some("batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob")
        );
    }

    #[test]
    fn an_api_no_longer_served_also_names_the_kube_version() {
        let text = finding("policy/v1beta1", "PodDisruptionBudget", &kube("1.25.0")).unwrap();
        assert!(
            text.ends_with(
                "use policy/v1 PodDisruptionBudget (--kube-version v1.25.0 no longer serves it)"
            ),
            "{text}"
        );
    }

    #[test]
    fn an_api_before_its_deprecation_is_not_mentioned() {
        assert_eq!(
            finding(
                "autoscaling/v2beta2",
                "HorizontalPodAutoscaler",
                &kube("1.22.0")
            ),
            None
        );
        assert_eq!(finding("apps/v1", "Deployment", &kube("1.32.0")), None);
    }

    #[test]
    fn a_removal_without_replacement_names_none() {
        let text = finding("policy/v1beta1", "PodSecurityPolicy", &kube("1.30")).unwrap();
        assert!(!text.contains("use "), "{text}");
    }

    #[test]
    fn each_entry_is_removed_after_it_is_deprecated_and_listed_once() {
        for (i, r) in API_REMOVALS.iter().enumerate() {
            assert!(r.deprecated_in < r.removed_in, "{r:?}");
            assert!(
                !API_REMOVALS[..i]
                    .iter()
                    .any(|o| o.api_version == r.api_version && o.kind == r.kind),
                "{r:?} listed twice"
            );
        }
    }
}
