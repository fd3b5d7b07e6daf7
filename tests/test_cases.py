"""Scenario folders: tests/cases/<name>/{previous.yaml, desired.yaml, args?, expected.*}.

Each case is planned with `helm plan diff previous.yaml desired.yaml` (plus the words in
`args`, if any) as a user runs it, and every output format is compared with its golden file.
`UPDATE_GOLDEN=1 pytest tests/test_cases.py` rewrites the goldens; read the diff before
committing it.
"""
from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from conftest import run_plan

CASES = Path(__file__).parent / "cases"
FORMATS = {"expected.txt": ("-o", "text", "--no-color"), "expected.json": ("-o", "json")}


def _cases() -> list[str]:
    return sorted(p.name for p in CASES.iterdir() if (p / "desired.yaml").is_file())


@pytest.mark.parametrize("name", _cases())
@pytest.mark.parametrize("golden", sorted(FORMATS))
def test_case(name: str, golden: str) -> None:
    folder = CASES / name
    args = shlex.split((folder / "args").read_text()) if (folder / "args").is_file() else []
    result = run_plan("diff", "previous.yaml", "desired.yaml", "--kind-order", "helm3", *FORMATS[golden], *args,
                      cwd=folder)
    assert result.code in (0, 2), result.err
    expected = folder / golden
    if os.environ.get("UPDATE_GOLDEN"):
        expected.write_text(result.out)
    assert expected.is_file(), f"no golden {expected}; run with UPDATE_GOLDEN=1 and read what it wrote"
    assert result.out == expected.read_text()
