"""core/server_side.py on hand-written managedFields, in the form the API server writes them
(each rule checked against Kubernetes' structured-merge-diff in tests/e2e/test_ssa_properties.py)."""
from __future__ import annotations

import copy
from typing import Any

from deployah_plan.core.diff import diff_objects
from deployah_plan.core.server_side import apply

CONTAINER = 'k:{"name":"app"}'


def _web(image: str = "app:1", labels: dict[str, str] | None = None, selector: dict[str, str] | None = None,
         env: list[dict[str, str]] | None = None) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "app", "image": image, **({"env": env} if env is not None else {})}
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "labels": labels or {"app": "web"}},
            "spec": {"selector": {"matchLabels": selector or {"app": "web"}},
                     "template": {"spec": {"containers": [container]}}}}


def _live(obj: dict[str, Any], *entries: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    out["metadata"]["managedFields"] = [{"manager": m, "operation": op, "fieldsV1": f} for m, op, f in entries]
    return out


IMAGE = {"f:spec": {"f:template": {"f:spec": {"f:containers": {CONTAINER: {"f:image": {}}}}}}}


def test_a_field_an_update_manager_owns_conflicts_unless_forced() -> None:
    live = _live(_web("app:hotfix"), ("kubectl-edit", "Update", IMAGE))
    applied = apply(live, _web("app:2"), diff_objects(_web(), _web("app:2")), force_conflicts=False)
    (conflict,) = applied.conflicts
    assert (conflict.change.path, conflict.managers) == ("/spec/template/spec/containers/0/image", ("kubectl-edit",))
    forced = apply(live, _web("app:2"), diff_objects(_web(), _web("app:2")), force_conflicts=True)
    assert [f.taken_from for f in forced.fields] == [("kubectl-edit",)]


def test_the_live_value_is_shared_and_owning_an_entry_is_not_owning_its_fields() -> None:
    entry = {"f:spec": {"f:template": {"f:spec": {"f:containers": {CONTAINER: {".": {}, "f:name": {}}}}}}}
    live = _live(_web("app:2"), ("ops", "Apply", IMAGE))
    assert apply(live, _web("app:2"), diff_objects(_web(), _web("app:2")), False).conflicts == ()
    live = _live(_web(), ("ops", "Apply", entry))
    assert apply(live, _web("app:2"), diff_objects(_web(), _web("app:2")), False).conflicts == ()


def test_a_removal_inside_an_atomic_value_another_manager_owns_conflicts() -> None:
    both = {"app": "web", "tier": "front"}
    live = _live(_web(selector=both), ("kubectl-edit", "Update", {"f:spec": {"f:selector": {}}}))
    (conflict,) = apply(live, _web(), diff_objects(_web(selector=both), _web()), False).conflicts
    assert conflict.owners[0].at == ("f:spec", "f:selector")


def test_a_field_the_chart_stops_setting_stays_while_an_applier_owns_it() -> None:
    both = {"app": "web", "tier": "front"}
    tier = {"f:metadata": {"f:labels": {"f:tier": {}}}}
    helm = ("helm", "Apply", {"f:metadata": {"f:labels": {"f:app": {}, "f:tier": {}}}})
    changes = diff_objects(_web(labels=both), _web())
    kept = apply(_live(_web(labels=both), helm, ("ops", "Apply", tier)), _web(), changes, False)
    assert [f.kept_by for f in kept.fields] == [("ops",)]
    alone = apply(_live(_web(labels=both), helm, ("other", "Apply", {"f:metadata": {"f:labels": {"f:app": {}}}})),
                  _web(), changes, False)
    assert [f.kept_by for f in alone.fields] == [()]


def test_an_update_managers_field_keeps_nothing_helm_owns() -> None:
    # structured-merge-diff's prune adds back only what managers that applied own.
    env = [{"name": "MODE", "value": "fast"}]
    entry = 'k:{"name":"MODE"}'
    helm = ("helm", "Apply", {"f:spec": {"f:template": {"f:spec": {"f:containers": {CONTAINER: {
        "f:env": {entry: {".": {}, "f:name": {}}}}}}}}})
    edit = ("kubectl-edit", "Update", {"f:spec": {"f:template": {"f:spec": {"f:containers": {CONTAINER: {
        "f:env": {entry: {"f:value": {}}}}}}}}})
    changes = diff_objects(_web(env=env), _web(env=[]))
    assert [f.kept_by for f in apply(_live(_web(env=env), helm, edit), _web(env=[]), changes, False).fields] == [()]
    # A label an update took from Helm is not Helm's to remove: it stays with it.
    both = {"app": "web", "tier": "front"}
    took = ("kubectl-edit", "Update", {"f:metadata": {"f:labels": {"f:tier": {}}}})
    helm_app = ("helm", "Apply", {"f:metadata": {"f:labels": {"f:app": {}}}})
    kept = apply(_live(_web(labels=both), helm_app, took), _web(), diff_objects(_web(labels=both), _web()), False)
    assert [f.kept_by for f in kept.fields] == [("kubectl-edit",)]


def test_a_map_node_whose_fields_others_took_is_not_an_atomic_value() -> None:
    # The creator's `f:labels: {}` is the labels map itself once another manager took its only
    # field: a change of that field conflicts with the field's owner alone (as the reference
    # finds on adoption histories); an empty map live is a node too.
    labels = {"app": "web", "tier": "front"}
    live = _live(_web(labels=labels), ("kubectl-create", "Update", {"f:metadata": {"f:labels": {}}}),
                 ("ops", "Update", {"f:metadata": {"f:labels": {"f:app": {}, "f:tier": {}}}}))
    new = _web(labels={"app": "web", "tier": "back"})
    (conflict,) = apply(live, new, diff_objects(_web(labels=labels), new), False).conflicts
    assert conflict.managers == ("ops",)
    bare = _web()
    bare["metadata"]["labels"] = {}
    empty = _live(bare, ("kubectl-create", "Update", {"f:metadata": {"f:labels": {}}}))
    assert apply(empty, new, diff_objects(bare, new), False).conflicts == ()
