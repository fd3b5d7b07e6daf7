"""The plan as a JSON document for bots: its own wire format, separate from the model.

FORMAT_VERSION is "MAJOR.MINOR": a minor version only adds fields; a major version changes
or removes something a consumer may read. Keys are snake_case; the same plan always gives
the same bytes (keys in a fixed order, lists in the plan's order, values as parsed).
The schema is `deployah_plan/schema/plan.schema.json` (`helm plan schema` prints it).

The document carries everything the text and markdown outputs print, so `helm plan show`
renders a saved plan again byte for byte (`deployah_plan/saved.py` reads it back). Each model
type has one function here, and one beside it in saved.py: a new field goes in both.
Secret values are masked as {"sensitive": true, "length": N} unless show_secrets.
"""
from __future__ import annotations

import json
import math
from typing import Any, Iterable

from deployah_plan.model import (
    Action, ChartCRD, FieldChange, Header, HelmAction, HookDefinition, Plan, ResourceChange, ResourceRef, Summary,
    TaskPlan, Warning,
)
from deployah_plan.redact import Masked, field_view

FORMAT_VERSION = "1.0"


def _plain(value: Any) -> Any:
    """JSON-safe copy: masked values become {"sensitive": true, "length": N}."""
    if isinstance(value, Masked):
        return {"sensitive": True, "length": value.length}
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


def field_change_doc(ref: ResourceRef, change: FieldChange, show_secrets: bool) -> dict[str, Any]:
    before, after = field_view(ref, change, show_secrets)
    return {"path": change.path, "op": change.op.value, "before": _plain(before), "after": _plain(after)}


def _fields(ref: ResourceRef, fields: Iterable[FieldChange], show_secrets: bool) -> list[dict[str, Any]]:
    return [field_change_doc(ref, f, show_secrets) for f in fields]


def _reasons(change: ResourceChange, plan: Plan) -> list[str]:
    """Why the change has its action, in words (derived: `show` does not read it back)."""
    if change.action is Action.CREATE:
        return ["a new release" if plan.helm_action is HelmAction.INSTALL else "not in the previous release"]
    if change.action is Action.DELETE:
        return ["no longer rendered by the chart"]
    n, ignored = len(change.fields), len(change.ignored_fields)
    out = [f"{n} field change{'s' if n != 1 else ''}"]
    if ignored:
        out.append(f"{ignored} field change{'s' if ignored != 1 else ''} ignored by {', '.join(change.ignored_by)}")
    return out


def resource_change_doc(change: ResourceChange, plan: Plan, show_secrets: bool) -> dict[str, Any]:
    ident = change.resource.identity
    return {
        "resource": ref_doc(change.resource), "action": change.action.value, "helm_order": change.helm_order,
        "source": change.source, "reasons": _reasons(change, plan),
        "fields": _fields(change.resource, change.fields, show_secrets),
        "ignored_fields": _fields(change.resource, change.ignored_fields, show_secrets),
        "ignored_by": list(change.ignored_by),
        "warnings": [w.code for w in plan.warnings if w.resource is not None and w.resource.identity == ident],
    }


def hook_definition_doc(definition: HookDefinition, show_secrets: bool) -> dict[str, Any]:
    return {"resource": ref_doc(definition.resource), "action": definition.action.value,
            "fields": _fields(definition.resource, definition.fields, show_secrets)}


def task_doc(task: TaskPlan, show_secrets: bool) -> dict[str, Any]:
    return {
        "name": task.name, "phase": task.phase.value, "action": task.action.value, "will_run": task.will_run,
        "events": list(task.events), "weight": task.weight, "delete_policies": list(task.delete_policies),
        "resources": [ref_doc(r) for r in task.resources],
        "definitions": [hook_definition_doc(d, show_secrets) for d in task.definitions],
    }


def chart_crd_doc(crd: ChartCRD) -> dict[str, Any]:
    return {"source": crd.source, "name": crd.name, "lifecycle": crd.lifecycle.value, "will_process": crd.will_process}


def warning_doc(warning: Warning) -> dict[str, Any]:
    return {"code": warning.code, "severity": warning.severity.value, "message": warning.message,
            "resource": ref_doc(warning.resource) if warning.resource else None}


def header_doc(h: Header) -> dict[str, Any]:
    return {
        "release": h.release, "namespace": h.namespace, "kube_context": h.kube_context,
        "revision": h.revision, "fresh_install": h.fresh_install,
        "previous_revision": h.previous_revision, "previous_chart": h.previous_chart,
        "chart": {"name": h.chart_name, "version": h.chart_version},
        "helm_version": h.helm_version, "rendered_by": h.rendered_by,
    }


def summary_doc(summary: Summary, plan: Plan) -> dict[str, Any]:
    return {"create": summary.create, "update": summary.update, "delete": summary.delete,
            "ignored": summary.ignored, "has_changes": plan.has_changes}


def document(plan: Plan, show_secrets: bool = False) -> dict[str, Any]:
    return {
        "format_version": FORMAT_VERSION,
        "header": header_doc(plan.header),
        "helm_action": plan.helm_action.value,
        "changes": [resource_change_doc(c, plan, show_secrets) for c in plan.changes],
        "tasks": [task_doc(t, show_secrets) for t in plan.tasks],
        "drift": [],  # the drift check is not built yet; see Plan.drift
        "chart_crds": [chart_crd_doc(c) for c in plan.chart_crds],
        "warnings": [warning_doc(w) for w in plan.warnings],
        "ignored": [resource_change_doc(c, plan, show_secrets) for c in plan.ignored],
        "not_checked": list(plan.not_checked),
        "summary": summary_doc(plan.summary, plan),
    }


def render(plan: Plan, show_secrets: bool = False) -> str:
    return json.dumps(document(plan, show_secrets), indent=2, ensure_ascii=False) + "\n"
