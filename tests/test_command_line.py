"""A plan command line read without click (deployah_plan/command_line.py) reads to exactly the
parameters click reads it to, and so to the same typed arguments (commands/arguments.py), and
everything else is left to click: on many command lines (hypothesis), either the direct reading
is None or click accepts the line with the same parameters. That a plan does not import click:
tests/e2e/test_command_line.py."""
from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from typing import Any, Sequence

import click
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from deployah_plan import command_line, flags
from deployah_plan.cli import main_group
from deployah_plan.commands.arguments import PlanArguments, ShowArguments
from deployah_plan.errors import UsageError


def _clicked(args: Sequence[str]) -> tuple[str, dict[str, Any]] | None:
    """The command and parameters click reads `args` to; None when it refuses them or
    answers them itself (help)."""
    out = io.StringIO()
    try:
        with redirect_stdout(out), redirect_stderr(out):
            ctx = main_group.make_context("helm plan", list(args))
            rest = [*getattr(ctx, "_protected_args", []), *ctx.args]
            name, command, rest = main_group.resolve_command(ctx, rest)
            assert command is not None and name is not None
            sub = command.make_context(name, rest, parent=ctx)
            return name, dict(sub.params)
    except (click.ClickException, click.exceptions.Exit, UsageError):
        return None


def _typed(command: str, params: dict[str, Any]) -> PlanArguments | ShowArguments | str:
    """The command's typed arguments, or the error that refuses them (an unknown gate)."""
    try:
        if command == "show":
            return ShowArguments.of(params, debug=False)
        return PlanArguments.of(command, params, debug=False)
    except UsageError as err:
        return str(err)


def _same(args: Sequence[str]) -> tuple[str, dict[str, Any]] | None:
    direct = command_line.read(args)
    if direct is not None:
        clicked = _clicked(args)
        assert direct == clicked, args
        assert _typed(*direct) == _typed(*clicked), args
    return direct


def _spellings(table: Sequence[flags.Flag]) -> list[str]:
    names = [name for flag in table for name in (*flag.names, *([flag.short] if flag.short else []))]
    return names + ["--nope", "-x", "-h", "--help", "--", "-", "-if", "-fa.yaml", "-f=a.yaml", "--wait-value"]


VALUES = ["x", "", "0", "1", "3", "-1", "+3", " 2", "010", "1_0", "0x1", "a=b", "a=b,c=d", "a,b", "a=b,c", "text",
          "json", "markdown", "jsn", "auto", "template", "server", "true", "false", "csa", "ssa", "helm3", "client",
          "-", "shop", "./chart", "delete:PersistentVolumeClaim", "--set", "-n"]


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    command = draw(st.sampled_from([*command_line.ARGUMENTS, "verify", "schema", "version", "helm-diff", "nope",
                                    "revision", "releases"]))
    table = flags.BY_COMMAND.get(command, flags.UPGRADE)
    words: list[str] = [command]
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.integers(0, 3))
        if kind == 0:
            words.append(draw(st.sampled_from(VALUES)))
        else:
            spelling = draw(st.sampled_from(_spellings(table)))
            value = draw(st.sampled_from(VALUES))
            words += [spelling] if kind == 1 else [spelling, value] if kind == 2 else [f"{spelling}={value}"]
    return words


@st.composite
def plan_lines(draw: st.DrawFn) -> list[str]:
    """Mostly valid plan command lines: the arguments the command takes, and its flags with
    values of the kind each takes (and a few that are not)."""
    command = draw(st.sampled_from(list(command_line.ARGUMENTS)))
    arguments = [draw(st.sampled_from(["shop", "0", "3", "-", "./chart", "x", "-1"]))
                 for _ in range(len(command_line.ARGUMENTS[command]) - draw(st.integers(0, 1)))]
    words: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        flag = draw(st.sampled_from(flags.BY_COMMAND[command]))
        names = [*flag.names, *([flag.short] if flag.short else [])]
        name = draw(st.sampled_from(names))
        kinds = list(flag.type.names) if isinstance(flag.type, flags.Choice) else ["text", "json", "markdown"] \
            if flag.dest == "output" else []
        value = draw(st.sampled_from([*kinds, *VALUES]))
        if not flag.takes_value or flag.bare:
            words += draw(st.sampled_from([[name], [f"{name}={value}"], [name, value]]))
        else:
            words += draw(st.sampled_from([[name, value], [f"{name}={value}"]]))
    spot = draw(st.integers(0, len(words)))
    return [command, *words[:spot], *arguments, *words[spot:]]


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(command_lines())
def test_a_line_read_directly_reads_as_click_reads_it(args: list[str]) -> None:
    _same(args)


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan_lines())
def test_a_plan_line_read_directly_reads_as_click_reads_it(args: list[str]) -> None:
    _same(args)


