"""The steps a plan command takes once its flags are parsed, each its own function, in order:

1. `make`: the plan and what it read (`Planned`), with the ignore rules applied;
2. `save`: with --out, the JSON plan and its inputs record (record.py), sealed;
3. `show`: the plan printed by the writer `-o` names (render/writers.py);
4. `gate_exit`: the --fail-on gates and --detailed-exitcode, as the exit code.

The plan is printed (and saved) before the gates are checked, so a blocked plan can still be
read. `helm plan verify` takes step 1 only, then compares.
"""
from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from msgspec import Struct, structs

from deployah_plan.command_line import say
from deployah_plan.core.gates import Gate, check_gates, parse_gate, unevaluated
from deployah_plan.render.words import gate as gate_words
from deployah_plan.core.ignore import IgnoreRule, apply_ignore, parse_file, parse_flag
from deployah_plan.errors import UsageError
from deployah_plan.escape import log_line
from deployah_plan.render.writers import WRITERS, WriteOptions
from deployah_plan.sources.files import FileReader, describe

if TYPE_CHECKING:
    from deployah_plan.model import Plan
    from deployah_plan.record import Named, Planned
    from deployah_plan.sources.early import HelmCalls

EXIT_OK, EXIT_CHANGES, EXIT_GATE = 0, 2, 3


# Each plan command's planner, from its parsed parameters: (params, debug, reader, digest_chart,
# calls: the command's helm processes, sources/early.py). Each imports its command's module when
# it runs: a command loads only what it uses.
def _upgrade(params: Mapping[str, Any], debug: bool, _reader: FileReader, digest_chart: bool,
             calls: HelmCalls | None) -> Planned:
    from deployah_plan.commands.upgrade import plan_upgrade, upgrade_options

    return plan_upgrade(upgrade_options(params, debug=debug), digest_chart=digest_chart, calls=calls)


def _rollback(params: Mapping[str, Any], debug: bool, _reader: FileReader, _digest_chart: bool,
              _calls: HelmCalls | None) -> Planned:
    from deployah_plan.commands.rollback import plan_rollback, rollback_options

    return plan_rollback(rollback_options(params, debug=debug))


def _uninstall(params: Mapping[str, Any], debug: bool, _reader: FileReader, _digest_chart: bool,
              _calls: HelmCalls | None) -> Planned:
    from deployah_plan.commands.uninstall import plan_uninstall, uninstall_options

    return plan_uninstall(uninstall_options(params, debug=debug))


def _diff(params: Mapping[str, Any], debug: bool, reader: FileReader, _digest_chart: bool,
              _calls: HelmCalls | None) -> Planned:
    from deployah_plan.commands.diff import diff_options, plan_diff

    return plan_diff(diff_options(params, debug=debug), reader)


def _revision(params: Mapping[str, Any], debug: bool, _reader: FileReader, _digest_chart: bool,
              _calls: HelmCalls | None) -> Planned:
    from deployah_plan.commands.history import plan_revision, revision_options

    return plan_revision(revision_options(params, debug=debug))


def _releases(params: Mapping[str, Any], debug: bool, _reader: FileReader, _digest_chart: bool,
              _calls: HelmCalls | None) -> Planned:
    from deployah_plan.commands.history import plan_releases, releases_options

    return plan_releases(releases_options(params, debug=debug))


Planner = Callable[[Mapping[str, Any], bool, FileReader, bool, "HelmCalls | None"], "Planned"]
PLANNERS: Mapping[str, Planner] = {"upgrade": _upgrade, "rollback": _rollback, "uninstall": _uninstall, "diff": _diff,
                                  "revision": _revision, "releases": _releases}


class Printing(Struct, frozen=True, kw_only=True):
    """How the plan is printed and what the exit code says: the output flags, gates parsed."""

    output: str
    show_secrets: bool
    full_values: bool
    no_color: bool
    color: bool
    suppress: frozenset[str]
    source_root: str
    detailed_exitcode: bool
    gates: tuple[Gate, ...]

    @classmethod
    def of(cls, params: Mapping[str, Any]) -> "Printing":
        return cls(output=params["output"], show_secrets=params["show_secrets"], full_values=params["full_values"],
                   no_color=params["no_color"], color=params["color"], suppress=frozenset(params["suppress"]),
                   source_root=params["source_root"],
                   detailed_exitcode=params["detailed_exitcode"],
                   gates=tuple(parse_gate(g) for g in params["fail_on"]))


