"""scripts/fetch-charts and tests/realcharts.py: where the real public charts are read, and a
package kept only with its pinned sha256. Offline: file:// addresses of the test's own files;
over a loopback HTTP server, tests/e2e/test_fetch_charts.py."""
from __future__ import annotations

import hashlib
import io
import tarfile
from pathlib import Path

import pytest
import yaml

import realcharts
from realcharts import fetch_charts, real_chart

Refused = fetch_charts.Refused


def _package(path: Path, name: str, version: str, extra: tarfile.TarInfo | None = None) -> str:
    """A tiny chart package of our own, `name/` inside as helm packages it; its sha256."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz") as archive:
        for member, text in ((f"{name}/Chart.yaml", f"apiVersion: v2\nname: {name}\nversion: {version}\n"),
                             (f"{name}/templates/cm.yaml", "kind: ConfigMap\n")):
            info = tarfile.TarInfo(member)
            info.size = len(text)
            archive.addfile(info, io.BytesIO(text.encode()))
        if extra is not None:
            archive.addfile(extra, io.BytesIO(b"x" * extra.size))
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _chart(served: Path, pins: tuple[str, str]) -> object:
    return fetch_charts.Chart("shop", "file://" + str(served), "file://" + str(served / "shop-{version}.tgz"),
                              fetch_charts.Package("0.1.0", pins[0]), fetch_charts.Package("0.2.0", pins[1]),
                              {"case.yaml": "release: shop\nnamespace: shop\n", "values.yaml": "a: 1\n"})


# -- where the charts are read --------------------------------------------------------------------

def test_the_charts_are_read_from_the_variable_then_shared_then_the_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fetch_charts, "SHARED", tmp_path / "shared")
    monkeypatch.setattr(fetch_charts, "CACHE", tmp_path / "cache")
    monkeypatch.delenv("HELM_PLAN_CHARTS", raising=False)
    assert fetch_charts.charts_root() == tmp_path / "cache"
    (tmp_path / "shared").mkdir()
    assert fetch_charts.charts_root() == tmp_path / "shared"
    monkeypatch.setenv("HELM_PLAN_CHARTS", str(tmp_path / "named"))
    assert fetch_charts.charts_root() == tmp_path / "named"


def test_a_missing_chart_skips_with_the_command_and_fails_in_ci(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(realcharts, "CHARTS", tmp_path)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="run scripts/fetch-charts .*CI=true: a missing chart is a failure"):
        real_chart("traefik")
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match=f"no chart traefik in {tmp_path}: run scripts/fetch-charts"):
        real_chart("traefik")


def test_the_script_lists_the_versions_and_inputs_the_shared_charts_hold() -> None:
    """The fetched cache takes the shared folder's place: same versions, same case and values."""
    for chart in fetch_charts.CHARTS:
        folder = real_chart(chart.name)
        for side, package in (("prev", chart.prev), ("next", chart.next)):
            assert yaml.safe_load((folder / side / "Chart.yaml").read_text())["version"] == package.version
        assert sorted(p.name for p in folder.iterdir() if p.is_file()) == sorted(chart.files)
        assert {f: (folder / f).read_text() for f in chart.files} == chart.files
        assert chart.repository.startswith("https://") and chart.download.startswith("https://")


# -- a package kept only with its pinned sha256 ---------------------------------------------------

def test_a_package_with_another_sha256_is_not_kept(tmp_path: Path) -> None:
    served = tmp_path / "served" / "p.tgz"
    right = _package(served, "shop", "0.1.0")
    target = tmp_path / "cache" / "p.tgz"
    with pytest.raises(Refused, match=f"has sha256 {right}, not the pinned {'0' * 64}: not kept"):
        fetch_charts.download(served.as_uri(), "0" * 64, target, schemes=("file",))
    assert list((tmp_path / "cache").iterdir()) == []  # not even the partial file
    assert fetch_charts.download(served.as_uri(), right, target, schemes=("file",)) == target
    assert target.read_bytes() == served.read_bytes()


def test_a_package_in_the_cache_with_its_sha256_is_not_fetched_again(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "p.tgz"
    right = _package(target, "shop", "0.1.0")
    gone = (tmp_path / "nowhere.tgz").as_uri()
    assert fetch_charts.download(gone, right, target, schemes=("file",)) == target
    target.write_bytes(b"edited")  # a cached file with another sha256 is fetched again
    with pytest.raises(OSError):
        fetch_charts.download(gone, right, target, schemes=("file",))


def test_only_https_an_unpinned_package_or_one_too_large_is_refused(tmp_path: Path) -> None:
    served = tmp_path / "p.tgz"
    right = _package(served, "shop", "0.1.0")
    target = tmp_path / "cache" / "p.tgz"
    with pytest.raises(Refused, match="only https is fetched"):
        fetch_charts.download(served.as_uri(), right, target)
    with pytest.raises(Refused, match="no sha256 is pinned for p.tgz"):
        fetch_charts.download("https://example.invalid/p.tgz", "", target)
    with pytest.raises(Refused, match="is larger than 10 bytes"):
        fetch_charts.download(served.as_uri(), right, target, limit=10, schemes=("file",))
    assert not target.exists()


def test_a_fetched_chart_takes_the_shared_layout(tmp_path: Path) -> None:
    served = tmp_path / "served"
    pins = (_package(served / "shop-0.1.0.tgz", "shop", "0.1.0"), _package(served / "shop-0.2.0.tgz", "shop", "0.2.0"))
    cache = tmp_path / "cache"
    folder = fetch_charts.fetch(_chart(served, pins), cache, schemes=("file",))
    assert folder == cache / "shop"
    assert yaml.safe_load((folder / "prev" / "Chart.yaml").read_text())["version"] == "0.1.0"
    assert yaml.safe_load((folder / "next" / "Chart.yaml").read_text())["version"] == "0.2.0"
    assert (folder / "case.yaml").read_text() == "release: shop\nnamespace: shop\n"
    assert realcharts.missing("shop", cache) is None
    assert sorted(p.name for p in (cache / "packages").iterdir()) == ["shop-0.1.0.tgz", "shop-0.2.0.tgz"]


@pytest.mark.parametrize("member", ["shop/../../escape", "other/x", "shop/link"])
def test_a_package_with_a_member_outside_its_chart_folder_is_refused(tmp_path: Path, member: str) -> None:
    served = tmp_path / "served"
    extra = tarfile.TarInfo(member)
    if member.endswith("link"):
        extra.type, extra.linkname = tarfile.SYMTYPE, "/etc/passwd"
    else:
        extra.size = 1
    pins = (_package(served / "shop-0.1.0.tgz", "shop", "0.1.0", extra),
            _package(served / "shop-0.2.0.tgz", "shop", "0.2.0"))
    with pytest.raises(Refused, match=f"{member!r} is not a file of the chart folder shop/"):
        fetch_charts.fetch(_chart(served, pins), tmp_path / "cache", schemes=("file",))
    assert not (tmp_path / "cache" / "shop" / "prev").exists() and not (tmp_path / "escape").exists()
