"""scripts/fetch-charts and tests/realcharts.py: where the real public charts are read, and a
chart tree kept only with its pinned digest. Offline: file:// addresses of archives the test
builds of its own files, laid out as GitHub's source archives are; over a loopback HTTP
server, tests/e2e/test_fetch_charts.py."""
from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path
from typing import Any

import pytest
import yaml

import realcharts
from realcharts import fetch_charts, real_chart

Refused = fetch_charts.Refused
SHAS = ("1" * 40, "2" * 40)
CHART_YAML = ("apiVersion: v2\nname: shop\nversion: {version}\ndependencies:\n  - name: cache\n    version: 1.0.0\n"
              "    repository: https://charts.example.com/\n    condition: cache.enabled\nannotations:\n  team: shop\n")


def _files(version: str) -> dict[str, str]:
    """A tiny chart of our own as its repository holds it: a changelog and a lock the tests leave out."""
    return {"Chart.yaml": CHART_YAML.format(version=version), "Chart.lock": "dependencies: []\n",
            "CHANGES.md": "# changes\n", "values.yaml": "a: 1\n", "templates/cm.yaml": "kind: ConfigMap\n"}


def _tree(folder: Path, version: str) -> str:
    """The tree the tests read for that chart, its edits made by hand, and its digest."""
    files = {**_files(version), "Chart.yaml": f"apiVersion: v2\nname: shop\nversion: {version}\nannotations:\n  team: shop\n"}
    for name, text in files.items():
        if name not in ("Chart.lock", "CHANGES.md"):
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text)
    return fetch_charts.tree_digest(folder)


def _add(archive: tarfile.TarFile, name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE, link: str = "") -> None:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.size = kind, link, len(data) if kind == tarfile.REGTYPE else 0
    archive.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)


Extra = list[tuple[str, bytes, bytes, str]]  # members added to an archive: name ({top} filled in), bytes, type, link


def _archive(path: Path, sha: str, version: str, extra: Extra | None = None) -> None:
    """The repository at a commit as GitHub's archive serves it: one top folder REPO-SHA/, the
    chart in charts/shop/, other files (a link among them) beside it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    top = f"shop-charts-{sha}"
    with tarfile.open(path, "w:gz") as archive:
        _add(archive, f"{top}/", kind=tarfile.DIRTYPE)
        _add(archive, f"{top}/README.md", b"the repository\n")
        _add(archive, f"{top}/AGENTS.md", kind=tarfile.SYMTYPE, link="README.md")  # outside the chart: read past
        for name, text in _files(version).items():
            _add(archive, f"{top}/charts/shop/{name}", text.encode())
        for name, data, kind, link in extra or []:
            _add(archive, name.format(top=top), data, kind, link)


def _served(tmp_path: Path, extra: Extra | None = None) -> tuple[Path, Any]:
    """A folder laid out as codeload.github.com (OWNER/REPO/tar.gz/SHA) and a chart of it, pinned."""
    served = tmp_path / "served"
    pins = []
    for sha, version in zip(SHAS, ("0.1.0", "0.2.0")):
        _archive(served / "owner" / "shop-charts" / "tar.gz" / sha, sha, version, extra if version == "0.1.0" else None)
        pins.append(_tree(tmp_path / "expected" / version, version))
    return served, _chart(pins)


def _chart(pins: list[str], commits: tuple[str, str] = SHAS) -> Any:
    return fetch_charts.Chart("shop", "owner/shop-charts", "charts/shop", "shop-{version}",
                              fetch_charts.Release("0.1.0", commits[0], pins[0]),
                              fetch_charts.Release("0.2.0", commits[1], pins[1]), ("CHANGES.md",), True,
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
        for side, release in (("prev", chart.prev), ("next", chart.next)):
            assert yaml.safe_load((folder / side / "Chart.yaml").read_text())["version"] == release.version
            assert len(release.commit) == 40 and int(release.commit, 16) >= 0  # a full commit SHA, never a tag
        assert sorted(p.name for p in folder.iterdir() if p.is_file()) == sorted(chart.files)
        assert {f: (folder / f).read_text() for f in chart.files} == chart.files


def test_the_pins_are_the_digests_of_the_trees_the_tests_read() -> None:
    """Issue 48 point 6: each pinned digest is that of the chart tree the tests read
    (../shared/charts in CI), so a pin cannot drift from it; the script's docstring says how the
    same digests were checked against the charts' public repositories at their tags."""
    for chart in fetch_charts.CHARTS:
        folder = real_chart(chart.name)
        for side, release in (("prev", chart.prev), ("next", chart.next)):
            assert fetch_charts.tree_digest(folder / side) == release.tree, f"{chart.name} {side}"


