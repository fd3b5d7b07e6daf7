"""What an upgrade does to running things, judged from helm's renders by Kubernetes' rules: the
reference the corpus tier holds the plan's restart, traffic and config claims to. It imports
nothing from the planner and shares none of its code; it reads parsed documents only.

Its inputs, for one upgrade: the release's objects as stored (`before`), Helm's upgrade render
(`after`), and the same render made once more from the same inputs (`again`). What differs
between `after` and `again` is regenerated on every render (a random password, a generated
certificate, a checksum of either); everything else that differs from `before` is a real change.

What it decides:
- per workload (Deployment, StatefulSet, DaemonSet) both sides hold: whether its pod template
  really changes, field by field, a `checksum/...` (or `...hash...`) annotation counting as real
  when its value is stable across renders, or, when it is regenerated, when one input it
  plausibly hashes really changes; whether the change is deferred (OnDelete, paused, a partition
  at or above the replica count); how many pods restart (spec.replicas, 1 when unset; an HPA's
  range when an HPA scales it; one per node for a DaemonSet; none at 0 replicas);
- per ConfigMap and Secret both sides hold: which keys really change (a multi-line value line
  by line, less the lines that regenerate), which workloads read each key (env valueFrom,
  envFrom, volumes with or without items, projected volumes) and whether those restart;
- per Service both sides hold with a selector: which running workloads it matched before, which
  of those pods its new selector still matches when Helm applies it (Services come before
  workloads in Helm's install order, so the old pods are still running), and which workloads it
  matches after the rollout: its endpoints drop for the rollout when it matched running pods
  and its new selector matches none of them.

- per workload both sides hold whose pod template does not change at all while the object
  does: no pod restarts (`spec.replicas` before and after); an update the API server refuses (a
  workload's selector, a StatefulSet's fields other than replicas, ordinals, template,
  updateStrategy, revisionHistoryLimit, persistentVolumeClaimRetentionPolicy, minReadySeconds)
  restarts nothing and is judged nothing;
- per workload both sides hold that sets `spec.replicas` while an HPA of the upgrade targets it
  (group, kind and name): every deploy sets the chart's count back, by client-side apply (Helm 3,
  a release applied client-side); by server-side apply the HPA controller owns the field once it
  has scaled, which only the cluster knows (`ssa-later` offline);
- per Service both sides hold: each port (`port` and `protocol`, TCP unset) removed, or whose
  `targetPort` (the port when unset) changes; per Ingress and HTTPRoute the release holds: each
  route (an Ingress's default backend, host and path; an HTTPRoute's hostnames and each match's
  method, path and header names) that the upgrade removes or deletes;
- per object the release holds and the upgrade does not (not kept by `helm.sh/resource-policy:
  keep`): a CustomResourceDefinition takes its custom resources with it; a StatefulSet leaves
  the claims of its `volumeClaimTemplates` (replicas of each) unless its retention policy says
  Delete; per PersistentVolumeClaim both sides hold, a storage request that shrinks (refused) or
  grows (only where its StorageClass allows expansion: the upgrade's own class when the claim
  names one; offline, no other is known).

A checksum annotation plausibly hashes, of the release's ConfigMaps and Secrets of the kind its
name says ("secret": Secrets; "config", "cm": ConfigMaps; else both), what its workload reads,
key by key; when it reads none of that kind (an operator reading its ConfigMap through the API),
those of its own chart or subchart; when there are none, whatever it reads (bitnami's
`checksum/config` hashes a Secret).
"""
from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, Callable, Iterable, Iterator

Identity = tuple[str, str, str, str]  # API group, kind, namespace ("" when cluster-scoped), name
Objects = dict[Identity, dict[str, Any]]

WORKLOADS = ("Deployment", "StatefulSet", "DaemonSet")
# What runs pods that a Service may select (a Job's pods are not meant to serve).
POD_OWNERS = WORKLOADS + ("ReplicaSet", "ReplicationController", "Pod")
CONFIG = ("ConfigMap", "Secret")
CHECKSUM = re.compile(r"checksum|hash", re.I)
WHOLE = "*"  # every key of an object: envFrom, a volume without items


