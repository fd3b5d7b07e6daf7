"""A GET-only Kubernetes API client: the kubeconfig's cluster and user, as client-go reads them.

Why not the official `kubernetes` package: a plan sends GET requests and nothing else, and
that package with its dependencies is 126 MB on disk and a third of the command's start-up
time. This module is the part of it a plan uses, over `urllib3` (one connection pool, TLS,
proxies), which the official client uses too. Why not the official client: docs/commands/upgrade.md.

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

The kubeconfig is decoded as client-go decodes it (k8s.io/client-go/tools/clientcmd/api/v1,
YAML turned into JSON, keys matched exactly, unknown keys ignored): a value of the wrong type
(`insecure-skip-tls-verify: "false"`, a string) fails the whole kubeconfig, in every file, as
`kubectl` fails; a cluster with both a CA and `insecure-skip-tls-verify` is refused as
client-go refuses it. A CA (the kubeconfig's, or helm's --kube-ca-file) is the only one
trusted: the system's roots are not added to it.

What a server can make it do is bounded (the server may be hostile or broken):
- a request goes only to the kubeconfig's server: a path that would name another host
  (`@host:port/...`, `//host/...`) is refused before anything is sent, and redirects are
  not followed, so credentials never leave for another origin;
- each request has a deadline for the whole exchange, connect to last byte (a server that
  sends a byte now and then is cut off), and all requests share the command's `ReadBudget`;
- a 429 or 503 with `Retry-After` is asked again, at most `MAX_RETRIES` times, waiting at
  most `MAX_RETRY_AFTER` seconds each time and never past a deadline;
- an answer is read in pieces up to `MAX_ANSWER_BYTES`, after gzip decoding (which is done
  here, with the same bound, so a small gzip bomb cannot inflate past it), and one client
  reads at most `MAX_READ_BYTES` in all;
- an exec credential plugin has the request deadline (the whole budget when it may ask a
  person to log in) and may print at most `MAX_PLUGIN_OUTPUT` bytes.
"""
from __future__ import annotations

import base64
import datetime
import json
import os
import selectors
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import warnings
import zlib
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import unquote, urlencode, urlsplit
from urllib.request import getproxies, proxy_bypass

from msgspec import Struct, field
import urllib3

from deployah_plan.redact import without_userinfo
from deployah_plan.sources.kubeconfig import ClusterSettings, ReadBudget
from deployah_plan.sources.live import json_type
from deployah_plan.yamlkube import pyyaml

__all__ = ["KubeUnreachable", "AnswerTooLarge", "Response", "KubeClient", "MAX_ANSWER_BYTES", "MAX_READ_BYTES",
           "MAX_RETRIES", "MAX_RETRY_AFTER", "MAX_PLUGIN_OUTPUT"]

_EXEC_API_VERSIONS = ("client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1")
MAX_ANSWER_BYTES = 64 * 2**20  # one answer, decoded: a page of 500 large objects is a few MB
MAX_READ_BYTES = 512 * 2**20  # every answer of one client (one read of the live state or API facts)
MAX_RETRIES = 3  # a 429 or 503 with Retry-After is asked again this many times at most
MAX_RETRY_AFTER = 10.0  # seconds: a longer Retry-After is waited this long
MAX_PLUGIN_OUTPUT = 4 * 2**20  # an ExecCredential is a few kB, a certificate chain included
_CHUNK = 64 * 1024


class KubeUnreachable(Exception):
    """The cluster cannot be asked: no usable kubeconfig, a credential that cannot be had, or a
    connection that fails. The message is one line."""


class AnswerTooLarge(Exception):
    """One answer was larger than MAX_ANSWER_BYTES (decoded): that answer is not read, others
    may be. The message is one line."""


class Response(Struct, frozen=True):
    status: int
    reason: str
    body: bytes
    retry_after: str = ""  # the Retry-After header, as sent


def one_line(text: str) -> str:
    """Text on one line, runs of white space as one space."""
    return " ".join(text.split())


# -- the kubeconfig, merged --------------------------------------------------------------------

class _Entry(Struct):
    """A named cluster or user, and the folder of the file that defined it."""

    values: dict[str, Any]
    folder: Path

    def path(self, key: str) -> str:
        value = str(self.values.get(key) or "")
        return str(self.folder / value) if value and not os.path.isabs(value) else value


