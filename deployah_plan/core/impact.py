"""What the deploy does to running things: restarts, config that reaches nobody, replicas fought
over, traffic and data at risk.

Pure: derived once from the plan's own changes (their field changes and snapshots, never a
second diff), the desired and previous objects of the release (a ConfigMap's consumers and a
Service's pods may be objects that do not change), and, when it was read, the live state.
Each rule is Kubernetes' documented controller behaviour (docs/plan.md, "What the deploy does to
running things", quotes it):

- Deployments, StatefulSets and DaemonSets roll their pods if and only if `.spec.template`
  changes (Deployment concepts: "A Deployment's rollout is triggered if and only if the
  Deployment's Pod template is changed"). The strategy says how: a Deployment's RollingUpdate
  (maxSurge and maxUnavailable, 25% each by default; surge rounds up, unavailable down) or
  Recreate; a StatefulSet's RollingUpdate from the highest ordinal down to its `partition`,
  with no surge (each pod is deleted before its replacement is created, so a single replica
  serves nothing meanwhile), or OnDelete; a DaemonSet's RollingUpdate (maxUnavailable 1, maxSurge 0 by default) or OnDelete.
  A paused Deployment rolls nothing until it is resumed.
- A ConfigMap or Secret is read by a running pod as environment variables (never updated), as a
  mounted volume (updated after the kubelet's periodic sync) or through a `subPath` mount (never
  updated). So changed data reaches no running pod unless the consumer's pod template changes
  too, which a `checksum/...` annotation on the template is the common way of doing.
- The chart's `spec.replicas` on a workload an HPA scales: client-side apply (Helm 3, Helm 4
  with --server-side=false) patches the declared value over the live one on every deploy;
  server-side apply conflicts with the HPA controller, which owns the field once it has scaled
  (the upgrade fails unless --force-conflicts, which sets the declared value).
- A Service sends traffic to the pods its selector matches; ports and routes removed drop the
  traffic that used them.
- Deleting a CRD deletes every custom resource of its kind; a PVC's storage request may not
  shrink, and grows only with a StorageClass that allows volume expansion; deleting a
  StatefulSet leaves the PVCs of its volumeClaimTemplates unless its
  persistentVolumeClaimRetentionPolicy says Delete.
"""
from __future__ import annotations

import math
import re
from typing import Any, Callable, Iterable, Mapping

from msgspec import Struct, field

from deployah_plan.core import quantity
from deployah_plan.core.lifecycle import immutable_fields
from deployah_plan.facts import PvcExpandRefused
from deployah_plan.impact_facts import (
    ConfigUnreached, Consumer, DataCrd, DeferredRestart, Expansion, NoRestart, Port, PortRule, PvcExpand, PvcLeft,
    PvcShrink, Read, Reads, ReplicasReset, ResetRule, Restart, Route, RouteKind, Strategy, TrafficMoved, TrafficPort,
    TrafficRoute, TrafficUnmatched,
)
from deployah_plan.impacts import ImpactKind
from deployah_plan.model import (
    Action, ApplyMethod, DriftChange, DriftEffect, HelmAction, Identity, Impact, ResourceChange, ResourceRef,
    SsaReason, Warning, warn,
)

LiveOf = Callable[[ResourceRef], "Mapping[str, Any] | None"]

WORKLOADS = frozenset({("apps", "Deployment"), ("apps", "StatefulSet"), ("apps", "DaemonSet")})
_WORKLOAD_KINDS = frozenset(kind for _, kind in WORKLOADS)
# Objects whose pods a Service may select: the workloads, and what else carries a pod template.
_POD_OWNERS = WORKLOADS | {("apps", "ReplicaSet")}
_TEMPLATE = "/spec/template"
_CHECKSUM = "/spec/template/metadata/annotations/checksum~1"
_CONFIG = {("", "ConfigMap"), ("", "Secret")}
_CONFIG_DATA = ("/data", "/binaryData", "/stringData")
_PVC_STORAGE = "/spec/resources/requests/storage"
_HPA = ("autoscaling", "HorizontalPodAutoscaler")
_DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class"


class ImpactInput(Struct, frozen=True):
    """What the impact rules read, besides the plan's changes.

    `previous` and `desired` are the release's objects by identity (ref, object); `live_of`
    gives an object's live state when it was read (None otherwise); `live_objects` are every
    live object read (HPAs and StorageClasses outside the release count too). `apply_method`
    is this deploy's (None: Helm 3, client-side).
    """

    action: HelmAction
    previous: Mapping[Identity, tuple[ResourceRef, Mapping[str, Any]]]
    desired: Mapping[Identity, tuple[ResourceRef, Mapping[str, Any]]]
    live_of: LiveOf | None = None
    live_objects: tuple[Mapping[str, Any], ...] = ()
    apply_method: ApplyMethod | None = None
    force_conflicts: bool = False
    drift: tuple[DriftChange, ...] = ()


