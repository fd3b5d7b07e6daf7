"""The Kubernetes version a chart is rendered for (issue 45 point 3): offline, `helm template`
renders for its own default version (Helm 3.19: 1.34, Helm 4.3: 1.37) unless given
--kube-version, so a template that reads `.Capabilities.KubeVersion` renders what the real
cluster would not. The plan renders such a chart for a version three minors older too, and
says which version it rendered for and how to give the real one (`kube-version-default`): a
warning naming the objects the older version renders differently, an info note when it renders
the same (most charts read the version only to pick an apiVersion every recent one serves). It
names the cluster's version when it read the cluster, and says nothing of it for templates that
do not read the version."""
from __future__ import annotations

import json
import tarfile
from pathlib import Path
from typing import Any

import pytest

from conftest import Store, run_plan, write_chart
from deployah_plan.sources import chart as charts
from e2e.test_corpus import (
    CHARTS, CORPUS, Chart, NAMESPACE, Budget, _capabilities, _discovery, _helm, _plan, _probe, _run, _store,
)
from kubeapi import FakeKube

pytestmark = pytest.mark.e2e

CODE = "kube-version-default"
# A Deployment whose image tag is the cluster's version, as charts that run kubectl do.
READS = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: tools
spec:
  selector:
    matchLabels: {app: tools}
  template:
    metadata:
      labels: {app: tools}
    spec:
      containers:
        - name: kubectl
          image: "kubectl:{{ .Capabilities.KubeVersion.Version }}"
          env:
            - name: COLOUR
              value: {{ .Values.colour | quote }}
"""
# Reads the version only to pick an apiVersion every supported version serves alike; with a
# value made anew on every render beside it, which is no difference of the version, and a kind
# asked of the API versions (which helm's defaults name by group only, and the plan's own for a
# --kube-version by kind too: the render for the older version adds the version alone).
SAME = """{{- if .Capabilities.APIVersions.Has "networking.k8s.io/v1/IngressClass" }}
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: tools
spec:
  controller: example.com/tools
---
{{- end }}
apiVersion: {{ semverCompare ">=1.21-0" .Capabilities.KubeVersion.Version | ternary "policy/v1" "policy/v1beta1" }}
kind: PodDisruptionBudget
metadata:
  name: tools
spec:
  maxUnavailable: 1
  selector:
    matchLabels: {app: tools}
---
apiVersion: v1
kind: Secret
metadata:
  name: tools
data:
  token: {{ randAlphaNum 16 | b64enc | quote }}
  colour: {{ .Values.colour | b64enc | quote }}
"""
PLAIN = READS.replace("{{ .Capabilities.KubeVersion.Version }}", "1.0").replace(
    "kind: Deployment", "kind: Deployment\n# {{ .Chart.KubeVersion }} is the chart's constraint, not the cluster's")


def _warned(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [w for w in doc["warnings"] if w["code"] == CODE]


def _in_what_matters(doc: dict[str, Any]) -> bool:
    return any(h["what"] == "warning" and "rendered for Kubernetes" in h["detail"][0] for h in doc["highlights"])


def _images(doc: dict[str, Any]) -> list[tuple[Any, Any]]:
    return [(h.get("before"), h.get("after")) for h in doc["highlights"] if h["what"] == "image"]


def _default(helm: Path) -> str:
    """The version helm template assumes: Helm 3.19's and Helm 4.3's own defaults."""
    return "1.37.0" if helm.parent.name.startswith("4") else "1.34.0"


def _older(helm: Path) -> str:
    """The version the plan renders for too: three minors below helm template's default."""
    return "1.34.0" if helm.parent.name.startswith("4") else "1.31.0"


TOOLS = {"api_version": "apps/v1", "kind": "Deployment", "namespace": "default", "name": "tools"}


def _facts(helm: Path, cluster: str = "", differing: tuple[dict[str, str], ...] = (TOOLS,)) -> dict[str, Any]:
    return {"chart": "tools", "kube_version": _default(helm), "cluster_version": cluster,
            "compared_version": _older(helm), "differing": list(differing), "differing_count": len(differing)}


