"""The plan's one constructor: `build_plan` copies its input into tuples, checks the invariants
model.py's docstring lists (a `ValueError` names the one broken), and derives what a caller
must not supply: the summary, each task's `will_run` and `runs_in`, and the order of changes
and tasks. `rebuild` makes a plan again with some parts replaced, through the same checks.
The types it builds are model.py's; this module holds only the building.
"""
from __future__ import annotations

from typing import Iterable

from msgspec.structs import replace

from deployah_plan.codes import Fails, Severity
from deployah_plan.impacts import ImpactKind
from deployah_plan.model import (
    PHASE_ORDER, Action, ApplyMethod, Attribution, ChartCRD, ChartDefault, DriftChange, DriftEffect, DriftKind, FieldChange, FieldOp, Header, HelmAction, Impact,
    LiveCheck, LiveStatus, Ownership, Plan, ResourceChange, ResourceRef, Summary, TaskAction, TaskPhase, TaskPlan, Warning,
    helm_run_order,
)

# Which hook events run on which action (pkg/release hook events, as each action runs them).
HOOK_EVENTS = {
    HelmAction.INSTALL: ("pre-install", "post-install"),
    HelmAction.UPGRADE: ("pre-upgrade", "post-upgrade"),
    HelmAction.NONE: ("pre-upgrade", "post-upgrade"),  # `helm upgrade` still runs them
    HelmAction.ROLLBACK: ("pre-rollback", "post-rollback"),
    HelmAction.UNINSTALL: ("pre-delete", "post-delete"),
}


def disambiguate(changes: Iterable[ResourceChange]) -> list[ResourceChange]:
    """The changes, with `show_group` set on every object that another one of them matches in
    kind, namespace and name but not in group, so that no two rows read the same."""
    changes = list(changes)
    groups: dict[tuple[str, str, str], set[str]] = {}
    for change in changes:
        ref = change.resource
        groups.setdefault((ref.kind, ref.namespace, ref.name), set()).add(ref.group)
    out = []
    for change in changes:
        ref = change.resource
        if len(groups[(ref.kind, ref.namespace, ref.name)]) > 1 and not ref.show_group:
            change = replace(change, resource=replace(ref, show_group=True))
        out.append(change)
    return out


def summarize(changes: Iterable[ResourceChange], ignored: int = 0, warnings: Iterable[Warning] = (),
              tasks: Iterable[TaskPlan] = (), drift: Iterable[DriftChange] = ()) -> Summary:
    counts = {Action.CREATE: 0, Action.UPDATE: 0, Action.DELETE: 0, Action.RETAIN: 0}
    for change in changes:
        counts[change.action] += 1
    hooks = [t for t in tasks if t.phase is not TaskPhase.SCHEDULE]
    return Summary(
        counts[Action.CREATE], counts[Action.UPDATE], counts[Action.DELETE], counts[Action.RETAIN], ignored,
        failures=sum(1 for w in warnings if w.fails),
        hooks_run=sum(1 for t in hooks if t.will_run),
        hooks_changed=sum(1 for t in hooks if t.will_run and t.action is not TaskAction.UNCHANGED),
        hooks_stored=sum(1 for t in hooks if not t.will_run and t.action is not TaskAction.UNCHANGED),
        drift_reverted=sum(1 for d in drift if d.reverts),
        regenerated=sum(1 for c in changes if c.action is Action.UPDATE and _only_regenerated(c.fields)),
        adopted=sum(1 for c in changes if c.action is Action.CREATE and c.ownership is Ownership.ADOPT),
    )


def _only_regenerated(fields: Iterable[FieldChange]) -> bool:
    real = [f for f in fields if not f.equivalent]
    return bool(real) and all(f.regenerated for f in real)


def _check_change(change: ResourceChange, ignored: bool = False) -> None:
    if not isinstance(change.action, Action):
        raise ValueError(f"{change.resource}: action {change.action!r} is not an Action")
    want_before = change.action is not Action.CREATE
    want_after = change.action not in (Action.DELETE, Action.RETAIN)
    if (change.before is not None) != want_before or (change.after is not None) != want_after:
        raise ValueError(f"{change.resource}: a {change.action.value} must have "
                         f"{'before' if want_before else 'no before'} and {'after' if want_after else 'no after'}")
    if change.action is Action.UPDATE and not ignored and all(f.equivalent for f in change.fields):
        raise ValueError(f"{change.resource}: an update needs at least one real field change that is not ignored")
    if ignored and not change.ignored_by:
        raise ValueError(f"{change.resource}: an ignored change must name the rule that matched it")
    for f in (*change.fields, *change.ignored_fields):
        if not isinstance(f.op, FieldOp) or not (f.path == "" or f.path.startswith("/")):
            raise ValueError(f"{change.resource}: bad field change {f!r}")


