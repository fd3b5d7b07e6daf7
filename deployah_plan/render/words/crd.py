"""Chart CRDs (crds/) in words: what Helm does with each, and a CRD's schema change summed up."""
from __future__ import annotations

from deployah_plan.codes import Code
from deployah_plan.model import CRDLifecycle, CRDSchemaChange, CRDSummary, ChartCRD, Plan
from deployah_plan.render.words import plural


CRD_MEANING = {
    CRDLifecycle.PROCESS: "created on install if absent",
    CRDLifecycle.SKIP: "skipped (--skip-crds)",
    CRDLifecycle.NOT_ON_UPGRADE: "not processed: Helm never upgrades or deletes chart CRDs",
}


_CRD_CHANGE = {
    "version-added": "version {version} added",
    "version-removed": "version {version} removed",
    "served-changed": "{version}: served {before} -> {after}",
    "storage-changed": "{version}: storage {before} -> {after}",
    "field-added": "{version}: new field {path}{after_type}",
    "field-removed": "{version}: field {path} removed{before_type}",
    "type-changed": "{version}: type of {path} {before} -> {after}",
    "required-added": "{version}: {path} now required",
    "required-removed": "{version}: {path} no longer required",
}


def crd_lines(summary: CRDSummary, fold: bool = False) -> list[str]:
    """A CRD's change by meaning, one line each; the schema prose edits as one count. `fold`
    says the fields one change adds or removes under the same parent (in the same version) in
    one line that names each: a CRD whose new release adds a field to 50 copies of one schema
    is then 50 lines, not 200, and names every field still."""
    out = []
    if fold:
        out += _folded_crd_lines(summary)
    for change in () if fold else summary.changes:
        template = _CRD_CHANGE.get(change.what, "{version}: {what} {path}")
        out.append(template.format(
            version=change.version, path=change.path, what=change.what, before=change.before, after=change.after,
            after_type=f" ({change.after})" if change.after else "", before_type=f" (was {change.before})" if change.before else ""))
    if summary.descriptions:
        out.append(f"{plural(summary.descriptions, 'description change')} (schema prose; each one is in the JSON plan)")
    return out


_FOLDED_CRD = {"field-added": "new field", "field-removed": "removed field"}


def _folded_crd_lines(summary: CRDSummary) -> list[str]:
    """crd_lines(fold=True): the fields a version adds (or removes) grouped by what they are (the
    same names and types) and said once with every place they sit: "v1alpha1: new fields
    directory (object), helm (object) under drySource in: spec.a, spec.b"."""
    def typed(change: CRDSchemaChange) -> str:
        kind = change.after if change.what == "field-added" else change.before
        return change.path.rpartition(".")[2] + (f" ({kind})" if kind else "")

    runs: list[tuple[str, str, str, list[CRDSchemaChange]]] = []  # what, version, parent, changes
    for change in summary.changes:
        parent = change.path.rpartition(".")[0]
        if change.what in _FOLDED_CRD and runs and runs[-1][:3] == (change.what, change.version, parent):
            runs[-1][3].append(change)
        else:
            runs.append((change.what, change.version, parent, [change]))
    same: dict[tuple[str, str, str], list[tuple[str, list[CRDSchemaChange]]]] = {}
    order: list[tuple[str, str, str] | int] = []
    for n, (what, version, parent, changes) in enumerate(runs):
        if what not in _FOLDED_CRD or not parent:
            order.append(n)
            continue
        key = (what, version, ", ".join(typed(c) for c in changes))
        if key not in same:
            order.append(key)
        same.setdefault(key, []).append((parent, changes))
    out = []
    for entry in order:
        if isinstance(entry, int):
            change = runs[entry][3][0]
            template = _CRD_CHANGE.get(change.what, "{version}: {what} {path}")
            out.append(template.format(
                version=change.version, path=change.path, what=change.what, before=change.before, after=change.after,
                after_type=f" ({change.after})" if change.after else "",
                before_type=f" (was {change.before})" if change.before else ""))
            continue
        what, version, names = entry
        places = [parent for parent, _ in same[entry]]
        count = len(same[entry][0][1])
        word = _FOLDED_CRD[what] + ("s" if count > 1 else "")
        if len(places) == 1:
            out.append(f"{version}: {word} {names} under {places[0]}")
            continue
        tail = _common_tail([p.split(".") for p in places])
        if tail and all(len(p.split(".")) > len(tail) for p in places):
            heads = ", ".join(".".join(p.split(".")[:-len(tail)]) for p in places)
            out.append(f"{version}: {word} {names} under {'.'.join(tail)} in each of {len(places)}: {heads}")
        else:
            out.append(f"{version}: {word} {names} under each of {len(places)}: {', '.join(places)}")
    return out


