"""SIGTERM (a cancelled CI job, Kubernetes ending a pod) and Ctrl-C stop a plan within 2 seconds
in every phase: with one line on stderr and exit 130, every helm process it started ended, and
every temporary file removed, the one holding the previous release's values among them.

Each test runs the real command line with real helm, and signals it once it is in the phase
under test: waiting on an API server (on loopback) that accepts connections and never answers;
during the imports, while the helm calls started before them run; while helm runs in one of the
plan's threads. A helm that takes long is `helm` behind a program named as the user's helm
(HELM_BIN) that waits before it runs it.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest

from conftest import EXAMPLE, Store, clean_env
from deployah_plan.sources import helm_versions

WITHIN = 2.0  # seconds from the signal to the end of the process
SIGNALS = pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])


class SilentServer:
    """Accepts every connection on 127.0.0.1 and never answers (keeps them open)."""

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.socket.settimeout(0.1)
        self.accepted: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.socket.getsockname()[1]}"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self.socket.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.accepted.append(connection)

    def __enter__(self) -> "SilentServer":
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(5)
        for connection in self.accepted:
            connection.close()
        self.socket.close()


@pytest.fixture
def silent() -> Iterator[SilentServer]:
    with SilentServer() as server:
        yield server


def _kubeconfig(path: Path, url: str) -> Path:
    config = {"apiVersion": "v1", "kind": "Config", "current-context": "silent",
              "clusters": [{"name": "silent", "cluster": {"server": url}}],
              "users": [{"name": "silent", "user": {"token": "t"}}],
              "contexts": [{"name": "silent", "context": {"cluster": "silent", "user": "silent", "namespace": "shop"}}]}
    path.write_text(json.dumps(config))
    return path


def _descendants(pid: int) -> set[int]:
    """Every process below `pid`, now (from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        children = {child for child, of in parents.items() if of == parent} - found
        found |= children
        todo += children
    return found


def _running(pid: int) -> bool:
    """Whether `pid` is a process that has not ended (a zombie has)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _wait_for(condition: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"never {what}"
        time.sleep(0.02)


class Plan:
    """`helm-plan ARGS` as a user runs it, in a process of its own, with its own TMPDIR."""

    def __init__(self, tmp: Path, args: list[str], **env: str) -> None:
        self.tmpdir = tmp / "tmpdir"
        self.tmpdir.mkdir()
        self.process = subprocess.Popen([sys.executable, "-m", "deployah_plan", *args], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, env=clean_env(TMPDIR=str(self.tmpdir), **env))

    def left(self) -> list[str]:
        return sorted(str(path.relative_to(self.tmpdir)) for path in self.tmpdir.rglob("*"))

    def stop(self, signum: int) -> tuple[int, str, float]:
        """Send `signum`; the exit code, stderr, and how long the process took to end after it,
        with every process below it checked to have ended too."""
        children = _descendants(self.process.pid)
        sent = time.monotonic()
        self.process.send_signal(signum)
        try:
            _, err = self.process.communicate(timeout=WITHIN + 10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate()
        took = time.monotonic() - sent
        alive = [pid for pid in children if _running(pid)]
        for pid in alive:
            os.kill(pid, signal.SIGKILL)
        assert not alive, f"left running: {alive}"
        return self.process.returncode, err, took

    def __enter__(self) -> "Plan":
        return self

    def __exit__(self, *_: object) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


def _assert_stopped(plan: Plan, signum: int) -> None:
    code, err, took = plan.stop(signum)
    assert took < WITHIN, f"ended {took:.1f}s after the signal"
    assert code == 130 and err.splitlines() == ["helm plan: interrupted"], (code, err)
    assert plan.left() == []


@SIGNALS
def test_a_plan_waiting_on_a_silent_api_server_stops(helm4: Path, store: Store, silent: SilentServer,
                                                     tmp_path: Path, signum: int) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop", flags=("--set", "extra=1"))
    kubeconfig = _kubeconfig(tmp_path / "kubeconfig", silent.url)
    # Without values of the user's own: the render gets the previous release's (on its input).
    args = ["upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop"]
    with Plan(tmp_path, args, HELM_BIN=str(helm4), HELM_DRIVER="memory", HELM_MEMORY_DRIVER_DATA=str(store.path),
              KUBECONFIG=str(kubeconfig), HELM_PLAN_REQUEST_TIMEOUT="60", HELM_PLAN_CLUSTER_TIMEOUT="60") as plan:
        _wait_for(lambda: bool(silent.accepted), 30, "asked the API server")
        time.sleep(1)  # the render done: the plan now only waits on the server
        _assert_stopped(plan, signum)


@pytest.fixture
def slow_helm(helm4: Path, tmp_path: Path) -> Path:
    """helm, behind a program that first says it runs (a file named by its process id, in
    `marks`) and waits 30 s, except for `helm version`."""
    program = tmp_path / "bin" / "helm"
    program.parent.mkdir()
    (tmp_path / "marks").mkdir()
    program.write_text(f"""#!{sys.executable}
import os, sys, time
if sys.argv[1:2] != ["version"]:
    open(os.path.join({str(tmp_path / "marks")!r}, str(os.getpid())), "w").close()
    time.sleep(30)
os.execv({str(helm4)!r}, [{str(helm4)!r}, *sys.argv[1:]])
""")
    program.chmod(0o755)
    return program


@SIGNALS
@pytest.mark.parametrize("early", [True, False], ids=["during-the-imports", "in-the-plans-threads"])
def test_a_plan_waiting_on_helm_stops_and_ends_it(slow_helm: Path, store: Store, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch, signum: int, early: bool) -> None:
    """`early`: helm's version already remembered, the two calls start before the imports, and
    the signal comes as soon as both run, while the imports are still under way (they take
    longer than the program's start)."""
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    cache = tmp_path / "cache"
    if early:
        monkeypatch.setenv("HELM_CACHE_HOME", str(cache))
        helm_versions.remembered(str(slow_helm), "version", lambda: "4.3.1")
    args = ["upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "--set", "extra=2"]
    marks = tmp_path / "marks"
    with Plan(tmp_path, args, HELM_BIN=str(slow_helm), HELM_DRIVER="memory", HELM_MEMORY_DRIVER_DATA=str(store.path),
              HELM_CACHE_HOME=str(cache)) as plan:
        _wait_for(lambda: len(list(marks.iterdir())) >= 2, 30, "started both helm calls")
        started = [int(mark.name) for mark in marks.iterdir()]
        assert set(started) <= _descendants(plan.process.pid)
        _assert_stopped(plan, signum)
    assert not [pid for pid in started if _running(pid)]


@SIGNALS
def test_kube_upgrade_stopped_while_helm_output_is_held_leaves_no_stored_chart(helm4: Path, store: Store,
                                                                              tmp_path: Path, signum: int) -> None:
    """helm's child (an exec credential plugin, here a sleep) holds helm's output open after
    helm is ended: the worker reading it never returns, and the process ends without it. The
    stored chart it wrote is removed all the same."""
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    marks = tmp_path / "marks"
    marks.mkdir()
    wrapper = tmp_path / "helm"
    wrapper.write_text(f"""#!/bin/sh
if [ "$1" = template ]; then
  sleep 20 &
  touch "{marks}/held"
  sleep 20
fi
exec "{helm4}" "$@"
""")
    wrapper.chmod(0o755)
    with Plan(tmp_path, ["kube-upgrade", "--kube-version", "1.32", "-A"], HELM_BIN=str(wrapper),
              HELM_DRIVER="memory", HELM_MEMORY_DRIVER_DATA=str(store.path)) as plan:
        _wait_for(lambda: (marks / "held").exists(), 30, "started helm template")
        assert any(path.name.startswith("helm-plan-chart-") for path in plan.tmpdir.iterdir())
        sent = time.monotonic()
        plan.process.send_signal(signum)
        _, err = plan.process.communicate(timeout=WITHIN + 10)
        assert time.monotonic() - sent < WITHIN
        assert plan.process.returncode == 130 and err.splitlines() == ["helm plan: interrupted"], err
        assert plan.left() == []
    for pid in _descendants(os.getpid()):  # the held sleeps: the test's own to end
        if pid != plan.process.pid and _running(pid):
            try:
                if "sleep" in Path(f"/proc/{pid}/cmdline").read_text():
                    os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
