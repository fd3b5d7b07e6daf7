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


class OwnedField(Field, frozen=True):
    """A field and the field managers other than Helm that own it (the live object's
    managedFields), the field itself or an atomic value above it."""

    managers: tuple[str, ...] = ()


class SsaConflict(Facts, frozen=True, kw_only=True):
    """Server-side apply conflicts on fields other field managers own: fields the apply sets to
    a value other than the live one (core/server_side.py)."""

    code = Code.SSA_CONFLICT
    fields: tuple[OwnedField, ...]


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
    """A custom resource whose kind the cluster does not serve and no CRD of the chart defines,
    or (`chart_crd`: its file) one the chart's crds/ defines, which Helm creates only on install."""

    code = Code.CRD_MISSING
    role: Role
    api_version: str
    kind: str
    chart_crd: str | None = None


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
    object_meta: bool = False  # only the metadata was judged, as ObjectMeta (a kind with no schema at hand)


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
    object_meta: bool = False  # only the metadata was judged, as ObjectMeta (a kind with no schema at hand)


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


class UninstallNotOwned(Facts, frozen=True, kw_only=True):
    """Helm 4.3's uninstall leaves an object of the release in the cluster: its live labels and
    annotations fail Helm's ownership check on `problems` (`owner_release`: the release they
    name instead, as namespace/name; "" when they name none)."""

    code = Code.UNINSTALL_NOT_OWNED
    release: str
    owner_release: str = ""
    problems: tuple[OwnershipProblem, ...] = ()


class Cascade(Facts, frozen=True, kw_only=True):
    """helm uninstall --cascade: the deletion propagation of every deleted object (orphan or
    foreground; background, the default, is not said)."""

    code = Code.CASCADE
    mode: str


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
    # A hook that runs on this upgrade and looks like it applies CRDs (core/crd.py
    # `applies_crds`: its name, labels or image say crds, or its command applies them): the
    # task's name, and the hook object. A likelihood read from its shape, not a certainty.
    hook: str | None = None
    hook_resource: ResourceRef | None = None


class CrdLive(enum.Enum):
    """What the live state says of dependency CRDs whose previous copy is not known."""

    NOT_READ = "not-read"  # the live CRDs were not read (offline, or not in what was read)
    DIFFERS = "differs"  # the cluster's copy differs from the new chart's: Helm leaves it
    MISSING = "missing"  # read, and not in the cluster: Helm creates crds/ only on install


class CrdChangeUnknown(Facts, frozen=True, kw_only=True):
    """CRDs of a dependency chart's crds/ on upgrade: the release record keeps only the top
    chart's files (Helm's Chart serialises no dependencies), so whether they changed cannot be
    told from it. `dependency` is the chart path under the top chart (`sub`, `sub/charts/inner`),
    `names` its CRDs with that `live` state."""

    code = Code.CRD_CHANGE_UNKNOWN
    dependency: str
    names: tuple[str, ...]
    live: CrdLive


class CrdNotCreated(Facts, frozen=True, kw_only=True):
    """A CRD new in the chart's crds/ (none of that name in the previous revision's) on an
    upgrade: Helm creates crds/ only on install. `live` is what the cluster says of it (a live
    copy equal to the chart's raises nothing); `custom_resources` counts the objects of its kinds
    the new chart renders."""

    code = Code.CRD_NOT_CREATED
    name: str
    source: str
    live: CrdLive
    custom_resources: int = 0
    hook: str | None = None  # as CrdNotUpgraded's: a hook that runs and likely applies CRDs
    hook_resource: ResourceRef | None = None


