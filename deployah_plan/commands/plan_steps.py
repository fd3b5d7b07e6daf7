"""The steps a plan command takes once its flags are parsed into its typed arguments
(`PlanArguments`, commands/arguments.py), each its own function, in order:

1. `make`: the plan and what it read (`Planned`), with the ignore rules applied;
2. `save`: with --out, the JSON plan and its inputs record (planfile/), sealed;
3. `show`: the plan printed by the writer `-o` names (render/writers.py);
4. `gate_exit`: the --fail-on gates and --detailed-exitcode, as the exit code.

The plan is printed (and saved) before the gates are checked, so a blocked plan can still be
read. `helm plan verify` takes step 1 only, then compares.
"""
from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Sequence, TypeVar

from msgspec import structs

from deployah_plan.commands.arguments import Gating, PlanArguments, Printing, ShowArguments
from deployah_plan.console import Exit, say, write
from deployah_plan.core.gates import check_gates, unevaluated
from deployah_plan.render.words import gate as gate_words
from deployah_plan.core.ignore import IgnoreRule, apply_ignore, parse_file, parse_flag
from deployah_plan.escape import log_line
from deployah_plan.render.writers import WRITERS, WriteOptions
from deployah_plan.sources.files import FileReader, describe

if TYPE_CHECKING:
    from deployah_plan.model import Plan
    from deployah_plan.planfile.inputs import Planned
    from deployah_plan.sources.early import HelmCalls

_R = TypeVar("_R")


def _request(args: PlanArguments, kind: type[_R]) -> _R:
    """The command's request as the type its planner takes (PlanArguments.of made it so)."""
    if not isinstance(args.request, kind):
        raise TypeError(f"helm plan {args.command} was given a {type(args.request).__name__}, not a {kind.__name__}")
    return args.request


def _planned(args: PlanArguments, reader: FileReader, digest_chart: bool, calls: HelmCalls | None) -> Planned:
    """The plan of the command's planner. Each command's module is imported when it runs: a
    command loads only what it uses."""
    if args.command == "upgrade":
        from deployah_plan.commands.upgrade import UpgradeOptions, plan_upgrade

        return plan_upgrade(_request(args, UpgradeOptions), digest_chart=digest_chart, calls=calls)
    if args.command == "rollback":
        from deployah_plan.commands.rollback import RollbackOptions, plan_rollback

        return plan_rollback(_request(args, RollbackOptions))
    if args.command == "uninstall":
        from deployah_plan.commands.uninstall import UninstallOptions, plan_uninstall

        return plan_uninstall(_request(args, UninstallOptions))
    if args.command == "diff":
        from deployah_plan.commands.diff import DiffOptions, plan_diff

        return plan_diff(_request(args, DiffOptions), reader)
    if args.command == "revision":
        from deployah_plan.commands.history import RevisionOptions, plan_revision

        return plan_revision(_request(args, RevisionOptions))
    from deployah_plan.commands.history import ReleasesOptions, plan_releases

    return plan_releases(_request(args, ReleasesOptions))


def ignore_rules(flags: Sequence[str], files: Sequence[str], reader: FileReader) -> list[IgnoreRule]:
    rules = [parse_flag(flag, i) for i, flag in enumerate(flags, 1)]
    for name in files:
        content = reader.read(name, "ignore file", "check the --ignore-file path")
        rules += parse_file(content, describe(name))
    return rules


def make(args: PlanArguments, *, reader: FileReader, digest_chart: bool, calls: HelmCalls | None = None) -> Planned:
    """Step 1: the plan and what it read, the ignore rules applied. `digest_chart`: a record
    will be made of it (--out, verify). `calls`: the helm processes the command line's owner
    started and ends (sources/early.py)."""
    rules = ignore_rules(args.ignore, args.ignore_files, reader)
    planned = _planned(args, reader, digest_chart, calls)
    return structs.replace(planned, plan=apply_ignore(planned.plan, rules))


def read_files(args: PlanArguments) -> dict[str, Sequence[str]]:
    """What the flags naming files the plan reads were given, by parameter name: the inputs
    record digests each (planfile/inputs.py, FILE_PARAMS)."""
    files: dict[str, Sequence[str]] = {"ignore_files": args.ignore_files}
    if args.command == "upgrade":  # the only command with values flags
        from deployah_plan.commands.upgrade import UpgradeOptions

        values = _request(args, UpgradeOptions).values
        files.update(values_files=values.files, set_file=values.set_file)
    return files