@dataclass(frozen=True)
class Pods:
    """How many pods a workload runs: `replicas`, or an HPA's range, or one per node."""
    replicas: int | None  # None: per node, or scaled by an HPA
    hpa: Identity | None = None
    hpa_range: tuple[int, int] | None = None
    per_node: bool = False

    @property
    def none(self) -> bool:
        return self.replicas == 0 and self.hpa is None and not self.per_node


@dataclass(frozen=True)
class Workload:
    """One workload's pod template, judged: `changed` when it differs at all, `real` when it
    differs once what only regenerates is left out; `restarts` when that replaces pods now."""
    ident: Identity
    changed: bool
    real: bool
    deferred: bool
    pods: Pods
    real_paths: tuple[str, ...]  # the pod template's fields that really change
    config_checksums: frozenset[str]  # changed checksum annotations a really changed input explains
    regenerated_checksums: frozenset[str]  # changed only by what regenerates
    other_checksums: frozenset[str]  # stable and changed, with no input whose data really changes
    reads_changed: frozenset[Identity]  # ConfigMaps/Secrets with a key it reads that really changes
    reads_regenerated: frozenset[Identity]  # ... whose keys it reads change only by regeneration
    updated: bool = False  # the object differs at all
    refused: tuple[str, ...] = ()  # the spec fields whose change the API server refuses
    replicas: tuple[int | None, int | None] = (None, None)  # spec.replicas before and after, as written

    @property
    def restarts(self) -> bool:
        return self.real and not self.deferred and not self.pods.none and not self.refused

    @property
    def no_restart(self) -> bool:
        """Updated outside its pod template only: no pod restarts."""
        return self.updated and not self.changed and not self.refused


@dataclass(frozen=True)
class Reset:
    """The chart sets spec.replicas on a workload an HPA scales: each deploy sets it back."""
    chart_replicas: int
    hpa: Identity
    hpa_min: int | None  # as the HPA gives them
    hpa_max: int | None
    rule: str  # "client-side"; "ssa-later": server-side apply conflicts once the HPA has scaled


@dataclass(frozen=True, order=True)
class Port:
    """A Service port as its clients use it, and what happens to it."""
    port: str
    protocol: str
    rule: str  # "removed" or "target-port"
    target_before: str | None = None
    target_after: str | None = None


@dataclass(frozen=True, order=True)
class Route:
    """A route an Ingress or HTTPRoute serves: `route` is "default-backend", "ingress-path"
    (host, path), "hostname" (host) or "rule" (method, path, header names)."""
    route: str
    host: str = ""
    path: str = ""
    method: str = ""
    headers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Routes:
    deleted: bool
    gone: tuple[Route, ...]


@dataclass(frozen=True)
class Crd:
    """A CustomResourceDefinition deleted, with the kind and group of its custom resources."""
    resource_kind: str | None
    group: str | None


@dataclass(frozen=True)
class Claim:
    """A PersistentVolumeClaim whose storage request changes: `shrinks` (refused) or grows;
    growing, its StorageClass as the claim names it and what the upgrade's own class says
    ("allowed", "refused"; "not-read" when the upgrade holds no such class)."""
    storage_before: str
    storage_after: str
    shrinks: bool
    storage_class: str | None
    expansion: str


@dataclass(frozen=True)
class Left:
    """A StatefulSet deleted with volumeClaimTemplates: `replicas` claims of each template stay,
    or go when its retention policy's whenDeleted is Delete."""
    templates: tuple[str, ...]
    replicas: int
    claims_deleted: bool


@dataclass(frozen=True)
class Config:
    """A ConfigMap or Secret both sides hold: its keys that really change, those that change only
    by regeneration, and who reads each."""
    ident: Identity
    real_keys: frozenset[str]
    regenerated_keys: frozenset[str]
    readers: dict[str, frozenset[Identity]]  # key -> the workloads that read it

    def readers_of(self, keys: Iterable[str]) -> frozenset[Identity]:
        return frozenset(w for k in keys for w in self.readers.get(k, frozenset()))


