"""The plan as text for people, in the order Helm will act."""
from __future__ import annotations

import json
import math
import re
import secrets
from typing import Any, Iterable, Mapping

from deployah_plan.core.diff import key_label, readable_path
from deployah_plan.core.drift import DELETED_REASON, KEPT_REASON
from deployah_plan.model import (
    Action, ChartCRD, CRDLifecycle, DriftChange, DriftEffect, DriftKind, FieldChange, FieldOp, HelmAction, LiveStatus, Ownership, Plan,
    ResourceChange, ResourceRef, Severity, TaskAction, TaskPhase, TaskPlan,
)
from deployah_plan.redact import Masked, Redactor

SIGN = {Action.CREATE: "+", Action.UPDATE: "~", Action.DELETE: "-", Action.RETAIN: "=",
        FieldOp.ADD: "+", FieldOp.REMOVE: "-", FieldOp.REPLACE: "~", FieldOp.REORDER: "~", FieldOp.RENAME: "~"}
_COLOUR = {"+": "32", "~": "33", "-": "31", "=": "36", "!": "33", "X": "1;31", "bold": "1", "dim": "2"}
VERB = {HelmAction.INSTALL: "install", HelmAction.UPGRADE: "upgrade", HelmAction.NONE: "upgrade",
        HelmAction.ROLLBACK: "rollback", HelmAction.UNINSTALL: "uninstall"}
_MAX_VALUE = 72


# What a terminal would act on rather than show: C0 controls but tab, DEL, C1 controls, and
# the bidirectional overrides that reorder what is shown. A name from a manifest could
# otherwise clear the screen, or fake a line of the plan with a newline.
_UNPRINTABLE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


class _Style:
    """Colours text. Its escape codes carry a mark no input can guess, so that `printable`
    can escape every control character in the plan's own text and keep only these."""

    def __init__(self, colour: bool) -> None:
        self.colour = colour
        self.mark = "\x1b" + secrets.token_hex(8)

    def __call__(self, text: str, key: str) -> str:
        return f"{self.mark}[{_COLOUR[key]}m{text}{self.mark}[0m" if self.colour and key in _COLOUR else text

    def printable(self, line: str) -> str:
        if not _UNPRINTABLE.search(line):
            return line
        return _UNPRINTABLE.sub(_escaped, line).replace("\\x1b" + self.mark[1:], "\x1b")


def _value(value: Any) -> str:
    if isinstance(value, Masked):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        value = str(value)  # as the JSON document keeps it, so a saved plan shows the same
    if isinstance(value, str) and "\n" in value.rstrip("\n"):
        return f"({value.count(chr(10)) + (0 if value.endswith(chr(10)) else 1)} lines)"
    text = json.dumps(value, ensure_ascii=False, default=str, separators=(", ", ": "))
    if len(text) > _MAX_VALUE:
        text = text[: _MAX_VALUE - 1] + "…"
    return text


def _labels(labels: Any) -> str:
    return ", ".join(key_label(x) if isinstance(x, dict) else f"#{x}" for x in labels)


_PARTS = {"json": "JSON", "yaml": "YAML", "entries": "an atomic list, replaced as a whole"}


def _field_body(change: FieldChange, path: str) -> str:
    if change.op is FieldOp.ADD:
        return f"{path}: {_value(change.after)}"
    if change.op is FieldOp.REMOVE:
        return f"{path}: {_value(change.before)}"
    if change.op is FieldOp.REORDER:
        return f"{path}: reordered: {_labels(change.before)} -> {_labels(change.after)}"
    if change.op is FieldOp.RENAME:
        return f"{path}: renamed from {key_label(change.before)}"
    if change.lines or change.parts:
        return f"{path}{f' ({_PARTS[change.parts_of]})' if change.parts else ''}:"
    suffix = " (the same quantity: not a change)" if change.equivalent else ""
    return f"{path}: {_value(change.before)} -> {_value(change.after)}{suffix}"


def field_rows(change: FieldChange) -> list[tuple[str, str]]:
    """A field change (already seen through the Redactor) as rows of (sign, text): the change,
    then its line diff or inner changes, indented. Shared with markdown."""
    rows = [(SIGN[change.op], _field_body(change, readable_path(change.path, change.keys)))]
    for line in change.lines:
        mark = line[:1] if line[:1] in "+-" else " "
        rows.append((mark, "    " + (line if line.startswith("@@") else line[1:])))
    for part in change.parts:
        path = readable_path(part.path, part.keys) if part.path else "(whole value)"
        rows.append((SIGN[part.op], "    " + _field_body(part, path)))
    return rows