def save(path: str, planned: Planned, args: PlanArguments, argv: Sequence[str]) -> None:
    """Step 2: the JSON plan with its inputs record, sealed."""
    from deployah_plan.planfile.inputs import make_record, regenerated_fields
    from deployah_plan.planfile.seal import Digester
    from deployah_plan.planfile.write import write_saved_plan

    digester = Digester.new()
    record = make_record(planned.inputs, planned.plan.header, args.command, read_files(args), argv, digester,
                         regenerated=regenerated_fields(planned.plan))
    write_saved_plan(path, planned.plan, args.printing.show_secrets, record, digester)


def _use_colour(no_color: bool, color: bool) -> bool:
    """Colour only on a terminal that draws it: not with --no-color, NO_COLOR or TERM=dumb;
    --color forces it (a CI log that draws it), --no-color still wins."""
    if no_color:
        return False
    return color or ("NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb" and sys.stdout.isatty())


def _text_width() -> int | None:
    """Wrap text at the terminal's width (COLUMNS overrides it, as shutil reads it); never when
    the output goes to a pipe or a file, so what a script or a CI log gets does not depend on
    the terminal it was started from."""
    if not sys.stdout.isatty():
        return None
    import shutil  # only on a terminal

    return max(shutil.get_terminal_size().columns, 40)


def write_options(printing: Printing) -> WriteOptions:
    return WriteOptions(show_secrets=printing.show_secrets, colour=_use_colour(printing.no_color, printing.color),
                        width=_text_width(), suppress=printing.suppress, source_root=printing.source_root,
                        full_values=printing.full_values)


def show(plan: Plan, printing: Printing) -> None:
    """Step 3: the plan, printed."""
    write(WRITERS[printing.output](plan, write_options(printing)))


def gate_exit(plan: Plan, gating: Gating) -> Exit:
    """Step 4: a matched gate is GATE (each named on stderr); else CHANGES with
    --detailed-exitcode when something changes; else OK."""
    gates = list(gating.gates)
    matches = check_gates(plan, gates)
    for match in matches:  # an object's name and a warning's text come from the chart: escaped
        say(log_line(f"helm plan: {gate_words.match_text(match)}"))
    for item in unevaluated(plan, gates):
        say(log_line(f"helm plan: {gate_words.unevaluated_text(item)}"))
    return gating.exit(bool(matches), plan.has_changes)


def run_plan(args: PlanArguments, argv: Sequence[str], *, calls: HelmCalls | None = None) -> int:
    """`helm plan upgrade|rollback|uninstall|diff|revision|releases`: every step."""
    planned = make(args, reader=FileReader(), digest_chart=bool(args.out), calls=calls)
    if args.out:
        save(args.out, planned, args, argv)
    show(planned.plan, args.printing)
    return gate_exit(planned.plan, args.gating)


def run_show(args: ShowArguments) -> int:
    """`helm plan show PLAN.json`: a saved plan printed again, gates checked. A plan whose seal
    does not hold (planfile/seal.py: edited, sealed without HELM_PLAN_KEY when it is set here,
    or with it when it is not) is refused; with --allow-edited it is shown under a warning,
    and no gate passes on it (GATE with any --fail-on or --detailed-exitcode). A plan with
    no seal (-o json) is shown with a note saying so, refused when HELM_PLAN_KEY is set."""
    from deployah_plan.errors import UsageError
    from deployah_plan.planfile.read import read_sealed_plan
    from deployah_plan.planfile.seal import Seal
    from deployah_plan.planfile.write import check_json_output

    saved = read_sealed_plan(args.saved)
    where = describe(args.saved)
    if saved.problem and not args.allow_edited:
        raise UsageError(log_line(f"{where} {saved.problem}"),
                         "show the file the plan job wrote, or plan again (--allow-edited shows it under a warning, "
                         "and no gate passes on it)")
    if args.printing.output == "json":
        check_json_output(saved.plan, args.saved)
    if saved.problem:
        say(log_line(f"helm plan: warning: {where} {saved.problem}; shown as it is, and no gate passes on it"))
    elif saved.seal is Seal.NONE:
        say(log_line(f"helm plan: note: {where} has no seal (it was written by -o json, or by a helm plan older than "
                     "format 1.3), so nothing shows that it was not edited"))
    show(saved.plan, args.printing)
    code = gate_exit(saved.plan, args.gating)
    if saved.problem and (args.gating.gates or args.gating.detailed_exitcode):
        say(log_line(f"helm plan: no gate passes on {where}: it may have been edited after it was written"))
        return Exit.GATE
    return code


__all__ = ["gate_exit", "ignore_rules", "make", "read_files", "run_plan", "run_show", "save", "show", "write_options"]
