"""Rollouts: which workloads restart, how many pods and how, and config that reaches no pod."""
from __future__ import annotations

import math
import re
from typing import Any, Mapping

from msgspec import Struct
from msgspec.structs import replace

from deployah_plan.core.impact.common import WORKLOADS, Found, ImpactInput, dig, group_kind, int_or_string, natural
from deployah_plan.core.impact.config import (
    CONFIG, KeyChanges, Keys, Moved, Source, Use, changed_annotations, chart_of, hashed, hashed_refs, key_changes,
    keys_read, moved_by, uses,
)
from deployah_plan.core.drift import is_custom
from deployah_plan.core.lifecycle import immutable_fields
from deployah_plan.impact_facts import (
    ConfigUnreached, Consumer, DeferredRestart, NoRestart, Read, Reads, ReplicasReset, ResetRule, Restart, Strategy,
)
from deployah_plan.impacts import ImpactKind
from deployah_plan.model import (
    Action, ApplyMethod, DriftEffect, Identity, Impact, ResourceChange, ResourceRef, SsaReason,
)

_TEMPLATE = "/spec/template"
_ANNOTATIONS = "/spec/template/metadata/annotations"
_HPA = ("autoscaling", "HorizontalPodAutoscaler")


def template_changed(change: ResourceChange) -> bool:
    """A real field change under the pod template (an equivalent quantity changes nothing)."""
    return any(not f.equivalent and (f.path == _TEMPLATE or f.path.startswith(_TEMPLATE + "/")) for f in change.fields)


def _scaled(value: Any, replicas: int, up: bool) -> int | None:
    """maxSurge (rounded up) or maxUnavailable (rounded down) as a number of pods
    (intstr.GetScaledValueFromIntOrPercent, as the Deployment controller resolves them)."""
    if natural(value) is not None:
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"[0-9]{1,3}%", value):
        exact = int(value[:-1]) * replicas / 100
        return math.ceil(exact) if up else math.floor(exact)
    return None


class _Rollout(Struct, frozen=True):
    kind: ImpactKind
    pods: int | None
    strategy: Strategy
    paused: bool = False
    max_surge: int | str | None = None
    max_unavailable: int | str | None = None
    surge_pods: int | None = None
    unavailable_pods: int | None = None
    partition: int = 0
    only_pod_down: bool = False


def _deployment_rollout(obj: Mapping[str, Any], replicas: int | None) -> _Rollout:
    strategy = dig(obj, "spec", "strategy") or {}
    if dig(obj, "spec", "paused") is True:
        kind = Strategy.RECREATE if dig(strategy, "type") == "Recreate" else Strategy.ROLLING_UPDATE
        return _Rollout(ImpactKind.DEFERRED_RESTART, 0, kind, paused=True)
    if dig(strategy, "type") == "Recreate":
        return _Rollout(ImpactKind.RESTART, replicas, Strategy.RECREATE)
    surge = dig(strategy, "rollingUpdate", "maxSurge")
    unavailable = dig(strategy, "rollingUpdate", "maxUnavailable")
    surge, unavailable = ("25%" if surge is None else surge), ("25%" if unavailable is None else unavailable)
    up = down = None
    if replicas is not None:
        up, down = _scaled(surge, replicas, True), _scaled(unavailable, replicas, False)
        if up is not None and down is not None:
            down = 1 if up == 0 and down == 0 else down  # the controller's fencepost
        else:
            up = down = None
    return _Rollout(ImpactKind.RESTART, replicas, Strategy.ROLLING_UPDATE, max_surge=int_or_string(surge),
                    max_unavailable=int_or_string(unavailable), surge_pods=up, unavailable_pods=down)