class _Config(Struct):
    server: str = ""
    cluster: _Entry = field(default_factory=lambda: _Entry({}, Path(".")))
    user: _Entry = field(default_factory=lambda: _Entry({}, Path(".")))


# The kubeconfig's types (k8s.io/client-go/tools/clientcmd/api/v1 types.go), for the checks
# json.Unmarshal makes: a struct is a dict of its known keys (others are ignored), a list is
# [item], a map is {"*": value}; `extensions` hold any value.
_STR, _BOOL, _BYTES, _ANY = "a string", "true or false", "a base64 string", "anything"
_EXTENSIONS = [{"name": _STR, "extension": _ANY}]
_CLUSTER = {"server": _STR, "tls-server-name": _STR, "insecure-skip-tls-verify": _BOOL,
            "certificate-authority": _STR, "certificate-authority-data": _BYTES, "proxy-url": _STR,
            "disable-compression": _BOOL, "extensions": _EXTENSIONS}
_EXEC = {"command": _STR, "args": [_STR], "env": [{"name": _STR, "value": _STR}], "apiVersion": _STR,
         "installHint": _STR, "provideClusterInfo": _BOOL, "interactiveMode": _STR}
_USER = {"client-certificate": _STR, "client-certificate-data": _BYTES, "client-key": _STR,
         "client-key-data": _BYTES, "token": _STR, "tokenFile": _STR, "as": _STR, "as-uid": _STR,
         "as-groups": [_STR], "as-user-extra": {"*": [_STR]}, "username": _STR, "password": _STR,
         "auth-provider": {"name": _STR, "config": {"*": _STR}}, "exec": _EXEC, "extensions": _EXTENSIONS}
_CONTEXT = {"cluster": _STR, "user": _STR, "namespace": _STR, "extensions": _EXTENSIONS}
_KUBECONFIG = {"kind": _STR, "apiVersion": _STR, "preferences": {"colors": _BOOL, "extensions": _EXTENSIONS},
               "clusters": [{"name": _STR, "cluster": _CLUSTER}], "users": [{"name": _STR, "user": _USER}],
               "contexts": [{"name": _STR, "context": _CONTEXT}], "current-context": _STR,
               "extensions": _EXTENSIONS}


