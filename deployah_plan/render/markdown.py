"""The plan as markdown for a pull-request comment (GitHub and GitLab).

Order: the header, a summary table and the warnings first; then one collapsible `<details>`
section per changed object with its field changes; then tasks, chart CRDs, ignored changes and
what was not checked.

Everything from the plan is escaped: text in markdown gets backslash escapes, text in HTML
gets entities, and field changes sit in a fenced block longer than any backtick run in them.

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

from deployah_plan.model import (
    DriftChange, FieldChange, LiveStatus, Plan, ResourceChange, ResourceRef, Severity, TaskPlan, Warning,
)
from deployah_plan.render.text import (
    CRD_MEANING, DRIFT_SIGN, FIELD_EFFECT, SIGN, TASK_SIGN, again_note, change_note, crd_note, failure_label,
    drift_label, field_rows, header_lines, ignored_note, phase_title, resources_title, summary_text, task_parts, task_policy,
)
from deployah_plan.redact import Redactor

CAP = 65_000
_RESERVE = 1_200  # room for the cut note and the "N more not shown" lines
# What can start markup in the middle of a line; every line we write starts with our own
# marker ("- ", "### ", "**"), so line-start markup (1. + - =) cannot occur.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~])")


def md(text: str) -> str:
    """Text that markdown shows as it is, on one line. `@` becomes an entity, so a name from a
    manifest (`@team`) never mentions, and so notifies, anyone from a pull-request comment."""
    one_line = " ".join(str(text).split())
    return _MD_SPECIAL.sub(r"\\\1", one_line).replace("&", "&amp;").replace("@", "&#64;")


def _html(text: str) -> str:
    return html.escape(" ".join(str(text).split()), quote=False).replace("@", "&#64;")


def _code_block(lines: Iterable[str], info: str = "diff") -> str:
    body = "\n".join(lines)
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{body}\n{fence}"


def _field_block(ref: ResourceRef, fields: Iterable[FieldChange], redactor: Redactor) -> str:
    return _code_block(f"{sign} {text}" for f in fields for sign, text in field_rows(redactor.view(ref, f)))


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


def _change_item(change: ResourceChange, plan: Plan, warnings: Iterable[Warning], redactor: Redactor) -> _Item:
    """One object; `warnings` are the plan's warnings about it (indexed once by the caller)."""
    sign, ref = SIGN[change.action], str(change.resource) + change_note(change) + failure_label(change, plan)
    n = len(change.fields)
    count = f" ({_plural(n, 'field change')})" if n else ""  # md() and _html() drop the leading space
    body = []
    if change.source:
        body.append(f"Source: {md(change.source)}")
    if change.fields:
        body.append(_field_block(change.resource, change.fields, redactor))
    if change.ignored_fields:
        body.append(f"*{md(ignored_note(change))}*")
    for warning in warnings:
        body.append(f"{_mark(warning)} {md(warning.message)}")
    full = _details(f"<code>{sign} {change.action.value}</code> {_html(ref + count)}", body)
    compact = f"- `{sign} {change.action.value}` {md(ref + count)}"
    return _Item([full, compact])


def _task_item(task: TaskPlan, plan: Plan, redactor: Redactor) -> _Item:
    sign = TASK_SIGN[task.action].strip() or "="
    line = f"- `{sign}` {md(' · '.join(task_parts(task, plan)))}"
    policy = task_policy(task)
    if policy:
        line += f"<br>{md(policy)}"
    changed = [d for d in task.definitions if d.fields]
    if not changed:
        return _Item([line, line])
    blocks = [_field_block(d.resource, d.fields, redactor) for d in changed]
    full = line + "\n\n" + _details(f"definition of {_html(task.name)}", blocks)
    return _Item([full, line])


def _drift_item(drift: DriftChange, redactor: Redactor) -> _Item:
    sign = DRIFT_SIGN[drift.kind]
    head = f"{drift.resource} ({drift_label(drift)})"
    compact = f"- `{sign} {drift.kind.value}` {md(head)}"
    body = [f"*{md(drift.reason)}*"] if drift.reason else []
    if drift.fields:
        rows = []
        for field in drift.fields:
            view = field_rows(redactor.view(drift.resource, field.change))
            note = "; ".join(x for x in (FIELD_EFFECT[field.effect], field.ssa) if x)
            rows += [f"{sign} {text}" + (f"  [{note}]" if n == 0 and note else "") for n, (sign, text) in enumerate(view)]
        body.append(_code_block(rows))
    if not body:
        return _Item([compact])
    return _Item([_details(f"<code>{sign} {drift.kind.value}</code> {_html(head)}", body), compact])


