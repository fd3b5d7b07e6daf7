"""What the writers show, decided once: a presentation model built from the plan.

The plan says what Helm will do; the report decides how a reader sees it, once for text,
markdown and JSON alike (as terraform's jsonformat separates computing the difference from
rendering it): which field changes are common to several objects and said once, what is left
as each object's own, the warnings and predicted failures about each object, why each change
has its action, and whether the live state was read. The writers only word and lay out what
is here (render/words/ holds the words, one module per subject).

Common changes: the same field change (same path, op, before and after) on two or more
updated objects or hook definitions, typically a chart bump's `helm.sh/chart` and
`app.kubernetes.io/version` labels. A pod template's copy of a label
(`/spec/template/metadata/labels/...`, or a CronJob's `/spec/jobTemplate/spec/template/...`)
with the same before and after is the same change as the object's own label. Secret values,
line diffs, inner changes and equivalent quantities are never folded. JSON keeps every field
change and adds the grouping.
"""
from __future__ import annotations

import enum
import json
from typing import Any, Mapping

from msgspec import Struct
from msgspec.structs import replace

from deployah_plan.startup import lazy
from deployah_plan.codes import Code
from deployah_plan.model import (
    Action, Attribution, Cause, FieldChange, FieldOp, HelmAction, HookDefinition, LiveStatus, Ownership, Plan, ResourceChange,
    ResourceRef, Severity,
    TaskAction, TaskPhase, TaskPlan, Warning,
)
from deployah_plan.crd_paths import said_by_summary
from deployah_plan.facts import CrdNotCreated, CrdNotUpgraded
from deployah_plan.impacts import ImpactKind
from deployah_plan.redact import is_secret, sensitive_path
from deployah_plan.render import words
from deployah_plan.render.words import change as change_words
from deployah_plan.render.words import crd as crd_words
from deployah_plan.render.words import impact as impact_words
from deployah_plan.render.words import task as task_words
from deployah_plan.render.highlight import Highlight, Notable
from deployah_plan.render.words import warning as warning_words

# A pod template's labels (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job; CronJob's job template).
_TEMPLATE_LABEL = lazy(r"^/spec(?:/jobTemplate/spec)?/template(/metadata/labels/.+)$")
_Key = tuple[Any, ...]


class Weight(enum.IntEnum):
    """How much an object's details matter to a reviewer, most first: a cut for size (the
    markdown comment) drops the details of the last weight first."""

    ALARM = 0  # a predicted failure or data loss
    NOTABLE = 1  # a delete, an image, RBAC, an admission webhook, a Secret's keys
    OWN = 2  # its own field changes or content: what the values or the chart changed
    COMMON = 3  # only changes said once among the common changes
    SCHEMA = 4  # a CustomResourceDefinition: mostly schema prose


class CommonChange(Struct, frozen=True):
    """One field change said once for every object it is on. `change` is the first object's,
    with the object's own path when a pod template copy folded into it; `paths` names every
    pointer it sits at; `template_copies` counts the objects whose pod template has it."""

    change: FieldChange
    resources: tuple[ResourceRef, ...]
    hooks: tuple[ResourceRef, ...]
    paths: tuple[str, ...]
    template_copies: int
    first: ResourceRef  # the object `change` was taken from (for the Redactor)


class CommonGroup(Struct, frozen=True):
    """Common changes on the same objects, said under one heading."""

    resources: tuple[ResourceRef, ...]
    hooks: tuple[ResourceRef, ...]
    changes: tuple[int, ...]  # indices into Report.common


