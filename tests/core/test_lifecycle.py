"""Unit tests of deployah_plan/core/lifecycle.py: immutable fields, data loss, task names.

The immutable rules are Kubernetes' validation of each kind on update (ValidateDeploymentUpdate,
ValidateStatefulSetUpdate, ValidateJobUpdate, ValidateServiceUpdate, ValidateRoleBindingUpdate,
ValidateStorageClassUpdate, ValidatePersistentVolumeClaimUpdate, and ValidateConfigMapUpdate /
ValidateSecretUpdate: when the OLD object has `immutable: true`, its data cannot change)."""
from __future__ import annotations

from typing import Any

import pytest

from deployah_plan.codes import Code
from deployah_plan.core.diff import diff_objects
from deployah_plan.core.lifecycle import consequences, immutable_fields, immutable_paths, stored, task_name
from deployah_plan.facts import DataLoss, Field, Immutable, Loss
from deployah_plan.model import Action, FieldChange, FieldOp, ResourceChange, ResourceRef, Severity


def _update(api_version: str, kind: str, before: dict[str, Any], after: dict[str, Any],
            namespace: str = "shop") -> ResourceChange:
    ref = ResourceRef(api_version, kind, namespace, "x")
    typed = {"apiVersion": api_version, "kind": kind}
    return ResourceChange(ref, Action.UPDATE, before, after, tuple(diff_objects({**typed, **before}, {**typed, **after})))


SELECTOR = {"spec": {"selector": {"matchLabels": {"app": "a"}}, "replicas": 1}}
SELECTOR_B = {"spec": {"selector": {"matchLabels": {"app": "b"}}, "replicas": 1}}
MORE_REPLICAS = {"spec": {"selector": {"matchLabels": {"app": "a"}}, "replicas": 3}}


@pytest.mark.parametrize("api_version, kind", [("apps/v1", "Deployment"), ("apps/v1", "DaemonSet"),
                                               ("apps/v1", "ReplicaSet"), ("apps/v1", "StatefulSet"),
                                               ("batch/v1", "Job")])
def test_a_workload_selector_is_immutable_and_replicas_are_not(api_version: str, kind: str) -> None:
    assert immutable_paths(_update(api_version, kind, SELECTOR, SELECTOR_B)) == ["/spec/selector/matchLabels/app"]
    assert immutable_paths(_update(api_version, kind, SELECTOR, MORE_REPLICAS)) == []


def test_the_same_kind_in_another_group_has_no_such_rule() -> None:
    assert immutable_paths(_update("example.com/v1", "Deployment", SELECTOR, SELECTOR_B)) == []
    assert immutable_paths(_update("v1", "Job", SELECTOR, SELECTOR_B)) == []


@pytest.mark.parametrize("field, before, after", [
    ("serviceName", "a", "b"), ("podManagementPolicy", "OrderedReady", "Parallel"),
    ("volumeClaimTemplates", [{"metadata": {"name": "data"}}], [{"metadata": {"name": "logs"}}]),
])
def test_statefulset_fields_beyond_the_template_are_immutable(field: str, before: Any, after: Any) -> None:
    change = _update("apps/v1", "StatefulSet", {"spec": {field: before}}, {"spec": {field: after}})
    assert immutable_paths(change) and all(p.startswith(f"/spec/{field}") for p in immutable_paths(change))
    template = _update("apps/v1", "StatefulSet", {"spec": {"template": {"a": 1}}}, {"spec": {"template": {"a": 2}}})
    assert immutable_paths(template) == []


def test_a_job_template_is_immutable() -> None:
    change = _update("batch/v1", "Job", {"spec": {"template": {"a": 1}}}, {"spec": {"template": {"a": 2}}})
    assert immutable_paths(change) == ["/spec/template/a"]
    assert immutable_paths(_update("batch/v1", "Job", {"spec": {"parallelism": 1}}, {"spec": {"parallelism": 2}})) == []


