"""The planning core: pairs previous and desired documents and builds the Plan.

Pure: no subprocess, no network, no printing. Sources hand it parsed streams.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from msgspec import Struct, field
from msgspec.structs import replace

from deployah_plan.startup import lazy
from deployah_plan.core import adoption, causes, crd, regenerated, server_side
from deployah_plan.core.diff import LINE_CONTEXT, declared_surface, diff_objects
from deployah_plan.core.drift import find_drift, find_live, index_live
from deployah_plan.core.impact import ImpactInput, find_impact
from deployah_plan.core.impact.common import LiveOf
from deployah_plan.core.lifecycle import consequences
from deployah_plan.core.ownership import Verdict, check_ownership, kept_on_delete, skipped_on_uninstall
from deployah_plan.core.renames import link_renames
from deployah_plan.core.tasks import hook_tasks, schedule_tasks
from deployah_plan.core.validate import Applied, Target, hook_collisions, namespace_warning, predict, schema_type
from deployah_plan.facts import Role
from deployah_plan.errors import ManifestError
from deployah_plan.facts import (
    Collision, CrdChangeUnknown, CrdLive, CrdNotCreated, CrdNotUpgraded, CrdsUntouched, CrdVersionRemoved, EmptyRender, EquivalentOnly,
    Field, KeepFromManifest, OwnedField, OwnershipCheck, Quantity, SsaConflict, StoredVersions, UninstallNotOwned,
)
from deployah_plan.kinds import CLUSTER_SCOPED, group_of, install_order, kind_rank, sort_key, uninstall_order
from deployah_plan.manifests import Document, Rendered
from deployah_plan.build import HOOK_EVENTS, build_plan, disambiguate
from deployah_plan.model import (
    Action, ApplyMethod, Attribution, CRDLifecycle, ChartCRD, ChartDefault, DriftChange, DriftEffect, DriftKind,
    DriftReason, FieldChange, Header, HelmAction, Identity, Impact, LiveCheck, LiveGap, LiveStatus, Ownership, Plan,
    ResourceChange, ResourceRef, TaskAction, TaskPhase, TaskPlan, Warning, warn,
)
from deployah_plan.redact import fold_string_data

if TYPE_CHECKING:  # the core only reads the snapshot a source made
    from deployah_plan.live_snapshot import LiveSnapshot

class PlanRequest(Struct, frozen=True):
    """Everything the core needs. `previous` is None when the release does not exist."""

    header: Header
    previous: Rendered | None
    desired: Rendered
    helm_major: int = 3
    skip_crds: bool = False
    warnings: tuple[Warning, ...] = field(default=())
    # ROLLBACK or UNINSTALL; None: install when `previous` is None, else upgrade.
    action: HelmAction | None = None
    hooks_disabled: bool = False  # --no-hooks
    # The live state (None: not read, `live_reason` says why); `live_source` is "cluster" or
    # the file it came from. `apply_method` is how this action applies (None: Helm 3,
    # client-side). `take_ownership` is helm's --take-ownership.
    live: LiveSnapshot | None = None
    live_source: str = ""
    live_reason: str = ""
    take_ownership: bool = False
    apply_method: ApplyMethod | None = None
    force_conflicts: bool = False  # helm upgrade --force-conflicts (server-side apply)
    # The API server to judge the objects against (kinds served, schemas, namespace): None
    # leaves the predicted failures of core.validate out.
    target: Target | None = None
    line_context: int = LINE_CONTEXT  # unchanged lines around each change of a multi-line string
    # A second render of the same inputs, and when the renders ran (Unix seconds, start and
    # end): what differs between them, or is the render's time, is marked regenerated.
    desired_again: Rendered | None = None
    render_window: tuple[float, float] | None = None
    # Whether `previous` carries its dependency charts' crds/: a render does (`helm template
    # --include-crds` walks the dependencies, as chart.CRDObjects does), a release record does
    # not (Helm's Chart serialises no dependencies, only the top chart's files).
    previous_dependency_crds: bool = True
    causes: causes.Given | None = None  # how the changes' causes are found, and what with (core/causes.py)


def _cluster_scoped(streams: Iterable[Rendered], live: LiveSnapshot | None = None) -> set[tuple[str, str]]:
    """Built-in cluster-scoped kinds, plus custom kinds whose CRD in these streams says so;
    then, for each kind the live read's discovery lists, the cluster's own scope. Helm's
    resource builder takes an object's scope from the cluster's REST mapping (cli-runtime
    `SetNamespace` gives the release namespace only to an object `Info.Namespaced()`), so a
    custom kind the chart writes as namespaced but the cluster serves cluster-scoped is
    created without a namespace, and the other way round."""
    scoped = set(CLUSTER_SCOPED)
    for stream in streams:
        for doc in (*stream.crds, *stream.resources, *stream.hooks):
            obj = doc.obj
            if obj.get("kind") == "CustomResourceDefinition" and group_of(obj["apiVersion"]) == "apiextensions.k8s.io":
                spec = obj.get("spec")
                names = spec.get("names") if isinstance(spec, dict) else None
                if isinstance(spec, dict) and spec.get("scope") == "Cluster" and isinstance(names, dict):
                    group, kind = spec.get("group"), names.get("kind")
                    if isinstance(group, str) and isinstance(kind, str):  # the API server requires both
                        scoped.add((group, kind))
    if live is not None:  # an unreachable cluster gave no scopes
        for ref, namespaced in live.namespaced.items():
            key = (group_of(ref.api_version), ref.kind)
            if namespaced:
                scoped.discard(key)
            else:
                scoped.add(key)
    return scoped


class _Identifier:
    def __init__(self, release_namespace: str, cluster_scoped: set[tuple[str, str]]) -> None:
        self.namespace = release_namespace
        self.cluster_scoped = cluster_scoped

    def ref(self, doc: Document) -> ResourceRef:
        metadata = doc.obj["metadata"]
        api_version, kind, namespace = self.scope(doc)
        return ResourceRef(api_version, kind, namespace, str(metadata.get("name") or ""),
                           "" if metadata.get("name") else str(metadata.get("generateName") or ""))

    def scope(self, doc: Document) -> tuple[str, str, str]:
        """(apiVersion, kind, namespace), "" the namespace of a cluster-scoped kind."""
        obj = doc.obj
        api_version, kind = obj["apiVersion"], obj["kind"]
        if (group_of(api_version), kind) in self.cluster_scoped:
            return api_version, kind, ""
        return api_version, kind, str(obj["metadata"].get("namespace") or self.namespace)

    def index(self, docs: Iterable[Document], what: str) -> dict[Identity, tuple[ResourceRef, Document]]:
        found: dict[Identity, tuple[ResourceRef, Document]] = {}
        for doc in docs:
            ref = self.ref(doc)
            if ref.generate_name:
                ref_id: Identity = (ref.group, ref.kind, ref.namespace, f"{ref.generate_name}*#{doc.position}")
            else:
                ref_id = ref.identity
            if ref_id in found:
                first = found[ref_id][1]
                raise ManifestError(
                    f"two {what} objects have the same identity {ref} ({first.where} and {doc.where})",
                    "Helm cannot install both; rename one or remove the duplicate",
                )
            if ref.kind == "Secret" and ref.group == "" and "stringData" in doc.obj:
                data = doc.obj.get("data")
                if data is not None and not isinstance(data, dict):
                    # The API server decodes data as map[string][]byte: it refuses anything else.
                    raise ManifestError(f"{doc.where}: Secret {ref.name} has data that is {schema_type(data)}, "
                                        "not a map of keys to base64 values", "the API server refuses it; fix the template")
                doc = replace(doc, obj=fold_string_data(doc.obj))
            doc = self._with_namespace(doc, ref)
            found[ref_id] = (ref, doc)
        return found

    @staticmethod
    def _with_namespace(doc: Document, ref: ResourceRef) -> Document:
        """The object as Helm sends it: its resource builder gives a namespaced object without
        `metadata.namespace` the release namespace (pkg/kube `buildResourceList`,
        `NamespaceParam(...).DefaultNamespace()`), and the API server drops the namespace of a
        cluster-scoped one. So neither spelling is a change."""
        metadata = doc.obj["metadata"]
        if ref.namespace and metadata.get("namespace") == ref.namespace:
            return doc  # declared as Helm sends it (most charts write the release namespace)
        if ref.namespace:
            metadata = {**metadata, "namespace": ref.namespace}  # a namespace it declares keeps its place
        elif "namespace" in metadata:
            metadata = {k: v for k, v in metadata.items() if k != "namespace"}
        else:
            return doc
        return Document({**doc.obj, "metadata": metadata}, doc.source, doc.position, doc.hook)


def _leaving(ref: ResourceRef, doc: Document, order: int, live_of: LiveOf | None = None) -> ResourceChange:
    """An object that leaves the release: deleted, or retained by helm.sh/resource-policy: keep,
    read from the live object when it was read (as Helm reads it on upgrade), else from the
    manifest (as `helm uninstall` reads it)."""
    kept = kept_on_delete(doc.obj, live_of(ref) if live_of else None)
    action = Action.RETAIN if kept else Action.DELETE
    return ResourceChange(ref, action, doc.obj, None, (), order, doc.source)


def _resource_changes(
    previous: Mapping[Identity, tuple[ResourceRef, Document]],
    desired: Mapping[Identity, tuple[ResourceRef, Document]],
    rank: Mapping[str, int], notes: list[Warning], live_of: LiveOf | None = None,
    context: int = LINE_CONTEXT,
    gone: Callable[[ResourceRef], bool] = lambda ref: False,  # looked for live and not found
) -> list[ResourceChange]:
    changes: list[ResourceChange] = []
    # Helm applies the target in install kind order, keeping manifest order within a kind.
    ordered = sorted(desired.items(), key=lambda item: (sort_key(item[1][0].kind, rank), item[1][1].position))
    for order, (ident, (ref, doc)) in enumerate(ordered):
        old = previous.get(ident)
        if ref.generate_name or old is None:
            changes.append(ResourceChange(ref, Action.CREATE, None, doc.obj, (), order, doc.source))
            continue
        fields = diff_objects(old[1].obj, doc.obj, context)
        if any(not f.equivalent for f in fields):
            schema = None
            if crd.is_crd(doc.obj):
                fields = list(crd.mark_descriptions(fields))
                schema = crd.summarize(old[1].obj, doc.obj, fields)
            changes.append(ResourceChange(ref, Action.UPDATE, old[1].obj, doc.obj, tuple(fields), order, doc.source,
                                          crd_schema=schema))
        elif fields:
            notes.append(warn(EquivalentOnly(fields=tuple(_quantities(fields))), ref))
    # Then it deletes what left the release, in previous-release order, less what is gone (drift).
    start = len(ordered)
    leaving = [(ref, doc) for i, (ref, doc) in previous.items() if i not in desired and not ref.generate_name and not gone(ref)]
    leaving.sort(key=lambda item: item[1].position)
    for offset, (ref, doc) in enumerate(leaving):
        changes.append(_leaving(ref, doc, start + offset, live_of))
    return link_renames(changes)


def _uninstall_changes(previous: Mapping[Identity, tuple[ResourceRef, Document]], rank: Mapping[str, int],
                       request: PlanRequest, live: _Live, notes: list[Warning], drift: list[DriftChange]) -> list[ResourceChange]:
    """Everything in the release manifest goes, in Helm's uninstall kind order, keep read from the
    manifest as `helm uninstall` reads it; with the live objects read, less what Helm skips: what is
    gone already (missing-live drift) and, Helm 4.3, what the release does not own (core/ownership.py)."""
    ordered = sorted(previous.values(), key=lambda item: (sort_key(item[0].kind, rank), item[1].position))
    out = []
    for order, (ref, doc) in enumerate(item for item in ordered if not item[0].generate_name):
        change = _leaving(ref, doc, order)
        verdict = (skipped_on_uninstall(find_live(live.index, ref), request.header.release, request.header.namespace)
                   if change.action is Action.DELETE and live.covered(ref) else None)
        if verdict is not None and verdict.ownership is Ownership.ABSENT:
            drift.append(DriftChange(ref, DriftKind.MISSING, DriftEffect.LEFT, why=DriftReason.LEAVES_RELEASE))
            continue
        if verdict is not None and request.helm_major >= 4:
            notes.append(warn(UninstallNotOwned(release=request.header.release, owner_release=verdict.owner_release,
                                                problems=verdict.problems), ref))
            change = replace(change, action=Action.RETAIN, ownership=verdict.ownership,
                             owner_release=verdict.owner_release)
        out.append(change)
    return out


def _quantities(fields: Iterable[FieldChange]) -> list[Quantity]:
    return [Quantity(Field.of(f), f.before, f.after) for f in fields]


def release_scope(streams: Iterable[Rendered], namespace: str) -> list[tuple[str, str, str]]:
    """(apiVersion, kind, namespace) of every release resource in the streams: what drift and
    ownership cover ("" as the namespace for a cluster-scoped kind), as the chart says it."""
    streams = list(streams)
    return _scope(_Identifier(namespace, _cluster_scoped(streams)), streams)


def _scope(identifier: _Identifier, streams: Iterable[Rendered]) -> list[tuple[str, str, str]]:
    return list(dict.fromkeys(identifier.scope(doc) for stream in streams
                              for doc in (*stream.resources, *stream.crds, *stream.hooks)))


# Kinds read for the impact only (core/impact.py): the HPAs that may scale the release's
# workloads, and the StorageClasses that decide whether its claims can grow. Not being able to
# read one leaves that impact unjudged, never the drift check partial.
_HPA_SCOPE = ("autoscaling/v2", "HorizontalPodAutoscaler")
_STORAGE_CLASS_SCOPE = ("storage.k8s.io/v1", "StorageClass")
_FOR_IMPACT = {(group_of(api), kind) for api, kind in (_HPA_SCOPE, _STORAGE_CLASS_SCOPE)}


def live_scope(streams: Iterable[Rendered], namespace: str) -> list[tuple[str, str, str]]:
    """What the live check reads: the release's kinds (`release_scope`), then, for the impact,
    the HPAs of each namespace with a scalable workload and the StorageClasses when there is a
    claim."""
    streams = list(streams)
    scope = release_scope(streams, namespace)
    have = {(group_of(api), kind) for api, kind, _ in scope}
    namespaces = [ns for api, kind, ns in scope if (group_of(api), kind) in (("apps", "Deployment"), ("apps", "StatefulSet"))]
    # An HPA scales a workload of its own namespace: read them there, unless the release's own
    # HPAs (in whatever version) are read there already.
    read = {ns for api, kind, ns in scope if (group_of(api), kind) == ("autoscaling", "HorizontalPodAutoscaler")}
    extra = [(*_HPA_SCOPE, ns) for ns in dict.fromkeys(namespaces) if ns not in read]
    if ("", "PersistentVolumeClaim") in have and ("storage.k8s.io", "StorageClass") not in have:
        extra.append((*_STORAGE_CLASS_SCOPE, ""))
    return scope + extra


class _Live:
    """The live snapshot as the planner uses it: an index, what it covered, and the LiveCheck."""

    def __init__(self, request: PlanRequest, scope: list[tuple[str, str, str]]) -> None:
        live = request.live
        self.index: dict[Identity, Mapping[str, Any]] = {}
        self.covered_kinds: set[tuple[str, str, str]] = set()
        if live is None:
            self.check = LiveCheck(LiveStatus.SKIPPED, request.live_reason or "the live state was not read",
                                   apply_method=request.apply_method)
            return
        if not live.reachable:
            self.check = LiveCheck(LiveStatus.UNREACHABLE, live.error or "the cluster could not be read",
                                   request.live_source, requests=live.requests, apply_method=request.apply_method)
            return
        self.index = index_live(live.objects)
        if request.live_source == "cluster":
            declared = {(group_of(api), kind) for api, kind, _ in scope}
            gaps = [g for g in live.unreadable if (group_of(g.api_version), g.kind) not in _FOR_IMPACT - declared]
            blocked = {(group_of(g.api_version), g.kind, g.namespace) for g in gaps}
            for api_version, kind, namespace in scope:
                group = group_of(api_version)
                if (group, kind, namespace) not in blocked and (group, kind, "") not in blocked:
                    self.covered_kinds.add((group, kind, namespace))
        else:  # a saved file holds what was saved: a kind it has no object of was not saved
            present = {(g, k, ns) for g, k, ns, _ in self.index}
            gaps = []
            for api_version, kind, namespace in scope:
                group = group_of(api_version)
                if (group, kind, namespace) in present or (group, kind, "") in present:
                    self.covered_kinds.add((group, kind, namespace))
                else:
                    gaps.append(LiveGap(api_version, kind, namespace, "not in the live file"))
            gaps = list(dict.fromkeys(gaps))
        status = LiveStatus.PARTIAL if gaps else LiveStatus.CHECKED
        self.check = LiveCheck(status, "", request.live_source, tuple(gaps), live.requests, request.apply_method)

    @property
    def read(self) -> bool:
        return self.check.status in (LiveStatus.CHECKED, LiveStatus.PARTIAL)

    def covered(self, ref: ResourceRef) -> bool:
        # Scope and refs come from one identifier: a kind is cluster-scoped ("") in both or in neither.
        return self.read and (ref.group, ref.kind, ref.namespace) in self.covered_kinds


def _ownership(changes: list[ResourceChange], live: _Live, request: PlanRequest, notes: list[Warning]) -> list[ResourceChange]:
    """Helm's ownership check for every object the plan creates, against its live object."""
    header = request.header
    action = HelmAction.INSTALL if request.previous is None else HelmAction.UPGRADE
    out = []
    for change in changes:
        if change.action is not Action.CREATE or change.resource.generate_name or not live.covered(change.resource):
            out.append(change)
            continue
        verdict = check_ownership(find_live(live.index, change.resource), header.release, header.namespace,
                                  request.take_ownership)
        warning = _ownership_warning(change.resource, verdict, header.release, action)
        if warning is not None:
            notes.append(warning)
        out.append(replace(change, ownership=verdict.ownership, owner_release=verdict.owner_release))
    return out