class ObjectReport(Struct, frozen=True):
    """One resource change as shown: its own field changes (`common[i]` is the index in
    Report.common of `change.fields[i]`, or -1 when it is the object's own). An object of a
    suppressed kind (--suppress) keeps its line but shows no field change and no content:
    `hidden` counts its field changes, `hidden_content` says a created object's content is not
    shown, and it is in no common change."""

    change: ResourceChange
    own: tuple[FieldChange, ...]
    common: tuple[int, ...]
    warnings: tuple[Warning, ...]
    failures: tuple[Warning, ...]
    reasons: tuple[str, ...]
    weight: "Weight"
    # A CRD's change by meaning, in words (render/crd_words.crd_lines): said before its own field
    # changes, which then leave out what these lines say (prose edits counted, properties added
    # or removed named: crd_paths.said_by_summary). JSON keeps every field change.
    notes: tuple[str, ...] = ()
    hidden: int = 0  # field changes not shown: the kind is suppressed (--suppress)
    hidden_content: bool = False  # a created object's content not shown: the kind is suppressed
    # What moved the object, as its line says it (None where not known, or where the plan says
    # once that every change is the chart's); `own` then keeps a field change's cause only where
    # it differs from this.
    cause: Cause | None = None

    @property
    def common_count(self) -> int:
        """How many distinct common changes it has (a label and its pod-template copy are one)."""
        return len({i for i in self.common if i >= 0})

    @property
    def content(self) -> Mapping[str, Any] | None:
        """What a created object contains, shown under its line (None: nothing to show). An
        adopted one shows its field changes from the live object instead."""
        created = self.change.action is Action.CREATE and not _adopts(self.change) and not self.hidden_content
        return self.change.after if created else None


class DefinitionReport(Struct, frozen=True):
    """A hook's definition as shown; a hook of a suppressed kind (--suppress) shows no field
    change and no content, as an object does (ObjectReport)."""

    definition: HookDefinition
    own: tuple[FieldChange, ...]
    common: tuple[int, ...]
    hidden: int = 0
    hidden_content: bool = False

    @property
    def common_count(self) -> int:
        return len({i for i in self.common if i >= 0})

    @property
    def content(self) -> Mapping[str, Any] | None:
        """What a new hook contains, shown under its line (None: nothing to show)."""
        return self.definition.after if _shows_content(self.definition) and not self.hidden_content else None


class TaskReport(Struct, frozen=True):
    task: TaskPlan
    definitions: tuple[DefinitionReport, ...]
    # What moved the hook (core/causes.py), said on its line when the plan places each change;
    # its fields then say theirs where it differs.
    cause: Cause | None = None

    @property
    def common_count(self) -> int:
        return sum(d.common_count for d in self.definitions)

    @property
    def own_count(self) -> int:
        return sum(len(d.own) for d in self.definitions)


class TaskRow(Struct, frozen=True):
    """One entry of a phase as shown: a task, or consecutive hooks that run again (`again` says
    what happens to them, said once). `policy` is said after this row for it and the rows
    before it that share it (`policy_for` of them), so consecutive hooks with the same events
    and delete policy say them once."""

    tasks: tuple[TaskPlan, ...]
    again: str = ""
    policy: str = ""
    policy_for: int = 1


class CauseGroup(Struct, frozen=True):
    """The objects one cause moved (core/causes.py), in the plan's order."""

    cause: Cause
    resources: tuple[ResourceRef, ...]


