"""Ignore rules (deployah_plan/core/ignore.py) through the command line: what they do to exit
codes, and bad ignore input as one line. Parsing and matching: tests/core/test_ignore.py."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT, run_plan
from e2e.test_bad_input import _one_line_error

CASE = ROOT / "tests" / "cases" / "create-update-delete"


@pytest.mark.e2e
def test_ignored_changes_do_not_count_for_detailed_exitcode() -> None:
    everything = "{paths: ['']}"
    result = run_plan("diff", "previous.yaml", "desired.yaml", "--detailed-exitcode", "--ignore", everything,
                      "-o", "json", cwd=CASE)
    assert result.code == 0, result.err
    doc = result.json()
    assert doc["changes"] == [] and len(doc["ignored"]) == 6 and doc["summary"]["has_changes"] is False
    assert {c["ignored_by"][0] for c in doc["ignored"]} == {"--ignore #1"}
    assert run_plan("diff", "previous.yaml", "desired.yaml", "--detailed-exitcode", cwd=CASE).code == 2


@pytest.mark.e2e
def test_bad_ignore_input_is_one_line(tmp_path: Path) -> None:
    _one_line_error(run_plan("diff", "previous.yaml", "desired.yaml", "--ignore", "{paths: [nope]}", cwd=CASE),
                    "--ignore #1", "not a JSON Pointer")
    _one_line_error(run_plan("diff", "previous.yaml", "desired.yaml", "--ignore-file", str(tmp_path / "none.yaml"),
                             cwd=CASE), "cannot read the ignore file", "--ignore-file")
    (tmp_path / "bad.yaml").write_text("- paths: [/a]\n  target: {kind: [x]}\n")
    _one_line_error(run_plan("diff", "previous.yaml", "desired.yaml", "--ignore-file", str(tmp_path / "bad.yaml"),
                             cwd=CASE), "bad.yaml #1", "kind must be a string")


@pytest.mark.e2e
@pytest.mark.parametrize("labels", ["5", "just-a-string", "[app, web]", "{app: 7}"])
def test_labels_that_are_not_a_map_are_planned_not_crashed_on(tmp_path: Path, labels: str) -> None:
    """Kubernetes refuses such an object; the plan shows its change, and a selector rule, which
    cannot judge it, hides nothing of it (a map with a number for a value is read as Kubernetes
    would read "7")."""
    for name, size in (("previous.yaml", "small"), ("desired.yaml", "large")):
        (tmp_path / name).write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  labels: {labels}\n"
                                     f"  annotations: {labels}\ndata:\n  size: {size}\n")
    for selector in ("labelSelector: app!=web", "annotationSelector: app=7"):
        rule = f"{{target: {{{selector}}}, paths: [/data]}}"
        result = run_plan("diff", "previous.yaml", "desired.yaml", "--ignore", rule, "-o", "json", cwd=tmp_path)
        assert result.code == 0, result.err
        doc = result.json()
        ignored = labels == "{app: 7}"  # a map: app!=web and app=7 both select it
        assert [c["resource"]["name"] for c in doc["changes"]] == ([] if ignored else ["app"]), selector
