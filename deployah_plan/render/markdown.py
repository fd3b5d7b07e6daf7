"""The plan as markdown for a pull-request comment (GitHub and GitLab).

Order: the first screen is the header, a summary table (the plan line and the impact line
under it), "what matters" and what the deploy does to running things; then the warnings (most
important first, without those "what matters" says in full; warnings of one code that differ
only by their object as one line, render/words/warning.grouped); then one collapsible
`<details>` per changed object with its field changes (every entry a `<details>`, empty when
there is nothing to open, so the list renders as one column); then tasks, chart CRDs (what Helm
does with them said once, the advice left to the warning), ignored changes and what was not
checked.

Everything from the plan is escaped: control characters and bidirectional overrides (from a
manifest, or a server's message) become visible escapes as in the text output, then text in
markdown gets backslash escapes, text in HTML gets entities, and field changes sit in a fenced
block longer than any backtick run in them.

A comment holds at most 65,536 characters, so the output stays under CAP. When the whole plan
does not fit, detail is cut by importance (report.Weight), least important first, and a note
at the top names the objects whose details were cut:
1. the details of CustomResourceDefinitions (schema prose): first shortened to DETAIL_ROWS
   rows, then down to the object's line;
2. the definition changes of hooks, then the details of drifted objects, then the details of
   impacts (the strategy, what each reader sees: the impact's line stays);
3. the details of the other objects, weight by weight (only common changes, their own
   changes, then deletes, images, RBAC, webhooks and Secrets' keys, then predicted failures
   and data loss), each weight shortened first, from the last in Helm's order;
4. whole lines: ignored changes, tasks, drifted objects, objects (least important first),
   impacts, warnings, common changes.
The header, the summary table, "what matters" and the note itself are never cut.
"""
from __future__ import annotations

import html
from typing import Any, Iterable, Mapping

from msgspec import Struct, field

from deployah_plan.startup import lazy
from deployah_plan.model import CRDLifecycle, DriftChange, FieldChange, Plan, ResourceRef, Severity, Warning
from deployah_plan.redact import Redactor
from deployah_plan.render import words
from deployah_plan.render.words import change as change_words
from deployah_plan.render.words import crd as crd_words
from deployah_plan.render.words import drift as drift_words
from deployah_plan.render.words import impact as impact_words
from deployah_plan.render.words import plan as plan_words
from deployah_plan.render.words import task as task_words
from deployah_plan.render.words import value as value_words
from deployah_plan.render.words import warning as warning_words
from deployah_plan.escape import code_block, escape_controls
from deployah_plan.render.options import WriteOptions
from deployah_plan.render.report import ObjectReport, Report, TaskRow, Weight
from deployah_plan.render.words import SIGN
from deployah_plan.render.words.task import TASK_SIGN
from deployah_plan.render.words.value import View

CAP = 65_000
DETAIL_ROWS = 30  # rows an object's diff keeps when it is shortened to fit
_RESERVE = 1_200  # room for the cut note and the "N more not shown" lines
# What can start markup in the middle of a line; every line we write starts with our own
# marker ("- ", "### ", "**"), so line-start markup (1. + - =) cannot occur.
_MD_SPECIAL = lazy(r"([\\`*_\[\]<>#|~])")


def md(text: str) -> str:
    """Text that markdown shows as it is, on one line. `@` becomes an entity, so a name from a
    manifest (`@team`) never mentions, and so notifies, anyone from a pull-request comment."""
    one_line = escape_controls(" ".join(str(text).split()))
    return _MD_SPECIAL.sub(r"\\\1", one_line).replace("&", "&amp;").replace("@", "&#64;")


def _html(text: str) -> str:
    return html.escape(escape_controls(" ".join(str(text).split())), quote=False).replace("@", "&#64;")


def _code_block(lines: Iterable[str], info: str = "diff") -> str:
    return code_block(lines, info)


