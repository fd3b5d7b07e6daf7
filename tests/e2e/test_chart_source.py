"""Charts from a repository: one `helm pull` (with --version) from a chart repository served on loopback."""
from __future__ import annotations

import functools
import http.server
import subprocess
import threading
from pathlib import Path
from typing import Iterator

import pytest

from conftest import EXAMPLE, Store, run_plan


@pytest.fixture
def chart_repo(tmp_path: Path, helm4: Path) -> Iterator[str]:
    repo = tmp_path / "repo"
    repo.mkdir()
    for chart in ("chart-v1", "chart-v2"):
        subprocess.run([str(helm4), "package", str(EXAMPLE / chart), "-d", str(repo)], check=True, capture_output=True)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(repo))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    subprocess.run([str(helm4), "repo", "index", str(repo), "--url", url], check=True, capture_output=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()


def test_chart_version_from_a_repository(helm: Path, store: Store, chart_repo: str, tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    home = {"HELM_CACHE_HOME": str(tmp_path / "cache"), "HELM_CONFIG_HOME": str(tmp_path / "config")}
    doc = run_plan("upgrade", "shop", "shop", "--repo", chart_repo, "--version", "0.2.0", "-n", "shop", "-o", "json",
                   helm=helm, store=store, **home).json()
    assert doc["header"]["chart"] == {"name": "shop", "version": "0.2.0"}
    assert doc["summary"].items() >= {"create": 2, "update": 3, "delete": 1, "retain": 0, "ignored": 0, "has_changes": True}.items()
    same = run_plan("upgrade", "shop", "shop", "--repo", chart_repo, "--version", "0.1.0", "-n", "shop", "-o", "json",
                    helm=helm, store=store, **home).json()
    assert same["helm_action"] == "none"
    missing = run_plan("upgrade", "shop", "shop", "--repo", chart_repo, "--version", "9.9.9", "-n", "shop",
                       helm=helm, store=store, **home)
    assert missing.code == 1 and "9.9.9" in missing.err and len(missing.err.strip().splitlines()) == 1