def _ownership_warning(ref: ResourceRef, verdict: Verdict, release: str, action: HelmAction) -> Warning | None:
    if verdict.ownership is Ownership.TERMINATING:
        return warn(Collision(), ref)
    if verdict.ownership not in (Ownership.ADOPT, Ownership.UNOWNED, Ownership.OTHER_RELEASE):
        return None
    facts = OwnershipCheck(ownership=verdict.ownership, release=release, owner_release=verdict.owner_release,
                           action=action, problems=verdict.problems)
    return warn(facts, ref, fails=verdict.ownership is not Ownership.ADOPT)


def _drift(request: PlanRequest, live: _Live,
           prev_resources: Mapping[Identity, tuple[ResourceRef, Document]],
           want_resources: Mapping[Identity, tuple[ResourceRef, Document]],
           hooks: Iterable[Identity], notes: list[Warning]) -> list[DriftChange]:
    if not live.read or request.previous is None:
        return []
    drift = find_drift(
        {i: (ref, doc.obj) for i, (ref, doc) in prev_resources.items()},
        {i: (ref, doc.obj) for i, (ref, doc) in want_resources.items()},
        live.index, live.covered, request.header.release, request.header.namespace, request.apply_method, hooks,
        request.force_conflicts,
    )
    return drift


def _server_side(changes: list[ResourceChange], live: _Live, request: PlanRequest,
                 want_resources: Mapping[Identity, tuple[ResourceRef, Document]],
                 prev_resources: Mapping[Identity, tuple[ResourceRef, Document]],
                 notes: list[Warning]) -> list[ResourceChange]:
    """Helm 4's server-side apply of every object of the previous release the upgrade applies
    again, as the API server computes it from the live managedFields (core/server_side.py):
    conflicts with other field managers (drifted fields among them), and the fields the chart
    stops setting that another manager keeps. A client-side release, or no live state: nothing."""
    if request.apply_method is not ApplyMethod.SSA or not live.read or request.previous is None:
        return changes
    updates = {c.resource.identity: n for n, c in enumerate(changes) if c.action is Action.UPDATE}
    out = list(changes)
    for ident, (ref, doc) in want_resources.items():
        found = find_live(live.index, ref) if ident in prev_resources and live.covered(ref) else None
        if found is None:
            continue
        at = updates.get(ref.identity)
        applied = server_side.apply(found, doc.obj, out[at].fields if at is not None else (), request.force_conflicts)
        if at is not None:
            out[at] = replace(out[at], fields=applied.fields)
        _ssa_conflicts(applied, ref, request, notes)
    return out