def _field_rows(ref: ResourceRef, fields: Iterable[FieldChange], redactor: Redactor, view: View) -> list[str]:
    return [f"{sign} {text}" for f in fields for sign, text in value_words.diff_rows(redactor.view(ref, f), view=view)]


def _content_rows(ref: ResourceRef, obj: Mapping[str, Any] | None, redactor: Redactor, view: View) -> list[str]:
    """What a created object contains, as `+` lines, folded beyond the line budget."""
    if not obj:
        return []
    rows, folded = value_words.content_rows(redactor.content(ref, obj), view)
    return [f"+ {row}" for row in rows] + ([f"  {value_words.folded_note(folded)}"] if folded else [])


def _trimmed(rows: list[str]) -> list[str]:
    """A diff cut to its first DETAIL_ROWS rows, saying how many more there are."""
    return rows[:DETAIL_ROWS] + [f"  … {len(rows) - DETAIL_ROWS:,} more rows cut to fit the comment"]


def _details(summary_html: str, body: list[str]) -> str:
    return "\n\n".join([f"<details><summary>{summary_html}</summary>", *body, "</details>"])


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


class _Item(Struct):
    """One entry of a section: its forms from most to least detailed, and which is used; its
    weight (report.Weight: what a cut drops last is lowest), and the object it is about, for
    the note that says what was cut."""

    forms: list[str]
    level: int = 0
    weight: int = Weight.OWN
    name: str = ""
    hidden: bool = False

    @property
    def text(self) -> str:
        return self.forms[self.level]

    @property
    def cut(self) -> bool:
        return self.level > 0

    @property
    def trimmed(self) -> bool:
        """Shortened but not down to its line (only items with three forms have that middle)."""
        return len(self.forms) == 3 and self.level == 1


class _Section(Struct):
    title: str
    items: list[_Item]
    what: str  # what one item is, for the cut note ("object", "task")
    lead: list[str] = field(default_factory=list)

    def visible(self) -> list[_Item]:
        return [item for item in self.items if not item.hidden]

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


def _change_item(item: ObjectReport, redactor: Redactor, view: View, said: set[int]) -> _Item:
    """An object's entry; its warnings are said above (in "what matters" when `said` holds
    them, else among the warnings), so its details only point to them."""
    change = item.change
    sign = SIGN[change.action]
    alert = change_words.failure_label(item.failures) + change_words.data_loss_label(item.warnings)
    ref = str(change.resource) + change_words.change_note(change, item.cause) + change_words.ownership_label(change) + alert
    what = _plural(len(item.own), 'field change') if item.own else "CRD schema changes"
    count = f" ({plan_words.action_text(what, len(item.own) + len(item.notes), item.common_count)})" \
        if item.own or item.notes else f" (only {_plural(item.common_count, 'common change')})" if item.common_count else ""
    summary = f"<code>{sign} {change.action.value}</code> {_html(ref + count)}"  # _html() drops the leading space
    source = [f"Source: {md(change.source)}"] if change.source else []
    # Every entry is a <details>, whatever it holds, so the list renders as one even column.
    # Cut to its line, it keeps that shape, empty.
    compact = f"<details><summary>{summary} <i>(details cut to fit)</i></summary></details>"
    name = str(change.resource)
    if not item.own and not item.hidden and not item.hidden_content and not item.notes and not change.ignored_fields and not item.warnings and item.common_count:
        # Only common changes, said above: nothing to open.
        return _Item([f"<details><summary>{summary}</summary></details>"], weight=item.weight, name=name)
    rows = _field_rows(change.resource, item.own, redactor, view) + _content_rows(change.resource, item.content, redactor, view)
    suppressed = plan_words.suppressed_note(change.resource.kind, item.hidden, item.hidden_content)

    notes = crd_words.crd_lines(change.crd_schema, fold=True) if item.notes and change.crd_schema is not None else item.notes

    def body(rows: list[str]) -> str:
        parts = list(source)
        if notes:
            parts.append("\n".join(f"- {md(note)}" for note in notes))
        if rows:
            parts.append(_code_block(rows))
        if suppressed:
            parts.append(f"*{md(suppressed)}*")
        if change.ignored_fields:
            parts.append(f"*{md(change_words.ignored_note(change))}*")
        parts += [f"{_mark(w)} *{md(warning_words.warning_pointer(w.code.value, id(w) in said))}*" for w in item.warnings]
        return _details(summary, parts)

    forms = [body(rows)] + ([body(_trimmed(rows))] if len(rows) > DETAIL_ROWS + 1 else [])
    return _Item(forms + [compact], weight=item.weight, name=name)


