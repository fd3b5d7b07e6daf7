"""An object's line: its ownership verdict, the failures and data losses it carries, and why it
is ignored."""
from __future__ import annotations

from typing import Iterable

from deployah_plan.codes import Code
from deployah_plan.model import Action, Cause, Ownership, ResourceChange, Warning


_OWNERSHIP_LABEL = {
    Ownership.ADOPT: "adopts the live object", Ownership.UNOWNED: "FAILS: exists without Helm ownership metadata",
    Ownership.OTHER_RELEASE: "FAILS: owned by release {owner}", Ownership.TERMINATING: "collides: being deleted",
}


def ownership_label(change: ResourceChange) -> str:
    """A create's ownership verdict (a kept object's is said by `change_note`)."""
    label = _OWNERSHIP_LABEL.get(change.ownership, "") if change.action is Action.CREATE else ""
    if change.ownership is Ownership.ADOPT and change.owner_release:
        label = f"takes the live object over from release {change.owner_release}"
    return f"  [{label.format(owner=change.owner_release)}]" if label else ""


def change_note(change: ResourceChange, cause: Cause | None = None) -> str:
    """What the line of a changed object adds after its action: a likely rename, why it is kept,
    what moved it (`cause`: render/report.py `ObjectReport.cause`, None where the plan says it once)."""
    note = ""
    if change.likely_rename is not None:
        note = f"  likely renamed {'from' if change.action is Action.CREATE else 'to'} {change.likely_rename}"
    if change.action is Action.RETAIN and change.ownership in (Ownership.UNOWNED, Ownership.OTHER_RELEASE):
        whose = f"release {change.owner_release}'s" if change.owner_release else "without Helm ownership metadata"
        note += f"  left in the cluster: live, it is {whose}, and Helm 4 deletes only what the release owns"
    elif change.action is Action.RETAIN:
        note += "  kept in the cluster by helm.sh/resource-policy: keep, no longer managed by the release"
    if cause is not None:
        note += f"  [{CAUSE[cause]}]"
    return note


# Why an object changes (core/causes.py), on its line and as the titles of "what matters".
CAUSE = {Cause.CHART: "from the chart upgrade", Cause.VALUES: "from your values",
         Cause.BOTH: "from the chart upgrade and your values"}


def failure_label(failures: Iterable[Warning]) -> str:
    """A predicted failure on the object's own line, as terraform marks "forces replacement"."""
    labels = [w.code.label for w in failures if w.code.label]  # ownership has its own label
    if not labels:
        return ""
    return "  [FAILS: " + "; ".join(dict.fromkeys(labels)) + "]"


def data_loss_label(warnings: Iterable[Warning]) -> str:
    return "  [DATA LOSS]" if any(w.code is Code.DATA_LOSS for w in warnings) else ""


def ignored_note(change: ResourceChange) -> str:
    n = len(change.ignored_fields)
    return f"{n} field change{'s' if n != 1 else ''} ignored by {', '.join(change.ignored_by)}"
