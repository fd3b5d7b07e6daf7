"""The cluster Helm would talk to, resolved from the environment as helm resolves it.

A plugin gets helm's global flags as environment variables (helm.sh/helm pkg/cli/environment.go
`EnvSettings.EnvVars`): `--kubeconfig` as KUBECONFIG, `--kube-context` as HELM_KUBECONTEXT,
`-n` as HELM_NAMESPACE, and `--kube-token`, `--kube-apiserver`, `--kube-ca-file`,
`--kube-insecure-skip-tls-verify`, `--kube-tls-server-name`, `--kube-as-user` and
`--kube-as-group` as HELM_KUBETOKEN, HELM_KUBEAPISERVER, HELM_KUBECAFILE,
HELM_KUBEINSECURE_SKIP_TLS_VERIFY, HELM_KUBETLS_SERVER_NAME, HELM_KUBEASUSER and
HELM_KUBEASGROUPS. helm binds them to client-go's ConfigFlags, so they override the kubeconfig.

Precedence (client-go's, which helm uses):
- kubeconfig files: KUBECONFIG, a list split on os.pathsep, missing files skipped; else
  ~/.kube/config. Merged file by file, the first file to name a context or set
  current-context wins.
- context: --kube-context / HELM_KUBECONTEXT, else the merged current-context.
- namespace: -n / HELM_NAMESPACE, else the context's namespace, else "default".

How long the cluster may take is the plan's own setting (`ReadBudget`): HELM_PLAN_REQUEST_TIMEOUT
bounds each request from its first byte sent to its last byte read, HELM_PLAN_CLUSTER_TIMEOUT
all of a command's cluster reading, counted from its first request. Both take seconds (`30`) or
a Go duration as helm's `--timeout` does (`90s`, `2m`, `1m30s`).
"""
from __future__ import annotations

import os
import re
import threading
import time
from typing import Any, Mapping

from msgspec import Struct, field

from deployah_plan.startup import lazy
from deployah_plan.errors import UsageError
from deployah_plan.sources.chart_path import pathlib_text

REQUEST_TIMEOUT = 60.0  # seconds for one request, whole answer included (a big LIST takes a while)
CLUSTER_TIMEOUT = 300.0  # seconds for all the cluster reading of one command


class KubeTarget(Struct, frozen=True):
    context: str
    namespace: str


class ReadBudget:
    """The time a command's cluster reading may take: `request` seconds for each request,
    `total` seconds for all of them, counted from the first request (rendering the chart
    before it does not count). One budget is shared by every read of a command; thread-safe.
    Two budgets are equal when their limits are: settings compare by what they say, not by how
    much of a budget has been spent."""

    def __init__(self, request: float = REQUEST_TIMEOUT, total: float = CLUSTER_TIMEOUT) -> None:
        self.request = request
        self.total = total
        self._started: float | None = None
        self._lock = threading.Lock()

    def remaining(self) -> float:
        """Seconds left of the total (it starts counting on the first call)."""
        now = time.monotonic()
        with self._lock:
            if self._started is None:
                self._started = now
            return self._started + self.total - now

    def __repr__(self) -> str:
        return f"ReadBudget(request={self.request:g}, total={self.total:g})"

    def __eq__(self, other: object) -> bool:
        return (self.request, self.total) == (other.request, other.total) if isinstance(other, ReadBudget) \
            else NotImplemented

    def __hash__(self) -> int:
        return hash((self.request, self.total))


_DURATION = lazy(r"(?:(\d+(?:\.\d*)?|\.\d+)(h|m|s|ms))+")
_UNIT = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


def parse_seconds(text: str, name: str) -> float:
    """Seconds from `30`, `2.5` or a Go duration (`90s`, `2m`, `1m30s`); above zero."""
    value = text.strip()
    try:
        seconds = float(value)
    except ValueError:
        if not _DURATION.fullmatch(value):
            raise UsageError(f"{name}={text!r} is not a duration",
                             f"give seconds ({name}=30) or a duration such as 90s or 2m") from None
        seconds = sum(float(n) * _UNIT[unit] for n, unit in re.findall(r"(\d+(?:\.\d*)?|\.\d+)(h|m|s|ms)", value))
    if not 0 < seconds < 10**7:
        raise UsageError(f"{name}={text!r} is not a positive duration", f"give seconds ({name}=30) or a duration such as 2m")
    return seconds


def read_budget(environ: Mapping[str, str]) -> ReadBudget:
    """HELM_PLAN_REQUEST_TIMEOUT and HELM_PLAN_CLUSTER_TIMEOUT, or the defaults."""
    request, total = (environ.get(name, "").strip() for name in ("HELM_PLAN_REQUEST_TIMEOUT", "HELM_PLAN_CLUSTER_TIMEOUT"))
    return ReadBudget(parse_seconds(request, "HELM_PLAN_REQUEST_TIMEOUT") if request else REQUEST_TIMEOUT,
                      parse_seconds(total, "HELM_PLAN_CLUSTER_TIMEOUT") if total else CLUSTER_TIMEOUT)