@pytest.mark.parametrize("args", [
    ["upgrade", "shop", "./chart"],
    ["upgrade", "shop", "./chart", "-n", "shop", "-f", "a.yaml,b.yaml", "--set", "a=b,c=d", "-o", "json", "--atomic",
     "--wait", "--timeout", "10m", "--history-max", "+5", "--fail-on", "delete", "--detailed-exitcode"],
    ["upgrade", "-if=v.yaml", "shop", "./chart", "--wait=watcher", "--dry-run", "--install=false", "--labels", "a=b"],
    ["upgrade", "shop", "oci://r/c", "--version", "1.0", "--password", "x", "--render", "server", "--server-side", "true"],
    ["upgrade", "shop", "./chart", "-", "--debug"][:3] + ["--debug"],
    ["rollback", "shop"], ["rollback", "shop", "3", "-n", "x", "-o", "markdown"],
    ["uninstall", "shop", "--keep-history"],
    ["diff", "a.yaml", "-", "--release", "r", "--kind-order", "helm4", "--apply-method", "ssa"],
    ["show", "plan.json", "-o", "json", "--fail-on", "delete"],
    ["revision", "shop", "4"], ["revision", "shop", "4", "5", "-n=shop"], ["releases", "a", "b", "-nshop"],
])
def test_a_valid_plan_command_line_is_read_without_click(args: list[str]) -> None:
    assert _same(args) is not None


@pytest.mark.parametrize("args", [
    ["upgrade", "shop"], ["upgrade", "shop", "c", "extra"], ["upgrade", "shop", "c", "--help"], ["upgrade", "-h"],
    ["upgrade", "shop", "c", "-o", "jsn"], ["upgrade", "shop", "c", "--render", "nope"], ["upgrade", "shop", "c", "--"],
    ["upgrade", "shop", "c", "--bogus"], ["rollback", "shop", "-1"], ["rollback", "shop", "x"],
    ["revision", "shop", "0"], ["revision", "shop"], ["releases", "a"], ["verify", "plan.json"], ["schema"],
    ["version"], ["helm-diff", "upgrade"], [],
    ["--version"], ["nope"],
])
def test_what_click_must_answer_is_left_to_it(args: list[str]) -> None:
    assert command_line.read(args) is None


def test_revision_and_releases_read_the_namespace_as_helm_does() -> None:
    """pflag's `-n=x` and `-nx` are the namespace x, on every command (click alone read "=x")."""
    for args in (["revision", "shop", "4", "-n=shop"], ["releases", "a", "b", "-nshop"]):
        parsed = command_line.read(args)
        assert parsed is not None and parsed[1]["namespace"] == "shop", args
        assert _same(args) is not None


def test_the_arguments_are_clicks() -> None:
    for name, arguments in command_line.ARGUMENTS.items():
        declared = [p for p in main_group.commands[name].params if isinstance(p, click.Argument)]
        assert [p.name for p in declared] == [a.name for a in arguments]
        for param, argument in zip(declared, arguments):
            assert param.required is not argument.optional
            minimum = getattr(param.type, "min", None)
            assert minimum == argument.minimum
            if argument.optional:
                assert param.default == 0


def test_completion_is_left_to_click(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_HELM_PLAN_COMPLETE", "bash_complete")
    assert command_line.read(["diff", "a", "b"]) is None


def test_no_regular_expression_is_compiled_by_importing_a_plans_modules() -> None:
    """Each module's patterns are compiled when first used (startup.py `lazy`), not at import."""
    import importlib
    import pkgutil
    import re

    import deployah_plan
    from deployah_plan.startup import Pattern

    for module in pkgutil.walk_packages(deployah_plan.__path__, "deployah_plan."):
        if module.name == "deployah_plan.__main__":  # runs the command line
            continue
        loaded = importlib.import_module(module.name)
        for name, value in vars(loaded).items():
            assert not isinstance(value, re.Pattern), f"{module.name}.{name} is compiled at import"
            if isinstance(value, Pattern):
                assert value.compiled.pattern == value.pattern
