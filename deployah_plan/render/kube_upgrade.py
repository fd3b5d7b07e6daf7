"""The report of `helm plan kube-upgrade`: a summary table (release, namespace, chart, verdict),
then each release's plan as the chosen writer printed it; in JSON one envelope with its own
`format_version`, the table as `releases` and the plans as `plans` (the schema's
`$defs/kube-upgrade-report`).

Every name, chart and message here comes from a release record or a chart, which whoever can
write a release Secret chooses: each line of the text report is a `log_line` (no control
character, no line a CI log reads as a workflow command), and the markdown report writes them
as the plan's markdown writer does (`md`: no markup, mention or HTML; a message in a code block).
"""
from __future__ import annotations

import json
import textwrap
from typing import Any, Sequence

from msgspec import Struct

from deployah_plan.escape import code_block, escape_controls, log_line
from deployah_plan.render.markdown import md
from deployah_plan.render.options import WriteOptions

# 1.0: the envelope: kube_version, namespace, releases (the table), plans (plan documents).
FORMAT_VERSION = "1.0"

# Each verdict's words, by its value (core/kube_upgrade.py `Verdict`), worst first.
VERDICT_WORDS = {
    "will-fail": "will fail",
    "needs-manifest-rewrite": "needs a manifest rewrite",
    "changes": "changes",
    "ready": "ready",
    "error": "error",
}


class Row(Struct, frozen=True):
    """One release in the report: its verdict (core/kube_upgrade.py `Verdict`'s value) and its
    plan as the chosen writer printed it, or what stopped it (`error`, `hint`)."""

    name: str
    namespace: str
    chart: str  # NAME-VERSION
    revision: int
    verdict: str
    document: str = ""
    failures: int = 0
    has_changes: bool = False
    error: str = ""
    hint: str = ""


class Heading(Struct, frozen=True):
    kube_version: str
    namespace: str | None  # None: every namespace


def _counts(outcomes: Sequence[Row]) -> str:
    counted = [(verdict, sum(1 for o in outcomes if o.verdict == verdict)) for verdict in VERDICT_WORDS]
    return ", ".join(f"{n} {VERDICT_WORDS[v]}" for v, n in counted if n) or "no releases"


def _title(outcomes: Sequence[Row], heading: Heading) -> str:
    where = "every namespace" if heading.namespace is None else f"namespace {heading.namespace}"
    count = f"{len(outcomes)} release{'s' if len(outcomes) != 1 else ''}"
    return f"Kubernetes {heading.kube_version}: {count} in {where} ({_counts(outcomes)})"


def _rows(outcomes: Sequence[Row]) -> list[tuple[str, str, str, str]]:
    return [(escape_controls(o.name), escape_controls(o.namespace), escape_controls(o.chart),
             VERDICT_WORDS[o.verdict]) for o in outcomes]


def _error_line(outcome: Row) -> str:
    return escape_controls(f"{outcome.error}" + (f" ({outcome.hint})" if outcome.hint else ""))


def _text(outcomes: Sequence[Row], heading: Heading) -> str:
    header = ("RELEASE", "NAMESPACE", "CHART", "VERDICT")
    rows = [header, *_rows(outcomes)]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [_title(outcomes, heading), ""]
    lines += ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows]
    out = "\n".join(log_line(line) for line in lines) + "\n"
    for outcome in outcomes:
        out += f"\n=== {escape_controls(outcome.namespace)}/{escape_controls(outcome.name)}: " \
               f"{VERDICT_WORDS[outcome.verdict]} ===\n"
        out += outcome.document if outcome.document else f"{log_line(_error_line(outcome))}\n"
    return out


def _markdown(outcomes: Sequence[Row], heading: Heading) -> str:
    where = "every namespace" if heading.namespace is None else f"namespace {md(heading.namespace)}"
    count = f"{len(outcomes)} release{'s' if len(outcomes) != 1 else ''}"
    lines = [f"## helm plan kube-upgrade: Kubernetes {md(heading.kube_version)}: {count} in {where} "
             f"({_counts(outcomes)})", "",
             "| Release | Namespace | Chart | Verdict |", "| --- | --- | --- | --- |"]
    lines += [f"| {md(o.name)} | {md(o.namespace)} | {md(o.chart)} | {VERDICT_WORDS[o.verdict]} |" for o in outcomes]
    out = "\n".join(lines) + "\n"
    for outcome in outcomes:
        out += f"\n### {md(outcome.namespace)}/{md(outcome.name)}: {VERDICT_WORDS[outcome.verdict]}\n\n"
        out += outcome.document if outcome.document else f"{code_block([_error_line(outcome)], 'text')}\n"
    return out


def _json(outcomes: Sequence[Row], heading: Heading) -> str:
    """The envelope, written key by key: each plan is the JSON writer's document as it printed
    it (indented into place), so the plans are never all held as objects at once."""
    releases: list[dict[str, Any]] = []
    for outcome in outcomes:
        row: dict[str, Any] = {"release": outcome.name, "namespace": outcome.namespace,
                               "chart": outcome.chart, "revision": outcome.revision,
                               "verdict": outcome.verdict, "predicted_failures": outcome.failures,
                               "has_changes": outcome.has_changes, "planned": bool(outcome.document)}
        if outcome.error:
            row["error"] = outcome.error
            row["hint"] = outcome.hint
        releases.append(row)
    head = {"format_version": FORMAT_VERSION, "kind": "kube-upgrade", "kube_version": heading.kube_version,
            "namespace": heading.namespace, "releases": releases}
    text = json.dumps(head, indent=2, ensure_ascii=False)
    plans = [textwrap.indent(o.document.rstrip("\n"), "    ") for o in outcomes if o.document]
    body = ("[\n" + ",\n".join(plans) + "\n  ]") if plans else "[]"
    return text[:-2] + f',\n  "plans": {body}\n}}\n'


def render(outcomes: Sequence[Row], heading: Heading, output: str, options: WriteOptions) -> str:
    if output == "json":
        return _json(outcomes, heading)
    if output == "markdown":
        return _markdown(outcomes, heading)
    return _text(outcomes, heading)


__all__ = ["FORMAT_VERSION", "Heading", "Row", "VERDICT_WORDS", "render"]
