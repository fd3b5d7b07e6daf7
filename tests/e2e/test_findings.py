"""-o github and -o codequality: each predicted failure and warning placed at its template,
in the shapes GitHub's workflow commands and GitLab's Code Quality report define."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from conftest import run_plan

pytestmark = pytest.mark.e2e  # each test starts helm-plan or helm as a process

CONFIG = "---\n# Source: shop/templates/{file}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\nimmutable: true\ndata:\n  a: '{value}'\n"


def _plan(tmp_path: Path, name: str, *args: str) -> str:
    previous, desired = tmp_path / "previous.yaml", tmp_path / "desired.yaml"
    previous.write_text(CONFIG.format(file="config.yaml", name=name, value=1))
    desired.write_text(CONFIG.format(file="config.yaml", name=name, value=2))
    done = run_plan("diff", str(previous), str(desired), "--release", "shop", "-n", "shop", *args)
    assert done.code == 0, done.err
    return done.out


def test_github_annotation_at_the_template(tmp_path: Path) -> None:
    out = _plan(tmp_path, "frozen", "-o", "github", "--source-root", "charts/shop/")
    (line,) = [line for line in out.splitlines() if line.startswith("::error")]
    assert line.startswith("::error file=charts/shop/templates/config.yaml,line=1,title=helm plan%3A shop (immutable)::")
    assert "ConfigMap shop/frozen: this upgrade will fail" in line
    bare = _plan(tmp_path, "frozen", "-o", "github")  # no root: helm's own path
    assert "\n::error file=shop/templates/config.yaml,line=1," in "\n" + bare


def test_a_name_cannot_start_another_workflow_command(tmp_path: Path) -> None:
    """GitHub reads a workflow command per line: a name's newline, `%` and `::` stay in the message."""
    out = _plan(tmp_path, '"x\\n::stop-commands::t\\r%0A::warning::y"', "-o", "github")
    (line,) = [line for line in out.splitlines() if line.startswith("::error")]
    assert line.startswith("::error file=") and "::stop-commands" in line
    message = line.split("::", 2)[2]
    assert "\\x0a::stop-commands::t\\x0d%250A::warning::y" in message


def test_codequality_report(tmp_path: Path) -> None:
    report = json.loads(_plan(tmp_path, "frozen", "-o", "codequality", "--source-root", "charts/shop"))
    (issue,) = [issue for issue in report if issue["severity"] == "critical"]
    assert issue["check_name"] == "helm-plan/immutable" and issue["severity"] == "critical"
    assert issue["location"] == {"path": "charts/shop/templates/config.yaml", "lines": {"begin": 1}}
    assert issue["description"].startswith("ConfigMap shop/frozen: this upgrade will fail")
    assert len(issue["fingerprint"]) == len(hashlib.sha256().hexdigest())
    again = json.loads(_plan(tmp_path, "frozen", "-o", "codequality", "--source-root", "charts/shop"))
    assert issue["fingerprint"] in {i["fingerprint"] for i in again}  # the same finding, the same fingerprint
    other = json.loads(_plan(tmp_path, "thawed", "-o", "codequality", "--source-root", "charts/shop"))
    assert issue["fingerprint"] not in {i["fingerprint"] for i in other}


def test_no_findings_is_an_empty_report(tmp_path: Path) -> None:
    previous = tmp_path / "same.yaml"
    previous.write_text(CONFIG.format(file="config.yaml", name="same", value=1))
    args = ("diff", str(previous), str(previous), "--kube-version", "1.34")  # no version assumed, nothing to say
    assert run_plan(*args, "-o", "codequality").out == "[]\n"
    assert run_plan(*args, "-o", "github").out == ""
