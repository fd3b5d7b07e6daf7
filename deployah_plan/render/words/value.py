"""How a value is shown: whole when short, else around what differs (`shorten_pair`), so a
reviewer always sees the change; a field change's rows; and a created object's content as
YAML, cut at OBJECT_LINES unless --full-values."""
from __future__ import annotations

import json
import math
from typing import Any, Iterable, Mapping

from msgspec import Struct

from deployah_plan.startup import lazy
from deployah_plan.model import Cause, FieldChange, FieldOp
from deployah_plan.redact import Masked
from deployah_plan.render.words import SIGN, key_label, plural, readable_path


EQUIVALENT_SIGN = "="  # two spellings of one quantity: drawn apart from real changes

LONG_VALUE = 1_000  # a value longer than this is shown around what differs (unless --full-values)
CONTEXT = 40  # characters kept on each side of what differs in a shortened value
OBJECT_LINES = 40  # the lines a created object's content takes at most (unless --full-values)


def value_text(value: Any) -> str:
    """A value in full, as JSON (a masked value and a multi-line string say what they are)."""
    if isinstance(value, Masked):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        value = str(value)  # as the JSON document keeps it, so a saved plan shows the same
    if isinstance(value, str) and "\n" in value.rstrip("\n"):
        return f"({value.count(chr(10)) + (0 if value.endswith(chr(10)) else 1)} lines)"
    return json.dumps(value, ensure_ascii=False, default=str)  # json.dumps' separators: ", " and ": "


class View(Struct, frozen=True):
    """How much of each value a writer shows: `limit` characters of one value and `lines` of a
    created object's content, None for all of it (--full-values)."""

    limit: int | None = LONG_VALUE
    lines: int | None = OBJECT_LINES

    @classmethod
    def of(cls, full_values: bool) -> "View":
        return cls(None, None) if full_values else cls()


SHORT = View()


def _more(n: int) -> str:
    return f"…({n:,} more characters)"


def shorten(text: str, limit: int | None = LONG_VALUE) -> str:
    """A lone value (added or removed): whole up to `limit`, else its start and how much more."""
    if limit is None or len(text) <= limit:
        return text
    return text[:limit] + _more(len(text) - limit)


def _window(text: str, start: int, end: int, limit: int) -> str:
    """`text` cut to about `limit` characters, always showing text[start:end] from its start
    (what differs) with CONTEXT on each side and as much of the value's beginning as fits;
    each gap says how many characters it stands for."""
    lo, hi = max(0, start - CONTEXT), min(len(text), end + CONTEXT)
    if hi - lo > limit:  # what differs is itself long: show its start, which differs
        hi = lo + max(limit, start - lo + 1)
    room = max(limit - (hi - lo), 0)
    head = text[: min(room, lo)]
    gap = lo - len(head)
    middle = f"…({gap:,} characters elided)…" if gap else ""
    tail = _more(len(text) - hi) if hi < len(text) else ""
    return head + middle + text[lo:hi] + tail


def shorten_pair(before: str, after: str, limit: int | None = LONG_VALUE) -> tuple[str, str]:
    """Two values of one field, each whole up to `limit`; beyond it, cut around the part that
    differs: the common prefix and suffix are elided, keeping CONTEXT characters, so a change in
    the last characters of a long value (an image digest) still shows on both sides."""
    if limit is None or (len(before) <= limit and len(after) <= limit):
        return before, after
    prefix = 0
    for x, y in zip(before, after):
        if x != y:
            break
        prefix += 1
    suffix = 0
    room = min(len(before), len(after)) - prefix
    while suffix < room and before[-1 - suffix] == after[-1 - suffix]:
        suffix += 1
    return (_window(before, prefix, len(before) - suffix, limit) if len(before) > limit else before,
            _window(after, prefix, len(after) - suffix, limit) if len(after) > limit else after)


def _labels(labels: Any) -> str:
    return ", ".join(key_label(x) if isinstance(x, dict) else f"#{x}" for x in labels)


