"""Writing the saved plan: the plan as the JSON document (`-o json`, `--out FILE`).

Keys are snake_case; the same plan always gives the same bytes (keys in a fixed order, lists in
the plan's order, values as parsed). The schema is `deployah_plan/schema/plan.schema.json`
(`helm plan schema` prints it; schema.py).

The document carries everything the text and markdown outputs print, so `helm plan show`
renders a saved plan again byte for byte (read.py reads it back). Each model type has one
function here, and one beside it in read.py: a new field goes in both.
Secret values are masked as {"sensitive": true, "length": N, "token": T} unless show_secrets
(equal values within one plan share a token; see redact.py).
"""
from __future__ import annotations

import enum
import json
import math
import os
import stat
from typing import Any, Iterable, Mapping

from msgspec import Struct

from deployah_plan.errors import UsageError
from deployah_plan.impacts import ImpactKind
from deployah_plan.model import (
    Action, AppliedWith, ChartCRD, ChartDefault, CRDSummary, DriftChange, FieldChange, Header, Impact, LiveCheck, Plan,
    ResourceRef, Summary,
    TaskAction, Warning,
)
from deployah_plan.planfile import FORMAT_VERSION
from deployah_plan.planfile.seal import Digester, sealed
from deployah_plan.redact import Masked, Redactor
from deployah_plan.render.options import WriteOptions
from deployah_plan.render.report import CommonChange, DefinitionReport, ObjectReport, Report, TaskReport
from deployah_plan.render.words import drift as drift_words
from deployah_plan.render.words import warning as warning_words
from deployah_plan.render.words import impact as impact_words
from deployah_plan.sources.files import describe


def _plain(value: Any) -> Any:
    """JSON-safe copy: masked values become {"sensitive": true, "length": N, "token": T}."""
    if isinstance(value, Masked):
        return {"sensitive": True, "length": value.length, "token": value.token}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # YAML's .inf and .nan have no JSON form
    return value


def ref_doc(ref: ResourceRef) -> dict[str, Any]:
    out: dict[str, Any] = {"api_version": ref.api_version, "kind": ref.kind, "namespace": ref.namespace, "name": ref.name}
    if ref.generate_name:
        out["generate_name"] = ref.generate_name
    return out


def field_change_doc(change: FieldChange) -> dict[str, Any]:
    """One field change, already seen through the Redactor. Optional keys appear only when set."""
    out: dict[str, Any] = {"path": change.path, "op": change.op.value,
                           "before": _plain(change.before), "after": _plain(change.after)}
    if change.keys:
        out["keys"] = {pointer: _plain(dict(key)) for pointer, key in change.keys}
    if change.equivalent:
        out["equivalent"] = True
    if change.crd_description:
        out["crd_description"] = True
    if change.regenerated:
        out["regenerated"] = True
    if change.kept_by:
        out["kept_by"] = list(change.kept_by)
    if change.taken_from:
        out["taken_from"] = list(change.taken_from)
    if change.cause is not None:
        out["cause"] = change.cause.value
    if change.lines:
        out["line_diff"] = list(change.lines)
    if change.parts:
        out["parts_of"] = change.parts_of
        out["parts"] = [field_change_doc(part) for part in change.parts]
    return out


def _fields(ref: ResourceRef, fields: Iterable[FieldChange], redactor: Redactor,
            common: Iterable[int] = ()) -> list[dict[str, Any]]:
    """Every field change; one also said among the common changes carries its index there."""
    marks = list(common)
    out = []
    for n, f in enumerate(fields):
        doc = field_change_doc(redactor.view(ref, f))
        if n < len(marks) and marks[n] >= 0:
            doc["common"] = marks[n]
        out.append(doc)
    return out


def _desired(ref: ResourceRef, created: bool, obj: Mapping[str, Any] | None, redactor: Redactor) -> dict[str, Any]:
    """`desired` for a create that knows its object (a plan read back from an older document
    does not); nothing for any other change."""
    return {"desired": _plain(redactor.content(ref, obj))} if created and obj else {}