class EmptyRender(Facts, frozen=True, kw_only=True):
    """The desired render has no resources while the previous release has `previous_resources`:
    the action deletes them all."""

    code = Code.EMPTY_RENDER
    previous_resources: int
    desired_hooks: int  # hooks the desired render still has (a render of hooks alone)


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
    """--force or --force-replace: each updated object is replaced, not patched. `server_side`:
    the action updates objects server-side, and Helm 4 refuses both together (a predicted
    failure). `adopted`: on an install, the existing objects it adopts, which Helm updates
    (the only objects an install updates; 0 on an upgrade or a rollback)."""

    code = Code.FORCE_REPLACE
    flag: str  # as given: --force, --force-replace
    server_side: bool = False
    adopted: int = 0


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


class KubeVersionDefault(Facts, frozen=True, kw_only=True):
    """The chart's templates read `.Capabilities.KubeVersion`, and `helm template` rendered them
    without --kube-version: for `kube_version`, the helm binary's own default ("" when it could
    not be read). `cluster_version`: the version the cluster's API server reported, when the plan
    read it ("" offline). A release record holds no version it was rendered for (Helm stores the
    manifest, not the capabilities), so the previous one's is not known and not said.
    `compared_version`: the older version the chart was rendered for too, with the same values
    ("" when it was not: helm's default unknown, or that render failed); `differing`: the first
    objects (up to three) that render differently for it, of `differing_count`. A warning when
    they differ or were not compared; info when both versions render the same objects."""

    code = Code.KUBE_VERSION_DEFAULT
    chart: str
    kube_version: str
    cluster_version: str = ""
    compared_version: str = ""
    differing: tuple[ResourceRef, ...] = ()
    differing_count: int = 0


class SubchartsCarried(Facts, frozen=True, kw_only=True):
    """The stored chart has subcharts, which the release does not store: their objects are the
    stored manifest's, not rendered again (helm plan kube-upgrade)."""

    code = Code.SUBCHARTS_CARRIED
    chart: str
    subcharts: tuple[str, ...]


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

class PvcExpandRefused(Facts, frozen=True, kw_only=True):
    """A PersistentVolumeClaim asks for more storage and its StorageClass does not allow volume
    expansion (the storage request as the previous release and the chart give it)."""

    code = Code.PVC_EXPAND_REFUSED
    storage_before: str
    storage_after: str
    storage_class: str


def facts_class(code: Code) -> type[Facts] | None:
    """The facts class of a code; None for a code with none (a stand-in for a newer version's)."""
    return _BY_CODE.get(code)


def _classes(base: type[Facts]) -> list[type[Facts]]:
    out = []
    for cls in base.__subclasses__():
        out += [cls, *_classes(cls)]
    return out


_BY_CODE: dict[Code, type[Facts]] = {cls.code: cls for cls in _classes(Facts)}


__all__ = ["ApiDeprecated", "SubchartsCarried", "ApiKind", "ApiNotServed", "Atomic", "Cascade", "Collision", "CrdMissing",
           "CrdNotUpgraded", "CrdVersionRemoved", "CrdsUntouched", "CreateNamespace", "CreateNamespaceIgnored",
           "DataLoss", "DeprecatedFlag", "Description", "DroppedDocument", "EquivalentOnly", "Field",
           "ForceReplace", "HistoryDeleted", "HistoryPruned", "HookCollision", "HookCollisionRule", "Immutable",
           "InstallFlag", "Judged", "KeepFromManifest", "KeepHistory", "KindsNotChecked", "KubeVersionAssumed",
           "KubeVersionDefault",
           "LookupOffline", "Loss", "Metadata", "NamespaceExists", "NamespaceMissing", "NamespaceTwice", "NoHooks",
           "NotServedRule", "OwnershipCheck", "OwnershipProblem", "PreviousNotDeployed", "ProblemKind",
           "PvcExpandRefused", "Quantity", "Reinstall", "ReleaseLabels", "ReuseValuesOffline", "Role",
           "SchemaInvalid", "SchemaProblem", "SchemaType", "SsaConflict", "StoredVersions", "UnknownField",
           "UninstallNotOwned", "UnknownFieldRule", "ValuesReused", "VersionSource", "WaitForJobs", "facts_class"]
