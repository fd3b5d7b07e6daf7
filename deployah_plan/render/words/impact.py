"""What the deploy does to running things, in words: each impact's line and the lines under it,
from its facts (deployah_plan/impact_facts.py).

Every writer says an impact with `message` and `details`, and the JSON plan's `message` and
`details` are the same text, so a kind is worded here and nowhere else. Names and values from a
manifest are left as they are, for each writer to escape as its medium needs.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from deployah_plan.impact_facts import (
    ConfigUnreached, Consumer, DataCrd, DeferredRestart, Expansion, NoRestart, Port, PortRule, PvcExpand, PvcLeft,
    PvcShrink, Read, Reads, ReplicasReset, ResetRule, Rollout, Route, RouteKind, SelectorLabel, Strategy, TrafficGap,
    TrafficMoved, TrafficPort, TrafficRoute, TrafficUnmatched,
)
from deployah_plan.impacts import ImpactKind
from deployah_plan.model import Impact, ResourceRef
from deployah_plan.render.words import Wording, plural
from deployah_plan.render.words.drift import SSA_NOTE

_SHOWN = 3  # names listed in one line before "and N more"
REGENERATED = "values the chart regenerates on every render"  # core/regenerated.py

_Line = Callable[[Any, Impact], str]
_Lines = Callable[[Any, Impact], tuple[str, ...]]
_SAYS: dict[ImpactKind, _Line] = {}
_UNDER: dict[ImpactKind, _Lines] = {}


_says = Wording(_SAYS)  # @_says(KIND, ...): the function that words an impact's line
_under = Wording(_UNDER)  # @_under(KIND, ...): the one that words the lines under it


def message(impact: Impact) -> str:
    """The impact in one line: worded from its facts, or as written when it holds none."""
    if impact.facts is None:
        return impact.said
    return _SAYS[impact.kind](impact.facts, impact)


def details(impact: Impact) -> tuple[str, ...]:
    """The lines under it: what each consumer sees, the strategy."""
    if impact.facts is None:
        return impact.said_details
    under = _UNDER.get(impact.kind)
    return under(impact.facts, impact) if under else ()


def worded() -> frozenset[ImpactKind]:
    """The kinds this module words (a test holds it to the table)."""
    return frozenset(_SAYS)


def _names(refs: Iterable[ResourceRef]) -> str:
    refs = list(refs)
    shown = ", ".join(str(r) for r in refs[:_SHOWN])
    return shown + (f" and {len(refs) - _SHOWN} more" if len(refs) > _SHOWN else "")


def _hpa_range(low: int | None, high: int | None) -> str:
    return f"{1 if low is None else low} to {high}" if high is not None else ""


# -- rollouts ---------------------------------------------------------------------------------------

_ON_DELETE = "OnDelete: no pod restarts until it is deleted; each pod deleted comes back with the new template"


def _daemonset(impact: Impact) -> bool:
    return impact.resource.group == "apps" and impact.resource.kind == "DaemonSet"


def _strategy(facts: Rollout, impact: Impact) -> str:
    if facts.strategy is Strategy.ON_DELETE:
        return _ON_DELETE
    if _daemonset(impact):
        return (f"RollingUpdate, maxUnavailable {facts.max_unavailable}, maxSurge {facts.max_surge}, "
                "one pod per node")
    if facts.replicas == 0 and facts.hpa is None and not facts.paused:
        return "no pod runs at 0 replicas: the pods it is scaled up to start with the new template"
    if impact.resource.kind == "Deployment":
        if facts.paused:
            return "paused: nothing rolls until the Deployment is resumed"
        if facts.strategy is Strategy.RECREATE:
            return "Recreate: every old pod stops before the new ones start (no pod serves in between)"
        text = f"RollingUpdate, maxSurge {facts.max_surge}, maxUnavailable {facts.max_unavailable}"
        if facts.surge_pods is not None and facts.unavailable_pods is not None:
            text += (f" (at most {facts.surge_pods} extra and {facts.unavailable_pods} unavailable of "
                     f"{facts.replicas} at a time)")
        return text
    pace = "one pod at a time" if facts.max_unavailable is None else f"at most {facts.max_unavailable} unavailable at a time"
    if facts.partition:
        where = f"only pods with an ordinal of {facts.partition} or more restart"
        if facts.replicas is not None:
            where += f" ({facts.pods} of {facts.replicas})"
        return f"RollingUpdate with partition {facts.partition}: {where}, highest ordinal first, {pace}"
    if facts.only_pod_down:
        return ("RollingUpdate, no surge: the pod is deleted, then created with the new template "
                "(0 available of 1 until it is ready)")
    return f"RollingUpdate, highest ordinal first, {pace}"


def _replicas(facts: Rollout, impact: Impact) -> str:
    if _daemonset(impact):
        return "one pod per node"
    text = plural(facts.replicas, "replica") if facts.replicas is not None else ""
    if facts.hpa is not None:
        scale = _hpa_range(facts.hpa_min, facts.hpa_max)
        scaling = f"scaled by {facts.hpa}" + (f" ({scale})" if scale else "")
        return ", ".join(x for x in (text, scaling) if x) + \
            (f": {facts.live_replicas} live" if facts.live_replicas is not None else "")
    if facts.live_replicas is not None and facts.live_replicas != facts.chart_replicas:
        text += f", {facts.live_replicas} live"
    return text


@_says(ImpactKind.RESTART, ImpactKind.DEFERRED_RESTART)
def rollout(facts: Rollout, impact: Impact) -> str:
    replicas = _replicas(facts, impact)
    if isinstance(facts, DeferredRestart):
        return f"{impact.resource}: pod template changes, but no pod restarts now ({replicas})"
    pods = f"{plural(facts.pods, 'pod')} restart{'s' if facts.pods == 1 else ''}" if facts.pods is not None \
        else "its pods restart"
    same = facts.pods is not None and replicas == plural(facts.pods, "replica")
    if facts.only_pod_down:
        pods = "its only pod goes down while it restarts"
        same = replicas == plural(1, "replica")
    counted = "" if same else f" ({replicas})"
    if facts.regenerated:
        return (f"{impact.resource}: pod template changes only by {REGENERATED}: {pods}{counted} if the upgrade "
                f"makes them anew too; where the chart keeps the stored values (lookup), nothing restarts")
    return f"{impact.resource}: pod template changes: {pods}{counted}"


@_under(ImpactKind.RESTART, ImpactKind.DEFERRED_RESTART)
def rollout_details(facts: Rollout, impact: Impact) -> tuple[str, ...]:
    out = [_strategy(facts, impact)]
    if facts.checksums:
        out.append(f"its checksum annotation changed ({', '.join(facts.checksums)}): "
                   "the rollout is how the new config reaches the pods")
    if facts.regenerated_checksums:
        out.append(f"its checksum annotation changes only by {REGENERATED} "
                   f"({', '.join(facts.regenerated_checksums)}): no config the values changed")
    if facts.other_checksums:
        out.append(_moved_otherwise(facts))
    out += [f"it reads {ref}, whose data changes: the new pods see it" for ref in facts.reads]
    out += [f"it reads {ref}, whose data changes only by {REGENERATED}: the new pods see them if they change"
            for ref in facts.regenerated_reads]
    return tuple(out)


def _moved_otherwise(facts: Rollout) -> str:
    """Checksum annotations that changed though no data they hash did: what moved them."""
    said = f"its checksum annotation changed ({', '.join(facts.other_checksums)})"
    why = []
    if facts.hashed_metadata:
        why.append(f"only the metadata of {_names(facts.hashed_metadata)} changes (labels such as the chart's "
                   "version, hashed with the data)")
    if facts.hashed_unread:
        why.append(f"only keys its pods do not read change in {_names(facts.hashed_unread)}")
    if why:
        return f"{said} while the data its pods read of what it hashes did not: {'; '.join(why)}"
    if facts.hashed:
        return (f"{said}, but nothing it hashes changes ({_names(facts.hashed)}): what moved it (a value or a file "
                "of the chart) is not in the release's objects")
    return (f"{said}, and it reads no ConfigMap or Secret its chart holds: what moved it (a value or a file of the "
            "chart) is not in the release's objects")


@_says(ImpactKind.NO_RESTART)
def no_restart(facts: NoRestart, impact: Impact) -> str:
    before, after = facts.replicas_before, facts.replicas_after
    scale = ""
    if before != after and after is not None and before is not None:
        scale = f"; it scales from {before} to {after} replicas (pods are added or removed, none replaced)"
    return f"{impact.resource}: changes outside the pod template only: no pod restarts{scale}"


# -- config consumers -------------------------------------------------------------------------------

_SEES = {
    "env": "environment variables never change in a running pod",
    "subPath": "a subPath mount never receives updates",
    "volume": "the mounted files update after the kubelet's next sync (about a minute); the process must re-read them",
}
_GROUP = {Reads.ENV: "env", Reads.ENV_FROM: "env", Reads.SUB_PATH: "subPath",
          Reads.VOLUME: "volume", Reads.PROJECTED: "volume"}


def _where(read: Read) -> str:
    if read.how is Reads.ENV:
        return f"{read.container}: env {read.name}"
    if read.how is Reads.ENV_FROM:
        return f"{read.container}: envFrom"
    return f"{read.container}: {read.name}"


def _never(consumer: Consumer) -> bool:
    return any(_GROUP[r.how] != "volume" for r in consumer.reads)


@_says(ImpactKind.CONFIG_UNREACHED)
def config_unreached(facts: ConfigUnreached, impact: Impact) -> str:
    never = any(_never(c) for c in facts.consumers)
    one = len(facts.consumers) == 1
    changes = (f"data changes only by {REGENERATED} (where the chart keeps the stored values, lookup, nothing "
               "changes); if they change, no pod template that reads it does: " if facts.regenerated
               else "data changes, but no pod template that reads it does: ")
    return (f"{impact.resource}: {changes}"
            f"{_names(c.workload for c in facts.consumers)} "
            + (f"keep{'s' if one else ''} the old values until {'its' if one else 'their'} pods restart" if never
               else f"see{'s' if one else ''} it only as mounted files, after the kubelet's sync"))


@_under(ImpactKind.CONFIG_UNREACHED)
def config_unreached_details(facts: ConfigUnreached, impact: Impact) -> tuple[str, ...]:
    out = []
    for consumer in facts.consumers:
        for how in ("env", "subPath", "volume"):
            where = [_where(r) for r in consumer.reads if _GROUP[r.how] == how]
            if where:
                out.append(f"{consumer.workload} ({'; '.join(dict.fromkeys(where))}): {_SEES[how]}")
    return tuple(out)


# -- replicas an HPA scales -------------------------------------------------------------------------

def _scaler(facts: ReplicasReset) -> str:
    scale = _hpa_range(facts.hpa_min, facts.hpa_max)
    about = [x for x in ("live, not in the release" if facts.hpa_live else "", f"{scale} replicas" if scale else "") if x]
    return f"{facts.hpa}" + (f" ({'; '.join(about)})" if about else "")


@_says(ImpactKind.REPLICAS_RESET)
def replicas_reset(facts: ReplicasReset, impact: Impact) -> str:
    ref, declared, live, scaler = impact.resource, facts.chart_replicas, facts.live_replicas, _scaler(facts)
    rule = ResetRule
    if facts.rule is rule.SSA_CONFLICT:
        return (f"{ref}: the chart sets spec.replicas to {declared}, but {scaler} scales it and another "
                f"field manager owns it ({live} live): server-side apply conflicts and the upgrade "
                f"fails; remove replicas from the chart, or pass --force-conflicts to reset it to {declared}")
    if facts.rule is rule.SSA_FORCED:
        return (f"{ref}: the chart sets spec.replicas to {declared}, but {scaler} scales it: "
                f"--force-conflicts resets it from {live} to {declared}")
    if facts.rule is rule.SSA_SAME:
        return (f"{ref}: the chart sets spec.replicas to {declared}, but {scaler} scales it: "
                f"the live count is {declared}, so this deploy changes nothing; once the HPA moves it, "
                "server-side apply conflicts on spec.replicas")
    if facts.rule is rule.SSA_LATER:
        return (f"{ref}: the chart sets spec.replicas to {declared}, but {scaler} scales it: once the HPA "
                "has moved it, its controller owns spec.replicas and server-side apply conflicts: the "
                f"upgrade fails unless --force-conflicts, which resets it to {declared}")
    if live is not None and live != declared:
        jump = f"the count jumps from {live} to {declared}, then the HPA scales it again"
    elif live is not None:
        jump = f"the live count is {declared} now, so this deploy does not move it"
    else:
        jump = f"the count jumps to {declared} from whatever the HPA chose, then the HPA scales it again"
    return f"{ref}: the chart sets spec.replicas to {declared}, but {scaler} scales it: each deploy resets it: {jump}"


@_under(ImpactKind.REPLICAS_RESET)
def replicas_reset_details(facts: ReplicasReset, impact: Impact) -> tuple[str, ...]:
    out = []
    if facts.rule is ResetRule.CLIENT_SIDE:
        out.append("client-side apply patches every declared field that differs live, spec.replicas included")
    else:
        if facts.ssa is not None:
            out.append(SSA_NOTE[facts.ssa].format(managers=", ".join(facts.managers)))
        out.append("server-side apply: a field another manager owns with another value is a conflict")
    out.append("remove spec.replicas from the chart when an HPA scales the workload")
    return tuple(out)


# -- traffic ----------------------------------------------------------------------------------------

@_says(ImpactKind.TRAFFIC_UNMATCHED)
def traffic_unmatched(facts: TrafficUnmatched, impact: Impact) -> str:
    return (f"{impact.resource}: its selector no longer matches the pods of any workload in the release "
            f"(it matched {_names(facts.matched_before)}): traffic to it has no endpoints")


@_says(ImpactKind.TRAFFIC_MOVED)
def traffic_moved(facts: TrafficMoved, impact: Impact) -> str:
    return (f"{impact.resource}: its selector matches other pods: {_names(facts.matched_before)} before, "
            f"{_names(facts.matched_after)} after")


def _label(label: SelectorLabel) -> str:
    carry = f"carry {label.key}={label.running}" if label.running is not None else f"lack {label.key}"
    return f"they {carry}, it selects {label.key}={label.selected}"


@_says(ImpactKind.TRAFFIC_GAP)
def traffic_gap(facts: TrafficGap, impact: Impact) -> str:
    why = "; ".join(_label(x) for x in facts.labels)
    return (f"{impact.resource}: its new selector matches none of the running pods of {_names(facts.running)}"
            f"{f' ({why})' if why else ''}: Helm applies Services before workloads, so it has no endpoints "
            f"until a new pod of {_names(facts.serving)} is ready")


@_under(ImpactKind.TRAFFIC_GAP)
def traffic_gap_details(facts: TrafficGap, impact: Impact) -> tuple[str, ...]:
    pods = "the live pod templates" if facts.live else "the previous release's pod templates"
    out = [f"the running pods: those of {pods}; they keep their labels until they are replaced",
           "during the rollout only the new pods serve it"]
    until = "the Service has no endpoints until" if set(facts.waiting) == set(facts.serving) else "its new pods come when"
    out += [f"{ref} does not replace its pods now (OnDelete, paused or a partition): {until} they are replaced "
            "(its line above says how)" for ref in facts.waiting]
    return tuple(out)


def _port(port: Port) -> str:
    name = f"port {port.port}/{port.protocol}"
    if port.rule is PortRule.REMOVED:
        return f"{name} removed: clients of it lose the connection"
    return (f"{name}: targetPort {port.target_before} -> {port.target_after}: connections go to the new container "
            "port, which pods not yet updated may not listen on")


@_says(ImpactKind.TRAFFIC_PORT)
def traffic_port(facts: TrafficPort, impact: Impact) -> str:
    if len(facts.ports) == 1:
        return f"{impact.resource}: {_port(facts.ports[0])}"
    return f"{impact.resource}: {plural(len(facts.ports), 'port')} change for clients"


@_under(ImpactKind.TRAFFIC_PORT)
def traffic_port_details(facts: TrafficPort, impact: Impact) -> tuple[str, ...]:
    return tuple(_port(p) for p in facts.ports) if len(facts.ports) > 1 else ()


def _route(route: Route) -> str:
    if route.route is RouteKind.DEFAULT_BACKEND:
        return "the default backend"
    if route.route is RouteKind.INGRESS_PATH:
        return f"host {route.host} path {route.path}" if route.host else f"path {route.path} (any host)"
    if route.route is RouteKind.HOSTNAME:
        return f"hostname {route.host}" if route.host else "every host (it had no hostnames)"
    method = f"{route.method} " if route.method else ""
    return f"rule {method}{route.path}" + (f" (headers {','.join(route.headers)})" if route.headers else "")


@_says(ImpactKind.TRAFFIC_ROUTE)
def traffic_route(facts: TrafficRoute, impact: Impact) -> str:
    gone = [_route(r) for r in facts.routes]
    shown = ", ".join(gone[:_SHOWN]) + (f" and {len(gone) - _SHOWN} more" if len(gone) > _SHOWN else "")
    verb = "is deleted" if facts.deleted else "no longer serves"
    return f"{impact.resource} {verb}: {shown}: requests to {'them' if len(gone) > 1 else 'it'} stop reaching the release"


@_under(ImpactKind.TRAFFIC_ROUTE)
def traffic_route_details(facts: TrafficRoute, impact: Impact) -> tuple[str, ...]:
    return tuple(_route(r) for r in facts.routes) if len(facts.routes) > 1 else ()


# -- data -------------------------------------------------------------------------------------------

@_says(ImpactKind.DATA_CRD)
def data_crd(facts: DataCrd, impact: Impact) -> str:
    what = f"every {facts.resource_kind}.{facts.group}" if facts.resource_kind is not None and facts.group is not None \
        else "every custom resource of its kind"
    return f"{impact.resource} is deleted: {what}, in every namespace, is deleted with it"


@_says(ImpactKind.DATA_PVC_SHRINK)
def pvc_shrink(facts: PvcShrink, impact: Impact) -> str:
    return (f"{impact.resource}: storage {facts.storage_before} -> {facts.storage_after}: the API server refuses to "
            "shrink a claim, so this upgrade fails")


@_says(ImpactKind.DATA_PVC_EXPAND)
def pvc_expand(facts: PvcExpand, impact: Impact) -> str:
    grow = f"{impact.resource}: storage {facts.storage_before} -> {facts.storage_after}"
    if facts.expansion is Expansion.ALLOWED:
        return f"{grow}: StorageClass {facts.storage_class} allows volume expansion; the volume grows when its driver resizes it"
    if facts.expansion is Expansion.REFUSED:
        return (f"{grow}: StorageClass {facts.storage_class} does not allow volume expansion: the API server refuses "
                "it and this upgrade fails")
    which = f"StorageClass {facts.storage_class}" if facts.storage_class is not None else "its StorageClass"
    return (f"{grow}: the claim grows only if {which} has allowVolumeExpansion: true (not read here); "
            "otherwise the API server refuses it and this upgrade fails")


@_says(ImpactKind.DATA_PVC_LEFT)
def pvc_left(facts: PvcLeft, impact: Impact) -> str:
    ref = impact.resource
    count = facts.replicas * len(facts.templates)
    first = [f"{t}-{ref.name}-{n}" for n in range(min(facts.replicas, _SHOWN)) for t in facts.templates][:_SHOWN]
    shown = ", ".join(first) + (f" and {count - len(first)} more" if count > len(first) else "")
    if facts.claims_deleted:
        return (f"{ref} is deleted with persistentVolumeClaimRetentionPolicy whenDeleted: Delete: its "
                f"{plural(count, 'claim')} ({shown}) are deleted too, and their data with them "
                "when the reclaim policy is Delete")
    return (f"{ref} is deleted, but its {plural(count, 'claim')} ({shown}) stay: they keep "
            "their data and keep costing until deleted (a new StatefulSet of that name adopts them)")


def _scaled_pods(scaled: list[Impact], alone: bool) -> str:
    """The pods of workloads an HPA scales whose count is not known: as many as the HPAs run,
    within their ranges when each gives one."""
    ranges = [(f.hpa_min, f.hpa_max) for f in (i.facts for i in scaled) if isinstance(f, Rollout) and f.hpa_max is not None]
    span = (f"{sum(1 if low is None else low for low, _ in ranges)} to {sum(high for _, high in ranges if high)}"
            if len(ranges) == len(scaled) else "")
    if alone:
        return f"as many pods as {'its HPA runs' if len(scaled) == 1 else 'their HPAs run'}" + (f", {span}" if span else "")
    return f"as many as {plural(len(scaled), 'HPA')} run{'s' if len(scaled) == 1 else ''}" + (f" ({span})" if span else "")


IMPACT_TITLE = "What the deploy does to running things:"


def impact_summary(impacts: Iterable[Impact]) -> str:
    """The line under the plan line: what happens to running things, counted ("" for nothing).
    Restarts count their pods; the other kinds count as their table entry words them, kinds
    that share words (a family) together."""
    impacts = list(impacts)
    if not impacts:
        return ""
    parts = []
    # What only values the chart regenerates on every render drive is counted apart: the real
    # upgrade does it only if it makes them anew too.
    again = [i for i in impacts if i.regenerated]
    impacts = [i for i in impacts if not i.regenerated]
    restarts = [i for i in impacts if i.kind is ImpactKind.RESTART]
    if restarts:
        known = [p for p in (i.count("pods") for i in restarts) if p is not None]
        per_node = sum(1 for i in restarts if i.count("pods") is None and _daemonset(i))
        scaled = [i for i in restarts if i.count("pods") is None and not _daemonset(i)]
        alone = [bool(known), bool(per_node), bool(scaled)].count(True) == 1
        said = [plural(sum(known), "pod")] if known else []
        if per_node:
            said.append("one pod per node" if alone else f"one per node of {plural(per_node, 'DaemonSet')}")
        if scaled:
            said.append(_scaled_pods(scaled, alone))
        counted = said[0] if len(said) == 1 else f"{', '.join(said[:-1])}, and {said[-1]}"
        parts.append(f"{plural(len(restarts), 'workload')} restart{'s' if len(restarts) == 1 else ''} ({counted})")
    counts: dict[tuple[str, str], int] = {}
    for kind in ImpactKind:
        if kind.one:
            counts.setdefault((kind.one, kind.many), 0)
    for item in impacts:
        if item.kind.one:
            counts[(item.kind.one, item.kind.many)] = counts.get((item.kind.one, item.kind.many), 0) + 1
    parts += [f"{n} {one if n == 1 else many}" for (one, many), n in counts.items() if n]
    if again:
        parts.append(f"{f'and {len(again)} more' if parts else plural(len(again), 'impact')} only by values the "
                     "chart regenerates on every render, if the upgrade makes them anew")
    return "Impact: " + ", ".join(parts) + "."
