"""The process's entry point (scripts/helm-plan, `python -m deployah_plan`, the console script).

`run` catches SIGTERM and Ctrl-C, starts what it can of the plan's helm calls before importing
the rest of helm plan (sources/early.py), runs the command line (cli.py `main`) with them, and
ends every helm process left, then the process once its output is written. Python's own teardown is skipped: freeing every module and object one by one took
40–55 ms of a kube-state-metrics plan (a tenth of it), and nothing is left for it to do. Every
`with` block has run by then (temporary folders removed, helm processes waited for, --out
written), and helm plan registers no exit handlers.

The cyclic garbage collector is off from the start, as `main` has it for the command: the
imports make thousands of classes and functions, which its passes walked again and again for
nothing (a tenth of a plan's imports); a command is one short process.
"""
from __future__ import annotations

import gc
import os
import sys
from typing import TYPE_CHECKING, NoReturn, Sequence

if TYPE_CHECKING:
    from deployah_plan.sources.early import HelmCalls


def run() -> NoReturn:
    gc.disable()
    from deployah_plan.console import Exit, say
    from deployah_plan.errors import Interrupted
    from deployah_plan.sources.early import HelmCalls

    calls = HelmCalls()
    # Before anything starts: SIGTERM or Ctrl-C during the imports ends the helm processes
    # started before them too.
    calls.catch_signals()
    try:
        code = command(sys.argv[1:], calls)
    except (Interrupted, KeyboardInterrupt):  # before cli.main could catch it
        say("helm plan: interrupted")
        code = Exit.INTERRUPTED
    calls.end()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:  # None: the process was started with that descriptor closed
                stream.flush()
        except (OSError, ValueError):  # a closed pipe: what it could take was written
            code = code or Exit.ERROR
    os._exit(code)


def command(args: Sequence[str], calls: HelmCalls) -> int:
    """Run one command line with the command's helm processes `calls`, which the caller owns:
    the plan's first helm calls started, then a plan command line run without click
    (command_line.py), anything else (help, a refused command line, completion, the other
    commands) by click (cli.py)."""
    calls.start(args)
    from deployah_plan.later import msgspec_extras

    msgspec_extras()  # before anything imports msgspec: its modules a plan does not use run later
    from deployah_plan.command_line import run as run_direct

    code = run_direct(args, calls)
    if code is None:
        from deployah_plan.cli import main

        code = main(list(args), calls=calls)
    return code
