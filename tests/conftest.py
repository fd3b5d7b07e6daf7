"""Shared fixtures: real helm binaries (fetched by scripts/fetch-helm), release fixtures made
by real helm (scripts/release-fixture), and a runner for the real command line.

Two tiers. A test that runs helm, starts a process or serves on loopback is marked `e2e` and
sits in tests/e2e/; every other test is a unit test of the fast tier (`scripts/test --fast`:
`pytest -m "not e2e"`), the tier mutation testing runs, in the folder mirroring its module. A test that takes a helm fixture or the loopback API server
(`E2E_FIXTURES`) is marked here; a module that starts processes or servers in another way
says `pytestmark = pytest.mark.e2e`, or marks those tests one by one. In every run, a test not
marked e2e that starts a process or listens on a socket fails (`_the_fast_tier_starts_nothing`),
so such a test cannot land in the fast tier unmarked."""
from __future__ import annotations

import atexit
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generator

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "scripts" / "example"
HELM_VERSIONS = ("3.19.0", "4.3.1")


# Fixtures that run real helm, and the loopback API server (tests/kubeapi.py) by the name each
# module gives it: a test that takes one, directly or through another fixture, is end-to-end.
E2E_FIXTURES = frozenset({"helm", "helm4", "store", "shared_cache", "kube", "tls_kube"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if E2E_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.e2e)


_REFUSED = pytest.StashKey[list[str]]()  # what a test of the fast tier tried to start
_REPORTED = pytest.StashKey[int]()  # how many of those a report of the test has failed on


@pytest.fixture(autouse=True)
def _the_fast_tier_starts_nothing(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a test not marked e2e, starting a process or listening on a socket raises, and the
    test fails even where the code under test swallows the error (pytest_runtest_makereport)."""
    if request.node.get_closest_marker("e2e") is not None:
        return
    refused = request.node.stash.setdefault(_REFUSED, [])

    def refuse(what: str) -> Any:
        def refused_call(*args: Any, **kwargs: Any) -> Any:
            refused.append(what)
            raise RuntimeError(_refusal(what))
        return refused_call

    monkeypatch.setattr(subprocess.Popen, "_execute_child", refuse("starts a process"))
    for spawn in ("posix_spawn", "posix_spawnp"):  # helm's processes (deployah_plan/sources/process.py)
        if hasattr(os, spawn):
            monkeypatch.setattr(os, spawn, refuse("starts a process"))
    monkeypatch.setattr(socket.socket, "listen", refuse("listens on a socket"))


def _refusal(what: str) -> str:
    return f"a test of the fast tier {what}: mark it e2e (pytest.mark.e2e; tests/conftest.py says how)"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item,
                               call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A setup, call or teardown that passed although something was refused in it fails."""
    report = yield
    refused = item.stash.get(_REFUSED, [])
    if len(refused) > item.stash.get(_REPORTED, 0):
        if report.passed:
            report.outcome = "failed"
            report.longrepr = _refusal(refused[item.stash.get(_REPORTED, 0)])
        item.stash[_REPORTED] = len(refused)
    return report


def _fetch(version: str) -> Path:
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "fetch-helm"), version],
                         check=True, capture_output=True, text=True).stdout
    return Path(out.strip())


@pytest.fixture(scope="session")
def helm4() -> Path:
    return _fetch("4.3.1")


