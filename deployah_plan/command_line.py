"""A valid plan command line run without click, and the one place that turns a command's errors
into messages and exit codes (cli.py's click path uses it too).

click takes 15–25 ms of CPU to import and to build the commands from the flag table, which a
plan of a small chart notices. Everything a plan command line says is read by the flag table
and helm's pflag rules (pflag.py) anyway: click receives one spelling of that reading
(`pflag.click_spelling`), in which every flag is `--long` or `--long=VALUE`. So `read` takes that
same spelling and fills the command's parameters as click would (the same names, defaults and
conversions: a switch False unless given, a repeatable flag a tuple, a choice checked, a
number converted by `int`), for the plan commands whose click command reads by pflag
(`ARGUMENTS`). Whatever it is not sure of, it
leaves to click: `--help` and `-h`, a spelling pflag refuses, `--`, a value click would refuse
(a choice not offered, a number out of range), a wrong count of arguments, shell completion
(click's `_..._COMPLETE` variable), `helm-diff`, verify and the other commands. So click's
answer to those, its usage errors among them, stays byte for byte what it was, and a command
line this module reads is one click would have read to the same parameters
(tests/test_command_line.py compares the two on many command lines).
"""
from __future__ import annotations

import os
from typing import Any, Callable, Mapping, Sequence

from msgspec import Struct, field

from deployah_plan import flags, pflag
from deployah_plan.console import Exit, say
from deployah_plan.errors import Interrupted, PlanError
from deployah_plan.redact import credentials, scrub
from deployah_plan.escape import log_line
from deployah_plan.sources.early import HelmCalls


class Argument(Struct, frozen=True):
    """A command's argument as cli.py declares it to click: its parameter name, and for a number
    its minimum; `optional`: it may be left out, and is then 0 (a revision)."""

    name: str
    minimum: int | None = None
    optional: bool = False


# The arguments of each plan command, in order, as cli.py declares them (a test holds the two
# equal).
ARGUMENTS: Mapping[str, tuple[Argument, ...]] = {
    "upgrade": (Argument("release"), Argument("chart")),
    "rollback": (Argument("release"), Argument("revision", 0, optional=True)),
    "uninstall": (Argument("release"),),
    "revision": (Argument("release"), Argument("first", 1), Argument("second", 0, optional=True)),
    "releases": (Argument("first"), Argument("second")),
    "diff": (Argument("previous"), Argument("desired")),
    "show": (Argument("saved"),),
}


class Session(Struct):
    """What the command line knows beyond one command's parameters: the argv (for the inputs
    record of --out), the --debug decision, which the error handling needs if the command
    fails, and the helm processes of the command (sources/early.py), which its owner ends."""

    argv: list[str]
    calls: HelmCalls
    debug: bool = field(default_factory=lambda: debug_enabled(False))

    def shown(self, text: str) -> str:
        """A message fit to print on stderr: without the credentials this command line carries,
        and each line escaped (escape.py): a message may quote a chart's text."""
        return "\n".join(log_line(line) for line in scrub(text, credentials(self.argv)).split("\n"))


def debug_enabled(flag: bool) -> bool:
    return flag or os.environ.get("HELM_DEBUG", "").lower() in ("1", "true")


def _converted(kind: Any, value: str) -> tuple[bool, Any]:
    """`value` as click converts it for a parameter of this kind; (False, None) where click
    would refuse it."""
    if kind is None:
        return True, value
    if isinstance(kind, flags.Choice):
        return (True, value) if value in kind.names else (False, None)
    try:
        number = int(value)
    except ValueError:
        return False, None
    if isinstance(kind, flags.AtLeast) and number < kind.minimum:
        return False, None
    return True, number


