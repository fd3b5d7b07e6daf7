"""The user's terminal outside a writer: the exit codes (`Exit`), one line on standard error
(`say`: errors, --debug's helm commands, progress.py's slow steps), and standard output written
as a plan is (`write`).

Imported before the first helm call (sources/early.py, entry.py), so it imports nothing but
what is loaded by then anyway (enum: flags.py and signal import it).

An error wins over everything; a matched gate wins over `CHANGES`, so a CI job that passes both
--detailed-exitcode and --fail-on sees 3 when a gate matches, else 2 or 0. The plan is printed
(and --out written) before the gates are checked, so a blocked plan can still be read.
"""
from __future__ import annotations

import enum
import os
import sys

from deployah_plan.errors import UsageError


class Exit(enum.IntEnum):
    """helm plan's exit codes; docs/output.md's table says each one's `MEANING` (a test holds the
    two equal)."""

    OK = 0
    ERROR = 1
    CHANGES = 2
    GATE = 3
    MOVED = 4
    INTERRUPTED = 130  # as a shell reports a command stopped by a signal


MEANING = {
    Exit.OK: "the plan was made (with `--detailed-exitcode`: nothing would change)",
    Exit.ERROR: "an error; one line on stderr says what is wrong and what to do next",
    Exit.CHANGES: "with `--detailed-exitcode` only: something would change (resources, hooks, or a chart CRD that "
                  "changed; ignored changes do not count)",
    Exit.GATE: "a `--fail-on` gate matched; stderr names the gate and what matched it",
    Exit.MOVED: "`helm plan verify` only: the saved plan no longer holds; stdout says what moved and how the plan "
                "differs",
    Exit.INTERRUPTED: "stopped by Ctrl-C or SIGTERM (a cancelled CI job), within 2 seconds in any phase: every helm "
                      "process it started is ended and its temporary files (a pulled chart; the release's values, "
                      "when `-f -` or `--set-file key=-` takes standard input) are removed first",
}


def say(message: str) -> None:
    """One message on stderr, as click.echo writes it."""
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def write(document: str) -> None:
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


__all__ = ["Exit", "MEANING", "say", "write"]
