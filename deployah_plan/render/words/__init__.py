"""The words every writer shares: signs, titles, the summary sentence, task lines, and how a
value is shown (shortened around what differs, so a reviewer always sees the change).

Text and markdown both say these; the JSON document keeps the facts they come from. Nothing
here decides anything about the plan (render/report.py does); it only words what is decided.
"""
from __future__ import annotations

import json
import math
from typing import Any, Callable, Iterable, Mapping, TypeVar

from msgspec import Struct

from deployah_plan.lazy_re import lazy
from deployah_plan.codes import Code
from deployah_plan.pointer import escape, tokens
from deployah_plan.impacts import ImpactKind
from deployah_plan.model import (
    Action, CRDLifecycle, CRDSchemaChange, CRDSummary, ChartCRD, DriftChange, DriftEffect, DriftField, DriftKind,
    DriftReason, FieldChange, FieldOp, HelmAction, Impact, Ownership, Plan, ResourceChange, SsaReason, TaskAction,
    TaskPhase, TaskPlan, Warning,
)
from deployah_plan.redact import Masked
from deployah_plan.render.highlight import Highlight
from deployah_plan.escape import UNPRINTABLE as UNPRINTABLE, escape_controls as escape_controls  # shown by every writer


SIGN = {Action.CREATE: "+", Action.UPDATE: "~", Action.DELETE: "-", Action.RETAIN: "=",
        FieldOp.ADD: "+", FieldOp.REMOVE: "-", FieldOp.REPLACE: "~", FieldOp.REORDER: "~", FieldOp.RENAME: "~"}
EQUIVALENT_SIGN = "="  # two spellings of one quantity: drawn apart from real changes
VERB = {HelmAction.INSTALL: "install", HelmAction.UPGRADE: "upgrade", HelmAction.NONE: "upgrade",
        HelmAction.ROLLBACK: "rollback", HelmAction.UNINSTALL: "uninstall"}
LONG_VALUE = 1_000  # a value longer than this is shown around what differs (unless --full-values)
CONTEXT = 40  # characters kept on each side of what differs in a shortened value
OBJECT_LINES = 40  # the lines a created object's content takes at most (unless --full-values)


_F = TypeVar("_F", bound=Callable[..., Any])


class Wording:
    """A table of wording functions by what they word (a warning code, an impact kind): a
    decorator that enters a function under each key it is given."""

    def __init__(self, table: dict[Any, Callable[..., Any]]) -> None:
        self.table = table

    def __call__(self, *keys: Any) -> Callable[[_F], _F]:
        def register(function: _F) -> _F:
            for key in keys:
                self.table[key] = function
            return function
        return register


_IDENT = lazy(r"[A-Za-z_][A-Za-z0-9_-]*\Z")


def key_label(key: Mapping[str, Any]) -> str:
    return ",".join(f"{field}={value}" for field, value in key.items())


def readable_path(pointer: str, keys: Iterable[tuple[str, Mapping[str, Any]]] = ()) -> str:
    """`/spec/containers/0/image` -> `spec.containers[0].image`, or `spec.containers[name=app].image`
    when the entry's key is known (`keys`: pointer of each keyed entry, its key fields)."""
    if not pointer:
        return "(whole object)"
    by_prefix = dict(keys)
    out, prefix = "", ""
    for token in tokens(pointer):
        prefix += "/" + escape(token)
        if prefix in by_prefix:
            out += f"[{key_label(by_prefix[prefix])}]"
        elif token.isdigit():
            out += f"[{token}]"
        elif _IDENT.match(token):
            out += f".{token}" if out else token
        else:
            out += f"[{json.dumps(token)}]"
    return out


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


# -- values -----------------------------------------------------------------------------------

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


def _regenerated(change: FieldChange, rows: list[tuple[str, str]], at: int = 0) -> list[tuple[str, str]]:
    """The rows, with the note on a value the chart makes anew on every render."""
    if change.regenerated and rows:
        sign, text = rows[at]
        rows[at] = (sign, text + REGENERATED_NOTE)
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
    return EQUIVALENT_SIGN if change.equivalent else SIGN[change.op]


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
    rows = _regenerated(change, [(field_sign(change), field_body(change, where, view))])
    for part in change.parts:
        rows += [(sign, "    " + text) for sign, text in diff_rows(part, _part_path(part), view)]
    return rows + _line_rows(change)


