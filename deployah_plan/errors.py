"""The one error type the command line turns into a message and an exit code.

    PlanError            anything that stops a plan; its message is one line that says
     |                   what is wrong and what to do next
     +-- UsageError      the command was called wrongly (a flag, a missing file)
     +-- HelmError       helm is missing, or a helm call failed (helm's own message kept)
     +-- ManifestError   a rendered manifest cannot be planned (bad YAML, no kind, duplicates)
     +-- ReleaseError    the release store says no (pending operation, unreadable release)
     +-- LiveStateError  a saved live state file cannot be read (missing, bad YAML, not objects),
                         or --require-cluster and the cluster cannot be read

A cluster that cannot be reached while reading the live state is not an error: the reader
reports it in its result (sources/cluster.py), so a plan can say what it could not see
(unless the user asked for --require-cluster).

Every PlanError exits with code 1. Nothing else is caught: an unexpected exception is a
bug and is shown as one with `--debug`.

`Interrupted` is apart: SIGTERM or Ctrl-C (sources/early.py `HelmCalls.interrupt`), exit 130.
"""
from __future__ import annotations


class PlanError(Exception):
    """A reason the plan cannot be made, worded for the person who ran the command."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        text = " ".join(self.message.split())
        return f"{text}; {self.hint}" if self.hint else text


class UsageError(PlanError):
    pass


class HelmError(PlanError):
    pass


class ManifestError(PlanError):
    pass


class ReleaseError(PlanError):
    pass


class LiveStateError(PlanError):
    pass


class Interrupted(BaseException):
    """SIGTERM or Ctrl-C stops the command. A BaseException, as KeyboardInterrupt is, so that no
    `except Exception` on the way out holds it; not a KeyboardInterrupt, which click answers
    with an empty line on stderr before helm plan says it was interrupted."""
