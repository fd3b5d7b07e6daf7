"""Scenario tests: one folder per case under tests/cases, collected by listing the folder.

A case holds previous.yaml and desired.yaml, an optional `args` file (extra flags for
`helm plan diff`, shell words, `#` comments allowed; the folder is the working directory),
and one golden file per output: expected.txt, expected.json, expected.md, and expected.exit: the
exit code `--detailed-exitcode` must give (0: nothing would change; 2: a resource, a hook or
a chart CRD would change; ignored changes, drift and predicted failures alone do not count;
3: a --fail-on gate in args matched). The exit code is written by hand from the case's
inputs, never by UPDATE_GOLDEN: it is what the case must do, not what it did. The runner plans
through the command line as a user would, with --kind-order helm3 unless args says otherwise
(so the header names no local helm), checks each output against its golden, validates the
JSON against the published schema, and checks that `helm plan show` of the saved plan prints
every format again byte for byte.

UPDATE_GOLDEN=1 rewrites the goldens instead of comparing; read the diff before committing.
"""
from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conftest import ROOT, run_plan

pytestmark = pytest.mark.e2e  # each test starts helm-plan or helm as a process

CASES = ROOT / "tests" / "cases"
FORMATS = {"text": "expected.txt", "json": "expected.json", "markdown": "expected.md"}
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


def strict(schema: Any) -> Any:
    """The schema with no unknown keys allowed, so a field the renderer adds without
    documenting it fails here (consumers, by contrast, must accept unknown keys)."""
    if isinstance(schema, dict):
        out = {k: strict(v) for k, v in schema.items()}
        if "properties" in out and "additionalProperties" not in out:
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [strict(v) for v in schema]
    return schema


SCHEMA = json.loads((ROOT / "deployah_plan" / "schema" / "plan.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(strict(SCHEMA))


def validate(doc: Any) -> None:
    errors = sorted(VALIDATOR.iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


def _args(case: Path) -> list[str]:
    path = case / "args"
    words = shlex.split(path.read_text(), comments=True) if path.exists() else []
    if not any(w.startswith("--kind-order") for w in words):
        words += ["--kind-order", "helm3"]
    return words


def _check(case: Path, name: str, actual: str) -> None:
    golden = case / name
    if UPDATE:
        golden.write_text(actual)
        return
    assert golden.exists(), f"{golden} is missing; make it with UPDATE_GOLDEN=1 and read it"
    assert actual == golden.read_text(), f"{case.name}/{name} differs; rerun with UPDATE_GOLDEN=1 and read the diff"


@pytest.mark.parametrize("case", sorted(p for p in CASES.iterdir() if p.is_dir()), ids=lambda p: p.name)
def test_case(case: Path, tmp_path: Path) -> None:
    args = _args(case)
    saved = tmp_path / "plan.json"
    exit_file = case / "expected.exit"
    assert exit_file.exists(), f"{exit_file} is missing: write the exit code --detailed-exitcode must give"
    detailed = int(exit_file.read_text())
    expected = detailed if "--detailed-exitcode" in args else 0
    for output, golden in FORMATS.items():
        result = run_plan("diff", "previous.yaml", "desired.yaml", *args, "-o", output, "--out", str(saved), cwd=case)
        assert result.code == expected, result.err
        _check(case, golden, result.out)
        if output == "json":
            validate(result.json())
            # --out writes what -o json prints, plus the inputs record that helm plan verify reads
            written = json.loads(saved.read_text())
            assert written.pop("inputs")["command"] == "diff"
            assert json.dumps(written, indent=2, ensure_ascii=False) + "\n" == result.out
            validate(json.loads(saved.read_text()))
    if "--detailed-exitcode" not in args:
        assert run_plan("diff", "previous.yaml", "desired.yaml", *args, "--detailed-exitcode", cwd=case).code == detailed
    for output, golden in FORMATS.items():
        shown = run_plan("show", str(saved), "-o", output, *[a for a in args if a == "--show-secrets"])
        assert shown.code == 0, shown.err
        assert shown.out == (case / golden).read_text(), f"show -o {output} differs from the original run"
