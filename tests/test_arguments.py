"""Each command's typed arguments (deployah_plan/commands/arguments.py), made from the parsed
parameters: what the exit code says beyond an error, and what is refused first."""
from __future__ import annotations

import pytest

from deployah_plan import command_line
from deployah_plan.commands.arguments import Gating, PlanArguments
from deployah_plan.commands.kube_upgrade import KubeUpgradeArguments
from deployah_plan.commands.upgrade import UpgradeOptions
from deployah_plan.console import Exit
from deployah_plan.errors import UsageError


@pytest.mark.parametrize("detailed, matched, changes, code", [
    (False, False, False, Exit.OK), (False, False, True, Exit.OK), (True, False, False, Exit.OK),
    (True, False, True, Exit.CHANGES), (False, True, False, Exit.GATE), (True, True, True, Exit.GATE),
])
def test_a_matched_gate_wins_over_changes(detailed: bool, matched: bool, changes: bool, code: Exit) -> None:
    assert Gating(gates=(), detailed_exitcode=detailed).exit(matched, changes) is code


def test_a_plan_command_line_is_typed_once() -> None:
    parsed = command_line.read(["upgrade", "shop", "./chart", "-f", "a.yaml", "--set", "x=1", "--out", "plan.json",
                                "--fail-on", "delete", "-o", "json", "--ignore-file", "i.yaml"])
    assert parsed is not None
    args = PlanArguments.of(*parsed, debug=True)
    assert isinstance(args.request, UpgradeOptions)
    assert (args.request.release, args.request.chart, args.request.debug) == ("shop", "./chart", True)
    assert (tuple(args.request.values.files), tuple(args.request.values.set)) == (("a.yaml",), ("x=1",))
    assert (args.out, args.ignore_files, args.printing.output) == ("plan.json", ("i.yaml",), "json")
    assert len(args.gating.gates) == 1 and not args.gating.detailed_exitcode


def test_an_unknown_gate_is_refused_when_the_arguments_are_made() -> None:
    parsed = command_line.read(["rollback", "shop", "--fail-on", "nope"])
    assert parsed is not None
    with pytest.raises(UsageError):
        PlanArguments.of(*parsed, debug=False)


def test_kube_upgrade_refuses_a_missing_version_before_an_unknown_gate() -> None:
    params = {"release": None, "kube_version": None, "namespace": None, "kube_context": None, "kubeconfig": None,
              "all_namespaces": False, "selector": None, "parallel": None, "timeout": "5m", "line_context": 2,
              "ignore": (), "ignore_files": (), "output": "text", "detailed_exitcode": False, "fail_on": ("nope",),
              "no_color": False, "color": False, "suppress": (), "source_root": "", "show_secrets": False,
              "full_values": False, "debug": False}
    with pytest.raises(UsageError, match="--kube-version is required"):
        KubeUpgradeArguments.of(params, debug=False)
