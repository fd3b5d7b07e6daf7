"""Unit tests of deployah_plan/render/words/ (plan, change, task, drift, crd, impact): the sentences text and markdown share about a plan.

The wording is what the docs document (docs/plan.md and docs/output.md: "What the plan says", "Output for reviews and bots"):
the summary line counts creates, updates, deletes, kept objects, hooks that run apart from hook
definitions only stored, values the chart regenerates, drift set back, ignored changes and
predicted failures; objects are named `Kind ns/name` or `Kind name`; a hook says its weight,
whether it runs on this action and why not, and what its delete policy means; drift says what
this deploy does about it; a chart CRD says that Helm will not upgrade it. Plans are built
directly from the model (no helm, no cluster)."""
from __future__ import annotations

from typing import Any

import pytest

from deployah_plan.codes import Code
from deployah_plan.facts import DataLoss, Field, Immutable, Loss, OwnershipCheck, SsaConflict
from deployah_plan.impacts import ImpactKind
from deployah_plan.model import (
    Action, CRDLifecycle, CRDSchemaChange, CRDSummary, ChartCRD, DriftChange, DriftEffect, DriftKind, DriftReason,
    Header, HelmAction, Impact, Ownership, Plan, ResourceChange, ResourceRef, Summary, TaskAction, TaskPhase, TaskPlan,
    warn,
)
from deployah_plan.render.words import change as change_words
from deployah_plan.render.words import crd as crd_words
from deployah_plan.render.words import drift as drift_words
from deployah_plan.render.words import impact as impact_words
from deployah_plan.render.words import plan as plan_words
from deployah_plan.render.words import task as task_words

WEB = ResourceRef("apps/v1", "Deployment", "shop", "web")
OLD = ResourceRef("apps/v1", "Deployment", "shop", "old")
AGENT = ResourceRef("apps/v1", "DaemonSet", "kube-system", "agent")
READER = ResourceRef("rbac.authorization.k8s.io/v1", "ClusterRole", "", "reader")


def _plan(action: HelmAction = HelmAction.UPGRADE, *, header: Header | None = None, hooks_disabled: bool = False,
          crds: tuple[ChartCRD, ...] = (), **summary: int) -> Plan:
    return Plan(header or Header("shop", "prod", revision=4, previous_revision=3), action, (), (), crds, (),
                Summary(**summary), hooks_disabled=hooks_disabled)


# -- the summary line --------------------------------------------------------------------------------

def test_the_plan_line_counts_what_changes() -> None:
    assert plan_words.summary_text(_plan(create=1, update=2, delete=3)) == "Plan: 1 to create, 2 to update, 3 to delete."
    assert plan_words.summary_text(_plan(create=1, retain=2)) == "Plan: 1 to create, 0 to update, 0 to delete, 2 to keep."
    assert plan_words.summary_text(_plan(update=1, ignored=4)) == "Plan: 0 to create, 1 to update, 0 to delete. 4 ignored."
    assert plan_words.summary_text(_plan(update=1, drift_reverted=1)) == (
        "Plan: 0 to create, 1 to update, 0 to delete. 1 drifted object set back to the chart.")
    assert plan_words.summary_text(_plan(update=2, drift_reverted=2)).endswith(" 2 drifted objects set back to the chart.")
    assert plan_words.summary_text(_plan(update=1, regenerated=1)) == (
        "Plan: 0 to create, 1 to update, 0 to delete. 1 update only changes values the chart generates anew on "
        "every render (random values, certificates, timestamps).")
    assert plan_words.summary_text(_plan(update=3, regenerated=2)).endswith(
        " 2 updates only change values the chart generates anew on every render (random values, certificates, "
        "timestamps).")
    # An adopted object is a create in the model, an update of the live object in Helm: not created.
    assert plan_words.summary_text(_plan(HelmAction.INSTALL, create=3, adopted=1)) == (
        "Plan: 2 to create, 1 to adopt, 0 to update, 0 to delete.")


