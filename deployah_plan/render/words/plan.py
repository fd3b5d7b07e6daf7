"""The plan as a whole in words: the header lines, the summary sentence, the section titles and
"what matters" (the highlights above the details)."""
from __future__ import annotations

from typing import Any, Callable, Collection, Mapping, Sequence, cast

from deployah_plan.codes import Code
from deployah_plan.impacts import ImpactKind
from deployah_plan.model import AppliedWith, ApplyMethod, ApplyReason, Attribution, ChartDefault, FieldOp, HelmAction, Plan, ResourceRef
from deployah_plan.render.highlight import Highlight
from deployah_plan.render.words import names, plural
from deployah_plan.render.words.change import CAUSE
from deployah_plan.render.words.crd import crd_is_new
from deployah_plan.render.words.value import SHORT, View, shorten, shorten_pair, value_text


VERB = {HelmAction.INSTALL: "install", HelmAction.UPGRADE: "upgrade", HelmAction.NONE: "upgrade",
        HelmAction.ROLLBACK: "rollback", HelmAction.UNINSTALL: "uninstall"}

HIGHLIGHTS_TITLE = "What matters (the details follow):"
HIGHLIGHTS = 30  # lines of "what matters" at most; the rest are counted


def more_highlights(count: int) -> str:
    return f"… and {count:,} more (see the details)"


def highlight_text(item: Highlight, view: View = SHORT) -> str:
    """One line of "what matters", without its sign."""
    what = item.what.value
    if what in ("failure", "data-loss", "warning"):
        said, *named = item.detail
        return f"{said}: {names(named)}" if named else said
    if what == "risk":
        kind = ImpactKind(cast(Any, item.detail[0]))  # by its wire value; one this version does not know is a stand-in
        count = len(item.resources)
        called = (kind.one if count == 1 else f"{count:,} {kind.many}") if kind.one else plural(count, "impact")
        return f"{kind.value}: {called}: {names(item.resources)}"
    if what == "delete":
        verb = "deleted" if item.sign == "-" else "leaving the release, kept in the cluster"
        return f"{verb}: {names(item.resources)}"
    if what == "image":
        if item.before is None:
            image = shorten(value_text(item.after), view.limit)
        else:
            before, after = shorten_pair(value_text(item.before), value_text(item.after), view.limit)
            image = f"{before} -> {after}"
        return f"image {image} in {names(item.resources, item.detail)}"
    label = {"rbac": "RBAC", "webhook": "admission webhook", "secret": "Secret keys"}[what]
    if item.sign == "+":
        return f"new {label}{'s' if what == 'webhook' and len(item.resources) > 1 else ''}: {names(item.resources)}"
    return f"{label}: {item.resources[0]}: {', '.join(item.detail)}{'' if what == 'secret' else ' changed'}"


def cause_lines(plan: Plan, groups: Sequence[tuple[Any, tuple[ResourceRef, ...]]],
                view: View = SHORT, default_value: Callable[[str, Any], Any] = lambda _, value: value) -> list[str]:
    """The lines of "what matters" that say why the changes happen (core/causes.py): once, that
    every change is the chart's when the values did not change; else the objects each cause
    moved (`groups`: render/report.py `CauseGroup`s); then each chart default that changed under
    the user, its values seen through `default_value` (a secret-looking key's masked)."""
    lines: list[str] = []
    if plan.attribution is Attribution.CHART and plan.changes:
        lines.append("every change is from the chart upgrade: the values are the release's own, unchanged")
    if plan.attribution is Attribution.VALUES and plan.changes:
        lines.append("every change is from your values: the chart is the release's own, unchanged")
    lines += [f"{CAUSE[cause]}: {names(refs)}" for cause, refs in groups]
    lines += [chart_default_text(d, view, default_value) for d in plan.chart_defaults[:CHART_DEFAULTS]]
    if len(plan.chart_defaults) > CHART_DEFAULTS:
        lines.append(f"… and {len(plan.chart_defaults) - CHART_DEFAULTS:,} more chart defaults changed "
                     "under keys you do not set (the JSON plan's chart_defaults)")
    return lines


CHART_DEFAULTS = 10  # chart defaults said under "what matters" at most


def chart_default_text(default: ChartDefault, view: View = SHORT,
                       default_value: Callable[[str, Any], Any] = lambda _, value: value) -> str:
    """"chart default `server.replicas` 1 -> 2 (you do not set it): Deployment x"."""
    before, after = (value_text(default_value(default.key, v)) for v in (default.before, default.after))
    if default.op is FieldOp.ADD:
        change = f"new: {shorten(after, view.limit)}"
    elif default.op is FieldOp.REMOVE:
        change = f"gone (was {shorten(before, view.limit)})"
    else:
        old, new = shorten_pair(before, after, view.limit)
        change = f"{old} -> {new}"
    moved = f": {names(default.moved)}" if default.moved else ""
    return f"chart default {default.key} {change} (you do not set it){moved}"