@dataclass(frozen=True)
class Service:
    ident: Identity
    matched_before: frozenset[Identity]  # running workloads the old selector matched
    still_matched: frozenset[Identity]  # of the pods running before, whose the new selector matches
    matched_after: frozenset[Identity]  # workloads whose new pods the new selector matches

    @property
    def drops(self) -> bool:
        """Its endpoints drop for the rollout: it served running pods, none of which it selects
        once Helm applies it, before any workload's new pods run."""
        return bool(self.matched_before) and not self.still_matched

    @property
    def unmatched(self) -> bool:
        return bool(self.matched_before) and not self.matched_after

    @property
    def moved(self) -> bool:
        return bool(self.matched_before) and bool(self.matched_after) and self.matched_before != self.matched_after


@dataclass(frozen=True)
class Judgments:
    workloads: dict[Identity, Workload]
    configs: dict[Identity, Config]
    services: dict[Identity, Service]
    resets: dict[Identity, Reset] = field(default_factory=dict)  # by workload
    ports: dict[Identity, tuple[Port, ...]] = field(default_factory=dict)  # by Service, only those with one
    routes: dict[Identity, Routes] = field(default_factory=dict)  # by Ingress or HTTPRoute, only with one gone
    crds: dict[Identity, Crd] = field(default_factory=dict)
    claims: dict[Identity, Claim] = field(default_factory=dict)
    left: dict[Identity, Left] = field(default_factory=dict)


# --- leaves and what regenerates ----------------------------------------------------------------

_ABSENT = object()


def leaves(value: Any, path: str = "") -> dict[str, Any]:
    """Every leaf of a parsed object by its JSON pointer (list entries by index)."""
    if isinstance(value, dict) and value:
        return {k: v for key, item in value.items()
                for k, v in leaves(item, f"{path}/{str(key).replace('~', '~0').replace('/', '~1')}").items()}
    if isinstance(value, list) and value:
        return {k: v for n, item in enumerate(value) for k, v in leaves(item, f"{path}/{n}").items()}
    return {path: value}


def _differ(a: dict[str, Any], b: dict[str, Any]) -> set[str]:
    return {k for k in a.keys() | b.keys() if a.get(k, _ABSENT) != b.get(k, _ABSENT)}


# --- reading ConfigMaps and Secrets ---------------------------------------------------------------

def _data(obj: dict[str, Any]) -> dict[str, str]:
    """A ConfigMap's or Secret's keys and their values as text (a Secret's `data` decoded, its
    `stringData` as written, which the API server merges into `data`)."""
    out: dict[str, str] = {}
    for key, value in (obj.get("binaryData") or {}).items():
        out[str(key)] = str(value)
    for key, value in (obj.get("data") or {}).items():
        text = "" if value is None else str(value)
        if obj.get("kind") == "Secret":
            try:
                text = base64.b64decode(text, validate=True).decode("utf-8", "replace")
            except (binascii.Error, ValueError):
                pass
        out[str(key)] = text
    for key, value in (obj.get("stringData") or {}).items():
        out[str(key)] = "" if value is None else str(value)
    return out


PEM = re.compile(r"-----BEGIN [A-Z0-9 ]+-----.*?-----END [A-Z0-9 ]+-----", re.S)


def _units(value: str) -> list[str]:
    """A value's lines, each PEM block one unit: a certificate's lines are not parts to tell apart
    (its validity dates sit in a line that two renders of the same second share)."""
    return PEM.sub(lambda block: block.group(0).replace("\n", " "), value).splitlines()


def _key_change(old: str | None, new: str | None, again: str | None) -> str:
    """"real", "regenerated" or "" (unchanged) for one key. A multi-line value is compared line by
    line (a PEM block as one line): a line that differs between the two renders of the same
    inputs regenerates, and the value really changes when any other line does."""
    if old == new:
        return ""
    if new is None or old is None:
        return "real" if again == new else "regenerated"
    if new == again:
        return "real"
    new_lines, again_lines, old_lines = _units(new), _units(again) if again else [], _units(old)
    if len(new_lines) != len(again_lines) or len(new_lines) != len(old_lines):
        return "regenerated"  # the regenerated part moves lines: nothing to tell apart line by line
    moving = {n for n, (a, b) in enumerate(zip(new_lines, again_lines)) if a != b}
    real = any(o != n for i, (o, n) in enumerate(zip(old_lines, new_lines)) if i not in moving)
    return "real" if real else "regenerated"


