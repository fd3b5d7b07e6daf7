"""The cluster reader against a hostile or broken API server and odd kubeconfigs, on loopback:
it sends credentials only to the kubeconfig's server, reads the kubeconfig as client-go does,
and is bounded in time, requests, bytes and plugin output. Every test is bounded in time and
in the requests the server sees."""
from __future__ import annotations

import base64
import gzip
import json
import stat
import sys
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, Iterator

import pytest

from deployah_plan.sources.api_server import read_api
from deployah_plan.live_snapshot import KindRef, LiveSnapshot
from deployah_plan.sources.cluster import MAX_OBJECTS, MAX_PAGES, read_live
from deployah_plan.sources.kube_auth import MAX_PLUGIN_OUTPUT
from deployah_plan.sources.kubeclient import MAX_ANSWER_BYTES, MAX_RETRIES, MAX_RETRY_AFTER
from deployah_plan.sources.kubeconfig import resolve_settings
from conftest import EXAMPLE, Store, run_plan
from kubeapi import FakeKube, Proxy, Request
from e2e.test_cases import validate
from tlsfiles import CertAuthority, make_ca

CONFIGMAP = KindRef("v1", "ConfigMap")
LIST_PATH = "/api/v1/namespaces/shop/configmaps"


@pytest.fixture(scope="module")
def ca(tmp_path_factory: pytest.TempPathFactory) -> CertAuthority:
    return make_ca(tmp_path_factory.mktemp("ca"))


@pytest.fixture
def kube() -> Iterator[FakeKube]:
    with FakeKube(namespace="shop") as server:
        server.put({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "shop-config"}})
        yield server


def _kubeconfig(path: Path, cluster: dict[str, Any], user: dict[str, Any] | None = None) -> Path:
    path.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "ctx",
        "clusters": [{"name": "c", "cluster": cluster}], "users": [{"name": "u", "user": user or {"token": "s3cret-token"}}],
        "contexts": [{"name": "ctx", "context": {"cluster": "c", "user": "u", "namespace": "shop"}}],
    }))
    return path


def _read(config: Path, **env: str) -> LiveSnapshot:
    return read_live(resolve_settings({"KUBECONFIG": str(config), **env}), [(CONFIGMAP, "shop")])


def _send(handler: BaseHTTPRequestHandler, status: str, headers: dict[str, str], body: bytes = b"") -> None:
    handler.wfile.write(f"HTTP/1.1 {status}\r\n".encode())
    for name, value in {"Content-Length": str(len(body)), "Connection": "close", **headers}.items():
        handler.wfile.write(f"{name}: {value}\r\n".encode())
    handler.wfile.write(b"\r\n" + body)
    handler.wfile.flush()


def _page(items: list[dict[str, Any]], token: str = "") -> bytes:
    return json.dumps({"kind": "ConfigMapList", "apiVersion": "v1",
                       "metadata": {"continue": token} if token else {}, "items": items}).encode()


# -- 5. credentials go to the kubeconfig's server only ---------------------------------------------

@pytest.mark.e2e
@pytest.mark.parametrize("reference", ["@127.0.0.1:{port}/openapi/v3/api/v1", "//127.0.0.1:{port}/openapi/v3/api/v1",
                                       "http://127.0.0.1:{port}/openapi/v3/api/v1", "http://x@127.0.0.1:{port}/o"])
def test_openapi_entries_never_send_credentials_to_another_origin(tmp_path: Path, reference: str) -> None:
    schemas = {"io.k8s.api.core.v1.ConfigMap": {"type": "object"}}
    with FakeKube(namespace="shop", openapi={"api/v1": schemas}) as kube, \
            FakeKube(namespace="shop", openapi={"api/v1": schemas}) as other:
        port = other.url.rpartition(":")[2]
        kube.openapi_urls["api/v1"] = reference.format(port=port)
        facts = read_api(resolve_settings({"KUBECONFIG": str(kube.write_kubeconfig(tmp_path / "kc"))}), ["v1"], "shop")
        assert facts.reachable, facts.error
        assert other.requests == [], "the other origin was asked, with the kubeconfig's token"
        assert len(kube.requests) <= 6


