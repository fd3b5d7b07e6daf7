"""Ignore rules: changes a reviewer has decided not to care about, applied to a finished plan.

A rule has the shape of Flux's `driftDetection.ignore` entries (Argo CD's `ignoreDifferences`
spelling is accepted too):

    paths: [/spec/replicas]          # RFC 6901 JSON Pointers; Argo: jsonPointers
    target:                          # every key optional; Argo puts them beside jsonPointers
      group: apps                    # "" is the core group
      kind: Deployment
      name: web
      namespace: prod
      labelSelector: "app=web,tier in (front)"
      annotationSelector: "team=a"

A field change is ignored when its path is a pointer of the rule or lies beneath one. A pointer
above the change's path never splits a change: `/spec` added whole is not ignored by
`/spec/replicas`. The pointer "" is the whole object, so it also ignores a create or a delete.
An update whose every field change is ignored becomes an ignored change; the rest stay and keep
their ignored fields beside them. Selectors read the labels of the desired object (the
previous one for a delete).

Pure: rules are parsed from already-read text, and `apply_ignore` returns a new plan.
"""
from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from msgspec import Struct
from msgspec.structs import replace

from deployah_plan.startup import lazy
from deployah_plan.errors import UsageError
from deployah_plan.build import rebuild
from deployah_plan.model import Action, FieldChange, Plan, ResourceChange

_TARGET_KEYS = ("group", "kind", "name", "namespace", "labelSelector", "annotationSelector")
_HINT = ("write a rule as {paths: [/spec/replicas], target: {kind: Deployment, name: web}}; "
         "see `helm plan diff --help`")


class Requirement(Struct, frozen=True):
    """One term of a Kubernetes label selector."""

    key: str
    op: str  # "=", "!=", "in", "notin", "exists", "!exists"
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, Any]) -> bool:
        present = self.key in labels
        value = str(labels.get(self.key, ""))
        if self.op == "exists":
            return present
        if self.op == "!exists":
            return not present
        if self.op in ("=", "in"):
            return present and value in self.values
        return not present or value not in self.values  # "!=" and "notin", as Kubernetes reads them


class IgnoreRule(Struct, frozen=True):
    label: str  # how output names the rule, e.g. "--ignore #1" or "ignore.yaml #2"
    paths: tuple[str, ...]
    group: str | None = None
    kind: str | None = None
    name: str | None = None
    namespace: str | None = None
    labels: tuple[Requirement, ...] = ()
    annotations: tuple[Requirement, ...] = ()

    def targets(self, change: ResourceChange) -> bool:
        ref = change.resource
        for want, have in ((self.group, ref.group), (self.kind, ref.kind), (self.name, ref.name),
                           (self.namespace, ref.namespace)):
            if want is not None and want != have:
                return False
        if not (self.labels or self.annotations):
            return True
        obj = change.after if change.after is not None else change.before
        metadata = obj.get("metadata") if isinstance(obj, dict) else None
        metadata = metadata if isinstance(metadata, dict) else {}
        labels, annotations = metadata.get("labels") or {}, metadata.get("annotations") or {}
        if not (isinstance(labels, dict) and isinstance(annotations, dict)):
            return False  # labels that are not a map cannot be judged: nothing is hidden on a guess
        return all(r.matches(labels) for r in self.labels) and all(r.matches(annotations) for r in self.annotations)

    def covers(self, path: str) -> bool:
        return any(p == "" or path == p or path.startswith(p + "/") for p in self.paths)


_TERM = lazy(r"\s*(?:(?P<not>!)\s*(?P<absent>[^\s!=,()]+)"
                   r"|(?P<key>[^\s!=,()]+)\s*(?:(?P<op>==|=|!=)\s*(?P<value>[^\s,()]*)"
                   r"|\s+(?P<setop>in|notin)\s*\((?P<set>[^()]*)\))?)\s*(?:,|\Z)")


def parse_selector(text: str, where: str) -> tuple[Requirement, ...]:
    """A Kubernetes label selector: `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`."""
    out: list[Requirement] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TERM.match(text, pos)
        if not m or m.end() == pos:
            raise UsageError(f"{where}: bad selector {text!r} near {text[pos:]!r}",
                             "use terms like app=web, tier!=db, env in (a,b), !legacy, joined by commas")
        if m["absent"]:
            out.append(Requirement(m["absent"], "!exists"))
        elif m["op"]:
            out.append(Requirement(m["key"], "!=" if m["op"] == "!=" else "=", (m["value"],)))
        elif m["setop"]:
            values = tuple(v.strip() for v in m["set"].split(",") if v.strip())
            out.append(Requirement(m["key"], m["setop"], values))
        else:
            out.append(Requirement(m["key"], "exists"))
        pos = m.end()
    return tuple(out)


