"""What each check found, as typed values: one class per warning code, and the value types they
share.

A class here is the facts of one `codes.Code` member (its `code`), made where the check finds
them and handed to `model.warn`. Its fields are what a reader, a gate or a new writer needs and
nothing worded: the objects involved (`ResourceRef`), the fields (`Field`: a JSON Pointer and
the keys of the keyed list entries on it), the numbers, the names of what it reads or conflicts
with, the flag or the Kubernetes or Helm rule it rests on (`rule`, a short name of the rule, not
a sentence). render/words/warning.py says each one in words; the JSON plan carries the facts
beside that message (`facts`), and the schema describes each code's facts from these classes
(`scripts/gen-schema-codes`).

To add a code: its member in codes.py, its class here (a docstring saying what it found, fields
in the order a reader wants them), its wording in render/words/warning.py (`@says(Code.NEW)`);
tests/test_codes.py holds the three in step.
"""
from __future__ import annotations

import enum
from typing import Any, Mapping

from msgspec import Struct

from deployah_plan.codes import Code, Facts
from deployah_plan.model import FieldChange, HelmAction, Ownership, ResourceRef


class Field(Struct, frozen=True):
    """A field of an object: its JSON Pointer, and each keyed list entry on it (pointer of the
    entry, its key fields), as a `FieldChange` names them."""

    path: str
    keys: dict[str, Mapping[str, Any]] = {}

    @classmethod
    def of(cls, change: FieldChange) -> Field:
        return cls(change.path, dict(change.keys))


# -- what Kubernetes does with the objects ------------------------------------------------------

class Immutable(Facts, frozen=True, kw_only=True):
    """An update changes fields the API server will not change in place."""

    code = Code.IMMUTABLE
    fields: tuple[Field, ...]


class Loss(enum.Enum):
    """What goes with a deleted object."""

    VOLUME = "volume"  # a PVC: its volume, when the reclaim policy is Delete
    NAMESPACE_OBJECTS = "namespace-objects"  # a Namespace: every object in it
    CUSTOM_RESOURCES = "custom-resources"  # a CRD: every custom resource of its kind, in every namespace


class DataLoss(Facts, frozen=True, kw_only=True):
    """A PersistentVolumeClaim, Namespace or CustomResourceDefinition is deleted (the warning's
    resource), and what it holds with it."""

    code = Code.DATA_LOSS
    loses: Loss


class SsaConflict(Facts, frozen=True, kw_only=True):
    """Server-side apply conflicts on fields another field manager owns (the drift names the
    managers)."""

    code = Code.SSA_CONFLICT
    fields: tuple[Field, ...]


# -- what the API server refuses (core/validate.py, commands/diff.py, commands/uninstall.py) ------
# (section: validate)


# -- what Helm does with the release (core/planner.py, core/ownership.py) ----------------------
# (section: planner)

class Quantity(Struct, frozen=True):
    """A field whose two values are one quantity written two ways (`1000m` and `1`), as the
    manifests write them."""

    field: Field
    before: str | int | float
    after: str | int | float


class EquivalentOnly(Facts, frozen=True, kw_only=True):
    """An object differs from the previous release only by equal quantities written
    differently: not a change."""

    code = Code.EQUIVALENT_ONLY
    fields: tuple[Quantity, ...]


class Metadata(enum.Enum):
    """Where Helm's ownership check reads a value."""

    LABEL = "label"
    ANNOTATION = "annotation"


class OwnershipProblem(Struct, frozen=True):
    """One label or annotation Helm's ownership check refuses (pkg/action/validate.go
    `requireValue`): missing (`current` None), or with another value than the one required."""

    metadata: Metadata
    key: str
    required: str
    current: str | None = None


class OwnershipCheck(Facts, frozen=True, kw_only=True):
    """An object the plan creates already exists in the cluster: Helm adopts it into `release`
    (`adopt`, from `owner_release` with --take-ownership), or its ownership check fails on the
    `problems` (`unowned`: no Helm ownership metadata; `other-release`: `owner_release`'s,
    as namespace/name)."""

    code = Code.OWNERSHIP
    ownership: Ownership
    release: str
    owner_release: str = ""
    action: HelmAction
    problems: tuple[OwnershipProblem, ...] = ()


class Collision(Facts, frozen=True, kw_only=True):
    """An object the plan creates is being deleted in the cluster (deletionTimestamp set)."""

    code = Code.COLLISION