@pytest.mark.e2e
def test_a_relative_openapi_entry_is_resolved_against_the_server(tmp_path: Path) -> None:
    schemas = {"io.k8s.api.core.v1.ConfigMap": {
        "type": "object", "x-kubernetes-group-version-kind": [{"group": "", "kind": "ConfigMap", "version": "v1"}],
        "properties": {"data": {"type": "object"}}}}
    with FakeKube(namespace="shop", openapi={"api/v1": schemas}) as kube:
        kube.openapi_urls["api/v1"] = "openapi/v3/api/v1?hash=abc"  # relative to the server's root
        facts = read_api(resolve_settings({"KUBECONFIG": str(kube.write_kubeconfig(tmp_path / "kc"))}), ["v1"], "shop")
        assert facts.reachable and facts.openapi and "io.k8s.api.core.v1.ConfigMap" in facts.schemas
        asked = [r for r in kube.requests if r.path == "/openapi/v3/api/v1"]
        assert [r.query for r in asked] == [{"hash": ["abc"]}]


# -- 6. the kubeconfig, as client-go reads it --------------------------------------------------------

@pytest.mark.e2e
@pytest.mark.parametrize("cluster, user, where", [
    ({"insecure-skip-tls-verify": "false"}, {"token": "t"}, "clusters[0].cluster.insecure-skip-tls-verify is a string, not true or false"),
    ({}, {"token": 12345}, "users[0].user.token is a number, not a string"),
    ({}, {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": "x", "args": "--flag"}},
     "users[0].user.exec.args is a string, not a list"),
    ({"server": ["https://a"]}, {"token": "t"}, "clusters[0].cluster.server is a list, not a string"),
])
def test_kubeconfig_values_of_the_wrong_type_are_one_error(ca: CertAuthority, tmp_path: Path, cluster: dict[str, Any],
                                                           user: dict[str, Any], where: str) -> None:
    other = make_ca(tmp_path / "other")  # the server's certificate is not trusted: skipping the check would read
    with FakeKube(namespace="shop", tls=other) as kube:
        snapshot = _read(_kubeconfig(tmp_path / "kc", {"server": kube.url, **cluster}, user))
        assert not snapshot.reachable and where in snapshot.error and "\n" not in snapshot.error
        assert "12345" not in snapshot.error and kube.requests == []


def test_a_broken_file_in_kubeconfig_fails_as_client_go_fails(kube: FakeKube, tmp_path: Path) -> None:
    good = kube.write_kubeconfig(tmp_path / "good")
    bad = tmp_path / "bad"
    bad.write_text("clusters: {}\n")
    snapshot = read_live(resolve_settings({"KUBECONFIG": f"{good}:{bad}"}), [(CONFIGMAP, "shop")])
    assert not snapshot.reachable and "clusters is a mapping, not a list" in snapshot.error


@pytest.mark.e2e
def test_helm_kubecafile_is_the_only_ca_trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server_ca, other = make_ca(tmp_path / "server"), make_ca(tmp_path / "other")
    with FakeKube(namespace="shop", tls=server_ca) as kube:
        config = _kubeconfig(tmp_path / "kc", {"server": kube.url})
        monkeypatch.setenv("SSL_CERT_FILE", str(server_ca.ca))  # the server's CA among the system's roots
        snapshot = _read(config, HELM_KUBECAFILE=str(other.ca))
        assert not snapshot.reachable and "TLS failed" in snapshot.error and kube.requests == []
        assert _read(config).reachable  # no CA named: the system's roots are used
        assert _read(config, HELM_KUBECAFILE=str(server_ca.ca)).reachable


# -- 7. bounded in time --------------------------------------------------------------------------
#
# Each hostile side below would hold the read for far longer than its deadline. The reader must
# end it at the deadline, and the one-line error names the deadline that did; the time taken is
# checked against the deadline plus a margin wide enough for a loaded 2-core machine, which is
# still far below how long the hostile side lasts, so a reader that waits it out fails.

MARGIN = 14.0  # seconds over a deadline a read may take on a loaded machine


def _ended_by(deadline: float, started: float, lasts: float) -> None:
    """The read that started at `started` ended near `deadline`, long before the hostile side
    would have let it (`lasts` seconds)."""
    assert lasts > deadline + MARGIN, "the test cannot tell the deadline from the hostile side giving up"
    took = time.monotonic() - started
    assert took < deadline + MARGIN, f"took {took:.1f}s with a deadline of {deadline:g}s"


DRIPS = 1000  # a byte or a header every 0.3 s: 300 s


def _drip_body(handler: BaseHTTPRequestHandler, request: Request) -> None:
    handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
    for _ in range(DRIPS):
        try:
            handler.wfile.write(b" ")
            handler.wfile.flush()
        except OSError:
            return
        time.sleep(0.3)


def _drip_headers(handler: BaseHTTPRequestHandler, request: Request) -> None:
    handler.wfile.write(b"HTTP/1.1 200 OK\r\n")
    for n in range(DRIPS):
        try:
            handler.wfile.write(f"X-{n}: y\r\n".encode())
            handler.wfile.flush()
        except OSError:
            return
        time.sleep(0.3)


@pytest.mark.parametrize("drip", [_drip_body, _drip_headers])
def test_a_dripping_server_is_cut_at_the_request_deadline(kube: FakeKube, tmp_path: Path, drip: Any) -> None:
    kube.script(LIST_PATH, drip)
    started = time.monotonic()
    snapshot = _read(kube.write_kubeconfig(tmp_path / "kc"), HELM_PLAN_REQUEST_TIMEOUT="1.5")
    _ended_by(1.5, started, lasts=DRIPS * 0.3)
    assert not snapshot.reachable and "no whole answer within 1.5s (HELM_PLAN_REQUEST_TIMEOUT)" in snapshot.error


def test_the_whole_read_has_a_deadline(kube: FakeKube, tmp_path: Path) -> None:
    def slow_pages(handler: BaseHTTPRequestHandler, request: Request) -> None:
        time.sleep(0.3)
        _send(handler, "200 OK", {"Content-Type": "application/json"}, _page([], token="more"))

    kube.script(LIST_PATH, slow_pages)
    started = time.monotonic()
    snapshot = _read(kube.write_kubeconfig(tmp_path / "kc"), HELM_PLAN_CLUSTER_TIMEOUT="2s")
    _ended_by(2, started, lasts=MAX_PAGES * 0.3)  # the pages end only at the most helm plan follows
    assert not snapshot.reachable and "longer than 2s (HELM_PLAN_CLUSTER_TIMEOUT)" in snapshot.error, snapshot.error
    assert len(kube.requests) < 30


def test_too_many_requests_is_asked_again_a_bounded_number_of_times(kube: FakeKube, tmp_path: Path) -> None:
    kube.script(LIST_PATH, lambda handler, request: _send(handler, "429 Too Many Requests", {"Retry-After": "0"},
                                                          b'{"kind":"Status","message":"slow down"}'))
    snapshot = _read(kube.write_kubeconfig(tmp_path / "kc"))
    assert snapshot.reachable
    assert [g.reason for g in snapshot.unreadable] == ["HTTP 429: slow down"]
    assert [r.path for r in kube.requests].count(LIST_PATH) == 1 + MAX_RETRIES


def test_too_many_requests_then_an_answer(kube: FakeKube, tmp_path: Path) -> None:
    def once_busy(handler: BaseHTTPRequestHandler, request: Request) -> None:
        if [r.path for r in kube.requests].count(LIST_PATH) == 1:
            _send(handler, "429 Too Many Requests", {"Retry-After": "1"})
        else:
            _send(handler, "200 OK", {"Content-Type": "application/json"}, _page([{"metadata": {"name": "a"}}]))

    kube.script(LIST_PATH, once_busy)
    snapshot = _read(kube.write_kubeconfig(tmp_path / "kc"))
    assert snapshot.reachable and [o["metadata"]["name"] for o in snapshot.objects] == ["a"]


def test_a_long_retry_after_never_waits_past_the_deadline(kube: FakeKube, tmp_path: Path) -> None:
    kube.script(LIST_PATH, lambda handler, request: _send(handler, "503 Service Unavailable", {"Retry-After": "3600"}))
    started = time.monotonic()
    snapshot = _read(kube.write_kubeconfig(tmp_path / "kc"), HELM_PLAN_CLUSTER_TIMEOUT="3")
    _ended_by(3, started, lasts=MAX_RETRIES * MAX_RETRY_AFTER)
    assert snapshot.reachable and snapshot.unreadable[0].reason.startswith("HTTP 503")
    # A wait of MAX_RETRY_AFTER does not fit in the deadline: the list was asked once, never waited for.
    assert [r.path for r in kube.requests].count(LIST_PATH) == 1


# -- 8. bounded in work and memory -------------------------------------------------------------

def test_an_endless_list_is_cut_and_named(kube: FakeKube, tmp_path: Path) -> None:
    kube.script(LIST_PATH, lambda handler, request: _send(
        handler, "200 OK", {"Content-Type": "application/json"}, _page([], token="again")))
    snapshot = _read(kube.write_kubeconfig(tmp_path / "kc"))
    assert snapshot.reachable
    assert [(g.kind, g.namespace, g.reason) for g in snapshot.unreadable] == [
        ("ConfigMap", "shop", f"more than {MAX_PAGES} pages, the most helm plan follows of one list")]
    assert [r.path for r in kube.requests].count(LIST_PATH) == MAX_PAGES


def test_too_many_objects_are_cut_and_named(kube: FakeKube, tmp_path: Path) -> None:
    body = _page([{"metadata": {"name": "same"}}] * (MAX_OBJECTS + 1))
    kube.script(LIST_PATH, lambda handler, request: _send(handler, "200 OK", {"Content-Type": "application/json"}, body))
    snapshot = _read(kube.write_kubeconfig(tmp_path / "kc"))
    assert snapshot.reachable and snapshot.objects == ()
    assert [g.reason for g in snapshot.unreadable] == [f"more than {MAX_OBJECTS:,} objects, the most helm plan reads of one kind"]


def _gzip_bomb(size: int) -> bytes:
    """`size` zero bytes once inflated, as gzip members of 1 MiB each one after the other."""
    return gzip.compress(bytes(2**20), 9) * (size // 2**20)


def test_a_gzip_bomb_ends_in_one_gap(kube: FakeKube, tmp_path: Path) -> None:
    bomb = _gzip_bomb(2**30)  # 1 GiB of zeros in about 1 MB
    assert len(bomb) < 2 * 2**20
    kube.script(LIST_PATH, lambda handler, request: _send(
        handler, "200 OK", {"Content-Type": "application/json", "Content-Encoding": "gzip"}, bomb))
    started = time.monotonic()
    snapshot = _read(kube.write_kubeconfig(tmp_path / "kc"))
    assert time.monotonic() - started < 10
    assert snapshot.reachable and [g.reason for g in snapshot.unreadable] == [
        f"an answer larger than {MAX_ANSWER_BYTES // 2**20} MiB, the most helm plan reads"]


def test_a_gzip_answer_is_read(kube: FakeKube, tmp_path: Path) -> None:
    page = _page([{"metadata": {"name": "zipped"}}])
    body = gzip.compress(page[:10]) + gzip.compress(page[10:])  # two members, as a gzip stream may have
    kube.script(LIST_PATH, lambda handler, request: _send(
        handler, "200 OK", {"Content-Type": "application/json", "Content-Encoding": "gzip"}, body))
    snapshot = _read(kube.write_kubeconfig(tmp_path / "kc"))
    assert snapshot.reachable and [o["metadata"]["name"] for o in snapshot.objects] == ["zipped"]


def test_an_endless_answer_is_cut(kube: FakeKube, tmp_path: Path) -> None:
    def endless(handler: BaseHTTPRequestHandler, request: Request) -> None:
        handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n")
        chunk = b" " * 2**20
        try:
            for _ in range(MAX_ANSWER_BYTES // 2**20 + 8):
                handler.wfile.write(chunk)
        except OSError:
            return

    kube.script(LIST_PATH, endless)
    snapshot = _read(kube.write_kubeconfig(tmp_path / "kc"))
    assert snapshot.reachable and [g.reason for g in snapshot.unreadable] == [
        f"an answer larger than {MAX_ANSWER_BYTES // 2**20} MiB, the most helm plan reads"]


@pytest.mark.parametrize("body", [b'{"resources": [1, "x", null]}', b'{"resources": "x"}', b"[]"])
def test_odd_discovery_documents_are_read_not_crashed_on(kube: FakeKube, tmp_path: Path, body: bytes) -> None:
    kube.script("/api/v1", lambda handler, request: _send(handler, "200 OK", {"Content-Type": "application/json"}, body))
    snapshot = _read(kube.write_kubeconfig(tmp_path / "kc"))
    assert snapshot.objects == () and "\n" not in snapshot.error


# Items a broken or hostile server may answer a LIST with, and the gap each one is: an item
# whose metadata Kubernetes could not decode (ObjectMeta's types) is never read as an object.
BAD_ITEMS = [
    ("a list", {"metadata": ["shop-config"]}, "item 1 of the answer has metadata that is a list, not a mapping"),
    ("a string", {"metadata": "shop-config"}, "item 1 of the answer has metadata that is a string, not a mapping"),
    ("a number", {"metadata": 7}, "item 1 of the answer has metadata that is a number, not a mapping"),
    ("null", {"metadata": None}, "item 1 of the answer has no metadata.name"),
    ("no name", {"metadata": {"namespace": "shop"}}, "item 1 of the answer has no metadata.name"),
    ("a numeric name", {"metadata": {"name": 7}}, "item 1 of the answer has metadata.name that is a number, not a string"),
    ("a list namespace", {"metadata": {"name": "a", "namespace": ["shop"]}},
     "item 1 of the answer has metadata.namespace that is a list, not a string"),
    ("string labels", {"metadata": {"name": "a", "labels": "app=shop"}},
     "item 1 of the answer has metadata.labels that is a string, not a mapping"),
    ("a list of annotations", {"metadata": {"name": "a", "annotations": ["meta.helm.sh/release-name"]}},
     "item 1 of the answer has metadata.annotations that is a list, not a mapping"),
    ("a numeric annotation", {"metadata": {"name": "a", "annotations": {"meta.helm.sh/release-name": 7}}},
     "item 1 of the answer has a value in metadata.annotations that is a number, not a string"),
    ("a nested label", {"metadata": {"name": "a", "labels": {"app.kubernetes.io/managed-by": {"x": 1}}}},
     "item 1 of the answer has a value in metadata.labels that is a mapping, not a string"),
    ("boolean owner references", {"metadata": {"name": "a", "ownerReferences": True}},
     "item 1 of the answer has metadata.ownerReferences that is true or false, not a list"),
    ("numeric managed fields", {"metadata": {"name": "a", "managedFields": 3}},
     "item 1 of the answer has metadata.managedFields that is a number, not a list"),
    ("not an object", "shop-config", "item 1 of the answer is not a Kubernetes object"),
]


@pytest.mark.parametrize("item, reason", [(item, reason) for _, item, reason in BAD_ITEMS],
                         ids=[label for label, _, _ in BAD_ITEMS])
def test_a_list_item_of_the_wrong_shape_is_a_gap(kube: FakeKube, tmp_path: Path, item: Any, reason: str) -> None:
    body = _page([{"metadata": {"name": "fine", "namespace": "shop"}}, item])
    kube.script(LIST_PATH, lambda handler, request: _send(handler, "200 OK", {"Content-Type": "application/json"}, body))
    snapshot = _read(kube.write_kubeconfig(tmp_path / "kc"))
    assert snapshot.reachable and snapshot.objects == ()  # the good item with the bad: one object unread would read as gone
    assert [(g.api_version, g.kind, g.namespace, g.reason) for g in snapshot.unreadable] == [("v1", "ConfigMap", "shop", reason)]


def test_list_items_that_are_not_a_list_are_a_gap(kube: FakeKube, tmp_path: Path) -> None:
    body = json.dumps({"kind": "ConfigMapList", "apiVersion": "v1", "metadata": {},
                       "items": {"metadata": {"name": "shop-config"}}}).encode()
    kube.script(LIST_PATH, lambda handler, request: _send(handler, "200 OK", {"Content-Type": "application/json"}, body))
    snapshot = _read(kube.write_kubeconfig(tmp_path / "kc"))
    assert snapshot.reachable and snapshot.objects == ()
    assert [g.reason for g in snapshot.unreadable] == ["the answer's items are not a list"]


def test_a_list_item_is_the_kind_that_was_listed(kube: FakeKube, tmp_path: Path) -> None:
    body = _page([{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "shop-config", "namespace": "shop"}}])
    kube.script(LIST_PATH, lambda handler, request: _send(handler, "200 OK", {"Content-Type": "application/json"}, body))
    snapshot = _read(kube.write_kubeconfig(tmp_path / "kc"))
    assert [(o["apiVersion"], o["kind"], o["metadata"]["name"]) for o in snapshot.objects] == [("v1", "ConfigMap", "shop-config")]


@pytest.mark.parametrize("item, reason", [(item, reason) for _, item, reason in BAD_ITEMS[1::2]],
                         ids=[label for label, _, _ in BAD_ITEMS[1::2]])
def test_a_plan_with_a_bad_list_item_is_partial_not_a_crash(helm4: Path, store: Store, tmp_path: Path,
                                                            item: Any, reason: str) -> None:
    """End to end: the release from the offline store, the live state from a server whose
    ConfigMap list holds a bad item beside the release's own ConfigMap."""
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    owned = {"name": "shop-config", "namespace": "shop", "labels": {"app.kubernetes.io/managed-by": "Helm"},
             "annotations": {"meta.helm.sh/release-name": "shop", "meta.helm.sh/release-namespace": "shop"}}
    body = _page([{"metadata": owned, "data": {"changed": "by hand"}}, item])
    with FakeKube(namespace="shop") as kube:
        kube.script(LIST_PATH, lambda handler, request: _send(handler, "200 OK", {"Content-Type": "application/json"}, body))
        config = str(kube.write_kubeconfig(tmp_path / "kc"))
        result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "-o", "json",
                          helm=helm4, store=store, KUBECONFIG=config)
        text = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "--no-color",
                        helm=helm4, store=store, KUBECONFIG=config)
        assert kube.writes() == []
    assert result.code == 0 and "Traceback" not in result.err and "internal error" not in result.err, result.err
    doc = result.json()
    validate(doc)
    assert doc["live"]["status"] == "partial" and doc["live"]["complete"] is False
    assert [(u["kind"], u["namespace"], u["reason"]) for u in doc["live"]["unreadable"]] == [("ConfigMap", "shop", reason)]
    assert not any(d["resource"]["kind"] == "ConfigMap" for d in doc["drift"])  # neither missing nor modified: unread
    assert text.code == 0 and "Traceback" not in text.err, text.err
    assert f"? drift and ownership of ConfigMap (v1) in shop: not read ({reason})" in text.out
    assert "PARTIAL: some kinds could not be read" in text.out


