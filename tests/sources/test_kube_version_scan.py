"""Whether a chart's templates read the cluster's Kubernetes version (sources/chart_scan.py):
offline, `helm template` renders them for its own default version unless given --kube-version,
and the plan says so (issue 45 point 3). Subcharts count, those kept as archives too."""
from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from conftest import write_chart
from deployah_plan.sources import chart as charts
from deployah_plan.sources import chart_scan


@pytest.mark.parametrize("text, reads", [
    ("image: k:{{ .Capabilities.KubeVersion.Version }}", True),
    ("{{- if semverCompare \">=1.21-0\" .Capabilities.KubeVersion.GitVersion }}", True),
    ("{{ $.Capabilities.KubeVersion.Minor }}", True),
    ("{{- with .Capabilities }}{{ .KubeVersion.Major }}{{ end }}", True),
    ("{{- $v := semver .Capabilities.KubeVersion.Version -}}", True),
    ("{{ default .Capabilities.KubeVersion.Version .Values.kubeVersion }}", True),
    ("{{ .Chart.KubeVersion }}", False),  # Chart.yaml's constraint, whatever the cluster
    ("{{ $.Chart.KubeVersion }}", False),
    ("# KubeVersion outside an action", False),
    ("{{ .Values.myKubeVersion }}", False),
    ("{{ .Values.kubeVersion }}", False),
    ("{{ .Capabilities.APIVersions.Has \"apps/v1\" }}", False),
])
def test_a_template_reads_the_cluster_version(text: str, reads: bool) -> None:
    assert chart_scan.calls([text], False)[2] is reads


def _archive(files: dict[str, str | bytes]) -> bytes:
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as archive:
        for name, text in files.items():
            raw = text.encode() if isinstance(text, str) else text
            info = tarfile.TarInfo(name)
            info.size = len(raw)
            archive.addfile(info, io.BytesIO(raw))
    return data.getvalue()


META = {"sub/Chart.yaml": "name: sub\nversion: 0.1.0\n"}
READS: dict[str, str | bytes] = {**META, "sub/templates/a.yaml": "v: {{ .Capabilities.KubeVersion }}\n"}
PLAIN: dict[str, str | bytes] = {**META, "sub/templates/a.yaml": "v: {{ .Values.v }}\n"}


def test_a_subchart_archive_is_looked_into(tmp_path: Path) -> None:
    # In a chart folder, and in a subchart archive's own subchart archive.
    assert chart_scan.archive_reads_kube_version(_archive({**PLAIN, "sub/charts/deep-0.1.0.tgz": _archive(READS)}))
    assert chart_scan.archive_reads_kube_version(_archive(READS))
    assert not chart_scan.archive_reads_kube_version(_archive(PLAIN))
    assert not chart_scan.archive_reads_kube_version(b"not an archive")
    for sub, reads in ((READS, True), (PLAIN, False)):
        chart = write_chart(tmp_path / str(reads), "shop", {"cm.yaml": "a: {{ .Values.a }}\n"})
        (chart / "charts").mkdir()
        (chart / "charts" / "sub-0.1.0.tgz").write_bytes(_archive(sub))
        assert charts.scan(str(chart)) == charts.Templates(False, True, reads)


def test_a_packaged_charts_subchart_archive_is_looked_into(tmp_path: Path) -> None:
    for sub, reads in ((READS, True), (PLAIN, False)):
        package = tmp_path / f"shop-{reads}.tgz"
        package.write_bytes(_archive({"shop/Chart.yaml": "name: shop\nversion: 0.1.0\n",
                                      "shop/templates/cm.yaml": "a: 1\n", "shop/charts/sub-0.1.0.tgz": _archive(sub)}))
        assert charts.read_local(str(package))[1] == charts.Templates(False, True, reads)
        assert charts.scan(str(package)) == charts.Templates(False, True, reads)
