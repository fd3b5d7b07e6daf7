"""A GET-only Kubernetes API client: the kubeconfig's cluster and user, as client-go reads them.

Why not the official `kubernetes` package: a plan sends GET requests and nothing else, and
that package with its dependencies is 126 MB on disk and a third of the command's start-up
time. This module is the part of it a plan uses, over `urllib3` (one connection pool, TLS,
proxies), which the official client uses too. Measured side by side in the README.

What a kubeconfig can say, and what is done with it (client-go's rules, k8s.io/client-go
tools/clientcmd and rest; helm links client-go and its `auth` plugin package):

- files are merged in KUBECONFIG order, the first file to name a cluster, user or context
  wins; relative paths in a file (certificate-authority, client-certificate, client-key,
  tokenFile) are relative to that file's folder;
- cluster: `server` (a path after the host is kept as a prefix), `certificate-authority` /
  `certificate-authority-data`, `insecure-skip-tls-verify` (the CA is then not used),
  `tls-server-name`, `proxy-url` (http and https proxies; without it, HTTPS_PROXY, HTTP_PROXY
  and NO_PROXY as Go reads them, and never for a loopback server);
- user, the first of these that is set: `exec` (a credential plugin, as EKS, GKE and AKS
  kubeconfigs use), `auth-provider` `oidc` (its `id-token`), `token`, `tokenFile`,
  `username`/`password`; client certificates (`client-certificate`/`client-key` files or
  their `-data`) go with any of them; `as`/`as-groups` impersonate;
- helm's own flags (ClusterSettings) override all of the above, as client-go's ConfigFlags do.

An exec plugin runs once per command, with `KUBERNETES_EXEC_INFO` set, its stderr shown
(it may ask the user to log in) and the terminal as its stdin only when there is one and
its `interactiveMode` allows it; it must print an ExecCredential of the apiVersion it was
asked for, with a token or a client certificate.

Every failure to connect or authenticate is a `KubeUnreachable` whose message is one line.
"""
from __future__ import annotations

import base64
import json
import os
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import urlencode, urlsplit
from urllib.request import getproxies, proxy_bypass

import urllib3
import yaml

from deployah_plan.redact import without_userinfo
from deployah_plan.sources.kubeconfig import ClusterSettings

__all__ = ["KubeUnreachable", "Response", "KubeClient"]

_EXEC_API_VERSIONS = ("client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1")


class KubeUnreachable(Exception):
    """The cluster cannot be asked: no usable kubeconfig, a credential that cannot be had, or a
    connection that fails. The message is one line."""


@dataclass(frozen=True)
class Response:
    status: int
    reason: str
    body: bytes


def one_line(text: str) -> str:
    """Text on one line, runs of white space as one space."""
    return " ".join(text.split())


# -- the kubeconfig, merged --------------------------------------------------------------------

@dataclass
class _Entry:
    """A named cluster or user, and the folder of the file that defined it."""

    values: dict[str, Any]
    folder: Path

    def path(self, key: str) -> str:
        value = str(self.values.get(key) or "")
        return str(self.folder / value) if value and not os.path.isabs(value) else value


@dataclass
class _Config:
    server: str = ""
    cluster: _Entry = field(default_factory=lambda: _Entry({}, Path(".")))
    user: _Entry = field(default_factory=lambda: _Entry({}, Path(".")))


