"""What Helm and Kubernetes will do beyond applying objects: immutable fields, data loss, task names.

Pure functions over objects and planned changes; the planner calls them.

- Task names: a hook's `deployah.dev/task` label, else its Kind/name.
- Immutable fields: an update that changes one is rejected by the API server, so the whole
  `helm upgrade` fails unless the object is replaced. The rules are Kubernetes' validation of
  each kind (apps, batch, core, rbac, storage), judged on what the API server stores: the
  type metadata it drops and the defaults it applies are no change (`stored`).
- Deleting a PersistentVolumeClaim, a Namespace or a CustomResourceDefinition deletes data
  that is not in the chart.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from deployah_plan.core import quantity
from deployah_plan.core.diff import diff_objects
from deployah_plan.facts import DataLoss, Field, Immutable, Loss
from deployah_plan.model import Action, FieldChange, FieldOp, ResourceChange, ResourceRef, Warning, warn

TASK_LABEL = "deployah.dev/task"

# (group, kind) -> pointers under which any change is rejected on update.
_IMMUTABLE: dict[tuple[str, str], tuple[str, ...]] = {
    ("apps", "Deployment"): ("/spec/selector",),
    ("apps", "DaemonSet"): ("/spec/selector",),
    ("apps", "ReplicaSet"): ("/spec/selector",),
    ("apps", "StatefulSet"): ("/spec/selector", "/spec/volumeClaimTemplates", "/spec/serviceName",
                              "/spec/podManagementPolicy"),
    ("batch", "Job"): ("/spec/selector", "/spec/template"),
    ("", "Service"): ("/spec/clusterIP", "/spec/clusterIPs"),
    ("rbac.authorization.k8s.io", "RoleBinding"): ("/roleRef",),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): ("/roleRef",),
    ("storage.k8s.io", "StorageClass"): ("/provisioner", "/parameters", "/reclaimPolicy", "/volumeBindingMode"),
}
_PVC_STORAGE = "/spec/resources/requests/storage"  # may grow, never shrink
_PVC_MUTABLE = ("/spec/volumeAttributesClassName",)
_DATA_LOSS = {
    ("", "PersistentVolumeClaim"): Loss.VOLUME,
    ("", "Namespace"): Loss.NAMESPACE_OBJECTS,
    ("apiextensions.k8s.io", "CustomResourceDefinition"): Loss.CUSTOM_RESOURCES,
}


def task_name(obj: Mapping[str, Any], ref: ResourceRef) -> str:
    """A task's name: its `deployah.dev/task` label when present, else the object's name as
    every object is named (`Job ns/migrate`)."""
    labels = (obj.get("metadata") or {}).get("labels") or {}
    label = labels.get(TASK_LABEL) if isinstance(labels, dict) else None
    return label if isinstance(label, str) and label.strip() else str(ref)


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + "/")


def immutable_paths(change: ResourceChange) -> list[str]:
    """The fields an update changes that the API server will not let it change (pointers)."""
    return [f.path for f in immutable_fields(change)]


def stored(key: tuple[str, str], obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """The object as the API server stores it, where that differs from what a chart sends in a
    way an immutable field check would see. A StatefulSet's `volumeClaimTemplates` are
    PersistentVolumeClaims embedded in the spec: decoding drops their `apiVersion` and `kind`
    (TypeMeta is not converted into the internal type, so it never reaches storage), and the
    defaulters fill `spec.volumeMode: Filesystem` and `status.phase: Pending`
    (pkg/apis/core/v1 SetDefaults_PersistentVolumeClaimSpec and SetDefaults_PersistentVolumeClaim,
    called for each template by the apps/v1 StatefulSet defaulter). So a chart that adds
    `apiVersion: v1` and `kind: PersistentVolumeClaim` to its templates changes nothing stored."""
    if key != ("apps", "StatefulSet"):
        return obj
    spec = obj.get("spec")
    templates = spec.get("volumeClaimTemplates") if isinstance(spec, dict) else None
    if not isinstance(spec, dict) or not isinstance(templates, list):
        return obj
    out = []
    for template in templates:
        if isinstance(template, dict):
            template = {k: v for k, v in template.items() if k not in ("apiVersion", "kind")}
            claim = template.get("spec")
            if isinstance(claim, dict) and claim.get("volumeMode") is None:
                template["spec"] = {**claim, "volumeMode": "Filesystem"}
            status = template.get("status")
            if status is None or isinstance(status, dict) and status.get("phase") is None:
                template["status"] = {**(status or {}), "phase": "Pending"}
        out.append(template)
    return {**obj, "spec": {**spec, "volumeClaimTemplates": out}}


def immutable_fields(change: ResourceChange) -> list[FieldChange]:
    """The field changes of an update that the API server will not let it make, judged on
    what it stores (`stored`)."""
    if change.action is not Action.UPDATE or change.before is None or change.after is None:
        return []
    key = (change.resource.group, change.resource.kind)
    real = [f for f in change.fields if not f.equivalent]
    before, after = stored(key, change.before), stored(key, change.after)
    if before is not change.before or after is not change.after:
        real = [f for f in diff_objects(before, after) if not f.equivalent]
    hits: list[FieldChange] = []
    if key in _IMMUTABLE:
        for prefix in _IMMUTABLE[key]:
            hits += [f for f in real if _under(f.path, prefix) and not _service_ip_released(key, f)]
    elif key == ("", "PersistentVolumeClaim"):
        hits += [f for f in real if _under(f.path, "/spec") and not _pvc_allowed(f)]
    elif key in (("", "ConfigMap"), ("", "Secret")) and change.before.get("immutable") is True:
        hits += [f for f in real if f.path.startswith(("/data", "/binaryData", "/stringData", "/immutable"))]
    return hits


def _service_ip_released(key: tuple[str, str], change: FieldChange) -> bool:
    # Dropping clusterIP from the manifest keeps the allocated address (the API server copies
    # it over on update), so only setting it, or setting another one, fails.
    return key == ("", "Service") and change.op is FieldOp.REMOVE


def _pvc_allowed(change: FieldChange) -> bool:
    """A PVC's spec is immutable but for a storage request that grows, and its volume class."""
    if change.path == _PVC_STORAGE:
        old, new = quantity.parse(change.before), quantity.parse(change.after)
        return change.op is FieldOp.REPLACE and old is not None and new is not None and new >= old
    return change.path in _PVC_MUTABLE


def consequences(changes: Iterable[ResourceChange]) -> list[Warning]:
    """Predicted failures (immutable fields) and data loss, one warning per object."""
    out: list[Warning] = []
    for change in changes:
        ref = change.resource
        paths = immutable_fields(change)
        if paths:
            out.append(warn(Immutable(fields=tuple(Field.of(f) for f in paths)), ref))
        loss = _DATA_LOSS.get((ref.group, ref.kind))
        if change.action is Action.DELETE and loss:
            out.append(warn(DataLoss(loses=loss), ref))
    return out
