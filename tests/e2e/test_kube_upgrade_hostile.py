"""`helm plan kube-upgrade` against a hostile release store: an attacker who can write one
release record (a release Secret in any namespace, or a memory-driver file handed over) may
choose its name, namespace, chart name, stored chart files and values. Every string from a
record reaches the report only escaped, in every format; one bad release is that release's
error row and never stops the others. Real helm, memory-driver files and the loopback server."""
from __future__ import annotations

import base64
import gzip
import json
import re
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, Callable

import pytest

from tests.conftest import ROOT, Store, run_plan
from tests.e2e.test_kube_upgrade import _edit
from tests.kubeapi import FakeKube, Request

pytestmark = pytest.mark.e2e

CHARTS = ROOT / "tests" / "charts" / "kube-upgrade"
WORKFLOW = "::error file=Chart.yaml,line=1::forged"
OSC52 = "\x1b]52;c;aGVsbG8=\x07"
HOSTILE_NAMES = [WORKFLOW, f"osc{OSC52}", "cr\rover", "nl\n::warning::forged", "<img src=https://x.invalid/a.png>",
                 "@admins ping"]
FORMATS = ("text", "table", "summary", "markdown", "json")


def _named(name: str) -> Callable[[dict[str, Any]], None]:
    def change(record: dict[str, Any]) -> None:
        record["name"] = name
    return change


def _lines_are_safe(text: str) -> list[str]:
    """Lines a CI log or a terminal would act on: a workflow command, a control character."""
    bad = []
    for line in text.split("\n"):
        if re.match(r"\s*::", line):
            bad.append(f"workflow command: {line!r}")
        if re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", line):
            bad.append(f"control character: {line!r}")
    return bad


