"""The CI pieces a user copies: the GitHub Action (action.yml) and its plan step
(scripts/ci-plan) run for real against real helm with the plugin installed, and the example
GitHub workflows, the action and the GitLab job linted (GitHub's with actionlint)."""
from __future__ import annotations

import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import EXAMPLE, ROOT, clean_env, run_plan, write_chart
from test_ci import ACTION, ACTIONLINT, GITLAB, WORKFLOWS, _actionlint


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
    assert "**Plan: 2 to create, 3 to update, 1 to delete." in markdown
    assert markdown.startswith("<!-- helm-plan release=shop namespace=shop -->\n")  # scripts/ci-comment's marker
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


_FORGED = ("\x1b[2J ```` nothing to see\n::error title=Approved::all clear\n::add-mask::shop\n::stop-commands::t\n"
           "````\n### helm plan: No changes\n@admins ![x](http://127.0.0.1:9/x.png)\n")


@pytest.mark.parametrize("mode", ["diff", "upgrade"])
def test_chart_text_reaches_the_log_and_the_comment_escaped(installed: dict[str, str], tmp_path: Path,
                                                           mode: str) -> None:
    # A chart's `fail` message: ESC, a fence of its own, workflow commands, then a heading, a
    # mention and an image. Diff mode copies helm template's stderr whole; helm plan (upgrade
    # mode) quotes its first line.
    message = json.dumps(_FORGED).replace("\\u001b", "\\x1b")  # a Go string literal
    hostile = write_chart(tmp_path / "charts", "shop", {"cm.yaml": f"{{{{ fail {message} }}}}\n"})
    repo, base = _repo(tmp_path, EXAMPLE / "chart-v1", hostile)
    (tmp_path / "releases.json").write_text("[]")  # upgrade mode: a release store with no release (an install)
    store = {"HELM_DRIVER": "memory", "HELM_MEMORY_DRIVER_DATA": str(tmp_path / "releases.json")}
    outputs, markdown, log = _ci_plan({**installed, **store}, repo, base, PLAN_MODE=mode)
    assert outputs["exit-code"] == "1"
    for shown in (log, markdown):  # shown, never acted on
        assert "nothing to see" in shown and "\\x1b[2J" in shown and "\x1b" not in shown, shown
    assert not any(line.lstrip().startswith("::") for line in log.splitlines()), log
    if mode == "diff":
        assert "%3A:add-mask::shop" in log
    # The comment: the message inside one code block, its fence longer than the chart's, and nothing after it.
    opening = markdown.index("`````\n")
    assert markdown.endswith("\n`````\n") and markdown.count("`````") == 2, markdown
    assert "No changes" not in markdown[:opening]


class _Counting(http.server.BaseHTTPRequestHandler):
    """A chart repository that answers nothing, and counts who asked."""

    paths: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        _Counting.paths.append(self.path)
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *_: object) -> None:
        pass


@pytest.mark.parametrize("dependencies", ["build", "vendored"])
def test_vendored_dependencies_fetch_nothing(installed: dict[str, str], tmp_path: Path, dependencies: str) -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Counting)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Counting.paths = []
    try:
        chart = Path(shutil.copytree(EXAMPLE / "chart-v2", tmp_path / "charts" / "shop"))
        with (chart / "Chart.yaml").open("a") as meta:  # a dependency the pull request names, and its repository
            meta.write(f"dependencies:\n  - name: dep\n    version: 0.1.0\n    repository: "
                       f"http://127.0.0.1:{server.server_port}/charts\n")
        repo, base = _repo(tmp_path, EXAMPLE / "chart-v1", chart)
        outputs, markdown, log = _ci_plan(installed, repo, base, PLAN_DEPENDENCIES=dependencies)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
    assert outputs["exit-code"] == "1"  # the dependency is in no charts/ folder
    assert "dep" in markdown
    if dependencies == "vendored":
        assert _Counting.paths == []
    else:
        assert "/charts/index.yaml" in _Counting.paths


# -- lint -------------------------------------------------------------------------------------------


