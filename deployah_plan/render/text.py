"""The plan as text for people, in the order Helm will act."""
from __future__ import annotations

import json
import math
import re
from typing import Any, Iterable

from deployah_plan.model import (
    Action, CRDLifecycle, FieldChange, FieldOp, HelmAction, Plan, ResourceChange, ResourceRef, Severity, TaskAction,
    TaskPhase, TaskPlan,
)
from deployah_plan.redact import Masked, field_view

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")
SIGN = {Action.CREATE: "+", Action.UPDATE: "~", Action.DELETE: "-",
         FieldOp.ADD: "+", FieldOp.REMOVE: "-", FieldOp.REPLACE: "~"}
_COLOUR = {"+": "32", "~": "33", "-": "31", "!": "33", "bold": "1", "dim": "2"}
_MAX_VALUE = 72


class _Style:
    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def __call__(self, text: str, key: str) -> str:
        return f"\x1b[{_COLOUR[key]}m{text}\x1b[0m" if self.colour and key in _COLOUR else text


def readable_path(pointer: str) -> str:
    """`/spec/containers/0/image` -> `spec.containers[0].image`."""
    if not pointer:
        return "(whole object)"
    out = ""
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if token.isdigit():
            out += f"[{token}]"
        elif _IDENT.match(token):
            out += f".{token}" if out else token
        else:
            out += f"[{json.dumps(token)}]"
    return out


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


def field_line(ref: ResourceRef, change: FieldChange, show_secrets: bool) -> tuple[str, str]:
    """One field change as a sign and a line of text, secrets masked: shared with markdown."""
    before, after = field_view(ref, change, show_secrets)
    path = readable_path(change.path)
    if change.op is FieldOp.ADD:
        body = f"{path}: {_value(after)}"
    elif change.op is FieldOp.REMOVE:
        body = f"{path}: {_value(before)}"
    else:
        body = f"{path}: {_value(before)} -> {_value(after)}"
    return SIGN[change.op], body


def _field_lines(ref: ResourceRef, fields: Iterable[FieldChange], show_secrets: bool, style: _Style, indent: str) -> list[str]:
    lines = []
    for change in fields:
        sign, body = field_line(ref, change, show_secrets)
        lines.append(f"{indent}{style(sign, sign)} {body}")
    return lines


def ignored_note(change: ResourceChange) -> str:
    n = len(change.ignored_fields)
    return f"{n} field change{'s' if n != 1 else ''} ignored by {', '.join(change.ignored_by)}"


def summary_text(plan: Plan) -> str:
    """The last line of the plan, without styling: shared with markdown."""
    s = plan.summary
    if plan.helm_action is HelmAction.NONE:
        runs = sum(1 for t in plan.tasks if t.will_run)
        extra = f" and run {runs} upgrade hook{'s' if runs != 1 else ''}" if runs else ""
        return f"No changes. helm upgrade would still record revision {plan.header.revision}{extra}."
    text = f"Plan: {s.create} to create, {s.update} to update, {s.delete} to delete."
    hooks = sum(1 for t in plan.tasks if t.action is not TaskAction.UNCHANGED and t.phase is not TaskPhase.SCHEDULE)
    if hooks:
        text += f" {hooks} hook{'s' if hooks != 1 else ''} changed."
    if s.ignored:
        text += f" {s.ignored} ignored."
    return text


POLICY_MEANING = {
    "before-hook-creation": "the old hook object is deleted before the new one is created",
    "hook-succeeded": "deleted once it succeeds",
    "hook-failed": "deleted if it fails",
}
TASK_SIGN = {TaskAction.CREATE: "+", TaskAction.UPDATE: "~", TaskAction.DELETE: "-", TaskAction.UNCHANGED: " "}


def phase_title(phase: TaskPhase, plan: Plan) -> str:
    verb = "install" if plan.helm_action is HelmAction.INSTALL else "upgrade"
    return {
        TaskPhase.PRE_DEPLOY: f"Before the {verb} (pre-{verb} hooks):",
        TaskPhase.POST_DEPLOY: f"After the {verb} (post-{verb} hooks):",
        TaskPhase.SCHEDULE: "Scheduled (CronJobs, applied as resources above):",
        TaskPhase.OTHER: f"Not part of this {verb}:",
    }[phase]


def run_label(task: TaskPlan, plan: Plan) -> str:
    if task.phase is TaskPhase.SCHEDULE:
        return ""
    if task.action is TaskAction.DELETE:
        return "removed from the chart, will not run"
    if task.will_run:
        return "will run"
    if task.events == ("test",):
        return "runs only under helm test"
    verb = "install" if plan.helm_action is HelmAction.INSTALL else "upgrade"
    return f"will not run on {verb} (events: {','.join(task.events)})"


