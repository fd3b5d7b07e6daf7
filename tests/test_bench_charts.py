"""The charts scripts/bench times (scripts/bench_plugin.py): the real public ones with no corpus, and
charts chosen by name. Nothing here is timed. A corpus folder made with `helm package`:
tests/e2e/test_bench_charts.py."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from conftest import ROOT
from realcharts import CHARTS, NAMES, real_chart


def _bench_plugin() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_plugin", ROOT / "scripts" / "bench_plugin.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_plugin", module)
    spec.loader.exec_module(module)
    return module


bench_plugin = _bench_plugin()


@pytest.fixture
def real() -> None:
    """Every real chart, or the test is skipped (fails under CI=true): tests/realcharts.py."""
    for name in NAMES:
        real_chart(name)


def test_the_bench_reads_the_real_charts_where_the_tests_do(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    assert bench_plugin.CHARTS == CHARTS
    monkeypatch.setattr(bench_plugin, "CHARTS", tmp_path / "absent")
    with pytest.raises(SystemExit, match=r"bench: no chart argo-cd in .*absent: run scripts/fetch-charts"):
        bench_plugin.cases(tmp_path, None)


def test_the_real_charts_are_timed_with_no_corpus(tmp_path: Path, real: None) -> None:
    found = bench_plugin.cases(tmp_path, tmp_path / "absent")
    assert [(c.name, c.source) for c in found] == [
        ("argo-cd", "real"), ("kube-state-metrics", "real"), ("traefik", "real")]
    assert bench_plugin.cases(tmp_path, None) == found
    argo = found[0]
    assert (argo.release, argo.namespace, argo.versions) == ("argocd", "argocd", "9.0.6 → 10.1.1")
    assert argo.prev_values[:2] == ["-f", str(CHARTS / "argo-cd" / "values.yaml")]


def test_charts_are_chosen_by_name_and_an_unknown_name_says_which_there_are(tmp_path: Path, real: None) -> None:
    assert [c.name for c in bench_plugin.cases(tmp_path, None, {"traefik"})] == ["traefik"]
    with pytest.raises(SystemExit) as stopped:
        bench_plugin.cases(tmp_path, None, {"traefik", "nginx"})
    assert str(stopped.value) == (f"bench: no chart nginx in {CHARTS}: "
                                  "choose among argo-cd, kube-state-metrics, traefik")