class _Found(Struct):
    impacts: list[Impact] = field(default_factory=list)
    warnings: list[Warning] = field(default_factory=list)


def _key(ref: ResourceRef) -> tuple[str, str]:
    return (ref.group, ref.kind)


def _get(obj: Any, *path: str) -> Any:
    for part in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(part)
    return obj


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _given(value: Any) -> int | str | None:
    """An int-or-string field as given (anything else as its text, as it was always said)."""
    if value is None or isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return str(value)


# -- rollouts ---------------------------------------------------------------------------------------

def template_changed(change: ResourceChange) -> bool:
    """A real field change under the pod template (an equivalent quantity changes nothing)."""
    return any(not f.equivalent and (f.path == _TEMPLATE or f.path.startswith(_TEMPLATE + "/")) for f in change.fields)


def _scaled(value: Any, replicas: int, up: bool) -> int | None:
    """maxSurge (rounded up) or maxUnavailable (rounded down) as a number of pods
    (intstr.GetScaledValueFromIntOrPercent, as the Deployment controller resolves them)."""
    if _int(value) is not None:
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
    strategy = _get(obj, "spec", "strategy") or {}
    if _get(obj, "spec", "paused") is True:
        kind = Strategy.RECREATE if _get(strategy, "type") == "Recreate" else Strategy.ROLLING_UPDATE
        return _Rollout(ImpactKind.DEFERRED_RESTART, 0, kind, paused=True)
    if _get(strategy, "type") == "Recreate":
        return _Rollout(ImpactKind.RESTART, replicas, Strategy.RECREATE)
    surge = _get(strategy, "rollingUpdate", "maxSurge")
    unavailable = _get(strategy, "rollingUpdate", "maxUnavailable")
    surge, unavailable = ("25%" if surge is None else surge), ("25%" if unavailable is None else unavailable)
    up = down = None
    if replicas is not None:
        up, down = _scaled(surge, replicas, True), _scaled(unavailable, replicas, False)
        if up is not None and down is not None:
            down = 1 if up == 0 and down == 0 else down  # the controller's fencepost
        else:
            up = down = None
    return _Rollout(ImpactKind.RESTART, replicas, Strategy.ROLLING_UPDATE, max_surge=_given(surge),
                    max_unavailable=_given(unavailable), surge_pods=up, unavailable_pods=down)


def _statefulset_rollout(obj: Mapping[str, Any], replicas: int | None) -> _Rollout:
    strategy = _get(obj, "spec", "updateStrategy") or {}
    if _get(strategy, "type") == "OnDelete":
        return _Rollout(ImpactKind.DEFERRED_RESTART, 0, Strategy.ON_DELETE)
    partition = _int(_get(strategy, "rollingUpdate", "partition")) or 0
    unavailable = _given(_get(strategy, "rollingUpdate", "maxUnavailable"))
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
    strategy = _get(obj, "spec", "updateStrategy") or {}
    if _get(strategy, "type") == "OnDelete":
        return _Rollout(ImpactKind.DEFERRED_RESTART, 0, Strategy.ON_DELETE)
    unavailable = _get(strategy, "rollingUpdate", "maxUnavailable")
    surge = _get(strategy, "rollingUpdate", "maxSurge")
    return _Rollout(ImpactKind.RESTART, None, Strategy.ROLLING_UPDATE, max_surge=_given(0 if surge is None else surge),
                    max_unavailable=_given(1 if unavailable is None else unavailable))


class _Hpa(Struct, frozen=True):
    ref: ResourceRef
    obj: Mapping[str, Any]
    live: bool  # found only in the live state

    @property
    def low(self) -> int | None:
        return _int(_get(self.obj, "spec", "minReplicas"))

    @property
    def high(self) -> int | None:
        return _int(_get(self.obj, "spec", "maxReplicas"))


