"""Reading a saved plan back into a Plan, for `helm plan show` and `helm plan verify`.

The document is input, so it is checked against the published schema first (schema.py): a
wrong type is one line naming where. Then the mirror of write.py: one function per model type.
The plan is rebuilt through `build_plan`, so what the document derives (summary, will_run,
reasons, has_changes) is derived again, not trusted; so are "what matters" (`highlights`) and
the common changes (`common_changes`, and `common` on a field change): render/report.py finds
them again in the field changes read back, which the document keeps in full, so `show` folds
them exactly as the original run did. A document of a major version we do not know is refused;
a newer minor version only adds fields, which are skipped, and warning codes and impact kinds,
which are kept as written (codes.Code and impacts.ImpactKind make a stand-in for a value they do
not know).

A plan read back has no snapshots (the document keeps field changes, not whole objects) but
the object each create makes (`desired`, 1.5); masked secret values come back as `Masked`, so
they stay masked in every output.
"""
from __future__ import annotations

import json
import os

import msgspec
from msgspec import Struct
from typing import Any, Callable, TypeVar

from deployah_plan.codes import Code
from deployah_plan.errors import UsageError
from deployah_plan.facts import facts_class
from deployah_plan.impact_facts import impact_facts_class
from deployah_plan.impacts import ImpactKind
from deployah_plan.build import build_plan
from deployah_plan.model import (
    Action, AppliedWith, ApplyMethod, ApplyReason, Attribution, CRDLifecycle, CRDSchemaChange, CRDSummary, Cause, ChartCRD,
    ChartDefault, DriftChange, DriftEffect, DriftField,
    DriftKind, DriftReason, FieldChange, FieldOp, Header, HelmAction, HookDefinition, Impact, LiveCheck, LiveGap,
    LiveStatus, Ownership, Plan, ResourceChange, ResourceRef, Severity, SsaReason, TaskAction, TaskPhase, TaskPlan,
    Warning,
)
from deployah_plan.planfile import FORMAT_VERSION
from deployah_plan.planfile.schema import first_error
from deployah_plan.planfile.seal import KEY_ENV, Seal, check
from deployah_plan.redact import LAST_APPLIED, Masked, is_secret, sensitive_path
from deployah_plan.sources.files import FileReader, describe
from deployah_plan.yamlkube import MAX_DEPTH, too_deep

_T = TypeVar("_T")
# A plan nests a few levels (changes, fields, parts) above values that nest at most MAX_DEPTH.
_MAX_DOCUMENT_DEPTH = MAX_DEPTH + 16
_NO_SNAPSHOT: dict[str, Any] = {}


def _unmask(value: Any) -> Any:
    if isinstance(value, dict):
        # 1.0 documents have no token: equal values were not marked then.
        if set(value) in ({"sensitive", "length", "token"}, {"sensitive", "length"}) and value["sensitive"] is True \
                and isinstance(value["length"], int) and isinstance(value.get("token", 0), int):
            return Masked(value["length"], value.get("token", 0))
        return {k: _unmask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unmask(v) for v in value]
    return value


def ref_of(doc: dict[str, Any]) -> ResourceRef:
    return ResourceRef(doc["api_version"], doc["kind"], doc["namespace"], doc["name"], doc.get("generate_name", ""))


def field_change_of(ref: ResourceRef | None, doc: dict[str, Any]) -> FieldChange:
    """One field change; `ref` is None for the inner changes of a value (never sensitive)."""
    before, after = doc["before"], doc["after"]
    if ref is not None and sensitive_path(ref, doc["path"]):  # only there can a value be a mask
        before, after = _unmask(before), _unmask(after)
    return FieldChange(
        doc["path"], FieldOp(doc["op"]), before, after,
        keys=tuple((pointer, key) for pointer, key in (doc.get("keys") or {}).items()),
        lines=tuple(doc.get("line_diff", ())),
        parts=tuple(field_change_of(None, part) for part in doc.get("parts", ())),
        parts_of=doc.get("parts_of", ""),
        equivalent=bool(doc.get("equivalent", False)),
        crd_description=bool(doc.get("crd_description", False)),
        regenerated=bool(doc.get("regenerated", False)),
        kept_by=tuple(doc.get("kept_by", ())),
        taken_from=tuple(doc.get("taken_from", ())),
        cause=Cause(doc["cause"]) if doc.get("cause") else None,
    )