# -- what matters ------------------------------------------------------------------------------

HIGHLIGHTS_TITLE = "What matters (the details follow):"
HIGHLIGHTS = 30  # lines of "what matters" at most; the rest are counted


def more_highlights(count: int) -> str:
    return f"… and {count:,} more (see the details)"
NAMES = 8  # objects named on one line of "what matters"; the rest are counted


def names(refs: Iterable[Any], notes: Iterable[str] = ()) -> str:
    """Objects named in a row, each with its note ("Deployment ns/web (app)"), at most NAMES
    of them and then how many more."""
    notes = list(notes)
    listed = [f"{ref} ({notes[n]})" if n < len(notes) and notes[n] else str(ref) for n, ref in enumerate(refs)]
    more = len(listed) - NAMES
    return ", ".join(listed[:NAMES]) + (f" and {more:,} more" if more > 0 else "")


def highlight_text(item: Highlight, view: View = SHORT) -> str:
    """One line of "what matters", without its sign."""
    what = item.what.value
    if what in ("failure", "data-loss"):
        return item.detail[0]
    if what == "delete":
        verb = "deleted" if item.sign == "-" else "leaving the release, kept in the cluster"
        return f"{verb}: {names(item.resources)}"
    if what == "image":
        if item.before is None:
            image = shorten(value_text(item.after), view.limit)
        else:
            before, after = shorten_pair(value_text(item.before), value_text(item.after), view.limit)
            image = f"{before} -> {after}"
        return f"image {image} in {names(item.resources, item.detail)}"
    label = {"rbac": "RBAC", "webhook": "admission webhook", "secret": "Secret keys"}[what]
    if item.sign == "+":
        return f"new {label}{'s' if what == 'webhook' and len(item.resources) > 1 else ''}: {names(item.resources)}"
    return f"{label}: {item.resources[0]}: {', '.join(item.detail)}{'' if what == 'secret' else ' changed'}"


# -- a created object's content ------------------------------------------------------------------

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


# -- the summary --------------------------------------------------------------------------------

def hooks_text(plan: Plan) -> str:
    """What the hooks do, counting those that run on this action apart from definitions that
    only change what the release stores."""
    s, verb = plan.summary, VERB[plan.helm_action]
    parts = []
    if s.hooks_run:
        changed = f" ({s.hooks_changed} changed)" if s.hooks_changed else ""
        parts.append(f"{plural(s.hooks_run, 'hook')} run{'s' if s.hooks_run == 1 else ''}{changed}")
    if s.hooks_stored:
        parts.append(f"{plural(s.hooks_stored, 'hook definition')} change{'s' if s.hooks_stored == 1 else ''} "
                     f"without running on {verb} (stored in the release)")
    return "; ".join(parts) + "." if parts else ""


def failures_text(plan: Plan) -> str:
    n = plan.summary.failures
    if not n:
        return ""
    return f"{plural(n, 'predicted failure')}: this {VERB[plan.helm_action]} would fail."


def crds_text(plan: Plan) -> str:
    n = sum(1 for c in plan.chart_crds if c.chart_changed)
    new = sum(1 for c in plan.chart_crds if crd_is_new(plan, c))
    if new:
        what = f"{plural(n, 'chart CRD')} changed and {plural(new, 'new one')}" if n else plural(new, "new chart CRD")
        return f"{what} that Helm will not apply (see the warnings)."
    return f"{plural(n, 'chart CRD')} changed that Helm will not apply (see the warnings)." if n else ""


