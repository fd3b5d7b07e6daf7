"""The plan: what a Helm action will do, as immutable values built by one constructor.

`build_plan` (build.py) is the only way to make a `Plan`. It copies its input into tuples, checks the
invariants below, and derives what a caller must not supply: the summary, each task's
`will_run`, and the order of changes and tasks.

Invariants (a `ValueError` names the one broken):
- Every enum field holds a member; there is no "unset" value.
- A create has `after` and no `before`; a delete or retain has `before` and no `after`; an
  update has both, and at least one field change that is not merely `equivalent`.
- No two changes, and no two task definitions, share a logical identity
  (group, kind, namespace, name; the apiVersion is not part of it). Two that differ only by
  group name it when shown (`ResourceRef.show_group`, derived).
- `HelmAction.INSTALL` if and only if `header.fresh_install`; an install only creates; an
  uninstall only deletes or retains.
- `HelmAction.NONE` has no resource changes and only unchanged tasks (a changed hook of any
  event is stored in the release, so it makes an upgrade).
- Changes are ordered by `helm_order`; tasks by phase, then Helm's run order: weight, then the
  hook object's name, then `helm_order` (Helm pre-sorts hooks by kind in install order and
  sorts them stably by weight and name: pkg/action/hooks.go, releaseutil sortHooksByKind).
- A task runs (`will_run`) only when one of its events belongs to the action and hooks are not
  disabled (`--no-hooks`); `test` hooks and scheduled tasks never run as part of an action.
  `runs_in` names every phase it runs in (a hook with both pre-upgrade and post-upgrade runs
  twice, re-created in between); `Plan.task_groups` lists each phase's tasks in run order.
- A warning that `fails` is a predicted failure of the whole action (severity warning); the
  summary counts them. A known code fails as its entry in `codes.Code` says (always, never, or
  case by case).
- `summary.regenerated` counts the updates whose every real field change is `regenerated`
  (values the chart makes anew on every render); they still count as changes.
- Ignored changes (matched whole by an ignore rule) sit in `ignored`, never in `changes`, and
  count only in `summary.ignored`. A change in `changes` may carry `ignored_fields`; an update
  there still needs at least one field change that is not ignored.
- Drift is reported only when the live state was read (`LiveCheck.status` checked or partial);
  a partial check names what it could not read, a complete one names nothing. A modified
  drift's `effect` is derived from its fields. Drift this deploy sets back (`DriftChange.reverts`:
  a missing object created again, a live field changed back to the chart's, or deleted from an
  object that stays because the chart no longer declares it or declares it null) is a change: the
  summary counts it (`drift_reverted`), and it makes an upgrade, never `HelmAction.NONE`.
- Only a create carries an ownership verdict other than `not-checked`; `owner_release` names
  the other release that owns the live object (other-release, or adopt with --take-ownership).
- Each impact (what the deploy does to running things: core/impact/) has a kind, names at
  least one object, and counts only with non-negative integers; impacts keep the order given.

Snapshots keep secret values. The plan is not the JSON document: renderers decide what a
reader may see.
"""
from __future__ import annotations

import enum
from typing import Any, Mapping, Union

from msgspec import Struct

from deployah_plan.codes import Code, Facts, Fails
from deployah_plan.codes import Severity as Severity  # where the plan's readers find it
from deployah_plan.impacts import ImpactFacts, ImpactKind
from deployah_plan.kinds import group_of


class Action(enum.Enum):
    """What happens to one resource of the release."""

    CREATE = "create"  # in desired, not in previous
    UPDATE = "update"  # in both; the declared content differs
    DELETE = "delete"  # leaves the release and is deleted from the cluster
    RETAIN = "retain"  # leaves the release but stays in the cluster (helm.sh/resource-policy: keep)


class Cause(enum.Enum):
    """Which input of the upgrade moved a change (core/causes.py): the new chart (its templates
    and defaults, with the release's previous values), the values given to this upgrade, or both
    (the new chart moved it and the new values moved it again)."""

    CHART = "chart"
    VALUES = "values"
    BOTH = "both"


class Attribution(enum.Enum):
    """How the plan's causes were found. `NONE`: not known (an install, a plan between two
    files or stored revisions); `CHART`: the values did not change (reused), so every change is
    the chart's; `VALUES`: the chart is the release's own (its version and files), so every
    change is the values'; `RENDERED`: the new chart was also rendered with the previous values,
    and each change is placed by where it moved (core/causes.py)."""

    NONE = "none"
    CHART = "chart"
    VALUES = "values"
    RENDERED = "rendered"