def _ssa_conflicts(applied: server_side.Applied, ref: ResourceRef, request: PlanRequest, notes: list[Warning]) -> None:
    if applied.conflicts and not request.force_conflicts:
        fields = tuple(OwnedField(c.change.path, dict(c.change.keys), c.managers) for c in applied.conflicts)
        notes.append(warn(SsaConflict(fields=fields), ref))


def _adoptions(changes: list[ResourceChange], live: _Live, request: PlanRequest,
               want_resources: Mapping[Identity, tuple[ResourceRef, Document]], notes: list[Warning]) -> list[ResourceChange]:
    """Each object Helm adopts (a create whose live object passed the ownership check), as the
    change Helm's apply makes to the live object (core/adoption.py), with its server-side
    apply conflicts. A rollback checks no ownership: Helm 4 patches an object its current
    release lacks from the live state (pkg/kube/client.go `update`), Helm 3 fails on it."""
    if request.action not in (None, HelmAction.UPGRADE):
        return changes
    out = []
    ssa = request.apply_method is ApplyMethod.SSA
    three_way = request.previous is None and request.take_ownership and not ssa
    for change in changes:
        found = find_live(live.index, change.resource) if change.ownership is Ownership.ADOPT else None
        wanted = want_resources.get(change.resource.identity)
        if found is not None and wanted is not None:
            applied = adoption.adopt(found, wanted[1].obj, request.header.release, request.header.namespace, ssa,
                                     three_way, request.force_conflicts)
            change = replace(change, fields=applied.fields)
            _ssa_conflicts(applied, change.resource, request, notes)
        out.append(change)
    if request.previous is None and ssa:  # an install updates what it adopts: --force-replace fails there
        notes[:] = adoption.force_replace_on_install(notes, out)
    return out