def summary_text(plan: Plan) -> str:
    """The last line of the plan."""
    s = plan.summary
    fails = " ".join(x for x in (crds_text(plan), failures_text(plan)) if x)
    if plan.helm_action is HelmAction.NONE:
        runs = s.hooks_run
        run_hooks = f"{runs} upgrade hook{'s' if runs != 1 else ''}"
        if not plan.header.previous_revision:
            text = f"No changes. An upgrade would still run {run_hooks}." if runs else "No changes."
            if fails:
                text = text.replace("No changes.", "No changes to the release.")
        else:
            extra = f" and run {run_hooks}" if runs else ""
            text = f"No changes. helm upgrade would still record revision {plan.header.revision}{extra}."
        return f"{text} {fails}" if fails else text
    text = f"Plan: {s.create} to create, {s.update} to update, {s.delete} to delete."
    if s.retain:
        text = text[:-1] + f", {s.retain} to keep."
    hooks = hooks_text(plan)  # starts with a count: "2 hooks run."
    if hooks:
        text += " " + hooks
    if s.regenerated:
        text += (f" {plural(s.regenerated, 'update')} only change{'s' if s.regenerated == 1 else ''} values the "
                 "chart generates anew on every render (random values, certificates, timestamps).")
    if s.drift_reverted:
        text += f" {plural(s.drift_reverted, 'drifted object')} set back to the chart."
    if s.ignored:
        text += f" {s.ignored} ignored."
    if fails:
        text += " " + fails
    return text


def header_lines(plan: Plan) -> list[str]:
    """The title, then what the plan is planned from and how it was rendered."""
    h = plan.header
    context = f" (context {h.kube_context})" if h.kube_context else ""
    lines = [f"helm plan: {VERB[plan.helm_action]} release {h.release} in namespace {h.namespace}{context}"]
    chart = f"{h.chart_name} {h.chart_version}".strip()
    if plan.helm_action is HelmAction.ROLLBACK:
        back = f"{h.chart_name}-{h.chart_version}" if h.chart_name else "unknown chart"
        lines.append(f"from revision {h.previous_revision} ({h.previous_chart or 'unknown chart'}) back to revision "
                     f"{h.rollback_to} ({back}); this would create revision {h.revision}")
        return lines
    if plan.helm_action is HelmAction.UNINSTALL:
        lines.append(f"chart {h.previous_chart or '(unknown)'} at revision {h.previous_revision}: every resource of "
                     "the release is removed")
        return lines
    if h.fresh_install:
        lines.append(f"chart {chart or '(unknown)'}; a fresh install, creating revision {h.revision}")
    elif not h.previous_revision:
        lines.append("an upgrade from the given previous manifest")
    else:
        was = f", from {h.previous_chart}" if h.previous_chart else ""
        lines.append(f"chart {chart or '(unknown)'}{was} at revision {h.previous_revision}; this would create revision {h.revision}")
    how = {"template": "helm template (offline)", "server": "helm upgrade --dry-run=server",
           "files": "the given files"}.get(h.rendered_by, h.rendered_by)
    helm = f", Helm {h.helm_version}" if h.helm_version else ""
    lines.append(f"desired state rendered by {how}{helm}")
    return lines


def resources_title(plan: Plan) -> str:
    return f"Resources, in the order Helm {'deletes' if plan.helm_action is HelmAction.UNINSTALL else 'applies'} them:"


TASKS_TITLE = "Tasks (Helm hooks and CronJobs), in the order Helm runs them:"
DRIFT_TITLE = "Drift (live vs the previous release):"
CRDS_TITLE = "Chart CRDs (crds/):"
WARNINGS_TITLE = "Warnings and notes:"
IGNORED_TITLE = "Ignored (matched by ignore rules; not counted):"
NOT_CHECKED_TITLE = "Not checked:"


def common_heading(resources: int, hooks: int) -> str:
    """"on 13 resources and 7 hooks": the objects a group of common changes is on."""
    parts = [plural(resources, "resource")] if resources else []
    if hooks:
        parts.append(plural(hooks, "hook"))
    return "on " + " and ".join(parts)


def common_title(only_group: str = "") -> str:
    """The title of the common changes; with a single group, its heading is in the title."""
    where = f" {only_group}" if only_group else ""
    return f"Common changes{where} (said once here, not under each object):"


def template_note(count: int) -> str:
    """For a common label change: how many objects carry it in their pod template too."""
    return f"  (also in the pod template of {count})" if count else ""