_CREATE_ONLY = frozenset(set(Ownership) - {Ownership.NOT_CHECKED})
# An object Helm 4.3's uninstall leaves because the release does not own it (core/planner.py).
_NOT_OWNED = frozenset({Ownership.UNOWNED, Ownership.OTHER_RELEASE})


def _check_ownership(change: ResourceChange) -> None:
    if not isinstance(change.ownership, Ownership):
        raise ValueError(f"{change.resource}: ownership {change.ownership!r} is not an Ownership")
    if change.ownership in _CREATE_ONLY and change.action is not Action.CREATE and \
            not (change.action is Action.RETAIN and change.ownership in _NOT_OWNED):
        raise ValueError(f"{change.resource}: only a create, or an object an uninstall leaves as not the "
                         "release's, has an ownership verdict")
    if change.ownership is Ownership.OTHER_RELEASE and not change.owner_release:
        raise ValueError(f"{change.resource}: an object owned by another release names that release")
    if change.owner_release and change.ownership not in (Ownership.OTHER_RELEASE, Ownership.ADOPT):
        raise ValueError(f"{change.resource}: only other-release, or adopt with --take-ownership, names an owner")


def _check_live(live: LiveCheck, drift: list[DriftChange]) -> None:
    if not isinstance(live.status, LiveStatus):
        raise ValueError(f"live status {live.status!r} is not a LiveStatus")
    if (live.status is LiveStatus.PARTIAL) != bool(live.unreadable):
        raise ValueError("a partial live check, and only a partial one, names what it could not read")
    if live.status in (LiveStatus.SKIPPED, LiveStatus.UNREACHABLE):
        if drift:
            raise ValueError("drift needs a live state that was read")
        if not live.reason:
            raise ValueError("a live check that was skipped or unreachable says why")
    seen: set[tuple[str, str, str, str]] = set()
    for item in drift:
        if not isinstance(item.kind, DriftKind) or not isinstance(item.effect, DriftEffect):
            raise ValueError(f"drift of {item.resource}: bad kind or effect")
        if (item.kind is DriftKind.MODIFIED) != bool(item.fields):
            raise ValueError(f"drift of {item.resource}: a modified object, and only one, has field drift")
        if (item.kind is DriftKind.MISSING) != (item.live is None):
            raise ValueError(f"drift of {item.resource}: only a missing object has no live object")
        if item.resource.identity in seen:
            raise ValueError(f"two drifts for one object: {item.resource}")
        seen.add(item.resource.identity)


def _not_checked(live: LiveCheck) -> tuple[str, ...]:
    """What the live check did not cover, in sentences a reader (or a bot) can act on."""
    if live.status in (LiveStatus.SKIPPED, LiveStatus.UNREACHABLE):
        what = ("drift, ownership, resource-policy and server-side apply conflicts" if live.apply_method is ApplyMethod.SSA
                else "drift, ownership and resource-policy")
        return (f"{what} from the live objects: not checked ({live.reason})",)
    return tuple(f"drift and ownership of {gap.kind} ({gap.api_version}) in "
                 f"{gap.namespace or 'every namespace / cluster scope'}: not read ({gap.reason})"
                 for gap in live.unreadable)


def _drift_effect(item: DriftChange) -> DriftChange:
    if item.kind is not DriftKind.MODIFIED:
        return item
    effects = {f.effect for f in item.fields}
    return replace(item, effect=effects.pop() if len(effects) == 1 else DriftEffect.MIXED)


def _runs_in(task: TaskPlan, action: HelmAction, hooks_disabled: bool) -> tuple[TaskPhase, ...]:
    """The phases a hook runs in on this action: Helm runs, for each event of the action, every
    hook that lists it (pkg/action/hooks.go execHook)."""
    if hooks_disabled or task.action is TaskAction.DELETE or task.phase in (TaskPhase.SCHEDULE, TaskPhase.OTHER):
        return ()
    pre, post = HOOK_EVENTS[action]
    return tuple(phase for phase, event in ((TaskPhase.PRE_DEPLOY, pre), (TaskPhase.POST_DEPLOY, post))
                 if event in task.events)


def _run_order(task: TaskPlan) -> tuple[int, tuple[int, str, int, str]]:
    return (PHASE_ORDER[task.phase], helm_run_order(task))


