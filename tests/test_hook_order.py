"""Hooks run in Helm's order, in every phase they belong to (pkg/action/hooks.go execHook:
the release's hooks, pre-sorted by kind in install order, sorted stably by weight then name).

The expected order here is written out by hand from that rule, not taken from the planner."""
from __future__ import annotations

from typing import Any

from conftest import ROOT, run_plan

CASE = ROOT / "tests" / "cases" / "hook-phases"


def _runs(doc: dict[str, Any], phase: str) -> list[str]:
    placed = [(run["position"], task["name"]) for task in doc["tasks"] for run in task["runs"] if run["phase"] == phase]
    return [name for _, name in sorted(placed)]


def test_equal_weights_and_names_run_in_kind_install_order_and_a_hook_runs_in_both_phases() -> None:
    result = run_plan("diff", "previous.yaml", "desired.yaml", "--release", "app", "-n", "app", "-o", "json", cwd=CASE)
    assert result.code == 0, result.err
    doc = result.json()
    # weight 0, name app-init: ServiceAccount (install order 8th) < Role < Job < an unknown kind;
    # then weight 5.
    assert _runs(doc, "preDeploy") == ["ServiceAccount app/app-init", "Role app/app-init", "Job app/app-init", "Widget app/app-init",
                                       "Job app/app-check"]
    # app-check lists pre-upgrade and post-upgrade: Helm runs it in both (before-hook-creation re-creates it).
    assert _runs(doc, "postDeploy") == ["Job app/app-notify", "Job app/app-check"]
    assert doc["summary"]["hooks_run"] == 6 and doc["summary"]["hooks_stored"] == 0


def test_on_install_only_install_hooks_run_and_the_others_are_only_stored() -> None:
    result = run_plan("diff", "/dev/null", "desired.yaml", "--release", "app", "-n", "app", "--action", "install",
                      "-o", "json", cwd=CASE)
    assert result.code == 0, result.err
    doc = result.json()
    assert _runs(doc, "preDeploy") == ["ServiceAccount app/app-init", "Role app/app-init", "Job app/app-init"]
    assert _runs(doc, "postDeploy") == []
    # Widget (pre-upgrade), app-check and app-notify only go into the release record.
    assert (doc["summary"]["hooks_run"], doc["summary"]["hooks_stored"]) == (3, 3)