@pytest.mark.e2e
def test_actionlint_catches_a_mistake(tmp_path: Path) -> None:
    """The linter is really run: a workflow reading an undefined step fails it."""
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ steps.x.outputs.y }}\n")
    with pytest.raises(AssertionError, match='property "x" is not defined'):
        _actionlint(bad)


@pytest.mark.e2e
def test_example_workflows_lint(tmp_path: Path) -> None:
    _actionlint(*WORKFLOWS)


@pytest.mark.e2e
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


def _bash_syntax(script: str) -> None:
    done = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.e2e
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


@pytest.mark.e2e
def test_gitlab_job() -> None:
    """GitLab's own linter needs a GitLab server: check what the widget needs, and the shell."""
    config: dict[str, Any] = yaml.safe_load(GITLAB.read_text())
    job, note = config["helm-plan"], config["helm-plan-note"]
    assert job["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}]
    # The token only in the note job, which runs only where GitLab gives it (a protected
    # variable: protected branches), and runs no helm and checks nothing out.
    assert "HELM_PLAN_TOKEN" not in yaml.safe_dump(job) and set(config) == {"helm-plan", "helm-plan-note"}
    assert note["rules"][0]["if"].endswith("&& $HELM_PLAN_TOKEN") and note["needs"] == ["helm-plan"]
    assert note["variables"] == {"GIT_STRATEGY": "none"} and "helm " not in "\n".join(note["script"])
    install = "\n".join(job["before_script"])
    assert "sha256sum -c -" in install and '${HELM_PLAN_REF:+--version "$HELM_PLAN_REF"}' in install
    assert job["variables"]["HELM_PLAN_REF"] == ""  # no made-up release: the comment says how to pin
    assert 'echo "<!-- helm-plan release=$RELEASE namespace=$NS -->" > plan.md' in job["script"][4]
    assert job["artifacts"]["reports"] == {"terraform": "tfplan.json", "codequality": "codequality.json"}
    assert job["artifacts"]["when"] == "always"
    script = "\n".join([*job["before_script"], *job["script"]])
    _bash_syntax(script)
    assert "-o gitlab > tfplan.json" in script and "--detailed-exitcode" in script
    assert '-o codequality --source-root "$CHART" > codequality.json' in script
    assert "/merge_requests/$CI_MERGE_REQUEST_IID/notes" in "\n".join(note["script"])
    assert job["cache"]["paths"] == [".cache/helm/helm-plan"] and "$CI_PROJECT_DIR/.cache/helm" in job["variables"]["HELM_CACHE_HOME"]


@pytest.mark.e2e
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


@pytest.mark.e2e
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


# -- a shallow clone, as actions/checkout makes it --------------------------------------------------

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid", "-c", "init.defaultBranch=main"]


def _shallow_clone(tmp_path: Path, base: Path, head: Path) -> tuple[Path, str]:
    """A bare `origin` holding a base commit and a head commit, and a clone of it with
    `--depth 1` (what actions/checkout makes by default): the clone has the head only."""
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run([*GIT, "init", "-q"], cwd=work, check=True)
    shutil.copytree(base, work / "charts" / "shop")
    subprocess.run([*GIT, "add", "-A"], cwd=work, check=True)
    subprocess.run([*GIT, "commit", "-qm", "base"], cwd=work, check=True)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=work, capture_output=True, text=True, check=True).stdout.strip()
    shutil.rmtree(work / "charts" / "shop")
    shutil.copytree(head, work / "charts" / "shop")
    subprocess.run([*GIT, "add", "-A"], cwd=work, check=True)
    subprocess.run([*GIT, "commit", "-qm", "head"], cwd=work, check=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(tmp_path / "origin.git")], check=True)
    clone = tmp_path / "repo"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{tmp_path / 'origin.git'}", str(clone)], check=True)
    has_base = subprocess.run(["git", "cat-file", "-e", f"{commit}^{{commit}}"], cwd=clone, capture_output=True)
    assert has_base.returncode != 0, "the shallow clone must not have the base commit"
    return clone, commit