def reads(ident: Identity, obj: dict[str, Any]) -> Iterator[tuple[Identity, str]]:
    """What a workload's pod template reads of ConfigMaps and Secrets: (object, key), WHOLE for
    every key (envFrom, a volume without items)."""
    spec = ((obj.get("spec") or {}).get("template") or {}).get("spec") or {}
    ns = ident[2]

    def ref(kind: str, name: Any) -> Identity:
        return "", kind, ns, str(name)
    for container in (spec.get("containers") or []) + (spec.get("initContainers") or []):
        container = container or {}
        for env in container.get("env") or []:
            source = (env or {}).get("valueFrom") or {}
            for key, kind in (("configMapKeyRef", "ConfigMap"), ("secretKeyRef", "Secret")):
                if isinstance(source.get(key), dict) and source[key].get("name"):
                    yield ref(kind, source[key]["name"]), str(source[key].get("key", WHOLE))
        for env_from in container.get("envFrom") or []:
            for key, kind in (("configMapRef", "ConfigMap"), ("secretRef", "Secret")):
                if isinstance((env_from or {}).get(key), dict) and env_from[key].get("name"):
                    yield ref(kind, env_from[key]["name"]), WHOLE
    for volume in spec.get("volumes") or []:
        volume = volume or {}
        sources = [("ConfigMap", volume.get("configMap"), "name"), ("Secret", volume.get("secret"), "secretName")]
        for projected in ((volume.get("projected") or {}).get("sources") or []):
            sources += [("ConfigMap", (projected or {}).get("configMap"), "name"),
                        ("Secret", (projected or {}).get("secret"), "name")]
        for kind, source, name_field in sources:
            if not isinstance(source, dict) or not source.get(name_field):
                continue
            items = source.get("items") or []
            if items:
                for item in items:
                    yield ref(kind, source[name_field]), str((item or {}).get("key"))
            else:
                yield ref(kind, source[name_field]), WHOLE


# --- pods -------------------------------------------------------------------------------------

def _hpa(ident: Identity, objects: Objects) -> tuple[Identity, dict[str, Any]] | None:
    """The HPA of these objects that scales this one: its scaleTargetRef names the group (of its
    apiVersion, none when unset), the kind and the name, in the same namespace."""
    for hpa_ident, hpa in objects.items():
        spec = hpa.get("spec") or {}
        target = spec.get("scaleTargetRef") or {}
        if hpa_ident[:2] == ("autoscaling", "HorizontalPodAutoscaler") and hpa_ident[2] == ident[2] \
                and str(target.get("apiVersion") or "").rpartition("/")[0] == ident[0] \
                and target.get("kind") == ident[1] and target.get("name") == ident[3]:
            return hpa_ident, spec
    return None


def _count(value: Any, unset: int) -> int:
    """A count as the API server reads it: unset takes the default."""
    return unset if value is None else int(value)


def pods(ident: Identity, obj: dict[str, Any], objects: Objects) -> Pods:
    if ident[1] == "DaemonSet":
        return Pods(None, per_node=True)
    scaled = _hpa(ident, objects)
    if scaled is not None:
        hpa, spec = scaled
        return Pods(None, hpa=hpa, hpa_range=(_count(spec.get("minReplicas"), 1), _count(spec.get("maxReplicas"), 0)))
    return Pods(_count((obj.get("spec") or {}).get("replicas"), 1))


