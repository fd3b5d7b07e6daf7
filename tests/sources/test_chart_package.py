"""A packaged chart read once for its name, version and what its templates call (sources/chart.py
`read_local`), as `inspect` and `scan` read it apart."""
from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from deployah_plan.sources import chart as charts


def _package(path: Path, files: dict[str, str]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def test_a_package_is_opened_once_for_what_inspect_and_scan_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = _package(tmp_path / "shop-1.2.0.tgz", {
        "shop/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 1.2.0\n",
        "shop/templates/secret.yaml": "token: {{ randAlphaNum 8 }}\n",
        "shop/templates/cm.yaml": "a: {{ lookup \"v1\" \"ConfigMap\" \"\" \"\" }}\n",
    })
    plain = _package(tmp_path / "plain-0.1.0.tgz", {"plain/Chart.yaml": "name: plain\nversion: 0.1.0\n",
                                                    "plain/templates/cm.yaml": "a: {{ .Values.a }}\n"})
    for path in (package, plain):
        apart = (charts.inspect(str(path)), charts.scan(str(path)))
        opened: list[str] = []
        real = tarfile.open
        monkeypatch.setattr(tarfile, "open", lambda name, *a, **k: (opened.append(str(name)), real(name, *a, **k))[1])
        assert charts.read_local(str(path)) == apart and opened == [str(path)]
        assert charts.read_local(str(path), (True, True))[1] == charts.Templates(True, True)  # read before
        monkeypatch.undo()
    assert apart[1] == charts.Templates(False, False)
    assert charts.scan(str(package)) == charts.Templates(True, True)


def test_a_package_without_chart_yaml_is_one_line(tmp_path: Path) -> None:
    package = _package(tmp_path / "odd.tgz", {"odd/templates/cm.yaml": "a: 1\n"})
    with pytest.raises(charts.UsageError, match="it has no Chart.yaml"):
        charts.read_local(str(package))


@pytest.mark.parametrize(("files", "said"), [
    ({"big/Chart.yaml": "name: big\n", "big/templates/a.yaml": "a" * 65}, "inflates to 65 bytes, past the 64"),
    ({"big/Chart.yaml": "name: big\n", **{f"big/templates/{n}.yaml": "a" * 40 for n in range(5)}}, "past the 100 bytes"),
    ({"big/Chart.yaml": "name: big\n", **{f"big/templates/{n}.yaml": "" for n in range(12)}}, "more than 10 entries"),
], ids=["one-file", "all-files", "entries"])
def test_an_archive_past_what_helm_loads_is_refused_before_it_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], said: str) -> None:
    """Helm's loader refuses a chart archive whose files inflate past 100 MiB, or one file past
    5 MiB (pkg/chart/loader/archive.go): so does helm plan, from the sizes the archive declares,
    and it bounds the entries too (here with the bounds made small)."""
    from deployah_plan.sources import chart_scan

    monkeypatch.setattr(chart_scan, "MAX_FILE_BYTES", 64)
    monkeypatch.setattr(chart_scan, "MAX_CHART_BYTES", 100)
    monkeypatch.setattr(chart_scan, "MAX_ENTRIES", 10)
    package = _package(tmp_path / "big-0.1.0.tgz", files)
    with pytest.raises(charts.UsageError, match=said) as refused:
        charts.read_local(str(package))
    assert refused.value.hint == "check the archive; helm refuses it too"
    with pytest.raises(charts.tar_errors()):  # what the plan's other readers of the archive catch
        charts.chart_files(str(package))
    # A subchart archive past them is not looked into: helm fails on it before the plan says anything.
    sub = _package(tmp_path / "sub-0.1.0.tgz", {"sub/templates/v.yaml": "v: {{ .Capabilities.KubeVersion }}" + " " * 40})
    assert not chart_scan.archive_reads_kube_version(sub.read_bytes())
    monkeypatch.undo()
    assert chart_scan.archive_reads_kube_version(sub.read_bytes())


@pytest.mark.parametrize("damage", ["cut", "corrupt"])
def test_a_cut_or_corrupt_archive_is_one_line(tmp_path: Path, damage: str) -> None:
    """gzip ends a cut stream with EOFError and fails corrupt data with zlib.error: neither is
    an OSError or tarfile's, and both were an internal error."""
    package = _package(tmp_path / "shop-1.2.0.tgz", {
        "shop/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 1.2.0\n",
        **{f"shop/templates/{n}.yaml": f"n: {n}\n" + "".join(f"k{i}: {i * n}\n" for i in range(2000)) for n in range(5)},
    })
    data = bytearray(package.read_bytes())
    if damage == "cut":
        del data[len(data) // 2:]
    else:
        data[10:40] = b"\xff" * 30  # the deflate stream's first blocks: not one it can inflate
    package.write_bytes(bytes(data))
    with pytest.raises(charts.UsageError, match=r"is not a packaged chart \(") as refused:
        charts.read_local(str(package))
    assert refused.value.hint == "pass a chart folder or a .tgz made by `helm package`"
    with pytest.raises(charts.tar_errors()):  # what the plan's other readers of the archive catch
        charts.chart_files(str(package))