def action_text(action: str, own: int, common: int) -> str:
    """An object's action, and how many of its field changes are said once among the common
    changes: "update: only common changes", "update, and 2 common changes"."""
    if not common:
        return action
    return f"{action}: only common changes" if not own else f"{action}, and {plural(common, 'common change')}"


def suppressed_note(kind: str, hidden: int, content: bool = False) -> str:
    """An object or hook of a kind whose field changes and content are not shown (--suppress
    KIND): "2 field changes not shown", "content not shown" ("" when nothing was left out)."""
    what = [plural(hidden, 'field change')] if hidden else []
    what += ["content"] if content else []
    return f"{' and '.join(what)} not shown: --suppress {kind}" if what else ""


def policy_text(policy: str, rows: int) -> str:
    """A delete policy said once for the `rows` hooks above it."""
    return policy if rows < 2 else f"these {rows} hooks: {policy}"


def again_text(names: list[str], weights: list[int], again: str) -> str:
    """Hooks shown again in a second phase, in one line."""
    weight = f"  weight {weights[0]}" if len(set(weights)) == 1 else ""
    listed = ", ".join(names if weight else [f"{n} (weight {w})" for n, w in zip(names, weights)])
    return f"{listed}{weight}  {again}"


# -- objects ------------------------------------------------------------------------------------

_OWNERSHIP_LABEL = {
    Ownership.ADOPT: "adopts the live object", Ownership.UNOWNED: "FAILS: exists without Helm ownership metadata",
    Ownership.OTHER_RELEASE: "FAILS: owned by release {owner}", Ownership.TERMINATING: "collides: being deleted",
}


def ownership_label(change: ResourceChange) -> str:
    label = _OWNERSHIP_LABEL.get(change.ownership, "")
    if change.ownership is Ownership.ADOPT and change.owner_release:
        label = f"takes the live object over from release {change.owner_release}"
    return f"  [{label.format(owner=change.owner_release)}]" if label else ""


def change_note(change: ResourceChange) -> str:
    """What the line of a changed object adds after its action: a likely rename, why it is kept."""
    note = ""
    if change.likely_rename is not None:
        note = f"  likely renamed {'from' if change.action is Action.CREATE else 'to'} {change.likely_rename}"
    if change.action is Action.RETAIN:
        note += "  kept in the cluster by helm.sh/resource-policy: keep, no longer managed by the release"
    return note


def failure_label(failures: Iterable[Warning]) -> str:
    """A predicted failure on the object's own line, as terraform marks "forces replacement"."""
    labels = [w.code.label for w in failures if w.code.label]  # ownership has its own label
    if not labels:
        return ""
    return "  [FAILS: " + "; ".join(dict.fromkeys(labels)) + "]"


def data_loss_label(warnings: Iterable[Warning]) -> str:
    return "  [DATA LOSS]" if any(w.code is Code.DATA_LOSS for w in warnings) else ""


def ignored_note(change: ResourceChange) -> str:
    n = len(change.ignored_fields)
    return f"{n} field change{'s' if n != 1 else ''} ignored by {', '.join(change.ignored_by)}"


# -- tasks --------------------------------------------------------------------------------------

POLICY_MEANING = {
    "before-hook-creation": "the old hook object is deleted before the new one is created",
    "hook-succeeded": "deleted once it succeeds",
    "hook-failed": "deleted if it fails",
}
TASK_SIGN = {TaskAction.CREATE: "+", TaskAction.UPDATE: "~", TaskAction.DELETE: "-", TaskAction.UNCHANGED: " "}
_EVENT_OF = {TaskPhase.PRE_DEPLOY: "pre", TaskPhase.POST_DEPLOY: "post"}


def _event(plan: Plan) -> str:
    return "delete" if plan.helm_action is HelmAction.UNINSTALL else VERB[plan.helm_action]


def phase_title(phase: TaskPhase, plan: Plan) -> str:
    verb = VERB[plan.helm_action]
    event = _event(plan)
    return {
        TaskPhase.PRE_DEPLOY: f"Before the {verb} (pre-{event} hooks):",
        TaskPhase.POST_DEPLOY: f"After the {verb} (post-{event} hooks):",
        TaskPhase.SCHEDULE: "Scheduled (CronJobs, applied as resources above):",
        TaskPhase.OTHER: f"Not part of this {verb}:",
    }[phase]


