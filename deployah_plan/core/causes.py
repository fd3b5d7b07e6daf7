"""Why each change: the new chart, the values, or both. Pure.

An upgrade that takes a new chart and new values moves objects for either reason. The sources
render the new chart a second way, with the release's previous user values (`between`), beside
the desired render; then, for the previous release P, that render B and the desired render D:
- a field that moved from P to B moved by the chart (its templates, its defaults), a field that
  moved from B to D moved by the values; one that moved in both is `both`;
- an object the plan creates is the chart's when B has it already (the new chart adds it with
  the old values), the values' when B lacks it, and `both` when the values changed it further;
- an object the plan deletes is the chart's when B lacks it, the values' when B still has it.
A field is matched to the moves by its JSON Pointer, a keyed list entry by its key, so an entry
the values insert does not shift the others; a field change whose pointer meets no move (an
unkeyed list whose entries shifted) has no cause rather than a guessed one, and so has a value
the chart makes anew on every render (core/regenerated.py): two renders differ there anyway.

The chart's defaults that changed under the user (`chart_defaults`): the previous chart's
values.yaml (as the release stored it) against the new chart's, leaf by leaf (a map's keys,
dotted; a list is one value), less every key the user's values set, or a key above or below one
they set. The objects each moved are the chart's field changes (cause `chart` or `both`) from
the old default to the new one, a value neither empty nor a bool (too common to tell apart).

When the values did not change (`--reuse-values`, or no values flag, which reuses them),
nothing is rendered again: every change is the chart's (`Attribution.CHART`).
"""
from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

from msgspec import Struct
from msgspec.structs import replace

from deployah_plan.core.diff import diff_objects
from deployah_plan.manifests import Document
from deployah_plan.model import Action, Attribution, Cause, ChartDefault, FieldChange, FieldOp, ResourceChange, ResourceRef
from deployah_plan.pointer import tokens

Identity = tuple[str, str, str, str]
Indexed = Mapping[Identity, tuple[ResourceRef, Document]]
Path = tuple[str, ...]


def _keyed(change: FieldChange) -> Path:
    """The change's pointer with each keyed list entry named by its key, not its index."""
    parts = tokens(change.path)
    for entry, key in change.keys:
        at = len(tokens(entry)) - 1
        if 0 <= at < len(parts):
            parts[at] = "{" + json.dumps(dict(key), sort_keys=True, default=str) + "}"
    return tuple(parts)


def _moves(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None,
           leave: Iterable[str] = ()) -> list[Path]:
    """Where an object moved between two renders (the whole object when one side lacks it),
    but for the paths `leave` names (a created object's regenerated values)."""
    if before is None or after is None:
        return [()] if before is not after else []
    skipped = [tuple(tokens(path)) for path in leave]
    moved = [_keyed(f) for f in diff_objects(before, after) if not f.equivalent]
    return [path for path in moved if not any(path[:len(s)] == s for s in skipped)]


def _meets(path: Path, moves: list[Path]) -> bool:
    return any(path[:len(m)] == m[:len(path)] for m in moves)


def _of(by_chart: bool, by_values: bool) -> Cause | None:
    if by_chart and by_values:
        return Cause.BOTH
    return Cause.CHART if by_chart else Cause.VALUES if by_values else None


def _joined(causes: Iterable[Cause | None]) -> Cause | None:
    """An object's cause from its field changes': the one they share, else both; None when none has one."""
    found = {c for c in causes if c is not None}
    if not found:
        return None
    return found.pop() if len(found) == 1 else Cause.BOTH


def _obj(index: Indexed, ref: ResourceRef) -> Mapping[str, Any] | None:
    found = index.get(ref.identity)
    return found[1].obj if found is not None else None


def _unmatched_sibling(change: ResourceChange, between: Indexed, desired: Indexed) -> bool:
    """Whether B has an object of the change's kind, namespace and template that D lacks."""
    ref, source = change.resource, change.source
    return any(other.kind == ref.kind and other.group == ref.group and other.namespace == ref.namespace
               and doc.source == source and ident not in desired for ident, (other, doc) in between.items())


