"""Progress on long work (deployah_plan/progress.py, and the launcher's while it makes the Python
environment): said on standard error when it is a terminal (a pty here) or with --debug, once
the work takes more than a moment; never on standard output, and never on a standard error
that is not a terminal without --debug. The slow work is real: a loopback API server that takes
its time to answer helm's read of the release and helm plan's read of the live objects."""
from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Iterator

import pytest

from conftest import EXAMPLE, ROOT, Store, clean_env
from deployah_plan import progress
from kubeapi import FakeKube, Request

pytestmark = pytest.mark.e2e  # each test starts helm-plan, helm and a loopback server
SLOW = progress.DELAY + 2  # seconds the server waits before it answers a slow path


def _run(command: list[str], env: dict[str, str], *, tty: bool) -> tuple[int, str, str]:
    """Run `command` with standard output on a pipe and standard error on a pty (tty) or a pipe."""
    if not tty:
        done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=ROOT)
        return done.returncode, done.stdout, done.stderr
    leader, follower = pty.openpty()
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=follower, cwd=ROOT)
    os.close(follower)
    said = bytearray()

    def read() -> None:
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the pty's other end closed
                return
            if not chunk:
                return
            said.extend(chunk)

    reader = threading.Thread(target=read)
    reader.start()
    out, _ = process.communicate()
    reader.join()
    os.close(leader)
    return process.returncode, out.decode(), said.decode().replace("\r\n", "\n")


def _slowly(kube: FakeKube) -> None:
    def respond(handler: BaseHTTPRequestHandler, request: Request) -> None:
        time.sleep(SLOW)
        code, body = kube.answer(request.method, request.path, request.query, request.headers)
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        handler.send_response(code)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    kube.script("/api/v1/namespaces/shop/secrets", respond)  # helm reads the release
    kube.script("/apis/apps/v1/namespaces/shop/deployments", respond)  # helm plan reads the live objects


@pytest.fixture
def kube() -> Iterator[FakeKube]:
    with FakeKube(namespace="shop", context="fake-ctx") as server:
        yield server


def test_a_slow_plan_says_what_it_waits_for_on_a_terminal_only(helm4: Path, store: Store, kube: FakeKube,
                                                                tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    kube.load_releases(store.path)
    _slowly(kube)
    env = clean_env(HELM_BIN=str(helm4), KUBECONFIG=str(kube.write_kubeconfig(tmp_path / "kubeconfig")))
    command = [sys.executable, "-m", "deployah_plan", "upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop",
               "-o", "json"]

    code, out, err = _run(command, env, tty=True)
    assert code == 0, err
    assert json.loads(out)["header"]["release"] == "shop"  # standard output holds the plan, and only it
    assert "helm plan: reading release shop...\n" in err
    assert "helm plan: reading the live objects from the cluster...\n" in err

    code, out, err = _run(command, env, tty=False)
    assert code == 0 and "helm plan:" not in err, err
    json.loads(out)

    code, out, err = _run([*command, "--debug"], env, tty=False)
    assert code == 0 and "helm plan: reading release shop...\n" in err
    json.loads(out)


def test_quick_work_says_nothing_on_a_terminal(helm4: Path, store: Store) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    env = clean_env(HELM_BIN=str(helm4), HELM_DRIVER="memory", HELM_MEMORY_DRIVER_DATA=str(store.path))
    code, out, err = _run([sys.executable, "-m", "deployah_plan", "schema"], env, tty=True)
    assert code == 0 and err == "" and json.loads(out)["$id"]


def test_the_launcher_says_it_makes_the_environment_on_a_terminal_only(tmp_path: Path) -> None:
    def env(cache: str) -> dict[str, str]:
        made = clean_env(HELM_CACHE_HOME=str(tmp_path / cache), PATH=os.environ["PATH"])
        made.pop("PYTHONPATH")
        return made

    launcher = [str(ROOT / "scripts" / "helm-plan"), "schema"]
    code, out, err = _run(launcher, env("watched"), tty=True)
    assert code == 0, err
    assert err.startswith("helm plan: making its Python environment") and "helm plan:" not in out
    json.loads(out)
    code, out, err = _run(launcher, env("unwatched"), tty=False)
    assert code == 0 and err == "", err
    json.loads(out)
