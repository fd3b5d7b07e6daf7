"""The plan as markdown for a pull-request comment (GitHub and GitLab).

Order: the header, a summary table and the warnings first; then one collapsible `<details>`
section per changed object with its field changes; then tasks, chart CRDs, ignored changes and
what was not checked.

Everything from the plan is escaped: control characters and bidirectional overrides (from a
manifest, or a server's message) become visible escapes as in the text output, then text in
markdown gets backslash escapes, text in HTML gets entities, and field changes sit in a fenced
block longer than any backtick run in them.

A comment holds at most 65,536 characters, so the output stays under CAP. When the whole plan
does not fit, detail is cut, least important first, and a note at the top says what was cut:
1. the field changes of hook definitions,
2. the details (field changes) of objects, from the last in Helm's order; each keeps one line,
3. whole lines: ignored changes, then tasks, then objects, then warnings, each from the end.
The header, the summary table and the note itself are never cut.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Iterable

from deployah_plan.model import DriftChange, FieldChange, Plan, ResourceRef, Severity, Warning
from deployah_plan.redact import Redactor
from deployah_plan.render import words
from deployah_plan.render.options import WriteOptions
from deployah_plan.render.report import ObjectReport, Report, TaskRow
from deployah_plan.render.text import escape_unprintable
from deployah_plan.render.words import SIGN, TASK_SIGN

CAP = 65_000
_RESERVE = 1_200  # room for the cut note and the "N more not shown" lines
# What can start markup in the middle of a line; every line we write starts with our own
# marker ("- ", "### ", "**"), so line-start markup (1. + - =) cannot occur.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~])")


def md(text: str) -> str:
    """Text that markdown shows as it is, on one line. `@` becomes an entity, so a name from a
    manifest (`@team`) never mentions, and so notifies, anyone from a pull-request comment."""
    one_line = escape_unprintable(" ".join(str(text).split()))
    return _MD_SPECIAL.sub(r"\\\1", one_line).replace("&", "&amp;").replace("@", "&#64;")


def _html(text: str) -> str:
    return html.escape(escape_unprintable(" ".join(str(text).split())), quote=False).replace("@", "&#64;")


def _code_block(lines: Iterable[str], info: str = "diff") -> str:
    body = "\n".join(escape_unprintable(line) for line in lines)
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{body}\n{fence}"


def _field_block(ref: ResourceRef, fields: Iterable[FieldChange], redactor: Redactor) -> str:
    return _code_block(f"{sign} {text}" for f in fields for sign, text in words.diff_rows(redactor.view(ref, f)))


def _details(summary_html: str, body: list[str]) -> str:
    return "\n\n".join([f"<details><summary>{summary_html}</summary>", *body, "</details>"])


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


@dataclass
class _Item:
    """One entry of a section: its forms from most to least detailed, and which is used."""

    forms: list[str]
    level: int = 0

    @property
    def text(self) -> str:
        return self.forms[self.level]

    @property
    def cut(self) -> bool:
        return self.level > 0


@dataclass
class _Section:
    title: str
    items: list[_Item]
    what: str  # what one item is, for the cut note ("object", "task")
    shown: int = -1  # how many items are shown; -1: all
    lead: list[str] = field(default_factory=list)

    def visible(self) -> list[_Item]:
        return self.items if self.shown < 0 else self.items[: self.shown]

    def render(self) -> str:
        if not self.items:
            return ""
        parts = [self.title, *self.lead]
        previous_is_list = False
        pieces: list[str] = []
        for item in self.visible():
            is_list = item.text.startswith("- ")
            if pieces:
                pieces.append("\n" if previous_is_list and is_list else "\n\n")
            pieces.append(item.text)
            previous_is_list = is_list
        if pieces:
            parts.append("".join(pieces))
        hidden = len(self.items) - len(self.visible())
        if hidden:
            parts.append(f"*… and {hidden:,} more {self.what}{'' if hidden == 1 else 's'}, not shown here (see the JSON plan).*")
        return "\n\n".join(parts)

    def size(self) -> int:
        """An upper bound of len(render()) that is cheap to keep up to date."""
        if not self.items:
            return 0
        return len(self.title) + sum(len(x) + 2 for x in self.lead) + sum(len(i.text) + 2 for i in self.visible()) + 2


def _change_item(item: ObjectReport, redactor: Redactor) -> _Item:
    change = item.change
    sign = SIGN[change.action]
    alert = words.failure_label(item.failures) + words.data_loss_label(item.warnings)
    ref = str(change.resource) + words.change_note(change) + words.ownership_label(change) + alert
    count = f" ({words.action_text(_plural(len(item.own), 'field change'), len(item.own), item.common_count)})" \
        if item.own else f" (only {_plural(item.common_count, 'common change')})" if item.common_count else ""
    compact = f"- `{sign} {change.action.value}` {md(ref + count)}"  # md() and _html() drop the leading space
    if not item.own and not change.ignored_fields and not item.warnings and item.common_count:
        return _Item([compact])  # only common changes: one line
    body = []
    if change.source:
        body.append(f"Source: {md(change.source)}")
    if item.own:
        body.append(_field_block(change.resource, item.own, redactor))
    if change.ignored_fields:
        body.append(f"*{md(words.ignored_note(change))}*")
    for warning in item.warnings:
        body.append(f"{_mark(warning)} {_warning_text(warning)}")
    full = _details(f"<code>{sign} {change.action.value}</code> {_html(ref + count)}", body)
    return _Item([full, compact])


def _task_item(row: TaskRow, report: Report, redactor: Redactor) -> _Item:
    task, plan = row.tasks[0], report.plan
    item = report.task(task)
    sign = TASK_SIGN[task.action].strip() or "="
    line = f"- `{sign}` {md(' · '.join(words.task_parts(task, plan, item.own_count, item.common_count)))}"
    if row.policy:
        line += f"<br>{md(words.policy_text(row.policy, row.policy_for))}"
    changed = [d for d in item.definitions if d.own]
    if not changed:
        return _Item([line, line])
    blocks = [_field_block(d.definition.resource, d.own, redactor) for d in changed]
    full = line + "\n\n" + _details(f"definition of {_html(task.name)}", blocks)
    return _Item([full, line])


def _common_items(report: Report, redactor: Redactor) -> list[_Item]:
    """The common changes, one block per group of objects: said once, not under each object."""
    items = []
    for group in report.groups:
        rows = []
        for n in group.changes:
            common = report.common[n]
            rows += [f"{sign} {text}" for sign, text in words.diff_rows(redactor.view(common.first, common.change))]
            if common.template_copies:
                rows.append(f"  {words.template_note(common.template_copies).strip()}")
        head = f"**{md(words.common_heading(len(group.resources), len(group.hooks)).capitalize())}:**"
        items.append(_Item(["\n\n".join([head, _code_block(rows)]) if len(report.groups) > 1 else _code_block(rows)]))
    return items


def _drift_item(drift: DriftChange, redactor: Redactor) -> _Item:
    sign = words.DRIFT_SIGN[drift.kind]
    head = f"{drift.resource} ({words.drift_label(drift)})"
    compact = f"- `{sign} {drift.kind.value}` {md(head)}"
    body = [f"*{md(drift.reason)}*"] if drift.reason else []
    if drift.fields:
        rows = []
        for field in drift.fields:
            view = words.diff_rows(redactor.view(drift.resource, field.change))
            note = "; ".join(x for x in (words.FIELD_EFFECT[field.effect], field.ssa) if x)
            at = 1 if len(view) > 1 and view[0][0] == "-" and view[1][0] == "+" else 0  # after the live value
            rows += [f"{sign} {text}" + (f"  [{note}]" if n == at and note else "") for n, (sign, text) in enumerate(view)]
        body.append(_code_block(rows))
    if not body:
        return _Item([compact])
    return _Item([_details(f"<code>{sign} {drift.kind.value}</code> {_html(head)}", body), compact])


def _mark(warning: Warning) -> str:
    return "⛔" if warning.fails else "⚠️" if warning.severity is Severity.WARNING else "ℹ️"


def _warning_text(warning: Warning) -> str:
    """A predicted failure or a data loss in bold: it must stand out in a review."""
    text = md(warning.message)
    return f"**{text}**" if warning.fails or warning.code.loud else text


def _summary_table(report: Report) -> str:
    s = report.plan.summary
    heads = ["Create", "Update", "Delete", "Keep", "Hooks run", "Predicted failures", "Ignored", "Drift", "Warnings"]
    drift = "not checked" if report.drift_count is None else f"{report.drift_count:,}"
    failures = f"**{s.failures:,}**" if s.failures else "0"
    values = [f"{v:,}" for v in (s.create, s.update, s.delete, s.retain, s.hooks_run)]
    values += [failures, f"{s.ignored:,}", drift, f"{report.warning_count:,}"]
    return "\n".join([
        "| " + " | ".join(heads) + " |",
        "|" + "---:|" * len(heads),
        "| " + " | ".join(values) + " |",
    ])


def _sections(report: Report, redactor: Redactor) -> dict[str, _Section]:
    plan = report.plan
    warnings = [_Item([f"- {_mark(w)} {_warning_text(w)}"]) for w in plan.warnings]
    common = _common_items(report, redactor)
    changes = [_change_item(item, redactor) for item in report.objects]
    tasks: list[_Item] = []
    for phase, rows in report.phases():
        for n, row in enumerate(rows):
            again = words.again_text([t.name for t in row.tasks], [t.weight for t in row.tasks], row.again)
            item = _Item([f"- {md(again)}"]) if row.again else _task_item(row, report, redactor)
            if n == 0:
                title = f"**{md(words.phase_title(phase, plan))}**\n\n"
                item.forms = [title + form for form in item.forms]
            tasks.append(item)
    drift = [_drift_item(d, redactor) for d in plan.drift]
    crds = [_Item([f"- {md(c.name)} ({md(c.source)}): {md(words.CRD_MEANING[c.lifecycle] + words.crd_note(c))}"])
            for c in plan.chart_crds]
    ignored = [_Item([f"- `{SIGN[c.action]} {c.action.value}` {md(str(c.resource))} "
                      f"({md(', '.join(c.ignored_by))})"]) for c in plan.ignored]
    not_checked = [_Item([f"- {md(item)}"]) for item in plan.not_checked]
    return {
        "warnings": _Section(_title(words.WARNINGS_TITLE), warnings, "warning"),
        "common": _Section(_title(words.common_title(
            words.common_heading(len(report.groups[0].resources), len(report.groups[0].hooks))
            if len(report.groups) == 1 else "")), common, "group of common changes"),
        "changes": _Section(_title(words.resources_title(plan)), changes, "object"),
        "tasks": _Section(_title(words.TASKS_TITLE), tasks, "task"),
        "drift": _Section(_title(words.DRIFT_TITLE), drift, "drifted object"),
        "crds": _Section(_title(words.CRDS_TITLE), crds, "chart CRD"),
        "ignored": _Section(_title(words.IGNORED_TITLE), ignored, "ignored change"),
        "not_checked": _Section(_title(words.NOT_CHECKED_TITLE), not_checked, "item"),
    }


def _title(title: str) -> str:
    return f"#### {title.rstrip(':')}"


def _fit(sections: dict[str, _Section], budget: int) -> list[str]:
    """Cut detail, least important first, until the sections fit; says what was cut."""
    # The running total is kept up to date item by item (as size() would compute it), so the
    # cutting is linear in the number of items.
    total = sum(s.size() for s in sections.values())
    for key in ("tasks", "drift", "changes"):
        for item in reversed(sections[key].items):
            if total <= budget:
                break
            before = len(item.text)
            item.level = len(item.forms) - 1
            total += len(item.text) - before
    for key in ("ignored", "tasks", "drift", "changes", "warnings", "common"):
        section = sections[key]
        section.shown = len(section.items)
        while total > budget and section.shown > 0:
            section.shown -= 1
            total -= len(section.items[section.shown].text) + 2
        if section.shown == len(section.items):
            section.shown = -1
    cut = []
    details = sum(1 for i in sections["changes"].visible() if i.cut)
    if details:
        cut.append(f"the details of {_plural(details, 'object')}")
    hook_details = sum(1 for i in sections["tasks"].visible() if i.cut and i.forms[0] != i.forms[-1])
    if hook_details:
        cut.append(f"the definition changes of {_plural(hook_details, 'hook')}")
    for key in ("changes", "tasks", "drift", "ignored", "warnings", "common"):
        section = sections[key]
        hidden = len(section.items) - len(section.visible())
        if hidden:
            cut.append(f"{_plural(hidden, section.what)}")
    return cut


_HEADER_LINE = 1_000  # a header line longer than this (a 100,000-character release name) is clipped


def _clip(line: str) -> str:
    return line if len(line) <= _HEADER_LINE else line[: _HEADER_LINE - 1] + "…"


def render(plan: Plan, options: WriteOptions = WriteOptions()) -> str:
    """The plan as a comment."""
    report = Report.of(plan, options.fold)
    title, *rest = (_clip(line) for line in words.header_lines(plan))
    head = "\n\n".join([
        f"### {md(title)}",
        "\n".join(f"- {md(line)}" for line in rest),
        _summary_table(report),
        f"**{md(words.summary_text(plan))}**",
    ])
    sections = _sections(report, Redactor.for_plan(plan, options.show_secrets))
    full = sum(s.size() for s in sections.values()) + len(head)
    cut = _fit(sections, CAP - len(head) - _RESERVE) if full > CAP - _RESERVE else []
    parts = [head]
    if cut:
        parts.append(f"> **Cut to fit a comment ({CAP:,} characters).** Not shown: {md('; '.join(cut))}. "
                     "The JSON plan (`--out`) has everything; `helm plan show` prints it in full as text.")
    parts += [text for text in (s.render() for s in sections.values()) if text]
    return "\n\n".join(parts) + "\n"


__all__ = ["CAP", "md", "render"]