def run_label(task: TaskPlan, plan: Plan) -> str:
    if task.phase is TaskPhase.SCHEDULE:
        return ""
    if task.action is TaskAction.DELETE:
        return "removed from the chart, will not run"
    if task.will_run:
        if len(task.runs_in) > 1:
            return "will run " + " and ".join(_EVENT_OF[p] + "-" + _event(plan) for p in task.runs_in)
        return "will run"
    if task.events == ("test",):
        return "runs only under helm test"
    if plan.hooks_disabled:
        return "will not run (--no-hooks)"
    return f"will not run on {VERB[plan.helm_action]} (events: {','.join(task.events)})"


def task_parts(task: TaskPlan, plan: Plan, own: int, common: int) -> list[str]:
    """The words of a task's line: name, weight, whether it runs, action (and how many of its
    definition changes are said once among the common changes)."""
    parts = [f"{task.name}"]
    if task.phase is not TaskPhase.SCHEDULE:
        parts.append(f"weight {task.weight}")
    label = run_label(task, plan)
    if label:
        parts.append(label)
    if task.phase is not TaskPhase.SCHEDULE and not task.will_run and task.action is not TaskAction.UNCHANGED:
        action = STORED[task.action]  # changes only what the release stores
    else:
        action = task.action.value
    parts.append(f"({action_text(action, own, common)})")
    return parts


STORED = {TaskAction.CREATE: "definition added", TaskAction.UPDATE: "definition changed",
          TaskAction.DELETE: "definition removed"}


def task_policy(task: TaskPlan) -> str:
    """A hook's events and delete policies, with what each policy means ("" for other tasks)."""
    if task.phase not in (TaskPhase.PRE_DEPLOY, TaskPhase.POST_DEPLOY) or task.action is TaskAction.DELETE:
        return ""
    meanings = [f"{p}: {POLICY_MEANING[p]}" if p in POLICY_MEANING else p for p in task.delete_policies]
    return f"events {','.join(task.events)}; delete policy " + "; ".join(meanings)


def again_note(task: TaskPlan, phase: TaskPhase) -> str:
    """For a hook shown a second time (it runs in two phases): what happens, once."""
    if len(task.runs_in) < 2 or phase is task.runs_in[0]:
        return ""
    recreate = ("deleted and created again (before-hook-creation)" if "before-hook-creation" in task.delete_policies
                else "created again")
    return f"runs again: {recreate}; see above"


# -- drift and chart CRDs ---------------------------------------------------------------------

DRIFT_SIGN = {DriftKind.MODIFIED: "~", DriftKind.MISSING: "-", DriftKind.UNEXPECTED: "+"}
EFFECT_LABEL = {
    DriftEffect.REVERTED: "this deploy sets it back to the chart's value",
    DriftEffect.LEFT: "this deploy leaves the live value as it is",
    DriftEffect.REMOVED: "the new chart no longer declares it (or declares it null): this deploy deletes it from the live object",
    DriftEffect.CONFLICT: "server-side apply conflict: the deploy fails",
    DriftEffect.MIXED: "see each field",
}
FIELD_EFFECT = {
    DriftEffect.REVERTED: "set back", DriftEffect.LEFT: "left as it is",
    DriftEffect.REMOVED: "deleted: no longer declared, or declared null", DriftEffect.CONFLICT: "conflict",
    DriftEffect.MIXED: "mixed",
}