def test_a_template_reading_the_version_is_warned_offline(helm: Path, store: Store, tmp_path: Path) -> None:
    chart = write_chart(tmp_path, "tools", {"deploy.yaml": READS}, values="colour: teal\n")
    store.add("tools", chart)  # installed by Helm 4.3 offline: for 1.37.0
    doc = run_plan("upgrade", "tools", str(chart), "--set", "colour=navy", "-o", "json", helm=helm, store=store).json()
    [warned] = _warned(doc)
    assert warned["severity"] == "warning" and warned["resource"] is None
    assert warned["facts"] == _facts(helm)
    assert warned["message"] == (f"rendered for Kubernetes {_default(helm)}, helm template's default; for "
                                 f"{_older(helm)} the templates of chart tools render Deployment default/tools "
                                 "differently; pass --kube-version with your cluster's version to render for it")
    assert _in_what_matters(doc)
    # Given the version, the render is for it, and nothing is assumed.
    given = run_plan("upgrade", "tools", str(chart), "--set", "colour=navy", "--kube-version", "1.37.0", "-o", "json",
                     helm=helm, store=store).json()
    assert _warned(given) == [] and _images(given) == []
    text = run_plan("upgrade", "tools", str(chart), "--set", "colour=navy", helm=helm, store=store).out
    assert f"! rendered for Kubernetes {_default(helm)}, helm template's default" in text


def test_a_template_whose_render_the_version_does_not_change_is_only_noted(
        helm: Path, store: Store, tmp_path: Path) -> None:
    """Read to pick an apiVersion that both versions serve, beside a value made anew on every
    render: an info note, not a warning in What matters."""
    chart = write_chart(tmp_path, "tools", {"pdb.yaml": SAME}, values="colour: teal\n")
    store.add("tools", chart)
    doc = run_plan("upgrade", "tools", str(chart), "--set", "colour=navy", "-o", "json", helm=helm, store=store).json()
    [noted] = _warned(doc)
    assert noted["severity"] == "info" and noted["facts"] == _facts(helm, differing=()), noted["message"]
    assert noted["message"] == (f"rendered for Kubernetes {_default(helm)}, helm template's default: the templates of "
                                f"chart tools read the cluster's version, and render the same objects for "
                                f"{_older(helm)}; pass --kube-version with your cluster's version to render for it")
    assert not _in_what_matters(doc)
    text = run_plan("upgrade", "tools", str(chart), "--set", "colour=navy", helm=helm, store=store).out
    assert "! rendered for Kubernetes" not in text and "rendered for Kubernetes" in text


def test_a_template_that_does_not_read_the_version_is_not_warned(helm: Path, store: Store, tmp_path: Path) -> None:
    chart = write_chart(tmp_path, "tools", {"deploy.yaml": PLAIN}, values="colour: teal\n")
    store.add("tools", chart)
    doc = run_plan("upgrade", "tools", str(chart), "--set", "colour=navy", "-o", "json", helm=helm, store=store).json()
    assert doc["changes"] and _warned(doc) == []


