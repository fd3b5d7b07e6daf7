"""What Helm knows about kinds: the order it applies them in, and which are cluster-scoped.

The orders are Helm's `kind_sorter.go` (pkg/releaseutil in Helm 3, pkg/release/v1/util in
Helm 4), each written out there. UninstallOrder is InstallOrder reversed but for Service, which
Helm deletes right after Ingress and IngressClass, before the workloads behind it. Helm 4
appends the two admission webhook kinds to the install order and prepends them (reversed) to
the uninstall order. Kinds Helm does not know sort after all known kinds, alphabetically among
themselves; the sort is stable.
"""
from __future__ import annotations

from typing import Iterable, Mapping

HELM3_INSTALL_ORDER: tuple[str, ...] = (
    "PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange",
    "PodSecurityPolicy", "PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList",
    "ConfigMap", "StorageClass", "PersistentVolume", "PersistentVolumeClaim",
    "CustomResourceDefinition", "ClusterRole", "ClusterRoleList", "ClusterRoleBinding",
    "ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList", "Service",
    "DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
    "HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress",
    "APIService",
)
_WEBHOOKS = ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")
HELM4_INSTALL_ORDER: tuple[str, ...] = HELM3_INSTALL_ORDER + _WEBHOOKS
HELM3_UNINSTALL_ORDER: tuple[str, ...] = (
    "APIService", "Ingress", "IngressClass", "Service", "CronJob", "Job", "StatefulSet",
    "HorizontalPodAutoscaler", "Deployment", "ReplicaSet", "ReplicationController", "Pod", "DaemonSet",
    "RoleBindingList", "RoleBinding", "RoleList", "Role", "ClusterRoleBindingList", "ClusterRoleBinding",
    "ClusterRoleList", "ClusterRole", "CustomResourceDefinition", "PersistentVolumeClaim", "PersistentVolume",
    "StorageClass", "ConfigMap", "SecretList", "Secret", "ServiceAccount", "PodDisruptionBudget",
    "PodSecurityPolicy", "LimitRange", "ResourceQuota", "NetworkPolicy", "Namespace", "PriorityClass",
)
HELM4_UNINSTALL_ORDER: tuple[str, ...] = tuple(reversed(_WEBHOOKS)) + HELM3_UNINSTALL_ORDER


def install_order(helm_major: int) -> tuple[str, ...]:
    return HELM4_INSTALL_ORDER if helm_major >= 4 else HELM3_INSTALL_ORDER


def uninstall_order(helm_major: int) -> tuple[str, ...]:
    return HELM4_UNINSTALL_ORDER if helm_major >= 4 else HELM3_UNINSTALL_ORDER


def kind_rank(order: Iterable[str]) -> Mapping[str, int]:
    return {kind: i for i, kind in enumerate(order)}


def sort_key(kind: str, rank: Mapping[str, int]) -> tuple[int, str]:
    """Known kinds by their place in `rank`; unknown kinds after them, by name."""
    position = rank.get(kind)
    return (position, "") if position is not None else (len(rank), kind)


def group_of(api_version: str) -> str:
    """`apps/v1` -> `apps`; `v1` -> `` (the core group)."""
    group, slash, _ = api_version.rpartition("/")
    return group if slash else ""


# Built-in kinds that live outside namespaces, keyed by (group, kind). Custom resources are
# cluster-scoped when a CRD in the same render (or a live cluster) says so.
CLUSTER_SCOPED: frozenset[tuple[str, str]] = frozenset({
    ("", "Namespace"), ("", "Node"), ("", "PersistentVolume"), ("", "ComponentStatus"),
    ("rbac.authorization.k8s.io", "ClusterRole"),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    ("apiextensions.k8s.io", "CustomResourceDefinition"),
    ("apiregistration.k8s.io", "APIService"),
    ("storage.k8s.io", "StorageClass"), ("storage.k8s.io", "CSIDriver"),
    ("storage.k8s.io", "CSINode"), ("storage.k8s.io", "VolumeAttachment"),
    ("storage.k8s.io", "VolumeAttributesClass"),
    ("scheduling.k8s.io", "PriorityClass"),
    ("networking.k8s.io", "IngressClass"), ("networking.k8s.io", "IPAddress"),
    ("networking.k8s.io", "ServiceCIDR"),
    ("node.k8s.io", "RuntimeClass"),
    ("policy", "PodSecurityPolicy"),
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"),
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"),
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"),
    ("certificates.k8s.io", "CertificateSigningRequest"),
    ("certificates.k8s.io", "ClusterTrustBundle"),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"),
    ("resource.k8s.io", "DeviceClass"), ("resource.k8s.io", "ResourceSlice"),
    ("storagemigration.k8s.io", "StorageVersionMigration"),
    ("authentication.k8s.io", "TokenReview"), ("authentication.k8s.io", "SelfSubjectReview"),
    ("authorization.k8s.io", "SubjectAccessReview"),
    ("authorization.k8s.io", "SelfSubjectAccessReview"),
    ("authorization.k8s.io", "SelfSubjectRulesReview"),
})


