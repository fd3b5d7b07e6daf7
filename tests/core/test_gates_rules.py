"""`--fail-on` gates (deployah_plan/core/gates.py) on plans built here: the CRD and warning gates,
and a gate that takes no argument. Exit 3 and one line per gate that matched, through the
command line, are tests/e2e/test_gates.py."""
from __future__ import annotations


import pytest

from deployah_plan.codes import Code
from deployah_plan.core.gates import check_gates, parse_gate
from deployah_plan.errors import UsageError
from deployah_plan.render.words.gate import matched_text
from deployah_plan.build import build_plan
from deployah_plan.model import (
    Action, ChartCRD, CRDLifecycle, Header, HelmAction, ResourceChange, ResourceRef, Severity, Warning,
)


def test_crd_and_warning_gates() -> None:
    crd = ResourceRef("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "widgets.example.com")
    plan = build_plan(
        Header("r", "ns", fresh_install=True), HelmAction.INSTALL,
        [ResourceChange(crd, Action.CREATE, None, {})],
        chart_crds=[ChartCRD("app/crds/a.yaml", "a.example.com", CRDLifecycle.PROCESS),
                    ChartCRD("app/crds/b.yaml", "b.example.com", CRDLifecycle.SKIP)],
        warnings=[Warning(Code.IMMUTABLE, None, fails=True, said="spec.selector cannot change"),  # the planner's code
                  Warning(Code("immutable-field"), None, fails=True, said="a newer code of the family"),
                  Warning(Code.OWNERSHIP, None, fails=True, said="owned by x"),
                  Warning(Code.OWNERSHIP, None, Severity.INFO, said="adopted into r"),  # a harmless adoption
                  Warning(Code.DROPPED_DOCUMENT, None, said="skipped")],
    )
    found = {m.gate.text: m.matched for m in check_gates(plan, [parse_gate(g) for g in (
        "crd", "immutable", "ownership", "warning:dropped-document", "drift", "warning:immutable", "failure")])}
    immutable, newer, owned, _, dropped = plan.warnings
    assert found == {
        "crd": (plan.changes[0], plan.chart_crds[0]), "immutable": (immutable, newer), "ownership": (owned,),
        "warning:dropped-document": (dropped,), "warning:immutable": (immutable, newer),
        "failure": (immutable, newer, owned),
    }
    matched = {text: tuple(matched_text(m) for m in items) for text, items in found.items()}
    assert matched == {
        "crd": ("create CustomResourceDefinition widgets.example.com", "chart CRD a.example.com (app/crds/a.yaml)"),
        "immutable": ("immutable: spec.selector cannot change", "immutable-field: a newer code of the family"),
        "ownership": ("ownership: owned by x",),
        "warning:dropped-document": ("dropped-document: skipped",),
        "warning:immutable": ("immutable: spec.selector cannot change", "immutable-field: a newer code of the family"),
        "failure": ("immutable: spec.selector cannot change", "immutable-field: a newer code of the family",
                    "ownership: owned by x"),
    }
    assert plan.summary.failures == 3


def test_a_gate_without_arguments_refuses_one() -> None:
    with pytest.raises(UsageError, match="crd takes no argument"):
        parse_gate("crd:x")
    assert parse_gate("delete:").argument == ""  # delete: is delete
