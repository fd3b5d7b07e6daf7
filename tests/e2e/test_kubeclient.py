"""Each kubeconfig auth shape users have, against the loopback API server (tests/kubeapi.py)
over plain HTTP or TLS with a throwaway CA (tests/tlsfiles.py), through the same read_live
users run. Exec credential plugins are small scripts written by the test."""
from __future__ import annotations

import base64
import json
import stat
import tempfile
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from deployah_plan.live_snapshot import KindRef, LiveSnapshot
from deployah_plan.sources.cluster import read_live
from deployah_plan.sources.kubeconfig import resolve_settings
from kubeapi import FakeKube, Proxy
from tlsfiles import CertAuthority, make_ca
from sources.test_kubeclient import CONFIGMAP, _read


@pytest.fixture(scope="module")
def ca(tmp_path_factory: pytest.TempPathFactory) -> CertAuthority:
    return make_ca(tmp_path_factory.mktemp("ca"))


@pytest.fixture
def kube() -> Iterator[FakeKube]:
    with FakeKube(namespace="shop") as server:
        server.put({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "shop-config"}})
        yield server


@pytest.fixture
def tls_kube(ca: CertAuthority) -> Iterator[FakeKube]:
    with FakeKube(namespace="shop", tls=ca) as server:
        server.put({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "shop-config"}})
        yield server


def _b64(data: bytes | str) -> str:
    return base64.b64encode(data if isinstance(data, bytes) else data.encode()).decode()


def _kubeconfig(path: Path, cluster: dict[str, Any], user: dict[str, Any]) -> Path:
    path.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "ctx",
        "clusters": [{"name": "c", "cluster": cluster}], "users": [{"name": "u", "user": user}],
        "contexts": [{"name": "ctx", "context": {"cluster": "c", "user": "u", "namespace": "shop"}}],
    }))
    return path


def _assert_read(snapshot: LiveSnapshot, kube: FakeKube) -> None:
    assert snapshot.reachable, snapshot.error
    assert [o["metadata"]["name"] for o in snapshot.objects] == ["shop-config"]
    assert {r.method for r in kube.requests} == {"GET"} and snapshot.requests == len(kube.requests) == 2


def _jwt(exp: float) -> str:
    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")
    return f"{part({'alg': 'RS256'})}.{part({'sub': 'alice', 'exp': int(exp)})}.c2lnbmF0dXJl"


def _exec_plugin(folder: Path, status: dict[str, Any], api_version: str = "client.authentication.k8s.io/v1",
                 code: int = 0) -> Path:
    """A credential plugin that records how it was run (args, KUBERNETES_EXEC_INFO, env)."""
    script = folder / "credential-plugin"
    record = folder / "exec-record.json"
    script.write_text(f"""#!{sys.executable}
import json, os, sys
json.dump({{"args": sys.argv[1:], "info": json.loads(os.environ["KUBERNETES_EXEC_INFO"]),
           "region": os.environ.get("AWS_REGION"), "stdin_tty": sys.stdin is not None and sys.stdin.isatty()}},
          open({str(record)!r}, "w"))
print(json.dumps({{"apiVersion": {api_version!r}, "kind": "ExecCredential", "status": {status!r}}}))
sys.exit({code})
""")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


# -- credentials ----------------------------------------------------------------------------------

def test_token(kube: FakeKube, tmp_path: Path) -> None:
    kube.require_token("t0ken")
    snapshot = _read(_kubeconfig(tmp_path / "kc", {"server": kube.url}, {"token": "t0ken"}))
    _assert_read(snapshot, kube)


def test_token_file_relative_to_the_kubeconfig(kube: FakeKube, tmp_path: Path) -> None:
    kube.require_token("from-a-file")
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "token").write_text("from-a-file\n")
    snapshot = _read(_kubeconfig(tmp_path / "kc", {"server": kube.url}, {"tokenFile": "secrets/token"}))
    _assert_read(snapshot, kube)