PARTS = {"json": "JSON", "yaml": "YAML", "entries": "an atomic list, replaced as a whole"}
EQUIVALENT_NOTE = " (the same quantity: not a change)"
REGENERATED_NOTE = "  (regenerated on every render)"


def _managers(managers: tuple[str, ...]) -> str:
    return ", ".join(managers)


def server_side_note(change: FieldChange) -> str:
    """What Helm 4's server-side apply does instead of the change, from the live managedFields
    ("" when nothing): a removed field another manager owns stays; a forced value is taken."""
    if change.kept_by:
        return f"  (stays: owned by {_managers(change.kept_by)})"
    if change.taken_from:
        return f"  (--force-conflicts takes it from {_managers(change.taken_from)})"
    return ""


# What moved a field change whose cause differs from its object's (render/report.py leaves the
# others' unset): core/causes.py.
CAUSE_NOTE = {Cause.CHART: "  (from the chart upgrade)", Cause.VALUES: "  (from your values)",
              Cause.BOTH: "  (from the chart upgrade and your values)"}


def _regenerated(change: FieldChange, rows: list[tuple[str, str]], at: int = 0) -> list[tuple[str, str]]:
    """The rows, with the notes on a value the chart makes anew on every render, on what
    server-side apply does with it, and on what moved it."""
    if (change.regenerated or change.kept_by or change.taken_from or change.cause is not None) and rows:
        sign, text = rows[at]
        rows[at] = (sign, text + (REGENERATED_NOTE if change.regenerated else "") + server_side_note(change)
                    + (CAUSE_NOTE[change.cause] if change.cause is not None else ""))
    return rows


def field_body(change: FieldChange, path: str, view: View = SHORT) -> str:
    """One field change on one line: `path: before -> after` (text's form)."""
    if change.op is FieldOp.ADD:
        return f"{path}: {shorten(value_text(change.after), view.limit)}"
    if change.op is FieldOp.REMOVE:
        return f"{path}: {shorten(value_text(change.before), view.limit)}"
    if change.op is FieldOp.REORDER:
        return f"{path}: reordered: {_labels(change.before)} -> {_labels(change.after)}"
    if change.op is FieldOp.RENAME:
        return f"{path}: renamed from {key_label(change.before)}"
    if change.lines or change.parts:
        return f"{path}{f' ({PARTS[change.parts_of]})' if change.parts else ''}:"
    before, after = shorten_pair(value_text(change.before), value_text(change.after), view.limit)
    return f"{path}: {before} -> {after}{EQUIVALENT_NOTE if change.equivalent else ''}"


def field_sign(change: FieldChange) -> str:
    return EQUIVALENT_SIGN if change.equivalent or change.kept_by else SIGN[change.op]


def _part_path(part: FieldChange) -> str:
    return readable_path(part.path, part.keys) if part.path else "(whole value)"


def _line_rows(change: FieldChange) -> list[tuple[str, str]]:
    """A multi-line value's line diff as (sign, text), indented under it."""
    rows = []
    for line in change.lines:
        mark = line[:1] if line[:1] in "+-" else " "
        rows.append((mark, "    " + (line if line.startswith("@@") else line[1:])))
    return rows


def inner_rows(change: FieldChange, view: View = SHORT) -> list[tuple[str, str]]:
    """A change's line diff or inner changes as (sign, text), indented under it; an inner change
    that has its own (an entry's atomic list inside an atomic list, a script inside it) brings
    them, one level deeper. A change has lines or parts, never both (core/diff.py)."""
    rows = _line_rows(change)
    for part in change.parts:
        rows += [(sign, "    " + text) for sign, text in field_rows(part, _part_path(part), view)]
    return rows


def field_rows(change: FieldChange, path: str | None = None, view: View = SHORT) -> list[tuple[str, str]]:
    """A field change (already seen through the Redactor) as rows of (sign, text): the change,
    then its line diff or inner changes, indented."""
    where = readable_path(change.path, change.keys) if path is None else path
    return _regenerated(change, [(field_sign(change), field_body(change, where, view)), *inner_rows(change, view)])


