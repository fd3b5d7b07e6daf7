"""`--fail-on` gates (deployah_plan/core/gates.py): exit 3, one line per gate that matched."""
from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from conftest import ROOT, run_plan
from deployah_plan.core.gates import parse_gate
from deployah_plan.errors import UsageError
from e2e.test_bad_input import _one_line_error

CASE = ROOT / "tests" / "cases" / "create-update-delete"  # deletes a Service and a PersistentVolumeClaim


def _diff(*flags: str) -> tuple[int, str, str]:
    result = run_plan("diff", "previous.yaml", "desired.yaml", "-n", "shop", *flags, cwd=CASE)
    return result.code, result.out, result.err


@pytest.mark.e2e
def test_a_matching_gate_exits_3_and_names_what_matched() -> None:
    code, out, err = _diff("--fail-on", "delete:PersistentVolumeClaim", "--fail-on", "create:Secret")
    assert code == 3
    assert "Plan: 2 to create, 2 to update, 2 to delete." in out  # the plan is still printed
    assert err == "helm plan: --fail-on delete:PersistentVolumeClaim matched: delete PersistentVolumeClaim shop/shop-data\n"


@pytest.mark.e2e
def test_gates_win_over_detailed_exitcode_and_ignored_changes_never_match() -> None:
    assert _diff("--detailed-exitcode", "--fail-on", "delete")[0] == 3
    assert _diff("--detailed-exitcode", "--fail-on", "delete:Secret")[0] == 2
    assert _diff("--fail-on", "delete:Secret")[0] == 0
    code, _, err = _diff("--fail-on", "delete", "--ignore", "{paths: [''], target: {kind: PersistentVolumeClaim}}")
    assert code == 3 and "Service shop/shop-legacy" in err and "PersistentVolumeClaim" not in err
    assert _diff("--fail-on", "delete:PersistentVolumeClaim", "--ignore", "{paths: ['']}")[0] == 0


@pytest.mark.e2e
def test_show_checks_gates_on_a_saved_plan(tmp_path: Path) -> None:
    saved = tmp_path / "plan.json"
    assert _diff("--out", str(saved))[0] == 0
    shown = run_plan("show", str(saved), "--fail-on", "update:Deployment.apps", "--detailed-exitcode")
    assert shown.code == 3 and "update Deployment shop/shop-web" in shown.err


@pytest.mark.e2e
@pytest.mark.parametrize("gate", ["delete:PersistentVolumeClaim", "delete:persistentvolumeclaim", "delete:pvc",
                                  "delete:PVC", "delete:persistentvolumeclaims", "DELETE:pvcs"])
def test_kinds_are_matched_as_kubectl_users_type_them(gate: str) -> None:
    code, _, err = _diff("--fail-on", gate)
    assert code == 3 and "delete PersistentVolumeClaim shop/shop-data" in err


@pytest.mark.e2e
def test_a_kind_alias_never_matches_another_kind() -> None:
    assert _diff("--fail-on", "delete:services")[0] == 3  # the Service
    assert _diff("--fail-on", "delete:cm")[0] == 0
    assert _diff("--fail-on", "update:deploy.apps")[0] == 3
    assert _diff("--fail-on", "update:deploy.extensions")[0] == 0


@pytest.mark.e2e
def test_a_gate_that_cannot_be_evaluated_says_so() -> None:
    code, _, err = _diff("--fail-on", "drift")
    assert code == 0
    assert err.startswith("helm plan: --fail-on drift: not evaluated: the live state was not read")


@pytest.mark.e2e
@pytest.mark.parametrize("gate", ["explode", "warning", "deletes"])
def test_unknown_gates_are_refused(gate: str) -> None:
    with pytest.raises(UsageError, match="unknown --fail-on gate"):
        parse_gate(gate)
    _one_line_error(run_plan("diff", "previous.yaml", "desired.yaml", "--fail-on", gate, cwd=CASE),
                    "unknown --fail-on gate", "delete:pvc")