def _task_item(row: TaskRow, report: Report, redactor: Redactor, view: View) -> _Item:
    task, plan = row.tasks[0], report.plan
    item = report.task(task)
    sign = TASK_SIGN[task.action].strip() or "="
    line = f"- `{sign}` {md(' · '.join(task_words.task_parts(task, plan, item.own_count, item.common_count)))}"
    if item.cause is not None:
        line += f" {md('[' + change_words.CAUSE[item.cause] + ']')}"
    if row.policy:
        line += f"<br>{md(task_words.policy_text(row.policy, row.policy_for))}"
    blocks = []
    for d in item.definitions:
        hook = d.definition
        rows = _field_rows(hook.resource, d.own, redactor, view) + _content_rows(hook.resource, d.content, redactor, view)
        if rows:
            blocks.append(_code_block(rows))
        suppressed = plan_words.suppressed_note(hook.resource.kind, d.hidden, d.hidden_content)
        if suppressed:
            blocks.append(f"*{md(suppressed)}*")
    if not blocks:
        return _Item([line, line], name=task.name)
    full = line + "\n\n" + _details(f"definition of {_html(task.name)}", blocks)
    return _Item([full, line], name=task.name)


def _common_items(report: Report, redactor: Redactor, view: View) -> list[_Item]:
    """The common changes, one block per group of objects: said once, not under each object."""
    items = []
    for group in report.groups:
        rows = []
        for n in group.changes:
            common = report.common[n]
            rows += _field_rows(common.first, [common.change], redactor, view)
            if common.template_copies:
                rows.append(f"  {plan_words.template_note(common.template_copies).strip()}")
        head = f"**{md(plan_words.common_heading(len(group.resources), len(group.hooks)).capitalize())}:**"
        items.append(_Item(["\n\n".join([head, _code_block(rows)]) if len(report.groups) > 1 else _code_block(rows)]))
    return items


def _drift_item(drift: DriftChange, redactor: Redactor, view: View) -> _Item:
    sign = drift_words.DRIFT_SIGN[drift.kind]
    head = f"{drift.resource} ({drift_words.drift_label(drift)})"
    compact = f"- `{sign} {drift.kind.value}` {md(head)}"
    reason = drift_words.drift_reason(drift)
    body = [f"*{md(reason)}*"] if reason else []
    if drift.fields:
        rows = []
        for drifted in drift.fields:
            shown = value_words.diff_rows(redactor.view(drift.resource, drifted.change), view=view)
            note = "; ".join(x for x in (drift_words.FIELD_EFFECT[drifted.effect], drift_words.drift_ssa(drifted)) if x)
            at = 1 if len(shown) > 1 and shown[0][0] == "-" and shown[1][0] == "+" else 0  # after the live value
            rows += [f"{sign} {text}" + (f"  [{note}]" if n == at and note else "")
                     for n, (sign, text) in enumerate(shown)]
        body.append(_code_block(rows))
    if not body:
        return _Item([compact], name=str(drift.resource))
    return _Item([_details(f"<code>{sign} {drift.kind.value}</code> {_html(head)}", body), compact],
                 name=str(drift.resource))


def _mark(warning: Warning) -> str:
    return "⛔" if warning.fails else "⚠️" if warning.severity is Severity.WARNING else "ℹ️"