def _pointer(value: Any, where: str) -> str:
    if not isinstance(value, str) or (value and not value.startswith("/")) or re.search(r"~(?![01])", value):
        raise UsageError(f"{where}: {value!r} is not a JSON Pointer",
                         "a pointer is \"\" (the whole object) or starts with /, with ~0 for ~ and ~1 for /")
    return value


def _text(value: Any, key: str, where: str) -> str:
    if not isinstance(value, str):
        raise UsageError(f"{where}: {key} must be a string, not {value!r}", _HINT)
    return value


def parse_rule(raw: Any, label: str) -> IgnoreRule:
    """One rule, in Flux's shape or Argo CD's."""
    if not isinstance(raw, dict):
        raise UsageError(f"{label}: an ignore rule must be a mapping, not {raw!r}", _HINT)
    unknown = set(raw) - {"paths", "jsonPointers", "target", *_TARGET_KEYS}
    target = raw.get("target", {})
    if not isinstance(target, dict):
        raise UsageError(f"{label}: target must be a mapping", _HINT)
    unknown |= set(target) - set(_TARGET_KEYS)
    if unknown:
        raise UsageError(f"{label}: unknown key {sorted(map(str, unknown))[0]!r} in an ignore rule", _HINT)
    paths = raw.get("paths", raw.get("jsonPointers"))
    if not isinstance(paths, list) or not paths:
        raise UsageError(f"{label}: an ignore rule needs a non-empty list of paths", _HINT)
    picked = {k: target.get(k, raw.get(k)) for k in _TARGET_KEYS}
    fields = {k: None if v is None else _text(v, k, label) for k, v in picked.items()}
    return IgnoreRule(
        label=label,
        paths=tuple(_pointer(p, label) for p in paths),
        group=fields["group"], kind=fields["kind"], name=fields["name"], namespace=fields["namespace"],
        labels=parse_selector(fields["labelSelector"] or "", label),
        annotations=parse_selector(fields["annotationSelector"] or "", label),
    )


def _load_yaml(text: str, where: str) -> Any:
    from deployah_plan.yamlkube import pyyaml  # only when there are rules to read

    yaml = pyyaml()

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        at = f" at line {mark.line + 1}" if mark is not None else ""
        raise UsageError(f"{where}: not valid YAML{at}", _HINT) from None


def parse_flag(text: str, index: int) -> IgnoreRule:
    """`--ignore RULE`: one rule written inline as YAML or JSON."""
    label = f"--ignore #{index}"
    return parse_rule(_load_yaml(text, label), label)


def parse_file(text: str, name: str) -> list[IgnoreRule]:
    """An ignore file: a list of rules, or a mapping whose `ignore` (Flux) or
    `ignoreDifferences` (Argo CD) key holds the list."""
    raw = _load_yaml(text, name)
    if isinstance(raw, dict):
        raw = raw.get("ignore", raw.get("ignoreDifferences"))
    if not isinstance(raw, list):
        raise UsageError(f"{name}: an ignore file holds a list of rules (or ignore: [...])", _HINT)
    return [parse_rule(item, f"{name} #{i}") for i, item in enumerate(raw, 1)]


def _split(change: ResourceChange, rules: Iterable[IgnoreRule]) -> tuple[ResourceChange, bool]:
    """The change with matched fields moved aside, and whether the change is ignored whole."""
    matching = [r for r in rules if r.targets(change)]
    if not matching:
        return change, False
    if change.action is not Action.UPDATE:
        whole = [r.label for r in matching if "" in r.paths]
        return (replace(change, ignored_by=tuple(whole)), True) if whole else (change, False)
    kept: list[FieldChange] = []
    ignored, by = list(change.ignored_fields), dict.fromkeys(change.ignored_by)
    for field in change.fields:
        hits = [r.label for r in matching if r.covers(field.path)]
        if hits:
            ignored.append(field)
            by.update(dict.fromkeys(hits))
        else:
            kept.append(field)
    if not by:
        return change, False
    split = replace(change, fields=tuple(kept), ignored_fields=tuple(ignored), ignored_by=tuple(by))
    return split, not kept


def apply_ignore(plan: Plan, rules: Iterable[IgnoreRule]) -> Plan:
    """The plan with every change the rules match moved to `ignored` (whole) or to
    `ignored_fields` (in part)."""
    rule_list = list(rules)
    if not rule_list:
        return plan
    changes: list[ResourceChange] = []
    ignored = list(plan.ignored)
    for change in plan.changes:
        split, whole = _split(change, rule_list)
        (ignored if whole else changes).append(split)
    return rebuild(plan, changes=changes, ignored=ignored)


__all__ = ["IgnoreRule", "apply_ignore", "parse_file", "parse_flag", "parse_rule", "parse_selector"]