class FieldOp(enum.Enum):
    ADD = "add"  # present only after
    REMOVE = "remove"  # present only before
    REPLACE = "replace"  # a scalar change, or a change of JSON type
    REORDER = "reorder"  # the same list entries in another order; before/after name them in order
    RENAME = "rename"  # a keyed list entry whose key changed; before/after are its old and new key


class HelmAction(enum.Enum):
    """The release transition the plan describes."""

    NONE = "none"  # nothing in the release changes; `helm upgrade` would still record a revision
    INSTALL = "install"  # the release does not exist yet
    UPGRADE = "upgrade"  # an existing release changes (possibly only its hooks)
    ROLLBACK = "rollback"  # `helm rollback`: back to a stored revision's manifest and hooks
    UNINSTALL = "uninstall"  # `helm uninstall`: every resource of the release goes


class TaskPhase(enum.Enum):
    PRE_DEPLOY = "preDeploy"  # the pre- hooks of this action (pre-install, pre-upgrade, pre-rollback, pre-delete)
    POST_DEPLOY = "postDeploy"  # its post- hooks
    SCHEDULE = "schedule"  # CronJobs: scheduled work kept as ordinary resources
    OTHER = "other"  # hooks of other events (rollback, delete, test): not part of this action


class TaskAction(enum.Enum):
    UNCHANGED = "unchanged"
    CREATE = "create"
    UPDATE = "update"
    DELETE = "delete"


class CRDLifecycle(enum.Enum):
    """What Helm does with one document of the chart's `crds/` on this action."""

    PROCESS = "process"  # a fresh install creates it (if absent)
    SKIP = "skip"  # a fresh install with --skip-crds
    NOT_ON_UPGRADE = "not-on-upgrade"  # Helm never upgrades chart CRDs


class DriftKind(enum.Enum):
    """How the live object differs from what the previous release stored."""

    MODIFIED = "modified"  # a field the previous manifest declares has another value live
    MISSING = "missing"  # in the previous release, not in the cluster
    UNEXPECTED = "unexpected"  # carries this release's ownership annotations, not in the previous release


class DriftEffect(enum.Enum):
    """What this deploy does to a drift."""

    REVERTED = "reverted"  # Helm sets it to what the chart declares (or recreates the object)
    LEFT = "left"  # Helm leaves the live value as it is
    REMOVED = "removed"  # the new chart no longer declares it (or declares null): Helm deletes the field (or the object)
    CONFLICT = "conflict"  # server-side apply: another field manager owns it; the upgrade fails
    MIXED = "mixed"  # a modified object whose fields do not all share one effect (see each field)


class ApplyMethod(str, enum.Enum):
    """How Helm 4 applies a release's objects, as it records it on the release (`ApplyMethod`
    in pkg/release). Helm 3 records none and applies client-side: `None` where one is held."""

    CSA = "csa"  # client-side apply: a three-way merge patch
    SSA = "ssa"  # server-side apply: fields owned by field managers, conflicts stop the apply

    @classmethod
    def recorded(cls, text: str) -> ApplyMethod | None:
        """The method a release record names; None for none (Helm 3) or one this version does not know."""
        return cls(text) if text in cls._value2member_map_ else None


class ApplyReason(str, enum.Enum):
    """Why a plan assumes its apply method (`AppliedWith`): Helm 4 decides it per action
    (pkg/action/upgrade.go and rollback.go getUpgradeServerSideValue; pkg/cmd/upgrade.go for an
    install); Helm 3 always merges client-side."""

    HELM3 = "helm3"  # Helm 3: a client-side three-way merge, always
    INSTALL = "install"  # an install: server-side unless --server-side=false (pkg/cmd/upgrade.go)
    FLAG = "flag"  # --server-side=true or false: the flag decides
    NEWEST = "newest"  # --server-side=auto: as the newest revision (of any status) was applied
    TARGET = "target"  # --server-side=auto on a rollback: as the target revision was applied
    STORED = "stored"  # a plan between stored revisions: as the later one was applied
    GIVEN = "given"  # helm plan diff --apply-method