def _summary_table(report: Report) -> str:
    s = report.plan.summary
    heads = ["Create", "Update", "Delete", "Keep", "Hooks run", "Predicted failures", "Ignored", "Drift", "Warnings"]
    drift = "not checked" if report.drift_count is None else f"{report.drift_count:,}"
    failures = f"**{s.failures:,}**" if s.failures else "0"
    values = [f"{v:,}" for v in (s.create - s.adopted, s.update, s.delete, s.retain, s.hooks_run)]
    values += [failures, f"{s.ignored:,}", drift, f"{report.warning_count:,}"]
    if s.adopted:  # an adopted object is not created: Helm applies the chart over the live one
        heads.insert(1, "Adopt")
        values.insert(1, f"{s.adopted:,}")
    return "\n".join([
        "| " + " | ".join(heads) + " |",
        "|" + "---:|" * len(heads),
        "| " + " | ".join(values) + " |",
    ])


def _sections(report: Report, redactor: Redactor, view: View) -> dict[str, _Section]:
    plan = report.plan
    said = _said_above(report)
    warnings = [_warning_item(group) for group in warning_words.grouped(
        sorted((w for w in plan.warnings if id(w) not in said), key=warning_words.importance))]
    common = _common_items(report, redactor, view)
    changes = [_change_item(item, redactor, view, said) for item in report.objects]
    tasks: list[_Item] = []
    for phase, rows in report.phases():
        for n, row in enumerate(rows):
            again = task_words.again_text([t.name for t in row.tasks], [t.weight for t in row.tasks], row.again)
            item = _Item([f"- {md(again)}"]) if row.again else _task_item(row, report, redactor, view)
            if n == 0:
                title = f"**{md(task_words.phase_title(phase, plan, (t for row in rows for t in row.tasks)))}**\n\n"
                item.forms = [title + form for form in item.forms]
            tasks.append(item)
    drift = [_drift_item(d, redactor, view) for d in plan.drift]
    crds = _crd_items(plan)
    ignored = [_Item([f"- `{SIGN[c.action]} {c.action.value}` {md(str(c.resource))} "
                      f"({md(', '.join(c.ignored_by))})"]) for c in plan.ignored]
    not_checked = [_Item([f"- {md(item)}"]) for item in plan.not_checked]
    return {  # the first screen: the head, then what the deploy does to running things, then the warnings
        "impact": _Section(_title(impact_words.IMPACT_TITLE), _impact_items(report), "impact"),
        "warnings": _Section(_title(plan_words.WARNINGS_TITLE), warnings, "warning"),
        "common": _Section(_title(plan_words.common_title(
            plan_words.common_heading(len(report.groups[0].resources), len(report.groups[0].hooks))
            if len(report.groups) == 1 else "")), common, "group of common changes"),
        "changes": _Section(_title(plan_words.resources_title(plan)), changes, "object"),
        "tasks": _Section(_title(plan_words.TASKS_TITLE), tasks, "task"),
        "drift": _Section(_title(plan_words.DRIFT_TITLE), drift, "drifted object"),
        "crds": _Section(_title(plan_words.CRDS_TITLE), crds, "chart CRD"),
        "ignored": _Section(_title(plan_words.IGNORED_TITLE), ignored, "ignored change"),
        "not_checked": _Section(_title(plan_words.NOT_CHECKED_TITLE), not_checked, "item"),
    }


def _said_above(report: Report) -> set[int]:
    """The warnings "what matters" says in full (as many of its lines as it shows, each naming
    every warning of its group): the warnings section leaves them out, so each is said in one
    place. A group whose names "what matters" cuts short stays among the warnings, whole."""
    return {id(w) for note in report.highlights[:plan_words.HIGHLIGHTS]
            if note.warnings and len(note.warnings) <= words.NAMES for w in note.warnings}


def _warning_item(group: tuple[Warning, ...]) -> _Item:
    """A warning's line; warnings of one code that differ only by their object as one line, the
    objects folded under it."""
    first = group[0]
    text = md(warning_words.group_message(group))
    line = f"- {_mark(first)} " + (f"**{text}**" if first.fails or first.code.loud else text)
    if len(group) == 1:
        return _Item([line])
    # One line of HTML with no blank line in it: the list stays tight (GitHub adds no spacing).
    listed = "".join(f"<li>{_html(warning_words.member(w))}</li>" for w in group)
    return _Item([f"{line}\n  <details><summary>{_html(warning_words.members_title(group))}</summary><ul>{listed}</ul></details>"])


