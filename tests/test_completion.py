"""Shell completion's tables: completion.yaml and the tables in plugin.complete are the commands'
flags (scripts/gen-completion), each command says what its arguments are, and a flag with an
optional value never takes the next word. Real helm completing through them:
tests/e2e/test_completion.py."""
from __future__ import annotations

import os

import click

from conftest import ROOT
from deployah_plan import cli, completion


def test_completion_yaml_is_the_flag_tables() -> None:
    assert (ROOT / "completion.yaml").read_text() == completion.completion_yaml(), "run scripts/gen-completion"
    script = (ROOT / "plugin.complete").read_text()
    assert completion.with_tables(script) == script, "run scripts/gen-completion"
    assert os.access(ROOT / "plugin.complete", os.X_OK)


def test_each_command_says_what_its_arguments_are() -> None:
    ctx = click.Context(cli.main_group)
    commands = cli.main_group.list_commands(ctx)
    assert sorted(completion.ARGUMENTS) == sorted(commands)
    for name in commands:
        command = cli.main_group.get_command(ctx, name)
        assert command is not None
        arguments = [p for p in command.params if isinstance(p, click.Argument) and p.nargs == 1]
        assert len(completion.ARGUMENTS[name]) == len(arguments), name


def test_a_flag_with_an_optional_value_never_takes_the_next_word() -> None:
    script = (ROOT / "plugin.complete").read_text()
    upgrade = next(line for line in script.splitlines() if line.strip().startswith("upgrade) echo '-f"))
    words = upgrade.split("'")[1].split()
    assert {"-f", "--values", "--set", "-n", "--namespace", "-o", "--output"} <= set(words)
    assert not {"--wait", "--dry-run", "--install", "--atomic", "--debug"} & set(words)