def _mark(warning: Warning) -> str:
    return "⛔" if warning.fails else "⚠️" if warning.severity is Severity.WARNING else "ℹ️"


def _summary_table(plan: Plan) -> str:
    s = plan.summary
    heads = ["Create", "Update", "Delete", "Keep", "Hooks run", "Predicted failures", "Ignored", "Drift", "Warnings"]
    drift = f"{len(plan.drift):,}" if plan.live.status in (LiveStatus.CHECKED, LiveStatus.PARTIAL) else "not checked"
    values = [f"{v:,}" for v in (s.create, s.update, s.delete, s.retain, s.hooks_run, s.failures, s.ignored)]
    values += [drift, f"{sum(1 for w in plan.warnings if w.severity is Severity.WARNING):,}"]
    return "\n".join([
        "| " + " | ".join(heads) + " |",
        "|" + "---:|" * len(heads),
        "| " + " | ".join(values) + " |",
    ])


def _sections(plan: Plan, redactor: Redactor) -> dict[str, _Section]:
    warnings = [_Item([f"- {_mark(w)} {md(w.message)}"]) for w in plan.warnings]
    by_object: dict[tuple[str, str, str, str], list[Warning]] = {}
    for w in plan.warnings:
        if w.resource is not None:
            by_object.setdefault(w.resource.identity, []).append(w)
    changes = [_change_item(c, plan, by_object.get(c.resource.identity, ()), redactor) for c in plan.changes]
    tasks: list[_Item] = []
    for phase, group in plan.task_groups():
        for n, task in enumerate(group):
            again = again_note(task, phase)
            item = _Item([f"- {md(task.name + '  weight ' + str(task.weight) + '  ' + again)}"]) if again \
                else _task_item(task, plan, redactor)
            if n == 0:
                title = f"**{md(phase_title(phase, plan))}**\n\n"
                item.forms = [title + form for form in item.forms]
            tasks.append(item)
    drift = [_drift_item(d, redactor) for d in plan.drift]
    crds = [_Item([f"- {md(c.name)} ({md(c.source)}): {md(CRD_MEANING[c.lifecycle] + crd_note(c))}"])
            for c in plan.chart_crds]
    ignored = [_Item([f"- `{SIGN[c.action]} {c.action.value}` {md(str(c.resource))} "
                      f"({md(', '.join(c.ignored_by))})"]) for c in plan.ignored]
    not_checked = [_Item([f"- {md(item)}"]) for item in plan.not_checked]
    return {
        "warnings": _Section("#### Warnings and notes", warnings, "warning"),
        "changes": _Section(f"#### {resources_title(plan).rstrip(':')}", changes, "object"),
        "tasks": _Section("#### Tasks (Helm hooks and CronJobs), in the order Helm runs them", tasks, "task"),
        "drift": _Section("#### Drift (live vs the previous release)", drift, "drifted object"),
        "crds": _Section("#### Chart CRDs (crds/)", crds, "chart CRD"),
        "ignored": _Section("#### Ignored (matched by ignore rules; not counted)", ignored, "ignored change"),
        "not_checked": _Section("#### Not checked", not_checked, "item"),
    }


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
    for key in ("ignored", "tasks", "drift", "changes", "warnings"):
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
    for key in ("changes", "tasks", "drift", "ignored", "warnings"):
        section = sections[key]
        hidden = len(section.items) - len(section.visible())
        if hidden:
            cut.append(f"{_plural(hidden, section.what)}")
    return cut


_HEADER_LINE = 1_000  # a header line longer than this (a 100,000-character release name) is clipped


def _clip(line: str) -> str:
    return line if len(line) <= _HEADER_LINE else line[: _HEADER_LINE - 1] + "…"


def render(plan: Plan, show_secrets: bool = False) -> str:
    title, *rest = (_clip(line) for line in header_lines(plan))
    head = "\n\n".join([
        f"### {md(title)}",
        "\n".join(f"- {md(line)}" for line in rest),
        _summary_table(plan),
        f"**{md(summary_text(plan))}**",
    ])
    sections = _sections(plan, Redactor.for_plan(plan, show_secrets))
    full = sum(s.size() for s in sections.values()) + len(head)
    cut = _fit(sections, CAP - len(head) - _RESERVE) if full > CAP - _RESERVE else []
    parts = [head]
    if cut:
        parts.append(f"> **Cut to fit a comment ({CAP:,} characters).** Not shown: {md('; '.join(cut))}. "
                     "The JSON plan (`--out`) has everything; `helm plan show` prints it in full as text.")
    parts += [text for text in (s.render() for s in sections.values()) if text]
    return "\n\n".join(parts) + "\n"


__all__ = ["CAP", "md", "render"]