def _statefulset_rollout(obj: Mapping[str, Any], replicas: int | None) -> _Rollout:
    strategy = dig(obj, "spec", "updateStrategy") or {}
    if dig(strategy, "type") == "OnDelete":
        return _Rollout(ImpactKind.DEFERRED_RESTART, 0, Strategy.ON_DELETE)
    partition = natural(dig(strategy, "rollingUpdate", "partition")) or 0
    unavailable = int_or_string(dig(strategy, "rollingUpdate", "maxUnavailable"))
    if partition:
        pods = None if replicas is None else max(0, replicas - partition)
        kind = ImpactKind.DEFERRED_RESTART if pods == 0 else ImpactKind.RESTART
        return _Rollout(kind, pods, Strategy.ROLLING_UPDATE, max_unavailable=unavailable, partition=partition)
    # No surge (StatefulSet RollingUpdate: the controller deletes a pod, then creates it with the
    # new template): with one replica, nothing serves until the new pod is ready.
    return _Rollout(ImpactKind.RESTART, replicas, Strategy.ROLLING_UPDATE, max_unavailable=unavailable,
                    only_pod_down=replicas == 1)


def _daemonset_rollout(obj: Mapping[str, Any]) -> _Rollout:
    """One pod per eligible node: how many is not counted (the plan never reads status)."""
    strategy = dig(obj, "spec", "updateStrategy") or {}
    if dig(strategy, "type") == "OnDelete":
        return _Rollout(ImpactKind.DEFERRED_RESTART, 0, Strategy.ON_DELETE)
    unavailable = dig(strategy, "rollingUpdate", "maxUnavailable")
    surge = dig(strategy, "rollingUpdate", "maxSurge")
    return _Rollout(ImpactKind.RESTART, None, Strategy.ROLLING_UPDATE, max_surge=int_or_string(0 if surge is None else surge),
                    max_unavailable=int_or_string(1 if unavailable is None else unavailable))


class _Hpa(Struct, frozen=True):
    ref: ResourceRef
    obj: Mapping[str, Any]
    live: bool  # found only in the live state

    @property
    def low(self) -> int | None:
        low = dig(self.obj, "spec", "minReplicas")
        return 1 if low is None else natural(low)  # the API server's default

    @property
    def high(self) -> int | None:
        return natural(dig(self.obj, "spec", "maxReplicas"))


def _hpas(given: ImpactInput) -> dict[Identity, _Hpa]:
    """Every HPA by the identity of the workload it scales: the release's, then live ones."""
    out: dict[Identity, _Hpa] = {}

    def add(ref: ResourceRef, obj: Mapping[str, Any], live: bool) -> None:
        target = dig(obj, "spec", "scaleTargetRef")
        if not isinstance(target, dict) or not isinstance(target.get("name"), str):
            return
        api = str(target.get("apiVersion") or "")
        group = api.split("/")[0] if "/" in api else ""
        out.setdefault((group, str(target.get("kind", "")), ref.namespace, target["name"]), _Hpa(ref, obj, live))

    for ref, obj in given.desired.values():
        if group_kind(ref) == _HPA:
            add(ref, obj, False)
    for obj in given.live_objects:
        api = str(obj.get("apiVersion", ""))
        if api.split("/")[0] == "autoscaling" and obj.get("kind") == "HorizontalPodAutoscaler":
            meta = obj.get("metadata") or {}
            ref = ResourceRef(api, "HorizontalPodAutoscaler", str(meta.get("namespace", "")), str(meta.get("name", "")))
            add(ref, obj, True)
    return out


