"""The output formats, one table: each writer is a function of the plan and one WriteOptions.

A new format is one module in render/ with `render(plan, options) -> str` and one entry here;
the command line's `-o` choices and the tests' list of formats come from this table.
"""
from __future__ import annotations

from typing import Callable, Mapping

from deployah_plan.model import Plan
from deployah_plan.render import gitlab, json_doc, markdown, text
from deployah_plan.render.options import WriteOptions

Writer = Callable[[Plan, WriteOptions], str]

WRITERS: Mapping[str, Writer] = {
    "text": text.render,
    "json": json_doc.render,
    "markdown": markdown.render,  # for a pull-request comment
    "gitlab": gitlab.render,  # the counts GitLab's merge-request widget reads
    "table": text.render,  # helm's default -o, pasted from a helm command line
}
FORMATS = tuple(WRITERS)

__all__ = ["FORMATS", "WRITERS", "WriteOptions", "Writer"]