def test_a_prefix_is_a_whole_path_segment() -> None:
    # /spec/selectorX is not under /spec/selector
    assert immutable_paths(_update("apps/v1", "Deployment", {"spec": {"selectorX": 1}}, {"spec": {"selectorX": 2}})) == []
    assert immutable_paths(_update("apps/v1", "Deployment", {"spec": {"selector": 1}}, {"spec": {"selector": 2}})) == [
        "/spec/selector"]


def test_a_service_cluster_ip_can_be_dropped_but_not_changed() -> None:
    set_ip = _update("v1", "Service", {"spec": {"clusterIP": "10.0.0.1"}}, {"spec": {"clusterIP": "10.0.0.2"}})
    assert immutable_paths(set_ip) == ["/spec/clusterIP"]
    added = _update("v1", "Service", {"spec": {}}, {"spec": {"clusterIP": "10.0.0.2"}})
    assert immutable_paths(added) == ["/spec/clusterIP"]
    dropped = _update("v1", "Service", {"spec": {"clusterIP": "10.0.0.1", "type": "A"}}, {"spec": {"type": "A"}})
    assert immutable_paths(dropped) == []
    ips = _update("v1", "Service", {"spec": {"clusterIPs": ["10.0.0.1"]}}, {"spec": {"clusterIPs": ["10.0.0.2"]}})
    assert immutable_paths(ips) != []
    ports = _update("v1", "Service", {"spec": {"type": "ClusterIP"}}, {"spec": {"type": "NodePort"}})
    assert immutable_paths(ports) == []


@pytest.mark.parametrize("kind", ["RoleBinding", "ClusterRoleBinding"])
def test_a_role_binding_role_ref_is_immutable(kind: str) -> None:
    before, after = {"roleRef": {"name": "a"}, "subjects": [1]}, {"roleRef": {"name": "b"}, "subjects": [1]}
    assert immutable_paths(_update("rbac.authorization.k8s.io/v1", kind, before, after)) == ["/roleRef/name"]
    assert immutable_paths(_update("rbac.authorization.k8s.io/v1", kind, {"subjects": [1], "roleRef": 1},
                                   {"subjects": [2], "roleRef": 1})) == []


@pytest.mark.parametrize("field", ["provisioner", "parameters", "reclaimPolicy", "volumeBindingMode"])
def test_storage_class_fields_are_immutable(field: str) -> None:
    change = _update("storage.k8s.io/v1", "StorageClass", {field: "a", "allowVolumeExpansion": False},
                     {field: "b", "allowVolumeExpansion": False})
    assert immutable_paths(change) == [f"/{field}"]
    assert immutable_paths(_update("storage.k8s.io/v1", "StorageClass", {"allowVolumeExpansion": False},
                                   {"allowVolumeExpansion": True})) == []


def _pvc(storage: Any, **spec: Any) -> dict[str, Any]:
    return {"spec": {"resources": {"requests": {"storage": storage}}, **spec}}


@pytest.mark.parametrize("before, after, immutable", [
    ("1Gi", "2Gi", False), ("1Gi", "1024Mi", False), ("2Gi", "1Gi", True), ("1Gi", "1G", True),
    ("1Gi", "1Gi", False), ("1Gi", "lots", True), ("some", "2Gi", True),
])
def test_a_pvc_storage_request_may_grow_but_never_shrink(before: str, after: str, immutable: bool) -> None:
    paths = immutable_paths(_update("v1", "PersistentVolumeClaim", _pvc(before), _pvc(after)))
    assert paths == (["/spec/resources/requests/storage"] if immutable else [])