def test_an_uninstall_with_nothing_left_to_delete_says_the_record_goes() -> None:
    """Every object gone already and no hook: helm uninstall still deletes the
    release's record (or, --keep-history, marks it uninstalled): a change, said in the plan line."""
    from deployah_plan.facts import HistoryDeleted, KeepHistory
    header = Header("shop", "prod", revision=3, previous_revision=3)

    def uninstall(*notes: Any, **summary: int) -> Plan:
        return Plan(header, HelmAction.UNINSTALL, (), (), (), tuple(warn(n) for n in notes), Summary(**summary))

    gone = uninstall(HistoryDeleted())
    assert gone.has_changes
    assert plan_words.summary_text(gone) == (
        "Plan: 0 to create, 0 to update, 0 to delete. Only the release's record goes, its history with it.")
    assert plan_words.summary_text(uninstall(KeepHistory(revision=3))).endswith(
        " Only the release's record changes: it is kept, marked uninstalled (--keep-history).")
    assert plan_words.summary_text(uninstall(HistoryDeleted(), delete=1)) == "Plan: 0 to create, 0 to update, 1 to delete."
    assert "record" not in plan_words.summary_text(uninstall(HistoryDeleted(), hooks_run=1))


def test_the_plan_line_says_what_the_hooks_do() -> None:
    assert plan_words.summary_text(_plan(update=1, hooks_run=1)) == "Plan: 0 to create, 1 to update, 0 to delete. 1 hook runs."
    assert plan_words.summary_text(_plan(update=1, hooks_run=2, hooks_changed=1)) == (
        "Plan: 0 to create, 1 to update, 0 to delete. 2 hooks run (1 changed).")
    assert plan_words.hooks_text(_plan(hooks_stored=1)) == (
        "1 hook definition changes without running on upgrade (stored in the release).")
    assert plan_words.hooks_text(_plan(HelmAction.INSTALL, hooks_run=1, hooks_stored=2)) == (
        "1 hook runs; 2 hook definitions change without running on install (stored in the release).")
    assert plan_words.hooks_text(_plan()) == ""
    assert plan_words.summary_text(_plan(update=1, hooks_stored=1)) == (
        "Plan: 0 to create, 1 to update, 0 to delete. 1 hook definition changes without running on upgrade "
        "(stored in the release).")


def test_predicted_failures_and_unapplied_chart_crds_end_the_plan_line() -> None:
    assert plan_words.failures_text(_plan()) == ""
    assert plan_words.failures_text(_plan(failures=1)) == "1 predicted failure: this upgrade would fail."
    assert plan_words.failures_text(_plan(HelmAction.ROLLBACK, failures=2)) == "2 predicted failures: this rollback would fail."
    changed = ChartCRD("crds/a.yaml", "a.example.com", CRDLifecycle.NOT_ON_UPGRADE, chart_changed=True)
    same = ChartCRD("crds/b.yaml", "b.example.com", CRDLifecycle.NOT_ON_UPGRADE, chart_changed=False)
    assert plan_words.crds_text(_plan(crds=(changed, same))) == (
        "1 chart CRD changed that Helm will not apply (see the warnings).")
    assert plan_words.crds_text(_plan(crds=(changed, changed))).startswith("2 chart CRDs changed")
    assert plan_words.crds_text(_plan(crds=(same,))) == ""
    assert plan_words.summary_text(_plan(update=1, failures=1, crds=(changed,))) == (
        "Plan: 0 to create, 1 to update, 0 to delete. 1 chart CRD changed that Helm will not apply (see the "
        "warnings). 1 predicted failure: this upgrade would fail.")


def test_no_changes_still_says_what_an_upgrade_would_record_and_run() -> None:
    none = HelmAction.NONE
    assert plan_words.summary_text(_plan(none)) == "No changes. helm upgrade would still record revision 4."
    assert plan_words.summary_text(_plan(none, hooks_run=1)) == (
        "No changes. helm upgrade would still record revision 4 and run 1 upgrade hook.")
    assert plan_words.summary_text(_plan(none, hooks_run=2, failures=1)) == (
        "No changes. helm upgrade would still record revision 4 and run 2 upgrade hooks. "
        "1 predicted failure: this upgrade would fail.")
    files = Header("diff", "default")  # `helm plan diff`: no stored revision
    assert plan_words.summary_text(_plan(none, header=files)) == "No changes."
    assert plan_words.summary_text(_plan(none, header=files, hooks_run=2)) == "No changes. An upgrade would still run 2 upgrade hooks."
    assert plan_words.summary_text(_plan(none, header=files, hooks_run=1)) == "No changes. An upgrade would still run 1 upgrade hook."
    assert plan_words.summary_text(_plan(none, header=files, failures=1)) == (
        "No changes to the release. 1 predicted failure: this upgrade would fail.")