# -- the tree digest --------------------------------------------------------------------------------

def test_a_tree_digest_is_its_relative_paths_and_bytes(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two" / "deeper"
    for root in (one, two):
        (root / "templates").mkdir(parents=True)
        (root / "Chart.yaml").write_text("name: shop\n")
        (root / "templates" / "a.yaml").write_text("a\n")
    digest = fetch_charts.tree_digest(one)
    assert fetch_charts.tree_digest(two) == digest  # where the tree is does not count
    (one / "empty").mkdir()
    assert fetch_charts.tree_digest(one) == digest  # nor a folder without files
    (one / "templates" / "a.yaml").write_text("b\n")
    assert fetch_charts.tree_digest(one) != digest
    (one / "templates" / "a.yaml").write_text("a\n")
    (one / "templates" / "a.yaml").rename(one / "templates" / "b.yaml")
    assert fetch_charts.tree_digest(one) != digest
    (one / "templates" / "b.yaml").rename(one / "templates" / "a.yaml")
    (one / "link").symlink_to(one / "Chart.yaml")
    with pytest.raises(Refused, match="link is not a file or a folder"):
        fetch_charts.tree_digest(one)


def test_the_dependencies_block_alone_leaves_chart_yaml(tmp_path: Path) -> None:
    chart = tmp_path / "Chart.yaml"
    chart.write_text(CHART_YAML.format(version="0.1.0"))
    fetch_charts.without_dependencies(chart)
    assert chart.read_text() == "apiVersion: v2\nname: shop\nversion: 0.1.0\nannotations:\n  team: shop\n"
    with pytest.raises(Refused, match="has 0 top-level `dependencies:` blocks, not one"):
        fetch_charts.without_dependencies(chart)


# -- a chart kept only with its pinned digest ---------------------------------------------------

def test_a_fetched_chart_takes_the_shared_layout_with_the_documented_edits(tmp_path: Path) -> None:
    served, chart = _served(tmp_path)
    cache = tmp_path / "cache"
    folder = fetch_charts.fetch(chart, cache, host=served.as_uri(), schemes=("file",))
    assert folder == cache / "shop"
    assert sorted(p.relative_to(folder / "prev").as_posix() for p in (folder / "prev").rglob("*")) == [
        "Chart.yaml", "templates", "templates/cm.yaml", "values.yaml"]  # no changelog, no lock, nothing outside
    assert (folder / "next" / "Chart.yaml").read_text() == (tmp_path / "expected" / "0.2.0" / "Chart.yaml").read_text()
    assert (folder / "case.yaml").read_text() == "release: shop\nnamespace: shop\n"
    assert realcharts.missing("shop", cache) is None
    assert sorted(p.name for p in cache.iterdir()) == ["shop"]  # no archive or partial tree left behind


def test_a_tree_with_another_digest_is_not_kept(tmp_path: Path) -> None:
    served, chart = _served(tmp_path)
    right = chart.prev.tree
    wrong = _chart(["0" * 64, chart.next.tree])
    with pytest.raises(Refused, match=f"shop 0.1.0 from {served.as_uri()}/owner/shop-charts/tar.gz/{SHAS[0]} "
                                      f"has tree digest {right}, not the pinned {'0' * 64}: not kept"):
        fetch_charts.fetch(wrong, tmp_path / "cache", host=served.as_uri(), schemes=("file",))
    assert list((tmp_path / "cache" / "shop").iterdir()) == []  # not even the partial tree


def test_a_tree_in_the_cache_with_its_digest_is_not_fetched_again(tmp_path: Path) -> None:
    served, chart = _served(tmp_path)
    cache = tmp_path / "cache"
    fetch_charts.fetch(chart, cache, host=served.as_uri(), schemes=("file",))
    gone = (tmp_path / "nowhere").as_uri()
    assert fetch_charts.fetch(chart, cache, host=gone, schemes=("file",)) == cache / "shop"
    (cache / "shop" / "prev" / "values.yaml").write_text("edited\n")  # a cached tree with another digest is fetched again
    with pytest.raises(OSError):
        fetch_charts.fetch(chart, cache, host=gone, schemes=("file",))


def test_a_release_is_named_by_its_full_commit_sha_and_fetched_over_https_only(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    served, chart = _served(tmp_path)
    with pytest.raises(Refused, match="only https is fetched"):
        fetch_charts.fetch(chart, tmp_path / "cache", host=served.as_uri())
    by_tag = _chart([chart.prev.tree, chart.next.tree], ("v0.1.0", SHAS[1]))
    assert fetch_charts.main(["shop"], (by_tag,), tmp_path / "cache") == 1
    assert capsys.readouterr().err == "fetch-charts: shop: shop 0.1.0: 'v0.1.0' is not a full commit SHA\n"
    assert fetch_charts.main(["nginx"], (by_tag,), tmp_path / "cache") == 2
    assert capsys.readouterr().err == "fetch-charts: no chart nginx: choose among shop\n"


def test_an_archive_larger_than_its_bound_is_refused(tmp_path: Path) -> None:
    served = tmp_path / "a.tar.gz"
    _archive(served, SHAS[0], "0.1.0")
    with pytest.raises(Refused, match="is larger than 10 bytes"):
        fetch_charts.download(served.as_uri(), io.BytesIO(), limit=10, schemes=("file",))


@pytest.mark.parametrize("member, kind, link, why", [
    ("{top}/charts/shop/../../escape", tarfile.REGTYPE, "", "is not a path inside the archive"),
    ("/etc/cron.d/shop", tarfile.REGTYPE, "", "is not a path inside the archive"),
    ("other-top/x", tarfile.REGTYPE, "", "is outside its one top folder shop-charts-1111"),
    ("{top}/charts/shop/templates/link", tarfile.SYMTYPE, "/etc/passwd", "is not a file or a folder of the chart folder"),
    ("{top}/charts/shop/hard", tarfile.LNKTYPE, "{top}/README.md", "is not a file or a folder of the chart folder"),
])
def test_an_archive_with_a_member_that_could_escape_is_refused(tmp_path: Path, member: str, kind: bytes, link: str,
                                                               why: str) -> None:
    served, chart = _served(tmp_path, [(member, b"x", kind, link)])
    with pytest.raises(Refused, match=why):
        fetch_charts.fetch(chart, tmp_path / "cache", host=served.as_uri(), schemes=("file",))
    assert not (tmp_path / "cache" / "shop" / "prev").exists() and not (tmp_path / "escape").exists()


def test_members_and_inflation_are_bounded_while_extracting(tmp_path: Path) -> None:
    archive = tmp_path / "a.tar.gz"
    _archive(archive, SHAS[0], "0.1.0")
    fetch_charts.extract(archive, "charts/shop", tmp_path / "whole")
    with pytest.raises(Refused, match="has more than 3 members"):
        fetch_charts.extract(archive, "charts/shop", tmp_path / "few", members=3)
    with pytest.raises(Refused, match="has no folder charts/other/"):
        fetch_charts.extract(archive, "charts/other", tmp_path / "none")
    bomb = tmp_path / "bomb.tar.gz"
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        _add(tar, f"shop-charts-{SHAS[0]}/charts/shop/big", b"\0" * (4 * 1024 * 1024))
    bomb.write_bytes(gzip.compress(raw.getvalue()))
    assert bomb.stat().st_size < 64 * 1024
    with pytest.raises(Refused, match="bomb.tar.gz inflates to more than 1048576 bytes"):
        fetch_charts.extract(bomb, "charts/shop", tmp_path / "bomb", inflated=1024 * 1024)