def diff_rows(change: FieldChange, path: str | None = None, view: View = SHORT) -> list[tuple[str, str]]:
    """The same rows as a unified diff draws them, for a `diff` code block that GitHub and
    GitLab colour: a replaced value is a `-` line and a `+` line; an equivalent quantity is a
    context line; reorders and renames keep `~` (not coloured)."""
    where = readable_path(change.path, change.keys) if path is None else path
    if change.op is FieldOp.REPLACE and not (change.lines or change.parts):
        before, after = shorten_pair(value_text(change.before), value_text(change.after), view.limit)
        if change.equivalent:
            return [(" ", f"{where}: {before} -> {after}{EQUIVALENT_NOTE}")]
        return _regenerated(change, [("-", f"{where}: {before}"), ("+", f"{where}: {after}")], 1)
    # A field that stays is a context line: the diff does not remove it.
    rows = _regenerated(change, [(" " if change.kept_by else field_sign(change), field_body(change, where, view))])
    for part in change.parts:
        rows += [(sign, "    " + text) for sign, text in diff_rows(part, _part_path(part), view)]
    return rows + _line_rows(change)


_PLAIN_KEY = lazy(r"[A-Za-z_][A-Za-z0-9_.\-/]*\Z")
_NOT_PLAIN = {"true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"}
_INLINE = 60  # a list of scalars shorter than this is written on one line: [get, list]


def _key_text(key: Any) -> str:
    text = str(key)
    return text if _PLAIN_KEY.match(text) and text.lower() not in _NOT_PLAIN else json.dumps(text, ensure_ascii=False)


def _scalar(value: Any, view: View) -> str:
    return shorten(value_text(value), view.limit)


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, (dict, list)) and not (isinstance(value, str) and "\n" in value.rstrip("\n"))


def _yaml(value: dict[Any, Any] | list[Any], indent: str, view: View) -> Iterable[str]:
    """A map or a list as YAML lines at `indent` (JSON scalars, which YAML reads the same)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _entry(f"{indent}{_key_text(key)}:", item, indent + "  ", view)
    else:
        for item in value:
            if isinstance(item, dict) and item:
                first = True
                for line in _yaml(item, indent + "  ", view):
                    yield (indent + "- " + line[len(indent) + 2:]) if first else line
                    first = False
            else:
                yield from _entry(f"{indent}-", item, indent + "  ", view)


def _entry(head: str, value: Any, inner: str, view: View) -> Iterable[str]:
    if isinstance(value, str) and "\n" in value.rstrip("\n"):
        yield f"{head} |"
        for line in value.rstrip("\n").split("\n"):
            yield inner + shorten(line, view.limit)
    elif isinstance(value, (dict, list)) and not value:
        yield f"{head} {'{}' if isinstance(value, dict) else '[]'}"
    elif isinstance(value, list) and all(_is_scalar(v) and not isinstance(v, Masked) for v in value) \
            and len(inline := "[" + ", ".join(_scalar(v, view) for v in value) + "]") <= _INLINE:
        yield f"{head} {inline}"
    elif isinstance(value, (dict, list)):
        yield head
        yield from _yaml(value, inner, view)
    else:
        yield f"{head} {_scalar(value, view)}"


def content_rows(obj: Mapping[str, Any], view: View = SHORT) -> tuple[list[str], int]:
    """A created object's content (already seen through the Redactor) as YAML lines, without
    what its own line says (apiVersion, kind, name, namespace), at most `view.lines` of them;
    and how many lines were left out beyond that."""
    shown = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind")}
    metadata = shown.get("metadata")
    if isinstance(metadata, dict):
        metadata = {k: v for k, v in metadata.items() if k not in ("name", "namespace")}
        if metadata:
            shown["metadata"] = metadata
        else:
            del shown["metadata"]
    lines = list(_yaml(shown, "", view))
    if view.lines is None or len(lines) <= view.lines:
        return lines, 0
    return lines[: view.lines], len(lines) - view.lines


def folded_note(count: int) -> str:
    """Said under a created object whose content was longer than its line budget."""
    return f"… {plural(count, 'more line')} (--full-values shows them; the JSON plan has the whole object)"
