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
from deployah_plan.model import FieldChange, ResourceRef


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


# -- what a flag of the command changes (commands/upgrade_flags.py, commands/upgrade.py) --------
# (section: commands)

class DeprecatedFlag(Facts, frozen=True, kw_only=True):
    """A flag the helm at hand (Helm 4) still takes but deprecates, and its new name."""

    code = Code.DEPRECATED_FLAG
    flag: str  # as given: --atomic, --force
    replacement: str  # the name Helm 4 gives it: --rollback-on-failure, --force-replace


class CreateNamespaceIgnored(Facts, frozen=True, kw_only=True):
    """--create-namespace on an upgrade: the release namespace is left as it is."""

    code = Code.CREATE_NAMESPACE_IGNORED
    namespace: str


class NamespaceExists(Facts, frozen=True, kw_only=True):
    """--create-namespace on an install into a namespace that already exists."""

    code = Code.NAMESPACE_EXISTS
    namespace: str


class NamespaceTwice(Facts, frozen=True, kw_only=True):
    """--create-namespace creates the release namespace, and the chart declares it too."""

    code = Code.NAMESPACE_TWICE
    namespace: str


class CreateNamespace(Facts, frozen=True, kw_only=True):
    """--create-namespace on an install: helm creates the release namespace first. `checked`:
    whether the cluster was asked if it already exists."""

    code = Code.CREATE_NAMESPACE
    namespace: str
    checked: bool


class NoHooks(Facts, frozen=True, kw_only=True):
    """--no-hooks: no hook runs on this action (an install, or an upgrade)."""

    code = Code.NO_HOOKS
    install: bool


class ForceReplace(Facts, frozen=True, kw_only=True):
    """--force or --force-replace: each updated object is replaced, not patched."""

    code = Code.FORCE_REPLACE
    flag: str  # as given: --force, --force-replace


class ReleaseLabels(Facts, frozen=True, kw_only=True):
    """--labels: the release labels the new revision records (a label given as null is
    removed: None), merged into the previous revision's on an upgrade."""

    code = Code.RELEASE_LABELS
    labels: dict[str, str | None]
    install: bool
    previous_revision: int  # 0 on an install


class Description(Facts, frozen=True, kw_only=True):
    """--description: the description the new revision records."""

    code = Code.DESCRIPTION
    description: str


class HistoryPruned(Facts, frozen=True, kw_only=True):
    """--history-max: the stored revisions helm deletes when it records the new one."""

    code = Code.HISTORY_PRUNED
    history_max: int
    revisions: tuple[int, ...]


class Atomic(Facts, frozen=True, kw_only=True):
    """--atomic or --rollback-on-failure: if the action fails, helm uninstalls the release (an
    install) or rolls back to the previous revision (an upgrade)."""

    code = Code.ATOMIC
    flag: str  # as given: --atomic, --rollback-on-failure
    install: bool
    previous_revision: int  # 0 on an install


class WaitForJobs(Facts, frozen=True, kw_only=True):
    """--wait-for-jobs: the Jobs helm waits for, up to the timeout; or, without --wait (`waits`
    false), the Jobs it does not wait for."""

    code = Code.WAIT_FOR_JOBS
    jobs: tuple[str, ...]
    waits: bool
    timeout: str  # as given, or helm's default (5m0s)


class InstallFlag(Facts, frozen=True, kw_only=True):
    """A release that does not exist, planned as helm upgrade --install (--install not given)."""

    code = Code.INSTALL_FLAG


class ReuseValuesOffline(Facts, frozen=True, kw_only=True):
    """--reuse-values with an offline render: the previous release's computed values plus the
    overrides (the new chart's own defaults included, which Helm ignores)."""

    code = Code.REUSE_VALUES_OFFLINE


class ValuesReused(Facts, frozen=True, kw_only=True):
    """No values given: the values of the previous revision are used again."""

    code = Code.VALUES_REUSED
    revision: int


class LookupOffline(Facts, frozen=True, kw_only=True):
    """The chart calls `lookup`, and the render was offline."""

    code = Code.LOOKUP_OFFLINE
    chart: str


class PreviousNotDeployed(Facts, frozen=True, kw_only=True):
    """No revision is deployed: planned against the newest one, of this status."""

    code = Code.PREVIOUS_NOT_DEPLOYED
    revision: int
    status: str


class Reinstall(Facts, frozen=True, kw_only=True):
    """The release was uninstalled with its history kept: helm upgrade --install installs it again."""

    code = Code.REINSTALL
    release: str



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

__all__ = ["Atomic", "CreateNamespace", "CreateNamespaceIgnored", "DataLoss", "DeprecatedFlag",
    "Description", "Field", "ForceReplace", "HistoryPruned", "Immutable", "InstallFlag", "LookupOffline",
    "Loss", "NamespaceExists", "NamespaceTwice", "NoHooks", "PreviousNotDeployed", "Reinstall",
    "ReleaseLabels", "ReuseValuesOffline", "SsaConflict", "ValuesReused", "WaitForJobs", "facts_class",
    "schema"]
