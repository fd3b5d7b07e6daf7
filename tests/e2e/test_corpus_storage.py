"""The corpus tier (tests/e2e/test_corpus.py says how to run it): each corpus chart's release record,
as Helm 4 makes it of its older package and Helm's secret driver stores it on the loopback API
server, reads the same through helm plan (release/store.py) as through real helm, Helm 3 and 4:
`helm get all`, `helm get values [--all] -o json`, the stored chart (issue 50 point 4)."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Iterator

import pytest
from msgspec import structs

from e2e.test_corpus import CHARTS, NAMESPACE, Chart
from e2e.test_helm_storage import _as_printed, _chart_as_helm_prints_it
from kubeapi import FakeKube
from deployah_plan.release import helm_storage
from deployah_plan.release.store import Releases
from deployah_plan.sources.helm import Helm
from deployah_plan.sources.kubeconfig import resolve_settings

pytestmark = [pytest.mark.e2e, pytest.mark.corpus,
              pytest.mark.skipif(not CHARTS, reason="no chart corpus (tests/corpus/README.md)")]


@pytest.fixture
def kube() -> Iterator[FakeKube]:
    with FakeKube(namespace=NAMESPACE) as server:
        yield server


@pytest.mark.parametrize("chart", CHARTS, ids=[c.name for c in CHARTS])
def test_a_corpus_record_reads_as_helm_reads_it(helm: Path, helm4: Path, kube: FakeKube, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch, chart: Chart) -> None:
    done = subprocess.run([str(helm4), "install", chart.name, str(chart.prev), "-n", NAMESPACE, *chart.flags(),
                           "--dry-run=client", "-o", "json"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    record = json.loads(done.stdout)
    kube.add_release(record)
    for name in [n for n in os.environ if n.startswith(("HELM_", "KUBECONFIG"))]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("HELM_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("KUBECONFIG", str(kube.write_kubeconfig(tmp_path / "kubeconfig")))
    major = int(helm.parent.name.split(".")[0])
    real = Helm(str(helm))
    ours = Releases(real, resolve_settings())
    mine, helms = ours.record(chart.name, NAMESPACE, None, major), real.record(chart.name, NAMESPACE, None, major)
    assert mine is not None and helms is not None
    assert mine.defaults() == helms.defaults()  # the chart's defaults: decoded here, printed by helm's read
    assert (structs.replace(mine, values=None, chart_values=None, chart_defaults="")
            == structs.replace(helms, values=None, chart_values=None, chart_defaults=""))
    assert mine.values == real.values(chart.name, NAMESPACE, 1)
    assert ours.values(chart.name, NAMESPACE, 1, True, major) == real.values(chart.name, NAMESPACE, 1, computed=True)
    decoded = helm_storage.release((ours.records(chart.name, NAMESPACE) or [])[0])
    assert _chart_as_helm_prints_it(decoded["chart"]) == _as_printed(real.stored_chart(chart.name, NAMESPACE, 1)["chart"])
