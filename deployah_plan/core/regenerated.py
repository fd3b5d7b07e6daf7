"""Values a chart generates anew on every render, found from the renders themselves. Pure.

Templates that call `randAlphaNum`, `genCA`, `genSelfSignedCert`, `uuidv4` or `now` (and
checksums of what they make) give a new value on every render, so an upgrade with unchanged
inputs still changes them. Two facts show such a value, without guessing from names:
- the desired state was rendered twice with the same inputs (the sources run a second render
  alongside the first), and the field differs between the two renders;
- the value is the time of the render (`now`, which two renders within one second share): a
  timestamp, or Unix seconds, within the window the renders ran in. A Secret's `data` values
  are decoded from base64 first.
Such a field change is marked `regenerated`: a real change Helm applies, and one the chart
makes on every deploy, not one the user asked for. A multi-line value is told apart line by line
(a PEM block one line): when a line the two renders share differs from the previous value, the
inputs changed it too, and the field is not marked.

A name can be generated too (jenkins' test Pod, `{{ .Release.Name }}-ui-test-{{ randAlphaNum 5 |
lower }}`): the two renders name the object differently. `pair_names` finds such objects (same
kind, namespace and `# Source:` in both renders, each render's name missing from the other)
and the previous release's object of the same template, so the planner sees one object whose
`metadata.name` is regenerated, not a delete and a create.
"""
from __future__ import annotations

import base64
import binascii
import datetime
import os
from typing import Any, Mapping, TypeVar

from msgspec import Struct
from msgspec.structs import replace

from deployah_plan.startup import lazy
from deployah_plan.core.diff import diff_objects
from deployah_plan.manifests import Document
from deployah_plan.model import Action, FieldChange, FieldOp, ResourceChange, ResourceRef, TaskAction, TaskPlan
from deployah_plan.pointer import escape, tokens

# RFC 3339, and Go's own form of a time (what `{{ now }}` prints: "2025-01-02 15:04:05.999 +0000 UTC m=+0.01").
_TIMESTAMP = lazy(r"(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d+)? ?(Z|[+-]\d{2}:?\d{2})?"
                        r"(?: [A-Z]{3,5})?(?: m=[+-][0-9.]+)?")
_SLACK = 2.0  # seconds either side of the render window (timestamps are truncated to the second)
_PEM = lazy(r"(?s)-----BEGIN [A-Z0-9 ]+-----.*?-----END [A-Z0-9 ]+-----")


class Renders(Struct, frozen=True):
    """What the sources know about the desired render: a second render of the same inputs (by
    identity, the objects of each), and when the renders ran (Unix seconds, start and end)."""

    again: Mapping[tuple[str, str, str, str], Mapping[str, Any]]
    window: tuple[float, float]


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + "/")


def _seconds(text: str) -> float | None:
    found = _TIMESTAMP.fullmatch(text)
    if not found:
        return None
    day, clock, fraction, zone = found.groups()
    zone = "+00:00" if zone in (None, "Z") else zone if ":" in zone else f"{zone[:3]}:{zone[3:]}"
    try:
        # Python 3.10 reads a fraction of exactly 3 or 6 digits.
        parsed = datetime.datetime.fromisoformat(f"{day}T{clock}{fraction[:7].ljust(7, '0') if fraction else ''}{zone}")
    except ValueError:
        return None
    return parsed.timestamp()


def is_render_time(value: Any, window: tuple[float, float], secret: bool = False) -> bool:
    """The value is the time the chart was rendered (`now`): a timestamp, or Unix seconds."""
    if secret and isinstance(value, str):
        try:
            value = base64.b64decode(value, validate=True).decode()
        except (binascii.Error, ValueError):
            return False
    start, end = window[0] - _SLACK, window[1] + _SLACK
    if isinstance(value, str):
        when = _seconds(value.strip())
        if when is None and value.strip().isdigit() and len(value.strip()) == 10:
            when = float(value.strip())
        return when is not None and start <= when <= end
    if isinstance(value, int) and not isinstance(value, bool):
        return start <= value <= end
    return False


