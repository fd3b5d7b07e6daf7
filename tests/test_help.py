"""`--help` is click's, made from the flag table: byte for byte as kept in tests/fixtures/help
(UPDATE_GOLDEN=1 writes them again), and every flag of a command's table shown under its
heading with its names, its metavar and its help."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from deployah_plan import flags
from deployah_plan.cli import main_group

GOLDEN = Path(__file__).parent / "fixtures" / "help"
COMMANDS = ["", "upgrade", "rollback", "uninstall", "revision", "releases", "diff", "kube-upgrade", "show", "verify", "schema",
            "version"]


def _help(command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.delenv("HELM_PLUGIN_NAME", raising=False)
    code = main_group.main(args=[*([command] if command else []), "--help"], prog_name="helm plan",
                           standalone_mode=False)
    assert code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("command", COMMANDS)
def test_help_is_byte_for_byte_as_kept(command: str, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    shown = _help(command, capsys, monkeypatch)
    golden = GOLDEN / f"{command or 'main'}.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_text(shown)
    assert shown == golden.read_text()


@pytest.mark.parametrize("command", [name for name in flags.BY_COMMAND])
def test_help_shows_every_flag_of_the_table(command: str, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    shown = _help(command, capsys, monkeypatch)
    sections: dict[str, str] = {}
    heading = ""
    for line in shown.splitlines():
        if line.endswith(":") and not line.startswith(" "):
            heading = line[:-1]
        elif heading:
            sections[heading] = sections.get(heading, "") + line + "\n"
    for flag in flags.BY_COMMAND[command]:
        names = ", ".join([*([flag.short] if flag.short else []), *flag.names])
        if flag.takes_value and not flag.bare and flag.metavar:
            names += " " + flag.metavar
        section = sections[(flag.group or "Other options") if command == "upgrade" else "Options"]
        row = re.search(r"^  " + re.escape(names) + r"(\s|$)", section, re.M)
        assert row is not None, (flag.long, names)
        words = " ".join(section[row.start():].split())
        assert " ".join(flag.help.split())[:40] in words, flag.long