def test_basic_auth(kube: FakeKube, tmp_path: Path) -> None:
    kube.require_authorization("Basic " + _b64("admin:s3cret"))
    snapshot = _read(_kubeconfig(tmp_path / "kc", {"server": kube.url}, {"username": "admin", "password": "s3cret"}))
    _assert_read(snapshot, kube)


def test_exec_plugin_token_eks_style(kube: FakeKube, tmp_path: Path) -> None:
    kube.require_token("k8s-aws-v1.abc")
    plugin = _exec_plugin(tmp_path, {"token": "k8s-aws-v1.abc", "expirationTimestamp": "2099-01-01T00:00:00Z"})
    user = {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": str(plugin),
                     "args": ["eks", "get-token", "--cluster-name", "shop"], "env": [{"name": "AWS_REGION", "value": "eu-west-1"}],
                     "interactiveMode": "Never", "provideClusterInfo": True}}
    snapshot = _read(_kubeconfig(tmp_path / "kc", {"server": kube.url}, user))
    _assert_read(snapshot, kube)
    record = json.loads((tmp_path / "exec-record.json").read_text())
    assert record["args"] == ["eks", "get-token", "--cluster-name", "shop"] and record["region"] == "eu-west-1"
    assert record["info"] == {"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                              "spec": {"interactive": False, "cluster": {"server": kube.url}}}
    assert record["stdin_tty"] is False


def test_exec_plugin_runs_once_per_read(kube: FakeKube, tmp_path: Path) -> None:
    kube.require_token("tok")
    counter = tmp_path / "count"
    script = tmp_path / "plugin"
    script.write_text(f"#!/bin/sh\necho x >> {counter}\n"
                      'echo \'{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"tok"}}\'\n')
    script.chmod(0o755)
    user = {"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1", "command": str(script)}}
    wanted = [(KindRef("v1", kind), ns) for kind in ("ConfigMap", "Secret", "Service") for ns in ("shop", "web")]
    snapshot = read_live(resolve_settings({"KUBECONFIG": str(_kubeconfig(tmp_path / "kc", {"server": kube.url}, user))}), wanted)
    assert snapshot.reachable and snapshot.requests == 7
    assert counter.read_text() == "x\n"


def test_exec_plugin_client_certificate(tls_kube: FakeKube, ca: CertAuthority, tmp_path: Path) -> None:
    """GKE/AKS-style plugins may answer with a client certificate instead of a token."""
    tls_kube.require_client_cert("exec-user")
    pair = ca.client("exec-user")
    plugin = _exec_plugin(tmp_path, {"clientCertificateData": pair.cert.read_text(), "clientKeyData": pair.key.read_text()},
                          "client.authentication.k8s.io/v1beta1")
    cluster = {"server": tls_kube.url, "certificate-authority-data": _b64(ca.ca.read_bytes())}
    user = {"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1", "command": str(plugin)}}
    snapshot = _read(_kubeconfig(tmp_path / "kc", cluster, user))
    _assert_read(snapshot, tls_kube)
    assert {r.client for r in tls_kube.requests} == {"exec-user"}


@pytest.mark.parametrize("exec_spec, message", [
    ({"command": "no-such-credential-plugin", "installHint": "install it with: brew install thing"},
     "exec credential plugin no-such-credential-plugin cannot be run: No such file or directory; install it with: brew install thing"),
    ({"command": "false"}, "exec credential plugin false failed (exit 1); run it by hand to see why, or log in again"),
    ({"command": "true"}, "exec credential plugin true did not print an ExecCredential"),
    ({"command": "true", "apiVersion": "client.authentication.k8s.io/v1alpha1"},
     "asks for apiVersion client.authentication.k8s.io/v1alpha1; use client.authentication.k8s.io/v1 or"),
    ({"command": "true", "interactiveMode": "Always"}, "needs a terminal (interactiveMode: Always) and there is none"),
])
def test_exec_plugin_failures_are_one_line(kube: FakeKube, tmp_path: Path, exec_spec: dict[str, Any], message: str) -> None:
    user = {"exec": {"apiVersion": "client.authentication.k8s.io/v1", **exec_spec}}
    snapshot = _read(_kubeconfig(tmp_path / "kc", {"server": kube.url}, user))
    assert not snapshot.reachable and message in snapshot.error and "\n" not in snapshot.error
    assert kube.requests == []