# What each sign means, by where it is used ("impact": what the deploy does to running things;
# "same": a quantity written another way), in the order the legend says them.
_LEGEND = (("+", "", "create/add"), ("~", "", "update/change"), ("~", "impact", "restart"),
           ("-", "", "delete/remove"), ("=", "", "kept"), ("=", "same", "the same value"),
           ("=", "impact", "no restart now"),
           ("*", "", "CRD schema change"), ("!", "", "warning/risk"), ("X", "", "predicted failure"),
           ("?", "", "not checked"), ("i", "", "note"))


def legend(used: Mapping[str, Collection[str]]) -> list[tuple[str, str]]:
    """What the signs a plan shows mean, only those it shows (`used`: each sign and where it was
    used), as terraform says its symbols: (sign, meaning) in the legend's order."""
    out = []
    for sign in dict.fromkeys(s for s, _, _ in _LEGEND):
        meant = [meaning for s, where, meaning in _LEGEND if s == sign and where in used.get(sign, ())]
        if meant:
            out.append((sign, "/".join(meant)))
    return out


def legend_text(used: Mapping[str, Collection[str]]) -> str:
    """The legend in one line ("" when no sign is shown)."""
    parts = legend(used)
    return "signs: " + ", ".join(f"{sign} {meaning}" for sign, meaning in parts) if parts else ""


def hooks_text(plan: Plan) -> str:
    """What the hooks do, counting those that run on this action apart from definitions that
    only change what the release stores."""
    s, verb = plan.summary, VERB[plan.helm_action]
    parts = []
    if s.hooks_run:
        changed = f" ({s.hooks_changed} changed)" if s.hooks_changed else ""
        parts.append(f"{plural(s.hooks_run, 'hook')} run{'s' if s.hooks_run == 1 else ''}{changed}")
    if s.hooks_stored:
        parts.append(f"{plural(s.hooks_stored, 'hook definition')} change{'s' if s.hooks_stored == 1 else ''} "
                     f"without running on {verb} (stored in the release)")
    return "; ".join(parts) + "." if parts else ""


def failures_text(plan: Plan) -> str:
    n = plan.summary.failures
    if not n:
        return ""
    return f"{plural(n, 'predicted failure')}: this {VERB[plan.helm_action]} would fail."


def crds_text(plan: Plan) -> str:
    n = sum(1 for c in plan.chart_crds if c.chart_changed)
    new = sum(1 for c in plan.chart_crds if crd_is_new(plan, c))
    if new:
        what = f"{plural(n, 'chart CRD')} changed and {plural(new, 'new one')}" if n else plural(new, "new chart CRD")
        return f"{what} that Helm will not apply (see the warnings)."
    return f"{plural(n, 'chart CRD')} changed that Helm will not apply (see the warnings)." if n else ""


def summary_text(plan: Plan) -> str:
    """The last line of the plan."""
    s = plan.summary
    fails = " ".join(x for x in (crds_text(plan), failures_text(plan)) if x)
    if plan.helm_action is HelmAction.NONE:
        runs = s.hooks_run
        run_hooks = f"{runs} upgrade hook{'s' if runs != 1 else ''}"
        if not plan.header.previous_revision:
            text = f"No changes. An upgrade would still run {run_hooks}." if runs else "No changes."
            if fails:
                text = text.replace("No changes.", "No changes to the release.")
        else:
            extra = f" and run {run_hooks}" if runs else ""
            text = f"No changes. helm upgrade would still record revision {plan.header.revision}{extra}."
        return f"{text} {fails}" if fails else text
    # An adopted object is not created: Helm applies the chart over the live one (core/adoption.py).
    adopted = f" {s.adopted} to adopt," if s.adopted else ""
    text = f"Plan: {s.create - s.adopted} to create,{adopted} {s.update} to update, {s.delete} to delete."
    if s.retain:
        text = text[:-1] + f", {s.retain} to keep."
    hooks = hooks_text(plan)  # starts with a count: "2 hooks run."
    if hooks:
        text += " " + hooks
    if s.regenerated:
        text += (f" {plural(s.regenerated, 'update')} only change{'s' if s.regenerated == 1 else ''} values the "
                 "chart generates anew on every render (random values, certificates, timestamps).")
    if s.drift_reverted:
        text += f" {plural(s.drift_reverted, 'drifted object')} set back to the chart."
    if s.ignored:
        text += f" {s.ignored} ignored."
    if plan.helm_action is HelmAction.UNINSTALL and not (s.delete or s.retain or s.hooks_run):
        # Every object gone already and no hook: what helm uninstall still does is to the record.
        kept = any(w.code is Code.KEEP_HISTORY for w in plan.warnings)
        text += (" Only the release's record changes: it is kept, marked uninstalled (--keep-history)." if kept
                 else " Only the release's record goes, its history with it.")
    if fails:
        text += " " + fails
    return text


_METHOD = {ApplyMethod.SSA: "server-side", ApplyMethod.CSA: "client-side, a three-way merge"}


