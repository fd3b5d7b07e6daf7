"""Foreign text (a manifest's names, a chart's `fail` message, helm's stderr) made fit for where
it is shown, so that it can only be read, never act:

- a terminal or a CI log: control characters and bidirectional overrides as visible escapes
  (`escape_controls`: a newline cannot fake a line, ESC cannot clear the screen or open a
  GitLab log section); a line that starts with `::`, which GitHub Actions reads as a workflow
  command (`::add-mask::`, `::stop-commands::`, `::error`), with its first colon written
  `%3A` (`log_line`);
- a GitHub workflow command's message and properties: `%`, CR and LF (and in a property `:`
  and `,`) percent-escaped, so a name can never end the command and start another one;
- markdown: a fenced code block whose fence is longer than any run of backticks in the text
  (`code_block`), so nothing in it closes the fence, and what follows is never the text's own
  headings, mentions or images.

Only the standard library: `scripts/ci-plan` runs `main` to escape what it copies into a job
log and a comment (`python -m deployah_plan.escape log|markdown < FILE`).
"""
from __future__ import annotations

import re
import sys

from deployah_plan.startup import lazy

TYPE_CHECKING = False  # typing is not imported before the first helm call (sources/early.py)
if TYPE_CHECKING:
    from typing import Iterable, Sequence

# What a terminal would act on rather than show: C0 controls but tab, DEL, C1 controls, and
# the bidirectional overrides that reorder what is shown. A name from a manifest could
# otherwise clear the screen, or fake a line of the plan with a newline.
UNPRINTABLE = lazy("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_COMMAND = lazy(r"^(\s*):(?=:)")  # GitHub reads a line as a command after leading white space


def _escaped(match: re.Match[str]) -> str:
    code = ord(match[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """Control characters and bidirectional overrides as visible escapes (`\\x1b`, `\\u202e`),
    as every output shows them."""
    return UNPRINTABLE.sub(_escaped, text) if UNPRINTABLE.search(text) else text


def one_line(text: str) -> str:
    """Text on one line, runs of white space as one space."""
    return " ".join(text.split())


def log_line(text: str) -> str:
    """One line fit for a terminal or a CI log: controls escaped, and a leading `::` that is
    no workflow command."""
    return _COMMAND.sub(r"\1%3A", escape_controls(text))


def workflow_data(text: str) -> str:
    """A GitHub workflow command's message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def workflow_property(text: str) -> str:
    """A GitHub workflow command's property (`file=`, `title=`)."""
    return workflow_data(text).replace(":", "%3A").replace(",", "%2C")


def code_block(lines: Iterable[str], info: str = "") -> str:
    """The lines as a fenced markdown code block, controls escaped, fenced by more backticks
    than the longest run in them."""
    body = "\n".join(escape_controls(line) for line in lines)
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{body}\n{fence}"


def main(argv: Sequence[str] | None = None) -> int:
    """`log`: standard input line by line as `log_line`; `markdown`: as one `code_block`."""
    how = list(sys.argv[1:] if argv is None else argv)
    if how not in (["log"], ["markdown"]):
        sys.stderr.write("usage: python -m deployah_plan.escape log|markdown < FILE\n")
        return 2
    text = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    lines = text.splitlines() if text else []
    out = "".join(log_line(line) + "\n" for line in lines) if how == ["log"] else code_block(lines) + "\n"
    sys.stdout.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

__all__ = ["UNPRINTABLE", "code_block", "escape_controls", "log_line", "main", "one_line", "workflow_data", "workflow_property"]
