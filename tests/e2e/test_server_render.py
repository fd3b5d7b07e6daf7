"""`helm plan upgrade --render server` end to end: real helm 3 and 4, helm's default Secret
storage, and a fake Kubernetes API server on loopback (tests/kubeapi.py)."""
from __future__ import annotations

import socket
from pathlib import Path
from typing import Iterator

import pytest

from conftest import EXAMPLE, assert_example_upgrade, changes_of, Store, run_plan, write_chart
from kubeapi import FakeKube


@pytest.fixture
def kube() -> Iterator[FakeKube]:
    with FakeKube(namespace="default", context="fake-ctx") as server:
        yield server


def _kubeconfig(kube: FakeKube, tmp_path: Path) -> str:
    return str(kube.write_kubeconfig(tmp_path / "kubeconfig"))


def _assert_read_only(kube: FakeKube) -> None:
    assert kube.requests, "helm never reached the fake cluster"
    assert {r.method for r in kube.requests} == {"GET"}
    assert kube.writes() == []


@pytest.mark.parametrize("render", [("--render", "server"), ()], ids=["render-server", "render-auto"])
def test_upgrade_rendered_by_the_server(helm: Path, store: Store, kube: FakeKube, tmp_path: Path,
                                        render: tuple[str, ...]) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    kube.load_releases(store.path)
    result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "-o", "json", *render,
                      helm=helm, KUBECONFIG=_kubeconfig(kube, tmp_path))
    assert result.code == 0, result.err
    doc = result.json()
    assert doc["header"]["rendered_by"] == "server"
    assert doc["header"]["kube_context"] == "fake-ctx"
    # The fake cluster holds the release's record and none of its objects: the Service leaving
    # the release is gone already, which Helm skips (no delete).
    assert_example_upgrade(doc, helm, gone=("shop-legacy",))
    # helm read the release from its Secret, then did the server dry run: reads only.
    _assert_read_only(kube)
    paths = [r.path for r in kube.requests]
    assert "/api/v1/namespaces/shop/secrets" in paths
    assert {"name=shop,owner=helm"} <= {r.query.get("labelSelector", [""])[0] for r in kube.requests}
    # Only objects the upgrade creates are looked up, to check they are not owned by someone else.
    assert "/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers/shop-web" in paths
    assert "/apis/batch/v1/namespaces/shop/cronjobs/shop-cleanup" in paths


def test_fresh_install_rendered_by_the_server(helm: Path, kube: FakeKube, tmp_path: Path) -> None:
    result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v1"), "-n", "shop", "-o", "json",
                      "--render", "server", "--detailed-exitcode", helm=helm, KUBECONFIG=_kubeconfig(kube, tmp_path))
    assert result.code == 2, result.err
    doc = result.json()
    assert doc["helm_action"] == "install" and doc["header"]["rendered_by"] == "server"
    assert doc["header"]["fresh_install"] is True and doc["header"]["revision"] == 1
    assert changes_of(doc) == [
        ("create", "Secret", "shop-db"), ("create", "ConfigMap", "shop-config"),
        ("create", "Service", "shop-legacy"), ("create", "Service", "shop-web"),
        ("create", "Deployment", "shop-web"),
    ]
    runs = {t["name"]: t["will_run"] for t in doc["tasks"]}
    assert runs == {"Job shop/shop-migrate": True, "Job shop/shop-seed": True, "Pod shop/shop-smoke-test": False}
    assert doc["chart_crds"] == [{"source": "shop/crds/widgets.yaml", "name": "widgets.shop.example.com",
                                  "lifecycle": "process", "will_process": True, "live_differs": None,
                                  "chart_changed": None}]
    _assert_read_only(kube)
    # helm install checks that none of the objects it would create exists yet.
    assert "/api/v1/namespaces/shop/configmaps/shop-config" in [r.path for r in kube.requests]