class Report(Struct, frozen=True):
    plan: Plan
    objects: tuple[ObjectReport, ...]
    ignored: tuple[ObjectReport, ...]
    tasks: tuple[TaskReport, ...]  # in plan.tasks order
    common: tuple[CommonChange, ...]
    groups: tuple[CommonGroup, ...]
    highlights: tuple[Highlight, ...]
    causes: tuple["CauseGroup", ...] = ()  # the changes by what moved them, under "what matters"
    # Each task's report by the identity of the plan's task object (the report holds the plan,
    # so those objects live as long as it does).
    by_task: Mapping[int, TaskReport] = {}

    @property
    def drift_read(self) -> bool:
        """Drift applies only when the live state was read (wholly or in part)."""
        return self.plan.live.status in (LiveStatus.CHECKED, LiveStatus.PARTIAL)

    @property
    def drift_count(self) -> int | None:
        """Drifted objects, or None when drift was not checked (never 0 for "not read")."""
        return len(self.plan.drift) if self.drift_read else None

    @property
    def impact_line(self) -> str:
        """The one line under the plan line: what the deploy does to running things ("" for nothing)."""
        return impact_words.impact_summary(self.plan.impact)

    @property
    def warning_count(self) -> int:
        """What the head counts as warnings: every `!` below it, each once: the warnings that
        predict no failure (a predicted failure is counted as one, apart) and the impacts that
        put running things at risk."""
        warnings = sum(1 for w in self.plan.warnings if w.severity is Severity.WARNING and not w.fails)
        return warnings + sum(1 for item in self.plan.impact if item.kind.sign == "!")

    def phases(self) -> tuple[tuple[TaskPhase, tuple[TaskRow, ...]], ...]:
        """Each phase's rows, in Helm's run order (`Plan.task_groups`). A phase of this action
        lists only the tasks that run in it; every hook that does not run on this action (of
        other events, removed from the chart, or under --no-hooks) is listed last, under
        `TaskPhase.OTHER`: not part of this action."""
        out: list[tuple[TaskPhase, tuple[TaskRow, ...]]] = []
        aside: list[TaskPlan] = []
        for phase, tasks in self.plan.task_groups():
            if phase is TaskPhase.SCHEDULE:
                out.append((phase, self._rows(tasks, phase)))
                continue
            aside += [task for task in tasks if phase is TaskPhase.OTHER or not task.will_run]
            running = tuple(task for task in tasks if phase is not TaskPhase.OTHER and task.will_run)
            if running:
                out.append((phase, self._rows(running, phase)))
        if aside:
            out.append((TaskPhase.OTHER, self._rows(tuple(aside), TaskPhase.OTHER)))
        return tuple(out)

    def _rows(self, tasks: tuple[TaskPlan, ...], phase: TaskPhase) -> tuple[TaskRow, ...]:
        """A phase's tasks as rows: hooks that run again said once, a shared policy once."""
        rows: list[TaskRow] = []
        for task in tasks:
            again = task_words.again_note(task, phase)
            if again:
                if rows and rows[-1].again == again:
                    rows[-1] = TaskRow(rows[-1].tasks + (task,), again)
                else:
                    rows.append(TaskRow((task,), again))
                continue
            policy = task_words.task_policy(task)
            last = rows[-1] if rows else None
            shown = self.task(last.tasks[0]).definitions if last is not None else ()
            if (policy and last is not None and not last.again and last.policy == policy
                    and not any(d.own or d.content or d.hidden or d.hidden_content for d in shown)):
                rows[-1] = TaskRow(last.tasks, policy="", policy_for=0)
                rows.append(TaskRow((task,), policy=policy, policy_for=last.policy_for + 1))
            else:
                rows.append(TaskRow((task,), policy=policy))
        return tuple(rows)

    def task(self, task: TaskPlan) -> TaskReport:
        """The report of one of the plan's tasks (as `Plan.task_groups` hands them out)."""
        return self.by_task[id(task)]

    @classmethod
    def of(cls, plan: Plan, fold: bool = True, suppress: frozenset[str] = frozenset()) -> "Report":
        """The report of a plan; `fold=False` keeps every field change under its object; the
        field changes of objects whose kind is in `suppress` are counted, not shown."""
        index, keyed = _common_index(plan, suppress) if fold else ({}, {})
        keys = list(index)
        common = tuple(index[k] for k in keys)
        position = {k: n for n, k in enumerate(keys)}

        def split(ref: ResourceRef, fields: tuple[FieldChange, ...]) -> tuple[tuple[FieldChange, ...], tuple[int, ...]]:
            marks = []
            for f in fields:
                key = keyed.get(id(f))
                marks.append(position.get(key, -1) if key is not None else -1)
            return tuple(f for f, m in zip(fields, marks) if m < 0), tuple(marks)

        about: dict[tuple[str, str, str, str], list[Warning]] = {}
        for w in plan.warnings:  # once, not once per object: a plan may hold thousands of each
            if w.resource is not None:
                about.setdefault(w.resource.identity, []).append(w)

        shown = plan.attribution is Attribution.RENDERED

        def object_report(change: ResourceChange, folded: bool) -> ObjectReport:
            own, marks = split(change.resource, change.fields) if folded else (change.fields, (-1,) * len(change.fields))
            cause = change.cause if shown else None
            own = tuple(f if f.cause is None or (shown and f.cause is not cause) else replace(f, cause=None) for f in own)
            warnings = tuple(about.get(change.resource.identity, ()))
            failures = tuple(w for w in warnings if w.fails)
            notes: tuple[str, ...] = ()
            if folded and change.crd_schema is not None:
                own = tuple(f for f in own if not said_by_summary(f))
                notes = tuple(crd_words.crd_lines(change.crd_schema))
            if change.resource.kind in suppress:
                return ObjectReport(change, (), marks, warnings, failures, _reasons(change, plan),
                                    _weight(change, own, warnings), notes, hidden=len(own),
                                    hidden_content=change.action is Action.CREATE and bool(change.after) and not _adopts(change))
            return ObjectReport(change, own, marks, warnings, failures, _reasons(change, plan),
                                _weight(change, own, warnings), notes, cause=cause)

        tasks = []
        for task in plan.tasks:
            defs = []
            for d in task.definitions:
                own, marks = split(d.resource, d.fields)
                # A hook's field says its cause where it differs from the hook's (core/causes.py).
                own = tuple(f if f.cause is None or (shown and f.cause is not d.cause) else replace(f, cause=None)
                            for f in own)
                if d.resource.kind in suppress:
                    defs.append(DefinitionReport(d, (), marks, hidden=len(own), hidden_content=_shows_content(d)))
                else:
                    defs.append(DefinitionReport(d, own, marks))
            causes = {d.cause for d in task.definitions if d.cause is not None}
            tasks.append(TaskReport(task, tuple(defs), (causes.pop() if len(causes) == 1 else Cause.BOTH)
                                    if shown and causes else None))
        groups: dict[tuple[tuple[ResourceRef, ...], tuple[ResourceRef, ...]], list[int]] = {}
        for n, item in enumerate(common):
            groups.setdefault((item.resources, item.hooks), []).append(n)
        return cls(
            plan=plan,
            objects=tuple(object_report(c, True) for c in plan.changes),
            ignored=tuple(object_report(c, False) for c in plan.ignored),
            tasks=tuple(tasks),
            common=common,
            groups=tuple(CommonGroup(r, h, tuple(ns)) for (r, h), ns in groups.items()),
            highlights=_highlights(plan, suppress),
            causes=_cause_groups(plan) if shown else (),
            by_task={id(item.task): item for item in tasks},
        )