# -- the header ----------------------------------------------------------------------------------------

def test_the_header_of_an_upgrade() -> None:
    header = Header("shop", "prod", kube_context="kind", revision=4, chart_name="shop", chart_version="1.1.0",
                    previous_revision=3, previous_chart="shop-1.0.0", helm_version="v3.19.0", rendered_by="template")
    assert plan_words.header_lines(_plan(header=header)) == [
        "helm plan: upgrade release shop in namespace prod (context kind)",
        "chart shop 1.1.0, from shop-1.0.0 at revision 3; this would create revision 4",
        "desired state rendered by helm template (offline), Helm v3.19.0",
    ]
    bare = Header("shop", "prod", revision=4, previous_revision=3, rendered_by="server")
    assert plan_words.header_lines(_plan(header=bare)) == [
        "helm plan: upgrade release shop in namespace prod",
        "chart (unknown) at revision 3; this would create revision 4",
        "desired state rendered by helm upgrade --dry-run=server",
    ]


def test_the_header_of_an_install_a_diff_and_other_renders() -> None:
    fresh = Header("shop", "prod", revision=1, fresh_install=True, chart_name="shop", chart_version="1.0.0",
                   rendered_by="files")
    assert plan_words.header_lines(_plan(HelmAction.INSTALL, header=fresh))[1:] == [
        "chart shop 1.0.0; a fresh install, creating revision 1", "desired state rendered by the given files"]
    nameless = Header("shop", "prod", fresh_install=True, rendered_by="kustomize")
    assert plan_words.header_lines(_plan(HelmAction.INSTALL, header=nameless))[1:] == [
        "chart (unknown); a fresh install, creating revision 1", "desired state rendered by kustomize"]
    files = Header("diff", "default", rendered_by="files")
    assert plan_words.header_lines(_plan(header=files)) == [
        "helm plan: upgrade release diff in namespace default", "an upgrade from the given previous manifest",
        "desired state rendered by the given files"]


def test_the_header_of_a_rollback_and_an_uninstall() -> None:
    back = Header("shop", "prod", revision=6, chart_name="shop", chart_version="1.0.0", previous_revision=5,
                  previous_chart="shop-1.1.0", rollback_to=3, helm_version="v4.3.1")
    assert plan_words.header_lines(_plan(HelmAction.ROLLBACK, header=back)) == [
        "helm plan: rollback release shop in namespace prod",
        "from revision 5 (shop-1.1.0) back to revision 3 (shop-1.0.0); this would create revision 6",
    ]
    unknown = Header("shop", "prod", revision=6, previous_revision=5, rollback_to=3)
    assert plan_words.header_lines(_plan(HelmAction.ROLLBACK, header=unknown))[1] == (
        "from revision 5 (unknown chart) back to revision 3 (unknown chart); this would create revision 6")
    gone = Header("shop", "prod", previous_revision=5, previous_chart="shop-1.1.0")
    assert plan_words.header_lines(_plan(HelmAction.UNINSTALL, header=gone)) == [
        "helm plan: uninstall release shop in namespace prod",
        "chart shop-1.1.0 at revision 5: every resource of the release is removed",
    ]
    assert plan_words.header_lines(_plan(HelmAction.UNINSTALL, header=Header("shop", "prod", previous_revision=5)))[1] == (
        "chart (unknown) at revision 5: every resource of the release is removed")
    assert plan_words.resources_title(_plan(HelmAction.UNINSTALL)) == "Resources, in the order Helm deletes them:"
    assert plan_words.resources_title(_plan()) == "Resources, in the order Helm applies them:"


# -- common changes and objects ------------------------------------------------------------------------

