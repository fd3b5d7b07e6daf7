"""What pods read of ConfigMaps and Secrets, key by key; which keys of a changed one really change;
and what a `checksum/...` annotation of a pod template hashes.

A pod reads a key through `env[].valueFrom` (that key), `envFrom` (every key), a volume (the keys
its `items` name, or every key without them) and a projected volume's sources (the same). A key
really changes when a field change of its value is not one the chart regenerates on every render
(core/regenerated.py); a key whose only changes are such values changes "only by regeneration".

A checksum annotation (a name holding `checksum` or `hash`) is a hash the chart computes of
something it renders, mostly a ConfigMap's or Secret's template, so that the pods restart when
it changes. What it hashes is not written anywhere; it is taken as the most plausible of:
- of the ConfigMaps and Secrets of the kind its name says (`secret`: Secrets; `config` or `cm`:
  ConfigMaps; else both), the keys its workload reads;
- when it reads none of that kind (an operator that reads its ConfigMap through the API), every
  such object of the workload's own chart or subchart (the `# Source:` path before
  `/templates/`), in its namespace;
- when there are none, whatever the workload reads (bitnami's `checksum/configuration` hashes a
  ConfigMap whose name says nothing, and some charts' `checksum/config` a Secret).
The annotation is explained by the config when a key it hashes really changes; otherwise it
changes only by regeneration when its own value differs between two renders of the same inputs;
otherwise something else moved it: the hashed objects' metadata (a template is hashed whole, its
`helm.sh/chart` label included), keys its pods do not read, or what the plan cannot see.
"""
from __future__ import annotations

import enum
from typing import Any, Iterable, Mapping

from msgspec import Struct

from deployah_plan.core.impact.common import dicts, dig
from deployah_plan.impact_facts import Read, Reads
from deployah_plan.model import Action, FieldChange, ResourceChange, ResourceRef
from deployah_plan.pointer import tokens

CONFIG = frozenset({("", "ConfigMap"), ("", "Secret")})
CONFIG_KINDS = ("ConfigMap", "Secret")
_DATA = ("data", "binaryData", "stringData")
_CHECKSUM = ("checksum", "hash")  # in an annotation's name, in any case
_ANNOTATIONS = "/spec/template/metadata/annotations"

Source = tuple[str, str]  # (kind, name) of a ConfigMap or Secret, in the workload's namespace
Keys = frozenset[str] | None  # the keys read; None: every key


class Use(Struct, frozen=True):
    """One way a pod reads a ConfigMap or Secret: how a container reads it (None: a volume no
    container mounts) and which keys."""

    read: Read | None
    keys: Keys


def uses(pod: Mapping[str, Any]) -> dict[Source, list[Use]]:
    """What a pod spec reads of ConfigMaps and Secrets, by (kind, name): each read and its keys."""
    out: dict[Source, list[Use]] = {}
    containers = dicts(pod.get("initContainers")) + dicts(pod.get("containers"))
    for container in containers:
        cname = str(container.get("name", ""))
        for env in dicts(container.get("env")):
            value_from = env.get("valueFrom")
            if not isinstance(value_from, dict):
                continue  # a literal value (most of them)
            for field, kind in (("configMapKeyRef", "ConfigMap"), ("secretKeyRef", "Secret")):
                source = dig(value_from, field, "name")
                if isinstance(source, str):
                    key = dig(value_from, field, "key")
                    out.setdefault((kind, source), []).append(Use(
                        Read(container=cname, how=Reads.ENV, name=str(env.get("name"))),
                        frozenset({str(key)}) if key is not None else None))
        for env_from in dicts(container.get("envFrom")):
            for field, kind in (("configMapRef", "ConfigMap"), ("secretRef", "Secret")):
                source = dig(env_from, field, "name")
                if isinstance(source, str):
                    out.setdefault((kind, source), []).append(Use(Read(container=cname, how=Reads.ENV_FROM), None))
    volumes: dict[str, list[tuple[Source, Reads, Keys]]] = {}
    for volume in dicts(pod.get("volumes")):
        found: list[tuple[Source, Reads, Keys]] = []
        for kind, source, name_field, how in (
                ("ConfigMap", volume.get("configMap"), "name", Reads.VOLUME),
                ("Secret", volume.get("secret"), "secretName", Reads.VOLUME),
                *[(kind, dig(projected, field), "name", Reads.PROJECTED)
                  for projected in dicts(dig(volume, "projected", "sources"))
                  for kind, field in (("ConfigMap", "configMap"), ("Secret", "secret"))]):
            if isinstance(source, dict) and isinstance(source.get(name_field), str):
                items = dicts(source.get("items"))
                keys = frozenset(str(item.get("key")) for item in items) if items else None
                found.append(((kind, source[name_field]), how, keys))
        if found:
            volumes[str(volume.get("name", ""))] = found
    mounted: set[str] = set()
    for container in containers:
        cname = str(container.get("name", ""))
        for mount in dicts(container.get("volumeMounts")):
            volume_name = str(mount.get("name", ""))
            for source, how, keys in volumes.get(volume_name, ()):
                mounted.add(volume_name)
                sub = mount.get("subPath") or mount.get("subPathExpr")
                out.setdefault(source, []).append(Use(
                    Read(container=cname, how=Reads.SUB_PATH if sub else how, name=str(mount.get("mountPath", ""))),
                    keys))
    for volume_name, found in volumes.items():
        if volume_name not in mounted:
            for source, _, keys in found:
                out.setdefault(source, []).append(Use(None, keys))
    return out