def read(args: Sequence[str]) -> tuple[str, dict[str, Any]] | None:
    """The command and its parameters, as click would pass them, of a plan command line this
    module is sure of; None for anything click must answer."""
    if not args or args[0] not in ARGUMENTS or any(k.startswith("_") and k.endswith("_COMPLETE") for k in os.environ):
        return None
    command = args[0]
    table = flags.BY_COMMAND[command]
    try:
        spelt = pflag.click_spelling(table, args[1:])
    except PlanError:  # click reports it, as it always has
        return None
    from deployah_plan.render.writers import FORMATS

    kinds = {flag.dest: flags.Choice(tuple(FORMATS)) if flag.dest == "output" else flag.type for flag in table}
    params: dict[str, Any] = {}
    by_name: dict[str, tuple[flags.Flag, bool]] = {}  # `--long`, and `--long-value` of an optional value
    for flag in table:
        by_name[flag.long] = (flag, False)
        if not flag.takes_value or flag.bare:
            params[flag.dest] = False
            if flag.bare:
                params[flag.value_dest] = None
                by_name[f"{flag.long}-value"] = (flag, True)
        elif flag.repeatable:
            params[flag.dest] = []
        else:
            params[flag.dest] = flag.default
    given: list[str] = []
    for token in spelt:
        if token == "--" or token == "--help":
            return None
        if not token.startswith("--"):
            given.append(token)
            continue
        name, eq, value = token.partition("=")
        if name not in by_name:
            return None
        flag, hidden = by_name[name]
        if hidden:
            params[flag.value_dest] = value
        elif not eq:
            params[flag.dest] = True
        else:
            ok, converted = _converted(kinds[flag.dest], value)
            if not ok:
                return None
            if flag.repeatable:
                params[flag.dest].append(converted)
            else:
                params[flag.dest] = converted
    for flag in table:
        if flag.repeatable:
            params[flag.dest] = tuple(params[flag.dest])
    arguments = ARGUMENTS[command]
    if not sum(not a.optional for a in arguments) <= len(given) <= len(arguments):
        return None
    for n, argument in enumerate(arguments):
        if n >= len(given):
            params[argument.name] = 0  # an optional revision left out
            continue
        kind = None if argument.minimum is None else flags.AtLeast(argument.minimum)
        ok, params[argument.name] = _converted(kind, given[n])
        if not ok:
            return None
    return command, params


def guarded(session: Session, body: Callable[[], int]) -> int:
    """`body`'s exit code, or the error it raised as one line on stderr and its exit code."""
    try:
        return body()
    except PlanError as err:
        say(session.shown(f"helm plan: error: {err}"))
        return Exit.ERROR
    except (Interrupted, KeyboardInterrupt):
        say("helm plan: interrupted")
        return Exit.INTERRUPTED
    except Exception as err:  # a bug: say so in one line, with the traceback only on request
        if session.debug:
            import traceback

            say(session.shown(traceback.format_exc().rstrip("\n")))
        say(session.shown(f"helm plan: internal error: {type(err).__name__}: {err} (run with --debug for the "
                          "traceback, and please report it)"))
        return Exit.ERROR


def run(args: Sequence[str], calls: HelmCalls) -> int | None:
    """Run a plan command line `read` is sure of, without click, with the typed arguments its
    parameters make (commands/arguments.py, as on click's path); None for cli.main to run."""
    parsed = read(args)
    if parsed is None:
        return None
    command, params = parsed
    session = Session(list(args), calls, debug_enabled(bool(params.get("debug"))))
    from deployah_plan import progress  # as cli.py's --debug callback does on click's path

    progress.show_with_debug(session.debug)

    def body() -> int:
        from deployah_plan.commands.arguments import PlanArguments, ShowArguments
        from deployah_plan.commands.plan_steps import run_plan, run_show

        if command == "show":
            return run_show(ShowArguments.of(params, debug=session.debug))
        return run_plan(PlanArguments.of(command, params, debug=session.debug), session.argv, calls=calls)
    return guarded(session, body)


__all__ = ["ARGUMENTS", "Argument", "Session", "debug_enabled", "guarded", "read", "run"]