def test_a_subchart_archive_reading_the_version_is_looked_into(helm4: Path, store: Store, tmp_path: Path) -> None:
    """The version read in a subchart kept as an archive (`charts/*.tgz`), of a chart folder
    and of a packaged chart."""
    chart = write_chart(tmp_path, "outer", {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: outer\n"})
    sub = write_chart(tmp_path / "sub", "inner", {"deploy.yaml": READS}, values="colour: teal\n")
    (chart / "charts").mkdir()
    with tarfile.open(chart / "charts" / "inner-0.1.0.tgz", "w:gz") as archive:
        archive.add(sub, arcname="inner")
    store.add("outer", chart)
    doc = run_plan("upgrade", "outer", str(chart), "--set", "inner.colour=navy", "-o", "json", helm=helm4,
                   store=store).json()
    assert [w["facts"]["chart"] for w in _warned(doc)] == ["outer"]
    package = tmp_path / "outer-0.1.0.tgz"
    with tarfile.open(package, "w:gz") as archive:
        archive.add(chart, arcname="outer")
    doc = run_plan("upgrade", "outer", str(package), "--set", "inner.colour=navy", "-o", "json", helm=helm4,
                   store=store).json()
    assert [w["facts"]["chart"] for w in _warned(doc)] == ["outer"]


def test_with_the_cluster_read_the_warning_names_its_version(helm: Path, store: Store, tmp_path: Path) -> None:
    """An offline render (the memory release store) with a cluster to read: the plan renders for
    helm's default and says the version the cluster reports (the loopback server: 1.31)."""
    chart = write_chart(tmp_path, "tools", {"deploy.yaml": READS}, values="colour: teal\n")
    store.add("tools", chart)
    with FakeKube() as kube:
        config = kube.write_kubeconfig(tmp_path / "kubeconfig")
        doc = run_plan("upgrade", "tools", str(chart), "--set", "colour=navy", "-o", "json", helm=helm, store=store,
                       KUBECONFIG=str(config)).json()
        assert any(r.path == "/version" for r in kube.requests) and kube.writes() == []
    [warned] = _warned(doc)
    assert warned["facts"] == _facts(helm, "1.31")
    assert warned["message"].endswith("and the cluster runs 1.31; pass --kube-version 1.31 (or --render server) to "
                                      "render for it")


def test_rendered_by_the_cluster_the_version_is_the_clusters(helm: Path, store: Store, tmp_path: Path) -> None:
    """With a cluster (helm's own release storage), the plan renders by `helm upgrade
    --dry-run=server`, for the version the cluster reports: nothing is assumed. `--render
    template` renders for helm's default, and says the cluster's version."""
    chart = write_chart(tmp_path, "tools", {"deploy.yaml": READS}, values="colour: teal\n")
    store.add("tools", chart)  # rendered for Helm 4.3's default, 1.37.0
    with FakeKube() as kube:  # Kubernetes 1.31.0
        kube.load_releases(store.path)
        config = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
        served = run_plan("upgrade", "tools", str(chart), "--set", "colour=navy", "-o", "json", helm=helm,
                          KUBECONFIG=config)
        assert served.code == 0, served.err
        offline = run_plan("upgrade", "tools", str(chart), "--set", "colour=navy", "--render", "template", "-o", "json",
                           helm=helm, KUBECONFIG=config)
        assert kube.writes() == []
    doc = served.json()
    assert doc["header"]["rendered_by"] == "server" and _warned(doc) == []
    assert _images(doc) == [("kubectl:v1.37.0", "kubectl:v1.31.0")]
    [warned] = _warned(offline.json())
    assert warned["facts"] == _facts(helm, "1.31")


# --- a real chart: zitadel, whose kubectl image is tagged with the cluster's version ---------------

ZITADEL = next((c for c in CHARTS if c.name == "zitadel"), None)
CLUSTER = "1.31.4"  # the version the previous release was rendered for


def _record_for(helm: Path, version: str, tmp_path: Path, budget: Budget) -> dict[str, Any]:
    """The release record the helm under test makes of installing the older zitadel on a cluster
    of `version`: a loopback server answering discovery with helm's own capabilities for that
    version (its `helm template --kube-version` of a probe chart). Helm 3's client-side dry run
    asks the cluster for its version; Helm 4's assumes its default, its server-side one asks."""
    assert ZITADEL is not None
    empty = _store(tmp_path / "empty.json", None)
    capabilities = _capabilities(_helm(helm, empty, budget, "template", "probe", str(_probe(tmp_path / "probe")),
                                       "--kube-version", version))
    dry_run = "--dry-run=server" if helm.parent.name.startswith("4") else "--dry-run=client"
    with FakeKube(namespace=NAMESPACE) as kube:
        _discovery(kube, capabilities)
        config = kube.write_kubeconfig(tmp_path / "kubeconfig")
        done = _run([str(helm), "install", ZITADEL.name, str(ZITADEL.prev), "-n", NAMESPACE, *ZITADEL.flags(),
                     dry_run, "-o", "json"], budget, HELM_DRIVER="memory", HELM_MEMORY_DRIVER_DATA=str(empty),
                    KUBECONFIG=str(config))
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(json.loads(done.stdout))


def _kubectl_images(doc: dict[str, Any]) -> set[tuple[Any, Any]]:
    return {(before, after) for before, after in _images(doc) if "alpine/k8s" in str(after)}


@pytest.mark.corpus
@pytest.mark.skipif(ZITADEL is None, reason=f"no chart corpus at {CORPUS} (tests/corpus/README.md)")
def test_zitadel_offline_says_the_version_it_rendered_for(helm: Path, tmp_path: Path) -> None:
    assert ZITADEL is not None
    budget = Budget(300)
    record = _record_for(helm, CLUSTER, tmp_path, budget)
    assert f"alpine/k8s:{CLUSTER}" in record["manifest"] + json.dumps(record["hooks"])
    store = _store(tmp_path / "releases.json", record)

    def plan(*flags: str) -> dict[str, Any]:
        done = _plan(helm, store, budget, "upgrade", ZITADEL.name, str(ZITADEL.next), "-n", NAMESPACE,
                     *ZITADEL.flags(), *flags, "-o", "json")
        assert done.returncode == 0, done.stderr[-2000:]
        return dict(json.loads(done.stdout))
    offline = plan()
    # helm template's default version moves the kubectl image: said, with how to give the real one.
    assert _kubectl_images(offline) == {(f"docker.io/alpine/k8s:{CLUSTER}", f"docker.io/alpine/k8s:{_default(helm)}")}
    [warned] = _warned(offline)
    # The kubectl image moves with the version: a warning in What matters, naming what moves.
    assert warned["severity"] == "warning" and _in_what_matters(offline)
    facts = warned["facts"]
    assert (facts["chart"], facts["kube_version"], facts["compared_version"]) == ("zitadel", _default(helm), _older(helm))
    # The hook Jobs that run kubectl: the one whose image the plan shows moving (it runs on the
    # upgrade), and the one that runs on uninstall only.
    moved = {r["name"] for h in offline["highlights"] if h["what"] == "image" and "alpine/k8s" in str(h["after"])
             for r in h["resources"]}
    assert moved == {"zitadel-setup"} and {r["name"] for r in facts["differing"]} == {"zitadel-setup", "zitadel-cleanup"}
    assert facts["differing_count"] == 2
    assert f"for {_older(helm)} the templates of chart zitadel render" in warned["message"]
    assert "pass --kube-version" in warned["message"]
    # For the cluster's version: no image change the real upgrade would not make, nothing assumed.
    given = plan("--kube-version", CLUSTER)
    assert _kubectl_images(given) == set() and _warned(given) == []
    older = plan("--kube-version", "1.31.0")
    assert _kubectl_images(older) == {(f"docker.io/alpine/k8s:{CLUSTER}", "docker.io/alpine/k8s:1.31.0")}


@pytest.mark.corpus
@pytest.mark.skipif(not CHARTS, reason=f"no chart corpus at {CORPUS} (tests/corpus/README.md)")
@pytest.mark.parametrize("chart", CHARTS, ids=lambda c: c.name)
def test_every_chart_whose_render_moves_with_the_version_is_found(chart: Chart, helm4: Path, tmp_path: Path) -> None:
    """Helm's renders as the reference for the template scan: a chart whose render for another
    Kubernetes version differs from its render for helm's default (twice alike, so not a value
    made anew) reads the version, and the scan of its package must say so."""
    budget = Budget(120)
    empty = _store(tmp_path / "empty.json", None)

    def render(*flags: str) -> str:
        return _helm(helm4, empty, budget, "template", chart.name, str(chart.next), "-n", NAMESPACE, *chart.flags(),
                     *flags)
    default, again, older = render(), render(), render("--kube-version", "1.30.0")
    if default != again:
        pytest.skip("the chart makes values anew on every render: its renders cannot be compared")
    if default != older:
        assert charts.scan(str(chart.next)).reads_kube_version