def test_a_shallow_clone_fetches_the_base_commit(installed: dict[str, str], tmp_path: Path) -> None:
    repo, base = _shallow_clone(tmp_path, EXAMPLE / "chart-v1", EXAMPLE / "chart-v2")
    outputs, markdown, stderr = _ci_plan(installed, repo, base)
    assert outputs["exit-code"] == "2", stderr
    assert (outputs["create"], outputs["update"], outputs["delete"]) == ("2", "3", "1")


def test_a_base_that_cannot_be_fetched_says_what_to_add(installed: dict[str, str], tmp_path: Path) -> None:
    repo, _ = _shallow_clone(tmp_path, EXAMPLE / "chart-v1", EXAMPLE / "chart-v2")
    missing = "0" * 39 + "1"  # in no repository
    outputs, markdown, stderr = _ci_plan(installed, repo, missing)
    assert outputs["exit-code"] == "1"
    (line,) = [line for line in stderr.splitlines() if line.strip()]
    assert line.startswith("helm plan: error: the base commit 0000") and "fetch-depth: 0" in line
    assert "fetch-depth: 0" in markdown


# -- the flags input reaches helm plan, and the findings land on the templates ----------------------

def test_flags_reach_helm_plan_and_helm_template_in_diff_mode(installed: dict[str, str], tmp_path: Path) -> None:
    """--ignore-file is helm plan diff's, --set helm template's, --kube-version both's: the
    ConfigMap's change is ignored, the value set and the Kubernetes version rendered, and the
    CronJob of batch/v1beta1 (removed in Kubernetes 1.25) a predicted failure on 1.30, placed at
    its template in the repository."""
    config = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata:\n  a: '%s'\n"
    cron = ("apiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {name: nightly}\nspec:\n  schedule: '0 3 * * *'\n"
            "  jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}}\n")
    base = write_chart(tmp_path / "base", "shop", {"config.yaml": config % 1})
    head = write_chart(tmp_path / "head", "shop", {
        "config.yaml": config % 2 + "  image: {{ .Values.image | quote }}\n  kube: {{ .Capabilities.KubeVersion.Version }}\n",
        "cron.yaml": cron})
    repo, commit = _repo(tmp_path, base, head)
    (repo / "ignore.yaml").write_text("- paths: [/data]\n  target: {kind: ConfigMap}\n")
    outputs, _, stderr = _ci_plan(installed, repo, commit,
                                  PLAN_FLAGS="--ignore-file ignore.yaml --set image=web:1.28 --kube-version 1.30")
    assert outputs["exit-code"] == "2", stderr
    plan = json.loads(Path(outputs["plan-json"]).read_text())
    assert [(c["resource"]["kind"], c["resource"]["name"]) for c in plan["ignored"]] == [("ConfigMap", "settings")]
    rendered = (Path(outputs["plan-json"]).parent / "head.yaml").read_text()
    assert 'image: "web:1.28"' in rendered and "kube: v1.30\n" in rendered
    failures = [w for w in plan["warnings"] if w.get("predicted_failure")]
    assert failures and all("CronJob" in w["message"] for w in failures)
    annotations = Path(outputs["annotations"]).read_text().splitlines()
    errors = [line for line in annotations if line.startswith("::error ")]
    assert errors and all(line.startswith("::error file=charts/shop/templates/cron.yaml,line=1,") for line in errors)
    assert (repo / "charts" / "shop" / "templates" / "cron.yaml").is_file()
    report = json.loads(Path(outputs["codequality"]).read_text())
    critical = [issue for issue in report if issue["severity"] == "critical"]
    assert critical and {issue["location"]["path"] for issue in critical} == {"charts/shop/templates/cron.yaml"}
    assert all(set(issue) == {"description", "check_name", "fingerprint", "severity", "location"} for issue in report)


# -- the comment: which pull request, asked of GitHub; which comment, found by its marker --------------