def _cause_groups(plan: Plan) -> tuple[CauseGroup, ...]:
    """The changed objects by cause: an update under each cause of its field changes (one that
    the chart moved in one field and the values in another is under both), a create or delete
    under its own."""
    by: dict[Cause, list[ResourceRef]] = {cause: [] for cause in Cause}
    for change in plan.changes:
        found = ({f.cause for f in change.fields if f.cause is not None} if change.action is Action.UPDATE
                 else {change.cause} if change.cause is not None else set())
        for cause in Cause:
            if cause in found:
                by[cause].append(change.resource)
    return tuple(CauseGroup(cause, tuple(refs)) for cause, refs in by.items() if refs)


def _adopts(change: ResourceChange) -> bool:
    """A create Helm adopts: its field changes are from the live object (core/adoption.py)."""
    return change.action is Action.CREATE and change.ownership is Ownership.ADOPT


def _shows_content(definition: HookDefinition) -> bool:
    """A new hook shows what it contains under its line (as a created object does)."""
    return definition.action is TaskAction.CREATE and bool(definition.after)


def _canonical(value: Any) -> Any:
    """A hashable stand-in for a value: equal for equal values (a bool is not an int)."""
    if value is None or isinstance(value, (str, int, float)):
        return (type(value).__name__, value)
    return json.dumps(value, sort_keys=True, default=str)


def _selects(path: str) -> bool:
    """A field that decides which objects this one acts on: a Service's `spec.selector`, a
    workload's `spec.selector.matchLabels` (a PodDisruptionBudget's, a monitor's). Its change is
    never folded into common changes: each object is named with its own (a Service whose new
    selector meets none of the running pods loses its endpoints)."""
    return path == "/spec/selector" or path.startswith("/spec/selector/")


def _key(ref: ResourceRef, change: FieldChange) -> _Key | None:
    """What makes two field changes the same change, or None when this one is never folded."""
    if change.lines or change.parts or change.equivalent or sensitive_path(ref, change.path) or _selects(change.path):
        return None
    match = _TEMPLATE_LABEL.match(change.path)
    path = match.group(1) if match else change.path
    return (path, change.op.value, _canonical(change.before), _canonical(change.after),
            _canonical([[p, dict(k)] for p, k in change.keys]) if change.keys else "")


