"""Unit tests of deployah_plan/kinds.py against Helm's kind_sorter.go and kubectl's names.

The expected orders are written out from Helm's source, each list as Helm writes it
(pkg/releaseutil/kind_sorter.go at v3.19.0; Helm 4's pkg/release/v1/util/kind_sorter.go adds the
two admission webhook kinds), not read from the module under test nor derived from each other."""
from __future__ import annotations

import pytest

from deployah_plan.kinds import (
    CLUSTER_SCOPED, canonical_kind, group_of, install_order, kind_answers_to, kind_rank, sort_key, uninstall_order,
)

HELM3_INSTALL = [
    "PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy",
    "PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList", "ConfigMap", "StorageClass",
    "PersistentVolume", "PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole", "ClusterRoleList",
    "ClusterRoleBinding", "ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList",
    "Service", "DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment", "HorizontalPodAutoscaler",
    "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress", "APIService",
]
HELM3_UNINSTALL = [
    "APIService", "Ingress", "IngressClass", "Service", "CronJob", "Job", "StatefulSet", "HorizontalPodAutoscaler",
    "Deployment", "ReplicaSet", "ReplicationController", "Pod", "DaemonSet", "RoleBindingList", "RoleBinding",
    "RoleList", "Role", "ClusterRoleBindingList", "ClusterRoleBinding", "ClusterRoleList", "ClusterRole",
    "CustomResourceDefinition", "PersistentVolumeClaim", "PersistentVolume", "StorageClass", "ConfigMap", "SecretList",
    "Secret", "ServiceAccount", "PodDisruptionBudget", "PodSecurityPolicy", "LimitRange", "ResourceQuota",
    "NetworkPolicy", "Namespace", "PriorityClass",
]


def test_helm3_orders_are_kind_sorter_go() -> None:
    assert list(install_order(3)) == HELM3_INSTALL
    assert list(uninstall_order(3)) == HELM3_UNINSTALL


def test_uninstall_deletes_a_service_before_the_workloads_behind_it() -> None:
    """The one place UninstallOrder is not InstallOrder reversed: Service goes right after
    Ingress and IngressClass, so traffic stops before the pods do."""
    for major in (3, 4):
        order = list(uninstall_order(major))
        assert order.index("IngressClass") + 1 == order.index("Service") < order.index("CronJob")
        assert order.index("Service") < order.index("Deployment") < order.index("DaemonSet")
        # Everything else is the install order reversed.
        assert [kind for kind in order if kind != "Service"] == [kind for kind in install_order(major)[::-1]
                                                                 if kind != "Service"]


def test_helm4_appends_webhooks_on_install_and_deletes_them_first_on_uninstall() -> None:
    # Helm 4 kind_sorter.go: InstallOrder ends with Mutating-, then ValidatingWebhookConfiguration;
    # UninstallOrder starts with Validating-, then MutatingWebhookConfiguration (webhooks go
    # first, so they cannot block the deletion of what they guard).
    assert list(install_order(4)) == [*HELM3_INSTALL, "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]
    assert list(uninstall_order(4)) == ["ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
                                        *HELM3_UNINSTALL]
    assert install_order(5) == install_order(4) and uninstall_order(5) == uninstall_order(4)


def test_unknown_kinds_sort_after_known_ones_alphabetically() -> None:
    rank = kind_rank(install_order(3))
    kinds = ["Widget", "Deployment", "Alpha", "Namespace", "APIService", "MutatingWebhookConfiguration"]
    assert sorted(kinds, key=lambda k: sort_key(k, rank)) == [
        "Namespace", "Deployment", "APIService", "Alpha", "MutatingWebhookConfiguration", "Widget"]
    assert sort_key("PriorityClass", rank) == (0, "")
    assert sort_key("Namespace", rank) == (1, "")
    assert sort_key("Widget", rank) == (len(HELM3_INSTALL), "Widget")
    assert kind_rank(["A", "B"]) == {"A": 0, "B": 1}


@pytest.mark.parametrize("api_version, group", [
    ("v1", ""), ("apps/v1", "apps"), ("networking.k8s.io/v1", "networking.k8s.io"), ("a/b/v1", "a/b"), ("", ""),
])
def test_group_of(api_version: str, group: str) -> None:
    assert group_of(api_version) == group


@pytest.mark.parametrize("group, kind", [
    ("", "Namespace"), ("", "PersistentVolume"), ("rbac.authorization.k8s.io", "ClusterRole"),
    ("apiextensions.k8s.io", "CustomResourceDefinition"), ("storage.k8s.io", "StorageClass"),
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"), ("scheduling.k8s.io", "PriorityClass"),
])
def test_cluster_scoped_kinds(group: str, kind: str) -> None:
    assert (group, kind) in CLUSTER_SCOPED


@pytest.mark.parametrize("group, kind", [("", "ConfigMap"), ("rbac.authorization.k8s.io", "Role"),
                                         ("", "PersistentVolumeClaim"), ("apps", "Namespace")])
def test_namespaced_kinds_are_not_cluster_scoped(group: str, kind: str) -> None:
    assert (group, kind) not in CLUSTER_SCOPED


@pytest.mark.parametrize("name, kind", [
    ("pvc", "PersistentVolumeClaim"), ("PVC", "PersistentVolumeClaim"), ("persistentvolumeclaim", "PersistentVolumeClaim"),
    ("deploy", "Deployment"), ("Deployments", "Deployment"), ("svc", "Service"), ("cm", "ConfigMap"),
    ("crds", "CustomResourceDefinition"), ("netpol", "NetworkPolicy"), ("ing", "Ingress"), ("sts", "StatefulSet"),
    ("widget", None), ("", None),
])
def test_canonical_kind(name: str, kind: str | None) -> None:
    assert canonical_kind(name) == kind


@pytest.mark.parametrize("kind, name, answers", [
    ("Deployment", "Deployment", True), ("Deployment", "deployment", True), ("Deployment", "DEPLOYMENTS", True),
    ("Deployment", "deploy", True), ("Deployment", "deploys", False), ("Deployment", "Deploymentes", True),
    ("Ingress", "ingresses", True), ("Ingress", "ingressclass", False), ("IngressClass", "ingressclasses", True),
    ("NetworkPolicy", "networkpolicies", True), ("NetworkPolicy", "networkpolicy", True),
    ("Gateway", "gateways", True), ("Policy", "policies", True),
    ("Policy", "polic", False), ("Policy", "policys", True),
    ("Widget", "widgets", True), ("Widget", "widget", True), ("Widget", "widgetss", False), ("Widget", "widge", False), ("Widget", "widgeies", False),
    ("Secret", "svc", False), ("Service", "svc", True), ("PersistentVolume", "pvc", False),
])
def test_kind_answers_to_as_kubectl_would(kind: str, name: str, answers: bool) -> None:
    assert kind_answers_to(kind, name) is answers
