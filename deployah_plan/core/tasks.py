"""The plan's tasks: Helm hooks (each with the phase it runs in on this action, and its
definition's change) and CronJobs (scheduled work, pointing at their resource change).

Pure, like the rest of the core (core/planner.py calls it with the paired documents).
"""
from __future__ import annotations

from typing import Any, Mapping

from deployah_plan.build import HOOK_EVENTS
from deployah_plan.core.diff import LINE_CONTEXT, diff_objects
from deployah_plan.core.lifecycle import task_name
from deployah_plan.kinds import sort_key
from deployah_plan.manifests import Document, Hook
from deployah_plan.model import (
    Action, FieldChange, HelmAction, HookDefinition, Identity, ResourceChange, ResourceRef, TaskAction, TaskPhase,
    TaskPlan,
)


def hook_phase(events: tuple[str, ...], action: HelmAction) -> TaskPhase:
    """The phase a hook belongs to on this action. An install or upgrade shows the deploy hooks
    of both (a pre-install hook sits before an upgrade, marked as not running); rollback,
    delete and test hooks are not part of a deploy, and so on."""
    pre, post = HOOK_EVENTS[action]
    if pre in events:
        return TaskPhase.PRE_DEPLOY
    if post in events:
        return TaskPhase.POST_DEPLOY
    if action in (HelmAction.INSTALL, HelmAction.UPGRADE):
        if "pre-install" in events or "pre-upgrade" in events:
            return TaskPhase.PRE_DEPLOY
        if "post-install" in events or "post-upgrade" in events:
            return TaskPhase.POST_DEPLOY
    return TaskPhase.OTHER


def hook_tasks(
    previous: Mapping[Identity, tuple[ResourceRef, Document]],
    desired: Mapping[Identity, tuple[ResourceRef, Document]],
    action: HelmAction,
    rank: Mapping[str, int],
    context: int = LINE_CONTEXT,
) -> list[TaskPlan]:
    """Hooks as tasks. Helm stores a release's hooks sorted by kind in install order (stable:
    releaseutil sortHooksByKind); that order is each task's `helm_order`, the last tie-breaker
    after weight and name when hooks run."""
    def kind_first(ident: Identity, stream: Mapping[Identity, tuple[ResourceRef, Document]]) -> tuple[tuple[int, str], int]:
        ref, doc = stream[ident]
        return sort_key(ref.kind, rank), doc.position

    order = sorted(desired, key=lambda i: kind_first(i, desired))
    order += sorted((i for i in previous if i not in desired), key=lambda i: kind_first(i, previous))
    tasks: list[TaskPlan] = []
    for helm_order, ident in enumerate(order):
        new, old = desired.get(ident), previous.get(ident)
        ref, doc = new or old  # type: ignore[misc]
        hook: Hook = doc.hook  # type: ignore[assignment]
        fields: list[FieldChange] = []
        if new is None:
            task_action = TaskAction.DELETE
        elif old is None:
            task_action = TaskAction.CREATE
        else:
            fields = diff_objects(old[1].obj, new[1].obj, context)
            task_action = TaskAction.UPDATE if any(not f.equivalent for f in fields) else TaskAction.UNCHANGED
        definition = HookDefinition(
            ref, task_action, old[1].obj if old else None, new[1].obj if new else None, tuple(fields)
        )
        tasks.append(TaskPlan(
            name=task_name(doc.obj, ref),
            phase=hook_phase(hook.events, action),
            action=task_action,
            events=hook.events,
            weight=hook.weight,
            delete_policies=hook.delete_policies or ("before-hook-creation",),
            definitions=(definition,),
            resources=(ref,),
            helm_order=helm_order,
        ))
    return tasks


def schedule_tasks(changes: list[ResourceChange], desired: Mapping[Identity, tuple[ResourceRef, Document]]) -> list[TaskPlan]:
    """CronJobs are scheduled work: a task that points at its resource change (if any)."""
    changed = {c.resource.identity: c for c in changes}
    tasks: list[TaskPlan] = []
    # Each object as declared now (a create's or an update's `after` is the desired object), or
    # as it was for one that leaves.
    declared: list[tuple[ResourceRef, Mapping[str, Any]]] = [(ref, doc.obj) for ref, doc in desired.values()]
    declared += [(c.resource, c.before) for c in changes if c.before is not None and c.action in (Action.DELETE, Action.RETAIN)]
    for ref, obj in declared:
        if ref.kind != "CronJob" or ref.group != "batch":
            continue
        change = changed.get(ref.identity)
        action = {None: TaskAction.UNCHANGED, Action.CREATE: TaskAction.CREATE, Action.UPDATE: TaskAction.UPDATE,
                  Action.DELETE: TaskAction.DELETE, Action.RETAIN: TaskAction.DELETE}[change.action if change else None]
        tasks.append(TaskPlan(task_name(obj, ref), TaskPhase.SCHEDULE, action, (), 0, (), (), (ref,)))
    return tasks
