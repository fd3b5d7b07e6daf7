"""scripts/fetch-charts over HTTP, on a loopback server of the test's own laid out as GitHub's
source archives (OWNER/REPO/tar.gz/SHA): a chart tree is kept only with its pinned digest and
then read from the cache, a redirect to another scheme is not followed, and the command line
names an unknown chart. The rules without a server: tests/test_fetch_charts.py."""
from __future__ import annotations

import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

from conftest import ROOT
from realcharts import fetch_charts
from test_fetch_charts import SHAS, _chart, _served

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
def served(tmp_path: Path) -> Iterator[tuple[Served, Any]]:
    folder, chart = _served(tmp_path)
    server = Served({f"/{p.relative_to(folder).as_posix()}": p.read_bytes() for p in folder.rglob("*") if p.is_file()})
    thread = threading.Thread(target=server.server.serve_forever, daemon=True)
    thread.start()
    yield server, chart
    server.server.shutdown()
    server.server.server_close()


def test_a_chart_over_http_is_kept_with_its_digest_and_then_read_from_the_cache(
        served: tuple[Served, Any], tmp_path: Path) -> None:
    server, chart = served
    cache = tmp_path / "cache"
    with pytest.raises(fetch_charts.Refused, match="not the pinned"):
        fetch_charts.fetch(_chart(["f" * 64, chart.next.tree]), cache, host=server.url, schemes=("http",))
    assert not (cache / "shop" / "prev").exists()
    fetch_charts.fetch(chart, cache, host=server.url, schemes=("http",))
    fetch_charts.fetch(chart, cache, host=server.url, schemes=("http",))
    archives = [f"/owner/shop-charts/tar.gz/{sha}" for sha in SHAS]
    assert server.requests == [archives[0], *archives]  # the third fetch is read from the cache


def test_a_redirect_to_another_scheme_is_not_followed(served: tuple[Served, Any], tmp_path: Path) -> None:
    server, _ = served
    with (tmp_path / "part").open("wb") as part, \
            pytest.raises(fetch_charts.Refused, match="redirects to ftp://127.0.0.1/p.tgz: only http is fetched"):
        fetch_charts.download(f"{server.url}/moved.tgz", part, schemes=("http",))
    assert (tmp_path / "part").read_bytes() == b""


def test_the_command_line_names_an_unknown_chart() -> None:
    unknown = subprocess.run([sys.executable, str(ROOT / "scripts" / "fetch-charts"), "nginx"],
                             capture_output=True, text=True)
    assert (unknown.returncode, unknown.stderr) == (
        2, "fetch-charts: no chart nginx: choose among traefik, argo-cd, kube-state-metrics\n")