def _deferred(ident: Identity, obj: dict[str, Any], count: Pods) -> bool:
    spec = obj.get("spec") or {}
    strategy = spec.get("updateStrategy") or {}
    if ident[1] in ("StatefulSet", "DaemonSet") and strategy.get("type") == "OnDelete":
        return True
    if ident[1] == "Deployment" and spec.get("paused") is True:
        return True
    if ident[1] == "StatefulSet" and count.replicas is not None:
        partition = _count((strategy.get("rollingUpdate") or {}).get("partition"), 0)
        return partition > 0 and partition >= count.replicas
    return False


# --- the judgment -------------------------------------------------------------------------------

def _chart_of(source: str) -> str:
    """The chart or subchart a template file belongs to, from Helm's `# Source:` path:
    `chart/templates/x.yaml` -> `chart`, `chart/charts/sub/templates/x.yaml` -> `chart/charts/sub`."""
    return source.rsplit("/templates/", 1)[0]


def _named_kinds(annotation: str) -> tuple[str, ...]:
    name = annotation.lower()
    kinds = tuple(kind for kind, words in (("Secret", ("secret",)), ("ConfigMap", ("config", "cm")))
                  if any(word in name for word in words))
    return kinds or CONFIG


def judge(before: Objects, after: Objects, again: Objects, sources: dict[Identity, str],
          server_side: bool = False) -> Judgments:
    """The judgments for an upgrade from `before` (the release) to `after` (Helm's render of the
    upgrade; `again` is the same render made once more; `sources`: the template file of each of
    `after`'s objects, as its `# Source:` line names it; `server_side`: the release was applied
    server-side, as Helm 4 records it, and the upgrade applies it so too)."""
    # Key by key, what really changes in the ConfigMaps and Secrets both sides hold.
    key_changes: dict[Identity, dict[str, str]] = {}
    for ident, new in after.items():
        if ident[1] in CONFIG and ident in before:
            old_data, new_data, again_data = _data(before[ident]), _data(new), _data(again.get(ident, new))
            key_changes[ident] = {k: c for k in old_data.keys() | new_data.keys()
                                  if (c := _key_change(old_data.get(k), new_data.get(k), again_data.get(k)))}

    def change(obj: Identity, key: str) -> set[str]:
        changes = key_changes.get(obj, {})
        return set(changes.values()) if key == WHOLE else {changes[key]} if key in changes else set()

    workloads: dict[Identity, Workload] = {}
    readers: dict[Identity, dict[str, set[Identity]]] = {}
    for ident, new in after.items():
        if ident[1] not in WORKLOADS:
            continue
        read = sorted(set(reads(ident, new)))
        for obj, key in read:
            readers.setdefault(obj, {}).setdefault(key, set()).add(ident)
        old = before.get(ident)
        if old is None or old.get("kind") != new.get("kind"):
            continue
        template = {side: leaves(((o.get("spec") or {}).get("template")) or {})
                    for side, o in (("old", old), ("new", new), ("again", again.get(ident, new)))}
        differ = _differ(template["old"], template["new"])
        moving = _differ(template["new"], template["again"])
        real_paths: list[str] = []
        config, regenerated, other = set(), set(), set()
        for path in sorted(differ):
            match = re.fullmatch(r"/metadata/annotations/(.+)", path)
            annotation = match.group(1).replace("~1", "/").replace("~0", "~") if match else ""
            if annotation and CHECKSUM.search(annotation):
                named = _named_kinds(annotation)
                chart = _chart_of(sources.get(ident, ""))
                hashed = [(o, k) for o, k in read if o[1] in named] \
                    or [(o, WHOLE) for o in after if o[1] in named and o[2] == ident[2]
                        and _chart_of(sources.get(o, "")) == chart] or read
                really = any("real" in change(o, k) for o, k in hashed)
                if really:
                    config.add(annotation)
                elif path in moving:
                    regenerated.add(annotation)
                    continue
                else:
                    other.add(annotation)
                real_paths.append(path)
            elif path not in moving:
                real_paths.append(path)
        count = pods(ident, new, after)
        workloads[ident] = Workload(
            ident, bool(differ), bool(real_paths), _deferred(ident, new, count), count, tuple(real_paths),
            frozenset(config), frozenset(regenerated), frozenset(other),
            *_read_changes(read, change), updated=old != new, refused=_refused(ident, old, new),
            replicas=(_replicas(old), _replicas(new)))

    configs: dict[Identity, Config] = {}
    for ident, changes in key_changes.items():
        by_key = readers.get(ident, {})
        whole = by_key.get(WHOLE, set())
        configs[ident] = Config(
            ident, frozenset(k for k, c in changes.items() if c == "real"),
            frozenset(k for k, c in changes.items() if c == "regenerated"),
            {k: frozenset(by_key.get(k, set()) | whole) for k in changes})

    services: dict[Identity, Service] = {}
    for ident, new in after.items():
        old = before.get(ident)
        if ident[1] != "Service" or old is None:
            continue
        old_selector = (old.get("spec") or {}).get("selector") or {}
        new_selector = (new.get("spec") or {}).get("selector") or {}
        if not old_selector or not new_selector:
            continue  # no selector: endpoints are managed by hand
        running = {w: _labels(obj) for w, obj in before.items()
                   if w[1] in POD_OWNERS and w[2] == ident[2] and not pods(w, obj, before).none}
        serving = {w: _labels(obj) for w, obj in after.items()
                   if w[1] in POD_OWNERS and w[2] == ident[2] and not pods(w, obj, after).none}
        services[ident] = Service(
            ident, frozenset(w for w, labels in running.items() if _selects(old_selector, labels)),
            frozenset(w for w, labels in running.items() if _selects(new_selector, labels)),
            frozenset(w for w, labels in serving.items() if _selects(new_selector, labels)))
    return Judgments(workloads, configs, services, _resets(before, after, server_side), _ports(before, after),
                     _routes(before, after), *_data_risks(before, after))