DRIFT_REASON = {
    DriftReason.RECREATED: "the upgrade creates it again",
    DriftReason.LEAVES_RELEASE: "it leaves the release: nothing to delete",
    DriftReason.ADOPTED: "the new chart declares it: Helm adopts it and applies the chart",
    DriftReason.UNTOUCHED: "not in the new chart either: Helm does not touch it",
    DriftReason.KEPT: "kept: the live object says helm.sh/resource-policy: keep",
    DriftReason.DELETED: "the upgrade deletes the object",
    DriftReason.THREE_WAY_MERGE: "three-way merge: Helm sets every field the new chart declares",
    DriftReason.MERGE_PATCH: ("a custom resource: Helm's JSON merge patch goes from the previous manifest to the new "
                              "one and ignores live drift"),
    DriftReason.SERVER_SIDE_APPLY: "server-side apply: ownership read from the live object's managedFields",
}
# What server-side apply does with a drifted field; {managers}: the field managers that own it.
SSA_NOTE = {
    SsaReason.DECLARES_LIVE: "server-side apply: the new chart declares the live value",
    SsaReason.FORCED: "server-side apply sets it back: --force-conflicts takes it from field manager {managers}",
    SsaReason.CONFLICT: ("server-side apply conflict: field manager {managers} owns it; the upgrade fails unless "
                         "conflicts are forced (--force-conflicts)"),
    SsaReason.SETS_BACK: "server-side apply sets it back (no other field manager owns it)",
    SsaReason.GONE: "server-side apply: already gone, and no longer declared",
    SsaReason.OTHER_OWNS: "server-side apply leaves it: field manager {managers} owns it",
    SsaReason.REMOVES: "server-side apply removes it: Helm owned it and no longer declares it",
}


def drift_reason(item: DriftChange) -> str:
    """Why a drifted object's drift has its effect, in one line ("" when the plan does not say)."""
    return DRIFT_REASON[item.why] if item.why is not None else ""


def drift_ssa(field: DriftField) -> str:
    """What server-side apply does with a drifted field, and why ("" under client-side apply)."""
    if field.ssa is None:
        return ""
    return SSA_NOTE[field.ssa].format(managers=", ".join(field.managers))


def drift_reason_of(text: str) -> DriftReason | None:
    """The reason a line of `drift_reason` says (a saved plan from before 1.6 has only the line)."""
    return next((why for why, said in DRIFT_REASON.items() if said == text), None)


def drift_ssa_of(text: str) -> tuple[SsaReason | None, tuple[str, ...]]:
    """The server-side apply note, and the managers it names, that `drift_ssa` says (before 1.6)."""
    for why, note in SSA_NOTE.items():
        head, _, tail = note.partition("{managers}")
        if not _ and text == head:
            return why, ()
        if _ and text.startswith(head) and text.endswith(tail) and len(text) > len(head) + len(tail):
            return why, tuple(text[len(head):len(text) - len(tail)].split(", "))
    return None, ()


def drift_label(item: DriftChange) -> str:
    """What this deploy does about one drifted object, in words that cannot be misread."""
    if item.kind is DriftKind.MISSING:
        return ("missing live: this deploy creates it again" if item.effect is DriftEffect.REVERTED
                else "missing live: it leaves the release, nothing to do")
    if item.kind is DriftKind.UNEXPECTED:
        return ("not in the release: the new chart declares it, so this deploy adopts it and applies the chart"
                if item.effect is DriftEffect.REVERTED else "not in the release: this deploy leaves it alone")
    if item.why is DriftReason.DELETED:
        return "modified live: this deploy deletes the object"
    if item.why is DriftReason.KEPT:
        return "modified live: the object leaves the release but is kept (resource-policy: keep), as it is"
    return f"modified live: {EFFECT_LABEL[item.effect]}"
CRD_MEANING = {
    CRDLifecycle.PROCESS: "created on install if absent",
    CRDLifecycle.SKIP: "skipped (--skip-crds)",
    CRDLifecycle.NOT_ON_UPGRADE: "not processed: Helm never upgrades or deletes chart CRDs",
}


_CRD_CHANGE = {
    "version-added": "version {version} added",
    "version-removed": "version {version} removed",
    "served-changed": "{version}: served {before} -> {after}",
    "storage-changed": "{version}: storage {before} -> {after}",
    "field-added": "{version}: new field {path}{after_type}",
    "field-removed": "{version}: field {path} removed{before_type}",
    "type-changed": "{version}: type of {path} {before} -> {after}",
    "required-added": "{version}: {path} now required",
    "required-removed": "{version}: {path} no longer required",
}


