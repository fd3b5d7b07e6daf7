"""A command's arguments, typed: one record per command, made once from the parameters the
command line was read to (click's, cli.py, or command_line.read's, which are the same), as
terraform's command/arguments makes `arguments.Plan`. Past these constructors nothing looks a
parameter up by name: the request the planner takes (`UpgradeOptions`, ...: the flag table says
which field each flag fills), how the plan is printed (`Printing`), what the exit code says
beyond an error (`Gating`), and where the plan is saved and what it ignores are fields.
`helm plan kube-upgrade`'s record, `KubeUpgradeArguments`, sits with its command
(commands/kube_upgrade.py), which imports this module's `Printing` and `Gating`.

Made where the command starts, inside the one place that words its errors
(command_line.guarded): an unknown gate is refused there, before any helm call, as it always
was. A command's own request builder is imported when the command runs, so a command loads only
what it uses.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Union

from msgspec import Struct

from deployah_plan.console import Exit
from deployah_plan.core.gates import Gate, parse_gate

if TYPE_CHECKING:
    from deployah_plan.commands.diff import DiffOptions
    from deployah_plan.commands.history import ReleasesOptions, RevisionOptions
    from deployah_plan.commands.rollback import RollbackOptions
    from deployah_plan.commands.uninstall import UninstallOptions
    from deployah_plan.commands.upgrade import UpgradeOptions

    Request = Union[UpgradeOptions, RollbackOptions, UninstallOptions, DiffOptions, RevisionOptions, ReleasesOptions]


class Printing(Struct, frozen=True, kw_only=True):
    """How the plan is printed: the output flags (flags.OUTPUT_FLAGS but the gates)."""

    output: str
    show_secrets: bool
    full_values: bool
    no_color: bool
    color: bool
    suppress: frozenset[str]
    source_root: str

    @classmethod
    def of(cls, params: Mapping[str, Any]) -> Printing:
        return cls(output=params["output"], show_secrets=params["show_secrets"], full_values=params["full_values"],
                   no_color=params["no_color"], color=params["color"], suppress=frozenset(params["suppress"]),
                   source_root=params["source_root"])


class Gating(Struct, frozen=True, kw_only=True):
    """What the exit code says when there is no error: the --fail-on gates, parsed, and
    --detailed-exitcode."""

    gates: tuple[Gate, ...]
    detailed_exitcode: bool

    @classmethod
    def of(cls, params: Mapping[str, Any]) -> Gating:
        return cls(gates=tuple(parse_gate(g) for g in params["fail_on"]), detailed_exitcode=params["detailed_exitcode"])

    def exit(self, matched: bool, changes: bool) -> Exit:
        """A matched gate wins over changes: GATE; else CHANGES with --detailed-exitcode when
        something changes; else OK."""
        if matched:
            return Exit.GATE
        return Exit.CHANGES if self.detailed_exitcode and changes else Exit.OK


def _request(command: str, params: Mapping[str, Any], debug: bool) -> Request:
    if command == "upgrade":
        from deployah_plan.commands.upgrade import upgrade_options

        return upgrade_options(params, debug=debug)
    if command == "rollback":
        from deployah_plan.commands.rollback import rollback_options

        return rollback_options(params, debug=debug)
    if command == "uninstall":
        from deployah_plan.commands.uninstall import uninstall_options

        return uninstall_options(params, debug=debug)
    if command == "diff":
        from deployah_plan.commands.diff import diff_options

        return diff_options(params, debug=debug)
    if command == "revision":
        from deployah_plan.commands.history import revision_options

        return revision_options(params, debug=debug)
    if command == "releases":
        from deployah_plan.commands.history import releases_options

        return releases_options(params, debug=debug)
    raise ValueError(f"{command} is not a plan command")


class PlanArguments(Struct, frozen=True, kw_only=True):
    """`helm plan upgrade|rollback|uninstall|diff|revision|releases`: the command's request, the
    file --out saves the plan to, the ignore rules' flags, how the plan is printed and what the
    exit code says. `debug`: --debug or HELM_DEBUG."""

    command: str
    request: Request
    out: str | None
    ignore: tuple[str, ...]
    ignore_files: tuple[str, ...]
    printing: Printing
    gating: Gating
    debug: bool

    @classmethod
    def of(cls, command: str, params: Mapping[str, Any], *, debug: bool) -> PlanArguments:
        gating = Gating.of(params)  # an unknown gate is refused first
        return cls(command=command, request=_request(command, params, debug), out=params["out"],
                   ignore=tuple(params["ignore"]), ignore_files=tuple(params["ignore_files"]),
                   printing=Printing.of(params), gating=gating, debug=debug)


class ShowArguments(Struct, frozen=True, kw_only=True):
    """`helm plan show PLAN.json`: the saved plan's path, how it is printed, what the exit code
    says, and whether a plan whose seal does not hold is shown (--allow-edited)."""

    saved: str
    printing: Printing
    gating: Gating
    debug: bool
    allow_edited: bool = False

    @classmethod
    def of(cls, params: Mapping[str, Any], *, debug: bool) -> ShowArguments:
        gating = Gating.of(params)
        return cls(saved=params["saved"], printing=Printing.of(params), gating=gating, debug=debug,
                   allow_edited=bool(params.get("allow_edited")))


__all__ = ["Gating", "PlanArguments", "Printing", "ShowArguments"]