def desired_of(ref: ResourceRef, doc: dict[str, Any]) -> dict[str, Any]:
    """A create's object (`desired`), its masked values as `Masked` where a mask can be: a
    Secret's data and stringData, a last-applied annotation. Without one (before 1.5), none."""
    obj = doc.get("desired")
    if not isinstance(obj, dict):
        return _NO_SNAPSHOT
    out = dict(obj)
    if isinstance(out.get("metadata"), dict) and isinstance(out["metadata"].get("annotations"), dict):
        annotations = dict(out["metadata"]["annotations"])
        if LAST_APPLIED in annotations:
            annotations[LAST_APPLIED] = _unmask(annotations[LAST_APPLIED])
        out["metadata"] = {**out["metadata"], "annotations": annotations}
    if is_secret(ref):
        out.update({key: _unmask(out[key]) for key in ("data", "stringData") if key in out})
    return out


def crd_summary_of(doc: dict[str, Any] | None) -> CRDSummary | None:
    if doc is None:
        return None
    return CRDSummary(doc["descriptions"], tuple(CRDSchemaChange(c["what"], c["version"], c["path"], c["before"], c["after"])
                                                 for c in doc["changes"]))


def resource_change_of(doc: dict[str, Any]) -> ResourceChange:
    ref = ref_of(doc["resource"])
    action = Action(doc["action"])
    return ResourceChange(
        resource=ref, action=action,
        before=None if action is Action.CREATE else _NO_SNAPSHOT,
        after=None if action in (Action.DELETE, Action.RETAIN) else desired_of(ref, doc) if action is Action.CREATE
        else _NO_SNAPSHOT,
        fields=tuple(field_change_of(ref, f) for f in doc["fields"]),
        helm_order=doc["helm_order"], source=doc["source"],
        likely_rename=ref_of(doc["likely_rename"]) if doc.get("likely_rename") else None,
        ownership=Ownership(doc.get("ownership", Ownership.NOT_CHECKED.value)), owner_release=doc.get("owner_release", ""),
        ignored_fields=tuple(field_change_of(ref, f) for f in doc.get("ignored_fields", ())),
        ignored_by=tuple(doc.get("ignored_by", ())),
        crd_schema=crd_summary_of(doc.get("crd_schema")),
        regenerated_paths=tuple(doc.get("regenerated_paths", ())),
        cause=Cause(doc["cause"]) if doc.get("cause") else None,
    )


def chart_default_of(doc: dict[str, Any]) -> ChartDefault:
    return ChartDefault(doc["key"], FieldOp(doc["op"]), _unmask(doc["before"]), _unmask(doc["after"]),
                        tuple(ref_of(ref) for ref in doc.get("moved", ())))


def hook_definition_of(doc: dict[str, Any]) -> HookDefinition:
    ref = ref_of(doc["resource"])
    action = TaskAction(doc["action"])
    return HookDefinition(ref, action, None if action is TaskAction.CREATE else _NO_SNAPSHOT,
                          None if action is TaskAction.DELETE else desired_of(ref, doc) if action is TaskAction.CREATE
                          else _NO_SNAPSHOT,
                          tuple(field_change_of(ref, f) for f in doc["fields"]),
                          tuple(doc.get("regenerated_paths", ())),
                          Cause(doc["cause"]) if doc.get("cause") else None)


def task_of(doc: dict[str, Any]) -> TaskPlan:
    return TaskPlan(
        name=doc["name"], phase=TaskPhase(doc["phase"]), action=TaskAction(doc["action"]),
        events=tuple(doc["events"]), weight=doc["weight"], delete_policies=tuple(doc["delete_policies"]),
        definitions=tuple(hook_definition_of(d) for d in doc["definitions"]),
        resources=tuple(ref_of(r) for r in doc["resources"]),
        helm_order=int(doc.get("helm_order", 0)),
    )


