"""The output formats, one table: each writer is a function of the plan and one WriteOptions.

A new format is one module in render/ with `render(plan, options) -> str` and one entry here;
the command line's `-o` choices and the tests' list of formats come from this table.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Callable, Mapping

from deployah_plan.render.options import WriteOptions

if TYPE_CHECKING:
    from deployah_plan.model import Plan

Writer = Callable[["Plan", WriteOptions], str]


class _Module:
    """The `render` of a module in render/, imported when it first writes: a command imports
    only the writer it prints with (and `--help` none)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, plan: Plan, options: WriteOptions) -> str:
        render: Writer = importlib.import_module(f"deployah_plan.render.{self.name}").render
        return render(plan, options)


WRITERS: Mapping[str, Writer] = {
    "text": _Module("text"),
    "json": _Module("json_doc"),
    "markdown": _Module("markdown"),  # for a pull-request comment
    "gitlab": _Module("gitlab"),  # the counts GitLab's merge-request widget reads
    "table": _Module("text"),  # helm's default -o, pasted from a helm command line
}
FORMATS = tuple(WRITERS)

__all__ = ["FORMATS", "WRITERS", "WriteOptions", "Writer"]
