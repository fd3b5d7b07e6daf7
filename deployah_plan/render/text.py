"""The plan as text for people, in the order Helm will act.

A writer over the report (render/report.py) with the shared words (render/words/): it
decides nothing about the plan, only how it looks. Colour marks what each line is: predicted
failures and data loss in red, equivalent quantities and notes dim. With a width (a terminal,
or COLUMNS), long lines wrap with a hanging indent; without one (a pipe, a file, a golden
test) lines are never wrapped, so the output does not depend on where it is written.
"""
from __future__ import annotations

import os
from typing import Any, Iterable, Mapping

from deployah_plan.startup import lazy
from deployah_plan.model import (
    DriftEffect, FieldChange, LiveStatus, Plan, ResourceRef, Severity, Warning as PlanWarning,
)
from deployah_plan.redact import Redactor
from deployah_plan.escape import UNPRINTABLE, escape_controls
from deployah_plan.render.words import change as change_words
from deployah_plan.render.words import crd as crd_words
from deployah_plan.render.words import drift as drift_words
from deployah_plan.render.words import impact as impact_words
from deployah_plan.render.words import plan as plan_words
from deployah_plan.render.words import task as task_words
from deployah_plan.render.words import value as value_words
from deployah_plan.render.words import warning as warning_words
from deployah_plan.render.options import WriteOptions
from deployah_plan.render.report import ObjectReport, Report
from deployah_plan.render.words import SIGN
from deployah_plan.render.words.task import TASK_SIGN
from deployah_plan.render.words.value import SHORT, View

_COLOUR = {"+": "32", "~": "33", "-": "31", "=": "36", "!": "33", "X": "1;31", "bold": "1", "dim": "2",
           "alert": "1;31"}
_ANSI = lazy(r"\x1b\[[0-9;]*m")


class _Style:
    """Colours text. Its escape codes carry a mark no input can guess, so that `printable`
    can escape every control character in the plan's own text and keep only these."""

    def __init__(self, colour: bool) -> None:
        self.colour = colour
        self.mark = "\x1b" + os.urandom(8).hex()  # what secrets.token_hex reads, without its imports
        self.used: dict[str, set[str]] = {}  # each sign shown, and where (the legend says them)

    def __call__(self, text: str, key: str) -> str:
        return f"{self.mark}[{_COLOUR[key]}m{text}{self.mark}[0m" if self.colour and key in _COLOUR and text else text

    def sign(self, sign: str, key: str = "", where: str = "") -> str:
        """A sign at the start of a line, coloured as `key` (its own colour by default), noted
        for the legend with where it is used ("impact" under running things)."""
        if not sign.strip():
            return sign
        self.used.setdefault(sign, set()).add(where)
        return self(sign, key or sign)

    def printable(self, line: str) -> str:
        if not UNPRINTABLE.search(line):
            return line
        return escape_controls(line).replace("\\x1b" + self.mark[1:], "\x1b")


def _field_lines(ref: ResourceRef, fields: Iterable[FieldChange], redactor: Redactor, style: _Style,
                 indent: str, view: View = SHORT) -> list[str]:
    lines = []
    for raw in fields:
        change = redactor.view(ref, raw)
        for n, (sign, text) in enumerate(value_words.field_rows(change, view=view)):
            key = "dim" if change.equivalent or (n and text.lstrip().startswith("@@")) else sign
            # Inner rows (a line diff, the changes inside a value) sit under their field, sign first.
            where, text = (indent + "    ", text[4:]) if n else (indent, text)
            lines.append(f"{where}{style.sign(sign, key, 'same' if change.equivalent else '')} "
                         f"{style(text, 'dim') if key == 'dim' else text}")
    return lines


