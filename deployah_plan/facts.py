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
from deployah_plan.impacts import ImpactFacts, ImpactKind
from deployah_plan.model import FieldChange, HelmAction, Ownership, ResourceRef, SsaReason


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


class Strategy(enum.Enum):
    """How a workload's controller replaces its pods (its strategy type)."""

    ROLLING_UPDATE = "RollingUpdate"
    RECREATE = "Recreate"
    ON_DELETE = "OnDelete"


class Rollout(ImpactFacts, frozen=True, kw_only=True):
    """A workload's pod template changes: its strategy (the values in effect, defaults filled
    in, and as resolved to pods against `replicas`), the replica counts and the HPA that scales
    it, the checksum annotations that changed, and the changed ConfigMaps and Secrets it reads."""

    strategy: Strategy
    paused: bool = False  # a paused Deployment
    max_surge: int | str | None = None  # as given, or the default
    max_unavailable: int | str | None = None  # as given, or the default (a StatefulSet's: None, one pod)
    surge_pods: int | None = None  # resolved against `replicas` (maxSurge rounds up)
    unavailable_pods: int | None = None  # resolved (rounds down; 1 when both are 0)
    partition: int = 0  # a StatefulSet's rollingUpdate.partition
    replicas: int | None = None  # the count the rollout runs with (None: a DaemonSet, one per node)
    chart_replicas: int | None = None  # spec.replicas in the chart
    live_replicas: int | None = None
    pods: int | None = None  # the pods that restart now
    # The workload's only pod restarts and none serves meanwhile: a StatefulSet of one replica
    # (its RollingUpdate has no surge: the controller deletes the pod, then creates it anew).
    only_pod_down: bool = False
    hpa: ResourceRef | None = None
    hpa_min: int | None = None  # as the HPA gives them
    hpa_max: int | None = None
    checksums: tuple[str, ...] = ()  # the checksum/... annotations of the template, when one changed
    reads: tuple[ResourceRef, ...] = ()  # the ConfigMaps and Secrets it reads whose data changes
    # Values the chart regenerates on every render (core/regenerated.py): `regenerated`, the
    # template changes by nothing else (a `checksum/secret` of a random password), so whether
    # its pods restart depends on whether the real upgrade regenerates them too (a `lookup`
    # keeps the stored value); the checksums and configs whose only changes are such values,
    # apart from the others.
    regenerated: bool = False
    regenerated_checksums: tuple[str, ...] = ()
    regenerated_reads: tuple[ResourceRef, ...] = ()


class Restart(Rollout, frozen=True, kw_only=True):
    """A pod-template change that replaces the pods now."""

    kind = ImpactKind.RESTART


class DeferredRestart(Rollout, frozen=True, kw_only=True):
    """A pod-template change that restarts no pod now (OnDelete, paused, a partition at or above
    the replica count)."""

    kind = ImpactKind.DEFERRED_RESTART


class NoRestart(ImpactFacts, frozen=True, kw_only=True):
    """A workload updated outside its pod template only; its spec.replicas before and after."""

    kind = ImpactKind.NO_RESTART
    replicas_before: int | None
    replicas_after: int | None


class Reads(enum.Enum):
    """How a container reads a ConfigMap or Secret."""

    ENV = "env"  # env[].valueFrom: one variable
    ENV_FROM = "envFrom"  # every key as a variable
    VOLUME = "volume"  # a configMap or secret volume, mounted
    PROJECTED = "projected"  # a source of a projected volume, mounted
    SUB_PATH = "subPath"  # a mount with subPath or subPathExpr


class Read(Struct, frozen=True, kw_only=True):
    """One way a container reads the config: `name` the variable (env) or the mount path."""

    container: str
    how: Reads
    name: str = ""


class Consumer(Struct, frozen=True, kw_only=True):
    """A workload that reads the config, and each way it does."""

    workload: ResourceRef
    reads: tuple[Read, ...]


