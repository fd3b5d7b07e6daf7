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

class VersionSource(enum.Enum):
    """Where the Kubernetes version the objects are judged against comes from."""

    FLAG = "kube-version-flag"  # --kube-version
    NEWEST_KNOWN = "newest-known"  # not given (`helm plan diff`): the newest version helm plan knows
    TEMPLATE_DEFAULT = "template-default"  # helm template's default capabilities
    CLUSTER_DISCOVERY = "cluster-discovery"  # the cluster's version and discovery (not its OpenAPI)
    CLUSTER_OPENAPI = "cluster-openapi"  # the cluster's version and its own OpenAPI schemas


class Judged(Struct, frozen=True):
    """The Kubernetes version objects are judged against, and where it comes from."""

    kube_version: str
    source: VersionSource


class Role(enum.Enum):
    """What an object Helm builds is, besides a plain object of the new release."""

    RELEASE = "release"  # an object of the new release
    HOOK = "hook"  # a hook that runs on this action
    CHART_CRD = "chart-crd"  # a CRD of the chart's crds/ (installed before the release)
    PREVIOUS_RELEASE = "previous-release"  # an object of the previous release's manifest (mapped, not sent)


class NotServedRule(enum.Enum):
    """Why a kind not served in its apiVersion is said as it is."""

    CRD_VERSION = "crd-version"  # the chart's own CRD does not serve that version: Helm fails
    TARGET = "target"  # the target version does not serve it: Helm fails
    ASSUMED_VERSION = "assumed-version"  # the version judged against was not given: a warning
    OFFLINE_DEFAULTS = "offline-defaults"  # rendered with helm's offline capabilities: a warning


class ApiNotServed(Facts, frozen=True, kw_only=True):
    """The object's kind is not served in its apiVersion (by the target Kubernetes version, or
    by the chart's own CRD for it): Helm cannot map it and stops before applying anything."""

    code = Code.API_NOT_SERVED
    role: Role
    api_version: str
    kind: str
    rule: NotServedRule
    judged: Judged | None  # None: judged against the chart's CRD (rule crd-version)
    removed_in: str  # the Kubernetes version that removed it ("" when not known)
    replacement: str  # the apiVersion to move to ("" when none is known)
    served: tuple[str, ...]  # rule crd-version: the apiVersions the chart's CRD serves


class ApiDeprecated(Facts, frozen=True, kw_only=True):
    """The object's apiVersion is served by the version judged against, and removed in a later one."""

    code = Code.API_DEPRECATED
    api_version: str
    kind: str
    judged: Judged
    removed_in: str
    replacement: str  # the apiVersion to move to ("" when none is known)


class CrdMissing(Facts, frozen=True, kw_only=True):
    """A custom resource whose kind the cluster does not serve and no CRD of the chart defines."""

    code = Code.CRD_MISSING
    role: Role
    api_version: str
    kind: str


class ProblemKind(enum.Enum):
    """What is wrong with one field against the schema."""

    TYPE = "type"  # a value of the wrong type
    REQUIRED = "required"  # a required field is missing
    UNKNOWN = "unknown"  # a field the schema does not have


class SchemaType(enum.Enum):
    """The type a schema wants for a field."""

    STRING = "string"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    QUANTITY = "quantity"  # a string or a number
    INT_OR_STRING = "int-or-string"
    OBJECT = "object"
    LIST = "list"
    MAP = "map"


class SchemaProblem(Struct, frozen=True, kw_only=True):
    """One field's problem against the schema. `path` is the field's place in the object, each
    step a key (a string) or a list index (an integer)."""

    path: tuple[str | int, ...]
    problem: ProblemKind
    found: str = ""  # type: the JSON type of the value given ("string", "integer", "list", "object", ...)
    wants: SchemaType | None = None  # type: the type the schema wants
    near: tuple[str | int, ...] | None = None  # unknown: the field of the schema it is closest to


class SchemaInvalid(Facts, frozen=True, kw_only=True):
    """Values of the wrong type or missing required fields: the API server rejects the object."""

    code = Code.SCHEMA_INVALID
    role: Role
    problems: tuple[SchemaProblem, ...]
    judged: Judged | None  # the schema of that version; None: the CRD's schema


class UnknownFieldRule(enum.Enum):
    """What the API server does with unknown fields."""

    STRICT = "strict"  # server-side apply with strict field validation: rejected, Helm fails
    CLIENT_SIDE = "client-side"  # client-side apply: dropped with a warning
    VALIDATION_DISABLED = "validation-disabled"  # --disable-openapi-validation: dropped


class UnknownField(Facts, frozen=True, kw_only=True):
    """Fields the object's kind does not have."""

    code = Code.UNKNOWN_FIELD
    role: Role
    rule: UnknownFieldRule
    problems: tuple[SchemaProblem, ...]
    judged: Judged | None  # the schema of that version; None: the CRD's schema


class ApiKind(Struct, frozen=True):
    """A kind in an apiVersion."""

    kind: str
    api_version: str


class KindsNotChecked(Facts, frozen=True, kw_only=True):
    """Custom kinds no CRD of the chart defines, rendered offline: whether they are served is not known."""

    code = Code.KINDS_NOT_CHECKED
    kinds: tuple[ApiKind, ...]  # in the order first met


class NamespaceMissing(Facts, frozen=True, kw_only=True):
    """The release namespace does not exist and --create-namespace was not given."""

    code = Code.NAMESPACE_MISSING
    namespace: str


class HookCollisionRule(enum.Enum):
    """How the previous run's object of a hook meets its new one."""

    EXISTS = "exists"  # it exists live and Helm creates hooks client-side: Helm fails
    EXISTS_SERVER_SIDE = "exists-server-side"  # it exists live and hooks are applied server-side: updated
    MAY_EXIST = "may-exist"  # the hook was in the previous release, the live state was not read


class HookCollision(Facts, frozen=True, kw_only=True):
    """A hook (the warning's resource) whose delete policies lack before-hook-creation."""

    code = Code.HOOK_COLLISION
    rule: HookCollisionRule
    delete_policies: tuple[str, ...]


class KubeVersionAssumed(Facts, frozen=True, kw_only=True):
    """`helm plan diff` without --kube-version: judged against the newest version helm plan knows."""

    code = Code.KUBE_VERSION_ASSUMED
    kube_version: str


class KeepHistory(Facts, frozen=True, kw_only=True):
    """helm uninstall --keep-history: the release's revisions are kept, marked uninstalled."""

    code = Code.KEEP_HISTORY
    revision: int  # the current revision, the one marked uninstalled


class HistoryDeleted(Facts, frozen=True, kw_only=True):
    """helm uninstall deletes the release's history with it."""

    code = Code.HISTORY_DELETED



# -- what Helm does with the release (core/planner.py, core/ownership.py) ----------------------
# (section: planner)


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

__all__ = ["ApiDeprecated", "ApiKind", "ApiNotServed", "CrdMissing", "DataLoss", "Field", "HistoryDeleted",
           "HookCollision", "HookCollisionRule", "Immutable", "Judged", "KeepHistory", "KindsNotChecked",
           "KubeVersionAssumed", "Loss", "NamespaceMissing", "NotServedRule", "ProblemKind", "Role", "SchemaInvalid",
           "SchemaProblem", "SchemaType", "SsaConflict", "UnknownField", "UnknownFieldRule", "VersionSource",
           "facts_class", "schema"]