class AppliedWith(Struct, frozen=True):
    """How the planned action applies objects, and why. `revision` is the stored revision the
    method comes from (NEWEST, TARGET, STORED; 0 otherwise); under NEWEST and TARGET a revision
    that records no method (made by Helm 3) counts as client-side, as Helm 4 reads it."""

    method: ApplyMethod
    reason: ApplyReason
    revision: int = 0


class LiveStatus(enum.Enum):
    """How much of the live state the plan saw."""

    CHECKED = "checked"  # every kind and namespace the release uses was read
    PARTIAL = "partial"  # some could not be read: `LiveCheck.unreadable` names them
    SKIPPED = "skipped"  # not asked (--no-drift, an offline release store, a diff without --live)
    UNREACHABLE = "unreachable"  # the cluster could not be read at all


class Ownership(enum.Enum):
    """Helm's ownership check for an object it creates (pkg/action/validate.go)."""

    NOT_CHECKED = "not-checked"  # not a create, or its live state was not read
    ABSENT = "absent"  # no live object: created fresh
    ADOPT = "adopt"  # the live object is adopted (owned by this release, or --take-ownership)
    UNOWNED = "unowned"  # live without this release's ownership metadata: "invalid ownership metadata"
    OTHER_RELEASE = "other-release"  # owned by another release: the upgrade fails
    TERMINATING = "terminating"  # being deleted (deletionTimestamp set): a collision


# Helm's logical identity of an object: group, kind, namespace, name (`ResourceRef.identity`).
Identity = tuple[str, str, str, str]


class ResourceRef(Struct, frozen=True):
    """Names one object. `namespace` is the effective one: the release namespace for a
    namespaced object that declares none, "" for a cluster-scoped kind. Compared, hashed and
    ordered by its names alone (`show_group` is how it is shown, not which object it is)."""

    api_version: str
    kind: str
    namespace: str
    name: str
    generate_name: str = ""
    # Name the group too: set where two objects of one plan differ only by API group
    # (extensions and networking.k8s.io Ingresses); see `disambiguate`.
    show_group: bool = False

    def _key(self) -> tuple[str, str, str, str, str]:
        return (self.api_version, self.kind, self.namespace, self.name, self.generate_name)

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if isinstance(other, ResourceRef) else NotImplemented

    def __ne__(self, other: object) -> bool:
        return self._key() != other._key() if isinstance(other, ResourceRef) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __lt__(self, other: object) -> bool:
        return self._key() < other._key() if isinstance(other, ResourceRef) else NotImplemented

    def __le__(self, other: object) -> bool:
        return self._key() <= other._key() if isinstance(other, ResourceRef) else NotImplemented

    def __gt__(self, other: object) -> bool:
        return self._key() > other._key() if isinstance(other, ResourceRef) else NotImplemented

    def __ge__(self, other: object) -> bool:
        return self._key() >= other._key() if isinstance(other, ResourceRef) else NotImplemented

    @property
    def group(self) -> str:
        return group_of(self.api_version)

    @property
    def identity(self) -> Identity:
        """Helm's logical identity: group, kind, namespace, name (not the apiVersion)."""
        return (self.group, self.kind, self.namespace, self.name or self.generate_name + "*")

    def __str__(self) -> str:
        """One spelling everywhere: `Role ns/x` for a namespaced object, `ClusterRole x` for a
        cluster-scoped one (no namespace, so no slash): the kind, then the `namespace/name`
        key kubectl users know from events and logs."""
        name = self.name or f"{self.generate_name}*"
        kind = f"{self.kind}.{self.group or 'core'}" if self.show_group else self.kind
        return f"{kind} {self.namespace}/{name}" if self.namespace else f"{kind} {name}"