def _crd_items(plan: Plan) -> list[_Item]:
    """The chart's CRDs: what Helm does with them said once per kind of handling, then each CRD
    with what changed (the advice to apply a changed one is the warning's, said there); the
    unchanged ones on one line."""
    items = []
    for lifecycle in dict.fromkeys(c.lifecycle for c in plan.chart_crds):
        crds = [c for c in plan.chart_crds if c.lifecycle is lifecycle]
        upgrade = lifecycle is CRDLifecycle.NOT_ON_UPGRADE  # where a CRD the chart did not change is news to no one
        notes = {c.name: crd_words.crd_change_note(c, crd_words.crd_is_new(plan, c)) for c in crds}
        lines = [f"- {md(c.name)} ({md(c.source)})" + (f": {md(notes[c.name])}" if notes[c.name] else "")
                 for c in crds if notes[c.name] or not upgrade]
        same = [c.name for c in crds if not notes[c.name]] if upgrade else []
        if same:
            lines.append(f"- {md(crd_words.crds_unchanged(same, len(same) < len(crds)))}")
        head = f"**{md(words.plural(len(crds), 'chart CRD'))}: {md(crd_words.CRD_MEANING[lifecycle])}**\n\n"
        items.append(_Item([head + "\n".join(lines)]))
    return items


def _impact_items(report: Report) -> list[_Item]:
    """What the deploy does to running things: a line each, its details under it (cut first)."""
    items = []
    for item in report.plan.impact:
        line = f"- `{item.kind.sign} {item.kind.value}` {md(impact_words.message(item))}"
        full = line + "".join(f"<br>{md(detail)}" for detail in impact_words.details(item))
        items.append(_Item([full, line] if impact_words.details(item) else [line]))
    return items


def _title(title: str) -> str:
    return f"#### {title.rstrip(':')}"


def _fit(sections: dict[str, _Section], budget: int) -> list[str]:
    """Cut detail, least important first (see the module doc), until the sections fit; says
    what was cut, naming the objects."""
    # The running total is kept up to date item by item (as size() would compute it), so the
    # cutting is linear in the number of items.
    total = sum(s.size() for s in sections.values())
    changes = sections["changes"].items

    def weighing(weight: Weight) -> list[_Item]:
        return [item for item in changes if item.weight == weight]

    def shorten(items: list[_Item], to_line: bool) -> None:
        nonlocal total
        for item in reversed(items):
            if total <= budget:
                return
            level = len(item.forms) - 1 if to_line else 1 if len(item.forms) == 3 else 0
            if level > item.level:
                before = len(item.text)
                item.level = level
                total += len(item.text) - before

    steps = [weighing(Weight.SCHEMA), sections["tasks"].items, sections["drift"].items, sections["impact"].items]
    steps += [weighing(w) for w in (Weight.COMMON, Weight.OWN, Weight.NOTABLE, Weight.ALARM)]
    for items in steps:
        shorten(items, False)
        shorten(items, True)
    by_weight = sorted(range(len(changes)), key=lambda n: (-changes[n].weight, -n))
    for key in ("ignored", "tasks", "drift", "changes", "impact", "warnings", "common"):
        items = sections[key].items
        for n in by_weight if key == "changes" else range(len(items) - 1, -1, -1):
            if total <= budget:
                break
            items[n].hidden = True
            total -= len(items[n].text) + 2
    visible = sections["changes"].visible()
    cut = []
    details = [i.name for i in visible if i.cut and not i.trimmed]
    if details:
        cut.append(f"the details of {_plural(len(details), 'object')} ({words.names(details)})")
    trimmed = [i.name for i in visible if i.trimmed]
    if trimmed:
        cut.append(f"part of the details of {_plural(len(trimmed), 'object')} ({words.names(trimmed)})")
    hook_details = [i.name for i in sections["tasks"].visible() if i.cut and i.forms[0] != i.forms[-1]]
    if hook_details:
        cut.append(f"the definition changes of {_plural(len(hook_details), 'hook')} ({words.names(hook_details)})")
    drift_details = [i.name for i in sections["drift"].visible() if i.cut]
    if drift_details:
        cut.append(f"the details of {_plural(len(drift_details), 'drifted object')} ({words.names(drift_details)})")
    impact_details = sum(1 for i in sections["impact"].visible() if i.cut)
    if impact_details:
        cut.append(f"the details of {_plural(impact_details, 'impact')}")
    for key in ("changes", "tasks", "drift", "ignored", "impact", "warnings", "common"):
        section = sections[key]
        hidden = [i.name for i in section.items if i.hidden]
        if hidden:
            named = f" ({words.names(hidden)})" if all(hidden) else ""
            cut.append(f"{_plural(len(hidden), section.what)}{named}")
    return cut


