"""Colour only on a terminal; --no-color, NO_COLOR and TERM=dumb turn it off. Text wraps at the
terminal's width, and never when written to a pipe or a file."""
from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import clean_env, run_plan

pytestmark = pytest.mark.e2e  # each test starts helm-plan or helm as a process

PREVIOUS = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: one}\n"
DESIRED = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: two}\n"


def _on_terminal(tmp_path: Path, *args: str, previous: str = "p.yaml", **env: str) -> str:
    (tmp_path / "p.yaml").write_text(PREVIOUS)
    (tmp_path / "d.yaml").write_text(DESIRED)
    leader, follower = pty.openpty()
    done = subprocess.run([sys.executable, "-m", "deployah_plan", "diff", previous, "d.yaml", *args],
                          stdout=follower, stderr=subprocess.PIPE, cwd=tmp_path, env=clean_env(**env))
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert done.returncode == 0, done.stderr
    return b"".join(chunks).decode()


def _without_colour(out: str) -> str:
    """The output with its SGR sequences (ESC [ ... m, the only escapes the text writer uses) taken out."""
    return re.sub(r"\x1b\[[0-9;]*m", "", out)


# What the plan says on a terminal without colour: the same text as with colour, escape for escape.
PLAIN_CHANGE = "  ~ ConfigMap default/a  (update)\r\n      ~ data.k: \"one\" -> \"two\"\r\n"


def test_colour_on_a_terminal(tmp_path: Path) -> None:
    coloured = _on_terminal(tmp_path)
    assert "\x1b[33m~\x1b[0m ConfigMap default/a" in coloured
    assert PLAIN_CHANGE in _without_colour(coloured)


def test_no_color_flag_and_environment(tmp_path: Path) -> None:
    """The same plan, each escape sequence left out and nothing else."""
    coloured = _on_terminal(tmp_path)
    for plain in (_on_terminal(tmp_path, "--no-color"), _on_terminal(tmp_path, NO_COLOR="1")):
        assert PLAIN_CHANGE in plain and "\x1b" not in plain
        assert plain == _without_colour(coloured)


def test_term_dumb_turns_colour_off(tmp_path: Path) -> None:
    plain = _on_terminal(tmp_path, TERM="dumb")
    assert PLAIN_CHANGE in plain and "\x1b" not in plain
    assert plain == _without_colour(_on_terminal(tmp_path))


def test_text_wraps_at_the_terminal_width_with_a_hanging_indent(tmp_path: Path) -> None:
    (tmp_path / "long.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
        "data: {k: one, note: \"" + " ".join(["word"] * 30) + "\"}\n")
    out = _on_terminal(tmp_path, "--no-color", COLUMNS="50", previous="long.yaml")
    lines = out.replace("\r\n", "\n").splitlines()
    assert lines and all(len(line) <= 50 for line in lines), lines
    start = next(n for n, line in enumerate(lines) if line.startswith("      - data.note: "))
    assert lines[start + 1].startswith("          word")  # 4 columns deeper than the line it continues


def test_no_wrap_when_not_a_terminal(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(PREVIOUS.replace("{k: one}", "{k: one, note: \"" + "x " * 60 + "\"}"))
    (tmp_path / "d.yaml").write_text(DESIRED)
    out = run_plan("diff", "p.yaml", "d.yaml", cwd=tmp_path, COLUMNS="40").out
    assert any(len(line) > 100 for line in out.splitlines())