def _rollout(change: ResourceChange, given: ImpactInput, hpa: _Hpa | None, judged: _Judged) -> Impact:
    ref, obj = change.resource, change.after or {}
    live = given.live_of(ref) if given.live_of else None
    declared = natural(dig(obj, "spec", "replicas"))
    live_replicas = natural(dig(live, "spec", "replicas"))
    counts: list[tuple[str, int]] = []
    replicas: int | None = None
    if group_kind(ref) == ("apps", "DaemonSet"):
        plan = _daemonset_rollout(obj)
    else:
        # An HPA's count is the live one; without spec.replicas an update keeps the live count,
        # and a workload never given one has the default, 1.
        if hpa is not None:
            # Client-side apply sets the chart's count in the same patch (replicas-reset says so).
            resets = declared is not None and (given.apply_method is not ApplyMethod.SSA or given.force_conflicts)
            replicas = declared if resets or live_replicas is None else live_replicas
        else:
            replicas = declared if declared is not None else live_replicas if live_replicas is not None else 1
        plan = (_deployment_rollout(obj, replicas) if ref.kind == "Deployment" else _statefulset_rollout(obj, replicas))
        if hpa is None and replicas == 0 and plan.kind is ImpactKind.RESTART:
            # No pod runs: none restarts; the pods it scales up to start with the new template.
            plan = replace(plan, kind=ImpactKind.DEFERRED_RESTART, pods=0, only_pod_down=False)
        if declared is not None:
            counts.append(("replicas", declared))
    if live_replicas is not None:
        counts.append(("live_replicas", live_replicas))
    if plan.pods is not None:
        counts.append(("pods", plan.pods))
    cls = DeferredRestart if plan.kind is ImpactKind.DEFERRED_RESTART else Restart
    facts = cls(strategy=plan.strategy, paused=plan.paused, max_surge=plan.max_surge,
                max_unavailable=plan.max_unavailable, surge_pods=plan.surge_pods,
                unavailable_pods=plan.unavailable_pods, partition=plan.partition, replicas=replicas,
                only_pod_down=plan.only_pod_down,
                chart_replicas=declared, live_replicas=live_replicas, pods=plan.pods,
                hpa=hpa.ref if hpa else None, hpa_min=hpa.low if hpa else None, hpa_max=hpa.high if hpa else None,
                checksums=judged.checksums, reads=judged.reads, regenerated=judged.regenerated,
                regenerated_checksums=judged.regenerated_checksums, regenerated_reads=judged.regenerated_reads,
                other_checksums=judged.other_checksums, hashed=judged.hashed, hashed_metadata=judged.hashed_metadata,
                hashed_unread=judged.hashed_unread)
    return Impact(plan.kind, ref, (hpa.ref,) if hpa else (), tuple(counts), facts)


def _no_restart(change: ResourceChange) -> Impact:
    ref = change.resource
    before, after = natural(dig(change.before, "spec", "replicas")), natural(dig(change.after, "spec", "replicas"))
    counts = (("replicas", after),) if after is not None else ()
    return Impact(ImpactKind.NO_RESTART, ref, (), counts, NoRestart(replicas_before=before, replicas_after=after))


# -- config consumers -------------------------------------------------------------------------------