class FieldChange(Struct, frozen=True):
    """One structural difference. `path` is an RFC 6901 JSON Pointer.

    List indices in `path` count in the desired list, except for a `remove`, which names the
    entry where it was. `keys` names each keyed list entry on the path (pointer of the entry,
    its key fields), so a reader need not count. A changed multi-line string carries its
    `lines` (a unified diff with context); a string holding JSON or YAML, or an atomic list,
    carries its inner changes as `parts` (pointers relative to the value; `parts_of` says
    which). `equivalent` marks two spellings of one Kubernetes quantity: not a real change.
    """

    path: str
    op: FieldOp
    before: Any = None
    after: Any = None
    keys: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    lines: tuple[str, ...] = ()
    parts: tuple["FieldChange", ...] = ()
    parts_of: str = ""  # "json", "yaml" or "entries"
    equivalent: bool = False
    # A CustomResourceDefinition's schema prose (a `description` keyword under openAPIV3Schema):
    # a real change, counted per CRD (`CRDSummary.descriptions`) rather than shown one by one.
    crd_description: bool = False
    # The chart makes this value anew on every render (a random password, a generated
    # certificate, `now`, a checksum of those): found by rendering twice (core/regenerated.py).
    # A real change Helm applies, but not one the inputs asked for.
    regenerated: bool = False
    # Helm 4's server-side apply (core/server_side.py), from the live object's managedFields:
    # a field the chart stops setting that these other field managers own stays (`kept_by`);
    # a value --force-conflicts takes from these field managers (`taken_from`).
    kept_by: tuple[str, ...] = ()
    taken_from: tuple[str, ...] = ()
    # What moved it (core/causes.py); None where not known, and always on a regenerated value.
    cause: Cause | None = None


class CRDSchemaChange(Struct, frozen=True):
    """One change to a CRD that matters to its custom resources (core/crd.py).

    `what` is one of: version-added, version-removed, served-changed, storage-changed (before
    and after are the flag), field-added, field-removed (before/after: the field's type, when
    given), type-changed (before/after: the types), required-added, required-removed. `path`
    names the field in the version's schema, dotted (`spec.tls.secretName`, `[]` for a list's
    items, `{}` for a map's values); "" for a version change.
    """

    what: str
    version: str
    path: str = ""
    before: Any = None
    after: Any = None


class CRDSummary(Struct, frozen=True):
    """A CRD's change by meaning: how many field changes only edit schema prose, and what
    else changed for its custom resources (versions matched by name)."""

    descriptions: int = 0
    changes: tuple[CRDSchemaChange, ...] = ()


class Warning(Struct, frozen=True):
    """Something the reader should know before running Helm: a code and what the check found
    (`facts`, typed values of the code's own class in deployah_plan/facts.py), never a
    sentence; render/words/warning.py says it. Made by `warn`, which takes the severity and
    whether it fails from the code's entry. A warning read back from a saved plan that holds
    no facts for it (a plan written before facts, or a code this version does not know) keeps
    the message as written in `said`."""

    code: Code
    facts: Facts | None = None
    severity: Severity = Severity.WARNING
    resource: ResourceRef | None = None
    fails: bool = False  # a predicted failure: Helm stops on it and the action does not complete
    said: str = ""  # the message as written, only where there are no facts to word


def warn(facts: Facts, resource: ResourceRef | None = None, *, fails: bool = False,
         severity: Severity | None = None) -> Warning:
    """A warning of the code `facts` are of: a code that always fails fails; a failure is shown
    as a warning, else the code's severity unless `severity` says otherwise (one code, several
    cases)."""
    code = facts.code
    fails = fails or code.fails is Fails.ALWAYS
    return Warning(code, facts, Severity.WARNING if fails else severity or code.severity, resource, fails)


class ResourceChange(Struct, frozen=True):
    resource: ResourceRef
    action: Action
    before: Mapping[str, Any] | None
    after: Mapping[str, Any] | None
    fields: tuple[FieldChange, ...] = ()
    helm_order: int = 0  # position in Helm's apply order, set by the planner
    source: str = ""  # the template path of the declaration used
    # A delete and a create of one kind with close content: probably one object renamed.
    # Each side names the other.
    likely_rename: ResourceRef | None = None
    ignored_fields: tuple[FieldChange, ...] = ()  # matched by an ignore rule: shown as ignored, never counted
    ignored_by: tuple[str, ...] = ()  # the labels of the ignore rules that matched this change
    # Helm's ownership check against the live object (creates only); `owner_release` is
    # "namespace/name" of the release that owns it, when it is not this one. A create Helm
    # adopts holds in `fields` the changes its apply makes to the live object (core/adoption.py).
    ownership: Ownership = Ownership.NOT_CHECKED
    owner_release: str = ""
    crd_schema: CRDSummary | None = None  # an updated CustomResourceDefinition's change by meaning
    # A create's fields (JSON Pointers into `after`) the chart makes anew on every render
    # (core/regenerated.py): an update says it on each field change instead.
    regenerated_paths: tuple[str, ...] = ()
    # What moved the object (core/causes.py): a create's or delete's own; an update's, that of
    # its field changes when they share one, else BOTH. None where not known.
    cause: Cause | None = None