def _common_index(plan: Plan, suppress: frozenset[str] = frozenset()) -> tuple[dict[_Key, CommonChange], dict[int, _Key]]:
    """Every field change found on two or more objects (not of a suppressed kind), in order of
    first appearance; and the key of each field change that can fold, by the identity of the
    FieldChange object."""
    seen: dict[_Key, list[tuple[ResourceRef, bool, FieldChange]]] = {}
    keyed: dict[int, _Key] = {}
    objects: list[tuple[ResourceRef, bool, tuple[FieldChange, ...]]] = [
        (c.resource, False, c.fields) for c in plan.changes
        if c.action is Action.UPDATE and c.resource.kind not in suppress]
    objects += [(d.resource, True, d.fields) for t in plan.tasks for d in t.definitions
                if d.action is TaskAction.UPDATE and d.resource.kind not in suppress]
    for ref, is_hook, fields in objects:
        for f in fields:
            key = _key(ref, f)
            if key is not None:
                seen.setdefault(key, []).append((ref, is_hook, f))
                keyed[id(f)] = key
    out: dict[_Key, CommonChange] = {}
    for key, hits in seen.items():
        refs = list(dict.fromkeys((ref.identity, is_hook) for ref, is_hook, _ in hits))
        if len(refs) < 2:
            continue
        first_ref, _, first = hits[0]
        by_ident = {(ref.identity, is_hook): ref for ref, is_hook, _ in hits}
        # A label changed on the objects themselves, copies in their pod templates counted apart;
        # where only pod templates changed, the change is shown at the template's own path.
        own = any(f.path == key[0] for _, _, f in hits)
        templates = {ref.identity for ref, _, f in hits if f.path != key[0]} if own else set()
        out[key] = CommonChange(
            change=FieldChange(key[0] if own else first.path, first.op, first.before, first.after, keys=first.keys),
            resources=tuple(by_ident[r] for r in refs if not r[1]),
            hooks=tuple(by_ident[r] for r in refs if r[1]),
            paths=tuple(dict.fromkeys(f.path for _, _, f in hits)),
            template_copies=len(templates),
            first=first_ref,
        )
    return out, keyed


_RBAC = "rbac.authorization.k8s.io"
_WEBHOOKS = ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")
# A container's image, in any pod spec (Pod, a template, a CronJob's job template).
_IMAGE = lazy(r"^(.*/(?:initContainers|containers|ephemeralContainers)/\d+)(/image)?$")
_POD_SPECS = (("spec",), ("spec", "template", "spec"), ("spec", "jobTemplate", "spec", "template", "spec"))


def _is_rbac(ref: ResourceRef) -> bool:
    return ref.group == _RBAC and ref.kind in ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding")


def _is_webhook(ref: ResourceRef) -> bool:
    return ref.group == "admissionregistration.k8s.io" and ref.kind in _WEBHOOKS


def _is_crd(ref: ResourceRef) -> bool:
    return ref.group == "apiextensions.k8s.io" and ref.kind == "CustomResourceDefinition"


def _touched(fields: tuple[FieldChange, ...]) -> tuple[str, ...]:
    """The top-level fields a change touches, metadata aside ("rules", "webhooks")."""
    tops = (f.path.split("/")[1].replace("~1", "/").replace("~0", "~") for f in fields if f.path.count("/") >= 1)
    return tuple(dict.fromkeys(t for t in tops if t and t != "metadata"))


def _name(value: Any) -> str:
    """A container's name as written (a YAML 1.1 `n` is the boolean false)."""
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _image_changes(fields: tuple[FieldChange, ...]) -> list[tuple[Any, Any, str]]:
    """(before, after, container) of each image an update changes or a new container brings."""
    out = []
    for f in fields:
        match = _IMAGE.match(f.path)
        if not match or f.op not in (FieldOp.REPLACE, FieldOp.ADD):
            continue
        key = dict(f.keys).get(match.group(1), {})
        if match.group(2):
            out.append((f.before, f.after, _name(key.get("name", ""))))
        elif isinstance(f.after, dict) and "image" in f.after:
            out.append((None, f.after["image"], _name(f.after.get("name", ""))))
    return out


def _pod_images(obj: Mapping[str, Any] | None) -> list[tuple[Any, Any, str]]:
    """(None, image, container) of every container of a new object's pod spec."""
    out: list[tuple[Any, Any, str]] = []
    for path in _POD_SPECS:
        spec: Any = obj
        for key in path:
            spec = spec.get(key) if isinstance(spec, Mapping) else None
        if not isinstance(spec, Mapping):
            continue
        for group in ("initContainers", "containers"):
            for container in spec.get(group) or ():
                if isinstance(container, Mapping) and "image" in container:
                    out.append((None, container["image"], _name(container.get("name", ""))))
    return out