def _chart_crd_ref(doc: Document) -> ResourceRef:
    """A document of the chart's crds/ (cluster-scoped; "" as the name of one named by generateName)."""
    return ResourceRef(str(doc.obj["apiVersion"]), "CustomResourceDefinition", "", str(doc.obj["metadata"].get("name") or ""))


def _chart_crds(request: PlanRequest, live: _Live, fresh: bool) -> list[ChartCRD]:
    """The chart's crds/: what this action does with each, and whether the cluster's copy
    differs from the chart's (then an upgrade leaves it as it is). An install has no previous
    copy to compare with (`fresh`: `request.previous` is None)."""
    out = []
    before = {_chart_crd_ref(d).name: d.obj for d in (request.previous.crds if request.previous else ())}
    for doc in request.desired.crds:
        ref = _chart_crd_ref(doc)
        old = before.get(ref.name)
        changed: bool | None = None
        schema = None
        if old is not None:
            fields = crd.mark_descriptions(diff_objects(old, doc.obj))
            changed = any(not f.equivalent for f in fields)
            schema = crd.summarize(old, doc.obj, fields) if changed else None
        if fresh:
            lifecycle = CRDLifecycle.SKIP if request.skip_crds else CRDLifecycle.PROCESS
        else:
            lifecycle = CRDLifecycle.NOT_ON_UPGRADE
        live_differs: bool | None = None
        if live.covered(ref):
            found = find_live(live.index, ref)
            live_differs = None if found is None else bool(diff_objects(declared_surface(doc.obj, found), doc.obj))
        out.append(ChartCRD(doc.source, ref.name, lifecycle, live_differs, changed, schema))
    return out


