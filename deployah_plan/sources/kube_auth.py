"""What the kubeconfig says for the chosen context: the cluster and the user's credential, which
sources/kubeclient.py sends its requests with.

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
"""
from __future__ import annotations

import base64
import datetime
import json
import os
import selectors
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from deployah_plan.escape import one_line
from deployah_plan.sources.kubeconfig import ClusterSettings, ReadBudget
from deployah_plan.sources.live import json_type
from deployah_plan.yamlkube import pyyaml

__all__ = ["KubeUnreachable", "Credential", "Entry", "Kubeconfig", "MAX_PLUGIN_OUTPUT", "READ_CHUNK", "user_credential",
           "decode_b64", "load_config", "read_file"]

_EXEC_API_VERSIONS = ("client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1")
MAX_PLUGIN_OUTPUT = 4 * 2**20  # an ExecCredential is a few kB, a certificate chain included
READ_CHUNK = 64 * 1024  # bytes read at once from a plugin's output or an answer


class KubeUnreachable(Exception):
    """The cluster cannot be asked: no usable kubeconfig, a credential that cannot be had, or a
    connection that fails. The message is one line."""


# -- the kubeconfig, merged --------------------------------------------------------------------

class Entry(Struct):
    """A named cluster or user, and the folder of the file that defined it."""

    values: dict[str, Any]
    folder: Path

    def path(self, key: str) -> str:
        value = str(self.values.get(key) or "")
        return str(self.folder / value) if value and not os.path.isabs(value) else value


class Kubeconfig(Struct):
    server: str = ""
    cluster: Entry = field(default_factory=lambda: Entry({}, Path(".")))
    user: Entry = field(default_factory=lambda: Entry({}, Path(".")))


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


def load_config(settings: ClusterSettings) -> Kubeconfig:
    """The cluster and user of the chosen context, merged as client-go merges the files."""
    clusters: dict[str, Entry] = {}
    users: dict[str, Entry] = {}
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
            clusters.setdefault(name, Entry(body, folder))
        for name, body in _named(loaded, "users").items():
            users.setdefault(name, Entry(body, folder))
        for name, body in _named(loaded, "contexts").items():
            contexts.setdefault(name, body)
    config = Kubeconfig()
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
        config.user = users.get(user_name, Entry({}, config.cluster.folder))
    return config


# -- credentials -------------------------------------------------------------------------------

class Credential(Struct, frozen=True):
    token: str = ""
    cert_pem: bytes = b""
    key_pem: bytes = b""


def decode_b64(value: Any, what: str) -> bytes:
    try:
        return base64.b64decode(str(value), validate=True)
    except ValueError:
        raise KubeUnreachable(f"the kubeconfig's {what} is not base64") from None


def read_file(path: str, what: str) -> bytes:
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
                chunk = os.read(process.stdout.fileno(), READ_CHUNK)
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


def _run_exec(spec: dict[str, Any], server: str, cluster: Entry, budget: ReadBudget) -> Credential:
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
            or (base64.b64encode(read_file(cluster.path("certificate-authority"), "kubeconfig's certificate-authority")).decode()
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
    return Credential(token, cert.encode(), key.encode())


def _jwt_expired(token: str) -> bool:
    """Whether a JWT's `exp` has passed (client-go's oidc provider refreshes such a token)."""
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        return isinstance(claims, dict) and isinstance(claims.get("exp"), (int, float)) and claims["exp"] <= time.time()
    except (IndexError, ValueError):
        return False


def _auth_provider(provider: dict[str, Any]) -> Credential:
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
    return Credential(token)


_EXEC_CREDENTIALS: dict[tuple[str, str], Credential] = {}
_EXEC_LOCK = threading.Lock()


def _exec_credential(spec: dict[str, Any], server: str, cluster: Entry, budget: ReadBudget) -> Credential:
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


def user_credential(user: Entry, server: str, cluster: Entry, token: str, budget: ReadBudget) -> tuple[Credential, str]:
    """The user's credential (`token`, helm's --kube-token, replaces the user's own), and the
    Basic auth value (or "")."""
    values = user.values
    cert = (decode_b64(values["client-certificate-data"], "client-certificate-data") if values.get("client-certificate-data")
            else read_file(user.path("client-certificate"), "kubeconfig's client-certificate") if values.get("client-certificate") else b"")
    key = (decode_b64(values["client-key-data"], "client-key-data") if values.get("client-key-data")
           else read_file(user.path("client-key"), "kubeconfig's client-key") if values.get("client-key") else b"")
    if bool(cert) != bool(key):
        raise KubeUnreachable("the kubeconfig's user has a client certificate without its key, or a key without its certificate")
    if token:
        return Credential(token, cert, key), ""
    if isinstance(values.get("exec"), dict):
        found = _exec_credential(values["exec"], server, cluster, budget)
        return (found if found.cert_pem else Credential(found.token, cert, key)), ""
    if isinstance(values.get("auth-provider"), dict):
        return Credential(_auth_provider(values["auth-provider"]).token, cert, key), ""
    if values.get("token"):
        return Credential(str(values["token"]), cert, key), ""
    if values.get("tokenFile"):
        return Credential(read_file(user.path("tokenFile"), "kubeconfig's tokenFile").decode(errors="replace").strip(), cert, key), ""
    if values.get("username") or values.get("password"):
        pair = f"{values.get('username') or ''}:{values.get('password') or ''}".encode()
        return Credential(cert_pem=cert, key_pem=key), "Basic " + base64.b64encode(pair).decode()
    return Credential(cert_pem=cert, key_pem=key), ""