def build_plan(
    header: Header,
    helm_action: HelmAction,
    changes: Iterable[ResourceChange] = (),
    tasks: Iterable[TaskPlan] = (),
    chart_crds: Iterable[ChartCRD] = (),
    warnings: Iterable[Warning] = (),
    ignored: Iterable[ResourceChange] = (),
    hooks_disabled: bool = False,
    drift: Iterable[DriftChange] = (),
    live: LiveCheck | None = None,
    impact: Iterable[Impact] = (),
    attribution: Attribution = Attribution.NONE,
    chart_defaults: Iterable[ChartDefault] = (),
) -> Plan:
    """The one constructor of a Plan; see the module docstring for what it checks."""
    if not isinstance(helm_action, HelmAction):
        raise ValueError(f"helm action {helm_action!r} is not a HelmAction")
    given, set_aside = list(changes), list(ignored)
    named = disambiguate([*given, *set_aside])
    change_list = sorted(named[:len(given)], key=lambda c: (c.helm_order, c.resource))
    ignored_list = sorted(named[len(given):], key=lambda c: (c.helm_order, c.resource))
    seen: dict[tuple[str, str, str, str], ResourceRef] = {}
    for change, is_ignored in [*((c, False) for c in change_list), *((c, True) for c in ignored_list)]:
        _check_change(change, is_ignored)
        _check_ownership(change)
        if change.resource.generate_name:
            continue  # each generateName object is a new object: two of them are two creates
        if change.resource.identity in seen:
            raise ValueError(f"two changes for one object: {seen[change.resource.identity]} and {change.resource}")
        seen[change.resource.identity] = change.resource
    if (helm_action is HelmAction.INSTALL) != header.fresh_install:
        raise ValueError("an install plan, and only an install plan, is a fresh install")
    if helm_action is HelmAction.INSTALL and any(c.action is not Action.CREATE for c in (*change_list, *ignored_list)):
        raise ValueError("an install can only create")
    if helm_action is HelmAction.UNINSTALL and any(c.action not in (Action.DELETE, Action.RETAIN) for c in change_list):
        raise ValueError("an uninstall can only delete or retain")
    task_list = []
    for t in tasks:
        runs_in = _runs_in(t, helm_action, hooks_disabled)
        task_list.append(replace(t, will_run=bool(runs_in), runs_in=runs_in))
    for task in task_list:
        if not isinstance(task.phase, TaskPhase) or not isinstance(task.action, TaskAction):
            raise ValueError(f"task {task.name}: bad phase or action")
    if helm_action is HelmAction.NONE and (change_list or ignored_list or any(t.action is not TaskAction.UNCHANGED for t in task_list)):
        raise ValueError("a plan with no Helm action cannot change resources or tasks")
    task_list.sort(key=_run_order)
    live = live if live is not None else LiveCheck()
    drift_list = sorted((_drift_effect(d) for d in drift), key=lambda d: (d.resource.identity, d.resource))
    _check_live(live, drift_list)
    if helm_action is HelmAction.NONE and any(d.reverts for d in drift_list):
        raise ValueError("a plan that sets drift back is an upgrade, not a plan with no Helm action")
    warning_list = tuple(warnings)
    for warning in warning_list:
        if warning.fails and warning.severity is not Severity.WARNING:
            raise ValueError(f"a predicted failure is a warning, not {warning.severity.value}: {warning.code}")
        if warning.facts is not None and warning.facts.code is not warning.code:
            raise ValueError(f"warning {warning.code} holds the facts of {warning.facts.code}")
        if warning.code.fails is (Fails.NEVER if warning.fails else Fails.ALWAYS):
            raise ValueError(f"warning {warning.code} {'never' if warning.fails else 'always'} predicts a failure")
    impact_list = tuple(impact)
    for item in impact_list:
        if not isinstance(item.kind, ImpactKind):
            raise ValueError(f"impact {item.kind!r} is not an ImpactKind")
        if item.facts is not None and item.facts.kind is not item.kind:
            raise ValueError(f"impact {item.kind.value} on {item.resource} holds the facts of {item.facts.kind.value}")
        if any(not isinstance(n, int) or isinstance(n, bool) or n < 0 for _, n in item.counts):
            raise ValueError(f"impact {item.kind.value} on {item.resource}: counts are non-negative integers")
    return Plan(
        header=header,
        helm_action=helm_action,
        changes=tuple(change_list),
        tasks=tuple(task_list),
        chart_crds=tuple(chart_crds),
        warnings=warning_list,
        summary=summarize(change_list, len(ignored_list), warning_list, task_list, drift_list),
        ignored=tuple(ignored_list),
        not_checked=_not_checked(live),
        hooks_disabled=hooks_disabled,
        drift=tuple(drift_list),
        live=live,
        impact=impact_list,
        attribution=attribution,
        chart_defaults=tuple(chart_defaults),
    )


def rebuild(plan: Plan, changes: Iterable[ResourceChange] | None = None,
            ignored: Iterable[ResourceChange] | None = None) -> Plan:
    """The same plan with some parts replaced, checked and derived again by `build_plan`. An
    impact about an object whose whole change is now ignored goes with it."""
    ignored = plan.ignored if ignored is None else tuple(ignored)
    gone = {c.resource.identity for c in ignored}
    return build_plan(
        plan.header, plan.helm_action,
        plan.changes if changes is None else changes, plan.tasks, plan.chart_crds, plan.warnings, ignored,
        hooks_disabled=plan.hooks_disabled, drift=plan.drift, live=plan.live,
        impact=[i for i in plan.impact if i.resource.identity not in gone],
        attribution=plan.attribution, chart_defaults=plan.chart_defaults,
    )