_DEPENDENCY_CRD = lazy(r"^[^/]+/charts/(.+)/crds/")


def _dependency(source: str) -> str:
    """The dependency chart a crds/ file is of, as a path under the top chart's charts/
    (`sub`, `sub/charts/inner`); "" for the top chart's own."""
    found = _DEPENDENCY_CRD.match(source)
    return found.group(1) if found else ""


def _crd_live(doc: Document, ref: ResourceRef, live: _Live) -> CrdLive | None:
    """What the live state says of a chart CRD the previous revision's copy cannot be compared
    with; None: the cluster holds it as the chart has it (nothing to say)."""
    if not live.covered(ref):
        return CrdLive.NOT_READ
    found = find_live(live.index, ref)
    if found is None:
        return CrdLive.MISSING
    return CrdLive.DIFFERS if diff_objects(declared_surface(doc.obj, found), doc.obj) else None


def _dependency_crds_unknown(request: PlanRequest, live: _Live) -> list[Warning]:
    """On an upgrade from a release record, the dependency charts' CRDs, whose previous copy the
    record does not keep: each dependency's, by what the live state says of them (a CRD whose
    live copy is the chart's is left out: nothing would change)."""
    if request.previous is None or request.previous_dependency_crds:
        return []
    known = {_chart_crd_ref(d).name for d in request.previous.crds}
    groups: dict[tuple[str, CrdLive], list[str]] = {}
    for doc in request.desired.crds:
        ref = _chart_crd_ref(doc)
        dependency = _dependency(doc.source)
        if not dependency or ref.name in known:
            continue
        state = _crd_live(doc, ref, live)
        if state is None:
            continue
        groups.setdefault((dependency, state), []).append(ref.name)
    return [warn(CrdChangeUnknown(dependency=dependency, names=tuple(names), live=state))
            for (dependency, state), names in groups.items()]