def resource_change_doc(item: ObjectReport, redactor: Redactor) -> dict[str, Any]:
    change = item.change
    return {
        "resource": ref_doc(change.resource), "action": change.action.value, "helm_order": change.helm_order,
        "source": change.source, "reasons": list(item.reasons),
        "likely_rename": ref_doc(change.likely_rename) if change.likely_rename else None,
        "ownership": change.ownership.value, "owner_release": change.owner_release,
        "fields": _fields(change.resource, change.fields, redactor, item.common),
        "ignored_fields": _fields(change.resource, change.ignored_fields, redactor),
        "ignored_by": list(change.ignored_by),
        "warnings": [w.code.value for w in item.warnings],
        "predicted_failure": bool(item.failures),
        **_desired(change.resource, change.action is Action.CREATE, change.after, redactor),
        **({"regenerated_paths": list(change.regenerated_paths)} if change.regenerated_paths else {}),
        **({"crd_schema": crd_summary_doc(change.crd_schema)} if change.crd_schema is not None else {}),
        **({"cause": change.cause.value} if change.cause is not None else {}),
    }


def crd_summary_doc(summary: CRDSummary) -> dict[str, Any]:
    return {"descriptions": summary.descriptions,
            "changes": [{"what": c.what, "version": c.version, "path": c.path, "before": _plain(c.before),
                         "after": _plain(c.after)} for c in summary.changes]}


def hook_definition_doc(item: DefinitionReport, redactor: Redactor) -> dict[str, Any]:
    definition = item.definition
    return {"resource": ref_doc(definition.resource), "action": definition.action.value,
            "fields": _fields(definition.resource, definition.fields, redactor, item.common),
            **_desired(definition.resource, definition.action is TaskAction.CREATE, definition.after, redactor),
            **({"regenerated_paths": list(definition.regenerated_paths)} if definition.regenerated_paths else {}),
            **({"cause": definition.cause.value} if definition.cause is not None else {})}


def task_doc(item: TaskReport, redactor: Redactor, positions: dict[tuple[int, str], int]) -> dict[str, Any]:
    task = item.task
    return {
        "name": task.name, "phase": task.phase.value, "action": task.action.value, "will_run": task.will_run,
        "events": list(task.events), "weight": task.weight, "delete_policies": list(task.delete_policies),
        "resources": [ref_doc(r) for r in task.resources],
        "definitions": [hook_definition_doc(d, redactor) for d in item.definitions],
        "runs": [{"phase": phase.value, "position": positions[(id(task), phase.value)]} for phase in task.runs_in],
        "helm_order": task.helm_order,
    }


def _run_positions(plan: Plan) -> dict[tuple[int, str], int]:
    """Each running task's place (from 1) in Helm's run order within each phase it runs in."""
    out: dict[tuple[int, str], int] = {}
    for phase, tasks in plan.task_groups():
        running = [t for t in tasks if phase in t.runs_in]
        for position, task in enumerate(running, 1):
            out[(id(task), phase.value)] = position
    return out


def common_change_docs(report: Report, redactor: Redactor) -> list[dict[str, Any]]:
    """The field changes said once for several objects (derived: `show` finds them again). The
    objects are named by their place in `changes` and `tasks`, which keeps a big plan small."""
    changes = {o.change.resource.identity: n for n, o in enumerate(report.objects)}
    tasks = {d.definition.resource.identity: n for n, t in enumerate(report.tasks) for d in t.definitions}
    return [_common_doc(item, redactor, changes, tasks) for item in report.common]


def _common_doc(item: CommonChange, redactor: Redactor, changes: dict[tuple[str, str, str, str], int],
                tasks: dict[tuple[str, str, str, str], int]) -> dict[str, Any]:
    return {**field_change_doc(redactor.view(item.first, item.change)), "at": list(item.paths),
            "changes": [changes[r.identity] for r in item.resources], "tasks": [tasks[r.identity] for r in item.hooks]}


def highlight_docs(report: Report) -> list[dict[str, Any]]:
    """What the text and markdown say first (derived: `show` finds them again)."""
    return [{"what": h.what.value, "sign": h.sign, "resources": [ref_doc(r) for r in h.resources],
             "before": _plain(h.before), "after": _plain(h.after), "detail": list(h.detail)}
            for h in report.highlights]