def _hpas(given: ImpactInput) -> dict[Identity, _Hpa]:
    """Every HPA by the identity of the workload it scales: the release's, then live ones."""
    out: dict[Identity, _Hpa] = {}

    def add(ref: ResourceRef, obj: Mapping[str, Any], live: bool) -> None:
        target = _get(obj, "spec", "scaleTargetRef")
        if not isinstance(target, dict) or not isinstance(target.get("name"), str):
            return
        api = str(target.get("apiVersion") or "")
        group = api.split("/")[0] if "/" in api else ""
        out.setdefault((group, str(target.get("kind", "")), ref.namespace, target["name"]), _Hpa(ref, obj, live))

    for ref, obj in given.desired.values():
        if _key(ref) == _HPA:
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
    declared = _int(_get(obj, "spec", "replicas"))
    live_replicas = _int(_get(live, "spec", "replicas"))
    counts: list[tuple[str, int]] = []
    replicas: int | None = None
    if _key(ref) == ("apps", "DaemonSet"):
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
    before, after = _int(_get(change.before, "spec", "replicas")), _int(_get(change.after, "spec", "replicas"))
    counts = (("replicas", after),) if after is not None else ()
    return Impact(ImpactKind.NO_RESTART, ref, (), counts, NoRestart(replicas_before=before, replicas_after=after))


# -- config consumers -------------------------------------------------------------------------------