def _new_crds(request: PlanRequest, live: _Live, fresh: bool) -> list[CrdNotCreated]:
    """On an upgrade, the chart's crds/ CRDs the previous revision did not have: Helm creates
    crds/ only on install, so this upgrade leaves them out. A dependency's, only where the
    previous copies are known (two renders; from a record, crd-change-unknown says them).
    One the cluster holds as the chart has it raises nothing."""
    if fresh or request.previous is None:
        return []
    known = {_chart_crd_ref(d).name for d in request.previous.crds}
    objects = [d.obj for d in (*request.desired.resources, *request.desired.hooks)]
    out = []
    for doc in request.desired.crds:
        ref = _chart_crd_ref(doc)
        if ref.name in known or (_dependency(doc.source) and not request.previous_dependency_crds):
            continue
        state = _crd_live(doc, ref, live)
        if state is None:
            continue
        out.append(CrdNotCreated(name=ref.name, source=doc.source, live=state,
                                 custom_resources=crd.custom_resources(doc.obj, objects)))
    return out


def _crd_hook(tasks: Iterable[TaskPlan], action: HelmAction, hooks_disabled: bool) -> TaskPlan | None:
    """The first hook that runs on this action and looks like it applies CRDs (crd.applies_crds):
    what a chart whose crds/ Helm never upgrades often ships instead (gatekeeper's pre-upgrade
    `update-crds-hook`). Before the deploy (pre-) first."""
    if hooks_disabled:
        return None
    events = HOOK_EVENTS[action]
    runs = [t for t in tasks if t.action is not TaskAction.DELETE and t.phase is not TaskPhase.SCHEDULE
            and any(e in events for e in t.events) and t.definitions and t.definitions[0].after is not None
            and crd.applies_crds(t.definitions[0].after)]
    runs.sort(key=lambda t: events[0] not in t.events)
    return runs[0] if runs else None


def _crd_versions(changes: Iterable[ResourceChange], live_of: LiveOf) -> list[Warning]:
    """CRDs this action applies that leave out a version the cluster still stores objects in:
    the API server refuses the update (apiextensions ValidateCustomResourceDefinitionStoredVersions:
    every `status.storedVersions` entry must appear in `spec.versions`). With the live CRD that
    is a predicted failure; without it, a removed version is a warning."""
    out: list[Warning] = []
    for change in changes:
        if change.action not in (Action.CREATE, Action.UPDATE) or not crd.is_crd(change.after) or change.after is None:
            continue
        ref = change.resource
        found = live_of(ref)
        if found is not None:
            gone = crd.stored_versions_removed(change.after, found)
            if gone:
                out.append(warn(CrdVersionRemoved(versions=tuple(gone), stored_versions=StoredVersions.LIVE), ref,
                                fails=True))
        elif change.crd_schema is not None:
            removed = [c.version for c in change.crd_schema.changes if c.what == "version-removed"]
            if removed:
                out.append(warn(CrdVersionRemoved(versions=tuple(removed), stored_versions=StoredVersions.NOT_READ),
                                ref))
    return out