def _field_lines(ref: ResourceRef, fields: Iterable[FieldChange], redactor: Redactor, style: _Style,
                 indent: str) -> list[str]:
    lines = []
    for raw in fields:
        change = redactor.view(ref, raw)
        for n, (sign, text) in enumerate(field_rows(change)):
            key = "dim" if change.equivalent or (n and text.lstrip().startswith("@@")) else sign
            # Inner rows (a line diff, the changes inside a value) sit under their field, sign first.
            where, text = (indent + "    ", text[4:]) if n else (indent, text)
            lines.append(f"{where}{style(sign, key) if sign.strip() else sign} "
                         f"{style(text, 'dim') if key == 'dim' else text}")
    return lines


def ignored_note(change: ResourceChange) -> str:
    n = len(change.ignored_fields)
    return f"{n} field change{'s' if n != 1 else ''} ignored by {', '.join(change.ignored_by)}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def hooks_text(plan: Plan) -> str:
    """What the hooks do, counting those that run on this action apart from definitions that
    only change what the release stores."""
    s, verb = plan.summary, VERB[plan.helm_action]
    parts = []
    if s.hooks_run:
        changed = f" ({s.hooks_changed} changed)" if s.hooks_changed else ""
        parts.append(f"{_plural(s.hooks_run, 'hook')} run{'s' if s.hooks_run == 1 else ''}{changed}")
    if s.hooks_stored:
        parts.append(f"{_plural(s.hooks_stored, 'hook definition')} change{'s' if s.hooks_stored == 1 else ''} "
                     f"without running on {verb} (stored in the release)")
    return "; ".join(parts) + "." if parts else ""


def failures_text(plan: Plan) -> str:
    n = plan.summary.failures
    if not n:
        return ""
    return f"{_plural(n, 'predicted failure')}: this {VERB[plan.helm_action]} would fail."


def crds_text(plan: Plan) -> str:
    n = sum(1 for c in plan.chart_crds if c.chart_changed)
    return f"{_plural(n, 'chart CRD')} changed that Helm will not apply (see the warnings)." if n else ""


def summary_text(plan: Plan) -> str:
    """The last line of the plan, without styling: shared with markdown."""
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
    hooks = hooks_text(plan)
    if hooks:
        text += " " + hooks[0].upper() + hooks[1:]
    if s.ignored:
        text += f" {s.ignored} ignored."
    if fails:
        text += " " + fails
    return text


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
    event = "delete" if plan.helm_action is HelmAction.UNINSTALL else verb
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


def task_parts(task: TaskPlan, plan: Plan) -> list[str]:
    """The words of a task's line: name, weight, whether it runs, action."""
    parts = [f"{task.name}"]
    if task.phase is not TaskPhase.SCHEDULE:
        parts.append(f"weight {task.weight}")
    label = run_label(task, plan)
    if label:
        parts.append(label)
    if task.phase is not TaskPhase.SCHEDULE and not task.will_run and task.action is not TaskAction.UNCHANGED:
        parts.append(f"({STORED[task.action]})")  # changes only what the release stores
    else:
        parts.append(f"({task.action.value})")
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


def _task_lines(plan: Plan, redactor: Redactor, style: _Style) -> list[str]:
    out: list[str] = []
    for phase, tasks in plan.task_groups():
        out.append(f"  {phase_title(phase, plan)}")
        for task in tasks:
            sign = TASK_SIGN[task.action]
            again = again_note(task, phase)
            if again:
                out.append(f"      {task.name}  weight {task.weight}  {again}")
                continue
            out.append(f"    {style(sign, sign) if sign.strip() else sign} " + "  ".join(task_parts(task, plan)))
            policy = task_policy(task)
            if policy:
                out.append(f"        {policy}")
            for definition in task.definitions:
                out += _field_lines(definition.resource, definition.fields, redactor, style, "        ")
    return out


def _header(plan: Plan, style: _Style) -> list[str]:
    h = plan.header
    context = f" (context {h.kube_context})" if h.kube_context else ""
    lines = [style(f"helm plan: {VERB[plan.helm_action]} release {h.release} in namespace {h.namespace}{context}", "bold")]
    chart = f"{h.chart_name} {h.chart_version}".strip()
    if plan.helm_action is HelmAction.ROLLBACK:
        back = f"{h.chart_name}-{h.chart_version}" if h.chart_name else "unknown chart"
        lines.append(f"  from revision {h.previous_revision} ({h.previous_chart or 'unknown chart'}) back to revision "
                     f"{h.rollback_to} ({back}); this would create revision {h.revision}")
        return lines
    if plan.helm_action is HelmAction.UNINSTALL:
        lines.append(f"  chart {h.previous_chart or '(unknown)'} at revision {h.previous_revision}: every resource of "
                     "the release is removed")
        return lines
    if h.fresh_install:
        lines.append(f"  chart {chart or '(unknown)'}; a fresh install, creating revision {h.revision}")
    elif not h.previous_revision:
        lines.append("  an upgrade from the given previous manifest")
    else:
        was = f", from {h.previous_chart}" if h.previous_chart else ""
        lines.append(f"  chart {chart or '(unknown)'}{was} at revision {h.previous_revision}; this would create revision {h.revision}")
    how = {"template": "helm template (offline)", "server": "helm upgrade --dry-run=server",
           "files": "the given files"}.get(h.rendered_by, h.rendered_by)
    helm = f", Helm {h.helm_version}" if h.helm_version else ""
    lines.append(f"  desired state rendered by {how}{helm}")
    return lines