def _content_lines(ref: ResourceRef, obj: Mapping[str, Any] | None, redactor: Redactor, style: _Style,
                   indent: str, view: View) -> list[str]:
    """What a created object contains, one `+` line each, folded beyond the line budget."""
    if not obj:  # a plan read back from a document that did not keep it
        return []
    rows, folded = value_words.content_rows(redactor.content(ref, obj), view)
    out = [f"{indent}{style.sign('+')} {row}" for row in rows]
    if folded:
        out.append(f"{indent}  {style(value_words.folded_note(folded), 'dim')}")
    return out


def _suppressed_lines(ref: ResourceRef, hidden: int, content: bool, style: _Style, indent: str) -> list[str]:
    """What --suppress KIND left out under an object or a hook, said in one line."""
    note = plan_words.suppressed_note(ref.kind, hidden, content)
    return [f"{indent}{style('(' + note + ')', 'dim')}"] if note else []


def _common_lines(report: Report, redactor: Redactor, style: _Style, view: View) -> list[str]:
    if not report.groups:
        return []
    headings = [plan_words.common_heading(len(g.resources), len(g.hooks)) for g in report.groups]
    single = len(headings) == 1
    out = ["", style(plan_words.common_title(headings[0] if single else ""), "bold")]
    for group, heading in zip(report.groups, headings):
        if not single:
            out.append(f"  {heading}:")
        for n in group.changes:
            item = report.common[n]
            lines = _field_lines(item.first, [item.change], redactor, style, "  " if single else "    ", view)
            lines[0] += plan_words.template_note(item.template_copies)
            out += lines
    return out


def _object_lines(item: ObjectReport, redactor: Redactor, style: _Style, view: View) -> list[str]:
    change = item.change
    sign = SIGN[change.action]
    action = plan_words.action_text(change.action.value, len(item.own) + len(item.notes), item.common_count)
    alert = change_words.failure_label(item.failures) + change_words.data_loss_label(item.warnings)
    out = [f"  {style.sign(sign)} {change.resource}  ({action}){change_words.change_note(change, item.cause)}"
           f"{change_words.ownership_label(change)}{style(alert, 'alert')}"]
    out += [f"      {style.sign('*', '=')} {note}" for note in item.notes]
    out += _field_lines(change.resource, item.own, redactor, style, "      ", view)
    out += _suppressed_lines(change.resource, item.hidden, item.hidden_content, style, "      ")
    out += _content_lines(change.resource, item.content, redactor, style, "      ", view)
    if change.ignored_fields:
        out.append(f"      {style('(' + change_words.ignored_note(change) + ')', 'dim')}")
    return out


def _task_lines(report: Report, redactor: Redactor, style: _Style, view: View) -> list[str]:
    plan = report.plan
    out: list[str] = []
    for phase, rows in report.phases():
        out.append(f"  {task_words.phase_title(phase, plan, (t for row in rows for t in row.tasks))}")
        for row in rows:
            if row.again:
                out.append("      " + task_words.again_text([t.name for t in row.tasks], [t.weight for t in row.tasks], row.again))
                continue
            task = row.tasks[0]
            sign = TASK_SIGN[task.action]
            item = report.task(task)
            out.append(f"    {style.sign(sign)} "
                       + "  ".join(task_words.task_parts(task, plan, item.own_count, item.common_count))
                       + (f"  [{change_words.CAUSE[item.cause]}]" if item.cause is not None else ""))
            if row.policy:
                out.append(f"        {task_words.policy_text(row.policy, row.policy_for)}")
            for definition in item.definitions:
                hook = definition.definition
                out += _field_lines(hook.resource, definition.own, redactor, style, "        ", view)
                out += _suppressed_lines(hook.resource, definition.hidden, definition.hidden_content, style, "        ")
                out += _content_lines(hook.resource, definition.content, redactor, style, "        ", view)
    return out


def _header(plan: Plan, style: _Style) -> list[str]:
    """The header, then what the plan could not check (drift, ownership, unreadable kinds)."""
    title, *rest = plan_words.header_lines(plan)
    return ([style(title, "bold")] + [f"  {line}" for line in rest]
            + [f"  {style.sign('?', '!')} {item}" for item in plan.not_checked])