def task_parts(task: TaskPlan, plan: Plan) -> list[str]:
    """The words of a task's line: name, weight, whether it runs, action."""
    parts = [f"{task.name}"]
    if task.phase is not TaskPhase.SCHEDULE:
        parts.append(f"weight {task.weight}")
    label = run_label(task, plan)
    if label:
        parts.append(label)
    parts.append(f"({task.action.value})")
    return parts


def task_policy(task: TaskPlan) -> str:
    """A hook's events and delete policies, with what each policy means ("" for other tasks)."""
    if task.phase not in (TaskPhase.PRE_DEPLOY, TaskPhase.POST_DEPLOY) or task.action is TaskAction.DELETE:
        return ""
    meanings = [f"{p}: {POLICY_MEANING[p]}" if p in POLICY_MEANING else p for p in task.delete_policies]
    return f"events {','.join(task.events)}; delete policy " + "; ".join(meanings)


def _task_lines(plan: Plan, show_secrets: bool, style: _Style) -> list[str]:
    out: list[str] = []
    phase: TaskPhase | None = None
    for task in plan.tasks:
        if task.phase is not phase:
            phase = task.phase
            out.append(f"  {phase_title(phase, plan)}")
        sign = TASK_SIGN[task.action]
        out.append(f"    {style(sign, sign) if sign.strip() else sign} " + "  ".join(task_parts(task, plan)))
        policy = task_policy(task)
        if policy:
            out.append(f"        {policy}")
        for definition in task.definitions:
            out += _field_lines(definition.resource, definition.fields, show_secrets, style, "        ")
    return out


def _header(plan: Plan, style: _Style) -> list[str]:
    h = plan.header
    context = f" (context {h.kube_context})" if h.kube_context else ""
    verb = {HelmAction.INSTALL: "install", HelmAction.UPGRADE: "upgrade", HelmAction.NONE: "upgrade"}[plan.helm_action]
    lines = [style(f"helm plan: {verb} release {h.release} in namespace {h.namespace}{context}", "bold")]
    chart = f"{h.chart_name} {h.chart_version}".strip()
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


CRD_MEANING = {
    CRDLifecycle.PROCESS: "created on install if absent",
    CRDLifecycle.SKIP: "skipped (--skip-crds)",
    CRDLifecycle.NOT_ON_UPGRADE: "not processed: Helm never upgrades or deletes chart CRDs",
}


def header_lines(plan: Plan) -> list[str]:
    """The header without styling: shared with markdown."""
    return [line.strip() for line in _header(plan, _Style(False))]


def render(plan: Plan, colour: bool = False, show_secrets: bool = False) -> str:
    style = _Style(colour)
    out = _header(plan, style)
    if plan.changes:
        out += ["", style("Resources, in the order Helm applies them:", "bold")]
        for change in plan.changes:
            sign = SIGN[change.action]
            out.append(f"  {style(sign, sign)} {change.resource}  ({change.action.value})")
            out += _field_lines(change.resource, change.fields, show_secrets, style, "      ")
            if change.ignored_fields:
                out.append(f"      {style('(' + ignored_note(change) + ')', 'dim')}")
    if plan.tasks:
        out += ["", style("Tasks (Helm hooks and CronJobs), in the order Helm runs them:", "bold")]
        out += _task_lines(plan, show_secrets, style)
    if plan.chart_crds:
        out += ["", style("Chart CRDs (crds/):", "bold")]
        for crd in plan.chart_crds:
            out.append(f"  {crd.name} ({crd.source}): {CRD_MEANING[crd.lifecycle]}")
    if plan.warnings:
        out += ["", style("Warnings and notes:", "bold")]
        for warning in plan.warnings:
            mark = "!" if warning.severity is Severity.WARNING else "i"
            out.append(f"  {style(mark, '!') if mark == '!' else mark} {warning.message}")
    if plan.ignored:
        out += ["", style("Ignored (matched by ignore rules; not counted):", "bold")]
        for change in plan.ignored:
            out.append(f"  {style(SIGN[change.action], 'dim')} {change.resource}  "
                       f"({change.action.value}; {', '.join(change.ignored_by)})")
    if plan.not_checked:
        out += ["", style("Not checked:", "bold")]
        out += [f"  - {item}" for item in plan.not_checked]
    out += ["", _summary(plan, style)]
    return "\n".join(out) + "\n"


def _summary(plan: Plan, style: _Style) -> str:
    text = summary_text(plan)
    if text.startswith("No changes."):
        return style("No changes.", "bold") + text[len("No changes."):]
    return style(text, "bold")