def ignore_rules(flags: Sequence[str], files: Sequence[str], reader: FileReader) -> list[IgnoreRule]:
    rules = [parse_flag(flag, i) for i, flag in enumerate(flags, 1)]
    for name in files:
        content = reader.read(name, "ignore file", "check the --ignore-file path")
        rules += parse_file(content, describe(name))
    return rules


def make(command: str, params: Mapping[str, Any], *, debug: bool, reader: FileReader,
         digest_chart: bool, calls: HelmCalls | None = None) -> Planned:
    """Step 1: the plan and what it read, the ignore rules applied. `digest_chart`: a record
    will be made of it (--out, verify). `calls`: the helm processes the command line's owner
    started and ends (sources/early.py)."""
    rules = ignore_rules(params["ignore"], params["ignore_files"], reader)
    planned = PLANNERS[command](params, debug, reader, digest_chart, calls)
    return structs.replace(planned, plan=apply_ignore(planned.plan, rules))


def save(path: str, planned: Planned, command: Named, params: Mapping[str, Any], argv: Sequence[str]) -> None:
    """Step 2: the JSON plan with its inputs record, sealed."""
    from deployah_plan.commands.show import write_saved_plan
    from deployah_plan.record import Digester, make_record

    digester = Digester.new()
    record = make_record(planned.facts, planned.plan.header, command, params, argv, digester)
    write_saved_plan(path, planned.plan, bool(params["show_secrets"]), record, digester)


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


def _write(document: str) -> None:
    """Write to standard output; a full disk or a closed pipe is an error, in one line."""
    try:
        sys.stdout.write(document)
        sys.stdout.flush()
    except OSError as err:
        # What could not be written stays in the buffer, and the interpreter would try to
        # flush it again on exit: point standard output at nothing first.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        raise UsageError(f"cannot write the plan to standard output: {err.strerror or err}",
                         "check where standard output goes (a full disk, a closed pipe), or save it with --out FILE") from None


def write_options(printing: Printing) -> WriteOptions:
    return WriteOptions(show_secrets=printing.show_secrets, colour=_use_colour(printing.no_color, printing.color),
                        width=_text_width(), suppress=printing.suppress, source_root=printing.source_root,
                        full_values=printing.full_values)


def show(plan: Plan, printing: Printing) -> None:
    """Step 3: the plan, printed."""
    _write(WRITERS[printing.output](plan, write_options(printing)))


def write(document: str) -> None:
    """Standard output, written as a plan is (a full disk or a closed pipe: one line)."""
    _write(document)


def gate_exit(plan: Plan, printing: Printing) -> int:
    """Step 4: a matched gate is 3 (each named on stderr); else 2 with --detailed-exitcode when
    something changes; else 0."""
    gates = list(printing.gates)
    matches = check_gates(plan, gates)
    for match in matches:  # an object's name and a warning's text come from the chart: escaped
        say(log_line(f"helm plan: {gate_words.match_text(match)}"))
    for item in unevaluated(plan, gates):
        say(log_line(f"helm plan: {gate_words.unevaluated_text(item)}"))
    if matches:
        return EXIT_GATE
    return EXIT_CHANGES if printing.detailed_exitcode and plan.has_changes else EXIT_OK


def run_plan(name: str, command: Named, params: Mapping[str, Any], argv: Sequence[str], *,
             debug: bool, calls: HelmCalls | None = None) -> int:
    """`helm plan upgrade|rollback|uninstall|diff`: every step."""
    printing = Printing.of(params)
    out = params["out"]
    planned = make(name, params, debug=debug, reader=FileReader(), digest_chart=bool(out), calls=calls)
    if out:
        save(out, planned, command, params, argv)
    show(planned.plan, printing)
    return gate_exit(planned.plan, printing)


def run_show(path: str, params: Mapping[str, Any]) -> int:
    """`helm plan show PLAN.json`: a saved plan printed again, gates checked."""
    from deployah_plan.commands.show import check_json_output, read_saved_plan

    printing = Printing.of(params)
    plan = read_saved_plan(path)
    if printing.output == "json":
        check_json_output(plan, path)
    show(plan, printing)
    return gate_exit(plan, printing)


__all__ = ["PLANNERS", "Printing", "gate_exit", "ignore_rules", "make", "run_plan", "run_show", "save", "show", "write",
           "write_options"]