def chart_crd_of(doc: dict[str, Any]) -> ChartCRD:
    return ChartCRD(doc["source"], doc["name"], CRDLifecycle(doc["lifecycle"]), doc.get("live_differs"),
                    doc.get("chart_changed"), crd_summary_of(doc.get("schema")))


def live_of(doc: dict[str, Any]) -> LiveCheck:
    return LiveCheck(
        LiveStatus(doc["status"]), doc["reason"], doc["source"],
        tuple(LiveGap(g["api_version"], g["kind"], g["namespace"], g["reason"]) for g in doc["unreadable"]),
        doc["requests"], ApplyMethod.recorded(doc["apply_method"]),
    )


# What a document before 1.6 says of a drifted object and field: only these lines (`reason` and
# `ssa`), not the reason as a value (`why`). They are read back into the value; a document of
# that version keeps them as written, so they are kept here as that version wrote them, whatever
# render/words says today.
_DRIFT_REASON_LINES = {
    "the upgrade creates it again": DriftReason.RECREATED,
    "it leaves the release: nothing to delete": DriftReason.LEAVES_RELEASE,
    "the new chart declares it: Helm adopts it and applies the chart": DriftReason.ADOPTED,
    "not in the new chart either: Helm does not touch it": DriftReason.UNTOUCHED,
    "kept: the live object says helm.sh/resource-policy: keep": DriftReason.KEPT,
    "the upgrade deletes the object": DriftReason.DELETED,
    "three-way merge: Helm sets every field the new chart declares": DriftReason.THREE_WAY_MERGE,
    ("a custom resource: Helm's JSON merge patch goes from the previous manifest to the new one and ignores live "
     "drift"): DriftReason.MERGE_PATCH,
    "server-side apply: ownership read from the live object's managedFields": DriftReason.SERVER_SIDE_APPLY,
}
# {managers}: the field managers that own the field, joined by ", ".
_SSA_NOTES = {
    SsaReason.DECLARES_LIVE: "server-side apply: the new chart declares the live value",
    SsaReason.FORCED: "server-side apply sets it back: --force-conflicts takes it from field manager {managers}",
    SsaReason.CONFLICT: ("server-side apply conflict: field manager {managers} owns it; the upgrade fails unless "
                         "conflicts are forced (--force-conflicts)"),
    SsaReason.SETS_BACK: "server-side apply sets it back (no other field manager owns it)",
    SsaReason.GONE: "server-side apply: already gone, and no longer declared",
    SsaReason.OTHER_OWNS: "server-side apply leaves it: field manager {managers} owns it",
    SsaReason.REMOVES: "server-side apply removes it: Helm owned it and no longer declares it",
}


def drift_reason_of(text: str) -> DriftReason | None:
    """The reason a drifted object's `reason` line says (a document before 1.6 has only the line)."""
    return _DRIFT_REASON_LINES.get(text)


def drift_ssa_of(text: str) -> tuple[SsaReason | None, tuple[str, ...]]:
    """The server-side apply note, and the managers it names, that a drifted field's `ssa` line
    says (before 1.6)."""
    for why, note in _SSA_NOTES.items():
        head, _, tail = note.partition("{managers}")
        if not _ and text == head:
            return why, ()
        if _ and text.startswith(head) and text.endswith(tail) and len(text) > len(head) + len(tail):
            return why, tuple(text[len(head):len(text) - len(tail)].split(", "))
    return None, ()


def drift_of(doc: dict[str, Any]) -> DriftChange:
    ref = ref_of(doc["resource"])
    kind = DriftKind(doc["kind"])
    why = DriftReason(doc["why"]) if doc.get("why") else drift_reason_of(doc.get("reason", ""))
    return DriftChange(
        ref, kind, DriftEffect(doc["effect"]), tuple(_drift_field_of(ref, f) for f in doc["fields"]),
        why=why, live=None if kind is DriftKind.MISSING else _NO_SNAPSHOT,
    )