def test_the_rest_of_a_pvc_spec_is_immutable_but_its_volume_attributes_class() -> None:
    assert immutable_paths(_update("v1", "PersistentVolumeClaim", _pvc("1Gi", storageClassName="a"),
                                   _pvc("1Gi", storageClassName="b"))) == ["/spec/storageClassName"]
    assert immutable_paths(_update("v1", "PersistentVolumeClaim", _pvc("1Gi", volumeAttributesClassName="a"),
                                   _pvc("1Gi", volumeAttributesClassName="b"))) == []
    removed = ResourceChange(ResourceRef("v1", "PersistentVolumeClaim", "shop", "x"), Action.UPDATE, _pvc("1Gi"), {},
                             (FieldChange("/spec/resources/requests/storage", FieldOp.REMOVE, "1Gi", None),))
    assert immutable_paths(removed) == ["/spec/resources/requests/storage"]
    same = ResourceChange(ResourceRef("v1", "PersistentVolumeClaim", "shop", "x"), Action.UPDATE, _pvc("1Gi"),
                          _pvc("1024Mi"), (FieldChange("/spec/resources/requests/storage", FieldOp.REPLACE, "1Gi", "1024Mi"),))
    assert immutable_paths(same) == []  # an equal size, written another way, is not a shrink
    labels = _update("v1", "PersistentVolumeClaim", {"metadata": {"labels": {"a": "1"}}, **_pvc("1Gi")},
                     {"metadata": {"labels": {"a": "2"}}, **_pvc("1Gi")})
    assert immutable_paths(labels) == []


@pytest.mark.parametrize("kind", ["ConfigMap", "Secret"])
def test_an_immutable_config_map_or_secret_is_judged_on_the_old_object(kind: str) -> None:
    frozen = {"immutable": True, "data": {"a": "1"}}
    assert immutable_paths(_update("v1", kind, frozen, {"immutable": True, "data": {"a": "2"}})) == ["/data/a"]
    assert immutable_paths(_update("v1", kind, frozen, {"data": {"a": "1"}})) == ["/immutable"]
    assert immutable_paths(_update("v1", kind, frozen, {**frozen, "binaryData": {"b": "AA=="}})) == ["/binaryData"]
    assert immutable_paths(_update("v1", kind, {"immutable": True, "stringData": {"a": "1"}},
                                   {"immutable": True, "stringData": {"a": "2"}})) == ["/stringData/a"]
    labelled = {**frozen, "metadata": {"labels": {"x": "1"}}}
    assert immutable_paths(_update("v1", kind, frozen, labelled)) == []
    # Not immutable before: the update may change the data and make it immutable at once.
    assert immutable_paths(_update("v1", kind, {"data": {"a": "1"}}, {"immutable": True, "data": {"a": "2"}})) == []
    assert immutable_paths(_update("v1", kind, {"immutable": False, "data": {"a": "1"}},
                                   {"immutable": True, "data": {"a": "2"}})) == []
    assert immutable_paths(_update("v1", kind, {"immutable": "true", "data": {"a": "1"}}, {"data": {"a": "2"}})) == []
    assert immutable_paths(_update("apps/v1", kind, frozen, {"immutable": True, "data": {"a": "2"}})) == []


def test_only_updates_are_judged_and_equivalent_quantities_are_not_changes() -> None:
    ref = ResourceRef("apps/v1", "Deployment", "shop", "x")
    field = FieldChange("/spec/selector/matchLabels/app", FieldOp.REPLACE, "a", "b")
    assert immutable_fields(ResourceChange(ref, Action.CREATE, None, SELECTOR_B, (field,))) == []
    assert immutable_fields(ResourceChange(ref, Action.DELETE, SELECTOR, None, (field,))) == []
    equal = FieldChange("/spec/selector/cpu", FieldOp.REPLACE, "1", "1000m", equivalent=True)
    assert immutable_fields(ResourceChange(ref, Action.UPDATE, SELECTOR, SELECTOR_B, (equal, field))) == [field]


def test_an_update_without_both_objects_is_not_judged() -> None:
    ref = ResourceRef("apps/v1", "Deployment", "shop", "x")
    field = FieldChange("/spec/selector/matchLabels/app", FieldOp.REPLACE, "a", "b")
    assert immutable_fields(ResourceChange(ref, Action.UPDATE, None, SELECTOR_B, (field,))) == []
    assert immutable_fields(ResourceChange(ref, Action.UPDATE, SELECTOR, None, (field,))) == []


STS = ("apps", "StatefulSet")


def _claim(**extra: Any) -> dict[str, Any]:
    return {"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"],
                                                   "resources": {"requests": {"storage": "1Gi"}}}, **extra}