def keys_read(found: Iterable[Use]) -> Keys:
    """Every key these uses read (None: every key)."""
    out: set[str] = set()
    for use in found:
        if use.keys is None:
            return None
        out |= use.keys
    return frozenset(out)


def consumers(pod: Mapping[str, Any]) -> dict[Source, list[Read]]:
    """The ConfigMaps and Secrets a pod spec's containers read, by (kind, name), and how."""
    return {source: [u.read for u in found if u.read is not None] for source, found in uses(pod).items()
            if any(u.read is not None for u in found)}


class KeyChanges(Struct, frozen=True):
    """What changes in a ConfigMap or Secret: the keys that really change, those that change only
    by regeneration, and whether anything outside its data changes (its labels, annotations)."""

    real: frozenset[str] = frozenset()
    regenerated: frozenset[str] = frozenset()
    metadata: bool = False

    def touches(self, keys: Keys, real: bool = True) -> bool:
        """A key of these (None: any key) really changes (real) or changes only by regeneration."""
        changed = self.real if real else self.regenerated
        return bool(changed) if keys is None else not changed.isdisjoint(keys)


def _data_keys(f: FieldChange) -> list[str]:
    parts = tokens(f.path)
    if len(parts) >= 2:
        return [parts[1]]
    before, after = (v if isinstance(v, dict) else {} for v in (f.before, f.after))
    return [str(k) for k in before.keys() | after.keys() if before.get(k) != after.get(k)]


def key_changes(change: ResourceChange) -> KeyChanges:
    """The keys of an updated ConfigMap's or Secret's data that change, and how."""
    if change.action is not Action.UPDATE:
        return KeyChanges()
    real: set[str] = set()
    again: set[str] = set()
    metadata = False
    for f in change.fields:
        if f.equivalent:
            continue
        parts = tokens(f.path)
        if parts and parts[0] in _DATA:
            (again if f.regenerated else real).update(_data_keys(f))
        elif not parts or parts[0] == "metadata":
            metadata = True
    return KeyChanges(frozenset(real), frozenset(again - real), metadata)


def changed_annotations(change: ResourceChange) -> dict[str, list[FieldChange]]:
    """The pod template's checksum annotations that change, each with its field changes (a field
    change of the whole annotations map counts for each annotation whose value it changes)."""
    out: dict[str, list[FieldChange]] = {}
    for f in change.fields:
        if f.equivalent:
            continue
        if f.path.startswith(_ANNOTATIONS + "/"):
            names = [tokens(f.path[len(_ANNOTATIONS):])[0]]
        elif _ANNOTATIONS.startswith(f.path + "/") or f.path == _ANNOTATIONS:
            below = tokens(_ANNOTATIONS[len(f.path):])
            before, after = dig(f.before, *below), dig(f.after, *below)
            before, after = (v if isinstance(v, dict) else {} for v in (before, after))
            names = [str(k) for k in before.keys() | after.keys() if before.get(k) != after.get(k)]
        else:
            continue
        for name in names:
            if any(word in name.lower() for word in _CHECKSUM):
                out.setdefault(name, []).append(f)
    return out


def _named_kinds(annotation: str) -> tuple[str, ...]:
    name = annotation.lower()
    kinds = tuple(kind for kind, words in (("Secret", ("secret",)), ("ConfigMap", ("config", "cm")))
                  if any(word in name for word in words))
    return kinds or CONFIG_KINDS


def chart_of(source: str) -> str:
    """The chart or subchart a template belongs to, from its `# Source:` path
    (`chart/charts/sub/templates/x.yaml` -> `chart/charts/sub`)."""
    return source.rsplit("/templates/", 1)[0]


def hashed(annotation: str, read: Mapping[Source, list[Use]], own: Iterable[Source]) -> dict[Source, Keys]:
    """What a checksum annotation plausibly hashes (the module's docstring): by (kind, name), the
    keys (None: the whole object). `read` is what its workload reads, `own` the ConfigMaps and
    Secrets of its chart or subchart in its namespace."""
    kinds = _named_kinds(annotation)
    found = {source: keys_read(u) for source, u in read.items() if source[0] in kinds}
    if not found:
        found = {source: None for source in own if source[0] in kinds}
    return found or {source: keys_read(u) for source, u in read.items()}


class Moved(enum.Enum):
    """What moved a checksum annotation."""

    CONFIG = "config"  # a key it hashes really changes
    REGENERATED = "regenerated"  # its value differs between two renders of the same inputs
    OTHER = "other"  # neither


def moved_by(fields: Iterable[FieldChange], inputs: Mapping[Source, Keys],
             changes: Mapping[Source, KeyChanges]) -> Moved:
    """What moved a changed checksum annotation, given what it hashes and how those change."""
    if any(changes[s].touches(keys) for s, keys in inputs.items() if s in changes):
        return Moved.CONFIG
    if all(f.regenerated for f in fields):
        return Moved.REGENERATED
    return Moved.OTHER


def hashed_refs(namespace: str, inputs: Iterable[Source]) -> tuple[ResourceRef, ...]:
    return tuple(ResourceRef("v1", kind, namespace, name) for kind, name in sorted(inputs))


__all__ = ["CONFIG", "KeyChanges", "Moved", "Use", "changed_annotations", "chart_of", "consumers", "hashed",
           "hashed_refs", "key_changes", "keys_read", "moved_by", "uses"]