class ClusterSettings(Struct, frozen=True):
    """How to reach the cluster: the kubeconfig, plus helm's overrides of it.

    Empty strings and False mean "as the kubeconfig says". `context` is already resolved:
    it names the context to use, or is "" when no kubeconfig names one.
    """

    kubeconfig: tuple[str, ...]  # the files, in precedence order (only those that exist)
    context: str
    namespace: str
    token: str = ""  # HELM_KUBETOKEN: a bearer token that replaces the kubeconfig user's
    api_server: str = ""  # HELM_KUBEAPISERVER: replaces the cluster's server URL
    ca_file: str = ""  # HELM_KUBECAFILE
    insecure_skip_tls_verify: bool = False  # HELM_KUBEINSECURE_SKIP_TLS_VERIFY
    tls_server_name: str = ""  # HELM_KUBETLS_SERVER_NAME
    as_user: str = ""  # HELM_KUBEASUSER: sent as Impersonate-User
    as_groups: tuple[str, ...] = ()  # HELM_KUBEASGROUPS: one Impersonate-Group header each
    budget: ReadBudget = field(default_factory=ReadBudget)  # HELM_PLAN_*_TIMEOUT: each settings' own


def _kubeconfig_files(explicit: str | None, environ: Mapping[str, str] | None = None) -> list[str]:
    """The kubeconfig files, written as pathlib writes them (sources/chart_path.py: pathlib is
    not imported on a plan's path)."""
    env = (os.environ if environ is None else environ).get("KUBECONFIG")
    if explicit:
        return [pathlib_text(explicit)]
    if env:
        return [pathlib_text(p) for p in env.split(os.pathsep) if p]
    return [pathlib_text(os.path.join(os.path.expanduser("~"), ".kube", "config"))]


# A kubeconfig's text, parsed, by the text: `helm plan kube-upgrade` resolves the same files
# twice for every release it plans (pure-Python YAML, holding the GIL): over 200 releases on the
# 2-core bench machine, its Python process's CPU 2.1 s without this, 1.5 s with it.
_PARSED: dict[str, dict[str, Any]] = {}


def _load(path: str) -> dict[str, Any]:
    try:
        with open(path) as source:
            text = source.read()
    except OSError:
        return {}
    parsed = _PARSED.get(text)
    if parsed is None:
        parsed = _parse(text)
        if len(_PARSED) < 16:  # a few files, each parsed once; read, never changed
            _PARSED[text] = parsed
    return parsed


def _parse(text: str) -> dict[str, Any]:
    from deployah_plan.yamlkube import pyyaml  # only for a kubeconfig that exists

    yaml = pyyaml()

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def _current_context(configs: list[dict[str, Any]], flag: str | None, environ: Mapping[str, str]) -> str:
    return str(flag or environ.get("HELM_KUBECONTEXT") or next(
        (c["current-context"] for c in configs if c.get("current-context")), ""))


def _context_namespace(configs: list[dict[str, Any]], context: str) -> str:
    for config in configs:  # the first file that names the context wins, as in client-go
        entries = config.get("contexts")
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, dict) and entry.get("name") == context:
                body = entry.get("context")
                return str(body.get("namespace") or "") if isinstance(body, dict) else ""
    return ""


def resolve_target(namespace: str | None, context: str | None, kubeconfig: str | None) -> KubeTarget:
    configs = [_load(p) for p in _kubeconfig_files(kubeconfig)]
    current = _current_context(configs, context, os.environ)
    chosen = namespace or os.environ.get("HELM_NAMESPACE") or _context_namespace(configs, current)
    return KubeTarget(current, chosen or "default")


def helm_default_namespace(environ: Mapping[str, str] | None = None) -> str:
    """The namespace helm hands a plugin as HELM_NAMESPACE when no -n was given: the kube
    context's namespace, else "default" (pkg/cli/environment.go `Namespace()`, which asks
    client-go's loader; helm sets HELM_NAMESPACE for every plugin). An explicit -n of that same
    namespace cannot be told apart from it."""
    env = os.environ if environ is None else environ
    configs = [_load(p) for p in _kubeconfig_files(None, env) if os.path.isfile(p)]
    return _context_namespace(configs, _current_context(configs, None, env)) or "default"


def _env_bool(value: str) -> bool:
    """Go's strconv.ParseBool; anything else is false, as helm's envBoolOr(name, false)."""
    return value in ("1", "t", "T", "TRUE", "true", "True")


def _env_csv(value: str) -> tuple[str, ...]:
    """helm's envCSV: trim commas and spaces at both ends, then split on commas."""
    trimmed = value.strip(", ")
    return tuple(trimmed.split(",")) if trimmed else ()


def resolve_settings(environ: Mapping[str, str] | None = None, *, namespace: str | None = None,
                     context: str | None = None, kubeconfig: str | None = None) -> ClusterSettings:
    """The cluster settings helm would use, from the plugin's environment (default: this
    process's) and, when given, the same flags passed to the plugin directly."""
    env = os.environ if environ is None else environ
    files = [p for p in _kubeconfig_files(kubeconfig, env) if os.path.isfile(p)]
    configs = [_load(p) for p in files]
    current = _current_context(configs, context, env)
    chosen = namespace or env.get("HELM_NAMESPACE") or _context_namespace(configs, current)
    return ClusterSettings(
        kubeconfig=tuple(files), context=current, namespace=chosen or "default",
        token=env.get("HELM_KUBETOKEN", ""), api_server=env.get("HELM_KUBEAPISERVER", ""),
        ca_file=env.get("HELM_KUBECAFILE", ""),
        insecure_skip_tls_verify=_env_bool(env.get("HELM_KUBEINSECURE_SKIP_TLS_VERIFY", "")),
        tls_server_name=env.get("HELM_KUBETLS_SERVER_NAME", ""),
        as_user=env.get("HELM_KUBEASUSER", ""), as_groups=_env_csv(env.get("HELM_KUBEASGROUPS", "")),
        budget=read_budget(env),
    )