def chart_default_doc(default: ChartDefault, redactor: Redactor) -> dict[str, Any]:
    """A chart default that changed under the user; a secret-looking value masked (redact.py)."""
    before, after = redactor.default_value(default.key, default.before), redactor.default_value(default.key, default.after)
    return {"key": default.key, "op": default.op.value, "before": _plain(before), "after": _plain(after),
            "moved": [ref_doc(ref) for ref in default.moved]}


def chart_crd_doc(crd: ChartCRD) -> dict[str, Any]:
    return {"source": crd.source, "name": crd.name, "lifecycle": crd.lifecycle.value, "will_process": crd.will_process,
            "live_differs": crd.live_differs, "chart_changed": crd.chart_changed,
            **({"schema": crd_summary_doc(crd.schema)} if crd.schema is not None else {})}


def facts_doc(value: Any) -> Any:
    """Facts as JSON: a record's fields in their order, an object as a resource, an enum as its
    value. Facts hold no Secret value (a check names fields and objects, not their data)."""
    if isinstance(value, ResourceRef):
        return ref_doc(value)
    if isinstance(value, Struct):
        # The class's own names: msgspec.structs.fields resolves every field's type annotation
        # again at each call (tens of milliseconds a plan with warnings).
        kind = type(value)
        return {encoded: facts_doc(getattr(value, name))
                for name, encoded in zip(kind.__struct_fields__, kind.__struct_encode_fields__)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (tuple, list)):
        return [facts_doc(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): facts_doc(v) for k, v in value.items()}
    return _plain(value)


def warning_doc(warning: Warning) -> dict[str, Any]:
    return {"code": warning.code.value, "severity": warning.severity.value, "message": warning_words.message(warning),
            **({"facts": facts_doc(warning.facts)} if warning.facts is not None else {}),
            "resource": ref_doc(warning.resource) if warning.resource else None,
            "predicted_failure": warning.fails}


def impact_doc(item: Impact) -> dict[str, Any]:
    return {"kind": item.kind.value, "resource": ref_doc(item.resource), "message": impact_words.message(item),
            **({"facts": facts_doc(item.facts)} if item.facts is not None else {}),
            "objects": [ref_doc(r) for r in item.objects], "counts": dict(item.counts), "details": list(impact_words.details(item))}


def header_doc(h: Header) -> dict[str, Any]:
    return {
        "release": h.release, "namespace": h.namespace, "kube_context": h.kube_context,
        "revision": h.revision, "fresh_install": h.fresh_install,
        "previous_revision": h.previous_revision, "previous_chart": h.previous_chart, "rollback_to": h.rollback_to,
        "chart": {"name": h.chart_name, "version": h.chart_version},
        "helm_version": h.helm_version, "rendered_by": h.rendered_by,
        "apply_method": applied_doc(h.applied_with) if h.applied_with is not None else None,
    }


def applied_doc(applied: AppliedWith) -> dict[str, Any]:
    return {"method": applied.method.value, "reason": applied.reason.value, "revision": applied.revision}


def summary_doc(summary: Summary, plan: Plan) -> dict[str, Any]:
    return {"create": summary.create, "update": summary.update, "delete": summary.delete, "retain": summary.retain,
            "ignored": summary.ignored, "has_changes": plan.has_changes,
            "predicted_failures": summary.failures, "hooks_run": summary.hooks_run,
            "hooks_changed": summary.hooks_changed, "hooks_stored": summary.hooks_stored,
            "drift_reverted": summary.drift_reverted, "regenerated": summary.regenerated, "adopted": summary.adopted}


def live_doc(live: LiveCheck) -> dict[str, Any]:
    return {
        "status": live.status.value, "complete": live.complete, "reason": live.reason, "source": live.source,
        "requests": live.requests, "apply_method": live.apply_method.value if live.apply_method else "",
        "unreadable": [{"api_version": g.api_version, "kind": g.kind, "namespace": g.namespace, "reason": g.reason}
                       for g in live.unreadable],
    }