_HEADER_LINE = 1_000  # a header line longer than this (a 100,000-character release name) is clipped


def _clip(line: str) -> str:
    return line if len(line) <= _HEADER_LINE else line[: _HEADER_LINE - 1] + "…"


_HIGHLIGHT_MARK = {"X": "⛔", "!": "⚠️"}


def _sign(sign: str) -> str:
    """A sign of "what matters" as the comment shows it: a predicted failure and a warning as
    the warnings' marks, the others as code."""
    return _HIGHLIGHT_MARK.get(sign, f"`{sign}`")


def render(plan: Plan, options: WriteOptions = WriteOptions()) -> str:
    """The plan as a comment; `options.full_values` shows every value and created object whole
    (the size cut still applies)."""
    view = View.of(options.full_values)
    report = Report.of(plan, options.fold, options.suppress)
    title, *rest = (_clip(line) for line in plan_words.header_lines(plan))
    head = "\n\n".join([
        f"### {md(title)}",
        "\n".join(f"- {md(line)}" for line in rest),
        _summary_table(report),
        f"**{md(plan_words.summary_text(plan))}**" + (f"<br>\n**{md(report.impact_line)}**" if report.impact_line else ""),
    ])
    redactor = Redactor.for_plan(plan, options.show_secrets)
    why = plan_words.cause_lines(plan, [(g.cause, g.resources) for g in report.causes], view, redactor.default_value)
    if report.highlights or why:
        shown = report.highlights[:plan_words.HIGHLIGHTS]
        notes = [f"- {_sign(note.sign)} {md(plan_words.highlight_text(note, view))}" for note in shown]
        more = len(report.highlights) - plan_words.HIGHLIGHTS
        if more > 0:
            notes.append(f"- {md(plan_words.more_highlights(more))}")
        notes += [f"- {_sign('i')} {md(line)}" for line in why]
        signs = plan_words.legend({note.sign: {""} for note in shown} | ({"i": {""}} if why else {}))
        legend = "*" + md("Signs:") + "* " + ", ".join(f"{_sign(sign)} {md(meaning)}" for sign, meaning in signs)
        head += "\n\n" + "\n".join([_title(plan_words.HIGHLIGHTS_TITLE), "", *notes, "", legend])
    sections = _sections(report, redactor, view)
    full = sum(s.size() for s in sections.values()) + len(head)
    cut = _fit(sections, CAP - len(head) - _RESERVE) if full > CAP - _RESERVE else []
    parts = [head]
    if cut:
        parts.append(f"> **Cut to fit a comment ({CAP:,} characters).** Not shown: {md('; '.join(cut))}. "
                     "The JSON plan (`--out`) has everything; `helm plan show` prints it in full as text.")
    parts += [text for text in (s.render() for s in sections.values()) if text]
    return "\n\n".join(parts) + "\n"


__all__ = ["CAP", "md", "render"]