def test_common_changes_are_said_once_with_the_objects_they_are_on() -> None:
    assert plan_words.common_heading(13, 7) == "on 13 resources and 7 hooks"
    assert plan_words.common_heading(1, 0) == "on 1 resource"
    assert plan_words.common_heading(0, 1) == "on 1 hook"
    assert plan_words.common_title() == "Common changes (said once here, not under each object):"
    assert plan_words.common_title("on 2 resources") == "Common changes on 2 resources (said once here, not under each object):"
    assert plan_words.template_note(0) == ""
    assert plan_words.template_note(3) == "  (also in the pod template of 3)"
    assert plan_words.action_text("update", 2, 0) == "update"
    assert plan_words.action_text("update", 0, 2) == "update: only common changes"
    assert plan_words.action_text("update", 1, 1) == "update, and 1 common change"
    assert plan_words.action_text("update", 1, 3) == "update, and 3 common changes"


def test_suppressed_kinds_and_ignored_changes_say_how_many_are_not_shown() -> None:
    assert plan_words.suppressed_note("Secret", 3) == "3 field changes not shown: --suppress Secret"
    assert plan_words.suppressed_note("Secret", 1) == "1 field change not shown: --suppress Secret"
    change = ResourceChange(WEB, Action.UPDATE, {}, {}, ignored_fields=(), ignored_by=("a", "b"))
    assert change_words.ignored_note(change) == "0 field changes ignored by a, b"
    one = ResourceChange(WEB, Action.UPDATE, {}, {}, ignored_fields=(None,) * 1, ignored_by=("replicas",))  # type: ignore[arg-type]
    assert change_words.ignored_note(one) == "1 field change ignored by replicas"
    two = ResourceChange(WEB, Action.UPDATE, {}, {}, ignored_fields=(None,) * 2, ignored_by=("x",))  # type: ignore[arg-type]
    assert change_words.ignored_note(two) == "2 field changes ignored by x"


@pytest.mark.parametrize("ownership, owner, label", [
    (Ownership.ADOPT, "", "  [adopts the live object]"),
    (Ownership.ADOPT, "prod/other", "  [takes the live object over from release prod/other]"),
    (Ownership.UNOWNED, "", "  [FAILS: exists without Helm ownership metadata]"),
    (Ownership.OTHER_RELEASE, "prod/other", "  [FAILS: owned by release prod/other]"),
    (Ownership.TERMINATING, "", "  [collides: being deleted]"),
    (Ownership.ABSENT, "", ""),
    (Ownership.NOT_CHECKED, "", ""),
])
def test_ownership_labels(ownership: Ownership, owner: str, label: str) -> None:
    change = ResourceChange(WEB, Action.CREATE, None, {}, ownership=ownership, owner_release=owner)
    assert change_words.ownership_label(change) == label


def test_an_object_line_says_a_likely_rename_and_why_an_object_is_kept() -> None:
    created = ResourceChange(WEB, Action.CREATE, None, {}, likely_rename=OLD)
    deleted = ResourceChange(OLD, Action.DELETE, {}, None, likely_rename=WEB)
    assert change_words.change_note(created) == "  likely renamed from Deployment shop/old"
    assert change_words.change_note(deleted) == "  likely renamed to Deployment shop/web"
    kept = ResourceChange(OLD, Action.RETAIN, {}, None)
    assert change_words.change_note(kept) == (
        "  kept in the cluster by helm.sh/resource-policy: keep, no longer managed by the release")
    assert change_words.change_note(ResourceChange(OLD, Action.RETAIN, {}, None, likely_rename=WEB)) == (
        "  likely renamed to Deployment shop/web  kept in the cluster by helm.sh/resource-policy: keep, no longer "
        "managed by the release")
    assert change_words.change_note(ResourceChange(WEB, Action.UPDATE, {}, {})) == ""


def test_predicted_failures_and_data_loss_are_marked_on_the_object_line() -> None:
    immutable = warn(Immutable(fields=(Field("/spec/selector"),)), WEB)
    conflict = warn(SsaConflict(fields=(Field("/spec/replicas"),)), WEB)
    ownership = warn(OwnershipCheck(ownership=Ownership.OTHER_RELEASE, release="shop", owner_release="other/shop",
                                    action=HelmAction.UPGRADE), WEB, fails=True)
    assert change_words.failure_label([immutable, conflict, immutable]) == (
        "  [FAILS: changes an immutable field; server-side apply conflict]")
    assert change_words.failure_label([ownership]) == ""  # the ownership label says it
    assert change_words.failure_label([]) == ""
    assert change_words.data_loss_label([immutable, warn(DataLoss(loses=Loss.VOLUME), WEB)]) == "  [DATA LOSS]"
    assert change_words.data_loss_label([immutable]) == ""


