"""Helm's release storage read by helm plan (release/helm_storage.py, release/store.py) equals what
real helm reads from it (issue 50 point 4), on Helm 3 and Helm 4: every release the project makes
(scripts/release-fixture, through the `store` fixture) stored as Helm's secret and configmap
drivers store it on the loopback API server (tests/kubeapi.py) and in the memory driver's file;
the release (manifest, hooks, chart, user and computed values) equals what `helm get all` and
`helm get values [--all] -o json` print, and the revision `helm upgrade` starts from equals the
one real helm's dry run starts from, over histories of every status."""
from __future__ import annotations

import base64
import json
import os
import subprocess
from pathlib import Path
from typing import Any, Iterator

import pytest
from msgspec import structs

from conftest import EXAMPLE, ROOT, Store, write_chart
from kubeapi import FakeKube
from realcharts import CHARTS, missing
from deployah_plan.release import helm_storage
from deployah_plan.release.helm_storage import StorageError
from deployah_plan.release.store import Releases
from deployah_plan.sources.helm import Helm
from deployah_plan.sources.kubeconfig import resolve_settings

pytestmark = pytest.mark.e2e

DRIVERS = ("secret", "configmap", "memory")

# A chart of our own whose values and files take every path of the decoding: nulls at each depth
# (which `--all` drops by each helm's own rules), numbers a float64 rounds or prints as 1e+21, text
# beyond ASCII, a crds/ file whose bytes are not UTF-8, hooks.
_TEMPLATES = {
    "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"
               "data:\n  a: {{ .Values.a | toJson | quote }}\n",
    "hook.yaml": "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Release.Name }}-hook\n  annotations:\n"
                 "    helm.sh/hook: pre-upgrade,post-install\n    helm.sh/hook-weight: \"-2\"\n"
                 "spec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: x, image: busybox}]\n",
}
_VALUES = ("a:\n  x: 1\n  z: null\n  w: {q: 1}\n  deep: {deeper: {n: 2}}\ntop: null\nkeep: 2\nt: {k: 1}\n"
           "s: str\nlist: [1, 2.5, \"é\"]\n")
_FLAGS = ("--set-json", 'a={"x":null,"y":null,"z":null,"w":null,"deep":{"deeper":{"n":null,"m":3}}}',
          "--set-json", "b=null", "--set-json", "keep=null", "--set", "t=5", "--set-json", 's={"m":1}',
          "--set-json", "big=12345678901234567890", "--set-json", "f=1e21", "--set-json", "g=0.000001",
          "--set-json", "h=1e-7", "--set", "i=1000000", "--set-string", "u=é€😀")


def _own_chart(root: Path) -> Path:
    chart = write_chart(root, "odd", _TEMPLATES, values=_VALUES, extra_files={
        "crds/widgets.yaml": "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
                             "metadata:\n  name: widgets.example.com\n# é€\n"})
    (chart / "crds" / "bytes.yaml").write_bytes(b"# not UTF-8: \xff\xfe\xe2\x82 end\nkind: Nothing\n")
    return chart


def _fixtures(tmp_path: Path) -> list[tuple[str, Path | str, tuple[str, ...]]]:
    """(release, chart, install flags) of every release fixture the tests make."""
    found: list[tuple[str, Path | str, tuple[str, ...]]] = [
        ("shop", EXAMPLE / "chart-v1", ()), ("shop2", EXAMPLE / "chart-v2", ("--set", "extra=1")),
        ("odd", _own_chart(tmp_path / "charts"), _FLAGS)]
    for chart in sorted((ROOT / "tests" / "charts" / "kube-upgrade").iterdir()):
        if (chart / "Chart.yaml").is_file():
            found.append((f"ku-{chart.name}", chart, ()))
    for name in ("kube-state-metrics", "argo-cd", "traefik"):  # the real charts, where they are
        if missing(name) is None:
            found.append((name.replace("-", ""), CHARTS / name / "prev", ()))
    return found


@pytest.fixture
def kube() -> Iterator[FakeKube]:
    with FakeKube(namespace="default", context="fake-ctx") as server:
        yield server