def drift_doc(drift: DriftChange, redactor: Redactor) -> dict[str, Any]:
    return {
        "resource": ref_doc(drift.resource), "kind": drift.kind.value, "effect": drift.effect.value,
        "reason": drift_words.drift_reason(drift), "why": drift.why.value if drift.why else None,
        "ssa": "",  # no object-level server-side apply note (each field has its own)
        "fields": [{**field_change_doc(redactor.view(drift.resource, f.change)), "effect": f.effect.value,
                    "ssa": drift_words.drift_ssa(f), "why": f.ssa.value if f.ssa else None, "managers": list(f.managers)}
                   for f in drift.fields],
    }


def document(plan: Plan, show_secrets: bool = False) -> dict[str, Any]:
    redactor = Redactor.for_plan(plan, show_secrets)
    report = Report.of(plan)
    positions = _run_positions(plan)
    return {
        "format_version": FORMAT_VERSION,
        "header": header_doc(plan.header),
        "helm_action": plan.helm_action.value,
        "hooks_disabled": plan.hooks_disabled,
        "changes": [resource_change_doc(item, redactor) for item in report.objects],
        "tasks": [task_doc(item, redactor, positions) for item in report.tasks],
        "common_changes": common_change_docs(report, redactor),
        "highlights": highlight_docs(report),
        "live": live_doc(plan.live),
        "drift": [drift_doc(d, redactor) for d in plan.drift],
        "chart_crds": [chart_crd_doc(c) for c in plan.chart_crds],
        "warnings": [warning_doc(w) for w in plan.warnings],
        "impact": [impact_doc(i) for i in plan.impact],
        "ignored": [resource_change_doc(item, redactor) for item in report.ignored],
        "not_checked": list(plan.not_checked),
        "attribution": plan.attribution.value,
        "chart_defaults": [chart_default_doc(d, redactor) for d in plan.chart_defaults],
        "summary": summary_doc(plan.summary, plan),
    }


def dumps(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def render(plan: Plan, options: WriteOptions = WriteOptions()) -> str:
    return dumps(document(plan, options.show_secrets))


def write_saved_plan(path: str, plan: Plan, show_secrets: bool, record: dict[str, Any] | None = None,
                     digester: Digester | None = None) -> None:
    """The JSON plan, with its inputs record sealed in when there is one (inputs.py). A plan
    with secret values in it (--show-secrets) is readable by its owner only (0600), whether the
    file is new or was there before."""
    text = render(plan, WriteOptions(show_secrets=show_secrets))
    if record is not None and digester is not None:
        text = dumps(sealed(json.loads(text), record, digester))
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if show_secrets else 0o666)
        with open(descriptor, "w", encoding="utf-8") as handle:
            if show_secrets and stat.S_ISREG(os.fstat(descriptor).st_mode):
                os.chmod(descriptor, 0o600)
            handle.write(text)
    except OSError as err:
        raise UsageError(f"cannot write the plan to {path}: {err.strerror or err}", "check the --out path") from None


def unknown_values(plan: Plan) -> list[str]:
    """The warning codes and impact kinds of a plan read back that this version does not know
    (a newer minor version added them), as written, each once."""
    known_kinds = list(ImpactKind)
    found = [f"warning code {w.code.value}" for w in plan.warnings if not w.code.known]
    found += [f"impact kind {i.kind.value}" for i in plan.impact if i.kind not in known_kinds]
    return list(dict.fromkeys(found))


def check_json_output(plan: Plan, path: str) -> None:
    """`show -o json` writes the plan as this version's document, whose schema lists every
    warning code and impact kind: a plan of a newer minor version that uses one this version
    does not know cannot be written as one. Written under the document's own (newer) version it
    would not be that document either (the fields that version added are not read), and printed
    as it was read it could hold values the show flags say to mask. So it is refused."""
    unknown = unknown_values(plan)
    if unknown:
        raise UsageError(
            f"{describe(path)} was written by a newer helm plan and has {', '.join(unknown)}, which format "
            f"{FORMAT_VERSION} does not have: -o json cannot write it as a valid {FORMAT_VERSION} document",
            "show it as text or markdown, read the saved file itself (it is the JSON plan), or upgrade helm plan")


__all__ = ["check_json_output", "document", "dumps", "render", "unknown_values", "write_saved_plan"]