def _type_error(value: Any, spec: Any, where: str) -> str:
    """Where the value does not have the type client-go decodes it into, or "" when it does.
    The value itself is never named: it may be a credential."""
    if value is None or spec == _ANY:
        return ""  # JSON null leaves a Go field empty
    if isinstance(spec, str):
        if spec == _BOOL:
            fits = isinstance(value, bool)
        else:  # a YAML timestamp is a string once the YAML is JSON, as client-go reads it
            fits = isinstance(value, (str, datetime.date))
        return "" if fits else f"{where} is {json_type(value)}, not {spec}"
    if isinstance(spec, list):
        if not isinstance(value, list):
            return f"{where} is {json_type(value)}, not a list"
        return next((e for i, item in enumerate(value) if (e := _type_error(item, spec[0], f"{where}[{i}]"))), "")
    if not isinstance(value, dict):
        return f"{where} is {json_type(value)}, not a mapping"
    if "*" in spec:
        return next((e for k, v in value.items() if (e := _type_error(v, spec["*"], f"{where}.{k}"))), "")
    return next((e for k, v in value.items() if k in spec and (e := _type_error(v, spec[k], f"{where}.{k}" if where else str(k)))), "")


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
    yaml = pyyaml()
    for file in settings.kubeconfig:
        try:
            loaded = yaml.safe_load(Path(file).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
            raise KubeUnreachable(f"the kubeconfig {file} cannot be read: {one_line(str(err))}") from None
        if loaded is None:
            continue  # an empty file is an empty kubeconfig
        problem = _type_error(loaded, _KUBECONFIG, "")
        if problem or not isinstance(loaded, dict):
            raise KubeUnreachable(f"the kubeconfig {file} cannot be read: "
                                  f"{problem or 'it is ' + json_type(loaded) + ', not a mapping'} (client-go refuses it too)")
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

class _Credential(Struct, frozen=True):
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
        raise KubeUnreachable(f"cannot read the {what} {path}: {err.strerror or err}") from None


def _run_plugin(args: list[str], env: dict[str, str], interactive: bool, limit: float) -> tuple[int, bytes | None]:
    """Run a credential plugin: its exit code and what it printed (None when it printed more
    than MAX_PLUGIN_OUTPUT). It is killed when it prints too much, or is still running after
    `limit` seconds (subprocess.TimeoutExpired)."""
    deadline = time.monotonic() + limit
    with subprocess.Popen(args, env=env, stdout=subprocess.PIPE,
                          stdin=None if interactive else subprocess.DEVNULL) as process:
        assert process.stdout is not None
        output = bytearray()
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    process.kill()
                    raise subprocess.TimeoutExpired(args, limit)
                chunk = os.read(process.stdout.fileno(), _CHUNK)
                if not chunk:
                    break
                output += chunk
                if len(output) > MAX_PLUGIN_OUTPUT:
                    process.kill()
                    return -1, None
        try:
            code = process.wait(max(deadline - time.monotonic(), 0.01))
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    return code, bytes(output)


def _run_exec(spec: dict[str, Any], server: str, cluster: _Entry, budget: ReadBudget) -> _Credential:
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
            or (base64.b64encode(_read(cluster.path("certificate-authority"), "kubeconfig's certificate-authority")).decode()
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
    # A person may be logging in: an interactive plugin has what is left of the whole budget.
    limit = budget.remaining() if interactive else min(budget.request, budget.remaining())
    try:
        code, output = _run_plugin(args, env, interactive, limit)
    except OSError as err:
        raise KubeUnreachable(f"the kubeconfig's exec credential plugin {command} cannot be run: "
                              f"{err.strerror or err}" + (f"; {hint}" if hint else "")) from None
    except subprocess.TimeoutExpired:
        raise KubeUnreachable(f"the kubeconfig's exec credential plugin {command} gave no credential within "
                              f"{limit:.0f}s and was stopped; run it by hand to see why, or set "
                              f"HELM_PLAN_{'CLUSTER' if interactive else 'REQUEST'}_TIMEOUT") from None
    if output is None:
        raise KubeUnreachable(f"the kubeconfig's exec credential plugin {command} printed more than "
                              f"{MAX_PLUGIN_OUTPUT // 2**20} MiB and was stopped; an ExecCredential is a few kB")
    if code != 0:
        raise KubeUnreachable(f"the kubeconfig's exec credential plugin {command} failed (exit {code}); "
                              "run it by hand to see why, or log in again")
    try:
        credential = json.loads(output)
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


def _exec_credential(spec: dict[str, Any], server: str, cluster: _Entry, budget: ReadBudget) -> _Credential:
    """The exec plugin's credential, run once per command: a plan reads the cluster several
    times (the previous release's kinds, the new ones, the API's facts), and a plugin such as
    `aws eks get-token` is slow, or may ask the user to log in. A command lasts far less than
    the credential."""
    key = (json.dumps(spec, sort_keys=True, default=str), server)
    with _EXEC_LOCK:
        found = _EXEC_CREDENTIALS.get(key)
        if found is None:
            found = _EXEC_CREDENTIALS[key] = _run_exec(spec, server, cluster, budget)
    return found


def _credential(user: _Entry, server: str, cluster: _Entry, token: str, budget: ReadBudget) -> tuple[_Credential, str]:
    """The user's credential (`token`, helm's --kube-token, replaces the user's own), and the
    Basic auth value (or "")."""
    values = user.values
    cert = (_b64(values["client-certificate-data"], "client-certificate-data") if values.get("client-certificate-data")
            else _read(user.path("client-certificate"), "kubeconfig's client-certificate") if values.get("client-certificate") else b"")
    key = (_b64(values["client-key-data"], "client-key-data") if values.get("client-key-data")
           else _read(user.path("client-key"), "kubeconfig's client-key") if values.get("client-key") else b"")
    if bool(cert) != bool(key):
        raise KubeUnreachable("the kubeconfig's user has a client certificate without its key, or a key without its certificate")
    if token:
        return _Credential(token, cert, key), ""
    if isinstance(values.get("exec"), dict):
        found = _exec_credential(values["exec"], server, cluster, budget)
        return (found if found.cert_pem else _Credential(found.token, cert, key)), ""
    if isinstance(values.get("auth-provider"), dict):
        return _Credential(_auth_provider(values["auth-provider"]).token, cert, key), ""
    if values.get("token"):
        return _Credential(str(values["token"]), cert, key), ""
    if values.get("tokenFile"):
        return _Credential(_read(user.path("tokenFile"), "kubeconfig's tokenFile").decode(errors="replace").strip(), cert, key), ""
    if values.get("username") or values.get("password"):
        pair = f"{values.get('username') or ''}:{values.get('password') or ''}".encode()
        return _Credential(cert_pem=cert, key_pem=key), "Basic " + base64.b64encode(pair).decode()
    return _Credential(cert_pem=cert, key_pem=key), ""


# -- TLS and the pool ----------------------------------------------------------------------------

def _tls_context(cluster: _Entry, settings: ClusterSettings, credential: _Credential) -> ssl.SSLContext:
    values = cluster.values
    if settings.ca_file or settings.insecure_skip_tls_verify:
        # helm's --kube-ca-file and --kube-insecure-skip-tls-verify replace the kubeconfig's CA
        # and its insecure flag together (client-go's DirectClientConfig.getCluster).
        insecure = settings.insecure_skip_tls_verify
        ca = _read(settings.ca_file, "--kube-ca-file (HELM_KUBECAFILE)") if settings.ca_file else b""
    else:
        insecure = bool(values.get("insecure-skip-tls-verify"))
        ca = (_b64(values["certificate-authority-data"], "certificate-authority-data") if values.get("certificate-authority-data")
              else _read(cluster.path("certificate-authority"), "kubeconfig's certificate-authority")
              if values.get("certificate-authority") else b"")
    if insecure and ca:
        raise KubeUnreachable("the cluster has both a certificate authority and insecure-skip-tls-verify, which client-go "
                              "(and so helm and kubectl) refuses; remove one of them")
    if ca:  # that CA alone is trusted, as client-go's rootCertPool: not the system's roots
        context = ssl.create_default_context(cadata=ca.decode("ascii", "replace") if b"-----BEGIN" in ca else ca)
    else:
        context = ssl.create_default_context()
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


# -- one request's deadline ------------------------------------------------------------------------

_ACTIVE = threading.local()  # the _Watch of the request this thread is sending


class _Watch:
    """Cuts a request's connection at its deadline. urllib3's read timeout bounds each wait for
    a byte, not the exchange: a server sending a byte every few seconds never trips it. A timer
    shuts the socket down instead, which wakes the waiting read at once."""

    def __init__(self, seconds: float) -> None:
        self.expired = False
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(max(seconds, 0.0), self._cut)
        self._timer.daemon = True

    def __enter__(self) -> "_Watch":
        _ACTIVE.watch = self
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        _ACTIVE.watch = None

    def using(self, sock: socket.socket | None) -> None:
        with self._lock:
            self._sock = sock
            if self.expired:
                self._shutdown()

    def _cut(self) -> None:
        with self._lock:
            self.expired = True
            self._shutdown()

    def _shutdown(self) -> None:
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _Watched:
    """Mixed into urllib3's connection classes: each request tells its _Watch which socket it
    is using (a pooled connection is reused, so this is per request, not per connect)."""

    sock: socket.socket | None

    def request(self, *args: Any, **kwargs: Any) -> Any:
        watch = getattr(_ACTIVE, "watch", None)
        if watch is not None:
            watch.using(self.sock)
        return super().request(*args, **kwargs)  # type: ignore[misc]

    def connect(self) -> Any:
        result = super().connect()  # type: ignore[misc]
        watch = getattr(_ACTIVE, "watch", None)
        if watch is not None:
            watch.using(self.sock)
        return result


def _watched(manager: urllib3.PoolManager) -> urllib3.PoolManager:
    """The manager, its pools making connections that a _Watch can cut."""
    classes: dict[str, Any] = {}
    pool_class: Any
    for scheme, pool_class in manager.pool_classes_by_scheme.items():
        connection = type(f"Watched{pool_class.ConnectionCls.__name__}", (_Watched, pool_class.ConnectionCls), {})
        classes[scheme] = type(f"Watched{pool_class.__name__}", (pool_class,), {"ConnectionCls": connection})
    manager.pool_classes_by_scheme = classes
    return manager


def _read_body(answer: Any, limit: int) -> bytes:
    """The body, decoded, read in pieces; AnswerTooLarge past `limit` bytes. gzip is decoded
    here with the same bound (urllib3 would inflate a whole piece at once)."""
    encoding = str(answer.headers.get("Content-Encoding") or "").strip().lower()
    if encoding not in ("", "identity", "gzip", "x-gzip"):
        raise KubeUnreachable(f"the cluster answered in a content encoding helm plan does not read ({one_line(encoding)[:40]})")
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS) if encoding.endswith("gzip") else None
    parts: list[bytes] = []
    size = 0
    for chunk in answer.stream(_CHUNK, decode_content=False):
        pending = chunk
        while pending:
            if inflate is None:
                data, pending = pending, b""
            else:
                try:
                    data = inflate.decompress(pending, limit + 1 - size)
                except zlib.error:
                    raise KubeUnreachable("the cluster's answer is not valid gzip") from None
                pending = inflate.unconsumed_tail
                if inflate.eof:  # gzip members may follow one another (Go's reader reads them all)
                    pending = inflate.unused_data + pending
                    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
            size += len(data)
            if size > limit:
                raise AnswerTooLarge(f"an answer larger than {limit // 2**20} MiB, the most helm plan reads")
            parts.append(data)
    return b"".join(parts)


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

    def __init__(self, settings: ClusterSettings, connect_timeout: float) -> None:
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
        parts = urlsplit(self.host)
        try:
            self.origin = (parts.scheme, parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80))
        except ValueError:
            raise KubeUnreachable(f"the cluster's server {without_userinfo(self.host)} is not a URL") from None
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.username or parts.query or parts.fragment:
            raise KubeUnreachable(f"the cluster's server {without_userinfo(self.host)} is not an http or https URL "
                                  "of a host (and an optional path)")
        self.settings = settings
        self.budget = settings.budget
        credential, basic = _credential(config.user, self.host, config.cluster, settings.token, self.budget)
        self.headers = urllib3.HTTPHeaderDict({"Accept": "application/json", "Accept-Encoding": "gzip",
                                               "User-Agent": "helm-plan"})
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
        self.connect_timeout = connect_timeout
        pool: dict[str, Any] = {"maxsize": 16, "retries": urllib3.Retry(total=0, redirect=0)}
        if parts.scheme == "https":
            try:
                pool["ssl_context"] = _tls_context(config.cluster, settings, credential)
            except (ssl.SSLError, ValueError) as err:
                raise KubeUnreachable(f"the kubeconfig's TLS settings cannot be used: {one_line(str(err))}") from None
            if pool["ssl_context"].verify_mode == ssl.CERT_NONE:
                pool["cert_reqs"] = "CERT_NONE"
                urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)  # the user asked for it
            name = settings.tls_server_name or str(config.cluster.values.get("tls-server-name") or "")
            if name:
                pool["server_hostname"] = name
                pool["assert_hostname"] = name
        self.pool = _watched(self._manager(_proxy_for(self.host, config.cluster), pool))
        self.requests = 0
        self.bytes_read = 0
        self._lock = threading.Lock()

    @staticmethod
    def _manager(proxy: str, pool: dict[str, Any]) -> urllib3.PoolManager:
        if not proxy:
            return urllib3.PoolManager(**pool)
        shown = without_userinfo(proxy)
        if proxy.startswith(("socks5://", "socks5h://")):
            try:
                with warnings.catch_warnings():  # urllib3 warns before it raises, when PySocks is missing
                    warnings.simplefilter("ignore")
                    from urllib3.contrib.socks import SOCKSProxyManager
            except ImportError:
                raise KubeUnreachable(f"the kubeconfig's proxy-url {shown} is a SOCKS proxy, "
                                      "which helm plan cannot use; use an HTTP proxy, or an SSH tunnel to the API server") from None
            return SOCKSProxyManager(proxy, **pool)
        if not proxy.startswith(("http://", "https://")):
            raise KubeUnreachable(f"the kubeconfig's proxy-url {shown} is not an http, https or socks5 URL")
        parts = urlsplit(proxy)
        if parts.username is not None:
            # The proxy's user and password go with every CONNECT (and every plain-HTTP
            # request through it) as Proxy-Authorization, as Go's transport sends them.
            pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
            pool["proxy_headers"] = urllib3.make_headers(proxy_basic_auth=pair)
        return urllib3.ProxyManager(shown, **pool)

    def url(self, path: str, query: Mapping[str, str] | None = None) -> str:
        """The URL of a path on this server; KubeUnreachable when it would reach any other
        origin (the credentials go only to the kubeconfig's server)."""
        url = self.host + path + (f"?{urlencode(query)}" if query else "")
        parts = urlsplit(url)
        try:
            origin = (parts.scheme, parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80))
        except ValueError:
            origin = ("", "", 0)
        if not path.startswith("/") or path.startswith("//") or parts.username is not None or origin != self.origin:
            raise KubeUnreachable(f"refused to send a request for {one_line(path)[:80]!r}: it does not name a path "
                                  f"on the cluster's server {self.origin[1]}:{self.origin[2]}")
        return url

    def get(self, path: str, query: Mapping[str, str] | None = None) -> Response:
        """One GET, asked again after a 429 or 5xx with Retry-After; a failure to connect, or
        no whole answer within the deadline, raises KubeUnreachable; an answer past
        MAX_ANSWER_BYTES raises AnswerTooLarge."""
        url = self.url(path, query)
        for attempt in range(MAX_RETRIES + 1):
            response = self._once(url)
            wait = _retry_after(response)
            if wait is None or attempt == MAX_RETRIES or wait >= self.budget.remaining():
                return response
            time.sleep(wait)
        raise AssertionError("unreachable")

    def _once(self, url: str) -> Response:
        left = self.budget.remaining()
        if left <= 0:
            raise KubeUnreachable(f"the cluster reading took longer than {self.budget.total:g}s "
                                  "(HELM_PLAN_CLUSTER_TIMEOUT); nothing more is asked")
        seconds = min(self.budget.request, left)
        late = (f"the cluster at {self.host} gave no whole answer within {seconds:g}s (HELM_PLAN_REQUEST_TIMEOUT)"
                if seconds == self.budget.request else
                f"the cluster reading took longer than {self.budget.total:g}s (HELM_PLAN_CLUSTER_TIMEOUT); "
                "nothing more is asked")
        with self._lock:
            self.requests += 1
            room = MAX_READ_BYTES - self.bytes_read
        timeout = urllib3.Timeout(connect=min(self.connect_timeout, seconds), read=seconds)
        with _Watch(seconds) as watch:
            try:
                answer = self.pool.request("GET", url, headers=self.headers, preload_content=False,
                                           decode_content=False, redirect=False, timeout=timeout)
                try:
                    body = _read_body(answer, min(MAX_ANSWER_BYTES, room))
                except BaseException:
                    answer.close()  # the rest of the answer is unread: the connection is not used again
                    raise
                finally:
                    answer.release_conn()
            except (urllib3.exceptions.HTTPError, OSError) as err:
                if watch.expired:
                    raise KubeUnreachable(late) from None
                raise KubeUnreachable(f"cannot reach the cluster at {self.host}: {self._why(err)}") from None
            except AnswerTooLarge:
                if room < MAX_ANSWER_BYTES:
                    raise KubeUnreachable(f"the cluster's answers passed {MAX_READ_BYTES // 2**20} MiB, the most "
                                          "helm plan reads in one go; nothing more is asked") from None
                raise
        if watch.expired:  # cut after the last byte came (a body read until the connection closes)
            raise KubeUnreachable(late)
        with self._lock:
            self.bytes_read += len(body)
        return Response(answer.status, str(answer.reason or ""), body, str(answer.headers.get("Retry-After") or ""))

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


def _retry_after(response: Response) -> float | None:
    """Seconds to wait before asking again, as client-go's checkWait: a 429 or a 5xx whose
    Retry-After is a number of seconds; capped at MAX_RETRY_AFTER. None: do not ask again."""
    if not (response.status == 429 or response.status >= 500):
        return None
    try:
        seconds = int(response.retry_after.strip())
    except ValueError:
        return None
    return min(max(float(seconds), 0.0), MAX_RETRY_AFTER)