class HookDefinition(Struct, frozen=True):
    """One hook document's difference between previous and desired."""

    resource: ResourceRef
    action: TaskAction
    before: Mapping[str, Any] | None
    after: Mapping[str, Any] | None
    fields: tuple[FieldChange, ...] = ()
    regenerated_paths: tuple[str, ...] = ()  # as ResourceChange's, of a hook the deploy creates
    cause: Cause | None = None  # as ResourceChange's (core/causes.py `attribute_hooks`)


class TaskPlan(Struct, frozen=True):
    """A Helm hook (or a CronJob) seen as a task of the deploy."""

    name: str
    phase: TaskPhase
    action: TaskAction
    events: tuple[str, ...]
    weight: int
    delete_policies: tuple[str, ...]
    definitions: tuple[HookDefinition, ...] = ()
    resources: tuple[ResourceRef, ...] = ()
    will_run: bool = False  # derived by build_plan; a supplied value is ignored
    # Position among the hooks after Helm's pre-sort by kind (install order, stable); the last
    # tie-breaker of the run order. Set by the planner.
    helm_order: int = 0
    runs_in: tuple[TaskPhase, ...] = ()  # derived by build_plan: every phase it runs in on this action


class ChartCRD(Struct, frozen=True):
    source: str
    name: str
    lifecycle: CRDLifecycle
    # The cluster's copy differs from the chart's (an upgrade leaves it as it is); None when
    # the live state was not read or has no such CRD.
    live_differs: bool | None = None
    # The chart's copy changed since the previous render (a diff of two renders with their
    # crds/); None when the previous copy is not known. Helm still leaves it alone on upgrade.
    chart_changed: bool | None = None
    schema: CRDSummary | None = None  # what changed in the chart, by meaning (when chart_changed)

    @property
    def will_process(self) -> bool:
        return self.lifecycle is CRDLifecycle.PROCESS


class SsaReason(enum.Enum):
    """What server-side apply does with one drifted field, and why (render/words says it)."""

    DECLARES_LIVE = "declares-live"  # left: the new chart declares the live value
    FORCED = "forced"  # reverted: --force-conflicts takes it from the field managers named
    CONFLICT = "conflict"  # the field managers named own it: the upgrade fails unless forced
    SETS_BACK = "sets-back"  # reverted: no other field manager owns it
    GONE = "gone"  # left: already gone live, and no longer declared
    OTHER_OWNS = "other-owns"  # left: no longer declared, and the field managers named own it
    REMOVES = "removes"  # removed: Helm owned it and no longer declares it


class DriftField(Struct, frozen=True):
    """One drifted field: `change` goes from the stored value (before) to the live one (after),
    with the diff engine's pointers (indices count in the live list). `ssa` says what
    server-side apply does instead, when the release uses it, and `managers` the field
    managers other than Helm it names (that own the field)."""

    change: FieldChange
    effect: DriftEffect
    ssa: SsaReason | None = None
    managers: tuple[str, ...] = ()


class DriftReason(enum.Enum):
    """Why a drifted object's drift has the effect it has (render/words says it)."""

    RECREATED = "recreated"  # missing live, still declared: the upgrade creates it again
    LEAVES_RELEASE = "leaves-release"  # missing live, no longer declared: nothing to delete
    ADOPTED = "adopted"  # unexpected, declared by the new chart: Helm adopts it and applies the chart
    UNTOUCHED = "untouched"  # unexpected, not in the new chart either: Helm does not touch it
    KEPT = "kept"  # modified, leaves the release, and the live object says resource-policy: keep
    DELETED = "deleted"  # modified, leaves the release: the upgrade deletes the object
    THREE_WAY_MERGE = "three-way-merge"  # modified, client-side: Helm sets every field the new chart declares
    MERGE_PATCH = "merge-patch"  # modified custom resource: a JSON merge patch, previous to new manifest
    SERVER_SIDE_APPLY = "server-side-apply"  # modified, server-side apply: ownership from managedFields