# -- 9. exec plugins, proxies, CA files -----------------------------------------------------------

def _plugin(folder: Path, body: str) -> dict[str, Any]:
    script = folder / "plugin"
    script.write_text(f"#!{sys.executable}\nimport sys, time\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": str(script), "interactiveMode": "Never"}}


def test_a_hung_exec_plugin_is_stopped(kube: FakeKube, tmp_path: Path) -> None:
    user = _plugin(tmp_path, "time.sleep(600)")
    started = time.monotonic()
    snapshot = _read(_kubeconfig(tmp_path / "kc", {"server": kube.url}, user), HELM_PLAN_REQUEST_TIMEOUT="1")
    _ended_by(1, started, lasts=600)
    assert not snapshot.reachable and "gave no credential within 1s and was stopped" in snapshot.error
    assert kube.requests == []


def test_an_exec_plugin_printing_too_much_is_stopped(kube: FakeKube, tmp_path: Path) -> None:
    user = _plugin(tmp_path, "chunk = b'x' * 2**20\nwhile True:\n    sys.stdout.buffer.write(chunk)")
    snapshot = _read(_kubeconfig(tmp_path / "kc", {"server": kube.url}, user))
    assert not snapshot.reachable
    assert f"printed more than {MAX_PLUGIN_OUTPUT // 2**20} MiB and was stopped" in snapshot.error