# -- tasks --------------------------------------------------------------------------------------------------

def _task(name: str = "Job shop/migrate", *, phase: TaskPhase = TaskPhase.PRE_DEPLOY,
          action: TaskAction = TaskAction.UPDATE, events: tuple[str, ...] = ("pre-upgrade",), weight: int = 0,
          policies: tuple[str, ...] = ("before-hook-creation",), will_run: bool = True,
          runs_in: tuple[TaskPhase, ...] = ()) -> TaskPlan:
    return TaskPlan(name, phase, action, events, weight, policies, will_run=will_run, runs_in=runs_in)


def test_phase_titles_name_the_hook_events_of_the_action() -> None:
    upgrade, uninstall = _plan(), _plan(HelmAction.UNINSTALL)
    assert task_words.phase_title(TaskPhase.PRE_DEPLOY, upgrade) == "Before the upgrade (pre-upgrade hooks):"
    assert task_words.phase_title(TaskPhase.POST_DEPLOY, upgrade) == "After the upgrade (post-upgrade hooks):"
    assert task_words.phase_title(TaskPhase.PRE_DEPLOY, uninstall) == "Before the uninstall (pre-delete hooks):"
    assert task_words.phase_title(TaskPhase.POST_DEPLOY, uninstall) == "After the uninstall (post-delete hooks):"
    assert task_words.phase_title(TaskPhase.PRE_DEPLOY, _plan(HelmAction.NONE)) == "Before the upgrade (pre-upgrade hooks):"
    assert task_words.phase_title(TaskPhase.POST_DEPLOY, _plan(HelmAction.ROLLBACK)) == (
        "After the rollback (post-rollback hooks):")
    assert task_words.phase_title(TaskPhase.SCHEDULE, upgrade) == "Scheduled (CronJobs, applied as resources above):"
    # Hooks that do not run on this action are listed apart, under why (issue 45 point 8).
    assert task_words.phase_title(TaskPhase.OTHER, _plan(HelmAction.INSTALL)) == "Not run by this install:"
    seed = _task("Job shop/seed", phase=TaskPhase.POST_DEPLOY, events=("post-install",), will_run=False)
    assert task_words.phase_title(TaskPhase.OTHER, upgrade, [seed]) == (
        "Not run by this upgrade (hooks of other events):")
    gone = _task(action=TaskAction.DELETE, will_run=False)
    assert task_words.phase_title(TaskPhase.OTHER, upgrade, [seed, gone, seed]) == (
        "Not run by this upgrade (hooks of other events; hooks removed from the chart):")
    assert task_words.phase_title(TaskPhase.OTHER, _plan(hooks_disabled=True), [_task(will_run=False), seed]) == (
        "Not run by this upgrade (--no-hooks; hooks of other events):")


def test_whether_a_task_runs_and_why_not() -> None:
    upgrade = _plan()
    assert task_words.run_label(_task(), upgrade) == "will run"
    both = _task(events=("pre-upgrade", "post-upgrade"), runs_in=(TaskPhase.PRE_DEPLOY, TaskPhase.POST_DEPLOY))
    assert task_words.run_label(both, upgrade) == "will run pre-upgrade and post-upgrade"
    assert task_words.run_label(both, _plan(HelmAction.UNINSTALL)) == "will run pre-delete and post-delete"
    assert task_words.run_label(_task(runs_in=(TaskPhase.POST_DEPLOY,)), upgrade) == "will run"
    assert task_words.run_label(_task(action=TaskAction.DELETE, will_run=False), upgrade) == (
        "removed from the chart, will not run")
    assert task_words.run_label(_task(action=TaskAction.DELETE), upgrade) == "removed from the chart, will not run"
    assert task_words.run_label(_task(phase=TaskPhase.OTHER, events=("test",), will_run=False), upgrade) == (
        "runs only under helm test")
    assert task_words.run_label(_task(will_run=False), _plan(hooks_disabled=True)) == "will not run (--no-hooks)"
    assert task_words.run_label(_task(events=("pre-install", "post-install"), will_run=False), upgrade) == (
        "will not run on upgrade (events: pre-install,post-install)")
    assert task_words.run_label(_task(events=("test", "pre-install"), will_run=False), upgrade) == (
        "will not run on upgrade (events: test,pre-install)")
    assert task_words.run_label(_task(phase=TaskPhase.SCHEDULE, action=TaskAction.DELETE), upgrade) == ""