def crd_lines(summary: CRDSummary, fold: bool = False) -> list[str]:
    """A CRD's change by meaning, one line each; the schema prose edits as one count. `fold`
    says the fields one change adds or removes under the same parent (in the same version) in
    one line that names each: a CRD whose new release adds a field to 50 copies of one schema
    is then 50 lines, not 200, and names every field still."""
    out = []
    if fold:
        out += _folded_crd_lines(summary)
    for change in () if fold else summary.changes:
        template = _CRD_CHANGE.get(change.what, "{version}: {what} {path}")
        out.append(template.format(
            version=change.version, path=change.path, what=change.what, before=change.before, after=change.after,
            after_type=f" ({change.after})" if change.after else "", before_type=f" (was {change.before})" if change.before else ""))
    if summary.descriptions:
        out.append(f"{plural(summary.descriptions, 'description change')} (schema prose; each one is in the JSON plan)")
    return out


_FOLDED_CRD = {"field-added": "new field", "field-removed": "removed field"}


def _folded_crd_lines(summary: CRDSummary) -> list[str]:
    """crd_lines(fold=True): the fields a version adds (or removes) grouped by what they are (the
    same names and types) and said once with every place they sit: "v1alpha1: new fields
    directory (object), helm (object) under drySource in: spec.a, spec.b"."""
    def typed(change: CRDSchemaChange) -> str:
        kind = change.after if change.what == "field-added" else change.before
        return change.path.rpartition(".")[2] + (f" ({kind})" if kind else "")

    runs: list[tuple[str, str, str, list[CRDSchemaChange]]] = []  # what, version, parent, changes
    for change in summary.changes:
        parent = change.path.rpartition(".")[0]
        if change.what in _FOLDED_CRD and runs and runs[-1][:3] == (change.what, change.version, parent):
            runs[-1][3].append(change)
        else:
            runs.append((change.what, change.version, parent, [change]))
    same: dict[tuple[str, str, str], list[tuple[str, list[CRDSchemaChange]]]] = {}
    order: list[tuple[str, str, str] | int] = []
    for n, (what, version, parent, changes) in enumerate(runs):
        if what not in _FOLDED_CRD or not parent:
            order.append(n)
            continue
        key = (what, version, ", ".join(typed(c) for c in changes))
        if key not in same:
            order.append(key)
        same.setdefault(key, []).append((parent, changes))
    out = []
    for entry in order:
        if isinstance(entry, int):
            change = runs[entry][3][0]
            template = _CRD_CHANGE.get(change.what, "{version}: {what} {path}")
            out.append(template.format(
                version=change.version, path=change.path, what=change.what, before=change.before, after=change.after,
                after_type=f" ({change.after})" if change.after else "",
                before_type=f" (was {change.before})" if change.before else ""))
            continue
        what, version, names = entry
        places = [parent for parent, _ in same[entry]]
        count = len(same[entry][0][1])
        word = _FOLDED_CRD[what] + ("s" if count > 1 else "")
        if len(places) == 1:
            out.append(f"{version}: {word} {names} under {places[0]}")
            continue
        tail = _common_tail([p.split(".") for p in places])
        if tail and all(len(p.split(".")) > len(tail) for p in places):
            heads = ", ".join(".".join(p.split(".")[:-len(tail)]) for p in places)
            out.append(f"{version}: {word} {names} under {'.'.join(tail)} in each of {len(places)}: {heads}")
        else:
            out.append(f"{version}: {word} {names} under each of {len(places)}: {', '.join(places)}")
    return out


def _common_tail(paths: list[list[str]]) -> list[str]:
    tail: list[str] = []
    for parts in zip(*(reversed(p) for p in paths)):
        if len(set(parts)) != 1:
            break
        tail.insert(0, parts[0])
    return tail


def crd_summary_note(summary: CRDSummary | None) -> str:
    """A chart CRD's change by meaning, in one clause."""
    if summary is None:
        return ""
    lines = crd_lines(summary)
    if len(lines) > 6:
        lines = lines[:5] + [f"and {len(lines) - 5} more in the JSON plan"]
    return f" ({'; '.join(lines)})" if lines else ""


def crd_is_new(plan: Plan, crd: ChartCRD) -> bool:
    """A chart CRD new in the chart on an upgrade, which the upgrade does not create (a
    crd-not-created warning names it)."""
    return any(w.code is Code.CRD_NOT_CREATED and getattr(w.facts, "name", None) == crd.name for w in plan.warnings)