def _meant(fields: tuple[FieldChange, ...]) -> tuple[FieldChange, ...]:
    """The field changes the values or the chart meant: not those the chart regenerates on every
    render (a random password, a timestamp), which weigh as common changes and are not news."""
    return tuple(f for f in fields if not f.regenerated)


def _secret_keys(change: ResourceChange) -> tuple[str, ...]:
    """A Secret's data keys an update adds, removes or changes: "key (added)"; never a value
    (a regenerated one left out)."""
    out = []
    for f in _meant(change.fields):
        parts = f.path.split("/")
        done = {FieldOp.ADD: "added", FieldOp.REMOVE: "removed"}.get(f.op, "changed")
        if len(parts) == 3 and parts[1] in ("data", "stringData"):
            out.append(f"{parts[2].replace('~1', '/').replace('~0', '~')} ({done})")
        elif len(parts) == 2 and parts[1] in ("data", "stringData"):
            out.append(f"all {parts[1]} keys ({done})")
    return tuple(dict.fromkeys(out))


def _weight(change: ResourceChange, own: tuple[FieldChange, ...], warnings: tuple[Warning, ...]) -> Weight:
    """How much the object's details matter (see Weight). A field change the chart regenerates
    on every render (marked `regenerated`) weighs as a common one."""
    ref = change.resource
    own = _meant(own)
    if any(w.fails or w.code is Code.DATA_LOSS for w in warnings):
        return Weight.ALARM
    if change.action in (Action.DELETE, Action.RETAIN):
        return Weight.NOTABLE
    if _is_crd(ref):
        return Weight.SCHEMA
    if change.action is Action.CREATE and not _adopts(change):
        return Weight.NOTABLE if _is_rbac(ref) or _is_webhook(ref) else Weight.OWN
    if _image_changes(_meant(change.fields)):
        return Weight.NOTABLE
    if own and (_is_rbac(ref) or _is_webhook(ref) or (is_secret(ref) and _secret_keys(change))):
        return Weight.NOTABLE
    return Weight.OWN if own else Weight.COMMON


def _highlights(plan: Plan, suppress: frozenset[str] = frozenset()) -> tuple[Highlight, ...]:
    """What matters most, said before the details: predicted failures, data loss, every other
    warning (severity warning: each asks the reviewer to act), running things at risk (the
    impacts marked `!`), then deletes, images, RBAC, admission webhooks and Secrets' keys
    (values the chart regenerates on every render left out). Warnings are said a group a line
    (render/words/warning.grouped), impacts a kind a line. A hook's images count only when it runs on this action (not a `helm test`
    Pod, nor a post-install Job on an upgrade). What is read from the fields or content of an
    object of a suppressed kind (its images, its touched fields, its Secret keys) is left out,
    as under the object itself; its warnings and its delete are not."""
    out = _warning_highlights(plan)
    alarmed = {r.identity for h in out if h.what in (Notable.FAILURE, Notable.DATA_LOSS) for r in h.resources}
    out += _risk_highlights(plan, alarmed)
    for action in (Action.DELETE, Action.RETAIN):
        gone = tuple(c.resource for c in plan.changes if c.action is action)
        if gone:
            out.append(Highlight(Notable.DELETE, words.SIGN[action], gone))
    # One line per image bump, naming every object and container it is in.
    images: dict[tuple[Any, Any], tuple[Any, Any, list[tuple[ResourceRef, str]]]] = {}
    objects = [(c.resource, c.action is Action.CREATE and not _adopts(c), c.action is Action.UPDATE or _adopts(c),
                c.after, c.fields) for c in plan.changes if c.resource.kind not in suppress]
    objects += [(d.resource, d.action is TaskAction.CREATE, d.action is TaskAction.UPDATE, d.after, d.fields)
                for t in plan.tasks if t.will_run for d in t.definitions if d.resource.kind not in suppress]
    for ref, new, updated, after_obj, fields in objects:
        found = _pod_images(after_obj) if new else _image_changes(_meant(fields)) if updated else []
        for before, after, container in found:
            entry = images.setdefault((_canonical(before), _canonical(after)), (before, after, []))
            entry[2].append((ref, container))
    for before, after, hits in images.values():
        out.append(Highlight(Notable.IMAGE, "+" if before is None else "~", tuple(r for r, _ in hits),
                             before, after, tuple(c for _, c in hits)))
    for what, test in ((Notable.RBAC, _is_rbac), (Notable.WEBHOOK, _is_webhook)):
        created = tuple(c.resource for c in plan.changes if c.action is Action.CREATE and test(c.resource))
        if created:
            out.append(Highlight(what, "+", created))
        for change in plan.changes:
            touched = _touched(_meant(change.fields))
            if change.action is Action.UPDATE and test(change.resource) and touched and change.resource.kind not in suppress:
                out.append(Highlight(what, "~", (change.resource,), detail=touched))
    for change in plan.changes:
        if (change.action is Action.UPDATE and is_secret(change.resource) and change.resource.kind not in suppress
                and _secret_keys(change)):
            out.append(Highlight(Notable.SECRET, "~", (change.resource,), detail=_secret_keys(change)))
    return tuple(out)