@pytest.fixture(scope="session", params=HELM_VERSIONS, ids=lambda v: f"helm{v}")
def helm(request: pytest.FixtureRequest) -> Path:
    """Each test that takes `helm` runs once with Helm 3 and once with Helm 4."""
    return _fetch(request.param)


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One helm cache for the tests that only use the plugin: its environment is made once."""
    return tmp_path_factory.mktemp("helm-cache")


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


@dataclass
class Store:
    """A memory-driver release store in a file."""

    path: Path
    helm4: Path

    def add(self, name: str, chart: Path | str, namespace: str = "default", revision: int = 1,
            status: str = "deployed", flags: tuple[str, ...] = ()) -> None:
        subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "release-fixture"), "--helm", str(self.helm4),
             "--out", str(self.path), "--append", name, str(chart), "-n", namespace,
             "--revision", str(revision), "--status", status, *flags],
            check=True, capture_output=True, text=True,
        )


@pytest.fixture
def store(tmp_path: Path, helm4: Path) -> Store:
    path = tmp_path / "releases.json"
    path.write_text("[]\n")
    return Store(path, helm4)


# What upgrading the example from chart-v1 to chart-v2 does, in Helm's order.
EXAMPLE_UPGRADE = [
    ("update", "Secret", "shop-db"), ("update", "ConfigMap", "shop-config"),
    ("update", "Deployment", "shop-web"), ("create", "HorizontalPodAutoscaler", "shop-web"),
    ("create", "CronJob", "shop-cleanup"), ("delete", "Service", "shop-legacy"),
]


def changes_of(doc: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(c["action"], c["resource"]["kind"], c["resource"]["name"]) for c in doc["changes"]]


def assert_example_upgrade(doc: dict[str, Any], helm: Path, gone: tuple[str, ...] = ()) -> None:
    """What planning the example's upgrade from chart-v1 to chart-v2 must say, however rendered.
    `gone`: names of objects leaving the release that the cluster was read without: Helm skips
    them, so they are no deletes."""
    assert doc["helm_action"] == "upgrade"
    assert doc["header"]["revision"] == 2 and doc["header"]["previous_revision"] == 1
    assert doc["header"]["previous_chart"] == "shop-0.1.0"
    assert doc["header"]["helm_version"] == helm.parent.name
    assert changes_of(doc) == [c for c in EXAMPLE_UPGRADE if c[0] != "delete" or c[2] not in gone]
    assert [c["helm_order"] for c in doc["changes"]] == sorted(c["helm_order"] for c in doc["changes"])
    image = [f for f in doc["changes"][2]["fields"] if f["path"] == "/spec/template/spec/containers/0/image"]
    # The example's values do not change: the chart's every change (core/causes.py).
    assert doc["attribution"] == "chart" and all(f.pop("cause") == "chart" for f in image)
    assert image == [{"path": "/spec/template/spec/containers/0/image", "op": "replace",
                      "before": "nginx:1.25", "after": "nginx:1.27",
                      "keys": {"/spec/template/spec/containers/0": {"name": "web"}}}]
    # The live state decides predicted failures and the drift a deploy sets back.
    summary = {k: v for k, v in doc["summary"].items() if k not in ("predicted_failures", "drift_reverted")}
    assert summary == {"create": 2, "update": 3, "delete": 1 - len(gone), "retain": 0, "ignored": 0, "has_changes": True,
                       "hooks_run": 1, "hooks_changed": 1, "hooks_stored": 0, "regenerated": 0, "adopted": 0}
    tasks = {t["name"]: t for t in doc["tasks"]}
    assert tasks["Job shop/shop-migrate"]["action"] == "update" and tasks["Job shop/shop-migrate"]["will_run"] is True
    assert tasks["Job shop/shop-seed"]["will_run"] is False  # post-install only: not on an upgrade
    assert tasks["CronJob shop/shop-cleanup"]["phase"] == "schedule"
    assert doc["chart_crds"][0]["lifecycle"] == "not-on-upgrade"


# Each command gets its own empty helm cache unless a test names one: what helm-plan remembers
# about a helm binary (sources/helm_versions.py) must not carry from one test to another.
_CACHES = tempfile.mkdtemp(prefix="helm-plan-test-caches-")
atexit.register(shutil.rmtree, _CACHES, True)


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HELM_", "KUBECONFIG", "NO_COLOR")) and k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(ROOT)
    env["HELM_CACHE_HOME"] = tempfile.mkdtemp(dir=_CACHES)
    env.update(extra)
    return env


def run_plan(*args: str, helm: Path | str | None = None, store: Store | None = None,
             stdin: str | None = None, cwd: Path | None = None, **env: str) -> Result:
    """`helm-plan ARGS` as a user runs it: a new process, real helm, no patching."""
    extra = dict(env)
    if helm is not None:
        extra["HELM_BIN"] = str(helm)
    if store is not None:
        extra.update(HELM_DRIVER="memory", HELM_MEMORY_DRIVER_DATA=str(store.path))
    done = subprocess.run([sys.executable, "-m", "deployah_plan", *args], input=stdin,
                          capture_output=True, text=True, env=clean_env(**extra), cwd=cwd or ROOT)
    return Result(done.returncode, done.stdout, done.stderr)


def write_chart(root: Path, name: str, templates: dict[str, str], values: str = "", version: str = "0.1.0",
                extra_files: dict[str, str] | None = None) -> Path:
    chart = root / name
    (chart / "templates").mkdir(parents=True, exist_ok=True)
    (chart / "Chart.yaml").write_text(f"apiVersion: v2\nname: {name}\nversion: {version}\n")
    (chart / "values.yaml").write_text(values)
    for file, body in templates.items():
        (chart / "templates" / file).write_text(body)
    for file, body in (extra_files or {}).items():
        (chart / file).parent.mkdir(parents=True, exist_ok=True)
        (chart / file).write_text(body)
    return chart