def test_exec_plugin_without_a_credential(kube: FakeKube, tmp_path: Path) -> None:
    plugin = _exec_plugin(tmp_path, {"expirationTimestamp": "2099-01-01T00:00:00Z"})
    user = {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": str(plugin)}}
    snapshot = _read(_kubeconfig(tmp_path / "kc", {"server": kube.url}, user))
    assert not snapshot.reachable and "gave neither a token nor a client certificate" in snapshot.error


def test_oidc_id_token(kube: FakeKube, tmp_path: Path) -> None:
    token = _jwt(time.time() + 3600)
    kube.require_token(token)
    user = {"auth-provider": {"name": "oidc", "config": {
        "client-id": "kubernetes", "idp-issuer-url": "https://issuer.invalid", "id-token": token, "refresh-token": "r"}}}
    _assert_read(_read(_kubeconfig(tmp_path / "kc", {"server": kube.url}, user)), kube)


def test_oidc_expired_id_token_says_to_log_in(kube: FakeKube, tmp_path: Path) -> None:
    user = {"auth-provider": {"name": "oidc", "config": {"id-token": _jwt(time.time() - 60)}}}
    snapshot = _read(_kubeconfig(tmp_path / "kc", {"server": kube.url}, user))
    assert not snapshot.reachable and "OIDC id-token is missing or expired; log in again" in snapshot.error
    assert kube.requests == []


def test_removed_auth_providers_point_to_exec_plugins(kube: FakeKube, tmp_path: Path) -> None:
    snapshot = _read(_kubeconfig(tmp_path / "kc", {"server": kube.url}, {"auth-provider": {"name": "gcp"}}))
    assert not snapshot.reachable and 'auth-provider "gcp" is not supported' in snapshot.error
    assert "gke-gcloud-auth-plugin" in snapshot.error


# -- TLS ------------------------------------------------------------------------------------------

def test_client_certificate_files_and_ca_file(tls_kube: FakeKube, ca: CertAuthority, tmp_path: Path) -> None:
    tls_kube.require_client_cert("alice")
    pair = ca.client("alice")
    cluster = {"server": tls_kube.url, "certificate-authority": str(ca.ca)}
    snapshot = _read(_kubeconfig(tmp_path / "kc", cluster, {"client-certificate": str(pair.cert), "client-key": str(pair.key)}))
    _assert_read(snapshot, tls_kube)
    assert {r.client for r in tls_kube.requests} == {"alice"}


def test_client_certificate_data_and_ca_data(tls_kube: FakeKube, ca: CertAuthority, tmp_path: Path) -> None:
    tls_kube.require_client_cert("bob")
    pair = ca.client("bob")
    cluster = {"server": tls_kube.url, "certificate-authority-data": _b64(ca.ca.read_bytes())}
    user = {"client-certificate-data": _b64(pair.cert.read_bytes()), "client-key-data": _b64(pair.key.read_bytes())}
    before = set(Path(tempfile.gettempdir()).glob("helm-plan-tls-*"))
    _assert_read(_read(_kubeconfig(tmp_path / "kc", cluster, user)), tls_kube)
    assert set(Path(tempfile.gettempdir()).glob("helm-plan-tls-*")) <= before  # the key written for ssl is gone


def test_wrong_client_certificate_is_refused(tls_kube: FakeKube, ca: CertAuthority, tmp_path: Path) -> None:
    tls_kube.require_client_cert("alice")
    pair = ca.client("mallory")
    cluster = {"server": tls_kube.url, "certificate-authority": str(ca.ca)}
    snapshot = _read(_kubeconfig(tmp_path / "kc", cluster, {"client-certificate": str(pair.cert), "client-key": str(pair.key)}))
    assert not snapshot.reachable and snapshot.error.endswith("refused the credentials (401 Unauthorized)")


def test_unknown_ca_fails_tls(tls_kube: FakeKube, tmp_path: Path) -> None:
    other = make_ca(tmp_path / "other")
    cluster = {"server": tls_kube.url, "certificate-authority": str(other.ca)}
    snapshot = _read(_kubeconfig(tmp_path / "kc", cluster, {"token": "t"}))
    assert not snapshot.reachable and "TLS failed" in snapshot.error and "\n" not in snapshot.error
    assert tls_kube.requests == []


def test_insecure_skip_tls_verify(tls_kube: FakeKube, tmp_path: Path) -> None:
    cluster = {"server": tls_kube.url, "insecure-skip-tls-verify": True}
    _assert_read(_read(_kubeconfig(tmp_path / "kc", cluster, {"token": "t"})), tls_kube)


def test_insecure_skip_tls_verify_with_a_ca_is_refused_as_client_go_refuses_it(tls_kube: FakeKube, tmp_path: Path) -> None:
    other = make_ca(tmp_path / "other")
    cluster = {"server": tls_kube.url, "insecure-skip-tls-verify": True, "certificate-authority": str(other.ca)}
    config = _kubeconfig(tmp_path / "kc", cluster, {"token": "t"})
    refused = _read(config)
    assert not refused.reachable and "both a certificate authority and insecure-skip-tls-verify" in refused.error
    assert tls_kube.requests == []
    # helm's --kube-insecure-skip-tls-verify replaces the kubeconfig's CA and flag together.
    _assert_read(_read(config, HELM_KUBEINSECURE_SKIP_TLS_VERIFY="true"), tls_kube)


def test_helm_kube_ca_file_and_tls_server_name(tls_kube: FakeKube, ca: CertAuthority, tmp_path: Path) -> None:
    config = _kubeconfig(tmp_path / "kc", {"server": tls_kube.url, "tls-server-name": "wrong.test"}, {"token": "t"})
    refused = _read(config, HELM_KUBECAFILE=str(ca.ca))
    assert not refused.reachable and "TLS failed" in refused.error
    # helm's --kube-tls-server-name replaces the kubeconfig's; the certificate names kube.test.
    _assert_read(_read(config, HELM_KUBECAFILE=str(ca.ca), HELM_KUBETLS_SERVER_NAME="kube.test"), tls_kube)


# -- proxies --------------------------------------------------------------------------------------

def test_proxy_url(tls_kube: FakeKube, ca: CertAuthority, tmp_path: Path) -> None:
    with Proxy() as proxy:
        cluster = {"server": tls_kube.url, "certificate-authority": str(ca.ca), "proxy-url": proxy.url}
        _assert_read(_read(_kubeconfig(tmp_path / "kc", cluster, {"token": "t"})), tls_kube)
        assert set(proxy.tunnels) == {tls_kube.url.removeprefix("https://")}


def test_a_dead_proxy_is_unreachable(tls_kube: FakeKube, ca: CertAuthority, tmp_path: Path) -> None:
    with Proxy() as proxy:
        dead = proxy.url
    cluster = {"server": tls_kube.url, "certificate-authority": str(ca.ca), "proxy-url": dead}
    snapshot = _read(_kubeconfig(tmp_path / "kc", cluster, {"token": "t"}))
    assert not snapshot.reachable and snapshot.error.startswith("cannot reach the cluster at https://127.0.0.1:")
    assert "\n" not in snapshot.error and tls_kube.requests == []


def test_socks_proxy_without_pysocks_says_so(kube: FakeKube, tmp_path: Path) -> None:
    try:
        import socks  # noqa: F401
        pytest.skip("PySocks is installed: SOCKS proxies are supported here")
    except ImportError:
        pass
    cluster = {"server": kube.url, "proxy-url": "socks5://127.0.0.1:1080"}
    snapshot = _read(_kubeconfig(tmp_path / "kc", cluster, {"token": "t"}))
    assert not snapshot.reachable and "is a SOCKS proxy, which helm plan cannot use" in snapshot.error


def test_loopback_is_never_proxied_from_the_environment(kube: FakeKube, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # Go's ProxyFromEnvironment skips loopback
    _assert_read(_read(_kubeconfig(tmp_path / "kc", {"server": kube.url}, {"token": "t"})), kube)
