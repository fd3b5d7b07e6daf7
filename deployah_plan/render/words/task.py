"""Tasks (Helm hooks and CronJobs) in words: the phase titles, each task's run line and policy,
and a hook that runs again."""
from __future__ import annotations

from typing import Iterable

from deployah_plan.build import HOOK_EVENTS
from deployah_plan.model import HelmAction, Plan, TaskAction, TaskPhase, TaskPlan
from deployah_plan.render.words.plan import VERB, action_text


def policy_text(policy: str, rows: int) -> str:
    """A delete policy said once for the `rows` hooks above it."""
    return policy if rows < 2 else f"these {rows} hooks: {policy}"


def again_text(names: list[str], weights: list[int], again: str) -> str:
    """Hooks shown again in a second phase, in one line."""
    weight = f"  weight {weights[0]}" if len(set(weights)) == 1 else ""
    listed = ", ".join(names if weight else [f"{n} (weight {w})" for n, w in zip(names, weights)])
    return f"{listed}{weight}  {again}"


POLICY_MEANING = {
    "before-hook-creation": "the old hook object is deleted before the new one is created",
    "hook-succeeded": "deleted once it succeeds",
    "hook-failed": "deleted if it fails",
}
TASK_SIGN = {TaskAction.CREATE: "+", TaskAction.UPDATE: "~", TaskAction.DELETE: "-", TaskAction.UNCHANGED: " "}
_EVENT_OF = {TaskPhase.PRE_DEPLOY: "pre", TaskPhase.POST_DEPLOY: "post"}


def _event(plan: Plan) -> str:
    return "delete" if plan.helm_action is HelmAction.UNINSTALL else VERB[plan.helm_action]


def phase_title(phase: TaskPhase, plan: Plan, tasks: Iterable[TaskPlan] = ()) -> str:
    """A phase's title. The phases of this action list only what runs in them; the hooks that
    do not run on it are listed apart, last, under a title that says why (`tasks`: them)."""
    verb = VERB[plan.helm_action]
    event = _event(plan)
    return {
        TaskPhase.PRE_DEPLOY: f"Before the {verb} (pre-{event} hooks):",
        TaskPhase.POST_DEPLOY: f"After the {verb} (post-{event} hooks):",
        TaskPhase.SCHEDULE: "Scheduled (CronJobs, applied as resources above):",
        TaskPhase.OTHER: f"Not run by this {verb}{_why_not(plan, tasks)}:",
    }[phase]


def _why_not(plan: Plan, tasks: Iterable[TaskPlan]) -> str:
    """Why the hooks listed apart do not run on this action, each reason once: " (hooks of
    other events)"."""
    own = set(HOOK_EVENTS[plan.helm_action])
    why = []
    for task in tasks:
        if task.action is TaskAction.DELETE:
            why.append("hooks removed from the chart")
        elif plan.hooks_disabled and own.intersection(task.events):
            why.append("--no-hooks")
        else:
            why.append("hooks of other events")
    return f" ({'; '.join(dict.fromkeys(why))})" if why else ""


def run_label(task: TaskPlan, plan: Plan) -> str:
    if task.phase is TaskPhase.SCHEDULE:
        return ""
    if task.action is TaskAction.DELETE:
        return "removed from the chart, will not run"
    if task.will_run:
        if len(task.runs_in) > 1:
            return "will run " + " and ".join(_EVENT_OF[p] + "-" + _event(plan) for p in task.runs_in)
        return "will run"
    if task.events == ("test",):
        return "runs only under helm test"
    if plan.hooks_disabled:
        return "will not run (--no-hooks)"
    return f"will not run on {VERB[plan.helm_action]} (events: {','.join(task.events)})"


def task_parts(task: TaskPlan, plan: Plan, own: int, common: int) -> list[str]:
    """The words of a task's line: name, weight, whether it runs, action (and how many of its
    definition changes are said once among the common changes)."""
    parts = [f"{task.name}"]
    if task.phase is not TaskPhase.SCHEDULE:
        parts.append(f"weight {task.weight}")
    label = run_label(task, plan)
    if label:
        parts.append(label)
    if task.phase is not TaskPhase.SCHEDULE and not task.will_run and task.action is not TaskAction.UNCHANGED:
        action = STORED[task.action]  # changes only what the release stores
    else:
        action = task.action.value
    parts.append(f"({action_text(action, own, common)})")
    return parts


STORED = {TaskAction.CREATE: "definition added", TaskAction.UPDATE: "definition changed",
          TaskAction.DELETE: "definition removed"}


def task_policy(task: TaskPlan) -> str:
    """A hook's events and delete policies, with what each policy means ("" for other tasks)."""
    if task.phase not in (TaskPhase.PRE_DEPLOY, TaskPhase.POST_DEPLOY) or task.action is TaskAction.DELETE:
        return ""
    meanings = [f"{p}: {POLICY_MEANING[p]}" if p in POLICY_MEANING else p for p in task.delete_policies]
    return f"events {','.join(task.events)}; delete policy " + "; ".join(meanings)


def again_note(task: TaskPlan, phase: TaskPhase) -> str:
    """For a hook shown a second time (it runs in two phases): what happens, once."""
    if len(task.runs_in) < 2 or phase is task.runs_in[0]:
        return ""
    recreate = ("deleted and created again (before-hook-creation)" if "before-hook-creation" in task.delete_policies
                else "created again")
    return f"runs again: {recreate}; see above"