@pytest.mark.e2e
def test_a_mistyped_gate_gets_the_nearest_name() -> None:
    """As a mistyped command gets "did you mean" (issue 48 point 7)."""
    _one_line_error(run_plan("diff", "previous.yaml", "desired.yaml", "--fail-on", "restrat", cwd=CASE),
                    "unknown --fail-on gate 'restrat'; did you mean restart? (use one of create,")


# -- failure gates end to end: the planner's own warnings, through the command line ------------

CASES = ROOT / "tests" / "cases"


def _case(name: str, *flags: str) -> tuple[int, str, str]:
    case = CASES / name
    args = shlex.split((case / "args").read_text(), comments=True) if (case / "args").exists() else []
    result = run_plan("diff", "previous.yaml", "desired.yaml", *args, *flags, cwd=case)
    return result.code, result.out, result.err


@pytest.mark.e2e
def test_fail_on_immutable_stops_an_upgrade_that_changes_an_immutable_field() -> None:
    # immutable-fields changes the data of an immutable ConfigMap, a Deployment's selector and
    # more: the API server refuses each.
    code, out, err = _case("immutable-fields", "--fail-on", "immutable")
    assert code == 3, err
    assert err.startswith("helm plan: --fail-on immutable matched: immutable: ConfigMap default/frozen: this upgrade "
                          "will fail: it changes immutable field data.a; ")
    assert _case("immutable-fields", "--fail-on", "failure")[0] == 3
    assert _case("immutable-fields", "--fail-on", "ownership")[0] == 0  # not an ownership failure
    assert _case("create-update-delete", "--fail-on", "immutable")[0] == 2  # nothing immutable: changes only


@pytest.mark.e2e
def test_fail_on_ownership_stops_a_create_over_an_object_helm_does_not_own() -> None:
    # live-drift creates ConfigMap extra, which exists live without Helm's ownership metadata.
    code, _, err = _case("live-drift", "--fail-on", "ownership")
    assert code == 3, err
    assert "--fail-on ownership matched: ownership: ConfigMap default/extra exists in the cluster without Helm " \
           "ownership metadata: this upgrade fails" in err
    assert _case("live-drift", "--fail-on", "ownership", "--take-ownership")[0] == 0  # adopted: Helm 3.17+


@pytest.mark.e2e
def test_fail_on_ownership_stops_a_server_side_apply_conflict() -> None:
    # live-ssa-secret: another field manager owns a field the chart sets; Helm 4's server-side
    # apply fails without --force-conflicts.
    code, _, err = _case("live-ssa-secret", "--fail-on", "ownership")
    assert code == 3, err
    assert "--fail-on ownership matched: ssa-conflict: Secret default/db: server-side apply conflicts on " \
           "data.password" in err
    assert _case("live-ssa-secret", "--fail-on", "immutable")[0] == 0
    assert _case("live-ssa-secret", "--fail-on", "ownership", "--apply-method", "csa")[0] == 0  # no SSA: no conflict


@pytest.mark.e2e
def test_a_matched_line_escapes_what_the_chart_named(tmp_path: Path) -> None:
    # A name with ESC (which clears a terminal), a newline and a workflow command after it.
    hostile = "web\x1b[2J\n::error title=forged::all clear\n::add-mask::x"
    (tmp_path / "previous.yaml").write_text("")
    (tmp_path / "desired.yaml").write_text(
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {json.dumps(hostile)}\ndata: {{a: b}}\n")
    result = run_plan("diff", "previous.yaml", "desired.yaml", "--fail-on", "create", "--debug", cwd=tmp_path)
    assert result.code == 3, result.err
    assert "\x1b" not in result.err and "\r" not in result.err
    assert all(line.startswith("helm plan: ") for line in result.err.splitlines()), result.err
    assert result.err.endswith("matched: create ConfigMap default/web\\x1b[2J\\x0a::error title=forged::all clear"
                               "\\x0a::add-mask::x\n"), result.err