def _units(value: Any, secret: bool) -> list[str] | None:
    """A text's lines, each PEM block one line (a certificate is made whole, and its dates sit in a
    line two renders of the same second share); None for what is not text."""
    if secret and isinstance(value, str):
        try:
            value = base64.b64decode(value, validate=True).decode()
        except (binascii.Error, ValueError):
            return None
    if not isinstance(value, str):
        return None
    return _PEM.sub(lambda block: block.group(0).replace("\n", " "), value).splitlines()


def _real_lines(before: Any, after: Any, again: Any, secret: bool) -> bool:
    """A multi-line value whose lines two renders of the same inputs make differently (a generated
    password in a config file), and that differs from the previous value in another line: a real
    change carried beside the regenerated one. When the lines do not line up, nothing is told apart."""
    old, new, second = (_units(v, secret) for v in (before, after, again))
    if old is None or new is None or second is None or len(new) < 2 or not len(old) == len(new) == len(second):
        return False
    moving = {n for n, (a, b) in enumerate(zip(new, second)) if a != b}
    return any(o != n for i, (o, n) in enumerate(zip(old, new)) if i not in moving)


def _at(obj: Any, path: str) -> Any:
    for token in tokens(path):
        if isinstance(obj, dict):
            obj = obj.get(token)
        elif isinstance(obj, list) and token.isdigit() and int(token) < len(obj):
            obj = obj[int(token)]
        else:
            return None
    return obj


def _marked(ref: ResourceRef, after: Mapping[str, Any] | None, fields: tuple[FieldChange, ...],
            renders: Renders) -> tuple[FieldChange, ...]:
    if after is None or not fields:
        return fields
    again = renders.again.get(ref.identity)
    varies = [f.path for f in diff_objects(after, again)] if again is not None else []
    secret = ref.kind == "Secret" and ref.group == ""
    marked = []
    for f in fields:
        regenerated = any(_under(f.path, p) for p in varies) or (
            f.op in (FieldOp.ADD, FieldOp.REPLACE) and not f.parts
            and is_render_time(f.after, renders.window, secret and f.path.startswith("/data/")))
        if regenerated and f.op is FieldOp.REPLACE and f.path in varies and _real_lines(
                f.before, f.after, _at(again, f.path), secret and f.path.startswith("/data/")):
            regenerated = False
        marked.append(replace(f, regenerated=True) if regenerated and not f.equivalent else f)
    return tuple(marked)


def _leaves(value: Any, at: str = "") -> list[tuple[str, Any]]:
    if isinstance(value, Mapping):
        return [leaf for key, item in value.items() for leaf in _leaves(item, f"{at}/{escape(str(key))}")]
    if isinstance(value, list):
        return [leaf for n, item in enumerate(value) for leaf in _leaves(item, f"{at}/{n}")]
    return [(at, value)]


def _created(ref: ResourceRef, after: Mapping[str, Any] | None, renders: Renders) -> tuple[str, ...]:
    """The fields of a created object that differ between the two renders, or hold the
    render's time: what the chart makes anew on every render, by JSON Pointer."""
    if after is None:
        return ()
    again = renders.again.get(ref.identity)
    varies = {f.path for f in diff_objects(after, again)} if again is not None else set()
    secret = ref.kind == "Secret" and ref.group == ""
    timed = {path for path, value in _leaves(after)
             if is_render_time(value, renders.window, secret and path.startswith("/data/"))}
    return tuple(sorted(varies | timed))


def mark(change: ResourceChange, renders: Renders) -> ResourceChange:
    """The change with each field change the chart regenerates marked `regenerated`; a
    create, with the paths of its object the chart regenerates."""
    if change.action is Action.CREATE:
        return replace(change, regenerated_paths=_created(change.resource, change.after, renders))
    return replace(change, fields=_marked(change.resource, change.after, change.fields, renders))


