//! Which Kubernetes APIs a version removed or deprecated, as Kubernetes'
//! deprecated API migration guide lists them (facts, written here as our
//! own data; source: kubernetes.io/docs/reference/using-api/deprecation-guide/).
//! `tests/it/kubernetes_upgrades.rs` cross-checks every removal against the
//! shipped JSON schemas (a kind absent from a version's schemas but present
//! in the version before is removed there).

/// One group/version of a kind that a release deprecated, and may remove.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiLifecycle {
    pub api_version: &'static str,
    pub kind: &'static str,
    /// The minor version (1.x) that deprecated it.
    pub deprecated: u32,
    /// The minor version that removed it (none: deprecated, still served).
    pub removed: Option<u32>,
    /// What to use instead (`policy/v1`), when there is a replacement.
    pub replacement: Option<&'static str>,
}

const fn api(
    api_version: &'static str,
    kind: &'static str,
    deprecated: u32,
    removed: Option<u32>,
    replacement: Option<&'static str>,
) -> ApiLifecycle {
    ApiLifecycle {
        api_version,
        kind,
        deprecated,
        removed,
        replacement,
    }
}

/// The table, by removal.
pub const APIS: &[ApiLifecycle] = &[
    // removed in 1.16
    api(
        "extensions/v1beta1",
        "Deployment",
        9,
        Some(16),
        Some("apps/v1"),
    ),
    api(
        "extensions/v1beta1",
        "DaemonSet",
        9,
        Some(16),
        Some("apps/v1"),
    ),
    api(
        "extensions/v1beta1",
        "ReplicaSet",
        9,
        Some(16),
        Some("apps/v1"),
    ),
    api(
        "extensions/v1beta1",
        "NetworkPolicy",
        9,
        Some(16),
        Some("networking.k8s.io/v1"),
    ),
    api(
        "extensions/v1beta1",
        "PodSecurityPolicy",
        11,
        Some(16),
        Some("policy/v1beta1"),
    ),
    api("apps/v1beta1", "Deployment", 9, Some(16), Some("apps/v1")),
    api("apps/v1beta1", "StatefulSet", 9, Some(16), Some("apps/v1")),
    api("apps/v1beta2", "Deployment", 9, Some(16), Some("apps/v1")),
    api("apps/v1beta2", "StatefulSet", 9, Some(16), Some("apps/v1")),
    api("apps/v1beta2", "DaemonSet", 9, Some(16), Some("apps/v1")),
    api("apps/v1beta2", "ReplicaSet", 9, Some(16), Some("apps/v1")),
    // removed in 1.22
    api(
        "admissionregistration.k8s.io/v1beta1",
        "MutatingWebhookConfiguration",
        16,
        Some(22),
        Some("admissionregistration.k8s.io/v1"),
    ),
    api(
        "admissionregistration.k8s.io/v1beta1",
        "ValidatingWebhookConfiguration",
        16,
        Some(22),
        Some("admissionregistration.k8s.io/v1"),
    ),
    api(
        "apiextensions.k8s.io/v1beta1",
        "CustomResourceDefinition",
        16,
        Some(22),
        Some("apiextensions.k8s.io/v1"),
    ),
    api(
        "apiregistration.k8s.io/v1beta1",
        "APIService",
        19,
        Some(22),
        Some("apiregistration.k8s.io/v1"),
    ),
    api(
        "authentication.k8s.io/v1beta1",
        "TokenReview",
        19,
        Some(22),
        Some("authentication.k8s.io/v1"),
    ),
    api(
        "authorization.k8s.io/v1beta1",
        "SubjectAccessReview",
        19,
        Some(22),
        Some("authorization.k8s.io/v1"),
    ),
    api(
        "authorization.k8s.io/v1beta1",
        "LocalSubjectAccessReview",
        19,
        Some(22),
        Some("authorization.k8s.io/v1"),
    ),
    api(
        "authorization.k8s.io/v1beta1",
        "SelfSubjectAccessReview",
        19,
        Some(22),
        Some("authorization.k8s.io/v1"),
    ),
    api(
        "certificates.k8s.io/v1beta1",
        "CertificateSigningRequest",
        19,
        Some(22),
        Some("certificates.k8s.io/v1"),
    ),
    api(
        "coordination.k8s.io/v1beta1",
        "Lease",
        19,
        Some(22),
        Some("coordination.k8s.io/v1"),
    ),
    api(
        "extensions/v1beta1",
        "Ingress",
        14,
        Some(22),
        Some("networking.k8s.io/v1"),
    ),
    api(
        "networking.k8s.io/v1beta1",
        "Ingress",
        19,
        Some(22),
        Some("networking.k8s.io/v1"),
    ),
    api(
        "networking.k8s.io/v1beta1",
        "IngressClass",
        19,
        Some(22),
        Some("networking.k8s.io/v1"),
    ),
    api(
        "rbac.authorization.k8s.io/v1beta1",
        "ClusterRole",
        17,
        Some(22),
        Some("rbac.authorization.k8s.io/v1"),
    ),
    api(
        "rbac.authorization.k8s.io/v1beta1",
        "ClusterRoleBinding",
        17,
        Some(22),
        Some("rbac.authorization.k8s.io/v1"),
    ),
    api(
        "rbac.authorization.k8s.io/v1beta1",
        "Role",
        17,
        Some(22),
        Some("rbac.authorization.k8s.io/v1"),
    ),
    api(
        "rbac.authorization.k8s.io/v1beta1",
        "RoleBinding",
        17,
        Some(22),
        Some("rbac.authorization.k8s.io/v1"),
    ),
    api(
        "scheduling.k8s.io/v1beta1",
        "PriorityClass",
        14,
        Some(22),
        Some("scheduling.k8s.io/v1"),
    ),
    api(
        "storage.k8s.io/v1beta1",
        "CSIDriver",
        19,
        Some(22),
        Some("storage.k8s.io/v1"),
    ),
    api(
        "storage.k8s.io/v1beta1",
        "CSINode",
        19,
        Some(22),
        Some("storage.k8s.io/v1"),
    ),
    api(
        "storage.k8s.io/v1beta1",
        "StorageClass",
        19,
        Some(22),
        Some("storage.k8s.io/v1"),
    ),
    api(
        "storage.k8s.io/v1beta1",
        "VolumeAttachment",
        19,
        Some(22),
        Some("storage.k8s.io/v1"),
    ),
    // removed in 1.25
    api("batch/v1beta1", "CronJob", 21, Some(25), Some("batch/v1")),
    api(
        "discovery.k8s.io/v1beta1",
        "EndpointSlice",
        21,
        Some(25),
        Some("discovery.k8s.io/v1"),
    ),
    api(
        "events.k8s.io/v1beta1",
        "Event",
        19,
        Some(25),
        Some("events.k8s.io/v1"),
    ),
    api(
        "autoscaling/v2beta1",
        "HorizontalPodAutoscaler",
        22,
        Some(25),
        Some("autoscaling/v2"),
    ),
    api(
        "policy/v1beta1",
        "PodDisruptionBudget",
        21,
        Some(25),
        Some("policy/v1"),
    ),
    api("policy/v1beta1", "PodSecurityPolicy", 21, Some(25), None),
    api(
        "node.k8s.io/v1beta1",
        "RuntimeClass",
        20,
        Some(25),
        Some("node.k8s.io/v1"),
    ),
    // removed in 1.26
    api(
        "flowcontrol.apiserver.k8s.io/v1beta1",
        "FlowSchema",
        23,
        Some(26),
        Some("flowcontrol.apiserver.k8s.io/v1"),
    ),
    api(
        "flowcontrol.apiserver.k8s.io/v1beta1",
        "PriorityLevelConfiguration",
        23,
        Some(26),
        Some("flowcontrol.apiserver.k8s.io/v1"),
    ),
    api(
        "autoscaling/v2beta2",
        "HorizontalPodAutoscaler",
        23,
        Some(26),
        Some("autoscaling/v2"),
    ),
    // removed in 1.27
    api(
        "storage.k8s.io/v1beta1",
        "CSIStorageCapacity",
        24,
        Some(27),
        Some("storage.k8s.io/v1"),
    ),
    // removed in 1.29
    api(
        "flowcontrol.apiserver.k8s.io/v1beta2",
        "FlowSchema",
        26,
        Some(29),
        Some("flowcontrol.apiserver.k8s.io/v1"),
    ),
    api(
        "flowcontrol.apiserver.k8s.io/v1beta2",
        "PriorityLevelConfiguration",
        26,
        Some(29),
        Some("flowcontrol.apiserver.k8s.io/v1"),
    ),
    // removed in 1.32
    api(
        "flowcontrol.apiserver.k8s.io/v1beta3",
        "FlowSchema",
        29,
        Some(32),
        Some("flowcontrol.apiserver.k8s.io/v1"),
    ),
    api(
        "flowcontrol.apiserver.k8s.io/v1beta3",
        "PriorityLevelConfiguration",
        29,
        Some(32),
        Some("flowcontrol.apiserver.k8s.io/v1"),
    ),
    // deprecated, still served
    api(
        "v1",
        "Endpoints",
        33,
        None,
        Some("discovery.k8s.io/v1 EndpointSlice"),
    ),
];

