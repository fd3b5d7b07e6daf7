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
they set. The objects each moved are those of the field changes the chart alone moved (cause
`chart`) from the old default to the new one, when no other default changed so (`chart_defaults`).

When the values did not change (`--reuse-values`, or no values flag, which reuses them),
nothing is rendered again: every change is the chart's (`Attribution.CHART`); nor when the chart
is the release's own, word for word: every change is the values' (`Attribution.VALUES`). Hooks
are placed as objects are (`attribute_hooks`). B may be read only where its text differs from D's
(`between_index`): an object B has word for word is D's own, and its fields are the chart's
without a diff, so the work grows with what the values change, not with the chart.
"""
from __future__ import annotations

import json
from typing import Any, Callable, Iterable, Mapping

from msgspec import Struct
from msgspec.structs import replace

from deployah_plan.core.diff import diff_objects
from deployah_plan.manifests import Document, Rendered
from deployah_plan.model import (Action, Attribution, Cause, ChartDefault, FieldChange, FieldOp, HookDefinition,
                                 ResourceChange, ResourceRef, TaskAction, TaskPlan)
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
    but for the paths `leave` names (a created object's regenerated values). The same object
    (a render's document the other has word for word) or an equal one moved nowhere: no diff."""
    if before is None or after is None:
        return [()] if before is not after else []
    if before is after or before == after:
        return []
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


def _unmatched_sibling(ref: ResourceRef, source: str, between: Indexed, desired: Indexed) -> bool:
    """Whether B has an object of the change's kind, namespace and template that D lacks."""
    return any(other.kind == ref.kind and other.group == ref.group and other.namespace == ref.namespace
               and doc.source == source and ident not in desired for ident, (other, doc) in between.items())


class _Renders(Struct, frozen=True):
    previous: Indexed
    between: Indexed
    desired: Indexed
    regenerates: bool


def _placed(action: Action, ref: ResourceRef, fields: tuple[FieldChange, ...], regenerated_paths: tuple[str, ...],
            renders: _Renders) -> tuple[tuple[FieldChange, ...], Cause | None] | None:
    """An object's field changes with their causes, and its own cause (see the module's
    docstring); None when it cannot be placed (left as it is)."""
    old, mid, new = _obj(renders.previous, ref), _obj(renders.between, ref), _obj(renders.desired, ref)
    if action is Action.CREATE:
        if mid is None:
            # A chart that makes values anew may name an object anew too (core/regenerated.py
            # `pair_names`): another name from the same template in B may be this object.
            found = renders.desired.get(ref.identity)
            if renders.regenerates and found is not None and _unmatched_sibling(ref, found[1].source, renders.between,
                                                                                renders.desired):
                return None
            return fields, Cause.VALUES
        return fields, Cause.BOTH if _moves(mid, new, regenerated_paths) else Cause.CHART
    if action in (Action.DELETE, Action.RETAIN):
        return fields, Cause.CHART if mid is None else Cause.VALUES
    if old is None or new is None:
        return None
    if mid is new or mid is old:
        # B is D (or P) word for word: every field moved by the chart (or by the values) alone, no diff needed.
        only = Cause.CHART if mid is new else Cause.VALUES
        placed = tuple(f if f.regenerated else replace(f, cause=only) for f in fields)
    else:
        by_chart, by_values = _moves(old, mid), _moves(mid, new)
        placed = tuple(f if f.regenerated else replace(f, cause=_of(_meets(_keyed(f), by_chart),
                                                                     _meets(_keyed(f), by_values)))
                       for f in fields)
    return placed, _joined(f.cause for f in placed)


def _attributed(change: ResourceChange, renders: _Renders) -> ResourceChange:
    found = _placed(change.action, change.resource, change.fields, change.regenerated_paths, renders)
    return change if found is None else replace(change, fields=found[0], cause=found[1])


def _each(change: ResourceChange, cause: Cause) -> ResourceChange:
    fields = tuple(f if f.regenerated else replace(f, cause=cause) for f in change.fields)
    if change.action is Action.UPDATE:
        return replace(change, fields=fields, cause=_joined(f.cause for f in fields))
    return replace(change, fields=fields, cause=cause)


def attribute(changes: Iterable[ResourceChange], attribution: Attribution, previous: Indexed,
              between: Indexed | None, desired: Indexed, regenerates: bool = False) -> list[ResourceChange]:
    """The changes with their causes (`cause` on each change and field change), as
    `attribution` says they were found; `between`: the new chart rendered with the previous
    values (needed for `Attribution.RENDERED`); `regenerates`: the chart may make values (and
    names) anew on every render (core/regenerated.py)."""
    if attribution in (Attribution.CHART, Attribution.VALUES):
        only = Cause.CHART if attribution is Attribution.CHART else Cause.VALUES
        return [_each(c, only) for c in changes]
    if attribution is Attribution.RENDERED and between is not None:
        renders = _Renders(previous, between, desired, regenerates)
        return [_attributed(c, renders) for c in changes]
    return list(changes)


_HOOK_ACTION = {TaskAction.CREATE: Action.CREATE, TaskAction.DELETE: Action.DELETE, TaskAction.UPDATE: Action.UPDATE}


def _hook(definition: HookDefinition, attribution: Attribution, renders: _Renders | None) -> HookDefinition:
    action = _HOOK_ACTION.get(definition.action)
    if action is None:  # unchanged: nothing moved it
        return definition
    if attribution in (Attribution.CHART, Attribution.VALUES):
        only = Cause.CHART if attribution is Attribution.CHART else Cause.VALUES
        fields = tuple(f if f.regenerated else replace(f, cause=only) for f in definition.fields)
        return replace(definition, fields=fields, cause=_joined(f.cause for f in fields) if fields else only)
    if renders is None:
        return definition
    found = _placed(action, definition.resource, definition.fields, definition.regenerated_paths, renders)
    return definition if found is None else replace(definition, fields=found[0], cause=found[1])