def _pod_spec(ref: ResourceRef, obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    spec = dig(obj, "spec", "template", "spec") if group_kind(ref) in WORKLOADS else None
    return spec if isinstance(spec, dict) else None


class _Judged(Struct, frozen=True):
    """A workload whose pod template changes: what moved each checksum annotation, what it reads
    that changes, and whether anything but values the chart regenerates changes its template."""

    checksums: tuple[str, ...] = ()
    regenerated_checksums: tuple[str, ...] = ()
    other_checksums: tuple[str, ...] = ()
    hashed: tuple[ResourceRef, ...] = ()
    hashed_metadata: tuple[ResourceRef, ...] = ()
    hashed_unread: tuple[ResourceRef, ...] = ()
    reads: tuple[ResourceRef, ...] = ()
    regenerated_reads: tuple[ResourceRef, ...] = ()
    regenerated: bool = False


_Configs = Mapping[tuple[str, str, str], KeyChanges]  # (kind, namespace, name) -> how its data changes


def _by_namespace(configs: _Configs) -> dict[str, dict[Source, KeyChanges]]:
    """The changed ConfigMaps and Secrets of each namespace, by (kind, name): found once, not
    by each workload judged (a scan of all of them per workload grew with their product)."""
    out: dict[str, dict[Source, KeyChanges]] = {}
    for (kind, namespace, name), keys in configs.items():
        out.setdefault(namespace, {})[(kind, name)] = keys
    return out


def _judge(change: ResourceChange, changes: Mapping[Source, KeyChanges],
           own: Mapping[tuple[str, str], list[Source]]) -> _Judged:
    """`changes`: how the ConfigMaps and Secrets of the workload's namespace change."""
    ref = change.resource
    read = uses(_pod_spec(ref, change.after or {}) or {})
    moved: dict[Moved, list[str]] = {m: [] for m in Moved}
    other_inputs: dict[Source, Keys] = {}
    annotations = changed_annotations(change)
    for name, fields in sorted(annotations.items()):
        inputs = hashed(name, read, own.get((ref.namespace, chart_of(change.source)), []))
        by = moved_by(fields, inputs, changes)
        moved[by].append(name)
        if by is Moved.OTHER:
            for source, keys in inputs.items():
                known = other_inputs.get(source, frozenset())
                other_inputs[source] = None if keys is None or known is None else keys | known
    really = [s for s, u in read.items() if s in changes and changes[s].touches(keys_read(u))]
    again = [s for s, u in read.items() if s in changes and s not in really and changes[s].touches(keys_read(u), False)]
    # The template changes by more than what the chart regenerates: a field that is not such a
    # value, or a checksum annotation that real config (or something else) moved.
    checksum_paths = {f.path for fields in annotations.values() for f in fields if f.path.startswith(_ANNOTATIONS + "/")}
    real = bool(moved[Moved.CONFIG] or moved[Moved.OTHER]) or any(
        not f.equivalent and not f.regenerated and f.path not in checksum_paths
        and (f.path == _TEMPLATE or f.path.startswith(_TEMPLATE + "/")) for f in change.fields)
    metadata = [s for s in other_inputs if s in changes and changes[s].metadata
                and not changes[s].touches(other_inputs[s])]
    unread = [s for s in other_inputs if s in changes and s not in metadata and changes[s].real
              and not changes[s].touches(other_inputs[s])]
    return _Judged(
        checksums=tuple(moved[Moved.CONFIG]), regenerated_checksums=tuple(moved[Moved.REGENERATED]),
        other_checksums=tuple(moved[Moved.OTHER]), hashed=hashed_refs(ref.namespace, other_inputs),
        hashed_metadata=hashed_refs(ref.namespace, metadata), hashed_unread=hashed_refs(ref.namespace, unread),
        reads=hashed_refs(ref.namespace, really), regenerated_reads=hashed_refs(ref.namespace, again),
        regenerated=not real)


def _own_configs(given: ImpactInput) -> dict[tuple[str, str], list[Source]]:
    """The release's ConfigMaps and Secrets by namespace and the chart or subchart of their template."""
    out: dict[tuple[str, str], list[Source]] = {}
    for ident, (ref, _) in given.desired.items():
        if group_kind(ref) in CONFIG:
            out.setdefault((ref.namespace, chart_of(given.sources.get(ident, ""))), []).append((ref.kind, ref.name))
    return out


_Readers = dict[tuple[str, str, str], list[tuple[ResourceRef, list[Use]]]]  # (kind, namespace, name) -> its readers


def _readers(given: ImpactInput, wanted: Mapping[tuple[str, str, str], Any]) -> _Readers:
    """Which of the release's workloads read each of these ConfigMaps and Secrets, and how."""
    out: _Readers = {}
    for ref, obj in given.desired.values():
        pod = _pod_spec(ref, obj)
        for (kind, name), found in uses(pod).items() if pod is not None else ():
            if (kind, ref.namespace, name) in wanted:
                out.setdefault((kind, ref.namespace, name), []).append((ref, found))
    return out


def _unreached(change: ResourceChange, keys: KeyChanges, readers: _Readers,
               judged: Mapping[Identity, _Judged]) -> Impact | None:
    """A ConfigMap or Secret whose changed keys are read by workloads whose pods do not take them:
    those whose template does not change, for a key that really changes those whose template
    changes only by regenerated values too."""
    ref = change.resource
    for real in (True, False):
        unreached: list[tuple[ResourceRef, list[Read]]] = []
        for reader, found in readers.get((ref.kind, ref.namespace, ref.name), ()):
            if not keys.touches(keys_read(found), real):
                continue
            rolled = judged.get(reader.identity)
            if rolled is not None and (not real or not rolled.regenerated):
                continue
            reads = [u.read for u in found if u.read is not None and keys.touches(u.keys, real)]
            if reads:
                unreached.append((reader, reads))
        if unreached:
            never = sum(1 for _, reads in unreached if any(r.how not in (Reads.VOLUME, Reads.PROJECTED) for r in reads))
            return Impact(
                ImpactKind.CONFIG_UNREACHED, ref, tuple(r for r, _ in unreached),
                (("consumers", len(unreached)), ("never_updated", never)),
                ConfigUnreached(consumers=tuple(Consumer(workload=r, reads=tuple(reads)) for r, reads in unreached),
                                regenerated=not real))
        if keys.real:
            return None  # the keys that really change reach their readers: the rest only regenerate
    return None


def workloads(changes: list[ResourceChange], given: ImpactInput, found: Found) -> None:
    hpas = _hpas(given)
    configs = {(c.resource.kind, c.resource.namespace, c.resource.name): key_changes(c) for c in changes
               if c.action is Action.UPDATE and group_kind(c.resource) in CONFIG}
    own = _own_configs(given) if configs or any(group_kind(c.resource) in WORKLOADS for c in changes) else {}
    in_namespace = _by_namespace(configs)
    judged = {c.resource.identity: _judge(c, in_namespace.get(c.resource.namespace, {}), own) for c in changes
              if c.action is Action.UPDATE and group_kind(c.resource) in WORKLOADS and template_changed(c)}
    changed = {name: keys for name, keys in configs.items() if keys.real or keys.regenerated}
    readers = _readers(given, changed) if changed else {}
    for change in changes:
        keys = changed.get((change.resource.kind, change.resource.namespace, change.resource.name))
        if keys is not None:
            unreached = _unreached(change, keys, readers, judged)
            if unreached is not None:
                found.impacts.append(unreached)
    for change in changes:
        if change.action is not Action.UPDATE or group_kind(change.resource) not in WORKLOADS or immutable_fields(change):
            continue  # an update the API server refuses restarts nothing (the immutable warning says so)
        hpa = hpas.get(change.resource.identity)
        rolled = judged.get(change.resource.identity)
        if rolled is not None:
            found.impacts.append(_rollout(change, given, hpa, rolled))
        else:
            found.impacts.append(_no_restart(change))
    for ref, obj in given.desired.values() if hpas else ():
        hpa = hpas.get(ref.identity)
        declared = natural(dig(obj, "spec", "replicas"))
        if hpa is None or declared is None or ref.identity not in given.previous:
            continue
        if given.apply_method is not ApplyMethod.SSA and is_custom(obj) and \
                natural(dig(given.previous[ref.identity][1], "spec", "replicas")) == declared:
            continue  # Helm's JSON merge patch of a custom resource (release to upgrade) leaves the HPA's count
        found.impacts.append(_replicas_reset(ref, declared, hpa, given))


def _replicas_reset(ref: ResourceRef, declared: int, hpa: _Hpa, given: ImpactInput) -> Impact:
    live = given.live_of(ref) if given.live_of else None
    live_replicas = natural(dig(live, "spec", "replicas"))
    counts = [("replicas", declared)] + ([("live_replicas", live_replicas)] if live_replicas is not None else [])
    drifted = next((f for d in given.drift if d.resource.identity == ref.identity for f in d.fields
                    if f.change.path == "/spec/replicas"), None)
    ssa: SsaReason | None = None
    managers: tuple[str, ...] = ()
    if given.apply_method is ApplyMethod.SSA:
        # Server-side apply: the HPA controller's writes to the scale subresource take
        # ownership of spec.replicas; applying another value then conflicts.
        if drifted is not None and drifted.effect is DriftEffect.CONFLICT:
            rule, ssa, managers = ResetRule.SSA_CONFLICT, drifted.ssa, drifted.managers
        elif given.force_conflicts and live_replicas is not None and live_replicas != declared:
            rule = ResetRule.SSA_FORCED
        elif live_replicas is not None and live_replicas == declared:
            rule = ResetRule.SSA_SAME
        else:
            rule = ResetRule.SSA_LATER
    else:
        rule = ResetRule.CLIENT_SIDE
    facts = ReplicasReset(rule=rule, chart_replicas=declared, live_replicas=live_replicas, hpa=hpa.ref,
                          hpa_live=hpa.live, hpa_min=hpa.low, hpa_max=hpa.high, ssa=ssa,
                          managers=managers)
    return Impact(ImpactKind.REPLICAS_RESET, ref, (hpa.ref,), tuple(counts), facts)