FAKE_GH = """#!{python}
# GitHub's REST API as scripts/ci-comment uses it through `gh api`: the open pull requests
# (FAKE_PULLS), a pull request's comments (FAKE_COMMENTS, in pages), and creating or editing a
# comment (answered with {{}}). Every call is logged as a JSON line: its arguments and the body
# it sent on standard input.
import json, os, sys
args = sys.argv[1:]
sent = sys.stdin.read() if "--input" in args else None
with open(os.environ["FAKE_LOG"], "a") as log:
    log.write(json.dumps({{"args": args, "body": json.loads(sent) if sent else None}}) + "\\n")
if args[0] != "api":
    sys.exit("unknown gh command")
path = [a for a in args[1:] if a.startswith("repos/")][0]
if "/pulls?" in path:
    print(open(os.environ["FAKE_PULLS"]).read())
elif path.endswith("/comments?per_page=100") and "--method" not in args:
    assert "--paginate" in args and "--slurp" in args
    print(open(os.environ["FAKE_COMMENTS"]).read())
else:
    print("{{}}")
"""

MARKER = "<!-- helm-plan release=shop namespace=shop -->"


def _ci_comment(tmp_path: Path, *, pulls: list[dict[str, Any]] | None = None,
                comments: list[list[dict[str, Any]]] | None = None, plan: str = f"{MARKER}\nthe plan\n",
                **settings: str) -> tuple[int, list[dict[str, Any]], str]:
    """scripts/ci-comment run with a fake `gh` on PATH (a program of this test's, answering
    canned JSON); returns its exit code, the gh calls it made and its output."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gh").write_text(FAKE_GH.format(python=sys.executable))
    (bin_dir / "gh").chmod(0o755)
    (tmp_path / "pulls.json").write_text(json.dumps(pulls or []))
    (tmp_path / "comments.json").write_text(json.dumps(comments if comments is not None else [[]]))
    (tmp_path / "plan.md").write_text(plan)
    log = tmp_path / "gh.log"
    log.write_text("")
    done = subprocess.run([str(ROOT / "scripts" / "ci-comment")], cwd=tmp_path, capture_output=True, text=True, env={
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "GH_TOKEN": "t", "GH_REPO": "owner/repo",
        "PLAN_MD": str(tmp_path / "plan.md"), "FAKE_PULLS": str(tmp_path / "pulls.json"),
        "FAKE_COMMENTS": str(tmp_path / "comments.json"), "FAKE_LOG": str(log), **settings})
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    return done.returncode, calls, done.stdout + done.stderr


def _writes(calls: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """The calls that wrote: (method, path, body text)."""
    out = []
    for call in calls:
        args = call["args"]
        if "--method" in args:
            out.append((args[args.index("--method") + 1], args[-3], call["body"]["body"]))
    return out


def _comment(id_: int, login: str, body: str) -> dict[str, Any]:
    return {"id": id_, "user": {"login": login, "type": "Bot"}, "body": body}


@pytest.mark.e2e
def test_the_comment_edits_only_our_own_comment_for_this_release(tmp_path: Path) -> None:
    """Issue 48 point 3: every workflow on GITHUB_TOKEN posts as github-actions[bot]; a coverage
    bot's comment (same author, no marker), another bot's copy of our marker, and our own
    comment for another release are left alone: only ours, by marker and author, is edited."""
    bot = "github-actions[bot]"
    others = [
        _comment(11, bot, "## Coverage report\n87%"),
        _comment(12, "codecov[bot]", f"{MARKER}\nnot ours: another author"),
        _comment(13, bot, "<!-- helm-plan release=shop namespace=staging -->\nthe staging release's plan"),
        _comment(14, bot, "<!-- helm-plan release=shop-db namespace=shop -->\nanother release's plan"),
        _comment(15, bot, f"quoted: {MARKER}\nnot on its first line"),
    ]
    mine = _comment(21, bot, f"{MARKER}\nan older plan")
    code, calls, out = _ci_comment(tmp_path / "again", comments=[others[:3], [mine, *others[3:]]],
                                   PLAN_PULL_REQUEST="7")
    assert code == 0, out
    assert calls[0]["args"] == ["api", "--paginate", "--slurp", "repos/owner/repo/issues/7/comments?per_page=100"]
    assert _writes(calls) == [("PATCH", "repos/owner/repo/issues/comments/21", f"{MARKER}\nthe plan\n")]
    code, calls, out = _ci_comment(tmp_path / "first", comments=[others], PLAN_PULL_REQUEST="7")
    assert code == 0, out
    assert _writes(calls) == [("POST", "repos/owner/repo/issues/7/comments", f"{MARKER}\nthe plan\n")]
    code, calls, out = _ci_comment(tmp_path / "none", comments=[], PLAN_PULL_REQUEST="7")
    assert code == 0 and _writes(calls) == [("POST", "repos/owner/repo/issues/7/comments", f"{MARKER}\nthe plan\n")]
    # Posting with another identity (a GitHub App's token): its own comment, not github-actions[bot]'s.
    app = _comment(31, "plan-app[bot]", f"{MARKER}\nthe app's older plan")
    code, calls, out = _ci_comment(tmp_path / "app", comments=[[mine, app]], PLAN_PULL_REQUEST="7",
                                   COMMENT_AUTHOR="plan-app[bot]")
    assert code == 0 and [w[1] for w in _writes(calls)] == ["repos/owner/repo/issues/comments/31"]


@pytest.mark.e2e
@pytest.mark.parametrize("first_line", ["the plan", "<!-- helm-plan -->", "<!-- helm-plan release=shop --> namespace=x -->",
                                        "<!-- helm-plan release=Shop namespace=shop -->"])
def test_a_plan_without_our_marker_is_refused(tmp_path: Path, first_line: str) -> None:
    code, calls, out = _ci_comment(tmp_path, plan=f"{first_line}\nthe plan\n", PLAN_PULL_REQUEST="7")
    assert code == 1 and calls == []
    (line,) = out.splitlines()
    assert line.startswith("helm plan: error: ") and "<!-- helm-plan release=NAME namespace=NAME -->" in line


@pytest.mark.e2e
def test_the_comment_goes_to_the_pull_request_whose_head_was_planned(tmp_path: Path) -> None:
    sha = "a" * 40
    code, calls, out = _ci_comment(tmp_path, pulls=[{"number": 7, "head": {"sha": sha}}, {"number": 8, "head": {"sha": "c" * 40}}],
                                   HEAD_SHA=sha, HEAD="fork owner:feat&state=closed")
    assert code == 0, out
    assert calls[0]["args"] == ["api", "repos/owner/repo/pulls?state=open&head=fork%20owner%3Afeat%26state%3Dclosed"]
    assert _writes(calls) == [("POST", "repos/owner/repo/issues/7/comments", f"{MARKER}\nthe plan\n")]


@pytest.mark.e2e
def test_no_comment_when_the_pull_request_moved_on_or_is_not_open(tmp_path: Path) -> None:
    sha = "a" * 40
    for name, pulls in (("moved", [{"number": 7, "head": {"sha": "b" * 40}}]), ("closed", [])):
        code, calls, out = _ci_comment(tmp_path / name, pulls=pulls, HEAD_SHA=sha, HEAD="someone:feature")
        assert code == 0 and _writes(calls) == [] and "the plan is not posted" in out


@pytest.mark.e2e
@pytest.mark.parametrize("setting, value", [("PLAN_RELEASE", "shop -->"), ("PLAN_RELEASE", "Shop"), ("PLAN_NAMESPACE", "a.b")])
def test_ci_plan_refuses_a_name_the_marker_cannot_hold(tmp_path: Path, setting: str, value: str) -> None:
    """The marker holds a release and a namespace as Helm allows them, and nothing else."""
    env = {"PATH": os.environ["PATH"], "PLAN_CHART": "charts/shop", "PLAN_RELEASE": "shop", "PLAN_BASE": "HEAD",
           "PLAN_DIR": str(tmp_path / "plan"), setting: value}
    done = subprocess.run([str(ROOT / "scripts" / "ci-plan")], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 1 and done.stderr.startswith(f"helm plan: error: {setting} is {value}, which is no ")
    assert not (tmp_path / "plan" / "plan.md").exists()


def test_the_comment_workflow_runs_the_action_in_comment_mode() -> None:
    """The example comment workflow posts through the action's comment mode (scripts/ci-comment),
    never with `gh pr comment --edit-last`, which edits whatever github-actions[bot] said last."""
    workflow = yaml.safe_load((ROOT / "examples" / "github" / "helm-plan-comment.yml").read_text())
    (step,) = [s for s in workflow["jobs"]["comment"]["steps"] if s.get("uses", "").startswith("deployah/helm-plan@")]
    assert step["with"] == {"mode": "comment", "plan": "${{ runner.temp }}/helm-plan/plan.md"}
    (action,) = [s for s in ACTION["runs"]["steps"] if s.get("if") == "inputs.mode == 'comment'"]
    assert action["run"].strip().endswith('"$GITHUB_ACTION_PATH/scripts/ci-comment"')
    assert "github.event.workflow_run.head_sha" in action["env"]["HEAD_SHA"]
    assert "head_repository.owner.login" in action["env"]["HEAD"] and "head_branch" in action["env"]["HEAD"]
    for path in [*WORKFLOWS, ROOT / "action.yml", ROOT / "docs" / "ci.md", ROOT / "README.md"]:
        assert "--edit-last" not in path.read_text(), path.name
    skipped = [s for s in ACTION["runs"]["steps"] if "inputs.mode != 'comment'" in s.get("if", "")]
    assert len(skipped) == 4, "comment mode needs no helm: the install and plan steps are skipped"


# -- the GitLab job's merge-request note, against a loopback GitLab API -------------------------------

class _GitLab(http.server.BaseHTTPRequestHandler):
    """GitLab's REST API as the note step uses it: the token's user, a merge request's notes
    (`notes` holds them), and creating or editing one (recorded in `calls`)."""

    notes: list[dict[str, Any]] = []
    calls: list[tuple[str, str, str]] = []

    def log_message(self, *_: Any) -> None:
        pass

    def _answer(self, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        assert self.headers["PRIVATE-TOKEN"] == "token"
        self._answer({"id": 5} if self.path == "/api/v4/user" else self.notes)

    def _write(self) -> None:
        assert self.headers["PRIVATE-TOKEN"] == "token"
        form = urllib.parse.parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
        self.calls.append((self.command, self.path, form["body"][0]))
        self._answer({})

    do_POST = do_PUT = _write


def _gitlab_note(tmp_path: Path, notes: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    job = yaml.safe_load(GITLAB.read_text())["helm-plan-note"]
    (step,) = [line for line in job["script"] if "HELM_PLAN_TOKEN" in line]
    _GitLab.notes, _GitLab.calls = notes, []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _GitLab)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        tmp_path.mkdir(parents=True, exist_ok=True)
        (tmp_path / "plan.md").write_text(f"{MARKER}\n**the plan** & 100% of it\n")
        done = subprocess.run(["bash", "-e", "-c", step], cwd=tmp_path, capture_output=True, text=True, env={
            "PATH": os.environ["PATH"], "HELM_PLAN_TOKEN": "token", "CI_PROJECT_ID": "9", "CI_MERGE_REQUEST_IID": "4",
            "CI_API_V4_URL": f"http://127.0.0.1:{server.server_port}/api/v4"})
        assert done.returncode == 0, done.stderr
    finally:
        server.shutdown()
        server.server_close()
    return _GitLab.calls


@pytest.mark.e2e
def test_the_gitlab_job_posts_the_plan_as_one_note(tmp_path: Path) -> None:
    body = f"{MARKER}\n**the plan** & 100% of it\n"
    assert _gitlab_note(tmp_path / "first", []) == [("POST", "/api/v4/projects/9/merge_requests/4/notes", body)]
    mine = {"id": 31, "author": {"id": 5}, "body": f"{MARKER}\nan older plan"}
    theirs = {"id": 32, "author": {"id": 6}, "body": f"{MARKER}\nsomeone else's"}
    other_release = {"id": 33, "author": {"id": 5}, "body": "<!-- helm-plan release=shop-db namespace=shop -->\nx"}
    assert _gitlab_note(tmp_path / "again", [theirs, other_release, mine]) == [
        ("PUT", "/api/v4/projects/9/merge_requests/4/notes/31", body)]
    assert _gitlab_note(tmp_path / "not-mine", [theirs, other_release]) == [
        ("POST", "/api/v4/projects/9/merge_requests/4/notes", body)]
