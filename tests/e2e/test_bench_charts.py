"""The charts scripts/bench times: the real ones and a corpus folder's (scripts/bench_plugin.py).

Nothing here is timed; the corpus is made in the test with `helm package` of the real
charts, laid out as tests/corpus/README.md says.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from realcharts import NAMES, real_chart
from test_bench_charts import CHARTS, _bench_plugin, bench_plugin


def _package(helm4: Path, chart: Path, into: Path, name: str) -> Path:
    out = into / "packaging"
    done = subprocess.run([str(helm4), "package", str(chart), "-d", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    (package,) = out.glob("*.tgz")
    into.mkdir(parents=True, exist_ok=True)
    return Path(shutil.move(str(package), into / name))


@pytest.fixture
def corpus(tmp_path: Path, helm4: Path) -> Path:
    """kube-state-metrics with no values.yaml; traefik with one and a third, older package whose
    name sorts last as text (9.0.0 before 37.0.0 only by number); a folder of one package."""
    for name in NAMES:  # the real charts, or the test is skipped (fails under CI=true)
        real_chart(name)
    folder = tmp_path / "corpus"
    ksm = folder / "kube-state-metrics"
    _package(helm4, CHARTS / "kube-state-metrics" / "prev", ksm, "7.0.0.tgz")
    _package(helm4, CHARTS / "kube-state-metrics" / "next", ksm, "8.4.0.tgz")
    traefik = folder / "traefik"
    older = _package(helm4, CHARTS / "traefik" / "prev", traefik, "37.0.0.tgz")
    shutil.copy(older, traefik / "9.0.0.tgz")
    _package(helm4, CHARTS / "traefik" / "next", traefik, "41.3.0.tgz")
    shutil.copy(CHARTS / "traefik" / "values.yaml", traefik / "values.yaml")
    _package(helm4, CHARTS / "argo-cd" / "next", folder / "lonely", "1.0.0.tgz")
    return folder


def test_a_corpus_chart_is_planned_from_its_second_newest_package_to_its_newest(
        corpus: Path, tmp_path: Path, helm4: Path) -> None:
    work = tmp_path / "work"
    found = bench_plugin.corpus_cases(corpus, work)
    assert [(c.name, c.source, c.release, c.namespace, c.versions) for c in found] == [
        ("kube-state-metrics", "corpus", "kube-state-metrics", "corpus", "7.0.0 → 8.4.0"),
        ("traefik", "corpus", "traefik", "corpus", "37.0.0 → 41.3.0"),
    ]
    ksm, traefik = found
    # No values.yaml: the release is stored with none, "reused" gives none, and "flags" gives the
    # newer package's own default values as a file of the work folder.
    assert ksm.prev_values == [] and ksm.reused_values == []
    flag, given = ksm.next_values
    assert flag == "-f" and Path(given).parent.parent == work
    assert Path(given).read_text() == (CHARTS / "kube-state-metrics" / "next" / "values.yaml").read_text()
    # A values.yaml: given to the stored release and as the flags run's -f.
    assert traefik.prev_values == traefik.next_values == ["-f", str(corpus / "traefik" / "values.yaml")]
    assert traefik.reused_values == []


def test_a_corpus_case_stores_its_older_release_and_renders_its_newer(
        corpus: Path, tmp_path: Path, helm4: Path) -> None:
    work = tmp_path / "work"
    for case in bench_plugin.corpus_cases(corpus, work):
        (record,) = json.loads(bench_plugin.store(case, work, helm4).read_text())
        assert (record["name"], record["namespace"]) == (case.release, "corpus")
        assert record["chart"]["metadata"]["version"] == case.prev.name.removesuffix(".tgz")
        for values in (case.next_values, case.prev_values):
            done = subprocess.run([str(helm4), "template", case.release, str(case.next), "-n", case.namespace,
                                   *values], capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