def _named(warning: Warning) -> str:
    """What a warning of a group is about, as "what matters" names it: a chart CRD by its name,
    else its object."""
    if isinstance(warning.facts, (CrdNotUpgraded, CrdNotCreated)):
        return warning.facts.name
    return str(warning.resource) if warning.resource is not None else ""


def _warning_highlights(plan: Plan) -> list[Highlight]:
    """Predicted failures (X), then data loss, then the other warnings (!), a group a line."""
    failures = [w for w in plan.warnings if w.fails]
    losses = [w for w in plan.warnings if w.code is Code.DATA_LOSS and not w.fails]
    others = [w for w in plan.warnings if w.severity is Severity.WARNING and not w.fails and w.code is not Code.DATA_LOSS]
    out = []
    for what, sign, found in ((Notable.FAILURE, "X", failures), (Notable.DATA_LOSS, "!", losses),
                              (Notable.WARNING, "!", others)):
        for group in warning_words.grouped(found):
            named = tuple(_named(w) for w in group) if len(group) > 1 else ()
            out.append(Highlight(what, sign, tuple(w.resource for w in group if w.resource is not None),
                                 detail=(warning_words.group_message(group), *named), warnings=group))
    return out


def _risk_highlights(plan: Plan, alarmed: set[tuple[str, str, str, str]]) -> list[Highlight]:
    """Running things at risk (an impact marked `!`), a kind a line naming the objects. Left
    out: a risk to an object a predicted failure or a data loss is already said of (`alarmed`,
    identities: the upgrade fails, or the data goes, first), and what only values the chart
    regenerates on every render drive."""
    kinds: dict[ImpactKind, list[ResourceRef]] = {}
    for item in plan.impact:
        if item.kind.sign == "!" and not item.regenerated and item.resource.identity not in alarmed:
            kinds.setdefault(item.kind, []).append(item.resource)
    return [Highlight(Notable.RISK, "!", tuple(refs), detail=(kind.value,)) for kind, refs in kinds.items()]


def _reasons(change: ResourceChange, plan: Plan) -> tuple[str, ...]:
    """Why the change has its action, in words."""
    if change.action is Action.CREATE:
        return ("a new release" if plan.helm_action is HelmAction.INSTALL else "not in the previous release",)
    if change.action in (Action.DELETE, Action.RETAIN) and plan.helm_action is HelmAction.UNINSTALL:
        if change.action is Action.DELETE:
            return ("the release is uninstalled",)
        unowned = change.ownership in (Ownership.UNOWNED, Ownership.OTHER_RELEASE)
        return ("the release is uninstalled", "not owned by this release" if unowned else "helm.sh/resource-policy: keep")
    if change.action is Action.DELETE:
        return ("not in the desired release",)
    if change.action is Action.RETAIN:
        return ("not in the desired release", "helm.sh/resource-policy: keep")
    n = len(change.fields)
    out = [f"{n} field change{'s' if n != 1 else ''}"]
    if change.ignored_fields:
        out.append(change_words.ignored_note(change))
    return tuple(out)


__all__ = ["CommonChange", "CommonGroup", "DefinitionReport", "Highlight", "Notable", "ObjectReport", "Report",
           "TaskReport", "TaskRow", "Weight"]