def _use(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, kube: FakeKube, driver: str, store: Store) -> None:
    """The environment helm and helm plan run in: the driver, and the cluster or the file."""
    for name in [n for n in os.environ if n.startswith(("HELM_", "KUBECONFIG"))]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("HELM_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("HELM_DRIVER", driver)
    if driver == "memory":
        monkeypatch.setenv("HELM_MEMORY_DRIVER_DATA", str(store.path))
    else:
        monkeypatch.setenv("KUBECONFIG", str(kube.write_kubeconfig(tmp_path / f"kubeconfig-{driver}")))


def _chart_as_helm_prints_it(chart: dict[str, Any]) -> dict[str, Any]:
    """The decoded release's chart in the shape `Helm.stored_chart` reads (helm_commands'
    _CHART_TEMPLATE): its metadata's main fields, each template's and file's bytes as hex."""
    def files(entries: Any) -> list[tuple[str, str]]:
        return [(str(f["name"]), base64.b64decode(f.get("data") or "").hex()) for f in entries or ()]
    meta = chart.get("metadata") or {}
    return {"metadata": {k: meta.get(k, "") for k in ("apiVersion", "name", "version", "appVersion", "type")},
            "templates": files(chart.get("templates")), "files": files(chart.get("files")),
            "schema": base64.b64decode(chart.get("schema") or "").hex()}


def _as_printed(chart: dict[str, Any]) -> dict[str, Any]:
    meta = chart.get("metadata") or {}
    return {"metadata": {k: meta.get(k, "") for k in ("apiVersion", "name", "version", "appVersion", "type")},
            "templates": [(f["name"], f["data"]) for f in chart["templates"] if f],
            "files": [(f["name"], f["data"]) for f in chart["files"] if f], "schema": chart["schema"]}


@pytest.mark.parametrize("driver", DRIVERS)
def test_every_release_fixture_reads_as_helm_reads_it(helm: Path, store: Store, kube: FakeKube, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch, driver: str) -> None:
    fixtures = _fixtures(tmp_path)
    for name, chart, flags in fixtures:
        store.add(name, chart, "shop", flags=flags)
    store.add("shop", EXAMPLE / "chart-v2", "shop", revision=2, flags=("--set", "extra=2"))
    if driver != "memory":
        kube.load_releases(store.path, driver)
    _use(monkeypatch, tmp_path, kube, driver, store)
    major = int(helm.parent.name.split(".")[0])
    real = Helm(str(helm))
    ours = Releases(real, resolve_settings())
    assert ours.direct
    for name, _, _ in fixtures:
        records = ours.records(name, "shop")
        assert records, name
        for revision in [None, *(r.version for r in records)]:
            mine, helms = ours.record(name, "shop", revision, major), real.record(name, "shop", revision, major)
            assert mine is not None and helms is not None
            assert mine.defaults() == helms.defaults(), (name, revision)
            assert (structs.replace(mine, values=None, chart_values=None, chart_defaults="")
                    == structs.replace(helms, values=None, chart_values=None, chart_defaults="")), (name, revision)
            number = mine.revision
            assert mine.values == real.values(name, "shop", number), (name, number)
            assert ours.values(name, "shop", number) == real.values(name, "shop", number)
            assert ours.values(name, "shop", number, True, major) == real.values(name, "shop", number, computed=True), \
                (name, number)
            decoded = (helm_storage.release(next(r for r in records if r.version == number)) if driver != "memory"
                       else next(r for r in json.loads(store.path.read_text()) if (r["name"], r["version"]) == (name, number)))
            assert _chart_as_helm_prints_it(decoded["chart"]) == _as_printed(real.stored_chart(name, "shop", number)["chart"])
    # Read from the cluster in one GET of the release's records each, never through helm.
    if driver != "memory":
        asked = [r for r in kube.requests if "helm-plan" in " ".join(r.header("User-Agent"))]
        assert len(asked) == len(fixtures) and {r.method for r in asked} == {"GET"}
        assert all(r.query["labelSelector"][0].startswith("owner=helm,name=") for r in asked)
    assert ours.requests == (len(fixtures) if driver != "memory" else 0)


# -- which revision `helm upgrade` starts from ---------------------------------------------------------

HISTORIES = {
    "deployed-newest": ("superseded", "deployed"),
    "failed-newest": ("superseded", "deployed", "failed"),
    "two-failed": ("deployed", "failed", "failed"),
    "failed-only": ("failed",),
    "superseded-only": ("superseded", "superseded"),
    "superseded-then-failed": ("failed", "superseded"),
    "two-deployed": ("deployed", "deployed"),
    "pending-upgrade": ("deployed", "pending-upgrade"),
    "pending-install": ("pending-install",),
    "pending-rollback": ("superseded", "deployed", "pending-rollback"),
    "uninstalling": ("superseded", "uninstalling"),
    "uninstalled": ("superseded", "deployed", "uninstalled"),
    # Ten revisions and more: the store lists v10 before v9, and `upgrade --install` asks
    # whether the one listed last is uninstalled (pkg/cmd/upgrade.go isReleaseUninstalled).
    "uninstalled-tenth": ("superseded",) * 8 + ("deployed", "uninstalled"),
    "failed-after-nine": ("superseded",) * 8 + ("deployed", "failed", "failed"),
}


@pytest.mark.parametrize("history", sorted(HISTORIES))
def test_the_revision_upgrade_starts_from_is_helms(helm: Path, store: Store, kube: FakeKube, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch, history: str) -> None:
    """Each revision holds `rev=N` in its values: real helm's `upgrade --install --dry-run=server
    --reuse-values` prints the values of the revision it started from."""
    chart = write_chart(tmp_path / "charts", "web", {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
                                                                "  name: web\ndata:\n  rev: {{ .Values.rev | quote }}\n"})
    for revision, status in enumerate(HISTORIES[history], 1):
        store.add("web", chart, "shop", revision=revision, status=status, flags=("--set", f"rev={revision}"))
    kube.load_releases(store.path)
    _use(monkeypatch, tmp_path, kube, "secret", store)
    major = int(helm.parent.name.split(".")[0])
    done = subprocess.run([str(helm), "upgrade", "--install", "web", str(chart), "-n", "shop", "--dry-run=server",
                           "--reuse-values", "-o", "json"], capture_output=True, text=True)
    releases = Releases(Helm(str(helm)), resolve_settings())
    if done.returncode != 0:
        with pytest.raises(StorageError) as refused:
            releases.release_state("web", "shop", major)
        said = "another operation" if "another operation" in done.stderr else "has no deployed releases"
        assert said in done.stderr and said in str(refused.value), (done.stderr, str(refused.value))
        return
    planned = json.loads(done.stdout)
    state = releases.release_state("web", "shop", major)
    if state.current is None:  # an install: nothing of an earlier revision's values is reused
        assert state.replaces_uninstalled and "rev" not in (planned.get("config") or {})
    else:
        assert planned["config"]["rev"] == state.current.revision, planned["config"]
        assert planned["version"] == state.newest_revision + 1


@pytest.mark.parametrize("values, chart, renders", [
    ((), "chart-v2", 1),
    (("--set", "extra=1"), "chart-v1", 1),
    (("--set", "extra=1"), "chart-v2", 2),
], ids=["reused", "values-flags-same-chart", "values-flags-new-chart"])
def test_a_plan_starts_one_helm_process_after_one_api_request(helm: Path, store: Store, kube: FakeKube,
                                                              tmp_path: Path, values: tuple[str, ...], chart: str,
                                                              renders: int) -> None:
    """Issue 50 point 2: the render is the plan's one helm process; without values flags it
    renders with the release's values, read in one GET of its Secrets, not by `helm get`. With
    values flags and a new chart, a second render, the new chart with the release's previous
    values, tells the chart's changes from the values' (commands/causes.py); with the stored
    chart itself (compared with the record already read), there is none."""
    from conftest import run_plan

    store.add("shop", EXAMPLE / "chart-v1", "shop", flags=("--set", "extra=0"))
    kube.load_releases(store.path)
    kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
    args = ["upgrade", "shop", str(EXAMPLE / chart), "-n", "shop", "--render", "template", "--no-drift",
            "-o", "json", "--debug", *values]
    cache = str(tmp_path / "cache")
    run_plan(*args, helm=helm, KUBECONFIG=kubeconfig, HELM_CACHE_HOME=cache)  # helm's version, remembered
    before = len(kube.requests)
    result = run_plan(*args, helm=helm, KUBECONFIG=kubeconfig, HELM_CACHE_HOME=cache)
    assert result.code == 0, result.err
    calls = [line.split()[4] for line in result.err.splitlines() if line.startswith("helm plan: running ")]
    assert calls == ["template"] * renders, result.err
    assert result.json()["attribution"] == ("chart" if not values else "values" if renders == 1 else "rendered")
    ours = [r for r in kube.requests[before:] if "helm-plan" in " ".join(r.header("User-Agent"))]
    assert [(r.path, r.query) for r in ours] == [("/api/v1/namespaces/shop/secrets",
                                                 {"labelSelector": ["owner=helm,name=shop"]})]
    rendered = [w for w in result.json()["warnings"] if w["code"] == "values-reused"]
    assert bool(rendered) == (not values)  # without values flags, the release's are reused