def applied_line(applied: AppliedWith) -> str:
    """Which apply method the plan assumed, and why: "apply: server-side (as revision 7, the
    newest, was applied; --server-side=auto)"."""
    method = _METHOD[applied.method]
    was = "server-side" if applied.method is ApplyMethod.SSA else "client-side"
    why = {
        ApplyReason.HELM3: "Helm 3",
        ApplyReason.INSTALL: "an install: Helm 4's default",
        ApplyReason.FLAG: f"--server-side={'true' if applied.method is ApplyMethod.SSA else 'false'}",
        ApplyReason.NEWEST: f"revision {applied.revision}, the newest, was applied {was}; --server-side=auto",
        ApplyReason.TARGET: f"revision {applied.revision}, the target, was applied {was}; --server-side=auto",
        ApplyReason.STORED: f"as revision {applied.revision} was applied",
        ApplyReason.GIVEN: f"--apply-method {applied.method.value}",
    }[applied.reason]
    return f"apply: {method} ({why})"


def header_lines(plan: Plan) -> list[str]:
    """The title, then what the plan is planned from, how it was rendered and how it applies."""
    lines = _header_lines(plan)
    applied = plan.header.applied_with
    return lines + [applied_line(applied)] if applied is not None else lines


def _header_lines(plan: Plan) -> list[str]:
    h = plan.header
    context = f" (context {h.kube_context})" if h.kube_context else ""
    lines = [f"helm plan: {VERB[plan.helm_action]} release {h.release} in namespace {h.namespace}{context}"]
    chart = f"{h.chart_name} {h.chart_version}".strip()
    if plan.helm_action is HelmAction.ROLLBACK:
        back = f"{h.chart_name}-{h.chart_version}" if h.chart_name else "unknown chart"
        lines.append(f"from revision {h.previous_revision} ({h.previous_chart or 'unknown chart'}) back to revision "
                     f"{h.rollback_to} ({back}); this would create revision {h.revision}")
        return lines
    if plan.helm_action is HelmAction.UNINSTALL:
        lines.append(f"chart {h.previous_chart or '(unknown)'} at revision {h.previous_revision}: every resource of "
                     "the release is removed")
        return lines
    if h.fresh_install:
        lines.append(f"chart {chart or '(unknown)'}; a fresh install, creating revision {h.revision}")
    elif not h.previous_revision:
        lines.append("an upgrade from the given previous manifest")
    else:
        was = f", from {h.previous_chart}" if h.previous_chart else ""
        lines.append(f"chart {chart or '(unknown)'}{was} at revision {h.previous_revision}; this would create revision {h.revision}")
    how = {"template": "helm template (offline)", "server": "helm upgrade --dry-run=server",
           "files": "the given files"}.get(h.rendered_by, h.rendered_by)
    helm = f", Helm {h.helm_version}" if h.helm_version else ""
    lines.append(f"desired state rendered by {how}{helm}")
    return lines


def resources_title(plan: Plan) -> str:
    return f"Resources, in the order Helm {'deletes' if plan.helm_action is HelmAction.UNINSTALL else 'applies'} them:"


TASKS_TITLE = "Tasks (Helm hooks and CronJobs), in the order Helm runs them:"
DRIFT_TITLE = "Drift (live vs the previous release):"
CRDS_TITLE = "Chart CRDs (crds/):"
WARNINGS_TITLE = "Warnings and notes:"
IGNORED_TITLE = "Ignored (matched by ignore rules; not counted):"
NOT_CHECKED_TITLE = "Not checked:"


def common_heading(resources: int, hooks: int) -> str:
    """"on 13 resources and 7 hooks": the objects a group of common changes is on."""
    parts = [plural(resources, "resource")] if resources else []
    if hooks:
        parts.append(plural(hooks, "hook"))
    return "on " + " and ".join(parts)


def common_title(only_group: str = "") -> str:
    """The title of the common changes; with a single group, its heading is in the title."""
    where = f" {only_group}" if only_group else ""
    return f"Common changes{where} (said once here, not under each object):"


def template_note(count: int) -> str:
    """For a common label change: how many objects carry it in their pod template too."""
    return f"  (also in the pod template of {count})" if count else ""


def action_text(action: str, own: int, common: int) -> str:
    """An object's action, and how many of its field changes are said once among the common
    changes: "update: only common changes", "update, and 2 common changes"."""
    if not common:
        return action
    return f"{action}: only common changes" if not own else f"{action}, and {plural(common, 'common change')}"


def suppressed_note(kind: str, hidden: int, content: bool = False) -> str:
    """An object or hook of a kind whose field changes and content are not shown (--suppress
    KIND): "2 field changes not shown", "content not shown" ("" when nothing was left out)."""
    what = [plural(hidden, 'field change')] if hidden else []
    what += ["content"] if content else []
    return f"{' and '.join(what)} not shown: --suppress {kind}" if what else ""