def test_a_task_line_says_name_weight_whether_it_runs_and_its_action() -> None:
    upgrade = _plan()
    assert task_words.task_parts(_task(weight=-5), upgrade, 0, 0) == ["Job shop/migrate", "weight -5", "will run", "(update)"]
    assert task_words.task_parts(_task(), upgrade, own=0, common=2) == [
        "Job shop/migrate", "weight 0", "will run", "(update: only common changes)"]
    stored = _task(events=("pre-install",), will_run=False)
    assert task_words.task_parts(stored, upgrade, 0, 0) == [
        "Job shop/migrate", "weight 0", "will not run on upgrade (events: pre-install)", "(definition changed)"]
    assert task_words.task_parts(_task(events=("pre-install",), will_run=False, action=TaskAction.CREATE), upgrade, 0, 0)[-1] == (
        "(definition added)")
    assert task_words.task_parts(_task(action=TaskAction.DELETE, will_run=False), upgrade, 0, 0) == [
        "Job shop/migrate", "weight 0", "removed from the chart, will not run", "(definition removed)"]
    assert task_words.task_parts(_task(events=("pre-install",), will_run=False, action=TaskAction.UNCHANGED), upgrade, 0, 0)[-1] == (
        "(unchanged)")
    cron = _task("CronJob shop/nightly", phase=TaskPhase.SCHEDULE, action=TaskAction.CREATE, will_run=False)
    assert task_words.task_parts(cron, upgrade, 0, 0) == ["CronJob shop/nightly", "(create)"]
    assert task_words.task_parts(cron, upgrade, own=1, common=1) == ["CronJob shop/nightly", "(create, and 1 common change)"]


def test_a_hook_says_its_events_and_what_each_delete_policy_means() -> None:
    hook = _task(events=("pre-upgrade", "pre-install"), policies=("before-hook-creation", "hook-succeeded",
                                                                  "hook-failed", "custom"))
    assert task_words.task_policy(hook) == (
        "events pre-upgrade,pre-install; delete policy before-hook-creation: the old hook object is deleted before "
        "the new one is created; hook-succeeded: deleted once it succeeds; hook-failed: deleted if it fails; custom")
    assert task_words.task_policy(_task(phase=TaskPhase.POST_DEPLOY, policies=("hook-succeeded",))) == (
        "events pre-upgrade; delete policy hook-succeeded: deleted once it succeeds")
    assert task_words.task_policy(_task(phase=TaskPhase.SCHEDULE)) == ""
    assert task_words.task_policy(_task(phase=TaskPhase.OTHER)) == ""
    assert task_words.task_policy(_task(action=TaskAction.DELETE)) == ""
    assert task_words.policy_text("deleted once it succeeds", 1) == "deleted once it succeeds"
    assert task_words.policy_text("deleted once it succeeds", 2) == "these 2 hooks: deleted once it succeeds"


def test_a_hook_that_runs_in_two_phases_is_shown_again_once() -> None:
    both = (TaskPhase.PRE_DEPLOY, TaskPhase.POST_DEPLOY)
    recreated = _task(runs_in=both)
    assert task_words.again_note(recreated, TaskPhase.PRE_DEPLOY) == ""
    assert task_words.again_note(recreated, TaskPhase.POST_DEPLOY) == (
        "runs again: deleted and created again (before-hook-creation); see above")
    assert task_words.again_note(_task(runs_in=both, policies=("hook-succeeded",)), TaskPhase.POST_DEPLOY) == (
        "runs again: created again; see above")
    assert task_words.again_note(_task(runs_in=(TaskPhase.POST_DEPLOY,)), TaskPhase.POST_DEPLOY) == ""
    assert task_words.again_text(["Job shop/a", "Job shop/b"], [1, 1], "runs again") == (
        "Job shop/a, Job shop/b  weight 1  runs again")
    assert task_words.again_text(["Job shop/a"], [3], "runs again") == "Job shop/a  weight 3  runs again"
    assert task_words.again_text(["Job shop/a", "Job shop/b"], [1, 2], "runs again") == (
        "Job shop/a (weight 1), Job shop/b (weight 2)  runs again")