# How kubectl users name built-in kinds: `kubectl api-resources` short names and plurals.
# Matched without case; any kind also answers to its lower-case name and plural.
KIND_ALIASES: Mapping[str, tuple[str, ...]] = {
    "Pod": ("po", "pods"), "Service": ("svc", "services"), "ConfigMap": ("cm", "configmaps"),
    "Secret": ("secrets",), "ServiceAccount": ("sa", "serviceaccounts"), "Namespace": ("ns", "namespaces"),
    "PersistentVolumeClaim": ("pvc", "pvcs", "persistentvolumeclaims"),
    "PersistentVolume": ("pv", "pvs", "persistentvolumes"), "Endpoints": ("ep", "endpoints"),
    "ReplicationController": ("rc", "replicationcontrollers"), "LimitRange": ("limits", "limitranges"),
    "ResourceQuota": ("quota", "resourcequotas"), "Node": ("no", "nodes"), "Event": ("ev", "events"),
    "Deployment": ("deploy", "deployments"), "StatefulSet": ("sts", "statefulsets"),
    "DaemonSet": ("ds", "daemonsets"), "ReplicaSet": ("rs", "replicasets"),
    "Job": ("jobs",), "CronJob": ("cj", "cronjobs"),
    "HorizontalPodAutoscaler": ("hpa", "horizontalpodautoscalers"),
    "Ingress": ("ing", "ingresses"), "IngressClass": ("ingressclasses",),
    "NetworkPolicy": ("netpol", "networkpolicies"),
    "PodDisruptionBudget": ("pdb", "pdbs", "poddisruptionbudgets"),
    "PodSecurityPolicy": ("psp", "podsecuritypolicies"), "PriorityClass": ("pc", "priorityclasses"),
    "StorageClass": ("sc", "storageclasses"), "CSIDriver": ("csidrivers",),
    "CustomResourceDefinition": ("crd", "crds", "customresourcedefinitions"),
    "APIService": ("apiservices",), "CertificateSigningRequest": ("csr", "certificatesigningrequests"),
    "Role": ("roles",), "RoleBinding": ("rolebindings",), "ClusterRole": ("clusterroles",),
    "ClusterRoleBinding": ("clusterrolebindings",),
    "MutatingWebhookConfiguration": ("mutatingwebhookconfigurations",),
    "ValidatingWebhookConfiguration": ("validatingwebhookconfigurations",),
    "RuntimeClass": ("runtimeclasses",), "EndpointSlice": ("endpointslices",), "Lease": ("leases",),
}
_ALIAS_TO_KIND: Mapping[str, str] = {
    **{kind.lower(): kind for kind in KIND_ALIASES},
    **{alias: kind for kind, aliases in KIND_ALIASES.items() for alias in aliases},
}


def canonical_kind(name: str) -> str | None:
    """The built-in kind a kubectl-style name means (`pvc`, `Deployments`, `svc`), or None."""
    return _ALIAS_TO_KIND.get(name.lower())


def kind_answers_to(kind: str, name: str) -> bool:
    """Whether `name` names `kind` as kubectl would take it: the kind itself or its plural in any
    case, or a built-in short name."""
    lowered, wanted = name.lower(), kind.lower()
    if canonical_kind(name) == kind:
        return True
    plurals = (wanted + "s", wanted + "es", wanted[:-1] + "ies" if wanted.endswith("y") else wanted)
    return lowered == wanted or lowered in plurals