def _predicted(request: PlanRequest, target: Target, action: HelmAction, changes: list[ResourceChange],
               tasks: list[TaskPlan],
               prev_resources: Mapping[Identity, tuple[ResourceRef, Document]],
               want_resources: Mapping[Identity, tuple[ResourceRef, Document]],
               want_hooks: Mapping[Identity, tuple[ResourceRef, Document]],
               prev_hooks: Mapping[Identity, tuple[ResourceRef, Document]], live: _Live) -> list[Warning]:
    """The failures core.validate predicts, for every object this action makes Helm build:
    the new release's (schemas checked for what is created or changed, and for the hooks that
    run), the chart's crds/ on install, and the previous release's (mapped only)."""
    sent = {c.resource.identity for c in changes if c.action in (Action.CREATE, Action.UPDATE)}
    events = HOOK_EVENTS[action]
    runs = [t for t in tasks if not request.hooks_disabled and t.action is not TaskAction.DELETE
            and t.phase is not TaskPhase.SCHEDULE and any(e in events for e in t.events)]
    running = {ref.identity for t in runs for ref in t.resources}
    objects = [Applied(ref, doc.obj, ref.identity in sent) for ref, doc in want_resources.values()]
    objects += [Applied(ref, doc.obj, True, Role.HOOK) for ref, doc in want_hooks.values() if ref.identity in running]
    if request.previous is None and not request.skip_crds:
        objects += [Applied(_chart_crd_ref(d), d.obj, True, Role.CHART_CRD) for d in request.desired.crds]
    if request.previous is not None:
        objects += [Applied(ref, doc.obj, False, Role.PREVIOUS_RELEASE) for ref, doc in prev_resources.values()]
    crd_objects = [d.obj for d in (*request.desired.resources, *request.desired.hooks)]
    out = predict(target, objects, crd_objects, [(d.source, d.obj) for d in request.desired.crds],
                  created=request.previous is None and not request.skip_crds)
    if request.previous is None:
        out += namespace_warning(target, request.header.namespace)

    def live_of(ref: ResourceRef) -> Mapping[str, Any] | None:
        return find_live(live.index, ref) if live.covered(ref) else None

    previous_hooks = {ref.identity for ref, _ in prev_hooks.values()}
    out += hook_collisions(target, runs, live_of if live.read else None, lambda ref: ref.identity in previous_hooks)
    return out