def _markdown_is_safe(text: str) -> list[str]:
    """Outside code blocks: no raw HTML tag, no image, no @mention from a record."""
    bad, fenced = [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if re.search(r"(?<!\\)<img|!\[|(?<![&#\w])@admins", line):
            bad.append(line)
    return bad + _lines_are_safe(text)


@pytest.mark.parametrize("output", FORMATS)
def test_hostile_release_names_reach_every_format_escaped(helm: Path, store: Store, output: str) -> None:
    for n, name in enumerate(HOSTILE_NAMES):
        store.add(f"r{n}", CHARTS / "plain", namespace="web")
        _edit(store, f"r{n}", _named(name))
    result = run_plan("kube-upgrade", "--kube-version", "1.32", "-A", "-o", output, helm=helm, store=store)
    assert result.code in (0, 1, 2), result.err
    assert not _lines_are_safe(result.err), result.err
    if output == "json":
        doc = json.loads(result.out)
        assert sorted(row["release"] for row in doc["releases"]) == sorted(HOSTILE_NAMES)
    elif output == "markdown":
        assert _markdown_is_safe(result.out) == []
    else:
        assert _lines_are_safe(result.out) == []


@pytest.mark.parametrize("output", ["text", "markdown"])
def test_hostile_release_names_in_release_secrets_reach_the_report_escaped(helm: Path, store: Store, tmp_path: Path,
                                                                         output: str) -> None:
    """The same names in release Secrets on the loopback API server: each Secret is one an
    attacker may write (a valid name and labels), its record's name their choice."""
    for n in range(len(HOSTILE_NAMES)):
        store.add(f"r{n}", CHARTS / "plain", namespace="web")
    with FakeKube(namespace="web") as kube:
        for n, record in enumerate(json.loads(store.path.read_text())):
            kube.add_release(record)  # the Secret as helm writes it, then its record renamed
            secret = f"sh.helm.release.v1.r{n}.v{record['version']}"
            forged = dict(record, name=HOSTILE_NAMES[n])
            helm_value = base64.b64encode(gzip.compress(json.dumps(forged).encode()))
            kube.objects[("v1", "secrets", "web", secret)]["data"]["release"] = base64.b64encode(helm_value).decode()
        config = kube.write_kubeconfig(tmp_path / "kubeconfig")
        result = run_plan("kube-upgrade", "--kube-version", "1.32", "-A", "-o", output, helm=helm,
                          KUBECONFIG=str(config))
        assert kube.writes() == []
    assert result.code in (0, 1), result.err
    assert not _lines_are_safe(result.err), result.err
    assert (_markdown_is_safe if output == "markdown" else _lines_are_safe)(result.out) == []
    assert "forged" in result.out  # the names did reach the report


def _chart_file(name: str, body: str = "x: 1\n") -> Callable[[dict[str, Any]], None]:
    def change(record: dict[str, Any]) -> None:
        record["chart"]["files"] = (record["chart"].get("files") or []) + [
            {"name": name, "data": base64.b64encode(body.encode()).decode()}]
    return change


DEEP = "__values nested 3,000 levels deep__"


def _deep_values(record: dict[str, Any]) -> None:
    record["config"] = DEEP  # written as text by _write: Python's own json cannot write it


@pytest.mark.parametrize(("hostile", "verdict", "error"), [
    pytest.param(_chart_file("."), "error", "not a file name helm writes", id="file-dot"),
    pytest.param(_chart_file("templates"), "error", "where the chart's own files go", id="file-templates"),
    pytest.param(_chart_file("Chart.yaml/x"), "error", "where the chart's own files go", id="file-under-chart-yaml"),
    pytest.param(_chart_file("a" * 300), "error", "longer than a file system holds", id="file-300-chars"),
    pytest.param(_chart_file("nul\x00byte"), "error", "not a file name helm writes", id="file-nul"),
    pytest.param(_named("nul\x00name"), "will-fail", "release name is invalid", id="release-nul"),
    pytest.param(_chart_file("big.txt", "x" * (5 * 1024 * 1024 + 1)), "error", "more than helm loads of a chart file",
                 id="file-over-5-mib"),
    pytest.param(_deep_values, "ready", None, id="values-3000-deep"),  # helm reads 10,000 levels
])
def test_one_bad_release_is_its_own_row(helm: Path, store: Store, hostile: Callable[[dict[str, Any]], None],
                                        verdict: str, error: str | None) -> None:
    store.add("bad", CHARTS / "plain", namespace="web")
    store.add("plain", CHARTS / "plain", namespace="web")
    _edit(store, "bad", hostile)
    store.path.write_text(store.path.read_text().replace(json.dumps(DEEP), '{"deep": ' + '{"a": ' * 3000 + '"bottom"'
                                                          + "}" * 3001))
    result = run_plan("kube-upgrade", "--kube-version", "1.32", "-A", "-o", "json", helm=helm, store=store)
    assert "internal error" not in result.err and "Traceback" not in result.err, result.err
    rows = {row["release"]: row for row in json.loads(result.out)["releases"]}
    assert rows.pop("plain")["verdict"] == "ready"
    (bad,) = rows.values()
    assert bad["verdict"] == verdict and (error or "") in bad.get("error", ""), bad
    assert result.code == (1 if verdict == "error" else 0), result.err
    if hostile is _deep_values:  # and `helm plan upgrade` of it plans it too
        upgrade = run_plan("upgrade", "bad", str(CHARTS / "plain"), "-n", "web", "--reuse-values", "-o", "json",
                           helm=helm, store=store)
        assert upgrade.code == 0, upgrade.err


def _never_answers(handler: BaseHTTPRequestHandler, request: Request) -> None:
    handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
    for _ in range(200):
        try:
            handler.wfile.write(b" ")
            handler.wfile.flush()
        except OSError:
            return
        time.sleep(0.3)


@pytest.mark.parametrize("lister", ["server", "helm"])
def test_the_release_list_is_bounded_by_the_timeout(helm: Path, store: Store, tmp_path: Path, lister: str) -> None:
    """A server that answers the list as slowly as it likes stops the run after --timeout, with
    one line: the release Secrets' list (`server`), or helm's list (`helm`: a helm whose list
    never ends, which lists the releases for a selector naming a release's own label)."""
    store.add("plain", CHARTS / "plain", namespace="web")
    wrapper = tmp_path / "helm"
    wrapper.write_text(f"""#!/bin/sh
[ "$1" = list ] && exec sleep 60
exec "{helm}" "$@"
""")
    wrapper.chmod(0o755)
    with FakeKube(namespace="web") as kube:
        kube.load_releases(store.path)
        if lister == "server":
            kube.script("/api/v1/secrets", _never_answers)
        config = kube.write_kubeconfig(tmp_path / "kubeconfig")
        started = time.monotonic()
        result = run_plan("kube-upgrade", "--kube-version", "1.32", "-A", "--timeout", "2s",
                          *(["-l", "team=blue"] if lister == "helm" else []), helm=wrapper, KUBECONFIG=str(config))
        assert time.monotonic() - started < 20
    assert result.code == 1 and result.err.count("\n") == 1, result.err
    assert "listing the releases took longer than 2s" in result.err


def test_a_memory_driver_file_with_an_alias_bomb_is_refused_as_helm_refuses_it(helm: Path, tmp_path: Path) -> None:
    bomb = tmp_path / "releases.yaml"
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 10) + "]" for n in range(1, 9)]
    bomb.write_text("\n".join(lines) + "\nreleases: [*a8]\n")
    started = time.monotonic()
    result = run_plan("kube-upgrade", "--kube-version", "1.32", "-A", helm=helm, HELM_DRIVER="memory",
                      HELM_MEMORY_DRIVER_DATA=str(bomb))
    assert time.monotonic() - started < 20
    assert result.code == 1 and result.err.count("\n") == 1, result.err
    assert "excessive aliasing" in result.err and "HELM_MEMORY_DRIVER_DATA" in result.err


def _failing_template(record: dict[str, Any]) -> None:
    message = "![x](https://x.invalid/a.png) @admins <img src=https://x.invalid/b.png>\n::error::forged"
    body = "{{ fail " + json.dumps(message) + " }}\n"
    record["chart"]["templates"] = [{"name": "templates/fail.yaml", "data": base64.b64encode(body.encode()).decode()}]


@pytest.mark.parametrize("output", ["text", "markdown"])
def test_a_charts_fail_message_is_shown_as_text(helm: Path, store: Store, output: str) -> None:
    store.add("bad", CHARTS / "plain", namespace="web")
    _edit(store, "bad", _failing_template)
    result = run_plan("kube-upgrade", "--kube-version", "1.32", "-A", "-o", output, helm=helm, store=store)
    assert result.code == 1, result.err
    assert "x.invalid" in result.out  # the message is in the report, as text
    assert not _lines_are_safe(result.err), result.err
    assert (_markdown_is_safe if output == "markdown" else _lines_are_safe)(result.out) == [], result.out