def _live_lines(plan: Plan, style: _Style) -> list[str]:
    live = plan.live
    where = "" if live.source in ("", "cluster") else f" from {live.source}"
    requests = f" in {live.requests} request{'s' if live.requests != 1 else ''}" if live.requests else ""
    lines = [f"  live state read{where}{requests}"]
    if live.status is LiveStatus.PARTIAL:
        lines.append(f"  {style.sign('!')} PARTIAL: some kinds could not be read (named at the top), "
                     "so their drift and ownership are unknown")
    return lines


def _drift_lines(plan: Plan, redactor: Redactor, style: _Style, view: View) -> list[str]:
    out = ["", style(plan_words.DRIFT_TITLE, "bold")] + _live_lines(plan, style)
    if not plan.drift:
        out.append("  no drift" + (" in what could be read" if plan.live.status is LiveStatus.PARTIAL else ""))
    for item in plan.drift:
        sign = drift_words.DRIFT_SIGN[item.kind]
        label = drift_words.drift_label(item)
        out.append(f"  {style.sign(sign)} {item.resource}  "
                   f"({style(label, 'alert') if item.effect is DriftEffect.CONFLICT else label})")
        reason = drift_words.drift_reason(item)
        if reason:
            out.append(f"      {style(reason, 'dim')}")
        for drifted in item.fields:
            lines = _field_lines(item.resource, [drifted.change], redactor, style, "      ", view)
            ssa = drift_words.drift_ssa(drifted)
            field_effect = drift_words.FIELD_EFFECT[drifted.effect] if item.effect is DriftEffect.MIXED or ssa else ""
            note = "; ".join(x for x in (field_effect, ssa) if x)
            if note and lines:
                lines[0] += f"  [{note}]"
            out += lines
    return out


def _impact_lines(report: Report, style: _Style) -> list[str]:
    """What the deploy does to running things: one line each, the strategy and what each
    consumer sees under it."""
    if not report.plan.impact:
        return []
    out = ["", style(impact_words.IMPACT_TITLE, "bold")]
    for item in report.plan.impact:
        sign = item.kind.sign
        out.append(f"  {style.sign(sign, where='impact')} {impact_words.message(item)}")
        out += [f"      {style(detail, 'dim')}" for detail in impact_words.details(item)]
    return out


def _warning_lines(group: tuple[PlanWarning, ...], style: _Style) -> list[str]:
    """A predicted failure or a data loss stands out (red); other warnings keep their mark.
    Warnings that differ only by their object (render/words/warning.grouped) are one line, the
    objects listed under it."""
    warning = group[0]
    mark = "X" if warning.fails else "!" if warning.severity is Severity.WARNING else "i"
    loud = warning.fails or warning.code.loud
    said = warning_words.group_message(group)
    out = [f"  {style.sign(mark)} {style(said, 'alert') if loud else said}"]
    if len(group) > 1:
        out += [f"      {style(warning_words.member(w), 'dim')}" for w in group]
    return out


