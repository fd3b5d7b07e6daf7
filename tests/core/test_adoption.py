"""core/adoption.py: the change Helm's apply makes to a live object it adopts (the planner's
side in tests/core/test_planner_apply.py, the reference's in tests/e2e/test_ssa_properties.py)."""
from __future__ import annotations

from typing import Any

from deployah_plan.core.adoption import adopt
from deployah_plan.model import FieldOp


def _config(**data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "namespace": "shop"}, "data": data}


def _paths(live: dict[str, Any], desired: dict[str, Any], ssa: bool, three_way: bool = False) -> dict[str, FieldOp]:
    return {f.path: f.op for f in adopt(live, desired, "shop", "shop", ssa, three_way, False).fields
            if not f.path.startswith("/metadata")}


def test_nothing_only_the_live_object_has_is_deleted() -> None:
    live, desired = _config(a="1", extra="x"), _config(a="2")
    assert _paths(live, desired, ssa=False) == {"/data/a": FieldOp.REPLACE}
    assert _paths(live, desired, ssa=True) == {"/data/a": FieldOp.REPLACE}


def test_a_field_helms_own_earlier_apply_set_is_pruned_server_side() -> None:
    # An object Helm applied before (a release uninstalled with its objects kept): the API
    # server prunes what Helm's apply set and no longer sets.
    live = _config(a="1", old="x")
    live["metadata"]["managedFields"] = [
        {"manager": "helm", "operation": "Apply", "fieldsV1": {"f:data": {"f:a": {}, "f:old": {}}}}]
    assert _paths(live, _config(a="1"), ssa=True) == {"/data/old": FieldOp.REMOVE}
    assert _paths(live, _config(a="1"), ssa=False) == {}


def test_a_custom_resource_is_merged_three_ways_only_when_asked() -> None:
    widget = {"apiVersion": "shop.example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "shop"},
              "spec": {"size": 2, "zones": ["a"]}}
    live = {**widget, "spec": {"size": 5, "zones": ["a", "b"], "paused": True}}
    assert adopt(live, widget, "shop", "shop", False, False, False).fields == ()
    assert set(_paths(live, widget, ssa=False, three_way=True)) >= {"/spec/size"}
    assert "/spec/paused" not in _paths(live, widget, ssa=False, three_way=True)
