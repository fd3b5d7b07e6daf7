"""What the package ships and declares: the license, the typing marker, and a schema that lists
every warning code the code can emit (`--fail-on warning:CODE` is only usable with the list)."""
from __future__ import annotations

import ast
import hashlib
import json
import re
from pathlib import Path

import pytest

from conftest import ROOT

SCHEMA = json.loads((ROOT / "deployah_plan" / "schema" / "plan.schema.json").read_text())


def _emitted_codes() -> dict[str, list[str]]:
    """Every code passed to a `Warning(...)` in the package, with where: a string constant, or
    each branch of a conditional expression. Any other expression cannot be checked: it fails."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "deployah_plan").rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        # A helper that makes the Warning from its `code` parameter (core/validate.py `fail`):
        # its callers' literal codes are checked instead.
        helpers = {f.name for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)
                   and any(isinstance(n, ast.Call) and getattr(n.func, "id", "") == "Warning" and n.args
                           and isinstance(n.args[0], ast.Name) and n.args[0].id == "code" for n in ast.walk(f))}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            if name in helpers and node.args:
                arg: ast.expr | None = node.args[0]
            elif name == "Warning":
                arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "code"), None)
                if isinstance(arg, ast.Name) and arg.id == "code" and helpers:
                    continue
            else:
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            if path.name == "saved.py":  # reads a saved plan back: its codes come from the document
                continue
            pending = [arg]
            while pending:
                expr = pending.pop()
                if isinstance(expr, ast.IfExp):
                    pending += [expr.body, expr.orelse]
                elif isinstance(expr, ast.Constant) and isinstance(expr.value, str):
                    found.setdefault(expr.value, []).append(where)
                else:
                    pytest.fail(f"{where}: a warning code that is not a string literal cannot be checked against the schema")
    return found


def test_every_emitted_warning_code_is_in_the_schema() -> None:
    listed = [entry["const"] for entry in SCHEMA["$defs"]["warning_code"]["oneOf"]]
    assert len(listed) == len(set(listed))
    assert all(entry.get("description") for entry in SCHEMA["$defs"]["warning_code"]["oneOf"])
    emitted = _emitted_codes()
    missing = {code: where for code, where in emitted.items() if code not in listed}
    assert missing == {}, "add these codes to $defs.warning_code in plan.schema.json"
    assert sorted(set(listed) - set(emitted)) == [], "codes listed in the schema that nothing emits"
    warning = SCHEMA["$defs"]["warning"]["properties"]["code"]
    assert warning == {"$ref": "#/$defs/warning_code"}


def test_schema_id_is_the_one_the_readme_names() -> None:
    readme = (ROOT / "README.md").read_text()
    assert f"`{SCHEMA['$id']}`" in readme
    repository = re.match(r"https://raw\.githubusercontent\.com/([^/]+/[^/]+)/", SCHEMA["$id"])
    assert repository is not None
    assert f"helm plugin install https://github.com/{repository.group(1)}" in readme


def test_license_and_typing_marker() -> None:
    # The Apache License 2.0 text as the Apache Software Foundation publishes it (LICENSE-2.0.txt).
    digest = hashlib.sha256((ROOT / "LICENSE").read_bytes()).hexdigest()
    assert digest == "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"
    assert (ROOT / "deployah_plan" / "py.typed").is_file()
    tomllib = pytest.importorskip("tomllib", reason="tomllib comes with Python 3.11+")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["license"] == "Apache-2.0"
    assert project["project"]["license-files"] == ["LICENSE"]
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["deployah_plan"]
    (backend,) = project["build-system"]["requires"]
    assert re.fullmatch(r"setuptools>=\d+,<\d+", backend), "the build backend range is bounded"