/// The lifecycle of an apiVersion and kind, when the table has it.
pub fn of(api_version: &str, kind: &str) -> Option<&'static ApiLifecycle> {
    APIS.iter()
        .find(|a| a.api_version == api_version && a.kind == kind)
}

/// The minor version of a Kubernetes version (`1.30.0`, `v1.25.16` -> 30,
/// 25); `master` is newer than any.
pub fn minor(version: &str) -> Option<u32> {
    if version == "master" {
        return Some(u32::MAX);
    }
    let v = version.strip_prefix('v').unwrap_or(version);
    let mut parts = v.split('.');
    (parts.next()? == "1").then_some(())?;
    parts.next()?.parse().ok()
}

/// What a version does to an API: removed (with the lifecycle), deprecated,
/// or nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Removed,
    Deprecated,
}

/// The status of `api` in the version whose minor is `minor`.
pub fn status(api: &ApiLifecycle, minor: u32) -> Option<Status> {
    match api.removed {
        Some(r) if minor >= r => Some(Status::Removed),
        _ if minor >= api.deprecated => Some(Status::Deprecated),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_decide_removed_and_deprecated() {
        let pdb = of("policy/v1beta1", "PodDisruptionBudget").unwrap();
        assert_eq!(status(pdb, minor("1.20.0").unwrap()), None);
        assert_eq!(
            status(pdb, minor("v1.21.3").unwrap()),
            Some(Status::Deprecated)
        );
        assert_eq!(status(pdb, minor("1.25.0").unwrap()), Some(Status::Removed));
        assert_eq!(status(pdb, minor("master").unwrap()), Some(Status::Removed));
        assert_eq!(pdb.replacement, Some("policy/v1"));
        assert!(of("policy/v1", "PodDisruptionBudget").is_none());
        assert_eq!(minor("2.0.0"), None);
    }

    #[test]
    fn every_entry_is_deprecated_before_it_is_removed_and_named_once() {
        for (i, a) in APIS.iter().enumerate() {
            if let Some(r) = a.removed {
                assert!(a.deprecated < r, "{a:?}");
            }
            assert!(
                !APIS[..i]
                    .iter()
                    .any(|b| b.api_version == a.api_version && b.kind == a.kind),
                "{a:?} twice"
            );
        }
    }
}