def render(plan: Plan, options: WriteOptions = WriteOptions()) -> str:
    """The plan as text. `options.width` wraps lines (None: never); `options.full_values` shows
    every value and every created object whole."""
    style = _Style(options.colour)
    width = options.width
    view = View.of(options.full_values)
    report = Report.of(plan, options.fold, options.suppress)
    redactor = Redactor.for_plan(plan, options.show_secrets)
    out = _header(plan, style)
    head = len(out)  # the legend goes under the header, once every sign is known
    why = plan_words.cause_lines(plan, [(g.cause, g.resources) for g in report.causes], view, redactor.default_value)
    if report.highlights or why:
        out += ["", style(plan_words.HIGHLIGHTS_TITLE, "bold")]
        for note in report.highlights[:plan_words.HIGHLIGHTS]:
            text = plan_words.highlight_text(note, view)
            out.append(f"  {style.sign(note.sign)} {style(text, 'alert') if note.sign == 'X' else text}")
        if len(report.highlights) > plan_words.HIGHLIGHTS:
            out.append(f"  {plan_words.more_highlights(len(report.highlights) - plan_words.HIGHLIGHTS)}")
        out += [f"  {style.sign('i')} {line}" for line in why]
    out += _common_lines(report, redactor, style, view)
    if plan.changes:
        out += ["", style(plan_words.resources_title(plan), "bold")]
        for item in report.objects:
            out += _object_lines(item, redactor, style, view)
    if plan.tasks:
        out += ["", style(plan_words.TASKS_TITLE, "bold")]
        out += _task_lines(report, redactor, style, view)
    out += _impact_lines(report, style)
    if plan.chart_crds:
        out += ["", style(plan_words.CRDS_TITLE, "bold")]
        for crd in plan.chart_crds:
            out.append(f"  {crd.name} ({crd.source}): {crd_words.CRD_MEANING[crd.lifecycle]}{crd_words.crd_note(crd, crd_words.crd_applier(plan, crd), crd_words.crd_is_new(plan, crd))}")
    if report.drift_read or plan.drift:
        out += _drift_lines(plan, redactor, style, view)
    if plan.warnings:
        out += ["", style(plan_words.WARNINGS_TITLE, "bold")]
        out += [line for group in warning_words.grouped(plan.warnings) for line in _warning_lines(group, style)]
    if plan.ignored:
        out += ["", style(plan_words.IGNORED_TITLE, "bold")]
        for change in plan.ignored:
            out.append(f"  {style.sign(SIGN[change.action], 'dim')} {change.resource}  "
                       f"({change.action.value}; {', '.join(change.ignored_by)})")
    out += ["", _summary(plan, style)]
    if report.impact_line:
        out.append(style(report.impact_line, "bold"))
    legend = plan_words.legend_text(style.used)
    if legend:
        out.insert(head, f"  {style(legend, 'dim')}")
    out = [style.printable(line) for line in out]  # escaped first: wrapping measures what is shown
    if width:
        out = [wrapped for line in out for wrapped in wrap(line, width)]
    return "\n".join(out) + "\n"


def _visible(text: str) -> int:
    return len(_ANSI.sub("", text))


def wrap(line: str, width: int) -> list[str]:
    """One line cut at spaces to at most `width` visible characters (colour codes take no
    room); the continuation lines hang 4 columns deeper than the line's own indent. A word
    longer than a whole line (a long value with no spaces) is cut where the line ends; one
    that holds colour codes stays whole."""
    if _visible(line) <= width:
        return [line]
    indent = len(line) - len(line.lstrip(" "))
    hang = " " * min(indent + 4, max(width // 2, 0))
    room = max(width - len(hang), 1)
    out: list[str] = []
    current = line[:indent]
    empty = True
    for word in line[indent:].split(" "):
        while len(word) > room and "\x1b" not in word:
            take = max(width - _visible(current) - (0 if empty else 1), 1)
            if take < 8 and not empty:  # too little room left here: start the word on a new line
                out.append(current)
                current, empty = hang, True
                continue
            current += ("" if empty else " ") + word[:take]
            out.append(current)
            current, empty, word = hang, True, word[take:]
        if not empty and _visible(current) + 1 + _visible(word) > width:
            out.append(current)
            current, empty = hang + word, False
            continue
        current += ("" if empty else " ") + word
        empty = False
    out.append(current)
    return out


def _summary(plan: Plan, style: _Style) -> str:
    text = plan_words.summary_text(plan)
    fails = plan_words.failures_text(plan)
    if fails and text.endswith(fails):
        text = text[: -len(fails)]
        return style(text, "bold") + style(fails, "alert")
    if text.startswith("No changes."):
        return style("No changes.", "bold") + text[len("No changes."):]
    return style(text, "bold")