def _common_tail(paths: list[list[str]]) -> list[str]:
    tail: list[str] = []
    for parts in zip(*(reversed(p) for p in paths)):
        if len(set(parts)) != 1:
            break
        tail.insert(0, parts[0])
    return tail


def crd_summary_note(summary: CRDSummary | None) -> str:
    """A chart CRD's change by meaning, in one clause."""
    if summary is None:
        return ""
    lines = crd_lines(summary)
    if len(lines) > 6:
        lines = lines[:5] + [f"and {len(lines) - 5} more in the JSON plan"]
    return f" ({'; '.join(lines)})" if lines else ""


def crd_is_new(plan: Plan, crd: ChartCRD) -> bool:
    """A chart CRD new in the chart on an upgrade, which the upgrade does not create (a
    crd-not-created warning names it)."""
    return any(w.code is Code.CRD_NOT_CREATED and getattr(w.facts, "name", None) == crd.name for w in plan.warnings)


def crd_applier(plan: Plan, crd: ChartCRD) -> str | None:
    """The hook that runs on this upgrade and likely applies this chart CRD, as the
    crd-not-upgraded or crd-not-created warning's facts name it (None: none does)."""
    for warning in plan.warnings:
        facts = warning.facts
        if warning.code in (Code.CRD_NOT_UPGRADED, Code.CRD_NOT_CREATED) and getattr(facts, "name", None) == crd.name:
            hook, ref = getattr(facts, "hook", None), getattr(facts, "hook_resource", None)
            return str(ref) if ref is not None else hook
    return None


def crds_unchanged(names: list[str], others: bool) -> str:
    """The chart CRDs that did not change, on one line."""
    return f"{'the other ' if others else ''}{plural(len(names), 'CRD')} unchanged: {', '.join(names)}"


def crd_change_note(crd: ChartCRD, new: bool = False) -> str:
    """What is known of a chart CRD beyond what Helm does with it, without the advice a
    crd-not-upgraded or crd-not-created warning gives (the markdown says that advice once, in
    the warning). `new`: `crd_is_new`."""
    if crd.chart_changed and crd.lifecycle is CRDLifecycle.NOT_ON_UPGRADE:
        return "changed in the chart" + crd_summary_note(crd.schema)
    if new and crd.lifecycle is CRDLifecycle.NOT_ON_UPGRADE:
        return "new in the chart"
    return crd_note(crd).removeprefix("; ")


def crd_note(crd: ChartCRD, applier: str | None = None, new: bool = False) -> str:
    """What the CRD section adds to a chart CRD's line; `applier` the hook that likely applies
    it, `new`: `crd_is_new`."""
    if new and crd.lifecycle is CRDLifecycle.NOT_ON_UPGRADE:
        return ("; NEW in the chart" + (f", and Helm will not create it: the hook {applier}, which runs on this "
                                        "upgrade, likely does" if applier else
                                        ", and this upgrade will not create it: apply it yourself"))
    if crd.chart_changed and crd.lifecycle is CRDLifecycle.NOT_ON_UPGRADE:
        return ("; CHANGED in the chart" + crd_summary_note(crd.schema)
                + (f", and Helm will not apply it: the hook {applier}, which runs on this upgrade, likely does"
                   if applier else ", and this upgrade will not apply it: apply it yourself"))
    if crd.live_differs and crd.lifecycle is CRDLifecycle.NOT_ON_UPGRADE:
        return "; the cluster's copy differs from the chart's, and this upgrade will not update it"
    if crd.live_differs is not None and crd.lifecycle is CRDLifecycle.PROCESS:
        return "; it already exists in the cluster, so Helm skips it"
    return ""
