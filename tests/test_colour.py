"""Colour only on a terminal; --no-color and NO_COLOR turn it off."""
from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from conftest import clean_env

PREVIOUS = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: one}\n"
DESIRED = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: two}\n"


def _on_terminal(tmp_path: Path, *args: str, **env: str) -> str:
    (tmp_path / "p.yaml").write_text(PREVIOUS)
    (tmp_path / "d.yaml").write_text(DESIRED)
    leader, follower = pty.openpty()
    done = subprocess.run([sys.executable, "-m", "deployah_plan", "diff", "p.yaml", "d.yaml", *args],
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


def test_colour_on_a_terminal(tmp_path: Path) -> None:
    assert "\x1b[33m~\x1b[0m ConfigMap default/a" in _on_terminal(tmp_path)


def test_no_color_flag_and_environment(tmp_path: Path) -> None:
    assert "\x1b[" not in _on_terminal(tmp_path, "--no-color")
    assert "\x1b[" not in _on_terminal(tmp_path, NO_COLOR="1")