def _pod_spec(ref: ResourceRef, obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    spec = _get(obj, "spec", "template", "spec")
    return spec if isinstance(spec, dict) else None


def _list(value: Any) -> list[Mapping[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def consumers(pod: Mapping[str, Any]) -> dict[tuple[str, str], list[Read]]:
    """The ConfigMaps and Secrets a pod spec reads, by (kind, name), and how."""
    out: dict[tuple[str, str], list[Read]] = {}
    containers = _list(pod.get("initContainers")) + _list(pod.get("containers"))
    for container in containers:
        cname = str(container.get("name", ""))
        for env in _list(container.get("env")):
            value_from = env.get("valueFrom")
            if not isinstance(value_from, dict):
                continue  # a literal value (most of them)
            for key, kind in (("configMapKeyRef", "ConfigMap"), ("secretKeyRef", "Secret")):
                source = _get(value_from, key, "name")
                if isinstance(source, str):
                    out.setdefault((kind, source), []).append(Read(container=cname, how=Reads.ENV, name=str(env.get("name"))))
        for env_from in _list(container.get("envFrom")):
            for key, kind in (("configMapRef", "ConfigMap"), ("secretRef", "Secret")):
                source = _get(env_from, key, "name")
                if isinstance(source, str):
                    out.setdefault((kind, source), []).append(Read(container=cname, how=Reads.ENV_FROM))
    volumes: dict[str, list[tuple[str, str, Reads]]] = {}
    for volume in _list(pod.get("volumes")):
        name = str(volume.get("name", ""))
        found = []
        if isinstance(_get(volume, "configMap", "name"), str):
            found.append(("ConfigMap", volume["configMap"]["name"], Reads.VOLUME))
        if isinstance(_get(volume, "secret", "secretName"), str):
            found.append(("Secret", volume["secret"]["secretName"], Reads.VOLUME))
        for source in _list(_get(volume, "projected", "sources")):
            if isinstance(_get(source, "configMap", "name"), str):
                found.append(("ConfigMap", source["configMap"]["name"], Reads.PROJECTED))
            if isinstance(_get(source, "secret", "name"), str):
                found.append(("Secret", source["secret"]["name"], Reads.PROJECTED))
        if found:
            volumes[name] = found
    for container in containers:
        cname = str(container.get("name", ""))
        for mount in _list(container.get("volumeMounts")):
            for kind, source, mounted in volumes.get(str(mount.get("name", "")), ()):
                sub = mount.get("subPath") or mount.get("subPathExpr")
                out.setdefault((kind, source), []).append(
                    Read(container=cname, how=Reads.SUB_PATH if sub else mounted, name=str(mount.get("mountPath", ""))))
    return out


def _config_data_changed(change: ResourceChange) -> bool:
    return change.action is Action.UPDATE and _key(change.resource) in _CONFIG and any(
        not f.equivalent and f.path.startswith(_CONFIG_DATA) for f in change.fields)


def _only_regenerated(change: ResourceChange, under: tuple[str, ...]) -> bool:
    """Every real field change under these paths is a value the chart regenerates on every
    render (core/regenerated.py), and there is one: no change the inputs made drives it."""
    real = [f for f in change.fields
            if not f.equivalent and any(f.path == p or f.path.startswith(p + "/") for p in under)]
    return bool(real) and all(f.regenerated for f in real)


# -- traffic ----------------------------------------------------------------------------------------

_POD_KINDS = frozenset(kind for _, kind in _POD_OWNERS) | {"Pod"}  # a cheap first test, before the group


def _pod_labels(ref: ResourceRef, obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The labels of the pods an object makes (None: it makes none)."""
    if ref.kind not in _POD_KINDS:
        return None
    if _key(ref) in _POD_OWNERS:
        labels = _get(obj, "spec", "template", "metadata", "labels")
    elif _key(ref) == ("", "Pod"):
        labels = _get(obj, "metadata", "labels")
    else:
        return None
    return labels if isinstance(labels, dict) else {}


class _LabelIndex:
    """Which pod-owning objects carry a label: a selector matches the intersection of its pairs."""

    def __init__(self, objects: Iterable[tuple[ResourceRef, Mapping[str, Any]]]) -> None:
        self.by_pair: dict[tuple[str, str], set[Identity]] = {}
        self.refs: dict[Identity, ResourceRef] = {}
        for ref, obj in objects:
            labels = _pod_labels(ref, obj)
            if labels is None:
                continue
            self.refs[ref.identity] = ref
            for key, value in labels.items():
                self.by_pair.setdefault((str(key), str(value)), set()).add(ref.identity)

    def matching(self, selector: Mapping[str, Any]) -> set[Identity]:
        found: set[Identity] | None = None
        for pair in sorted(selector.items(), key=lambda kv: len(self.by_pair.get((str(kv[0]), str(kv[1])), ()))):
            hits = self.by_pair.get((str(pair[0]), str(pair[1])), set())
            found = set(hits) if found is None else found & hits
            if not found:
                return set()
        return found or set()


def _selector(obj: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    if _get(obj, "spec", "type") == "ExternalName":
        return None
    selector = _get(obj, "spec", "selector")
    return selector if isinstance(selector, dict) and selector else None


def _ports(obj: Mapping[str, Any] | None) -> dict[tuple[str, str], Mapping[str, Any]]:
    return {(str(p.get("port")), str(p.get("protocol") or "TCP")): p for p in _list(_get(obj, "spec", "ports"))}


def _routes(ref: ResourceRef, obj: Mapping[str, Any] | None) -> dict[str, Route]:
    """The routes an Ingress or HTTPRoute serves, by a stable key."""
    out: dict[str, Route] = {}
    if obj is None:
        return out
    if ref.kind == "Ingress":
        if isinstance(_get(obj, "spec", "defaultBackend") or _get(obj, "spec", "backend"), dict):
            out["default"] = Route(route=RouteKind.DEFAULT_BACKEND)
        for rule in _list(_get(obj, "spec", "rules")):
            host = str(rule.get("host") or "")
            paths = _list(_get(rule, "http", "paths")) or [{}]
            for entry in paths:
                where = str(entry.get("path") or "/")
                out[f"{host} {where}"] = Route(route=RouteKind.INGRESS_PATH, host=host, path=where)
        return out
    hosts = [str(h) for h in (_get(obj, "spec", "hostnames") or []) if isinstance(h, str)]
    for host in hosts:
        out[f"host {host}"] = Route(route=RouteKind.HOSTNAME, host=host)
    for rule in _list(_get(obj, "spec", "rules")):
        for match in _list(rule.get("matches")) or [{}]:
            path = str(_get(match, "path", "value") or "/")
            method = match["method"] if isinstance(match.get("method"), str) else ""
            names = tuple(sorted(str(h.get("name")) for h in _list(match.get("headers"))))
            headers = ",".join(names)
            key = f"rule {method + ' ' if method else ''}{path}" + (f" [{headers}]" if headers else "")
            out[key] = Route(route=RouteKind.RULE, path=path, method=method, headers=names)
    return out


def _routes_kind(ref: ResourceRef) -> bool:
    return (ref.kind == "Ingress" and ref.group in ("networking.k8s.io", "extensions")) or \
        (ref.kind == "HTTPRoute" and ref.group == "gateway.networking.k8s.io")


# -- the rules ----------------------------------------------------------------------------------------

def find_impact(changes: Iterable[ResourceChange], given: ImpactInput) -> tuple[list[Impact], list[Warning]]:
    """The impacts of a plan's changes, in a fixed order (rollouts, config, replicas, traffic,
    data; each in the plan's order), and the failures they predict."""
    changes = list(changes)
    found = _Found()
    if given.action is not HelmAction.UNINSTALL and given.action is not HelmAction.INSTALL:
        _workloads(changes, given, found)
        _traffic(changes, given, found)
    _data(changes, given, found)
    order = {kind: n for n, kind in enumerate(ImpactKind)}
    # Within a kind, the plan's order; an object the plan does not change (a workload whose
    # replicas an HPA fights over, a Service) keeps the manifest's order, after them.
    position = {c.resource.identity: n for n, c in enumerate(changes)}
    found.impacts.sort(key=lambda item: (order[item.kind], position.get(item.resource.identity, len(changes))))
    return found.impacts, found.warnings


def _workloads(changes: list[ResourceChange], given: ImpactInput, found: _Found) -> None:
    hpas = _hpas(given)
    rolling = {c.resource.identity for c in changes
               if c.action is Action.UPDATE and _key(c.resource) in WORKLOADS and template_changed(c)}
    # Who reads each ConfigMap and Secret that changes: only those are indexed.
    wanted = {(c.resource.kind, c.resource.namespace, c.resource.name) for c in changes if _config_data_changed(c)}
    readers: dict[tuple[str, str, str], list[tuple[ResourceRef, list[Read]]]] = {}
    if wanted:
        for ref, obj in given.desired.values():
            pod = _pod_spec(ref, obj) if ref.kind in _WORKLOAD_KINDS and _key(ref) in WORKLOADS else None
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
        if change.action is not Action.UPDATE or _key(change.resource) not in WORKLOADS or immutable_fields(change):
            continue  # an update the API server refuses restarts nothing (the immutable warning says so)
        hpa = hpas.get(change.resource.identity)
        if change.resource.identity in rolling:
            found.impacts.append(_rollout(change, given, hpa, covers.get(change.resource.identity, [])))
        else:
            found.impacts.append(_no_restart(change))
    for ref, obj in given.desired.values() if hpas else ():
        hpa = hpas.get(ref.identity)
        declared = _int(_get(obj, "spec", "replicas"))
        if hpa is None or declared is None or ref.identity not in given.previous:
            continue
        found.impacts.append(_replicas_reset(ref, declared, hpa, given))


def _replicas_reset(ref: ResourceRef, declared: int, hpa: _Hpa, given: ImpactInput) -> Impact:
    live = given.live_of(ref) if given.live_of else None
    live_replicas = _int(_get(live, "spec", "replicas"))
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


def _traffic(changes: list[ResourceChange], given: ImpactInput, found: _Found) -> None:
    # The label pairs of pods that come, go or change: a Service whose selector is unchanged
    # matches other pods only if one of its pairs is among them.
    moved: set[tuple[str, str]] = set()
    for c in changes:
        before = _pod_labels(c.resource, c.before or {}) if c.before is not None else None
        after = _pod_labels(c.resource, c.after or {}) if c.after is not None else None
        if before != after:
            moved.update((str(k), str(v)) for labels in (before, after) if labels for k, v in labels.items())
    before_index: _LabelIndex | None = None
    after_index: _LabelIndex | None = None
    for ident, (ref, obj) in given.desired.items():
        if ref.kind != "Service" or ref.group != "" or ident not in given.previous:
            continue
        old = given.previous[ident][1]
        was, now = _selector(old), _selector(obj)
        if was is None or (was == now and not any((str(k), str(v)) in moved for k, v in was.items())):
            continue
        before_index = before_index or _LabelIndex(given.previous.values())
        after_index = after_index or _LabelIndex(given.desired.values())
        matched_before = before_index.matching(was)
        if not matched_before:
            continue  # its pods are not the release's: nothing to judge them by
        matched_after = after_index.matching(now) if now is not None else set()
        old_refs = [before_index.refs[i] for i in sorted(matched_before)]
        if not matched_after:
            found.impacts.append(Impact(
                ImpactKind.TRAFFIC_UNMATCHED, ref, tuple(old_refs),
                (("workloads_before", len(matched_before)), ("workloads_after", 0)),
                TrafficUnmatched(matched_before=tuple(old_refs))))
        elif matched_after != matched_before:
            new_refs = [after_index.refs[i] for i in sorted(matched_after)]
            found.impacts.append(Impact(
                ImpactKind.TRAFFIC_MOVED, ref, tuple(dict.fromkeys([*old_refs, *new_refs])),
                (("workloads_before", len(matched_before)), ("workloads_after", len(matched_after))),
                TrafficMoved(matched_before=tuple(old_refs), matched_after=tuple(new_refs))))
    for change in changes:
        ref = change.resource
        if _key(ref) == ("", "Service") and change.action is Action.UPDATE:
            _port_impact(change, found)
        elif _routes_kind(ref) and change.action in (Action.UPDATE, Action.DELETE):
            before, after = _routes(ref, change.before), _routes(ref, change.after)
            if change.action is Action.UPDATE and ref.kind == "HTTPRoute" and not any(k.startswith("host ") for k in after):
                before = {k: v for k, v in before.items() if not k.startswith("host ")}  # no hostnames: every host
            gone = [route for key, route in before.items() if key not in after]
            if gone:
                found.impacts.append(Impact(
                    ImpactKind.TRAFFIC_ROUTE, ref, (), (("routes", len(gone)),),
                    TrafficRoute(deleted=change.action is Action.DELETE, routes=tuple(gone))))


def _port_impact(change: ResourceChange, found: _Found) -> None:
    ref = change.resource
    before, after = _ports(change.before), _ports(change.after)
    ports = []
    for key, port in before.items():
        new = after.get(key)
        number = _given(port.get("port"))
        number = str(number) if number is None else number
        if new is None:
            ports.append(Port(port=number, protocol=key[1], rule=PortRule.REMOVED))
        elif (port.get("targetPort") or port.get("port")) != (new.get("targetPort") or new.get("port")):
            ports.append(Port(port=number, protocol=key[1], rule=PortRule.TARGET_PORT,
                              target_before=_given(port.get("targetPort") or port.get("port")),
                              target_after=_given(new.get("targetPort") or new.get("port"))))
    if ports:
        found.impacts.append(Impact(ImpactKind.TRAFFIC_PORT, ref, (), (("ports", len(ports)),),
                                    TrafficPort(ports=tuple(ports))))


def _data(changes: list[ResourceChange], given: ImpactInput, found: _Found) -> None:
    for change in changes:
        ref = change.resource
        if change.action is Action.DELETE and _key(ref) == ("apiextensions.k8s.io", "CustomResourceDefinition"):
            kind = _get(change.before, "spec", "names", "kind")
            group = _get(change.before, "spec", "group")
            said = isinstance(kind, str) and isinstance(group, str)
            found.impacts.append(Impact(ImpactKind.DATA_CRD, ref, facts=DataCrd(
                resource_kind=kind if said else None, group=group if said else None)))
        elif change.action is Action.UPDATE and _key(ref) == ("", "PersistentVolumeClaim"):
            _pvc_size(change, given, found)
        elif change.action is Action.DELETE and _key(ref) == ("apps", "StatefulSet"):
            _statefulset_claims(change, given, found)


def _pvc_size(change: ResourceChange, given: ImpactInput, found: _Found) -> None:
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
    name = _get(change.after, "spec", "storageClassName") or _get(live, "spec", "storageClassName")
    classes = _storage_classes(given)
    if not isinstance(name, str):
        name = next((n for n, obj in classes.items() if _get(obj, "metadata", "annotations", _DEFAULT_CLASS) == "true"), None)
    klass = classes.get(name) if isinstance(name, str) else None
    which = name if isinstance(name, str) else None
    if klass is None:
        expansion = Expansion.NOT_READ
    elif _get(klass, "allowVolumeExpansion") is True:
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
            out[str(_get(obj, "metadata", "name"))] = obj
    for ref, obj in given.desired.values():  # the release's own wins: it is what will be there
        if _key(ref) == ("storage.k8s.io", "StorageClass"):
            out[ref.name] = obj
    return out


def _statefulset_claims(change: ResourceChange, given: ImpactInput, found: _Found) -> None:
    ref, obj = change.resource, change.before or {}
    templates = [str(_get(t, "metadata", "name")) for t in _list(_get(obj, "spec", "volumeClaimTemplates"))
                 if isinstance(_get(t, "metadata", "name"), str)]
    if not templates:
        return
    live = given.live_of(ref) if given.live_of else None
    replicas = _int(_get(live, "spec", "replicas"))
    replicas = replicas if replicas is not None else _int(_get(obj, "spec", "replicas"))
    replicas = 1 if replicas is None else replicas
    count = replicas * len(templates)  # named TEMPLATE-STATEFULSET-ORDINAL
    policy = _get(obj, "spec", "persistentVolumeClaimRetentionPolicy", "whenDeleted")
    found.impacts.append(Impact(ImpactKind.DATA_PVC_LEFT, ref, (), (("claims", count),), PvcLeft(
        templates=tuple(templates), replicas=replicas, claims_deleted=policy == "Delete")))


__all__ = ["ImpactInput", "consumers", "find_impact", "template_changed"]
