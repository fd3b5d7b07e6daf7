"""Data: CRDs deleted with their resources, claims that shrink, grow or are left behind."""
from __future__ import annotations

from typing import Any, Mapping

from deployah_plan.core import quantity
from deployah_plan.core.impact.common import Found, ImpactInput, dicts, dig, group_kind, natural
from deployah_plan.facts import PvcExpandRefused
from deployah_plan.impact_facts import DataCrd, Expansion, PvcExpand, PvcLeft, PvcShrink
from deployah_plan.impacts import ImpactKind
from deployah_plan.model import Action, Impact, ResourceChange, warn

_PVC_STORAGE = "/spec/resources/requests/storage"
_DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class"


def data(changes: list[ResourceChange], given: ImpactInput, found: Found) -> None:
    for change in changes:
        ref = change.resource
        if change.action is Action.DELETE and group_kind(ref) == ("apiextensions.k8s.io", "CustomResourceDefinition"):
            kind = dig(change.before, "spec", "names", "kind")
            group = dig(change.before, "spec", "group")
            said = isinstance(kind, str) and isinstance(group, str)
            found.impacts.append(Impact(ImpactKind.DATA_CRD, ref, facts=DataCrd(
                resource_kind=kind if said else None, group=group if said else None)))
        elif change.action is Action.UPDATE and group_kind(ref) == ("", "PersistentVolumeClaim"):
            _pvc_size(change, given, found)
        elif change.action is Action.DELETE and group_kind(ref) == ("apps", "StatefulSet"):
            _statefulset_claims(change, given, found)


def _pvc_size(change: ResourceChange, given: ImpactInput, found: Found) -> None:
    ref = change.resource
    size = next((f for f in change.fields if f.path == _PVC_STORAGE and not f.equivalent), None)
    if size is None:
        return
    old, new = quantity.parse(size.before), quantity.parse(size.after)
    if old is None or new is None:
        return
    if new < old:
        found.impacts.append(Impact(ImpactKind.DATA_PVC_SHRINK, ref, facts=PvcShrink(
            storage_before=str(size.before), storage_after=str(size.after))))
        return
    live = given.live_of(ref) if given.live_of else None
    name = dig(change.after, "spec", "storageClassName") or dig(live, "spec", "storageClassName")
    classes = _storage_classes(given)
    if not isinstance(name, str):
        name = next((n for n, obj in classes.items() if dig(obj, "metadata", "annotations", _DEFAULT_CLASS) == "true"), None)
    klass = classes.get(name) if isinstance(name, str) else None
    which = name if isinstance(name, str) else None
    if klass is None:
        expansion = Expansion.NOT_READ
    elif dig(klass, "allowVolumeExpansion") is True:
        expansion = Expansion.ALLOWED
    else:
        expansion = Expansion.REFUSED
    found.impacts.append(Impact(ImpactKind.DATA_PVC_EXPAND, ref, facts=PvcExpand(
        storage_before=str(size.before), storage_after=str(size.after), storage_class=which, expansion=expansion)))
    if expansion is Expansion.REFUSED and which is not None:
        found.warnings.append(warn(PvcExpandRefused(
            storage_before=str(size.before), storage_after=str(size.after), storage_class=which), ref))


def _storage_classes(given: ImpactInput) -> dict[str, Mapping[str, Any]]:
    out: dict[str, Mapping[str, Any]] = {}
    for obj in given.live_objects:
        if str(obj.get("apiVersion", "")).startswith("storage.k8s.io/") and obj.get("kind") == "StorageClass":
            out[str(dig(obj, "metadata", "name"))] = obj
    for ref, obj in given.desired.values():  # the release's own wins: it is what will be there
        if group_kind(ref) == ("storage.k8s.io", "StorageClass"):
            out[ref.name] = obj
    return out


def _statefulset_claims(change: ResourceChange, given: ImpactInput, found: Found) -> None:
    ref, obj = change.resource, change.before or {}
    templates = [str(dig(t, "metadata", "name")) for t in dicts(dig(obj, "spec", "volumeClaimTemplates"))
                 if isinstance(dig(t, "metadata", "name"), str)]
    if not templates:
        return
    live = given.live_of(ref) if given.live_of else None
    replicas = natural(dig(live, "spec", "replicas"))
    replicas = replicas if replicas is not None else natural(dig(obj, "spec", "replicas"))
    replicas = 1 if replicas is None else replicas
    count = replicas * len(templates)  # named TEMPLATE-STATEFULSET-ORDINAL
    policy = dig(obj, "spec", "persistentVolumeClaimRetentionPolicy", "whenDeleted")
    found.impacts.append(Impact(ImpactKind.DATA_PVC_LEFT, ref, (), (("claims", count),), PvcLeft(
        templates=tuple(templates), replicas=replicas, claims_deleted=policy == "Delete")))