class ConfigUnreached(ImpactFacts, frozen=True, kw_only=True):
    """A ConfigMap's or Secret's data changes (names only, never values) and no pod template
    that reads it does: its consumers."""

    kind = ImpactKind.CONFIG_UNREACHED
    consumers: tuple[Consumer, ...]
    # Its data changes only by values the chart regenerates on every render: the real upgrade
    # may keep the stored ones (a `lookup`), and then nothing changes.
    regenerated: bool = False


class ResetRule(enum.Enum):
    """What the apply does to spec.replicas an HPA scales."""

    CLIENT_SIDE = "client-side"  # patched to the chart's count on every deploy
    SSA_CONFLICT = "ssa-conflict"  # another field manager owns it now: the upgrade fails
    SSA_FORCED = "ssa-forced"  # --force-conflicts sets the chart's count
    SSA_SAME = "ssa-same"  # the live count is the chart's: nothing moves now
    SSA_LATER = "ssa-later"  # conflicts once the HPA has moved it


class ReplicasReset(ImpactFacts, frozen=True, kw_only=True):
    """The chart sets spec.replicas on a workload an HPA scales."""

    kind = ImpactKind.REPLICAS_RESET
    rule: ResetRule
    chart_replicas: int
    live_replicas: int | None
    hpa: ResourceRef
    hpa_live: bool  # found only in the live state, not in the release
    hpa_min: int | None
    hpa_max: int | None
    ssa: SsaReason | None = None  # what server-side apply does with the drifted spec.replicas (ssa-conflict)
    managers: tuple[str, ...] = ()  # the field managers that own it


class TrafficUnmatched(ImpactFacts, frozen=True, kw_only=True):
    """A Service's selector no longer matches the pods of any workload of the release."""

    kind = ImpactKind.TRAFFIC_UNMATCHED
    matched_before: tuple[ResourceRef, ...]


class TrafficMoved(ImpactFacts, frozen=True, kw_only=True):
    """A Service's selector matches other workloads than before."""

    kind = ImpactKind.TRAFFIC_MOVED
    matched_before: tuple[ResourceRef, ...]
    matched_after: tuple[ResourceRef, ...]


class PortRule(enum.Enum):
    REMOVED = "removed"
    TARGET_PORT = "target-port"  # its targetPort changes


class Port(Struct, frozen=True, kw_only=True):
    """A Service port as its clients use it (port and protocol), and what changes on it."""

    port: int | str
    protocol: str
    rule: PortRule
    target_before: int | str | None = None
    target_after: int | str | None = None


class TrafficPort(ImpactFacts, frozen=True, kw_only=True):
    """A Service's ports removed, or their targetPort changed."""

    kind = ImpactKind.TRAFFIC_PORT
    ports: tuple[Port, ...]


class RouteKind(enum.Enum):
    DEFAULT_BACKEND = "default-backend"  # an Ingress's default backend
    INGRESS_PATH = "ingress-path"  # an Ingress rule's host (may be empty: any host) and path
    HOSTNAME = "hostname"  # an HTTPRoute's hostname
    RULE = "rule"  # an HTTPRoute rule's match: method, path, header names


class Route(Struct, frozen=True, kw_only=True):
    route: RouteKind
    host: str = ""
    path: str = ""
    method: str = ""
    headers: tuple[str, ...] = ()


class TrafficRoute(ImpactFacts, frozen=True, kw_only=True):
    """An Ingress's or HTTPRoute's routes that stop serving: the object deleted or the routes
    removed."""

    kind = ImpactKind.TRAFFIC_ROUTE
    deleted: bool
    routes: tuple[Route, ...]


class DataCrd(ImpactFacts, frozen=True, kw_only=True):
    """A CustomResourceDefinition is deleted: the kind and group of its custom resources (None
    when it does not say them)."""

    kind = ImpactKind.DATA_CRD
    resource_kind: str | None
    group: str | None


class PvcShrink(ImpactFacts, frozen=True, kw_only=True):
    """A PersistentVolumeClaim asks for less storage."""

    kind = ImpactKind.DATA_PVC_SHRINK
    storage_before: str
    storage_after: str