# -- drift and chart CRDs ----------------------------------------------------------------------------------

@pytest.mark.parametrize("kind, effect, why, label", [
    (DriftKind.MISSING, DriftEffect.REVERTED, None, "missing live: this deploy creates it again"),
    (DriftKind.MISSING, DriftEffect.REMOVED, None, "missing live: it leaves the release, nothing to do"),
    (DriftKind.UNEXPECTED, DriftEffect.REVERTED, None,
     "not in the release: the new chart declares it, so this deploy adopts it and applies the chart"),
    (DriftKind.UNEXPECTED, DriftEffect.LEFT, None, "not in the release: this deploy leaves it alone"),
    (DriftKind.MODIFIED, DriftEffect.REMOVED, DriftReason.DELETED, "modified live: this deploy deletes the object"),
    (DriftKind.MODIFIED, DriftEffect.LEFT, DriftReason.KEPT,
     "modified live: the object leaves the release but is kept (resource-policy: keep), as it is"),
    (DriftKind.MODIFIED, DriftEffect.REVERTED, None, "modified live: this deploy sets it back to the chart's value"),
    (DriftKind.MODIFIED, DriftEffect.LEFT, DriftReason.MERGE_PATCH,
     "modified live: this deploy leaves the live value as it is"),
    (DriftKind.MODIFIED, DriftEffect.REMOVED, None,
     "modified live: the new chart no longer declares it (or declares it null): this deploy deletes it from the live object"),
    (DriftKind.MODIFIED, DriftEffect.CONFLICT, None, "modified live: server-side apply conflict: the deploy fails"),
    (DriftKind.MODIFIED, DriftEffect.MIXED, None, "modified live: see each field"),
])
def test_drift_says_what_this_deploy_does_about_it(kind: DriftKind, effect: DriftEffect, why: DriftReason | None,
                                                   label: str) -> None:
    assert drift_words.drift_label(DriftChange(WEB, kind, effect, why=why)) == label


def _summary(*changes: tuple[str, str, str, Any, Any], descriptions: int = 0) -> CRDSummary:
    return CRDSummary(descriptions, tuple(CRDSchemaChange(*c) for c in changes))


def test_a_crd_change_is_said_by_meaning() -> None:
    summary = _summary(
        ("version-added", "v2", "", None, None), ("version-removed", "v1alpha1", "", None, None),
        ("served-changed", "v1", "", True, False), ("storage-changed", "v1", "", True, False),
        ("field-added", "v1", "spec.tls", None, "object"), ("field-added", "v1", "spec.x", None, None),
        ("field-removed", "v1", "spec.old", "string", None), ("field-removed", "v1", "spec.y", None, None),
        ("type-changed", "v1", "spec.port", "string", "integer"), ("required-added", "v1", "spec.host", None, None),
        ("required-removed", "v1", "spec.path", None, None), ("renamed", "v1", "spec.z", None, None),
        descriptions=233)
    assert crd_words.crd_lines(summary) == [
        "version v2 added", "version v1alpha1 removed", "v1: served True -> False", "v1: storage True -> False",
        "v1: new field spec.tls (object)", "v1: new field spec.x", "v1: field spec.old removed (was string)",
        "v1: field spec.y removed", "v1: type of spec.port string -> integer", "v1: spec.host now required",
        "v1: spec.path no longer required", "v1: renamed spec.z",
        "233 description changes (schema prose; each one is in the JSON plan)",
    ]
    assert crd_words.crd_lines(_summary(descriptions=1)) == ["1 description change (schema prose; each one is in the JSON plan)"]
    assert crd_words.crd_lines(_summary()) == []


def test_a_chart_crd_note_says_at_most_six_changes_then_how_many_more() -> None:
    six = _summary(*((("version-added", f"v{n}", "", None, None)) for n in range(6)))
    assert crd_words.crd_summary_note(six) == " (" + "; ".join(f"version v{n} added" for n in range(6)) + ")"
    seven = _summary(*((("version-added", f"v{n}", "", None, None)) for n in range(6)), descriptions=3)
    assert crd_words.crd_summary_note(seven) == (
        " (" + "; ".join(f"version v{n} added" for n in range(5)) + "; and 2 more in the JSON plan)")
    assert crd_words.crd_summary_note(None) == ""
    assert crd_words.crd_summary_note(_summary()) == ""


