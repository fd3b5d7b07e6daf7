"""The server-side apply reference (tests/ssa_reference.py) computes what the API server does:
the rules the plan's predictions of a Helm 4 upgrade are held to, checked here on the cases
users hit (a field edited by hand, a field another manager shares, a field the chart stops
setting, keyed list entries, atomic lists), each as Kubernetes documents it
(https://kubernetes.io/docs/reference/using-api/server-side-apply/)."""
from __future__ import annotations

import copy
from typing import Any

import pytest

import ssa_reference
from ssa_reference import Conflict, Step

pytestmark = pytest.mark.e2e


@pytest.fixture(autouse=True)
def _reference() -> None:
    ssa_reference.required()


def _deployment(image: str = "app:1", labels: dict[str, str] | None = None,
                env: list[dict[str, str]] | None = None) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "app", "image": image}
    if env is not None:
        container["env"] = env
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "labels": labels or {"app": "web"}},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [container]}}}}


def _edited(obj: dict[str, Any], change: Any) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    change(out)
    return out


def _image(obj: dict[str, Any], image: str) -> None:
    obj["spec"]["template"]["spec"]["containers"][0]["image"] = image


IMAGE = '.spec.template.spec.containers[name="app"].image'


def test_a_field_edited_by_hand_conflicts_with_the_charts_new_value() -> None:
    first = _deployment()
    edit = Step("kubectl-edit", "Update", _edited(first, lambda o: _image(o, "app:hotfix")))
    plain, forced = ssa_reference.run([
        [Step("helm", "Apply", first), edit, Step("helm", "Apply", _deployment("app:2"))],
        [Step("helm", "Apply", first), edit, Step("helm", "Apply", _deployment("app:2"), force=True)]])
    assert plain.conflicts[2] == [Conflict("kubectl-edit", IMAGE)]
    assert plain.obj is not None and plain.obj["spec"]["template"]["spec"]["containers"][0]["image"] == "app:hotfix"
    # --force-conflicts: the field is taken from that manager.
    assert forced.conflicts[2] == []
    assert forced.obj is not None and forced.obj["spec"]["template"]["spec"]["containers"][0]["image"] == "app:2"
    assert 'f:spec/f:template/f:spec/f:containers/k:{"name":"app"}/f:image' in forced.owned("helm")
    assert forced.owned("kubectl-edit") == set()


def test_a_value_the_chart_leaves_as_it_is_shares_ownership_without_conflict() -> None:
    first = _deployment()
    other = Step("ops", "Apply", _edited(first, lambda o: o["metadata"]["labels"].update(team="a")))
    outcome, = ssa_reference.run([[Step("helm", "Apply", first), other, Step("helm", "Apply", first)]])
    assert outcome.conflicts == [[], [], []]
    assert "f:metadata/f:labels/f:app" in outcome.owned("helm") & outcome.owned("ops")


def test_a_field_the_chart_stops_setting_stays_while_another_manager_owns_it() -> None:
    both = _deployment(labels={"app": "web", "tier": "front"})
    outcome, = ssa_reference.run([[
        Step("helm", "Apply", both),
        Step("ops", "Apply", both),  # the same values: shared
        Step("helm", "Apply", _deployment(labels={"app": "web"}))]])
    assert outcome.obj is not None and outcome.obj["metadata"]["labels"] == {"app": "web", "tier": "front"}
    assert "f:metadata/f:labels/f:tier" in outcome.owned("ops")
    assert "f:metadata/f:labels/f:tier" not in outcome.owned("helm")


def test_a_field_only_the_chart_owned_is_removed_when_the_chart_stops_setting_it() -> None:
    outcome, = ssa_reference.run([[
        Step("helm", "Apply", _deployment(labels={"app": "web", "tier": "front"})),
        Step("helm", "Apply", _deployment(labels={"app": "web"}))]])
    assert outcome.obj is not None and outcome.obj["metadata"]["labels"] == {"app": "web"}


def test_a_keyed_list_entry_another_manager_added_stays() -> None:
    env = [{"name": "MODE", "value": "fast"}]
    injected = _deployment(env=env + [{"name": "TRACE", "value": "1"}])
    outcome, = ssa_reference.run([[
        Step("helm", "Apply", _deployment(env=env)),
        Step("injector", "Update", injected),
        Step("helm", "Apply", _deployment(env=[{"name": "MODE", "value": "slow"}]))]])
    assert outcome.conflicts[2] == []
    assert outcome.obj is not None
    assert outcome.obj["spec"]["template"]["spec"]["containers"][0]["env"] == [
        {"name": "MODE", "value": "slow"}, {"name": "TRACE", "value": "1"}]


def test_an_atomic_list_is_owned_whole() -> None:
    def role(*verbs: str) -> dict[str, Any]:
        return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "reader"},
                "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": list(verbs)}]}
    outcome, = ssa_reference.run([[
        Step("helm", "Apply", role("get")),
        Step("kubectl-edit", "Update", role("get", "list")),
        Step("helm", "Apply", role("get", "watch"))]])
    assert outcome.conflicts[2] == [Conflict("kubectl-edit", ".rules")]


def test_a_manager_that_updated_takes_the_fields_it_changed_from_the_chart() -> None:
    first = _deployment()
    outcome, = ssa_reference.run([[
        Step("helm", "Apply", first),
        Step("kubectl-edit", "Update", _edited(first, lambda o: _image(o, "app:hotfix")))]])
    assert outcome.managers["kubectl-edit"] == ("Update", {"f:spec": {"f:template": {"f:spec": {"f:containers": {
        'k:{"name":"app"}': {"f:image": {}}}}}}})
    assert 'f:spec/f:template/f:spec/f:containers/k:{"name":"app"}/f:image' not in outcome.owned("helm")