def _named(config: dict[str, Any], section: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for entry in config.get(section) or []:
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            body = entry.get(section[:-1])
            out.setdefault(entry["name"], body if isinstance(body, dict) else {})
    return out


def _load_config(settings: ClusterSettings) -> _Config:
    """The cluster and user of the chosen context, merged as client-go merges the files."""
    clusters: dict[str, _Entry] = {}
    users: dict[str, _Entry] = {}
    contexts: dict[str, dict[str, Any]] = {}
    for file in settings.kubeconfig:
        try:
            loaded = yaml.safe_load(Path(file).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
            raise KubeUnreachable(f"the kubeconfig {file} cannot be read: {one_line(str(err))}") from None
        if not isinstance(loaded, dict):
            continue
        folder = Path(file).resolve().parent
        for name, body in _named(loaded, "clusters").items():
            clusters.setdefault(name, _Entry(body, folder))
        for name, body in _named(loaded, "users").items():
            users.setdefault(name, _Entry(body, folder))
        for name, body in _named(loaded, "contexts").items():
            contexts.setdefault(name, body)
    config = _Config()
    if not settings.kubeconfig:
        return config
    if not settings.context:
        raise KubeUnreachable("the kubeconfig has no current context; choose one with --kube-context")
    context = contexts.get(settings.context)
    if context is None:
        raise KubeUnreachable(f'the kubeconfig has no context "{settings.context}"')
    cluster_name, user_name = str(context.get("cluster") or ""), str(context.get("user") or "")
    if cluster_name not in clusters:
        raise KubeUnreachable(f'the kubeconfig context "{settings.context}" names no known cluster ("{cluster_name}")')
    config.cluster = clusters[cluster_name]
    config.server = str(config.cluster.values.get("server") or "")
    if user_name:
        config.user = users.get(user_name, _Entry({}, config.cluster.folder))
    return config


# -- credentials -------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Credential:
    token: str = ""
    cert_pem: bytes = b""
    key_pem: bytes = b""


def _b64(value: Any, what: str) -> bytes:
    try:
        return base64.b64decode(str(value), validate=True)
    except ValueError:
        raise KubeUnreachable(f"the kubeconfig's {what} is not base64") from None


def _read(path: str, what: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as err:
        raise KubeUnreachable(f"cannot read the kubeconfig's {what} {path}: {err.strerror or err}") from None


def _run_exec(spec: dict[str, Any], server: str, cluster: _Entry) -> _Credential:
    """Run a client-go credential plugin (client.authentication.k8s.io ExecCredential)."""
    command = str(spec.get("command") or "")
    api_version = str(spec.get("apiVersion") or "")
    if not command:
        raise KubeUnreachable("the kubeconfig's exec credential plugin names no command")
    if api_version not in _EXEC_API_VERSIONS:
        raise KubeUnreachable(f"the kubeconfig's exec credential plugin asks for apiVersion {api_version or '(none)'}; "
                              f"use {' or '.join(_EXEC_API_VERSIONS)}")
    mode = str(spec.get("interactiveMode") or ("IfAvailable" if api_version.endswith("v1beta1") else ""))
    interactive = mode in ("IfAvailable", "Always") and sys.stdin is not None and sys.stdin.isatty()
    if mode == "Always" and not interactive:
        raise KubeUnreachable(f"the kubeconfig's exec credential plugin {command} needs a terminal "
                              "(interactiveMode: Always) and there is none")
    info: dict[str, Any] = {"apiVersion": api_version, "kind": "ExecCredential", "spec": {"interactive": interactive}}
    if spec.get("provideClusterInfo"):
        values = cluster.values
        info["spec"]["cluster"] = {k: v for k, v in {
            "server": server, "tls-server-name": values.get("tls-server-name"),
            "insecure-skip-tls-verify": values.get("insecure-skip-tls-verify"),
            "certificate-authority-data": values.get("certificate-authority-data")
            or (base64.b64encode(_read(cluster.path("certificate-authority"), "certificate-authority")).decode()
                if values.get("certificate-authority") else None),
            "proxy-url": values.get("proxy-url"), "config": (values.get("extensions") or None),
        }.items() if v}
    env = dict(os.environ)
    for entry in spec.get("env") or []:
        if isinstance(entry, dict) and entry.get("name"):
            env[str(entry["name"])] = str(entry.get("value") or "")
    env["KUBERNETES_EXEC_INFO"] = json.dumps(info)
    args = [command, *(str(a) for a in spec.get("args") or [])]
    hint = one_line(str(spec.get("installHint") or ""))
    try:
        done = subprocess.run(args, env=env, stdout=subprocess.PIPE, stdin=None if interactive else subprocess.DEVNULL)
    except OSError as err:
        raise KubeUnreachable(f"the kubeconfig's exec credential plugin {command} cannot be run: "
                              f"{err.strerror or err}" + (f"; {hint}" if hint else "")) from None
    if done.returncode != 0:
        raise KubeUnreachable(f"the kubeconfig's exec credential plugin {command} failed (exit {done.returncode}); "
                              "run it by hand to see why, or log in again")
    try:
        credential = json.loads(done.stdout)
        if not isinstance(credential, dict):
            raise ValueError
    except ValueError:
        raise KubeUnreachable(f"the kubeconfig's exec credential plugin {command} did not print an ExecCredential") from None
    if credential.get("apiVersion") != api_version or credential.get("kind") != "ExecCredential":
        raise KubeUnreachable(f"the kubeconfig's exec credential plugin {command} printed "
                              f"{credential.get('apiVersion')} {credential.get('kind')}, not {api_version} ExecCredential")
    status = credential.get("status") if isinstance(credential.get("status"), dict) else {}
    assert isinstance(status, dict)
    token = str(status.get("token") or "")
    cert, key = str(status.get("clientCertificateData") or ""), str(status.get("clientKeyData") or "")
    if bool(cert) != bool(key) or not (token or cert):
        raise KubeUnreachable(f"the kubeconfig's exec credential plugin {command} gave neither a token "
                              "nor a client certificate and key")
    return _Credential(token, cert.encode(), key.encode())


def _jwt_expired(token: str) -> bool:
    """Whether a JWT's `exp` has passed (client-go's oidc provider refreshes such a token)."""
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        return isinstance(claims, dict) and isinstance(claims.get("exp"), (int, float)) and claims["exp"] <= time.time()
    except (IndexError, ValueError):
        return False


def _auth_provider(provider: dict[str, Any]) -> _Credential:
    name = str(provider.get("name") or "")
    if name != "oidc":
        raise KubeUnreachable(f'the kubeconfig\'s auth-provider "{name}" is not supported (Helm dropped it too); '
                              "use its exec credential plugin (gke-gcloud-auth-plugin, kubelogin)")
    config = provider.get("config") if isinstance(provider.get("config"), dict) else {}
    assert isinstance(config, dict)
    token = str(config.get("id-token") or "")
    if not token or _jwt_expired(token):
        raise KubeUnreachable("the kubeconfig's OIDC id-token is missing or expired; log in again "
                              "(e.g. kubectl oidc-login, or any kubectl command, which refreshes it)")
    return _Credential(token)


_EXEC_CREDENTIALS: dict[tuple[str, str], _Credential] = {}
_EXEC_LOCK = threading.Lock()


def _exec_credential(spec: dict[str, Any], server: str, cluster: _Entry) -> _Credential:
    """The exec plugin's credential, run once per command: a plan reads the cluster several
    times (the previous release's kinds, the new ones, the API's facts), and a plugin such as
    `aws eks get-token` is slow, or may ask the user to log in. A command lasts far less than
    the credential."""
    key = (json.dumps(spec, sort_keys=True, default=str), server)
    with _EXEC_LOCK:
        found = _EXEC_CREDENTIALS.get(key)
        if found is None:
            found = _EXEC_CREDENTIALS[key] = _run_exec(spec, server, cluster)
    return found


def _credential(user: _Entry, server: str, cluster: _Entry, token: str) -> tuple[_Credential, str]:
    """The user's credential (`token`, helm's --kube-token, replaces the user's own), and the
    Basic auth value (or "")."""
    values = user.values
    cert = (_b64(values["client-certificate-data"], "client-certificate-data") if values.get("client-certificate-data")
            else _read(user.path("client-certificate"), "client-certificate") if values.get("client-certificate") else b"")
    key = (_b64(values["client-key-data"], "client-key-data") if values.get("client-key-data")
           else _read(user.path("client-key"), "client-key") if values.get("client-key") else b"")
    if bool(cert) != bool(key):
        raise KubeUnreachable("the kubeconfig's user has a client certificate without its key, or a key without its certificate")
    if token:
        return _Credential(token, cert, key), ""
    if isinstance(values.get("exec"), dict):
        found = _exec_credential(values["exec"], server, cluster)
        return (found if found.cert_pem else _Credential(found.token, cert, key)), ""
    if isinstance(values.get("auth-provider"), dict):
        return _Credential(_auth_provider(values["auth-provider"]).token, cert, key), ""
    if values.get("token"):
        return _Credential(str(values["token"]), cert, key), ""
    if values.get("tokenFile"):
        return _Credential(_read(user.path("tokenFile"), "tokenFile").decode(errors="replace").strip(), cert, key), ""
    if values.get("username") or values.get("password"):
        pair = f"{values.get('username') or ''}:{values.get('password') or ''}".encode()
        return _Credential(cert_pem=cert, key_pem=key), "Basic " + base64.b64encode(pair).decode()
    return _Credential(cert_pem=cert, key_pem=key), ""


# -- TLS and the pool ----------------------------------------------------------------------------

def _tls_context(cluster: _Entry, settings: ClusterSettings, credential: _Credential) -> ssl.SSLContext:
    insecure = settings.insecure_skip_tls_verify or bool(cluster.values.get("insecure-skip-tls-verify"))
    context = ssl.create_default_context()
    if settings.ca_file:
        context.load_verify_locations(cafile=settings.ca_file)
    elif insecure:
        pass  # client-go drops the kubeconfig's CA when told to skip the check
    elif cluster.values.get("certificate-authority-data"):
        context = ssl.create_default_context(
            cadata=_b64(cluster.values["certificate-authority-data"], "certificate-authority-data").decode("ascii", "replace"))
    elif cluster.values.get("certificate-authority"):
        context = ssl.create_default_context(cafile=cluster.path("certificate-authority"))
    if insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if credential.cert_pem:
        # ssl loads a certificate chain only from files: write them to a private folder that
        # is gone once they are loaded.
        with tempfile.TemporaryDirectory(prefix="helm-plan-tls-") as folder:
            cert, key = Path(folder, "cert.pem"), Path(folder, "key.pem")
            for path, data in ((cert, credential.cert_pem), (key, credential.key_pem)):
                path.touch(mode=0o600)
                path.write_bytes(data)
            context.load_cert_chain(str(cert), str(key))
    return context


def _proxy_for(server: str, cluster: _Entry) -> str:
    """The proxy for this server: the kubeconfig's `proxy-url`, else Go's ProxyFromEnvironment
    (HTTPS_PROXY or HTTP_PROXY by scheme, NO_PROXY, never for a loopback host)."""
    explicit = str(cluster.values.get("proxy-url") or "")
    if explicit:
        return explicit
    parts = urlsplit(server)
    host = parts.hostname or ""
    if host in ("localhost", "::1") or host.startswith("127."):
        return ""
    proxies = getproxies()
    proxy = proxies.get(parts.scheme or "https", "")
    if proxy and proxy_bypass(parts.netloc):
        return ""
    return proxy


class KubeClient:
    """GET requests to one API server, with the kubeconfig's credentials; thread-safe.

    The credential (an exec plugin's token included) is fetched once, when the client is made.
    """

    def __init__(self, settings: ClusterSettings, connect_timeout: float, read_timeout: float) -> None:
        try:
            config = _load_config(settings)
        except KubeUnreachable:
            if not settings.api_server:
                raise
            config = _Config()  # helm's --kube-apiserver works without a usable kubeconfig
        server = settings.api_server or config.server
        if not server:
            raise KubeUnreachable("no kubeconfig found and no API server given" if not settings.kubeconfig
                                  else f'the kubeconfig context "{settings.context}" has no server')
        server = server.rstrip("/")
        self.host = server if "://" in server else f"https://{server}"
        self.settings = settings
        credential, basic = _credential(config.user, self.host, config.cluster, settings.token)
        self.headers = urllib3.HTTPHeaderDict({"Accept": "application/json", "User-Agent": "helm-plan"})
        if credential.token:
            self.headers["Authorization"] = f"Bearer {credential.token}"
        elif basic:
            self.headers["Authorization"] = basic
        user = config.user.values
        as_user = settings.as_user or str(user.get("as") or "")
        as_groups = settings.as_groups or tuple(str(g) for g in user.get("as-groups") or [])
        if as_user:
            self.headers["Impersonate-User"] = as_user
        for group in as_groups:
            self.headers.add("Impersonate-Group", group)  # one header per group, as client-go sends them
        self.timeout = urllib3.Timeout(connect=connect_timeout, read=read_timeout)
        self.connect_timeout = connect_timeout
        scheme = urlsplit(self.host).scheme
        pool: dict[str, Any] = {"maxsize": 16, "retries": urllib3.Retry(total=0, redirect=0), "timeout": self.timeout}
        if scheme == "https":
            try:
                pool["ssl_context"] = _tls_context(config.cluster, settings, credential)
            except (ssl.SSLError, OSError, ValueError) as err:
                raise KubeUnreachable(f"the kubeconfig's TLS settings cannot be used: {one_line(str(err))}") from None
            if pool["ssl_context"].verify_mode == ssl.CERT_NONE:
                pool["cert_reqs"] = "CERT_NONE"
                urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)  # the user asked for it
            name = settings.tls_server_name or str(config.cluster.values.get("tls-server-name") or "")
            if name:
                pool["server_hostname"] = name
                pool["assert_hostname"] = name
        proxy = _proxy_for(self.host, config.cluster)
        self.pool: urllib3.PoolManager
        if not proxy:
            self.pool = urllib3.PoolManager(**pool)
        elif proxy.startswith(("socks5://", "socks5h://")):
            try:
                with warnings.catch_warnings():  # urllib3 warns before it raises, when PySocks is missing
                    warnings.simplefilter("ignore")
                    from urllib3.contrib.socks import SOCKSProxyManager
            except ImportError:
                raise KubeUnreachable(f"the kubeconfig's proxy-url {without_userinfo(proxy)} is a SOCKS proxy, "
                                      "which helm plan cannot use; use an HTTP proxy, or an SSH tunnel to the API server") from None
            self.pool = SOCKSProxyManager(proxy, **pool)
        elif proxy.startswith(("http://", "https://")):
            self.pool = urllib3.ProxyManager(proxy, **pool)
        else:
            raise KubeUnreachable(f"the kubeconfig's proxy-url {without_userinfo(proxy)} is not an http, https or "
                                  "socks5 URL")
        self.requests = 0
        self._lock = threading.Lock()

    def get(self, path: str, query: Mapping[str, str] | None = None) -> Response:
        """One GET; a failure to connect raises KubeUnreachable."""
        url = self.host + path + (f"?{urlencode(query)}" if query else "")
        with self._lock:
            self.requests += 1
        try:
            answer = self.pool.request("GET", url, headers=self.headers, preload_content=True, redirect=False)
        except (urllib3.exceptions.HTTPError, OSError) as err:
            raise KubeUnreachable(f"cannot reach the cluster at {self.host}: {self._why(err)}") from None
        return Response(answer.status, str(answer.reason or ""), answer.data)

    def _why(self, err: BaseException) -> str:
        reason: BaseException = err
        if isinstance(err, urllib3.exceptions.MaxRetryError) and err.reason is not None:
            reason = err.reason
        if isinstance(reason, urllib3.exceptions.ProxyError):
            return "the proxy failed: " + one_line(str(reason.original_error if hasattr(reason, "original_error") else reason))
        if isinstance(reason, urllib3.exceptions.NameResolutionError):
            return "the host name does not resolve"
        if isinstance(reason, urllib3.exceptions.NewConnectionError):  # before its base, ConnectTimeoutError
            return one_line(str(reason).rpartition("] ")[2]).lower() or "connection failed"
        if isinstance(reason, urllib3.exceptions.ConnectTimeoutError):
            return f"no connection within {self.connect_timeout:g}s"
        if isinstance(reason, urllib3.exceptions.ReadTimeoutError):
            return "no answer in time"
        if isinstance(reason, (urllib3.exceptions.SSLError, ssl.SSLError)):
            return "TLS failed: " + one_line(str(reason))
        return one_line(str(reason)) or type(reason).__name__

    def close(self) -> None:
        self.pool.clear()
