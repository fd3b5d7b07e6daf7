"""What shell completion knows of the command line, derived from the commands' flags.

Helm completes a plugin's words from two files in the plugin folder (Helm's `load_plugins.go`,
the same in Helm 3 and Helm 4): `completion.yaml`, read when completing, which lists the
commands and the flags of each (helm makes them fake switches, for completion only); and the
executable `plugin.complete`, which helm runs for the words of a command that has no
sub-commands, with the command's name, the words typed after it (less helm's own flags, which
helm reads itself and passes on as HELM_NAMESPACE, HELM_KUBECONTEXT, ...) and the word being
completed, and whose output lines are the completions (a last line `:N` is cobra's directive).

`completion_yaml()` is that file; `shell_tables()` is the part of plugin.complete that must know
the flags (which read the next word as their value, which take a file, which take one of a few
values) and what each command's arguments are. scripts/gen-completion writes both from the
click commands, whose options come from the flag table (flags.py); tests/test_completion.py
holds them in step.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import click

# What each command's arguments are, in order: a release of the namespace, a revision of the
# release named first, or a file. `verify`'s words after `--` are a helm command, not completed.
ARGUMENTS: Mapping[str, tuple[str, ...]] = {
    "upgrade": ("release", "file"),
    "rollback": ("release", "revision"),
    "uninstall": ("release",),
    "revision": ("release", "revision", "revision"),
    "releases": ("release", "release"),
    "diff": ("file", "file"),
    "show": ("file",),
    "verify": ("file",),
    "kube-upgrade": ("release",),
    "schema": (),
    "version": (),
}
# The top-level flags the launcher and the entry point read (scripts/helm-plan, cli.py).
TOP_FLAGS = ("--version", "--help", "--prepare", "--env-path")
_FILE_METAVARS = frozenset({"FILE", "PATH", "DIR", "FILES"})
BEGIN = "# --- written by scripts/gen-completion from the flag table: do not edit ---"
END = "# --- end of what scripts/gen-completion writes ---"


def _commands() -> list[tuple[str, click.Command]]:
    from . import cli

    group = cli.main_group
    ctx = click.Context(group)
    listed = [(name, group.get_command(ctx, name)) for name in group.list_commands(ctx)]
    return [(name, command) for name, command in listed if command is not None]


def _options(command: click.Command) -> list[click.Option]:
    return [p for p in command.params if isinstance(p, click.Option)]


def _takes_word(option: click.Option) -> bool:
    """Whether the flag, given without `=`, reads the next word as its value (pflag: a flag with
    a value that is not optional, flags.Flag.bare)."""
    from . import flags

    if option.is_flag:
        return False
    bare = {name for table in flags.BY_COMMAND.values() for flag in table if flag.bare for name in flag.names}
    return not any(name in bare for name in option.opts)


def _is_file(option: click.Option) -> bool:
    return (option.metavar or "").upper() in _FILE_METAVARS or "--values" in option.opts


def completion_yaml() -> str:
    """completion.yaml: each command with its flags (long names without `--`, short ones
    without `-`), in `helm plan --help`'s order."""
    lines = ["# Shell completion of helm plan's commands and flags, read by helm (`helm completion`).",
             "# Written by scripts/gen-completion from the flag table (deployah_plan/flags.py): do not edit.",
             "name: plan", "flags:"]
    lines += [f"- {flag.lstrip('-')}" for flag in TOP_FLAGS]
    lines.append("commands:")
    for name, command in _commands():
        lines.append(f"- name: {name}")
        names = [opt for option in _options(command) for opt in (*option.opts, *option.secondary_opts)]
        names.append("--help")
        lines.append("  flags:")
        lines += [f"  - {opt.lstrip('-')}" for opt in sorted(set(names), key=names.index)]
    return "\n".join(lines) + "\n"


def _case(rows: Sequence[tuple[str, str]]) -> list[str]:
    return [f"    {pattern}) echo '{value}' ;;" for pattern, value in rows]


def shell_tables() -> str:
    """The functions plugin.complete reads the command line with, as POSIX sh."""
    value_flags: list[tuple[str, str]] = []
    file_flags: list[tuple[str, str]] = []
    choices: list[tuple[str, str]] = []
    for name, command in _commands():
        options = _options(command)
        value_flags.append((name, " ".join(opt for o in options if _takes_word(o) for opt in o.opts)))
        file_flags.append((name, " ".join(opt for o in options if _takes_word(o) and _is_file(o) for opt in o.opts)))
        for option in options:
            if isinstance(option.type, click.Choice):
                choices.append(("|".join(f"'{name} {opt}'" for opt in option.opts),
                                " ".join(str(c) for c in option.type.choices)))
    lines = [BEGIN,
             "value_flags() {  # COMMAND: the flags that read the next word as their value",
             '  case "$1" in', *_case(value_flags), "  esac", "}",
             "file_flags() {  # COMMAND: those whose value is a file or a folder",
             '  case "$1" in', *_case(file_flags), "  esac", "}",
             "choices() {  # COMMAND FLAG: the values the flag takes, when it takes one of a few",
             '  case "$1 $2" in', *_case(choices), "  esac", "}",
             "arguments() {  # COMMAND: what its arguments are, in order",
             '  case "$1" in', *_case([(name, " ".join(roles)) for name, roles in ARGUMENTS.items()]), "  esac", "}",
             END]
    return "\n".join(lines)


def with_tables(script: str) -> str:
    """plugin.complete's text with the generated part replaced by `shell_tables()`."""
    head, found, rest = script.partition(BEGIN)
    _, found_end, tail = rest.partition(END)
    if not found or not found_end:
        raise ValueError("plugin.complete has no generated part")
    return head + shell_tables() + tail


__all__ = ["ARGUMENTS", "BEGIN", "END", "TOP_FLAGS", "completion_yaml", "shell_tables", "with_tables"]
