"""`--fail-on` gates (deployah_plan/core/gates.py): exit 3, one line per gate that matched."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT, run_plan
from deployah_plan.core.gates import check_gates, parse_gate
from deployah_plan.errors import UsageError
from deployah_plan.model import (
    Action, ChartCRD, CRDLifecycle, Header, HelmAction, ResourceChange, ResourceRef, Warning, build_plan,
)
from test_bad_input import _one_line_error

CASE = ROOT / "tests" / "cases" / "create-update-delete"  # deletes a Service and a PersistentVolumeClaim


def _diff(*flags: str) -> tuple[int, str, str]:
    result = run_plan("diff", "previous.yaml", "desired.yaml", "-n", "shop", *flags, cwd=CASE)
    return result.code, result.out, result.err


def test_a_matching_gate_exits_3_and_names_what_matched() -> None:
    code, out, err = _diff("--fail-on", "delete:PersistentVolumeClaim", "--fail-on", "create:Secret")
    assert code == 3
    assert "Plan: 2 to create, 2 to update, 2 to delete." in out  # the plan is still printed
    assert err == "helm plan: --fail-on delete:PersistentVolumeClaim matched: delete PersistentVolumeClaim shop/shop-data\n"


def test_gates_win_over_detailed_exitcode_and_ignored_changes_never_match() -> None:
    assert _diff("--detailed-exitcode", "--fail-on", "delete")[0] == 3
    assert _diff("--detailed-exitcode", "--fail-on", "delete:Secret")[0] == 2
    assert _diff("--fail-on", "delete:Secret")[0] == 0
    code, _, err = _diff("--fail-on", "delete", "--ignore", "{paths: [''], target: {kind: PersistentVolumeClaim}}")
    assert code == 3 and "Service shop/shop-legacy" in err and "PersistentVolumeClaim" not in err
    assert _diff("--fail-on", "delete:PersistentVolumeClaim", "--ignore", "{paths: ['']}")[0] == 0


def test_show_checks_gates_on_a_saved_plan(tmp_path: Path) -> None:
    saved = tmp_path / "plan.json"
    assert _diff("--out", str(saved))[0] == 0
    shown = run_plan("show", str(saved), "--fail-on", "update:Deployment.apps", "--detailed-exitcode")
    assert shown.code == 3 and "update Deployment shop/shop-web" in shown.err


def test_crd_and_warning_gates() -> None:
    crd = ResourceRef("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "widgets.example.com")
    plan = build_plan(
        Header("r", "ns", fresh_install=True), HelmAction.INSTALL,
        [ResourceChange(crd, Action.CREATE, None, {})],
        chart_crds=[ChartCRD("app/crds/a.yaml", "a.example.com", CRDLifecycle.PROCESS),
                    ChartCRD("app/crds/b.yaml", "b.example.com", CRDLifecycle.SKIP)],
        warnings=[Warning("immutable-field", "spec.selector cannot change"), Warning("ownership", "owned by x"),
                  Warning("dropped-document", "skipped")],
    )
    matched = {m.gate.text: m.matched for m in check_gates(plan, [parse_gate(g) for g in (
        "crd", "immutable", "ownership", "warning:dropped-document", "drift", "warning:immutable")])}
    assert matched == {
        "crd": ("create CustomResourceDefinition/widgets.example.com", "chart CRD a.example.com (app/crds/a.yaml)"),
        "immutable": ("immutable-field: spec.selector cannot change",),
        "ownership": ("ownership: owned by x",),
        "warning:dropped-document": ("dropped-document: skipped",),
        "warning:immutable": ("immutable-field: spec.selector cannot change",),
    }


@pytest.mark.parametrize("gate", ["explode", "crd:x", "warning", "delete:"])
def test_unknown_gates_are_refused(gate: str) -> None:
    if gate == "delete:":
        assert parse_gate(gate).argument == ""  # delete: is delete
        return
    with pytest.raises(UsageError, match="unknown --fail-on gate"):
        parse_gate(gate)
    _one_line_error(run_plan("diff", "previous.yaml", "desired.yaml", "--fail-on", gate, cwd=CASE),
                    "unknown --fail-on gate", "delete:PersistentVolumeClaim")