class DriftChange(Struct, frozen=True):
    """One object whose live state is not what the previous release stored.

    `fields` only for a modified object (at least one); `effect` for the object as a whole
    (derived from the fields for a modified one); `why` says why it has that effect. `live` is
    the live object (None when missing); it keeps secret values, like every snapshot of the plan.
    """

    resource: ResourceRef
    kind: DriftKind
    effect: DriftEffect
    fields: tuple[DriftField, ...] = ()
    why: DriftReason | None = None
    live: Mapping[str, Any] | None = None

    @property
    def reverts(self) -> bool:
        """This deploy sets the live object back to the chart: it creates a missing object
        again, adopts an unexpected one, or changes at least one drifted field back, or deletes
        one the chart no longer declares (or declares null) from an object that stays in the
        release. An object the deploy deletes is a change of its own, not drift set back."""
        if self.why is DriftReason.DELETED:
            return False
        return self.effect is DriftEffect.REVERTED or any(
            f.effect in (DriftEffect.REVERTED, DriftEffect.REMOVED) for f in self.fields)


class LiveGap(Struct, frozen=True):
    """A kind that could not be read in a namespace ("" : cluster scope or every namespace)."""

    api_version: str
    kind: str
    namespace: str
    reason: str


class LiveCheck(Struct, frozen=True):
    """What the live check covered. `source` is "cluster" or the live file's path; `requests`
    counts HTTP requests sent to the cluster; `reason` says why it was skipped or unreachable."""

    status: LiveStatus = LiveStatus.SKIPPED
    reason: str = "the live state was not read"
    source: str = ""
    unreadable: tuple[LiveGap, ...] = ()
    requests: int = 0
    apply_method: ApplyMethod | None = None  # the previous release's; None: Helm 3 (client-side)

    @property
    def complete(self) -> bool:
        return self.status is LiveStatus.CHECKED


class Impact(Struct, frozen=True):
    """One thing the deploy does to running things. `resource` is the object it is about;
    `objects` the others involved (consumers, workloads, HPAs), in a stable order; `counts`
    what can be counted (replicas, pods, consumers), by name; `facts` what the rule found (of
    the kind's class in deployah_plan/impact_facts.py), never a sentence: render/words/impact.py says
    the line and the lines under it. An impact read back from a saved plan that holds no facts
    for it keeps its line and the lines under it as written (`said`, `said_details`)."""

    kind: ImpactKind
    resource: ResourceRef
    objects: tuple[ResourceRef, ...] = ()
    counts: tuple[tuple[str, int], ...] = ()
    facts: ImpactFacts | None = None
    said: str = ""  # the line as written, only where there are no facts to word
    said_details: tuple[str, ...] = ()

    def count(self, name: str) -> int | None:
        return dict(self.counts).get(name)

    @property
    def regenerated(self) -> bool:
        """Its rule found nothing but values the chart regenerates on every render (its facts say
        so): the real upgrade does it only if it makes them anew too. No gate matches it."""
        return bool(getattr(self.facts, "regenerated", False))


class ChartDefault(Struct, frozen=True):
    """A default value of the chart that the upgrade changes (`op` add, remove or replace) and the
    user's values do not set: `key` dotted, as in values.yaml; the objects whose fields it
    moved, as far as the plan can tell (the chart's changes to an equal value)."""

    key: str
    op: FieldOp
    before: Any = None
    after: Any = None
    moved: tuple[ResourceRef, ...] = ()


class Header(Struct, frozen=True):
    release: str
    namespace: str
    kube_context: str = ""
    revision: int = 1  # the revision this action would create
    fresh_install: bool = False
    chart_name: str = ""
    chart_version: str = ""
    previous_revision: int = 0  # the revision planned against; 0 for a fresh install
    previous_chart: str = ""
    rollback_to: int = 0  # for a rollback: the stored revision whose manifest and hooks come back
    helm_version: str = ""
    rendered_by: str = ""  # "template", "server" or "files"
    applied_with: AppliedWith | None = None  # how the action applies objects; None: it applies none (uninstall)