def test_stored_statefulset_claim_templates_lose_type_meta_and_gain_pvc_defaults() -> None:
    """Decoding drops an embedded object's apiVersion and kind; SetDefaults_PersistentVolumeClaimSpec
    sets volumeMode Filesystem and SetDefaults_PersistentVolumeClaim sets status.phase Pending."""
    sent = {"kind": "StatefulSet", "spec": {"serviceName": "db", "volumeClaimTemplates": [
        _claim(apiVersion="v1", kind="PersistentVolumeClaim"), "odd"]}}
    claim = _claim()
    assert stored(STS, sent) == {"kind": "StatefulSet", "spec": {"serviceName": "db", "volumeClaimTemplates": [
        {**claim, "spec": {**claim["spec"], "volumeMode": "Filesystem"}, "status": {"phase": "Pending"}}, "odd"]}}
    assert sent["spec"]["volumeClaimTemplates"][0]["kind"] == "PersistentVolumeClaim"  # the input is not changed
    block = _claim(spec={"volumeMode": "Block"}, status={"phase": "Bound", "capacity": {"storage": "1Gi"}})
    assert stored(STS, {"spec": {"volumeClaimTemplates": [block]}}) == {"spec": {"volumeClaimTemplates": [block]}}
    partial = _claim(spec="odd", status={"conditions": []})
    assert stored(STS, {"spec": {"volumeClaimTemplates": [partial]}}) == {"spec": {"volumeClaimTemplates": [
        {**partial, "status": {"conditions": [], "phase": "Pending"}}]}}
    odd_status = _claim(spec={"volumeMode": "Block"}, status="odd")
    assert stored(STS, {"spec": {"volumeClaimTemplates": [odd_status]}}) == {"spec": {"volumeClaimTemplates": [odd_status]}}


@pytest.mark.parametrize("key, obj", [
    (("apps", "Deployment"), {"spec": {"volumeClaimTemplates": [{"kind": "PersistentVolumeClaim"}]}}),
    (("example.com", "StatefulSet"), {"spec": {"volumeClaimTemplates": [{"kind": "PersistentVolumeClaim"}]}}),
    (STS, {"spec": {"serviceName": "db"}}), (STS, {"spec": {"volumeClaimTemplates": None}}), (STS, {"spec": "odd"}),
    (STS, {}),
])
def test_stored_changes_nothing_else(key: tuple[str, str], obj: dict[str, Any]) -> None:
    assert stored(key, obj) is obj


