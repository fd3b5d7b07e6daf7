"""The plan model's constructor enforces its invariants and derives what callers must not supply."""
from __future__ import annotations

import pytest

from deployah_plan.build import build_plan
from deployah_plan.model import (
    Action, FieldChange, FieldOp, Header, HelmAction, ResourceChange, ResourceRef, TaskAction, TaskPhase, TaskPlan,
)

CM = ResourceRef("v1", "ConfigMap", "ns", "a")
OBJ = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}
UPGRADE = Header("r", "ns", revision=2, previous_revision=1)


def _task(events: tuple[str, ...], action: TaskAction = TaskAction.UNCHANGED, phase: TaskPhase = TaskPhase.PRE_DEPLOY,
          weight: int = 0, name: str = "Job/x") -> TaskPlan:
    return TaskPlan(name, phase, action, events, weight, (), will_run=True)


def test_summary_and_order_are_derived() -> None:
    later = ResourceChange(ResourceRef("v1", "Service", "ns", "s"), Action.CREATE, None, OBJ, (), 5)
    first = ResourceChange(CM, Action.UPDATE, OBJ, OBJ, (FieldChange("/data", FieldOp.ADD, None, {}),), 1)
    plan = build_plan(UPGRADE, HelmAction.UPGRADE, [later, first])
    assert [c.helm_order for c in plan.changes] == [1, 5]
    assert (plan.summary.create, plan.summary.update, plan.summary.delete) == (1, 1, 0)


def test_will_run_ignores_the_callers_value() -> None:
    plan = build_plan(UPGRADE, HelmAction.UPGRADE, [], [
        _task(("pre-install",), TaskAction.UPDATE, name="Job/install-only"),
        _task(("pre-upgrade",), name="Job/upgrade", weight=-1),
        _task(("test",), phase=TaskPhase.OTHER, name="Pod/test"),
        _task(("pre-upgrade",), TaskAction.DELETE, name="Job/gone"),
    ])
    assert {t.name: t.will_run for t in plan.tasks} == {
        "Job/install-only": False, "Job/upgrade": True, "Pod/test": False, "Job/gone": False}
    assert plan.tasks[0].name == "Job/upgrade"  # weight, then name


@pytest.mark.parametrize("change, says", [
    (ResourceChange(CM, Action.CREATE, OBJ, OBJ), "ConfigMap ns/a: a create must have no before and after"),
    (ResourceChange(CM, Action.DELETE, OBJ, OBJ), "ConfigMap ns/a: a delete must have before and no after"),
    (ResourceChange(CM, Action.UPDATE, OBJ, OBJ, ()), "an update needs at least one real field change"),
    (ResourceChange(CM, Action.UPDATE, OBJ, OBJ, (FieldChange("/a", FieldOp.REPLACE, 1, 1, equivalent=True),)),
     "an update needs at least one real field change"),
    (ResourceChange(CM, Action.UPDATE, OBJ, OBJ, (FieldChange("data", FieldOp.ADD),)), "bad field change"),
])
def test_bad_changes_are_refused(change: ResourceChange, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        build_plan(UPGRADE, HelmAction.UPGRADE, [change])


def test_identity_is_unique_and_ignores_api_version() -> None:
    a = ResourceChange(ResourceRef("apps/v1", "Deployment", "ns", "w"), Action.CREATE, None, OBJ)
    b = ResourceChange(ResourceRef("apps/v1beta2", "Deployment", "ns", "w"), Action.CREATE, None, OBJ)
    with pytest.raises(ValueError, match="two changes"):
        build_plan(UPGRADE, HelmAction.UPGRADE, [a, b])


def test_action_and_header_must_agree() -> None:
    with pytest.raises(ValueError, match="an install plan, and only an install plan, is a fresh install"):
        build_plan(UPGRADE, HelmAction.INSTALL)
    with pytest.raises(ValueError, match="an install plan, and only an install plan, is a fresh install"):
        build_plan(Header("r", "ns", fresh_install=True), HelmAction.UPGRADE)
    with pytest.raises(ValueError, match="an install can only create"):
        build_plan(Header("r", "ns", fresh_install=True), HelmAction.INSTALL,
                   [ResourceChange(CM, Action.UPDATE, OBJ, OBJ, (FieldChange("/data", FieldOp.ADD, None, {}),))])
    with pytest.raises(ValueError, match="an uninstall can only delete or retain"):
        build_plan(UPGRADE, HelmAction.UNINSTALL, [ResourceChange(CM, Action.CREATE, None, OBJ)])
    with pytest.raises(ValueError, match="a plan with no Helm action cannot change resources or tasks"):
        build_plan(UPGRADE, HelmAction.NONE, [ResourceChange(CM, Action.CREATE, None, OBJ)])
    with pytest.raises(ValueError, match="a plan with no Helm action cannot change resources or tasks"):
        build_plan(UPGRADE, HelmAction.NONE, [], [_task(("post-rollback",), TaskAction.UPDATE, TaskPhase.OTHER)])
    with pytest.raises(ValueError, match="is not a HelmAction"):
        build_plan(UPGRADE, "upgrade")  # type: ignore[arg-type]


def test_ignored_changes_are_checked_and_counted_apart() -> None:
    ignored = ResourceChange(CM, Action.UPDATE, OBJ, OBJ, (), 1,
                             ignored_fields=(FieldChange("/data", FieldOp.ADD, None, {}),), ignored_by=("--ignore #1",))
    plan = build_plan(UPGRADE, HelmAction.UPGRADE, [], ignored=[ignored])
    assert plan.ignored == (ignored,) and plan.summary.ignored == 1 and plan.summary.total == 0
    assert not plan.has_changes
    with pytest.raises(ValueError, match="name the rule"):
        build_plan(UPGRADE, HelmAction.UPGRADE, [], ignored=[ResourceChange(CM, Action.CREATE, None, OBJ)])
    with pytest.raises(ValueError, match="two changes"):
        build_plan(UPGRADE, HelmAction.UPGRADE, [ResourceChange(CM, Action.CREATE, None, OBJ)], ignored=[ignored])
    with pytest.raises(ValueError, match="a plan with no Helm action cannot change resources or tasks"):
        build_plan(UPGRADE, HelmAction.NONE, [], ignored=[ignored])


def test_an_object_is_named_one_way_with_its_scope_plain() -> None:
    """`Kind namespace/name` for a namespaced object, `Kind name` for a cluster-scoped one (its
    namespace is "", as the API server keeps it): no second convention with a slash."""
    assert str(ResourceRef("rbac.authorization.k8s.io/v1", "Role", "shop", "reader")) == "Role shop/reader"
    assert str(ResourceRef("rbac.authorization.k8s.io/v1", "ClusterRole", "", "reader")) == "ClusterRole reader"
    assert str(ResourceRef("batch/v1", "Job", "shop", "", generate_name="migrate-")) == "Job shop/migrate-*"
    grouped = ResourceRef("networking.k8s.io/v1", "Ingress", "shop", "web", show_group=True)
    assert str(grouped) == "Ingress.networking.k8s.io shop/web"