def mark_hooks(task: TaskPlan, renders: Renders) -> TaskPlan:
    """The task with its hook definitions' regenerated field changes marked (a created hook's
    regenerated paths)."""
    if not task.definitions:
        return task
    return replace(task, definitions=tuple(
        replace(d, regenerated_paths=_created(d.resource, d.after, renders)) if d.action is TaskAction.CREATE
        else replace(d, fields=_marked(d.resource, d.after, d.fields, renders)) for d in task.definitions))


Identity = tuple[str, str, str, str]
Indexed = Mapping[Identity, tuple[ResourceRef, Document]]
_T = TypeVar("_T")


def _template(ref: ResourceRef, doc: Document) -> tuple[str, str, str, str]:
    return (ref.group, ref.kind, ref.namespace, doc.source)


def _by_template(index: Indexed, leave: Mapping[Identity, Any]) -> dict[tuple[str, str, str, str], list[Identity]]:
    """The objects of `index` whose identity `leave` lacks, by kind, namespace and template, in order."""
    out: dict[tuple[str, str, str, str], list[Identity]] = {}
    for ident, (ref, doc) in sorted(index.items(), key=lambda item: item[1][1].position):
        if ident not in leave and doc.source and not ref.generate_name:
            out.setdefault(_template(ref, doc), []).append(ident)
    return out


def _stem(a: str, b: str) -> tuple[str, str]:
    """What two names share before and after the part that differs."""
    head = os.path.commonprefix([a, b])
    tail = os.path.commonprefix([a[len(head):][::-1], b[len(head):][::-1]])[::-1]
    return head, tail


def _rekey(index: Mapping[Identity, _T], moved: Mapping[Identity, Identity]) -> dict[Identity, _T]:
    return {moved.get(ident, ident): value for ident, value in index.items()}


def pair_names(previous: Indexed, desired: Indexed, again: Indexed,
               ) -> tuple[dict[Identity, tuple[ResourceRef, Document]], dict[Identity, tuple[ResourceRef, Document]]]:
    """The second render and the previous release, each object whose name the chart generates
    keyed by the identity the desired render gives it (its own ref and object kept: the name
    differs, marked regenerated by the diff of the two renders).

    An object is named by the chart when the two renders of the same inputs name it
    differently: same kind, namespace and template source, each name absent from the other
    render (when a template makes several, the one whose content differs least). Its previous
    object is the one of the same kind, namespace and template that the desired render does
    not have, with a name as long: the only one, or the one whose name keeps what the two
    renders' names share around the generated part."""
    generated = _by_template(desired, again)
    varying = _by_template(again, desired)
    to_first: dict[Identity, Identity] = {}
    stems: dict[Identity, tuple[str, str]] = {}
    for template, seconds in varying.items():
        # The second render holds only what differs from the first: an object of the same
        # template that it lacks may be one that renders the same each time. The one that
        # differs least from the second render's is its first render.
        open_firsts = list(generated.get(template, ()))
        for second in seconds:
            if not open_firsts:
                break
            first = min(open_firsts, key=lambda f: len(diff_objects(desired[f][1].obj, again[second][1].obj)))
            open_firsts.remove(first)
            to_first[second] = first
            stems[first] = _stem(desired[first][0].name, again[second][0].name)
    gone = _by_template(previous, desired)
    from_previous: dict[Identity, Identity] = {}
    for template, firsts in generated.items():
        named = [f for f in firsts if f in stems]
        olds = gone.get(template, [])
        if len(named) == 1 and len(olds) == 1 and len(previous[olds[0]][0].name) == len(desired[named[0]][0].name):
            from_previous[olds[0]] = named[0]
            continue
        for first in named:
            head, tail = stems[first]
            fits = [o for o in olds if o not in from_previous and previous[o][0].name.startswith(head)
                    and previous[o][0].name.endswith(tail)
                    and len(previous[o][0].name) == len(desired[first][0].name)]
            if len(fits) == 1:
                from_previous[fits[0]] = first
    return _rekey(again, to_first), _rekey(previous, from_previous)


__all__ = ["Renders", "is_render_time", "mark", "mark_hooks", "pair_names"]