def test_type_meta_and_defaults_in_claim_templates_are_no_immutable_change() -> None:
    bare = {"spec": {"serviceName": "db", "volumeClaimTemplates": [_claim()]}}
    typed = {"spec": {"serviceName": "db", "volumeClaimTemplates": [_claim(apiVersion="v1", kind="PersistentVolumeClaim")]}}
    assert immutable_paths(_update("apps/v1", "StatefulSet", bare, typed)) == []
    assert immutable_paths(_update("apps/v1", "StatefulSet", typed, bare)) == []
    # Only replicas, ordinals, template, updateStrategy, persistentVolumeClaimRetentionPolicy and
    # minReadySeconds may change: a claim template's size may not, even growing.
    bigger = {"spec": {"serviceName": "db", "volumeClaimTemplates": [
        _claim(spec={"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "2Gi"}}})]}}
    assert immutable_paths(_update("apps/v1", "StatefulSet", typed, bigger)) == [
        "/spec/volumeClaimTemplates/0/spec/resources/requests/storage"]


def test_an_added_claim_template_is_reported_as_the_api_server_would_store_it() -> None:
    added = _update("apps/v1", "StatefulSet", {"spec": {"serviceName": "db"}},
                    {"spec": {"serviceName": "db", "volumeClaimTemplates": [_claim(kind="PersistentVolumeClaim")]}})
    [field] = immutable_fields(added)
    claim = _claim()
    assert (field.path, field.op, field.before) == ("/spec/volumeClaimTemplates", FieldOp.ADD, None)
    assert field.after == [{**claim, "spec": {**claim["spec"], "volumeMode": "Filesystem"}, "status": {"phase": "Pending"}}]


def test_an_immutable_change_is_a_predicted_failure_naming_each_field_once() -> None:
    change = _update("apps/v1", "StatefulSet", {"spec": {"serviceName": "a", "selector": {"x": 1, "y": 1}}},
                     {"spec": {"serviceName": "b", "selector": {"x": 2, "y": 2}}})
    [warning] = consequences([change])
    assert warning.code is Code.IMMUTABLE and warning.fails and warning.severity is Severity.WARNING
    assert warning.resource == change.resource
    assert warning.facts == Immutable(fields=(Field("/spec/selector/x"), Field("/spec/selector/y"),
                                              Field("/spec/serviceName")))
    [one] = consequences([_update("apps/v1", "Deployment", SELECTOR, SELECTOR_B)])
    assert one.facts == Immutable(fields=(Field("/spec/selector/matchLabels/app"),))
    assert consequences([_update("apps/v1", "Deployment", SELECTOR, MORE_REPLICAS)]) == []
    [two] = consequences([_update("apps/v1", "Deployment", {"spec": {"selector": {"a": 1, "b": 1}}},
                                  {"spec": {"selector": {"a": 2, "b": 2}}})])
    assert two.facts == Immutable(fields=(Field("/spec/selector/a"), Field("/spec/selector/b")))


def test_an_immutable_field_in_a_keyed_list_is_named_by_its_key() -> None:
    def job(image: str) -> dict[str, Any]:
        return {"spec": {"template": {"spec": {"containers": [{"name": "side", "image": "s"},
                                                               {"name": "app", "image": image}]}}}}
    [warning] = consequences([_update("batch/v1", "Job", job("a:1"), job("a:2"))])
    assert warning.facts == Immutable(fields=(
        Field("/spec/template/spec/containers/1/image", {"/spec/template/spec/containers/1": {"name": "app"}}),))


@pytest.mark.parametrize("api_version, kind, namespace, loss", [
    ("v1", "PersistentVolumeClaim", "shop", Loss.VOLUME),
    ("v1", "Namespace", "", Loss.NAMESPACE_OBJECTS),
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", Loss.CUSTOM_RESOURCES),
])
def test_deleting_what_holds_data_warns_of_data_loss(api_version: str, kind: str, namespace: str, loss: Loss) -> None:
    ref = ResourceRef(api_version, kind, namespace, "x")
    [warning] = consequences([ResourceChange(ref, Action.DELETE, {"a": 1}, None)])
    assert warning.code is Code.DATA_LOSS and not warning.fails and warning.resource == ref
    assert warning.facts == DataLoss(loses=loss)
    assert consequences([ResourceChange(ref, Action.RETAIN, {"a": 1}, None)]) == []  # kept: nothing lost
    assert consequences([ResourceChange(ref, Action.CREATE, None, {"a": 1})]) == []


def test_deleting_other_kinds_loses_nothing() -> None:
    for ref in (ResourceRef("v1", "ConfigMap", "shop", "x"), ResourceRef("example.com/v1", "Namespace", "", "x")):
        assert consequences([ResourceChange(ref, Action.DELETE, {"a": 1}, None)]) == []


@pytest.mark.parametrize("labels, name", [
    ({"deployah.dev/task": "migrate"}, "migrate"), ({"deployah.dev/task": "  "}, "Job shop/db"),
    ({"deployah.dev/task": 3}, "Job shop/db"), ({}, "Job shop/db"), (None, "Job shop/db"), (["x"], "Job shop/db"),
])
def test_task_name(labels: Any, name: str) -> None:
    ref = ResourceRef("batch/v1", "Job", "shop", "db")
    assert task_name({"metadata": {"labels": labels}}, ref) == name
    assert task_name({}, ref) == "Job shop/db"
    # A cluster-scoped object has no namespace to show: the kind, then its name.
    assert task_name({}, ResourceRef("rbac.authorization.k8s.io/v1", "ClusterRole", "", "db")) == "ClusterRole db"
