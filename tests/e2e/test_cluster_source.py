"""The live-state source (deployah_plan/sources/cluster.py) against a real HTTP API server on
loopback (tests/kubeapi.py), reached through kubeconfig files and helm's environment variables
by the same client code users run: nothing is patched."""
from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from deployah_plan.live_snapshot import KindRef, LiveSnapshot
from deployah_plan.sources.cluster import NOT_SERVED, PAGE_SIZE, read_live
from deployah_plan.sources.kubeconfig import ClusterSettings, resolve_settings
from kubeapi import FakeKube
from sources.test_cluster_source import CONFIGMAP, SECRET, _ids

DEPLOYMENT, JOB = KindRef("apps/v1", "Deployment"), KindRef("batch/v1", "Job")
NAMESPACE, CLUSTERROLE = KindRef("v1", "Namespace"), KindRef("rbac.authorization.k8s.io/v1", "ClusterRole")


@pytest.fixture
def kube() -> Iterator[FakeKube]:
    with FakeKube(namespace="shop", context="fake-ctx") as server:
        yield server


def _obj(api_version: str, kind: str, name: str, namespace: str | None = "shop", **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    return {"apiVersion": api_version, "kind": kind, "metadata": meta, **extra}


def _closed_port() -> int:
    with socket.socket() as probe:  # nothing listens on it once this socket is closed
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _settings(kube: FakeKube, tmp_path: Path, **env: str) -> ClusterSettings:
    """Settings from a plugin environment whose KUBECONFIG points at the fake server."""
    return resolve_settings({"KUBECONFIG": str(kube.write_kubeconfig(tmp_path / "kubeconfig")), **env})


def _assert_read_only(kube: FakeKube, snapshot: LiveSnapshot) -> None:
    assert {r.method for r in kube.requests} == {"GET"}
    assert kube.writes() == []
    assert snapshot.requests == len(kube.requests)


def _lists(kube: FakeKube) -> list[str]:
    return [r.path for r in kube.requests if "limit" in r.query]


def test_reads_every_kind_and_namespace_including_cluster_scope(kube: FakeKube, tmp_path: Path) -> None:
    kube.put(_obj("v1", "ConfigMap", "shop-config", data={"colour": "teal"}))
    kube.put(_obj("v1", "ConfigMap", "web-config", "web"))
    kube.put(_obj("v1", "ConfigMap", "elsewhere", "other"))  # a namespace not asked about
    kube.put(_obj("apps/v1", "Deployment", "shop-web", spec={"replicas": 3}))
    kube.put(_obj("rbac.authorization.k8s.io/v1", "ClusterRole", "shop-reader", None))
    kube.put(_obj("v1", "Namespace", "shop", None))
    wanted = [(CONFIGMAP, "shop"), (CONFIGMAP, "web"), (DEPLOYMENT, "shop"), (JOB, "shop"),
              (CLUSTERROLE, ""), (NAMESPACE, "shop"), (NAMESPACE, "web")]

    snapshot = read_live(_settings(kube, tmp_path), wanted)

    assert snapshot.reachable and snapshot.error == "" and snapshot.unreadable == ()
    assert _ids(snapshot) == [
        ("v1", "ConfigMap", "shop", "shop-config"), ("v1", "ConfigMap", "web", "web-config"),
        ("apps/v1", "Deployment", "shop", "shop-web"),
        ("rbac.authorization.k8s.io/v1", "ClusterRole", "", "shop-reader"), ("v1", "Namespace", "", "shop"),
    ]
    # Whole objects, with the apiVersion and kind a LIST leaves out of its items.
    assert snapshot.objects[0]["data"] == {"colour": "teal"} and snapshot.objects[2]["spec"] == {"replicas": 3}
    # Discovery of the four group versions asked about, then one LIST per kind and namespace;
    # a cluster-scoped kind is listed once whatever namespace it was asked in.
    assert sorted(r.path for r in kube.requests if not r.query) == [
        "/api/v1", "/apis/apps/v1", "/apis/batch/v1", "/apis/rbac.authorization.k8s.io/v1"]
    assert sorted(_lists(kube)) == [
        "/api/v1/namespaces", "/api/v1/namespaces/shop/configmaps", "/api/v1/namespaces/web/configmaps",
        "/apis/apps/v1/namespaces/shop/deployments", "/apis/batch/v1/namespaces/shop/jobs",
        "/apis/rbac.authorization.k8s.io/v1/clusterroles"]
    assert snapshot.requests == 4 + 6
    _assert_read_only(kube, snapshot)


@pytest.mark.parametrize("kinds, namespaces", [(1, 1), (6, 1), (6, 3), (6, 10)])
def test_one_list_per_kind_and_namespace(kube: FakeKube, tmp_path: Path, kinds: int, namespaces: int) -> None:
    refs = [CONFIGMAP, SECRET, KindRef("v1", "Service"), DEPLOYMENT, KindRef("apps/v1", "StatefulSet"), JOB][:kinds]
    wanted = [(ref, f"ns{i}") for ref in refs for i in range(namespaces)]
    snapshot = read_live(_settings(kube, tmp_path), wanted * 3)  # asking twice costs nothing more
    group_versions = len({ref.api_version for ref in refs})
    assert snapshot.reachable and snapshot.requests == group_versions + kinds * namespaces
    _assert_read_only(kube, snapshot)


def test_release_records_are_left_out_of_secrets(kube: FakeKube, tmp_path: Path) -> None:
    kube.add_release({"name": "shop", "namespace": "shop", "version": 1, "info": {"status": "deployed"}})
    kube.put(_obj("v1", "Secret", "shop-db", type="Opaque", data={"password": "c2VjcmV0"}))
    snapshot = read_live(_settings(kube, tmp_path), [(SECRET, "shop")])
    assert _ids(snapshot) == [("v1", "Secret", "shop", "shop-db")]
    (listed,) = [r for r in kube.requests if "limit" in r.query]
    assert listed.query["fieldSelector"] == ["type!=helm.sh/release.v1"]


def test_pages_are_followed(kube: FakeKube, tmp_path: Path) -> None:
    for i in range(2 * PAGE_SIZE + 7):
        kube.put(_obj("v1", "ConfigMap", f"cm-{i:04d}"))
    snapshot = read_live(_settings(kube, tmp_path), [(CONFIGMAP, "shop")])
    assert len(snapshot.objects) == 2 * PAGE_SIZE + 7
    assert len({o["metadata"]["name"] for o in snapshot.objects}) == len(snapshot.objects)
    assert [r.query.get("continue") for r in kube.requests if "limit" in r.query] == [
        None, [str(PAGE_SIZE)], [str(2 * PAGE_SIZE)]]
    assert snapshot.requests == 1 + 3


def test_a_forbidden_kind_is_unreadable_and_the_rest_is_read(kube: FakeKube, tmp_path: Path) -> None:
    kube.put(_obj("v1", "ConfigMap", "shop-config"))
    kube.put(_obj("v1", "Secret", "shop-db"))
    kube.put(_obj("apps/v1", "Deployment", "web", "web"))
    kube.forbid("secrets")
    kube.forbid("deployments", "shop")  # readable in one namespace, not in the other
    wanted = [(CONFIGMAP, "shop"), (SECRET, "shop"), (DEPLOYMENT, "shop"), (DEPLOYMENT, "web")]
    snapshot = read_live(_settings(kube, tmp_path), wanted)
    assert snapshot.reachable
    assert _ids(snapshot) == [("v1", "ConfigMap", "shop", "shop-config"), ("apps/v1", "Deployment", "web", "web")]
    assert [(u.kind, u.namespace) for u in snapshot.unreadable] == [("Secret", "shop"), ("Deployment", "shop")]
    assert all(u.reason.startswith("forbidden: ") for u in snapshot.unreadable)
    assert 'cannot list resource "secrets"' in snapshot.unreadable[0].reason
    _assert_read_only(kube, snapshot)


def test_kinds_the_server_does_not_serve(kube: FakeKube, tmp_path: Path) -> None:
    kube.put(_obj("v1", "ConfigMap", "shop-config"))
    monitor, widget = KindRef("monitoring.coreos.com/v1", "ServiceMonitor"), KindRef("v1", "Widget")
    old = KindRef("extensions/v1beta1", "Deployment")
    wanted = [(monitor, "shop"), (widget, "shop"), (old, "shop"), (CONFIGMAP, "shop")]
    snapshot = read_live(_settings(kube, tmp_path), wanted)
    assert _ids(snapshot) == [("v1", "ConfigMap", "shop", "shop-config")]
    assert [(u.api_version, u.kind, u.namespace, u.reason) for u in snapshot.unreadable] == [
        ("monitoring.coreos.com/v1", "ServiceMonitor", "shop", NOT_SERVED), ("v1", "Widget", "shop", NOT_SERVED),
        ("extensions/v1beta1", "Deployment", "shop", NOT_SERVED)]
    # One discovery request per group version, and no LIST for what is not served.
    assert _lists(kube) == ["/api/v1/namespaces/shop/configmaps"]
    assert snapshot.requests == 3 + 1


def test_a_closed_port_is_unreachable_and_fast(kube: FakeKube, tmp_path: Path) -> None:
    config = kube.write_kubeconfig(tmp_path / "closed", url=f"http://127.0.0.1:{_closed_port()}")
    started = time.monotonic()
    snapshot = read_live(resolve_settings({"KUBECONFIG": str(config)}), [(CONFIGMAP, "shop"), (DEPLOYMENT, "shop")])
    assert time.monotonic() - started < 2
    assert not snapshot.reachable and snapshot.objects == () and snapshot.unreadable == ()
    assert snapshot.error.startswith("cannot reach the cluster at http://127.0.0.1:") and "refused" in snapshot.error
    assert "\n" not in snapshot.error
    assert kube.requests == []


def test_tls_to_a_plain_http_server_is_unreachable(kube: FakeKube, tmp_path: Path) -> None:
    config = kube.write_kubeconfig(tmp_path / "tls", url=kube.url.replace("http://", "https://"))
    snapshot = read_live(resolve_settings({"KUBECONFIG": str(config)}), [(CONFIGMAP, "shop")])
    assert not snapshot.reachable and "TLS" in snapshot.error and "\n" not in snapshot.error


def test_refused_credentials_are_unreachable(kube: FakeKube, tmp_path: Path) -> None:
    kube.require_token("the-right-token")  # the kubeconfig carries "fake-token"
    snapshot = read_live(_settings(kube, tmp_path), [(CONFIGMAP, "shop")])
    assert not snapshot.reachable and snapshot.error.endswith("refused the credentials (401 Unauthorized)")
    assert snapshot.requests == 1


def test_helm_kubetoken_replaces_the_kubeconfig_token(kube: FakeKube, tmp_path: Path) -> None:
    kube.require_token("the-right-token")
    kube.put(_obj("v1", "ConfigMap", "shop-config"))
    snapshot = read_live(_settings(kube, tmp_path, HELM_KUBETOKEN="the-right-token"), [(CONFIGMAP, "shop")])
    assert snapshot.reachable and _ids(snapshot) == [("v1", "ConfigMap", "shop", "shop-config")]
    assert {tuple(r.header("Authorization")) for r in kube.requests} == {("Bearer the-right-token",)}


def test_helm_kubeapiserver_replaces_the_server(kube: FakeKube, tmp_path: Path) -> None:
    config = kube.write_kubeconfig(tmp_path / "closed", url=f"http://127.0.0.1:{_closed_port()}")
    settings = resolve_settings({"KUBECONFIG": str(config), "HELM_KUBEAPISERVER": kube.url})
    snapshot = read_live(settings, [(CONFIGMAP, "shop")])
    assert snapshot.reachable and snapshot.requests == 2
    _assert_read_only(kube, snapshot)


def test_api_server_and_token_without_a_kubeconfig(kube: FakeKube, tmp_path: Path) -> None:
    settings = resolve_settings({"KUBECONFIG": str(tmp_path / "none"), "HELM_KUBEAPISERVER": kube.url,
                                 "HELM_KUBETOKEN": "t0k"})
    assert settings.kubeconfig == () and settings.namespace == "default"
    snapshot = read_live(settings, [(CONFIGMAP, "default")])
    assert snapshot.reachable
    assert {tuple(r.header("Authorization")) for r in kube.requests} == {("Bearer t0k",)}


def _context_file(path: Path, current: str, name: str, server: str, token: str, namespace: str) -> str:
    path.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": current,
        "clusters": [{"name": name, "cluster": {"server": server}}],
        "users": [{"name": name, "user": {"token": token}}],
        "contexts": [{"name": name, "context": {"cluster": name, "user": name, "namespace": namespace}}],
    }))
    return str(path)