_OWNERSHIP_LABEL = {
    Ownership.ADOPT: "adopts the live object", Ownership.UNOWNED: "FAILS: exists without Helm ownership metadata",
    Ownership.OTHER_RELEASE: "FAILS: owned by release {owner}", Ownership.TERMINATING: "collides: being deleted",
}
DRIFT_SIGN = {DriftKind.MODIFIED: "~", DriftKind.MISSING: "-", DriftKind.UNEXPECTED: "+"}
EFFECT_LABEL = {
    DriftEffect.REVERTED: "this deploy sets it back to the chart's value",
    DriftEffect.LEFT: "this deploy leaves the live value as it is",
    DriftEffect.REMOVED: "the new chart no longer declares it: this deploy deletes it from the live object",
    DriftEffect.CONFLICT: "server-side apply conflict: the deploy fails",
    DriftEffect.MIXED: "see each field",
}
FIELD_EFFECT = {
    DriftEffect.REVERTED: "set back", DriftEffect.LEFT: "left as it is",
    DriftEffect.REMOVED: "deleted: no longer declared", DriftEffect.CONFLICT: "conflict",
    DriftEffect.MIXED: "mixed",
}


def drift_label(item: DriftChange) -> str:
    """What this deploy does about one drifted object, in words that cannot be misread."""
    if item.kind is DriftKind.MISSING:
        return ("missing live: this deploy creates it again" if item.effect is DriftEffect.REVERTED
                else "missing live: it leaves the release, nothing to do")
    if item.kind is DriftKind.UNEXPECTED:
        return ("not in the release: the new chart declares it, so this deploy adopts it and applies the chart"
                if item.effect is DriftEffect.REVERTED else "not in the release: this deploy leaves it alone")
    if item.reason == DELETED_REASON:
        return "modified live: this deploy deletes the object"
    if item.reason == KEPT_REASON:
        return "modified live: the object leaves the release but is kept (resource-policy: keep), as it is"
    return f"modified live: {EFFECT_LABEL[item.effect]}"


def _ownership_label(change: Any) -> str:
    label = _OWNERSHIP_LABEL.get(change.ownership, "")
    if change.ownership is Ownership.ADOPT and change.owner_release:
        label = f"takes the live object over from release {change.owner_release}"
    return f"  [{label.format(owner=change.owner_release)}]" if label else ""


def _live_lines(plan: Plan, style: _Style) -> list[str]:
    live = plan.live
    where = "" if live.source in ("", "cluster") else f" from {live.source}"
    requests = f" in {live.requests} request{'s' if live.requests != 1 else ''}" if live.requests else ""
    if live.status is LiveStatus.SKIPPED:
        return [f"  drift and ownership not checked: {live.reason}"]
    if live.status is LiveStatus.UNREACHABLE:
        return [f"  drift and ownership not checked: {live.reason}"]
    lines = [f"  live state read{where}{requests}"]
    if live.status is LiveStatus.PARTIAL:
        lines.append(f"  {style('!', '!')} PARTIAL: these could not be read, so their drift and ownership are unknown:")
        for gap in live.unreadable:
            scope = f" in {gap.namespace}" if gap.namespace else ""
            lines.append(f"      {gap.kind} ({gap.api_version}){scope}: {gap.reason}")
    return lines


def _drift_lines(plan: Plan, redactor: Redactor, style: _Style) -> list[str]:
    out = ["", style("Drift (live vs the previous release):", "bold")] + _live_lines(plan, style)
    if not plan.drift and plan.live.status in (LiveStatus.CHECKED, LiveStatus.PARTIAL):
        out.append("  no drift" + (" in what could be read" if plan.live.status is LiveStatus.PARTIAL else ""))
    for item in plan.drift:
        sign = DRIFT_SIGN[item.kind]
        out.append(f"  {style(sign, sign)} {item.resource}  ({drift_label(item)})")
        if item.reason:
            out.append(f"      {style(item.reason, 'dim')}")
        if item.ssa:
            out.append(f"      {item.ssa}")
        for drifted in item.fields:
            lines = _field_lines(item.resource, [drifted.change], redactor, style, "      ")
            effect = FIELD_EFFECT[drifted.effect] if item.effect is DriftEffect.MIXED or drifted.ssa else ""
            note = "; ".join(x for x in (effect, drifted.ssa) if x)
            if note and lines:
                lines[0] += f"  [{note}]"
            out += lines
    return out


