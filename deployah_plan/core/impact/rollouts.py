"""Rollouts: which workloads restart, how many pods and how, and config that reaches no pod."""
from __future__ import annotations

import math
import re
from typing import Any, Mapping

from msgspec import Struct

from deployah_plan.core.impact.common import (
    WORKLOAD_KINDS, WORKLOADS, Found, ImpactInput, dicts, dig, group_kind, int_or_string, natural,
)
from deployah_plan.core.lifecycle import immutable_fields
from deployah_plan.impact_facts import (
    ConfigUnreached, Consumer, DeferredRestart, NoRestart, Read, Reads, ReplicasReset, ResetRule, Restart, Strategy,
)
from deployah_plan.impacts import ImpactKind
from deployah_plan.model import (
    Action, ApplyMethod, DriftEffect, Identity, Impact, ResourceChange, ResourceRef, SsaReason,
)

_TEMPLATE = "/spec/template"
_CHECKSUM = "/spec/template/metadata/annotations/checksum~1"
_CONFIG = {("", "ConfigMap"), ("", "Secret")}
_CONFIG_DATA = ("/data", "/binaryData", "/stringData")
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
        return natural(dig(self.obj, "spec", "minReplicas"))

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


def _rollout(change: ResourceChange, given: ImpactInput, hpa: _Hpa | None,
             covers: list[tuple[ResourceRef, bool]]) -> Impact:
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
        if declared is not None:
            counts.append(("replicas", declared))
    if live_replicas is not None:
        counts.append(("live_replicas", live_replicas))
    if plan.pods is not None:
        counts.append(("pods", plan.pods))
    # A checksum annotation that changes only by a value the chart regenerates says nothing of
    # a real config change: it is kept apart, as are the configs whose data changes only so.
    annotations: dict[str, list[bool]] = {}
    for f in change.fields:
        if f.path.startswith(_CHECKSUM) and not f.equivalent:
            name = "checksum/" + f.path[len(_CHECKSUM):].split("/")[0].replace("~1", "/").replace("~0", "~")
            annotations.setdefault(name, []).append(f.regenerated)
    checksums = tuple(sorted(n for n, marks in annotations.items() if not all(marks)))
    regenerated_checksums = tuple(sorted(n for n, marks in annotations.items() if all(marks)))
    cls = DeferredRestart if plan.kind is ImpactKind.DEFERRED_RESTART else Restart
    facts = cls(strategy=plan.strategy, paused=plan.paused, max_surge=plan.max_surge,
                max_unavailable=plan.max_unavailable, surge_pods=plan.surge_pods,
                unavailable_pods=plan.unavailable_pods, partition=plan.partition, replicas=replicas,
                only_pod_down=plan.only_pod_down,
                chart_replicas=declared, live_replicas=live_replicas, pods=plan.pods,
                hpa=hpa.ref if hpa else None, hpa_min=hpa.low if hpa else None, hpa_max=hpa.high if hpa else None,
                checksums=checksums, reads=tuple(r for r, again in covers if not again),
                regenerated=_only_regenerated(change, (_TEMPLATE,)), regenerated_checksums=regenerated_checksums,
                regenerated_reads=tuple(r for r, again in covers if again))
    return Impact(plan.kind, ref, (hpa.ref,) if hpa else (), tuple(counts), facts)


def _no_restart(change: ResourceChange) -> Impact:
    ref = change.resource
    before, after = natural(dig(change.before, "spec", "replicas")), natural(dig(change.after, "spec", "replicas"))
    counts = (("replicas", after),) if after is not None else ()
    return Impact(ImpactKind.NO_RESTART, ref, (), counts, NoRestart(replicas_before=before, replicas_after=after))


# -- config consumers -------------------------------------------------------------------------------

