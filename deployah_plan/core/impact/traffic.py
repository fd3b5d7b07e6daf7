"""Traffic: Services whose selector, ports or routes change what they serve.

A Service's selector is judged twice: against the pods of the release's workloads after the
rollout (which workloads it matches before and after), and against the pods that run while
Helm applies it. Helm applies a release's objects in its install order (kinds.py), Services
before DaemonSets, Deployments and StatefulSets, so a new selector meets the pods of the
previous templates (the live ones, with a cluster): when it matched some of them and matches
none, the Service has no endpoints until a new pod it matches is ready.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from deployah_plan.core.impact.common import (
    POD_OWNERS, Found, ImpactInput, LiveOf, dicts, dig, group_kind, int_or_string,
)
from deployah_plan.impact_facts import (
    Port, PortRule, Route, RouteKind, SelectorLabel, TrafficGap, TrafficMoved, TrafficPort, TrafficRoute,
    TrafficUnmatched,
)
from deployah_plan.impacts import ImpactKind
from deployah_plan.model import Action, Identity, Impact, ResourceChange, ResourceRef

_POD_KINDS = frozenset(kind for _, kind in POD_OWNERS) | {"Pod"}  # a cheap first test, before the group


def _pod_labels(ref: ResourceRef, obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The labels of the pods an object makes (None: it makes none)."""
    if ref.kind not in _POD_KINDS:
        return None
    if group_kind(ref) in POD_OWNERS:
        labels = dig(obj, "spec", "template", "metadata", "labels")
    elif group_kind(ref) == ("", "Pod"):
        labels = dig(obj, "metadata", "labels")
    else:
        return None
    return labels if isinstance(labels, dict) else {}


class _LabelIndex:
    """Which pod-owning objects carry a label: a selector matches the intersection of its pairs."""

    def __init__(self, objects: Iterable[tuple[ResourceRef, Mapping[str, Any]]]) -> None:
        self.by_pair: dict[tuple[str, str], set[Identity]] = {}
        self.refs: dict[Identity, ResourceRef] = {}
        self.labels: dict[Identity, Mapping[str, Any]] = {}
        for ref, obj in objects:
            labels = _pod_labels(ref, obj)
            if labels is None:
                continue
            self.refs[ref.identity] = ref
            self.labels[ref.identity] = labels
            for key, value in labels.items():
                self.by_pair.setdefault((str(key), str(value)), set()).add(ref.identity)

    def matching(self, selector: Mapping[str, Any], namespace: str) -> set[Identity]:
        """What a Service's selector matches: pods of its own namespace only."""
        found: set[Identity] | None = None
        for pair in sorted(selector.items(), key=lambda kv: len(self.by_pair.get((str(kv[0]), str(kv[1])), ()))):
            hits = self.by_pair.get((str(pair[0]), str(pair[1])), set())
            found = set(hits) if found is None else found & hits
            if not found:
                return set()
        return {i for i in found or () if self.refs[i].namespace == namespace}


def _running(previous: Iterable[tuple[ResourceRef, Mapping[str, Any]]], live_of: LiveOf | None) -> tuple[
        list[tuple[ResourceRef, Mapping[str, Any]]], bool]:
    """The release's pod owners whose pods run before the upgrade, as they run: the live object
    when it was read, else the previous release's; none at 0 replicas (an HPA does not scale
    from 0). And whether any was read live."""
    out: list[tuple[ResourceRef, Mapping[str, Any]]] = []
    live = False
    for ref, obj in previous:
        if ref.kind not in _POD_KINDS:
            continue
        seen = live_of(ref) if live_of is not None else None
        if seen is not None:
            obj, live = seen, True
        if dig(obj, "spec", "replicas") == 0:
            continue
        out.append((ref, obj))
    return out, live


def _gap_labels(selector: Mapping[str, Any], running: list[Mapping[str, Any]]) -> tuple[SelectorLabel, ...]:
    """The pairs of a new selector the running pods do not carry, with the value the first of
    them carries."""
    out = []
    for key, value in selector.items():
        carried = [labels.get(key) for labels in running if str(labels.get(key)) != str(value) or key not in labels]
        if carried:
            first = carried[0]
            out.append(SelectorLabel(key=str(key), running=None if first is None else str(first), selected=str(value)))
    return tuple(out)