def test_kubeconfig_list_and_helm_kubecontext(kube: FakeKube, tmp_path: Path) -> None:
    """KUBECONFIG is a list merged as client-go merges it: the first current-context wins."""
    dead = _context_file(tmp_path / "dead", "dead", "dead", f"http://127.0.0.1:{_closed_port()}", "t-dead", "nowhere")
    live = _context_file(tmp_path / "live", "live", "live", kube.url, "t-live", "shop")
    kube.put(_obj("v1", "ConfigMap", "shop-config"))

    first_dead = resolve_settings({"KUBECONFIG": f"{dead}:{live}"})
    assert (first_dead.context, first_dead.namespace) == ("dead", "nowhere")
    assert not read_live(first_dead, [(CONFIGMAP, "shop")]).reachable

    first_live = resolve_settings({"KUBECONFIG": f"{live}:{dead}"})
    assert (first_live.context, first_live.namespace) == ("live", "shop")
    assert read_live(first_live, [(CONFIGMAP, "shop")]).reachable

    chosen = resolve_settings({"KUBECONFIG": f"{dead}:{live}", "HELM_KUBECONTEXT": "live"})
    assert (chosen.context, chosen.namespace) == ("live", "shop")
    snapshot = read_live(chosen, [(CONFIGMAP, chosen.namespace)])
    assert _ids(snapshot) == [("v1", "ConfigMap", "shop", "shop-config")]
    assert {tuple(r.header("Authorization")) for r in kube.requests} == {("Bearer t-live",)}