def _drift_field_of(ref: ResourceRef, doc: dict[str, Any]) -> DriftField:
    """A drifted field; one from before 1.6 has only the server-side apply note, read back."""
    if "why" in doc:
        ssa, managers = (SsaReason(doc["why"]) if doc["why"] else None), tuple(doc.get("managers", ()))
    else:
        ssa, managers = drift_ssa_of(doc.get("ssa", ""))
    return DriftField(field_change_of(ref, doc), DriftEffect(doc["effect"]), ssa, managers)


def warning_of(doc: dict[str, Any]) -> Warning:
    """A warning with its facts; one without (an older plan's, or a code this version does not
    know, which a newer helm plan wrote) keeps its message as written."""
    code = Code(doc["code"])
    cls = facts_class(code)
    facts = msgspec.convert(doc["facts"], cls) if cls is not None and "facts" in doc else None
    return Warning(code, facts, Severity(doc["severity"]), ref_of(doc["resource"]) if doc.get("resource") else None,
                   bool(doc.get("predicted_failure", False)), "" if facts is not None else doc["message"])


def impact_of(doc: dict[str, Any]) -> Impact:
    """An impact with its facts; one without (an older plan's, or a kind this version does not
    know) keeps its line and the lines under it as written."""
    kind = ImpactKind(doc["kind"])
    cls = impact_facts_class(kind)
    facts = msgspec.convert(doc["facts"], cls) if cls is not None and "facts" in doc else None
    return Impact(kind, ref_of(doc["resource"]), tuple(ref_of(r) for r in doc.get("objects", ())),
                  tuple((str(k), v) for k, v in (doc.get("counts") or {}).items()), facts,
                  "" if facts is not None else doc["message"],
                  () if facts is not None else tuple(doc.get("details", ())))


def header_of(doc: dict[str, Any]) -> Header:
    return Header(
        release=doc["release"], namespace=doc["namespace"], kube_context=doc["kube_context"],
        revision=doc["revision"], fresh_install=doc["fresh_install"],
        chart_name=doc["chart"]["name"], chart_version=doc["chart"]["version"],
        previous_revision=doc["previous_revision"], previous_chart=doc["previous_chart"],
        rollback_to=doc.get("rollback_to", 0),
        helm_version=doc["helm_version"], rendered_by=doc["rendered_by"],
        applied_with=_applied_of(doc.get("apply_method")),
    )


def _applied_of(doc: Any) -> AppliedWith | None:
    """The apply method a plan assumed (since 1.8); None before, for an uninstall, or when a
    newer writer names a method or a reason this version does not know."""
    if not isinstance(doc, dict):
        return None
    method, reason = ApplyMethod.recorded(str(doc.get("method", ""))), str(doc.get("reason", ""))
    if method is None or reason not in ApplyReason._value2member_map_:
        return None
    return AppliedWith(method, ApplyReason(reason), int(doc.get("revision") or 0))


def _each(doc: dict[str, Any], key: str, read: Callable[[dict[str, Any]], _T]) -> list[_T]:
    return [read(item) for item in doc.get(key, ())]


def plan_of(doc: Any) -> Plan:
    """The plan a JSON document describes; a ValueError, KeyError or TypeError when it is not one."""
    return build_plan(
        header_of(doc["header"]), HelmAction(doc["helm_action"]),
        _each(doc, "changes", resource_change_of), _each(doc, "tasks", task_of),
        _each(doc, "chart_crds", chart_crd_of), _each(doc, "warnings", warning_of),
        _each(doc, "ignored", resource_change_of),
        hooks_disabled=bool(doc.get("hooks_disabled", False)),
        drift=_each(doc, "drift", drift_of), live=live_of(doc["live"]) if "live" in doc else None,
        impact=_each(doc, "impact", impact_of),
        attribution=Attribution(doc.get("attribution", Attribution.NONE.value)),
        chart_defaults=_each(doc, "chart_defaults", chart_default_of),
    )


