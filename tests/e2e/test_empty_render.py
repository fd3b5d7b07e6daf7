"""A desired render with no resources while the previous release has some: every object would
be deleted, which is a warning (a failed render, a wrong values file), not a silent plan."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Store, run_plan, write_chart

pytestmark = pytest.mark.e2e  # each test starts helm-plan or helm as a process


def _objects(n: int) -> str:
    return "".join(f"---\n# Source: app/templates/cm{i}.yaml\napiVersion: v1\nkind: ConfigMap\n"
                   f"metadata:\n  name: cm{i}\ndata:\n  a: '1'\n" for i in range(n))


def test_diff_to_an_empty_render_warns_that_everything_is_deleted(tmp_path: Path) -> None:
    previous = tmp_path / "previous.yaml"
    previous.write_text(_objects(3))
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    doc = run_plan("diff", str(previous), str(empty), "-o", "json").json()
    assert doc["summary"]["delete"] == 3
    found = [w for w in doc["warnings"] if w["code"] == "empty-render"]
    assert [(w["severity"], w["predicted_failure"], w["facts"]) for w in found] == [
        ("warning", False, {"previous_resources": 3, "desired_hooks": 0})]
    text = run_plan("diff", str(previous), str(empty)).out
    assert ("the desired render has no resources while the previous release has 3 resources: this deletes all 3; "
            "a failed render") in text
    # Not on an ordinary deletion, nor on an install of nothing.
    assert not [w for w in run_plan("diff", str(previous), _write(tmp_path, "one.yaml", _objects(1)), "-o",
                                    "json").json()["warnings"] if w["code"] == "empty-render"]
    assert not [w for w in run_plan("diff", str(empty), str(empty), "-o", "json").json()["warnings"]
                if w["code"] == "empty-render"]


def _write(root: Path, name: str, text: str) -> str:
    (root / name).write_text(text)
    return str(root / name)


def test_an_upgrade_whose_render_is_empty_warns(helm: Path, store: Store, tmp_path: Path) -> None:
    chart = write_chart(tmp_path, "app", {
        "cm.yaml": "{{- if .Values.enabled }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n"
                   "data:\n  a: '1'\n{{- end }}\n",
    }, values="enabled: true\n")
    store.add("app", chart)
    result = run_plan("upgrade", "app", str(chart), "--set", "enabled=false", "-o", "json", helm=helm, store=store)
    assert result.code == 0, result.err
    doc = result.json()
    assert [(c["action"], c["resource"]["name"]) for c in doc["changes"]] == [("delete", "app")]
    assert [w["facts"] for w in doc["warnings"] if w["code"] == "empty-render"] == [
        {"previous_resources": 1, "desired_hooks": 0}]
    assert "while the previous release has 1 resource: this deletes it" in run_plan(
        "upgrade", "app", str(chart), "--set", "enabled=false", "-o", "markdown", helm=helm, store=store).out
