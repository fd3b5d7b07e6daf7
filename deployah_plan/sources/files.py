"""The one way a command reads an input file: manifests, live state, ignore rules, saved plans.

One policy for every file a person names on the command line:
- `-` is standard input, and at most one input of a command may be it (the second would read
  nothing, or the rest of the first);
- at most `MAX_INPUT_BYTES` are read: a bigger input, or an endless one (`/dev/zero`), is
  refused before it can exhaust memory;
- pipes, FIFOs and process substitution (`<(helm template ...)`) are read as streams, under the
  same bound; a directory is refused;
- the text must be UTF-8 (as Kubernetes and Helm read manifests); a bad byte is reported with
  its line.

Every failure is the caller's error type (a UsageError for a flag, a LiveStateError for the
live state file) with one line naming the input and what to do next.
"""
from __future__ import annotations

import sys
from typing import BinaryIO

from deployah_plan.errors import PlanError, UsageError

__all__ = ["MAX_INPUT_BYTES", "FileReader", "describe"]

MAX_INPUT_BYTES = 64 * 1024 * 1024  # a release of several thousand objects is a few MB


def describe(path: str) -> str:
    """How an input is named in messages."""
    return "standard input" if path == "-" else path


class FileReader:
    """Reads the input files of one command; remembers which one took standard input."""

    def __init__(self, stdin: BinaryIO | None = None) -> None:
        self._stdin = stdin
        self._stdin_taken_by = ""

    def read(self, path: str, what: str, hint: str, error: type[PlanError] = UsageError) -> str:
        """The text of `path` (`-`: standard input); `what` names the input in messages
        ("ignore file", "live state file"), `hint` is the next step when it cannot be read."""
        if path == "-":
            if self._stdin_taken_by:
                raise UsageError(f"the {self._stdin_taken_by} and the {what} both read standard input",
                                 "read at most one input from standard input (-)")
            self._stdin_taken_by = what
            stream = self._stdin or sys.stdin.buffer
            data = self._bounded(stream, path, what, error)
        else:
            try:
                with open(path, "rb") as handle:
                    data = self._bounded(handle, path, what, error)
            except OSError as err:  # missing, a directory, no permission: the system's own words
                raise error(f"cannot read the {what} {path}: {err.strerror or err}", hint) from None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as err:
            line = data.count(b"\n", 0, err.start) + 1
            raise error(f"the {what} {describe(path)} is not UTF-8 text (byte 0x{data[err.start]:02x} on line {line})",
                        "save it as UTF-8") from None

    @staticmethod
    def _bounded(stream: BinaryIO, path: str, what: str, error: type[PlanError]) -> bytes:
        try:
            data = stream.read(MAX_INPUT_BYTES + 1)
        except OSError as err:
            raise error(f"cannot read the {what} {describe(path)}: {err.strerror or err}",
                        "pass a regular file or a pipe") from None
        if len(data) > MAX_INPUT_BYTES:
            raise error(f"the {what} {describe(path)} is larger than {MAX_INPUT_BYTES // 2**20} MiB, the most helm plan reads",
                        "pass the file itself (not a device); split a larger input")
        return data
