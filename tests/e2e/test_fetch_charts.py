"""scripts/fetch-charts over HTTP, on a loopback server of the test's own: a package is kept
only with its pinned sha256, a redirect to another scheme is not followed, and the command
line says what it refused. The rules without a server: tests/test_fetch_charts.py."""
from __future__ import annotations

import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import pytest

from conftest import ROOT
from realcharts import fetch_charts
from test_fetch_charts import _package

pytestmark = pytest.mark.e2e


class Served:
    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files
        self.requests: list[str] = []
        served = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                served.requests.append(self.path)
                if self.path == "/moved.tgz":
                    self.send_response(302)
                    self.send_header("Location", "ftp://127.0.0.1/p.tgz")
                    self.end_headers()
                    return
                body = served.files.get(self.path)
                self.send_response(200 if body is not None else 404)
                self.end_headers()
                self.wfile.write(body or b"")

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Served, str]]:
    package = tmp_path / "p.tgz"
    sha256 = _package(package, "shop", "0.1.0")
    server = Served({"/p.tgz": package.read_bytes()})
    thread = threading.Thread(target=server.server.serve_forever, daemon=True)
    thread.start()
    yield server, sha256
    server.server.shutdown()
    server.server.server_close()


def test_a_package_over_http_is_kept_with_its_sha256_and_then_read_from_the_cache(
        served: tuple[Served, str], tmp_path: Path) -> None:
    server, sha256 = served
    target = tmp_path / "cache" / "p.tgz"
    with pytest.raises(fetch_charts.Refused, match="not the pinned"):
        fetch_charts.download(f"{server.url}/p.tgz", "f" * 64, target, schemes=("http",))
    assert not target.exists()
    fetch_charts.download(f"{server.url}/p.tgz", sha256, target, schemes=("http",))
    fetch_charts.download(f"{server.url}/p.tgz", sha256, target, schemes=("http",))
    assert server.requests == ["/p.tgz", "/p.tgz"]  # the third is a cache hit


def test_a_redirect_to_another_scheme_is_not_followed(served: tuple[Served, str], tmp_path: Path) -> None:
    server, sha256 = served
    with pytest.raises(fetch_charts.Refused, match="redirects to ftp://127.0.0.1/p.tgz: only http is fetched"):
        fetch_charts.download(f"{server.url}/moved.tgz", sha256, tmp_path / "cache" / "p.tgz", schemes=("http",))
    assert list((tmp_path / "cache").iterdir()) == []  # not even the partial file


def test_the_command_line_names_an_unknown_chart_and_what_it_refused(tmp_path: Path) -> None:
    unknown = subprocess.run([sys.executable, str(ROOT / "scripts" / "fetch-charts"), "nginx"],
                             capture_output=True, text=True)
    assert (unknown.returncode, unknown.stderr) == (
        2, "fetch-charts: no chart nginx: choose among traefik, argo-cd, kube-state-metrics\n")
    unpinned = [c.name for c in fetch_charts.CHARTS if not (c.prev.sha256 and c.next.sha256)]
    if unpinned:  # nothing is fetched for a chart with no pinned sha256, so no network is needed
        done = subprocess.run([sys.executable, str(ROOT / "scripts" / "fetch-charts"), unpinned[0]],
                              capture_output=True, text=True)
        assert done.returncode == 1 and f"fetch-charts: {unpinned[0]}: no sha256 is pinned for" in done.stderr
