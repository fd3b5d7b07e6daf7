"""The plan as a JSON document for bots: its own wire format, separate from the model.

FORMAT_VERSION is "MAJOR.MINOR": a minor version only adds fields; a major version changes
or removes something a consumer may read. Keys are snake_case; the same plan always gives
the same bytes.
"""
from __future__ import annotations

import json
import math
from typing import Any

from deployah_plan.model import FieldChange, LiveCheck, Plan, ResourceRef
from deployah_plan.redact import Masked, Redactor

FORMAT_VERSION = "1.0"


def _ref(ref: ResourceRef) -> dict[str, Any]:
    out: dict[str, Any] = {"api_version": ref.api_version, "kind": ref.kind, "namespace": ref.namespace, "name": ref.name}
    if ref.generate_name:
        out["generate_name"] = ref.generate_name
    return out


def _plain(value: Any) -> Any:
    """JSON-safe copy: masked values become {"sensitive": true, "length": N}."""
    if isinstance(value, Masked):
        return {"sensitive": True, "length": value.length, "token": value.token}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # YAML's .inf and .nan have no JSON form
    return value


def _field(change: FieldChange) -> dict[str, Any]:
    out: dict[str, Any] = {"path": change.path, "op": change.op.value,
                           "before": _plain(change.before), "after": _plain(change.after)}
    if change.keys:
        out["keys"] = {pointer: _plain(dict(key)) for pointer, key in change.keys}
    if change.equivalent:
        out["equivalent"] = True
    if change.lines:
        out["line_diff"] = list(change.lines)
    if change.parts:
        out["parts_of"] = change.parts_of
        out["parts"] = [_field(part) for part in change.parts]
    return out


def _fields(ref: ResourceRef, fields: Any, redactor: Redactor) -> list[dict[str, Any]]:
    return [_field(redactor.view(ref, change)) for change in fields]


def _live(live: LiveCheck) -> dict[str, Any]:
    return {
        "status": live.status.value, "complete": live.complete, "reason": live.reason, "source": live.source,
        "requests": live.requests, "apply_method": live.apply_method,
        "unreadable": [{"api_version": g.api_version, "kind": g.kind, "namespace": g.namespace, "reason": g.reason}
                       for g in live.unreadable],
    }


def _drift(plan: Plan, redactor: Redactor) -> list[dict[str, Any]]:
    return [
        {"resource": _ref(d.resource), "kind": d.kind.value, "effect": d.effect.value, "reason": d.reason,
         "ssa": d.ssa,
         "fields": [{**_field(redactor.view(d.resource, f.change)), "effect": f.effect.value, "ssa": f.ssa}
                    for f in d.fields]}
        for d in plan.drift
    ]


def document(plan: Plan, show_secrets: bool = False) -> dict[str, Any]:
    h = plan.header
    redactor = Redactor.for_plan(plan, show_secrets)
    return {
        "format_version": FORMAT_VERSION,
        "header": {
            "release": h.release, "namespace": h.namespace, "kube_context": h.kube_context,
            "revision": h.revision, "fresh_install": h.fresh_install,
            "previous_revision": h.previous_revision, "previous_chart": h.previous_chart,
            "chart": {"name": h.chart_name, "version": h.chart_version},
            "helm_version": h.helm_version, "rendered_by": h.rendered_by,
        },
        "helm_action": plan.helm_action.value,
        "changes": [
            {
                "resource": _ref(c.resource), "action": c.action.value, "helm_order": c.helm_order,
                "source": c.source,
                "likely_rename": _ref(c.likely_rename) if c.likely_rename else None,
                "ownership": c.ownership.value, "owner_release": c.owner_release,
                "fields": _fields(c.resource, c.fields, redactor),
            }
            for c in plan.changes
        ],
        "tasks": [
            {
                "name": t.name, "phase": t.phase.value, "action": t.action.value, "will_run": t.will_run,
                "events": list(t.events), "weight": t.weight, "delete_policies": list(t.delete_policies),
                "resources": [_ref(r) for r in t.resources],
                "definitions": [
                    {"resource": _ref(d.resource), "action": d.action.value,
                     "fields": _fields(d.resource, d.fields, redactor)}
                    for d in t.definitions
                ],
            }
            for t in plan.tasks
        ],
        "chart_crds": [
            {"source": c.source, "name": c.name, "lifecycle": c.lifecycle.value, "will_process": c.will_process}
            for c in plan.chart_crds
        ],
        "warnings": [
            {"code": w.code, "severity": w.severity.value, "message": w.message,
             "resource": _ref(w.resource) if w.resource else None}
            for w in plan.warnings
        ],
        "summary": {"create": plan.summary.create, "update": plan.summary.update, "delete": plan.summary.delete},
        "live": _live(plan.live),
        "drift": _drift(plan, redactor),
    }


def render(plan: Plan, show_secrets: bool = False) -> str:
    return json.dumps(document(plan, show_secrets), indent=2, ensure_ascii=False) + "\n"
