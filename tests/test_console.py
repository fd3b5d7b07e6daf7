"""The exit codes (deployah_plan/console.py `Exit`) are the ones docs/output.md lists, each with
the same meaning."""
from __future__ import annotations

import re

from conftest import ROOT
from deployah_plan.console import MEANING, Exit


def _documented() -> list[tuple[int, str]]:
    text = (ROOT / "docs" / "output.md").read_text()
    section = text.split("\n## Exit codes\n", 1)[1].split("\n## ", 1)[0]
    return [(int(code), meaning) for code, meaning in re.findall(r"^\| (\d+) \| (.*) \|$", section, re.M)]


def test_the_docs_list_every_exit_code_with_its_meaning() -> None:
    assert _documented() == [(int(code), MEANING[code]) for code in Exit]


def test_every_exit_code_has_a_meaning() -> None:
    assert set(MEANING) == set(Exit)