def test_impersonation_headers(kube: FakeKube, tmp_path: Path) -> None:
    settings = _settings(kube, tmp_path, HELM_KUBEASUSER="alice", HELM_KUBEASGROUPS="dev,ops")
    snapshot = read_live(settings, [(CONFIGMAP, "shop"), (DEPLOYMENT, "shop")])
    assert snapshot.reachable and len(kube.requests) == 4
    for request in kube.requests:
        assert request.header("Impersonate-User") == ["alice"]
        assert request.header("Impersonate-Group") == ["dev", "ops"]  # one header per group
        assert request.header("Authorization") == ["Bearer fake-token"]


def test_nothing_wanted_only_asks_whether_the_cluster_answers(kube: FakeKube, tmp_path: Path) -> None:
    snapshot = read_live(_settings(kube, tmp_path), [])
    assert snapshot == LiveSnapshot(True, requests=1)
    assert [r.path for r in kube.requests] == ["/version"]


# -- saved live state -----------------------------------------------------------------------------


@pytest.mark.e2e
def test_custom_resources(tmp_path: Path) -> None:
    widget = ("shop.example.com/v1", "widgets", "Widget", True)
    with FakeKube(namespace="shop", custom=[widget]) as kube:
        kube.put(_obj("shop.example.com/v1", "Widget", "blue", spec={"size": 2}))
        snapshot = read_live(_settings(kube, tmp_path), [(KindRef("shop.example.com/v1", "Widget"), "shop")])
        assert _ids(snapshot) == [("shop.example.com/v1", "Widget", "shop", "blue")]
        assert snapshot.objects[0]["spec"] == {"size": 2}
        assert [r.path for r in kube.requests] == ["/apis/shop.example.com/v1", "/apis/shop.example.com/v1/namespaces/shop/widgets"]
        assert snapshot.namespaced == {KindRef("shop.example.com/v1", "Widget"): True}
        _assert_read_only(kube, snapshot)


@pytest.mark.e2e
def test_the_scope_discovery_gives_each_kind_asked_for_is_reported(tmp_path: Path) -> None:
    """A kind asked for in the release namespace that the cluster serves cluster-scoped is
    listed at the cluster scope, and said to be cluster-scoped; a kind not served has no scope."""
    gadget = ("shop.example.com/v1", "gadgets", "Gadget", False)
    with FakeKube(namespace="shop", custom=[gadget]) as kube:
        kube.put(_obj("shop.example.com/v1", "Gadget", "big", namespace=None))
        asked = [(KindRef("shop.example.com/v1", "Gadget"), "shop"), (KindRef("v1", "ConfigMap"), "shop"),
                 (KindRef("shop.example.com/v1", "Widget"), "shop")]
        snapshot = read_live(_settings(kube, tmp_path), asked)
        assert _ids(snapshot) == [("shop.example.com/v1", "Gadget", "", "big")]
        assert "/apis/shop.example.com/v1/gadgets" in [r.path for r in kube.requests]
        assert snapshot.namespaced == {KindRef("shop.example.com/v1", "Gadget"): False, KindRef("v1", "ConfigMap"): True}
