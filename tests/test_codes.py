"""The table of warning codes (deployah_plan/codes.py): every code made through it, and each
failure made by the check the table names. A code from a newer version read as written:
tests/e2e/test_codes.py."""
from __future__ import annotations

import ast
import importlib
import inspect
import json

import pytest

from conftest import ROOT
from deployah_plan.codes import GATES, Code, Fails, Severity
from deployah_plan.facts import DataLoss, Field, Immutable, Loss, facts_class
from deployah_plan.build import build_plan
from deployah_plan.model import Header, HelmAction, Warning, warn
from deployah_plan.render.words import warning as warning_words


def _package_sources() -> dict[str, ast.Module]:
    return {str(p.relative_to(ROOT)): ast.parse(p.read_text(), str(p))
            for p in sorted((ROOT / "deployah_plan").rglob("*.py")) if p.name != "codes.py"}


def test_warnings_are_made_from_the_table_only() -> None:
    """No code is a bare string: `warn` and `Warning` take a `Code` member (planfile/read.py reads one back)."""
    bare = []
    for where, tree in _package_sources().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("warn", "Warning") and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant):
                    bare.append(f"{where}:{node.lineno}")
    assert bare == []


def test_every_code_is_made_somewhere() -> None:
    used = {node.attr for tree in _package_sources().values() for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "Code"}
    assert sorted(c.name for c in Code if c.name not in used) == [], "codes in the table that nothing makes"


def _check_source(path: str) -> str:
    """The check's source; a method's with the methods of its class it calls."""
    module, _, name = path.rpartition(".")
    try:
        return inspect.getsource(getattr(importlib.import_module(module), name))
    except ModuleNotFoundError:  # a method: module.Class.method
        module, _, owner = module.rpartition(".")
        cls = getattr(importlib.import_module(module), owner)
        source = inspect.getsource(getattr(cls, name))
        called = [c for c in vars(cls) if f"self.{c}(" in source]
        return "\n".join([source, *(inspect.getsource(getattr(cls, c)) for c in called)])


@pytest.mark.parametrize("code", [c for c in Code if c.fails is not Fails.NEVER], ids=lambda c: c.value)
def test_each_failure_names_the_check_that_predicts_it(code: Code) -> None:
    """The table is the list of failure checks: the named function makes the code."""
    assert code.check, f"{code.value} may fail: name its check"
    made = facts_class(code)
    source = _check_source(code.check)
    assert f"Code.{code.name}" in source or (made is not None and f"{made.__name__}(" in source), \
        f"{code.check} does not make {code.value}"
    assert code.severity is Severity.WARNING or code.fails is Fails.SOMETIMES


def test_codes_that_never_fail_name_no_check() -> None:
    assert [c.value for c in Code if c.fails is Fails.NEVER and c.check] == []


def test_warn_takes_severity_and_failure_from_the_table() -> None:
    immutable, loss = Immutable(fields=(Field("/spec/selector"),)), DataLoss(loses=Loss.VOLUME)
    assert warn(immutable) == Warning(Code.IMMUTABLE, immutable, Severity.WARNING, None, True)
    assert warn(loss) == Warning(Code.DATA_LOSS, loss, Severity.WARNING)
    assert warn(loss, severity=Severity.INFO).severity is Severity.INFO


def test_every_code_has_facts_and_words() -> None:
    """Each code of the table has its facts class (deployah_plan/facts.py) and its wording
    (render/words/warning.py), and each facts class is one code's."""
    assert sorted(c.value for c in Code if facts_class(c) is None) == []
    assert sorted(c.value for c in Code if c not in warning_words.worded()) == []


def test_a_plan_refuses_a_failure_the_table_does_not_allow() -> None:
    header = Header("r", "ns")
    with pytest.raises(ValueError, match="never predicts a failure"):
        build_plan(header, HelmAction.NONE, warnings=[Warning(Code.DATA_LOSS, DataLoss(loses=Loss.VOLUME), fails=True)])
    with pytest.raises(ValueError, match="always predicts a failure"):
        build_plan(header, HelmAction.NONE, warnings=[Warning(Code.IMMUTABLE, Immutable(fields=()))])
    with pytest.raises(ValueError, match="holds the facts of data-loss"):
        build_plan(header, HelmAction.NONE, warnings=[Warning(Code.IMMUTABLE, DataLoss(loses=Loss.VOLUME), fails=True)])


def test_a_code_is_its_wire_value() -> None:
    assert Code("ssa-conflict") is Code.SSA_CONFLICT
    assert json.dumps({"code": Code.SSA_CONFLICT}) == '{"code": "ssa-conflict"}'
    assert f"{Code.SSA_CONFLICT}: x" == "ssa-conflict: x" and Code.SSA_CONFLICT == "ssa-conflict"
    assert Code.SSA_CONFLICT in {"ssa-conflict"}
    assert GATES == ("immutable", "ownership")
    assert [c.value for c in Code if c.in_family("ownership")] == ["ownership", "collision", "ssa-conflict"]


def test_a_code_from_a_newer_version_is_kept_as_written() -> None:
    newer = Code("ownership-stolen")
    assert newer == "ownership-stolen" and not newer.known and newer not in list(Code)
    assert newer.in_family("ownership") and not newer.in_family("immutable")
    assert newer.label == "ownership-stolen" and not newer.loud and newer.fails is Fails.SOMETIMES
    plan = build_plan(Header("r", "ns"), HelmAction.NONE, warnings=[Warning(newer, None, fails=True, said="m")])
    assert plan.summary.failures == 1
    with pytest.raises(ValueError, match="3 is not a valid Code"):
        Code(3)  # type: ignore[arg-type]
