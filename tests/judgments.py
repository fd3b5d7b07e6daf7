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
from dataclasses import dataclass
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

    @property
    def restarts(self) -> bool:
        return self.real and not self.deferred and not self.pods.none


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
            for field, kind in (("configMapKeyRef", "ConfigMap"), ("secretKeyRef", "Secret")):
                if isinstance(source.get(field), dict) and source[field].get("name"):
                    yield ref(kind, source[field]["name"]), str(source[field].get("key", WHOLE))
        for env_from in container.get("envFrom") or []:
            for field, kind in (("configMapRef", "ConfigMap"), ("secretRef", "Secret")):
                if isinstance((env_from or {}).get(field), dict) and env_from[field].get("name"):
                    yield ref(kind, env_from[field]["name"]), WHOLE
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

def _hpa(ident: Identity, objects: Objects) -> tuple[Identity, tuple[int, int]] | None:
    for hpa_ident, hpa in objects.items():
        target = (hpa.get("spec") or {}).get("scaleTargetRef") or {}
        if hpa_ident[1] == "HorizontalPodAutoscaler" and hpa_ident[2] == ident[2] \
                and target.get("kind") == ident[1] and target.get("name") == ident[3]:
            spec = hpa["spec"]
            return hpa_ident, (_count(spec.get("minReplicas"), 1), _count(spec.get("maxReplicas"), 0))
    return None


def _count(value: Any, unset: int) -> int:
    """A count as the API server reads it: unset takes the default."""
    return unset if value is None else int(value)


def pods(ident: Identity, obj: dict[str, Any], objects: Objects) -> Pods:
    if ident[1] == "DaemonSet":
        return Pods(None, per_node=True)
    scaled = _hpa(ident, objects)
    if scaled is not None:
        return Pods(None, hpa=scaled[0], hpa_range=scaled[1])
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


def judge(before: Objects, after: Objects, again: Objects, sources: dict[Identity, str]) -> Judgments:
    """The judgments for an upgrade from `before` (the release) to `after` (Helm's render of the
    upgrade; `again` is the same render made once more; `sources`: the template file of each of
    `after`'s objects, as its `# Source:` line names it)."""
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
            *_read_changes(read, change))

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
    return Judgments(workloads, configs, services)


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
