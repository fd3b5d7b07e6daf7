"""The process's entry point (scripts/helm-plan, `python -m deployah_plan`, the console script).

`run` catches SIGTERM and Ctrl-C, starts what it can of the plan's helm calls before importing
the rest of helm plan (sources/early.py), runs the command line (cli.py `main`) with them, and
ends every helm process left, then the process once its output is written. The cyclic garbage
collector is off from the start, and the process ends without Python's teardown: two of the
tricks for a fast start (startup.py `collector_off`, `end_now`: why each is safe, and where
its figure is).
"""
from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing is not imported before the first helm call (startup.py `NamedTuple`)
if TYPE_CHECKING:
    from typing import Any, Mapping, NoReturn, Sequence

    from deployah_plan.sources.early import HelmCalls


def run() -> NoReturn:
    from deployah_plan.startup import collector_off, end_now

    collector_off()
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
    from deployah_plan.sources.workdir import remove_left

    remove_left()  # what a worker thread still waiting on a helm's output would have removed
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:  # None: the process was started with that descriptor closed
                stream.flush()
        except (OSError, ValueError):  # a closed pipe: what it could take was written
            code = code or Exit.ERROR
    end_now(code)


def command(args: Sequence[str], calls: HelmCalls) -> int:
    """Run one command line with the command's helm processes `calls`, which the caller owns:
    the plan's first helm calls started, then a plan command line run without click
    (command_line.py), anything else (help, a refused command line, completion, the other
    commands) by click (cli.py)."""
    calls.start(args, reuse=reused_values)
    from deployah_plan.startup import msgspec_extras

    msgspec_extras()  # before anything imports msgspec: its modules a plan does not use run later
    from deployah_plan.command_line import run as run_direct

    code = run_direct(args, calls)
    if code is None:
        from deployah_plan.cli import main

        code = main(list(args), calls=calls)
    return code


def reused_values(environ: Mapping[str, str], name: str, namespace: str) -> tuple[list[Any], dict[str, Any] | None] | None:
    """release/helm_storage.py `reused_values`, imported when a render needs it (sources/early.py)."""
    from deployah_plan.release.helm_storage import reused_values

    return reused_values(environ, name, namespace)