def _pod_spec(ref: ResourceRef, obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    spec = dig(obj, "spec", "template", "spec")
    return spec if isinstance(spec, dict) else None


def consumers(pod: Mapping[str, Any]) -> dict[tuple[str, str], list[Read]]:
    """The ConfigMaps and Secrets a pod spec reads, by (kind, name), and how."""
    out: dict[tuple[str, str], list[Read]] = {}
    containers = dicts(pod.get("initContainers")) + dicts(pod.get("containers"))
    for container in containers:
        cname = str(container.get("name", ""))
        for env in dicts(container.get("env")):
            value_from = env.get("valueFrom")
            if not isinstance(value_from, dict):
                continue  # a literal value (most of them)
            for key, kind in (("configMapKeyRef", "ConfigMap"), ("secretKeyRef", "Secret")):
                source = dig(value_from, key, "name")
                if isinstance(source, str):
                    out.setdefault((kind, source), []).append(Read(container=cname, how=Reads.ENV, name=str(env.get("name"))))
        for env_from in dicts(container.get("envFrom")):
            for key, kind in (("configMapRef", "ConfigMap"), ("secretRef", "Secret")):
                source = dig(env_from, key, "name")
                if isinstance(source, str):
                    out.setdefault((kind, source), []).append(Read(container=cname, how=Reads.ENV_FROM))
    volumes: dict[str, list[tuple[str, str, Reads]]] = {}
    for volume in dicts(pod.get("volumes")):
        name = str(volume.get("name", ""))
        found = []
        if isinstance(dig(volume, "configMap", "name"), str):
            found.append(("ConfigMap", volume["configMap"]["name"], Reads.VOLUME))
        if isinstance(dig(volume, "secret", "secretName"), str):
            found.append(("Secret", volume["secret"]["secretName"], Reads.VOLUME))
        for source in dicts(dig(volume, "projected", "sources")):
            if isinstance(dig(source, "configMap", "name"), str):
                found.append(("ConfigMap", source["configMap"]["name"], Reads.PROJECTED))
            if isinstance(dig(source, "secret", "name"), str):
                found.append(("Secret", source["secret"]["name"], Reads.PROJECTED))
        if found:
            volumes[name] = found
    for container in containers:
        cname = str(container.get("name", ""))
        for mount in dicts(container.get("volumeMounts")):
            for kind, source, mounted in volumes.get(str(mount.get("name", "")), ()):
                sub = mount.get("subPath") or mount.get("subPathExpr")
                out.setdefault((kind, source), []).append(
                    Read(container=cname, how=Reads.SUB_PATH if sub else mounted, name=str(mount.get("mountPath", ""))))
    return out


def _config_data_changed(change: ResourceChange) -> bool:
    return change.action is Action.UPDATE and group_kind(change.resource) in _CONFIG and any(
        not f.equivalent and f.path.startswith(_CONFIG_DATA) for f in change.fields)


def _only_regenerated(change: ResourceChange, under: tuple[str, ...]) -> bool:
    """Every real field change under these paths is a value the chart regenerates on every
    render (core/regenerated.py), and there is one: no change the inputs made drives it."""
    real = [f for f in change.fields
            if not f.equivalent and any(f.path == p or f.path.startswith(p + "/") for p in under)]
    return bool(real) and all(f.regenerated for f in real)


def workloads(changes: list[ResourceChange], given: ImpactInput, found: Found) -> None:
    hpas = _hpas(given)
    rolling = {c.resource.identity for c in changes
               if c.action is Action.UPDATE and group_kind(c.resource) in WORKLOADS and template_changed(c)}
    # Who reads each ConfigMap and Secret that changes: only those are indexed.
    wanted = {(c.resource.kind, c.resource.namespace, c.resource.name) for c in changes if _config_data_changed(c)}
    readers: dict[tuple[str, str, str], list[tuple[ResourceRef, list[Read]]]] = {}
    if wanted:
        for ref, obj in given.desired.values():
            pod = _pod_spec(ref, obj) if ref.kind in WORKLOAD_KINDS and group_kind(ref) in WORKLOADS else None
            if pod is None:
                continue
            for (kind, name), uses in consumers(pod).items():
                if (kind, ref.namespace, name) in wanted:
                    readers.setdefault((kind, ref.namespace, name), []).append((ref, uses))
    covers: dict[Identity, list[tuple[ResourceRef, bool]]] = {}  # (config, changed only by regenerated values)
    for change in changes:
        if not _config_data_changed(change):
            continue
        ref = change.resource
        again = _only_regenerated(change, _CONFIG_DATA)
        unreached = []
        for reader, uses in readers.get((ref.kind, ref.namespace, ref.name), ()):
            if reader.identity in rolling:
                covers.setdefault(reader.identity, []).append((ref, again))
            else:
                unreached.append((reader, uses))
        if unreached:
            never = sum(1 for _, uses in unreached if any(u.how not in (Reads.VOLUME, Reads.PROJECTED) for u in uses))
            found.impacts.append(Impact(
                ImpactKind.CONFIG_UNREACHED, ref, tuple(r for r, _ in unreached),
                (("consumers", len(unreached)), ("never_updated", never)),
                ConfigUnreached(consumers=tuple(Consumer(workload=r, reads=tuple(uses)) for r, uses in unreached),
                                regenerated=again)))
    for change in changes:
        if change.action is not Action.UPDATE or group_kind(change.resource) not in WORKLOADS or immutable_fields(change):
            continue  # an update the API server refuses restarts nothing (the immutable warning says so)
        hpa = hpas.get(change.resource.identity)
        if change.resource.identity in rolling:
            found.impacts.append(_rollout(change, given, hpa, covers.get(change.resource.identity, [])))
        else:
            found.impacts.append(_no_restart(change))
    for ref, obj in given.desired.values() if hpas else ():
        hpa = hpas.get(ref.identity)
        declared = natural(dig(obj, "spec", "replicas"))
        if hpa is None or declared is None or ref.identity not in given.previous:
            continue
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