def test_lookup_is_real_with_the_server(helm: Path, store: Store, kube: FakeKube, tmp_path: Path) -> None:
    kube.put({"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"name": "settings", "namespace": "shop"}, "data": {"colour": "teal"}})
    configmap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: look\ndata:\n"
    before = write_chart(tmp_path / "v1", "look", {"cm.yaml": configmap + "  colour: none\n  missing: unknown\n"})
    after = write_chart(tmp_path / "v2", "look", {"cm.yaml": configmap + (
        "  colour: {{ (lookup \"v1\" \"ConfigMap\" .Release.Namespace \"settings\").data.colour | quote }}\n"
        "  missing: {{ (lookup \"v1\" \"ConfigMap\" .Release.Namespace \"nope\") | len | quote }}\n")},
        version="0.2.0")
    store.add("look", before, "shop")
    kube.load_releases(store.path)
    result = run_plan("upgrade", "look", str(after), "-n", "shop", "-o", "json", "--render", "server",
                      helm=helm, KUBECONFIG=_kubeconfig(kube, tmp_path))
    assert result.code == 0, result.err
    doc = result.json()
    (change,) = doc["changes"]
    # The value comes from the ConfigMap in the fake cluster; a missing object looks up as {}.
    assert change["action"] == "update" and change["fields"] == [
        {"path": "/data/colour", "op": "replace", "before": "none", "after": "teal", "cause": "chart"},
        {"path": "/data/missing", "op": "replace", "before": "unknown", "after": "0", "cause": "chart"},
    ]  # no values flag: the release's values again, every change the chart's
    assert not any(w["code"] == "lookup-offline" for w in doc["warnings"])
    paths = [r.path for r in kube.requests]
    assert "/api/v1/namespaces/shop/configmaps/settings" in paths
    assert "/api/v1/namespaces/shop/configmaps/nope" in paths
    _assert_read_only(kube)


def test_unreachable_cluster_is_one_line_and_exit_1(helm: Path, kube: FakeKube, tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port that nothing listens on once this socket is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = kube.write_kubeconfig(tmp_path / "closed", url=f"http://127.0.0.1:{port}")
    result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "--render", "server",
                      helm=helm, KUBECONFIG=str(config))
    assert result.code == 1
    assert result.out == ""
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert lines[0].startswith("helm plan: error: ")
    assert "cluster" in lines[0] and "unreachable" in lines[0], lines[0]
    assert kube.requests == []


def test_forbidden_release_secrets_are_reported(helm: Path, store: Store, kube: FakeKube, tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    kube.load_releases(store.path)
    kube.forbid("secrets")
    result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "--render", "server",
                      helm=helm, KUBECONFIG=_kubeconfig(kube, tmp_path))
    assert result.code == 1
    (line,) = result.err.strip().splitlines()
    assert 'secrets is forbidden: User "fake" cannot list resource "secrets"' in line, line
    _assert_read_only(kube)


def test_causes_with_the_server_render(helm: Path, store: Store, kube: FakeKube, tmp_path: Path) -> None:
    """The new chart with the previous values is rendered by the server too (`helm upgrade
    --dry-run=server --reset-values -f previous`): the chart's change and the values' told apart."""
    configmap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  size: {{ .Values.size | quote }}\n"
    before = write_chart(tmp_path / "v1", "app", {"cm.yaml": configmap + "  tier: one\n"}, values="size: s\n")
    after = write_chart(tmp_path / "v2", "app", {"cm.yaml": configmap + "  tier: two\n"}, values="size: s\n",
                        version="0.2.0")
    store.add("app", before, "shop", flags=("--set", "size=m"))
    kube.load_releases(store.path)
    result = run_plan("upgrade", "app", str(after), "-n", "shop", "-o", "json", "--render", "server", "--set", "size=l",
                      helm=helm, KUBECONFIG=_kubeconfig(kube, tmp_path))
    assert result.code == 0, result.err
    doc = result.json()
    assert doc["attribution"] == "rendered"
    (change,) = doc["changes"]
    assert [(f["path"], f["cause"]) for f in change["fields"]] == [("/data/size", "values"), ("/data/tier", "chart")]
    _assert_read_only(kube)
