"""The output formats, one table: each writer is a function of the plan and one WriteOptions.

A new format is one module in render/ with `render(plan, options) -> str` and one entry here;
the command line's `-o` choices and the tests' list of formats come from this table. `json` is
the saved plan's document, written by planfile/write.py (the file format's own package).
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Callable, Mapping

from deployah_plan.render.options import WriteOptions

if TYPE_CHECKING:
    from deployah_plan.model import Plan

Writer = Callable[["Plan", WriteOptions], str]


class _Module:
    """The `render` of a module in render/ (or `package`), imported when it first writes: a
    command imports only the writer it prints with (and `--help` none)."""

    def __init__(self, name: str, function: str = "render", package: str = "deployah_plan.render") -> None:
        self.name = name
        self.function = function
        self.package = package

    def __call__(self, plan: Plan, options: WriteOptions) -> str:
        render: Writer = getattr(importlib.import_module(f"{self.package}.{self.name}"), self.function)
        return render(plan, options)


WRITERS: Mapping[str, Writer] = {
    "text": _Module("text"),
    "json": _Module("write", package="deployah_plan.planfile"),  # the saved plan's document (--out)
    "markdown": _Module("markdown"),  # for a pull-request comment
    "gitlab": _Module("gitlab"),  # the counts GitLab's merge-request widget reads
    "github": _Module("findings", "render_github"),  # failures and warnings as GitHub annotations, at their templates
    "codequality": _Module("findings", "render_codequality"),  # the same as a GitLab Code Quality report
    "summary": _Module("summary"),  # one line per change and the counts (helm diff --output simple)
    "table": _Module("text"),  # helm's default -o, pasted from a helm command line
}
FORMATS = tuple(WRITERS)

__all__ = ["FORMATS", "WRITERS", "WriteOptions", "Writer"]