@pytest.mark.e2e
def test_proxy_credentials_go_as_proxy_authorization(ca: CertAuthority, tmp_path: Path) -> None:
    with FakeKube(namespace="shop", tls=ca) as kube, Proxy() as proxy:
        url = proxy.url.replace("http://", "http://alice:p%40ss@")
        cluster = {"server": kube.url, "certificate-authority": str(ca.ca), "proxy-url": url}
        snapshot = _read(_kubeconfig(tmp_path / "kc", cluster))
        assert snapshot.reachable, snapshot.error
        expected = "Basic " + base64.b64encode(b"alice:p@ss").decode()
        assert proxy.headers and all(h.get("proxy-authorization") == expected for h in proxy.headers)
        assert all(not r.header("Proxy-Authorization") for r in kube.requests)  # not past the proxy


@pytest.mark.e2e
@pytest.mark.parametrize("env, cluster_ca, named", [
    ({}, "missing/ca.crt", "cannot read the kubeconfig's certificate-authority {folder}/missing/ca.crt"),
    ({"HELM_KUBECAFILE": "{folder}/gone.pem"}, None, "cannot read the --kube-ca-file (HELM_KUBECAFILE) {folder}/gone.pem"),
])
def test_a_missing_ca_file_is_named(ca: CertAuthority, tmp_path: Path, env: dict[str, str], cluster_ca: str | None,
                                    named: str) -> None:
    with FakeKube(namespace="shop", tls=ca) as kube:
        cluster = {"server": kube.url, **({"certificate-authority": cluster_ca} if cluster_ca else {})}
        snapshot = _read(_kubeconfig(tmp_path / "kc", cluster), **{k: v.format(folder=tmp_path) for k, v in env.items()})
        assert not snapshot.reachable and named.format(folder=tmp_path.resolve()) in snapshot.error
        assert "No such file" in snapshot.error and kube.requests == []


@pytest.mark.e2e
def test_proxy_credentials_never_reach_an_error(ca: CertAuthority, tmp_path: Path) -> None:
    with Proxy() as proxy:
        dead = proxy.url.replace("http://", "http://alice:pr0xy-pass@")
    with FakeKube(namespace="shop", tls=ca) as kube:
        cluster = {"server": kube.url, "certificate-authority": str(ca.ca), "proxy-url": dead}
        snapshot = _read(_kubeconfig(tmp_path / "kc", cluster))
    assert not snapshot.reachable and "proxy" in snapshot.error
    assert "pr0xy-pass" not in snapshot.error and "alice" not in snapshot.error and "s3cret-token" not in snapshot.error