def _selector(obj: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    if dig(obj, "spec", "type") == "ExternalName":
        return None
    selector = dig(obj, "spec", "selector")
    return selector if isinstance(selector, dict) and selector else None


def _ports(obj: Mapping[str, Any] | None) -> dict[tuple[str, str], Mapping[str, Any]]:
    return {(str(p.get("port")), str(p.get("protocol") or "TCP")): p for p in dicts(dig(obj, "spec", "ports"))}


def _routes(ref: ResourceRef, obj: Mapping[str, Any] | None) -> dict[str, Route]:
    """The routes an Ingress or HTTPRoute serves, by a stable key."""
    out: dict[str, Route] = {}
    if obj is None:
        return out
    if ref.kind == "Ingress":
        if isinstance(dig(obj, "spec", "defaultBackend") or dig(obj, "spec", "backend"), dict):
            out["default"] = Route(route=RouteKind.DEFAULT_BACKEND)
        for rule in dicts(dig(obj, "spec", "rules")):
            host = str(rule.get("host") or "")
            paths = dicts(dig(rule, "http", "paths")) or [{}]
            for entry in paths:
                where = str(entry.get("path") or "/")
                out[f"{host} {where}"] = Route(route=RouteKind.INGRESS_PATH, host=host, path=where)
        return out
    hosts = [str(h) for h in (dig(obj, "spec", "hostnames") or []) if isinstance(h, str)]
    # No hostnames: every host the Gateway's listener takes (the empty host, key "host ").
    for host in hosts or [""]:
        out[f"host {host}"] = Route(route=RouteKind.HOSTNAME, host=host)
    # No rules: the Gateway API defaults them to one rule matching PathPrefix "/".
    for rule in dicts(dig(obj, "spec", "rules")) or [{}]:
        for match in dicts(rule.get("matches")) or [{}]:
            path = str(dig(match, "path", "value") or "/")
            method = match["method"] if isinstance(match.get("method"), str) else ""
            names = tuple(sorted(str(h.get("name")) for h in dicts(match.get("headers"))))
            headers = ",".join(names)
            key = f"rule {method + ' ' if method else ''}{path}" + (f" [{headers}]" if headers else "")
            out[key] = Route(route=RouteKind.RULE, path=path, method=method, headers=names)
    return out


def _routes_kind(ref: ResourceRef) -> bool:
    return (ref.kind == "Ingress" and ref.group in ("networking.k8s.io", "extensions")) or \
        (ref.kind == "HTTPRoute" and ref.group == "gateway.networking.k8s.io")


def traffic(changes: list[ResourceChange], given: ImpactInput, found: Found) -> None:
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
    running_index: _LabelIndex | None = None
    live = False
    # Workloads whose pods wait for a delete or a resume (found by the rollout rules, before).
    waits = {i.resource.identity for i in found.impacts if i.kind is ImpactKind.DEFERRED_RESTART}
    for ident, (ref, obj) in given.desired.items():
        if ref.kind != "Service" or ref.group != "" or ident not in given.previous:
            continue
        old = given.previous[ident][1]
        was, now = _selector(old), _selector(obj)
        if was is None or (was == now and not any((str(k), str(v)) in moved for k, v in was.items())):
            continue
        before_index = before_index or _LabelIndex(given.previous.values())
        after_index = after_index or _LabelIndex(given.desired.values())
        matched_before = before_index.matching(was, ref.namespace)
        if not matched_before:
            continue  # its pods are not the release's: nothing to judge them by
        matched_after = after_index.matching(now, ref.namespace) if now is not None else set()
        old_refs = [before_index.refs[i] for i in sorted(matched_before)]
        if not matched_after:
            found.impacts.append(Impact(
                ImpactKind.TRAFFIC_UNMATCHED, ref, tuple(old_refs),
                (("workloads_before", len(matched_before)), ("workloads_after", 0)),
                TrafficUnmatched(matched_before=tuple(old_refs))))
            continue
        new_refs = [after_index.refs[i] for i in sorted(matched_after)]
        if matched_after != matched_before:
            found.impacts.append(Impact(
                ImpactKind.TRAFFIC_MOVED, ref, tuple(dict.fromkeys([*old_refs, *new_refs])),
                (("workloads_before", len(matched_before)), ("workloads_after", len(matched_after))),
                TrafficMoved(matched_before=tuple(old_refs), matched_after=tuple(new_refs))))
        if now is None or now == was:
            continue  # the same selector keeps the running pods until they are replaced
        if running_index is None:
            running, live = _running(given.previous.values(), given.live_of)
            running_index = _LabelIndex(running)
        served = running_index.matching(was, ref.namespace)
        if not served or running_index.matching(now, ref.namespace):
            continue  # it served no running pod, or the new selector keeps some
        stopped = [running_index.refs[i] for i in sorted(served)]
        found.impacts.append(Impact(
            ImpactKind.TRAFFIC_GAP, ref, tuple(dict.fromkeys([*stopped, *new_refs])),
            (("workloads_running", len(stopped)), ("workloads_after", len(new_refs))),
            TrafficGap(running=tuple(stopped), labels=_gap_labels(now, [running_index.labels[i] for i in sorted(served)]),
                       serving=tuple(new_refs), waiting=tuple(r for r in new_refs if r.identity in waits), live=live)))
    for change in changes:
        ref = change.resource
        if group_kind(ref) == ("", "Service") and change.action is Action.UPDATE:
            _port_impact(change, found)
        elif _routes_kind(ref) and change.action in (Action.UPDATE, Action.DELETE):
            before, after = _routes(ref, change.before), _routes(ref, change.after)
            if ref.kind == "HTTPRoute" and "host " in after:  # every host now: no hostname is lost
                before = {k: v for k, v in before.items() if not k.startswith("host ")}
            elif ref.kind == "HTTPRoute" and change.action is Action.DELETE:
                before.pop("host ", None)  # every host it served goes with its rules, which say what
            gone = [route for key, route in before.items() if key not in after]
            if gone:
                found.impacts.append(Impact(
                    ImpactKind.TRAFFIC_ROUTE, ref, (), (("routes", len(gone)),),
                    TrafficRoute(deleted=change.action is Action.DELETE, routes=tuple(gone))))


def _port_impact(change: ResourceChange, found: Found) -> None:
    ref = change.resource
    before, after = _ports(change.before), _ports(change.after)
    ports = []
    for key, port in before.items():
        new = after.get(key)
        number = int_or_string(port.get("port"))
        number = str(number) if number is None else number
        if new is None:
            ports.append(Port(port=number, protocol=key[1], rule=PortRule.REMOVED))
        elif (port.get("targetPort") or port.get("port")) != (new.get("targetPort") or new.get("port")):
            ports.append(Port(port=number, protocol=key[1], rule=PortRule.TARGET_PORT,
                              target_before=int_or_string(port.get("targetPort") or port.get("port")),
                              target_after=int_or_string(new.get("targetPort") or new.get("port"))))
    if ports:
        found.impacts.append(Impact(ImpactKind.TRAFFIC_PORT, ref, (), (("ports", len(ports)),),
                                    TrafficPort(ports=tuple(ports))))
