"""Hooks run in Helm's order, in every phase they belong to (pkg/action/hooks.go execHook:
the release's hooks, pre-sorted by kind in install order, sorted stably by weight then name).

The expected order here is written out by hand from that rule, not taken from the planner."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT, run_plan

pytestmark = pytest.mark.e2e  # each test starts helm-plan or helm as a process

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


def _hook(kind: str, name: str, weight: str, api_version: str = "v1") -> str:
    return (f"apiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: {name}\n  annotations:\n"
            f"    helm.sh/hook: pre-upgrade\n    helm.sh/hook-weight: \"{weight}\"\n")


def test_equal_weights_run_by_name_before_kind_and_weights_compare_as_numbers(tmp_path: Path) -> None:
    # hookByWeight.Less: equal weights compare the hook names; the kind pre-sort only breaks
    # ties of weight and name. So Job/alpha runs before ServiceAccount/zeta at weight 0, and
    # weight 9 before weight 10.
    hooks = [_hook("ServiceAccount", "zeta", "0"), _hook("Job", "alpha", "0", "batch/v1"),
             _hook("ConfigMap", "mid", "0"), _hook("Job", "ten", "10", "batch/v1"),
             _hook("Job", "nine", "9", "batch/v1"), _hook("Secret", "zzz-first", "-1")]
    (tmp_path / "previous.yaml").write_text("")
    (tmp_path / "desired.yaml").write_text("---\n".join(hooks))
    result = run_plan("diff", "previous.yaml", "desired.yaml", "--release", "app", "--action", "upgrade", "-o", "json",
                      cwd=tmp_path)
    assert result.code == 0, result.err
    assert _runs(result.json(), "preDeploy") == ["Secret default/zzz-first", "Job default/alpha", "ConfigMap default/mid",
                                                 "ServiceAccount default/zeta", "Job default/nine", "Job default/ten"]