def make_plan(request: PlanRequest) -> Plan:
    header = request.header
    streams = [request.desired] + ([request.previous] if request.previous else [])
    identifier = _Identifier(header.namespace, _cluster_scoped(streams, request.live))
    previous = request.previous or Rendered()
    prev_resources = identifier.index(previous.resources, "previous")
    want_resources = identifier.index(request.desired.resources, "desired")
    prev_hooks = identifier.index(previous.hooks, "previous hook")
    want_hooks = identifier.index(request.desired.hooks, "desired hook")
    warnings = list(request.warnings)
    fresh = request.previous is None
    # Scope and refs come from one identifier: the cluster's scope, where it was read, in both.
    live = _Live(request, _scope(identifier, [previous, request.desired]))
    crds: list[ChartCRD] = []
    drift: list[DriftChange] = []
    chart_defaults: tuple[ChartDefault, ...] = ()

    if request.action is HelmAction.UNINSTALL:
        # The release's own hooks run (pre-delete, post-delete); nothing is created or updated.
        action = HelmAction.UNINSTALL
        changes = _uninstall_changes(prev_resources, kind_rank(uninstall_order(request.helm_major)), request, live,
                                     warnings, drift)
        tasks = hook_tasks(prev_hooks, prev_hooks, action, kind_rank(install_order(request.helm_major)))
        warnings.append(warn(CrdsUntouched()))
    else:
        rank = kind_rank(install_order(request.helm_major))

        def live_of(ref: ResourceRef) -> Mapping[str, Any] | None:
            return find_live(live.index, ref) if live.covered(ref) else None

        renders = hook_renders = None
        if request.render_window is not None:
            # An object the chart names anew on every render is one object: its previous self
            # and its second render are keyed as the desired render names it.
            again = request.desired_again or Rendered()
            again_resources, prev_resources = regenerated.pair_names(
                prev_resources, want_resources, identifier.index(again.resources, "desired"))
            again_hooks, prev_hooks = regenerated.pair_names(
                prev_hooks, want_hooks, identifier.index(again.hooks, "desired hook"))
            renders, hook_renders = (regenerated.Renders({i: doc.obj for i, (_, doc) in index.items()},
                                                         request.render_window)
                                     for index in (again_resources, again_hooks))
        changes = disambiguate(_resource_changes(prev_resources, want_resources, rank, warnings, live_of, request.line_context,
                                                 lambda ref: live.covered(ref) and find_live(live.index, ref) is None))
        if renders is not None:
            changes = [regenerated.mark(c, renders) for c in changes]
        changes = _ownership(changes, live, request, warnings)
        warnings += _crd_versions(changes, live_of)
        drift = _drift(request, live, prev_resources, want_resources, [*prev_hooks, *want_hooks], warnings)
        changes = _server_side(changes, live, request, want_resources, prev_resources, warnings)
        changes = _adoptions(changes, live, request, want_resources, warnings)
        provisional = HelmAction.INSTALL if fresh else request.action or HelmAction.UPGRADE
        tasks = hook_tasks(prev_hooks, want_hooks, provisional, rank, request.line_context)
        if hook_renders is not None:
            tasks = [regenerated.mark_hooks(t, hook_renders) for t in tasks]
        if request.causes is not None and not fresh:  # why each change
            changes, tasks, chart_defaults = causes.place(identifier.index, request.causes, request.desired_again is not None,
                                                          changes, tasks, (prev_resources, prev_hooks), (want_resources, want_hooks))
        # Drift this deploy sets back is a change of the cluster: `helm upgrade` does real work.
        if (provisional is HelmAction.UPGRADE and not changes and all(t.action is TaskAction.UNCHANGED for t in tasks)
                and not any(d.reverts for d in drift)):
            action = HelmAction.NONE
        else:
            action = provisional
        tasks += schedule_tasks(changes, want_resources)
        crds = _chart_crds(request, live, fresh)
        new_crds = _new_crds(request, live, fresh)
        applier = (_crd_hook(tasks, provisional, request.hooks_disabled)
                   if new_crds or any(c.chart_changed for c in crds) else None)
        hook, hook_resource = (applier.name, applier.resources[0]) if applier else (None, None)
        for chart_crd in crds:
            if chart_crd.chart_changed:
                warnings.append(warn(CrdNotUpgraded(name=chart_crd.name, source=chart_crd.source, hook=hook,
                                                    hook_resource=hook_resource)))
        warnings += [warn(replace(facts, hook=hook, hook_resource=hook_resource)) for facts in new_crds]
        warnings += _dependency_crds_unknown(request, live)
        if request.previous is not None and request.action in (None, HelmAction.UPGRADE) and prev_resources \
                and not want_resources:
            warnings.append(warn(EmptyRender(previous_resources=len(prev_resources), desired_hooks=len(want_hooks))))
        # Only objects whose live state was not read: one read and found missing is gone already.
        guessed = [c for c in changes if c.action in (Action.DELETE, Action.RETAIN) and not live.covered(c.resource)]
        if guessed:
            warnings.append(warn(KeepFromManifest(objects=tuple(c.resource for c in guessed))))
        if request.target is not None:
            warnings += _predicted(request, request.target, action, changes, tasks, prev_resources,
                                   want_resources, want_hooks, prev_hooks, live)
    warnings += consequences(changes)
    refused = frozenset(w.resource.identity for w in warnings if isinstance(w.facts, SsaConflict) and w.resource)
    impact, failures = _impact(request, action, changes, prev_resources, want_resources, live, drift, refused,
                               any(w.fails and w.code.stops for w in warnings))
    warnings += failures
    warnings += [warn(dropped) for dropped in (*previous.dropped, *request.desired.dropped)]
    return build_plan(header, action, changes, tasks, crds, warnings, hooks_disabled=request.hooks_disabled,
                      drift=drift, live=live.check, impact=impact,
                      attribution=request.causes.attribution if request.causes and not fresh else Attribution.NONE, chart_defaults=chart_defaults)


def _impact(request: PlanRequest, action: HelmAction, changes: list[ResourceChange],
            prev_resources: Mapping[Identity, tuple[ResourceRef, Document]],
            want_resources: Mapping[Identity, tuple[ResourceRef, Document]], live: _Live,
            drift: list[DriftChange], failing: frozenset[Identity], stopped: bool) -> tuple[list[Impact], list[Warning]]:
    """What the deploy does to running things (core/impact/), from this plan's changes (`stopped`: codes.Code.stops)."""
    def live_of(ref: ResourceRef) -> Mapping[str, Any] | None:
        return find_live(live.index, ref) if live.covered(ref) else None

    # An uninstall's desired stream is empty, and its impact (deleted CRDs and claims) reads none.
    given = ImpactInput(
        action, {i: (ref, doc.obj) for i, (ref, doc) in prev_resources.items()},
        {i: (ref, doc.obj) for i, (ref, doc) in want_resources.items()},
        live_of, tuple(live.index.values()), request.apply_method, request.force_conflicts,
        tuple(drift), {i: doc.source for i, (_, doc) in want_resources.items()}, failing, stopped,
    )
    return find_impact(changes, given)