def attribute_hooks(tasks: Iterable[TaskPlan], attribution: Attribution, previous: Indexed, between: Indexed | None,
                    desired: Indexed, regenerates: bool = False) -> list[TaskPlan]:
    """The hooks' definitions with their causes, as `attribute` places the changes (the hooks'
    own indexes: a hook of B is matched to the hooks of P and D)."""
    renders = _Renders(previous, between, desired, regenerates) if between is not None else None
    if attribution is Attribution.NONE or (attribution is Attribution.RENDERED and renders is None):
        return list(tasks)
    return [replace(t, definitions=tuple(_hook(d, attribution, renders) for d in t.definitions)) for t in tasks]


class Given(Struct, frozen=True):
    """How the causes are found (`attribution`), and what with: `between`, the new chart
    rendered with the release's previous user values (Attribution.RENDERED), whole, or, with
    `unlike`, only its documents the desired render lacks word for word, `unlike` being the
    desired render's documents it lacks (`between_index`); the two charts' defaults, where they
    were read."""

    attribution: Attribution
    between: Rendered | None = None
    unlike: Rendered | None = None
    defaults: Defaults | None = None


def place(index: Callable[[Iterable[Document], str], Indexed], given: Given, regenerates: bool,
          changes: list[ResourceChange], tasks: list[TaskPlan], previous: tuple[Indexed, Indexed],
          desired: tuple[Indexed, Indexed]) -> tuple[list[ResourceChange], list[TaskPlan], tuple[ChartDefault, ...]]:
    """The changes and hooks with their causes, and the chart defaults that changed under the
    user; `previous` and `desired`: the objects and hooks of each side, indexed by `index`
    (core/planner.py `_Identifier.index`), which indexes `between` too; `regenerates`: the chart
    may make values and names anew on every render (core/regenerated.py)."""
    objects: Indexed | None = None
    hooks: Indexed | None = None
    if given.between is not None:
        objects, hooks = index(given.between.resources, "desired"), index(given.between.hooks, "desired hook")
        if given.unlike is not None:
            objects = between_index(desired[0], objects, index(given.unlike.resources, "desired"))
            hooks = between_index(desired[1], hooks, index(given.unlike.hooks, "desired hook"))
    changes = attribute(changes, given.attribution, previous[0], objects, desired[0], regenerates)
    tasks = attribute_hooks(tasks, given.attribution, previous[1], hooks, desired[1], regenerates)
    found = chart_defaults(given.defaults, changes) if given.defaults is not None else ()
    return changes, tasks, found


def between_index(desired: Indexed, differing: Indexed, unlike: Iterable[Identity]) -> Indexed:
    """B's objects when only its documents that D lacks word for word were read (`differing`):
    every object of D but those whose documents B lacks (`unlike`, D's documents read again to
    name them) is B's as it is (the same object, so attributed without a diff)."""
    gone = set(unlike)
    return {**{i: found for i, found in desired.items() if i not in gone}, **differing}


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


def _same(a: Any, b: Any) -> bool:
    return a == b and type(a) is type(b)


_GONE = object()


def chart_defaults(defaults: Defaults, changes: Iterable[ResourceChange]) -> tuple[ChartDefault, ...]:
    """The chart's defaults that changed and the user does not set, each with the objects it
    moved, as far as the attribution tells: a field change the chart alone moved (cause
    `chart`), from the old default to the new one, both telling values of the same type, and
    no other default of the chart (set by the user or not) changed from that value to that
    one, so that the field is this default's and no other's. When it cannot be told (a field
    the values moved too, two defaults of one change, a change of the templates alone that
    looks like a default's), fewer objects are named, never more."""
    before, after = _leaves(defaults.before), _leaves(defaults.after)
    changed: dict[tuple[str, ...], tuple[Any, Any]] = {}
    for key in set(before) | set(after):
        old, new = before.get(key, _GONE), after.get(key, _GONE)
        if old is not _GONE and new is not _GONE and _same(old, new):
            continue
        changed[key] = (old, new)
    # Each (old, new) pair a single changed default makes; a pair two make names no object.
    pairs: dict[tuple[str, str], list[tuple[str, ...]]] = {}
    for key, (old, new) in changed.items():
        if _telling(old) and _telling(new):
            pairs.setdefault((repr(old), repr(new)), []).append(key)
    moved_by: dict[tuple[str, ...], list[ResourceRef]] = {}
    for change in changes:
        for f in change.fields:
            if f.cause is not Cause.CHART or f.op is not FieldOp.REPLACE or not (_telling(f.before) and _telling(f.after)):
                continue
            keys = pairs.get((repr(f.before), repr(f.after)), [])
            if len(keys) == 1 and _same(f.before, changed[keys[0]][0]) and _same(f.after, changed[keys[0]][1]):
                moved_by.setdefault(keys[0], []).append(change.resource)
    out = []
    for key in sorted(changed):
        if any(key[:len(user)] == user[:len(key)] for user in defaults.user_keys):
            continue
        old, new = changed[key]
        op = FieldOp.ADD if old is _GONE else FieldOp.REMOVE if new is _GONE else FieldOp.REPLACE
        moved = tuple(dict.fromkeys(moved_by.get(key, ())))
        out.append(ChartDefault(".".join(key), op, None if old is _GONE else old, None if new is _GONE else new, moved))
    return tuple(out)
