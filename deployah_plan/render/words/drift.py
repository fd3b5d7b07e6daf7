"""Drift in words: each drift's sign and effect, why it has that effect, and what server-side
apply does with a drifted field."""
from __future__ import annotations

from deployah_plan.model import DriftChange, DriftEffect, DriftField, DriftKind, DriftReason, SsaReason


DRIFT_SIGN = {DriftKind.MODIFIED: "~", DriftKind.MISSING: "-", DriftKind.UNEXPECTED: "+"}
EFFECT_LABEL = {
    DriftEffect.REVERTED: "this deploy sets it back to the chart's value",
    DriftEffect.LEFT: "this deploy leaves the live value as it is",
    DriftEffect.REMOVED: "the new chart no longer declares it (or declares it null): this deploy deletes it from the live object",
    DriftEffect.CONFLICT: "server-side apply conflict: the deploy fails",
    DriftEffect.MIXED: "see each field",
}
FIELD_EFFECT = {
    DriftEffect.REVERTED: "set back", DriftEffect.LEFT: "left as it is",
    DriftEffect.REMOVED: "deleted: no longer declared, or declared null", DriftEffect.CONFLICT: "conflict",
    DriftEffect.MIXED: "mixed",
}


DRIFT_REASON = {
    DriftReason.RECREATED: "the upgrade creates it again",
    DriftReason.LEAVES_RELEASE: "it leaves the release: nothing to delete",
    DriftReason.ADOPTED: "the new chart declares it: Helm adopts it and applies the chart",
    DriftReason.UNTOUCHED: "not in the new chart either: Helm does not touch it",
    DriftReason.KEPT: "kept: the live object says helm.sh/resource-policy: keep",
    DriftReason.DELETED: "the upgrade deletes the object",
    DriftReason.THREE_WAY_MERGE: "three-way merge: Helm sets every field the new chart declares",
    DriftReason.MERGE_PATCH: ("a custom resource: Helm's JSON merge patch goes from the previous manifest to the new "
                              "one and ignores live drift"),
    DriftReason.SERVER_SIDE_APPLY: "server-side apply: ownership read from the live object's managedFields",
}
# What server-side apply does with a drifted field; {managers}: the field managers that own it.
SSA_NOTE = {
    SsaReason.DECLARES_LIVE: "server-side apply: the new chart declares the live value",
    SsaReason.FORCED: "server-side apply sets it back: --force-conflicts takes it from field manager {managers}",
    SsaReason.CONFLICT: ("server-side apply conflict: field manager {managers} owns it; the upgrade fails unless "
                         "conflicts are forced (--force-conflicts)"),
    SsaReason.SETS_BACK: "server-side apply sets it back (no other field manager owns it)",
    SsaReason.GONE: "server-side apply: already gone, and no longer declared",
    SsaReason.OTHER_OWNS: "server-side apply leaves it: field manager {managers} owns it",
    SsaReason.REMOVES: "server-side apply removes it: Helm owned it and no longer declares it",
}


def drift_reason(item: DriftChange) -> str:
    """Why a drifted object's drift has its effect, in one line ("" when the plan does not say)."""
    return DRIFT_REASON[item.why] if item.why is not None else ""


def drift_ssa(field: DriftField) -> str:
    """What server-side apply does with a drifted field, and why ("" under client-side apply)."""
    if field.ssa is None:
        return ""
    return SSA_NOTE[field.ssa].format(managers=", ".join(field.managers))


def drift_label(item: DriftChange) -> str:
    """What this deploy does about one drifted object, in words that cannot be misread."""
    if item.kind is DriftKind.MISSING:
        return ("missing live: this deploy creates it again" if item.effect is DriftEffect.REVERTED
                else "missing live: it leaves the release, nothing to do")
    if item.kind is DriftKind.UNEXPECTED:
        return ("not in the release: the new chart declares it, so this deploy adopts it and applies the chart"
                if item.effect is DriftEffect.REVERTED else "not in the release: this deploy leaves it alone")
    if item.why is DriftReason.DELETED:
        return "modified live: this deploy deletes the object"
    if item.why is DriftReason.KEPT:
        return "modified live: the object leaves the release but is kept (resource-policy: keep), as it is"
    return f"modified live: {EFFECT_LABEL[item.effect]}"