class StoredVersions(enum.Enum):
    """What a removed CRD version was judged against."""

    LIVE = "live"  # the live CRD's status.storedVersions still lists it: the API server refuses the update
    NOT_READ = "not-read"  # the live CRD was not read: it may still list it


class CrdVersionRemoved(Facts, frozen=True, kw_only=True):
    """An applied CRD leaves out versions (`versions`, in the CRD's order) that the cluster may
    still store objects in."""

    code = Code.CRD_VERSION_REMOVED
    versions: tuple[str, ...]
    stored_versions: StoredVersions


class CrdsUntouched(Facts, frozen=True, kw_only=True):
    """helm uninstall leaves the CRDs installed from the chart's crds/ directory."""

    code = Code.CRDS_UNTOUCHED


class CrdNotUpgraded(Facts, frozen=True, kw_only=True):
    """A chart CRD (crds/) changed in the chart; Helm never upgrades the chart's crds/."""

    code = Code.CRD_NOT_UPGRADED
    name: str
    source: str


class KeepFromManifest(Facts, frozen=True, kw_only=True):
    """Objects leaving the release whose live object was not read: whether Helm keeps each one
    (helm.sh/resource-policy: keep) was read from the previous manifest."""

    code = Code.KEEP_FROM_MANIFEST
    objects: tuple[ResourceRef, ...]


class DroppedDocument(Facts, frozen=True, kw_only=True):
    """A rendered document Helm leaves out: a hook with an unknown hook event (`event`, as
    written). `source` is its template ("" when the stream names none), `kind` and `name`
    its own ("" without a name)."""

    code = Code.DROPPED_DOCUMENT
    source: str
    kind: str
    name: str
    event: str


# -- what a flag of the command changes (commands/upgrade_flags.py, commands/upgrade.py) --------
# (section: commands)


# -- what the deploy does to running things (core/impact.py) ------------------------------------
# (section: impact)


def schema() -> dict[str, Any]:
    """Each code's facts as a JSON Schema, by code (the plan schema's `$defs.facts-CODE`, which
    scripts/gen-schema-codes writes): every field required, as the JSON plan always writes it."""
    import inspect as _inspect

    import msgspec.inspect as types

    def of(info: Any) -> dict[str, Any]:
        if isinstance(info, types.StrType):
            return {"type": "string"}
        if isinstance(info, types.BoolType):
            return {"type": "boolean"}
        if isinstance(info, types.IntType):
            return {"type": "integer"}
        if isinstance(info, types.FloatType):
            return {"type": "number"}
        if isinstance(info, types.VarTupleType):
            return {"type": "array", "items": of(info.item_type)}
        if isinstance(info, types.DictType):
            return {"type": "object", "additionalProperties": of(info.value_type)}
        if isinstance(info, types.EnumType):
            return {"enum": [m.value for m in info.cls]}
        if isinstance(info, types.DataclassType) and info.cls is ResourceRef:
            return {"$ref": "#/$defs/resource"}
        if isinstance(info, types.UnionType):
            return {"oneOf": [of(t) for t in info.types]}
        if isinstance(info, types.NoneType):
            return {"type": "null"}
        if isinstance(info, types.StructType):
            out: dict[str, Any] = {"type": "object"}
            doc = _inspect.getdoc(info.cls)
            if doc and info.cls.__doc__:
                out["description"] = " ".join(doc.split())
            out["required"] = [f.encode_name for f in info.fields]
            out["properties"] = {f.encode_name: of(f.type) for f in info.fields}
            return out
        if isinstance(info, types.AnyType):
            return {}
        raise TypeError(f"no schema for {info!r}")

    return {code.value: of(types.type_info(_BY_CODE[code])) for code in Code if code in _BY_CODE}


def facts_class(code: Code) -> type[Facts] | None:
    """The facts class of a code; None for a code with none (a stand-in for a newer version's)."""
    return _BY_CODE.get(code)


def _classes(base: type[Facts]) -> list[type[Facts]]:
    out = []
    for cls in base.__subclasses__():
        out += [cls, *_classes(cls)]
    return out


_BY_CODE: dict[Code, type[Facts]] = {cls.code: cls for cls in _classes(Facts)}

__all__ = ["Collision", "CrdNotUpgraded", "CrdVersionRemoved", "CrdsUntouched", "DataLoss", "DroppedDocument",
    "EquivalentOnly", "Field", "Immutable", "KeepFromManifest", "Loss", "Metadata", "OwnershipCheck",
    "OwnershipProblem", "Quantity", "SsaConflict", "StoredVersions", "facts_class", "schema"]