def crd_applier(plan: Plan, crd: ChartCRD) -> str | None:
    """The hook that runs on this upgrade and likely applies this chart CRD, as the
    crd-not-upgraded or crd-not-created warning's facts name it (None: none does)."""
    for warning in plan.warnings:
        facts = warning.facts
        if warning.code in (Code.CRD_NOT_UPGRADED, Code.CRD_NOT_CREATED) and getattr(facts, "name", None) == crd.name:
            hook, ref = getattr(facts, "hook", None), getattr(facts, "hook_resource", None)
            return str(ref) if ref is not None else hook
    return None


_LEVEL_WORD = {"error": "predicted failure", "warning": "warning", "notice": "note"}


def not_annotated(left: Mapping[str, int], annotations: int, limit: int) -> str:
    """Why some findings have no annotation (GitHub shows `limit` of each level per step)."""
    counts = ", ".join(plural(left[level], _LEVEL_WORD[level]) for level in _LEVEL_WORD if left.get(level))
    return (f"{sum(left.values())} of {annotations} findings not annotated ({counts}): GitHub shows at most {limit} "
            "annotations of each level per step; the most important are annotated, and the job summary (the plan as "
            "markdown) lists every one")


def warning_pointer(code: str, in_head: bool) -> str:
    """Under an object in the comment: its warning is said above, once (markdown)."""
    return f"{code}: {'said in what matters' if in_head else 'said among the warnings'}, above"


def crds_unchanged(names: list[str], others: bool) -> str:
    """The chart CRDs that did not change, on one line."""
    return f"{'the other ' if others else ''}{plural(len(names), 'CRD')} unchanged: {', '.join(names)}"


def crd_change_note(crd: ChartCRD, new: bool = False) -> str:
    """What is known of a chart CRD beyond what Helm does with it, without the advice a
    crd-not-upgraded or crd-not-created warning gives (the markdown says that advice once, in
    the warning). `new`: `crd_is_new`."""
    if crd.chart_changed and crd.lifecycle is CRDLifecycle.NOT_ON_UPGRADE:
        return "changed in the chart" + crd_summary_note(crd.schema)
    if new and crd.lifecycle is CRDLifecycle.NOT_ON_UPGRADE:
        return "new in the chart"
    return crd_note(crd).removeprefix("; ")


def crd_note(crd: ChartCRD, applier: str | None = None, new: bool = False) -> str:
    """What the CRD section adds to a chart CRD's line; `applier` the hook that likely applies
    it, `new`: `crd_is_new`."""
    if new and crd.lifecycle is CRDLifecycle.NOT_ON_UPGRADE:
        return ("; NEW in the chart" + (f", and Helm will not create it: the hook {applier}, which runs on this "
                                        "upgrade, likely does" if applier else
                                        ", and this upgrade will not create it: apply it yourself"))
    if crd.chart_changed and crd.lifecycle is CRDLifecycle.NOT_ON_UPGRADE:
        return ("; CHANGED in the chart" + crd_summary_note(crd.schema)
                + (f", and Helm will not apply it: the hook {applier}, which runs on this upgrade, likely does"
                   if applier else ", and this upgrade will not apply it: apply it yourself"))
    if crd.live_differs and crd.lifecycle is CRDLifecycle.NOT_ON_UPGRADE:
        return "; the cluster's copy differs from the chart's, and this upgrade will not update it"
    if crd.live_differs is not None and crd.lifecycle is CRDLifecycle.PROCESS:
        return "; it already exists in the cluster, so Helm skips it"
    return ""


# -- what the deploy does to running things (core/impact.py) ------------------------------------------

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
        pods = [i.count("pods") for i in restarts]
        known, per_node = sum(p for p in pods if p is not None), pods.count(None)
        counted = plural(known, "pod") if len(pods) > per_node else ""
        if per_node:
            every = f"one per node of {plural(per_node, 'DaemonSet')}" if counted else "one pod per node"
            counted = f"{counted}, and {every}" if counted else every
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
