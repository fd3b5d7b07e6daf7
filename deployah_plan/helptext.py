"""Help that teaches: options grouped as helm's own help groups them, examples after them, and
the program named as it was invoked (`helm plan` as a helm plugin, `helm-plan` on its own)."""
from __future__ import annotations

import os
import sys
from typing import Any, Sequence

import click

from deployah_plan.flags import Flag
from deployah_plan.pflag import click_spelling


def prog_name(argv0: str | None = None) -> str:
    """`helm plan` when helm runs the plugin (helm sets HELM_PLUGIN_NAME for it), else the name
    the command was started by: `helm-plan`, or `python -m deployah_plan`."""
    plugin = os.environ.get("HELM_PLUGIN_NAME")
    if plugin:
        return f"helm {plugin}"
    name = os.path.basename(argv0 if argv0 is not None else sys.argv[0])
    if not name or name in ("__main__.py", "-c", "-m"):
        return "python -m deployah_plan"
    return name


class GroupedCommand(click.Command):
    """A command whose --help lists its options under headings (`groups`: heading and option
    names, in order; options not named go under "Other options") and ends with examples, where
    `{prog}` is replaced by the program's name as invoked."""

    def __init__(self, *args: Any, groups: Sequence[tuple[str, Sequence[str]]] = (), examples: str = "",
                 table: Sequence[Flag] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.groups = list(groups)
        self.examples = examples
        self.table = tuple(table)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """The arguments read by helm's rules first (pflag.py), when the command's flags come
        from the flag table, so that click reads what helm would."""
        if self.table:
            args = click_spelling(self.table, args)
        return super().parse_args(ctx, args)

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        records: dict[str, tuple[str, str]] = {}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if isinstance(param, click.Option) and record is not None and param.name:
                records[param.name] = record
        placed: set[str] = set()
        for heading, names in self.groups:
            rows = [records[n] for n in names if n in records]
            placed.update(names)
            if rows:
                with formatter.section(heading):
                    formatter.write_dl(rows)
        rest = [record for name, record in records.items() if name not in placed]
        if rest:
            with formatter.section("Other options" if self.groups else "Options"):
                formatter.write_dl(rest)

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)
        if self.examples:
            prog = ctx.find_root().info_name or "helm plan"
            with formatter.section("Examples"):
                for line in self.examples.strip("\n").splitlines():
                    formatter.write(" " * formatter.current_indent + line.replace("{prog}", prog) + "\n")