CRD_MEANING = {
    CRDLifecycle.PROCESS: "created on install if absent",
    CRDLifecycle.SKIP: "skipped (--skip-crds)",
    CRDLifecycle.NOT_ON_UPGRADE: "not processed: Helm never upgrades or deletes chart CRDs",
}


def crd_note(crd: ChartCRD) -> str:
    if crd.chart_changed and crd.lifecycle is CRDLifecycle.NOT_ON_UPGRADE:
        return "; CHANGED in the chart, and this upgrade will not apply it: apply it yourself"
    if crd.live_differs and crd.lifecycle is CRDLifecycle.NOT_ON_UPGRADE:
        return "; the cluster's copy differs from the chart's, and this upgrade will not update it"
    if crd.live_differs is not None and crd.lifecycle is CRDLifecycle.PROCESS:
        return "; it already exists in the cluster, so Helm skips it"
    return ""


def header_lines(plan: Plan) -> list[str]:
    """The header without styling: shared with markdown."""
    return [line.strip() for line in _header(plan, _Style(False))]


def failure_label(change: ResourceChange, plan: Plan) -> str:
    """A predicted failure on the object's own line, as terraform marks "forces replacement"."""
    codes = [w.code for w in plan.failures_of(change.resource) if w.code != "ownership"]  # ownership has its label
    if not codes:
        return ""
    words = {"immutable": "changes an immutable field", "collision": "collides with a deletion",
             "ssa-conflict": "server-side apply conflict"}
    return "  [FAILS: " + "; ".join(dict.fromkeys(words.get(c, c) for c in codes)) + "]"


def change_note(change: ResourceChange) -> str:
    """What the line of a changed object adds after its action: a likely rename, a keep."""
    note = ""
    if change.likely_rename is not None:
        note = f"  likely renamed {'from' if change.action is Action.CREATE else 'to'} {change.likely_rename}"
    if change.action is Action.RETAIN:
        note += "  kept in the cluster by helm.sh/resource-policy: keep, no longer managed by the release"
    return note + _ownership_label(change)


def resources_title(plan: Plan) -> str:
    return f"Resources, in the order Helm {'deletes' if plan.helm_action is HelmAction.UNINSTALL else 'applies'} them:"


def render(plan: Plan, colour: bool = False, show_secrets: bool = False) -> str:
    style = _Style(colour)
    redactor = Redactor.for_plan(plan, show_secrets)
    out = _header(plan, style)
    if plan.changes:
        out += ["", style(resources_title(plan), "bold")]
        for change in plan.changes:
            sign = SIGN[change.action]
            out.append(f"  {style(sign, sign)} {change.resource}  ({change.action.value}){change_note(change)}"
                       f"{failure_label(change, plan)}")
            out += _field_lines(change.resource, change.fields, redactor, style, "      ")
            if change.ignored_fields:
                out.append(f"      {style('(' + ignored_note(change) + ')', 'dim')}")
    if plan.tasks:
        out += ["", style("Tasks (Helm hooks and CronJobs), in the order Helm runs them:", "bold")]
        out += _task_lines(plan, redactor, style)
    if plan.chart_crds:
        out += ["", style("Chart CRDs (crds/):", "bold")]
        for crd in plan.chart_crds:
            out.append(f"  {crd.name} ({crd.source}): {CRD_MEANING[crd.lifecycle]}{crd_note(crd)}")
    if plan.drift or plan.live.status is not LiveStatus.SKIPPED or plan.header.previous_revision or plan.live.source:
        out += _drift_lines(plan, redactor, style)
    if plan.warnings:
        out += ["", style("Warnings and notes:", "bold")]
        for warning in plan.warnings:
            mark = "X" if warning.fails else "!" if warning.severity is Severity.WARNING else "i"
            out.append(f"  {style(mark, mark)} {warning.message}")
    if plan.ignored:
        out += ["", style("Ignored (matched by ignore rules; not counted):", "bold")]
        for change in plan.ignored:
            out.append(f"  {style(SIGN[change.action], 'dim')} {change.resource}  "
                       f"({change.action.value}; {', '.join(change.ignored_by)})")
    out += ["", _summary(plan, style)]
    return "\n".join(style.printable(line) for line in out) + "\n"


def _summary(plan: Plan, style: _Style) -> str:
    text = summary_text(plan)
    if text.startswith("No changes."):
        return style("No changes.", "bold") + text[len("No changes."):]
    return style(text, "bold")