def _attributed(change: ResourceChange, previous: Indexed, between: Indexed, desired: Indexed,
                regenerates: bool) -> ResourceChange:
    ref = change.resource
    old, mid, new = _obj(previous, ref), _obj(between, ref), _obj(desired, ref)
    if change.action is Action.CREATE:
        if mid is None:
            # A chart that makes values anew may name an object anew too (core/regenerated.py
            # `pair_names`): another name from the same template in B may be this object.
            if regenerates and _unmatched_sibling(change, between, desired):
                return change
            return replace(change, cause=Cause.VALUES)
        moved = _moves(mid, new, change.regenerated_paths)
        return replace(change, cause=Cause.BOTH if moved else Cause.CHART)
    if change.action in (Action.DELETE, Action.RETAIN):
        return replace(change, cause=Cause.CHART if mid is None else Cause.VALUES)
    if old is None or new is None:
        return change
    by_chart, by_values = _moves(old, mid), _moves(mid, new)
    fields = tuple(f if f.regenerated else replace(f, cause=_of(_meets(_keyed(f), by_chart),
                                                                 _meets(_keyed(f), by_values)))
                   for f in change.fields)
    return replace(change, fields=fields, cause=_joined(f.cause for f in fields))


def _the_charts(change: ResourceChange) -> ResourceChange:
    fields = tuple(f if f.regenerated else replace(f, cause=Cause.CHART) for f in change.fields)
    if change.action is Action.UPDATE:
        return replace(change, fields=fields, cause=_joined(f.cause for f in fields))
    return replace(change, fields=fields, cause=Cause.CHART)


def attribute(changes: Iterable[ResourceChange], attribution: Attribution, previous: Indexed,
              between: Indexed | None, desired: Indexed, regenerates: bool = False) -> list[ResourceChange]:
    """The changes with their causes (`cause` on each change and field change), as
    `attribution` says they were found; `between`: the new chart rendered with the previous
    values (needed for `Attribution.RENDERED`); `regenerates`: the chart may make values (and
    names) anew on every render (core/regenerated.py)."""
    if attribution is Attribution.CHART:
        return [_the_charts(c) for c in changes]
    if attribution is Attribution.RENDERED and between is not None:
        return [_attributed(c, previous, between, desired, regenerates) for c in changes]
    return list(changes)


class Defaults(Struct, frozen=True):
    """What the chart defaults are compared with: the previous chart's values.yaml, the new
    chart's, and the keys the user's values set (each a tuple of map keys)."""

    before: Mapping[str, Any]
    after: Mapping[str, Any]
    user_keys: tuple[tuple[str, ...], ...]


def _leaves(values: Any, at: tuple[str, ...] = ()) -> dict[tuple[str, ...], Any]:
    if isinstance(values, Mapping) and values:
        out: dict[tuple[str, ...], Any] = {}
        for key, value in values.items():
            out.update(_leaves(value, (*at, str(key))))
        return out
    return {at: values} if at else {}


def _telling(value: Any) -> bool:
    """A value that tells its default's field apart: not empty, not a bool, not a container."""
    return value is not None and not isinstance(value, (bool, dict, list)) and value != ""


def _same(field: Any, default: Any) -> bool:
    return field == default or (isinstance(field, str) and not isinstance(default, str) and field == str(default))


_GONE = object()


def chart_defaults(defaults: Defaults, changes: Iterable[ResourceChange]) -> tuple[ChartDefault, ...]:
    """The chart's defaults that changed and the user does not set, each with the objects it
    moved, as far as the chart's field changes tell (see the module's docstring)."""
    before, after = _leaves(defaults.before), _leaves(defaults.after)
    by_chart = [(c.resource, f) for c in changes for f in c.fields
                if f.cause in (Cause.CHART, Cause.BOTH) and f.op is FieldOp.REPLACE]
    out = []
    for key in sorted(set(before) | set(after)):
        old, new = before.get(key, _GONE), after.get(key, _GONE)
        if old is not _GONE and new is not _GONE and old == new and type(old) is type(new):
            continue
        if any(key[:len(user)] == user[:len(key)] for user in defaults.user_keys):
            continue
        op = FieldOp.ADD if old is _GONE else FieldOp.REMOVE if new is _GONE else FieldOp.REPLACE
        moved: tuple[ResourceRef, ...] = ()
        if op is FieldOp.REPLACE and _telling(old) and _telling(new):
            moved = tuple(dict.fromkeys(ref for ref, f in by_chart if _same(f.before, old) and _same(f.after, new)))
        out.append(ChartDefault(".".join(key), op, None if old is _GONE else old, None if new is _GONE else new, moved))
    return tuple(out)