def _read_changes(read: list[tuple[Identity, str]],
                  change: Callable[[Identity, str], set[str]]) -> tuple[frozenset[Identity], frozenset[Identity]]:
    """The objects a workload reads a really changed key of, and those whose keys it reads change
    only by regeneration."""
    real = frozenset(o for o, k in read if "real" in change(o, k))
    regenerated = frozenset(o for o, k in read if "regenerated" in change(o, k)) - real
    return real, regenerated


def _labels(obj: dict[str, Any]) -> dict[str, Any]:
    if obj.get("kind") == "Pod":
        return (obj.get("metadata") or {}).get("labels") or {}
    return ((((obj.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels")) or {}


def _selects(selector: dict[str, Any], labels: dict[str, Any]) -> bool:
    """A Service's selector (equality on every key) against a pod's labels, as strings."""
    return all(k in labels and str(labels[k]) == str(v) for k, v in selector.items())


# --- workloads the API server refuses, replicas an HPA scales --------------------------------------

# What a StatefulSet's update may change (apps validation: "updates to statefulset spec for
# fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit',
# 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden").
STATEFULSET_MUTABLE = {"replicas", "ordinals", "template", "updateStrategy", "revisionHistoryLimit",
                       "persistentVolumeClaimRetentionPolicy", "minReadySeconds"}
# Kinds Helm 3 patches by strategic merge (three-way: the live value is set back to the chart's);
# a custom resource gets a JSON merge patch from the release to the upgrade, which leaves a live
# value alone unless the chart's changes.
STRATEGIC = {("apps", "Deployment"), ("apps", "StatefulSet"), ("apps", "DaemonSet"), ("apps", "ReplicaSet"),
             ("", "ReplicationController")}


def _refused(ident: Identity, old: dict[str, Any], new: dict[str, Any]) -> tuple[str, ...]:
    """The spec fields of a workload's update the API server refuses: its selector; a
    StatefulSet's fields but those it lets change."""
    was, now = old.get("spec") or {}, new.get("spec") or {}
    fixed = set(was) | set(now) if ident[1] == "StatefulSet" else {"selector"}
    return tuple(sorted(f for f in fixed - STATEFULSET_MUTABLE if was.get(f) != now.get(f)))


def _replicas(obj: dict[str, Any]) -> int | None:
    value = (obj.get("spec") or {}).get("replicas")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _resets(before: Objects, after: Objects, server_side: bool) -> dict[Identity, Reset]:
    """The objects both sides hold whose spec.replicas the chart sets while an HPA of the upgrade
    scales them. Client-side apply sets the chart's count on every deploy (a custom resource's
    merge patch only when the chart's count changes); server-side apply, once the HPA controller
    has written the count, conflicts: a cluster says when, so offline it is "ssa-later"."""
    out: dict[Identity, Reset] = {}
    for ident, new in after.items():
        declared = _replicas(new)
        scaled = _hpa(ident, after) if ident in before and declared is not None else None
        if scaled is None or declared is None:
            continue
        if not server_side and ident[:2] not in STRATEGIC and _replicas(before[ident]) == declared:
            continue
        hpa, spec = scaled
        low, high = spec.get("minReplicas"), spec.get("maxReplicas")
        out[ident] = Reset(declared, hpa, low if isinstance(low, int) else None, high if isinstance(high, int) else None,
                           "ssa-later" if server_side else "client-side")
    return out


# --- ports and routes ----------------------------------------------------------------------------

def _ports(before: Objects, after: Objects) -> dict[Identity, tuple[Port, ...]]:
    """Per Service both sides hold, its ports (by port and protocol, TCP unset) removed or sent
    to another targetPort (the port itself when unset)."""
    out: dict[Identity, tuple[Port, ...]] = {}
    for ident, new in after.items():
        if ident[:2] != ("", "Service") or ident not in before:
            continue
        old_ports, new_ports = _service_ports(before[ident]), _service_ports(new)
        found = []
        for key, port in sorted(old_ports.items()):
            if key not in new_ports:
                found.append(Port(*key, "removed"))
            elif _target(port) != _target(new_ports[key]):
                found.append(Port(*key, "target-port", _target(port), _target(new_ports[key])))
        if found:
            out[ident] = tuple(found)
    return out


def _service_ports(obj: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(str(p.get("port")), str(p.get("protocol") or "TCP")): p
            for p in (obj.get("spec") or {}).get("ports") or [] if isinstance(p, dict)}


def _target(port: dict[str, Any]) -> str:
    return str(port.get("targetPort") if port.get("targetPort") not in (None, "", 0) else port.get("port"))


ROUTE_KINDS = {("networking.k8s.io", "Ingress"), ("extensions", "Ingress"), ("gateway.networking.k8s.io", "HTTPRoute")}


def _served(ident: Identity, obj: dict[str, Any]) -> set[Route]:
    """What an Ingress or HTTPRoute routes: an Ingress's default backend and each rule's host
    (none: any) and path ("/" unset); an HTTPRoute's hostnames (none: any host, as the route
    "hostname" with no host) and each rule's matches (method, path "/" unset, header names; a
    rule without matches, or a route without rules, matches "/")."""
    spec = obj.get("spec") or {}
    out: set[Route] = set()
    if ident[1] == "Ingress":
        if isinstance(spec.get("defaultBackend") or spec.get("backend"), dict):
            out.add(Route("default-backend"))
        for rule in spec.get("rules") or []:
            rule = rule or {}
            for entry in ((rule.get("http") or {}).get("paths") or [{}]):
                out.add(Route("ingress-path", host=str(rule.get("host") or ""), path=str((entry or {}).get("path") or "/")))
        return out
    hosts = [str(h) for h in spec.get("hostnames") or []]
    out.update(Route("hostname", host=h) for h in hosts or [""])
    for rule in spec.get("rules") or [{}]:
        for match in (rule or {}).get("matches") or [{}]:
            match = match or {}
            method = match.get("method")
            out.add(Route("rule", path=str((match.get("path") or {}).get("value") or "/"),
                          method=method if isinstance(method, str) else "",
                          headers=tuple(sorted(str((h or {}).get("name")) for h in match.get("headers") or []))))
    return out


def _routes(before: Objects, after: Objects) -> dict[Identity, Routes]:
    """Per Ingress and HTTPRoute of the release, the routes the upgrade removes, or all of them
    when it deletes the object (unless kept by its resource policy)."""
    out: dict[Identity, Routes] = {}
    for ident, old in before.items():
        if ident[:2] not in ROUTE_KINDS or (ident not in after and _kept(old)):
            continue
        served = _served(ident, after[ident]) if ident in after else set()
        gone = _served(ident, old) - served
        if ident in after and ident[1] == "HTTPRoute" and Route("hostname") in served:
            gone = {r for r in gone if r.route != "hostname"}  # any host now: none lost
        elif ident not in after:
            gone.discard(Route("hostname"))  # no hostnames: its rules say what goes
        if gone:
            out[ident] = Routes(ident not in after, tuple(sorted(gone)))
    return out


# --- data ---------------------------------------------------------------------------------------

def _kept(obj: dict[str, Any]) -> bool:
    """`helm.sh/resource-policy: keep`: Helm leaves the object when the release drops it."""
    policy = ((obj.get("metadata") or {}).get("annotations") or {}).get("helm.sh/resource-policy")
    return str(policy or "").strip().lower() == "keep"


QUANTITY = re.compile(r"([+-]?(?:\d+\.?\d*|\.\d+))(?:[eE]([+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)")
SUFFIX: dict[str, Decimal | int] = {"": 1, "n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"), "k": 10 ** 3, "M": 10 ** 6,
          "G": 10 ** 9, "T": 10 ** 12, "P": 10 ** 15, "E": 10 ** 18, "Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30,
          "Ti": 2 ** 40, "Pi": 2 ** 50, "Ei": 2 ** 60}


def quantity(value: Any) -> Decimal | None:
    """A Kubernetes quantity (`10Gi`, `1.5G`, `100m`, `1e3`) as a number; None when it is none."""
    match = QUANTITY.fullmatch(str(value).strip()) if value is not None else None
    if match is None:
        return None
    try:
        number = Decimal(match.group(1))
    except InvalidOperation:
        return None
    return number * (Decimal(10) ** int(match.group(2)) if match.group(2) else SUFFIX[match.group(3) or ""])


def _storage(obj: dict[str, Any]) -> Any:
    return (((obj.get("spec") or {}).get("resources") or {}).get("requests") or {}).get("storage")


def _data_risks(before: Objects, after: Objects) -> tuple[dict[Identity, Crd], dict[Identity, Claim], dict[Identity, Left]]:
    crds: dict[Identity, Crd] = {}
    claims: dict[Identity, Claim] = {}
    left: dict[Identity, Left] = {}
    for ident, old in before.items():
        spec = old.get("spec") or {}
        if ident in after:
            if ident[:2] != ("", "PersistentVolumeClaim"):
                continue
            was, now = quantity(_storage(old)), quantity(_storage(after[ident]))
            if was is None or now is None or was == now:
                continue
            name = (after[ident].get("spec") or {}).get("storageClassName")
            klass = after.get(("storage.k8s.io", "StorageClass", "", str(name))) if isinstance(name, str) else None
            expansion = "not-read" if klass is None else "allowed" if klass.get("allowVolumeExpansion") is True \
                else "refused"
            claims[ident] = Claim(str(_storage(old)), str(_storage(after[ident])), now < was,
                                  name if isinstance(name, str) else None, expansion)
        elif _kept(old):
            continue
        elif ident[:2] == ("apiextensions.k8s.io", "CustomResourceDefinition"):
            kind, group = (spec.get("names") or {}).get("kind"), spec.get("group")
            said = isinstance(kind, str) and isinstance(group, str)
            crds[ident] = Crd(kind if said else None, group if said else None)
        elif ident[:2] == ("apps", "StatefulSet"):
            templates = tuple(str(t["metadata"]["name"]) for t in spec.get("volumeClaimTemplates") or []
                              if isinstance(((t or {}).get("metadata") or {}).get("name"), str))
            if templates:
                policy = (spec.get("persistentVolumeClaimRetentionPolicy") or {}).get("whenDeleted")
                left[ident] = Left(templates, _count(spec.get("replicas"), 1), policy == "Delete")
    return crds, claims, left