class Expansion(enum.Enum):
    """Whether the claim's StorageClass allows volume expansion."""

    NOT_READ = "not-read"  # the StorageClass was not read
    ALLOWED = "allowed"
    REFUSED = "refused"


class PvcExpand(ImpactFacts, frozen=True, kw_only=True):
    """A PersistentVolumeClaim asks for more storage: its StorageClass (the claim's, or the
    default; None: neither known) and whether it allows expansion."""

    kind = ImpactKind.DATA_PVC_EXPAND
    storage_before: str
    storage_after: str
    storage_class: str | None
    expansion: Expansion


class PvcLeft(ImpactFacts, frozen=True, kw_only=True):
    """A StatefulSet with volumeClaimTemplates is deleted: its claims (TEMPLATE-NAME-ORDINAL for
    each template and each of `replicas` ordinals) stay, or go with a whenDeleted: Delete
    retention policy."""

    kind = ImpactKind.DATA_PVC_LEFT
    templates: tuple[str, ...]
    replicas: int
    claims_deleted: bool


def facts_class(code: Code) -> type[Facts] | None:
    """The facts class of a code; None for a code with none (a stand-in for a newer version's)."""
    return _BY_CODE.get(code)


def _classes(base: type[Facts]) -> list[type[Facts]]:
    out = []
    for cls in base.__subclasses__():
        out += [cls, *_classes(cls)]
    return out


_BY_CODE: dict[Code, type[Facts]] = {cls.code: cls for cls in _classes(Facts)}


def impact_facts_class(kind: ImpactKind) -> type[ImpactFacts] | None:
    """The facts class of an impact kind; None for a kind with none (a newer version's)."""
    return _BY_KIND.get(kind)


def _impact_classes(base: type[ImpactFacts]) -> list[type[ImpactFacts]]:
    out = []
    for cls in base.__subclasses__():
        out += [cls, *_impact_classes(cls)]
    return out


_BY_KIND: dict[ImpactKind, type[ImpactFacts]] = {
    cls.kind: cls for cls in _impact_classes(ImpactFacts) if "kind" in vars(cls)}

__all__ = ["ApiDeprecated", "SubchartsCarried", "ApiKind", "ApiNotServed", "Atomic", "Collision", "ConfigUnreached", "Consumer",
    "CrdMissing", "CrdNotUpgraded", "CrdVersionRemoved", "CrdsUntouched", "CreateNamespace",
    "CreateNamespaceIgnored", "DataCrd", "DataLoss", "DeferredRestart", "DeprecatedFlag", "Description",
    "DroppedDocument", "EquivalentOnly", "Expansion", "Field", "ForceReplace", "HistoryDeleted", "HistoryPruned",
    "HookCollision", "HookCollisionRule", "Immutable", "InstallFlag", "Judged", "KeepFromManifest", "KeepHistory",
    "KindsNotChecked", "KubeVersionAssumed", "LookupOffline", "Loss", "Metadata", "NamespaceExists",
    "NamespaceMissing", "NamespaceTwice", "NoHooks", "NoRestart", "NotServedRule", "OwnershipCheck",
    "OwnershipProblem", "Port", "PortRule", "PreviousNotDeployed", "ProblemKind", "PvcExpand", "PvcExpandRefused",
    "PvcLeft", "PvcShrink", "Quantity", "Read", "Reads", "Reinstall", "ReleaseLabels", "ReplicasReset", "ResetRule",
    "Restart", "ReuseValuesOffline", "Role", "Rollout", "Route", "RouteKind", "SchemaInvalid", "SchemaProblem",
    "SchemaType", "SsaConflict", "StoredVersions", "Strategy", "TrafficMoved", "TrafficPort", "TrafficRoute",
    "TrafficUnmatched", "UnknownField", "UnknownFieldRule", "ValuesReused", "VersionSource", "WaitForJobs",
    "facts_class", "impact_facts_class"]