def test_helm_never_upgrades_chart_crds_and_says_so() -> None:
    changed = ChartCRD("crds/a.yaml", "a.example.com", CRDLifecycle.NOT_ON_UPGRADE, chart_changed=True,
                       schema=_summary(("version-added", "v2", "", None, None)))
    assert crd_words.crd_note(changed) == (
        "; CHANGED in the chart (version v2 added), and this upgrade will not apply it: apply it yourself")
    plain = ChartCRD("crds/a.yaml", "a.example.com", CRDLifecycle.NOT_ON_UPGRADE, chart_changed=True, live_differs=True)
    assert crd_words.crd_note(plain) == "; CHANGED in the chart, and this upgrade will not apply it: apply it yourself"
    differs = ChartCRD("crds/a.yaml", "a.example.com", CRDLifecycle.NOT_ON_UPGRADE, live_differs=True)
    assert crd_words.crd_note(differs) == "; the cluster's copy differs from the chart's, and this upgrade will not update it"
    for live in (True, False):
        exists = ChartCRD("crds/a.yaml", "a.example.com", CRDLifecycle.PROCESS, live_differs=live)
        assert crd_words.crd_note(exists) == "; it already exists in the cluster, so Helm skips it"
    assert crd_words.crd_note(ChartCRD("crds/a.yaml", "a.example.com", CRDLifecycle.PROCESS)) == ""
    assert crd_words.crd_note(ChartCRD("crds/a.yaml", "a.example.com", CRDLifecycle.SKIP, live_differs=True,
                                           chart_changed=True)) == ""
    assert crd_words.crd_note(ChartCRD("crds/a.yaml", "a.example.com", CRDLifecycle.NOT_ON_UPGRADE, live_differs=False)) == ""


# -- what the deploy does to running things ----------------------------------------------------------------

def _impact(kind: ImpactKind, pods: int | None = None) -> Impact:
    """A restart without a pod count is a DaemonSet's (one pod per node)."""
    resource = WEB if pods is not None or kind is not ImpactKind.RESTART else AGENT
    return Impact(kind, resource, counts=(("pods", pods),) if pods is not None else (), said="m")


def test_the_impact_line_counts_restarts_by_pods_and_other_kinds_by_their_words() -> None:
    """The docs' example line, and the kinds that share words (a family) counted together."""
    impacts = [_impact(ImpactKind.RESTART, 2), _impact(ImpactKind.CONFIG_UNREACHED), _impact(ImpactKind.RESTART, 3),
               _impact(ImpactKind.TRAFFIC_PORT)]
    assert impact_words.impact_summary(impacts) == (
        "Impact: 2 workloads restart (5 pods), 1 config change reaches no running pod, 1 traffic risk.")
    assert impact_words.impact_summary([_impact(ImpactKind.RESTART, 1)]) == "Impact: 1 workload restarts (1 pod)."
    assert impact_words.impact_summary([_impact(ImpactKind.RESTART)]) == "Impact: 1 workload restarts (one pod per node)."
    assert impact_words.impact_summary([_impact(ImpactKind.RESTART), _impact(ImpactKind.RESTART, 3)]) == (
        "Impact: 2 workloads restart (3 pods, and one per node of 1 DaemonSet).")
    assert impact_words.impact_summary([_impact(ImpactKind.RESTART), _impact(ImpactKind.RESTART),
                                               _impact(ImpactKind.RESTART, 0)]) == (
        "Impact: 3 workloads restart (0 pods, and one per node of 2 DaemonSets).")
    assert impact_words.impact_summary([_impact(ImpactKind.TRAFFIC_MOVED), _impact(ImpactKind.TRAFFIC_ROUTE),
                                               _impact(ImpactKind.DATA_CRD), _impact(ImpactKind.NO_RESTART),
                                               _impact(ImpactKind.CONFIG_UNREACHED), _impact(ImpactKind.CONFIG_UNREACHED)]) == (
        "Impact: 1 workload changes without a restart, 2 config changes reach no running pod, 2 traffic risks, "
        "1 data risk.")
    assert impact_words.impact_summary([]) == ""
    assert impact_words.IMPACT_TITLE == "What the deploy does to running things:"