def load(text: str, where: str) -> Plan:
    """A saved plan from its JSON text; a UsageError in one line when it cannot be read."""
    return _loaded(text, where)[0]


def _loaded(text: str, where: str) -> tuple[Plan, Any]:
    """The plan and the document it was read from."""
    hint = "pass a file written by `helm plan ... --out FILE` (or -o json)"
    try:
        doc = json.loads(text)
    except ValueError as err:
        raise UsageError(f"{where} is not JSON ({err})", hint) from None
    except RecursionError:
        doc = None  # nested far too deep: refused just below
    if doc is None or too_deep(doc, _MAX_DOCUMENT_DEPTH):
        raise UsageError(f"{where} nests deeper than a plan document can ({_MAX_DOCUMENT_DEPTH} levels)", hint)
    version = doc.get("format_version") if isinstance(doc, dict) else None
    if not isinstance(version, str):
        raise UsageError(f"{where} is not a helm plan document (no format_version)", hint)
    parts = version.split(".")
    major, minor = _number(parts[0]), _number(parts[1]) if len(parts) == 2 else None
    ours, our_minor = (int(part) for part in FORMAT_VERSION.split("."))
    if major != ours:
        later = major is not None and major > ours
        raise UsageError(f"{where} has format version {version}, and this helm plan reads only {ours}.x",
                         "upgrade helm plan to show it, or plan again" if later
                         else "show it with the helm plan version that wrote it, or plan again")
    # A newer minor version only adds: fields (skipped), warning codes and impact kinds (kept as
    # written); a value it cannot have added is refused with what to do.
    newer = minor is not None and minor > our_minor
    if newer:
        hint = f"it was written by a newer helm plan (format {version}, this one reads {FORMAT_VERSION}): upgrade helm plan"
    problem = first_error(doc, required=minor is None or minor >= our_minor, newer=newer)
    if problem:
        raise UsageError(f"{where} is not a valid helm plan document: {problem}", hint)
    try:
        return plan_of(doc), doc
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        detail = f"missing key {err}" if isinstance(err, KeyError) else str(err)
        raise UsageError(f"{where} is not a valid helm plan document: {detail}", hint) from None


def read_saved_plan(path: str) -> Plan:
    """A saved plan from its file (`-` is standard input)."""
    content = FileReader().read(path, "saved plan", "pass a file written by `helm plan ... --out FILE`")
    return load(content, describe(path))


class SealedPlan(Struct, frozen=True):
    """A saved plan, what its seal shows (seal.py), and what is wrong with trusting it: a
    clause that follows the file's name, "" when nothing is."""

    plan: Plan
    seal: Seal
    problem: str


def _problem(found: Seal) -> str:
    if found is Seal.BROKEN:
        return "was changed after it was written: its seal does not match its plan and inputs"
    if found is Seal.UNKEYED:
        return f"was sealed without {KEY_ENV}, which is set here: whoever can write the file could have written it"
    if found is Seal.NO_KEY:
        return f"was sealed with {KEY_ENV}, which is not set here, so its seal cannot be checked"
    if found is Seal.NONE and os.environ.get(KEY_ENV):
        return (f"has no seal (it was written by -o json, or by a helm plan older than format 1.3), and {KEY_ENV} is "
                "set here: whoever can write the file could have written it")
    return ""


def read_sealed_plan(path: str) -> SealedPlan:
    """A saved plan from its file (`-` is standard input), with what its seal shows."""
    content = FileReader().read(path, "saved plan", "pass a file written by `helm plan ... --out FILE`")
    plan, doc = _loaded(content, describe(path))
    found = check(doc)
    return SealedPlan(plan, found, _problem(found))


def _number(text: str) -> int | None:
    """A version part as a number; None when it is not one (or absurdly long)."""
    return int(text) if text.isdigit() and len(text) < 6 else None


__all__ = ["SealedPlan", "drift_reason_of", "drift_ssa_of", "load", "plan_of", "read_saved_plan", "read_sealed_plan"]
