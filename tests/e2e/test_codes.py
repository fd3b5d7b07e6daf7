"""A saved plan's warning code from a newer version is read as written (deployah_plan/codes.py),
from a plan made by the command line. The table of warning codes: tests/test_codes.py."""
from __future__ import annotations

import json

import pytest

from conftest import ROOT, run_plan
from deployah_plan.core.gates import check_gates, parse_gate
from deployah_plan.render.words import change as change_words
from deployah_plan.render.words import gate as gate_words
from deployah_plan.planfile.write import render as render_json
from deployah_plan.planfile.read import plan_of


@pytest.mark.e2e
def test_a_saved_warning_with_a_code_from_a_newer_version_is_read_as_written() -> None:
    """The plan reader keeps a code it does not know; gates and writers use it as written. (The
    schema check in front of it, `helm plan show`, still refuses a code the schema does not list.)"""
    made = run_plan("diff", "previous.yaml", "desired.yaml", "-o", "json", cwd=ROOT / "tests" / "cases" / "data-loss-and-keep")
    assert made.code == 0, made.err
    doc = made.json()
    doc["warnings"][0].update(code="ownership-stolen", severity="warning", predicted_failure=True)
    # facts of a code this version does not know are not read back: the reader keeps its message
    doc["warnings"][0].pop("facts", None)
    plan = plan_of(doc)
    assert plan.warnings[0].code == "ownership-stolen" and plan.warnings[0].fails
    (match,) = check_gates(plan, [parse_gate("ownership")])
    assert gate_words.match_text(match).startswith("--fail-on ownership matched: ownership-stolen: ")
    assert json.loads(render_json(plan))["warnings"][0] == doc["warnings"][0]
    assert "ownership-stolen" in change_words.failure_label(plan.warnings)