class Summary(Struct, frozen=True):
    create: int = 0
    update: int = 0
    delete: int = 0
    retain: int = 0
    ignored: int = 0  # whole changes an ignore rule matched; not part of the total
    failures: int = 0  # predicted failures: warnings that stop the action
    hooks_run: int = 0  # hooks that run on this action
    hooks_changed: int = 0  # of those, hooks whose definition changes
    hooks_stored: int = 0  # hook definitions that change but do not run on this action (only stored)
    drift_reverted: int = 0  # drifted objects this deploy sets back (DriftChange.reverts): changes too
    regenerated: int = 0  # of the updates, those whose every change is a value the chart regenerates
    # Of the creates, those Helm adopts: a live object it applies the chart over, an update of it
    # (ResourceChange.ownership ADOPT), not a creation.
    adopted: int = 0

    @property
    def total(self) -> int:
        return self.create + self.update + self.delete + self.retain


class Plan(Struct, frozen=True):
    header: Header
    helm_action: HelmAction
    changes: tuple[ResourceChange, ...]
    tasks: tuple[TaskPlan, ...]
    chart_crds: tuple[ChartCRD, ...]
    warnings: tuple[Warning, ...]
    summary: Summary
    hooks_disabled: bool = False  # --no-hooks: no task runs
    ignored: tuple[ResourceChange, ...] = ()  # whole changes an ignore rule matched, in Helm's order
    not_checked: tuple[str, ...] = ()  # derived from `live`: what this plan could not check, one sentence each
    drift: tuple[DriftChange, ...] = ()
    live: LiveCheck = LiveCheck()
    impact: tuple[Impact, ...] = ()  # what the deploy does to running things (core/impact/)
    attribution: Attribution = Attribution.NONE  # how the changes' causes were found
    chart_defaults: tuple[ChartDefault, ...] = ()  # the chart's defaults that changed under the user

    @property
    def has_changes(self) -> bool:
        """True when Helm would change something that no ignore rule matched: a resource, a
        hook, a new release, a release it uninstalls (its record goes, or is marked uninstalled,
        though every object be gone already), or drift it sets back. Ignored changes never count
        (for --detailed-exitcode)."""
        if self.helm_action in (HelmAction.INSTALL, HelmAction.UNINSTALL):
            return True
        hooks = any(t.action is not TaskAction.UNCHANGED and t.phase is not TaskPhase.SCHEDULE for t in self.tasks)
        # A chart CRD that changed is something to act on, though Helm will not apply it.
        crds = any(c.chart_changed for c in self.chart_crds)
        return bool(self.changes) or hooks or crds or self.summary.drift_reverted > 0

    def task_groups(self) -> tuple[tuple[TaskPhase, tuple[TaskPlan, ...]], ...]:
        """Tasks by phase, each phase in Helm's run order. A hook that runs in several phases
        is listed in each; one that does not run sits under the phase its events name."""
        groups: dict[TaskPhase, list[TaskPlan]] = {phase: [] for phase in PHASE_ORDER}
        for task in sorted(self.tasks, key=helm_run_order):
            for phase in task.runs_in or (task.phase,):
                groups[phase].append(task)
        return tuple((phase, tuple(tasks)) for phase, tasks in groups.items() if tasks)


# -- `--fail-on` gates (core/gates.py checks them) --------------------------------------------

class Gate(Struct, frozen=True):
    """A `--fail-on` gate: `WHAT` or `WHAT:KIND`."""

    text: str  # as the user wrote it
    what: str
    argument: str = ""


# What a gate matches: a change, an impact, a chart CRD, a drift or a warning of the plan.
Matched = Union[ResourceChange, Impact, ChartCRD, DriftChange, Warning]


class GateMatch(Struct, frozen=True):
    gate: Gate
    matched: tuple[Matched, ...]  # what matched, in the plan's order (render/words says it)


class Unanswered(enum.Enum):
    """Why a gate that matched nothing may still match the real deploy."""

    DRIFT = "drift"  # the drift gate: the live state was not read
    CONFLICTS = "conflicts"  # ownership and drift conflicts: the live state was not read


class Unevaluated(Struct, frozen=True):
    gate: Gate
    why: Unanswered
    live_reason: str = ""  # why the live state was not read, as the plan's live check says


PHASE_ORDER = {TaskPhase.PRE_DEPLOY: 0, TaskPhase.POST_DEPLOY: 1, TaskPhase.SCHEDULE: 2, TaskPhase.OTHER: 3}


def helm_run_order(task: TaskPlan) -> tuple[int, str, int, str]:
    """Helm's hook order within one event: weight, then the hook object's name, then the kind
    pre-sort (`helm_order`)."""
    name = task.resources[0].name if task.resources else task.name
    return (task.weight, name, task.helm_order, task.name)
