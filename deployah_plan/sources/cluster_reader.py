"""Reading live objects with the official Kubernetes client: discovery, then one LIST per
kind and namespace, in parallel, GET only (see `deployah_plan.sources.cluster`, whose
`read_live` imports this module only when a cluster is read; this module imports only the
shared values of sources/live.py, never sources/cluster.py)."""
from __future__ import annotations

import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Iterable, Mapping
from urllib.parse import quote, urlencode

import urllib3
from kubernetes.client import ApiClient, Configuration
from kubernetes.client.exceptions import ApiException
from kubernetes.config.config_exception import ConfigException
from kubernetes.config.kube_config import load_kube_config

from deployah_plan.model import LiveGap
from deployah_plan.sources.kubeconfig import ClusterSettings
from deployah_plan.sources.live import (
    CONNECT_TIMEOUT, NOT_SERVED, PAGE_SIZE, READ_TIMEOUT, KindRef, LiveSnapshot,
)


_WORKERS = 16
_RELEASE_SECRETS = "type!=helm.sh/release.v1"  # Helm's own release records, never in a chart


class _Unreachable(Exception):
    """The server could not be asked (or refused who we are): the whole read stops."""


class _Answer(Exception):
    """The server answered with an error status for one request."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _configuration(settings: ClusterSettings) -> Configuration:
    """The client configuration client-go would build: the kubeconfig, then helm's overrides."""
    configuration = Configuration()
    if settings.kubeconfig:
        try:
            load_kube_config(config_file=os.pathsep.join(settings.kubeconfig), context=settings.context or None,
                             client_configuration=configuration, persist_config=False)
        except (ConfigException, OSError, ValueError, KeyError, TypeError) as err:
            if not settings.api_server:
                raise _Unreachable(f"the kubeconfig cannot be used: {_one_line(str(err))}") from None
    elif not settings.api_server:
        raise _Unreachable("no kubeconfig found and no API server given")
    _override(configuration, settings)
    refresh = configuration.refresh_api_key_hook
    if settings.token:
        configuration.api_key = {"BearerToken": f"Bearer {settings.token}"}
        configuration.refresh_api_key_hook = None
    elif refresh is not None:
        # The kubeconfig loader refreshes a token (exec plugins, expiring tokens) before each
        # request by copying its whole cluster config back in, this hook included: put helm's
        # overrides and this hook back on top.
        def refresh_and_override(config: Any) -> None:
            refresh(config)
            _override(config, settings)
            config.refresh_api_key_hook = refresh_and_override

        configuration.refresh_api_key_hook = refresh_and_override
    # A failed connection is not retried (urllib3 would log each retry), and an answer is
    # never asked twice.
    configuration.retries = urllib3.Retry(total=0, redirect=0)
    return configuration


def _override(configuration: Any, settings: ClusterSettings) -> None:
    """helm's cluster flags, over what the kubeconfig says."""
    if settings.api_server:
        server = settings.api_server.rstrip("/")
        configuration.host = server if "://" in server else f"https://{server}"
    if settings.ca_file:
        configuration.ssl_ca_cert = settings.ca_file
    if settings.insecure_skip_tls_verify:
        configuration.verify_ssl = False
        if not settings.ca_file:  # client-go drops the kubeconfig's CA when told to skip checks
            configuration.ssl_ca_cert = None
    if settings.tls_server_name:
        configuration.tls_server_name = settings.tls_server_name


class _Transport:
    """GET, and only GET, through one ApiClient; counts the requests it sends."""

    def __init__(self, settings: ClusterSettings, connect_timeout: float, read_timeout: float) -> None:
        self.settings = settings
        self.configuration = _configuration(settings)
        self.client = ApiClient(self.configuration)
        self.client.user_agent = "helm-plan"
        self.timeout = (connect_timeout, read_timeout)
        self.requests = 0
        self._lock = threading.Lock()

    @property
    def host(self) -> str:
        return str(self.configuration.host)

    def get(self, path: str, query: Mapping[str, str] | None = None) -> dict[str, Any]:
        resource = path + (f"?{urlencode(query)}" if query else "")
        with self._lock:  # a token refresh rewrites the configuration the URL is built from
            method, url, headers, _, _ = self.client.param_serialize(
                "GET", resource, header_params={"Accept": "application/json"}, auth_settings=["BearerToken"])
            self.requests += 1
        sent = urllib3.HTTPHeaderDict(headers)
        if self.settings.as_user:
            sent["Impersonate-User"] = self.settings.as_user
        for group in self.settings.as_groups:
            sent.add("Impersonate-Group", group)  # one header per group, as client-go sends them
        try:
            response = self.client.call_api(method, url, header_params=sent, _request_timeout=self.timeout)
            body = response.read()
            response.response.release_conn()
        except (urllib3.exceptions.HTTPError, ApiException, OSError) as err:
            raise _Unreachable(f"cannot reach the cluster at {self.host}: {_why(err, self.timeout[0])}") from None
        if response.status == 401:
            raise _Unreachable(f"the cluster at {self.host} refused the credentials (401 Unauthorized)")
        if not 200 <= response.status < 300:
            raise _Answer(response.status, _status_message(body) or str(response.reason))
        try:
            document = json.loads(body)
        except ValueError:
            raise _Answer(response.status, "the answer is not JSON") from None
        if not isinstance(document, dict):
            raise _Answer(response.status, "the answer is not a JSON object")
        return document

    def close(self) -> None:
        self.client.close()


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _why(err: BaseException, connect_timeout: float) -> str:
    reason: BaseException = err
    if isinstance(err, urllib3.exceptions.MaxRetryError) and err.reason is not None:
        reason = err.reason
    if isinstance(reason, urllib3.exceptions.NameResolutionError):
        return "the host name does not resolve"
    if isinstance(reason, urllib3.exceptions.NewConnectionError):  # before its base, ConnectTimeoutError
        return _one_line(str(reason).rpartition("] ")[2]).lower() or "connection failed"
    if isinstance(reason, urllib3.exceptions.ConnectTimeoutError):
        return f"no connection within {connect_timeout:g}s"
    if isinstance(reason, urllib3.exceptions.ReadTimeoutError):
        return "no answer in time"
    if isinstance(reason, ApiException) and reason.status == 0:  # the client's wrapping of SSLError
        return "TLS failed: " + _one_line(str(reason.reason).removeprefix("SSLError"))
    if isinstance(reason, urllib3.exceptions.SSLError):
        return "TLS failed: " + _one_line(str(reason))
    return _one_line(str(reason)) or type(reason).__name__


def _status_message(body: bytes) -> str:
    try:
        status = json.loads(body)
    except ValueError:
        return ""
    return _one_line(str(status.get("message") or "")) if isinstance(status, dict) else ""


def _reason(answer: _Answer) -> str:
    if answer.status == 403:
        return f"forbidden: {answer.message}"
    if answer.status == 404:
        return NOT_SERVED
    return f"HTTP {answer.status}: {answer.message}"


# -- discovery and lists --------------------------------------------------------------------------

@dataclass(frozen=True)
class _Resource:
    plural: str
    namespaced: bool
    listable: bool


def _group_version_path(api_version: str) -> str:
    return f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"


def _discover(transport: _Transport, api_version: str) -> dict[str, _Resource] | str:
    """Kind → resource for one group version, or why it cannot be read."""
    try:
        document = transport.get(_group_version_path(api_version))
    except _Answer as answer:
        return _reason(answer)
    resources: dict[str, _Resource] = {}
    for entry in document.get("resources") or []:
        name, kind = str(entry.get("name", "")), str(entry.get("kind", ""))
        if name and kind and "/" not in name:  # "deployments/status" and the like are subresources
            resources.setdefault(kind, _Resource(name, bool(entry.get("namespaced")), "list" in (entry.get("verbs") or [])))
    return resources


@dataclass(frozen=True)
class _ListJob:
    ref: KindRef
    resource: _Resource
    namespace: str  # "" : cluster scope, or every namespace for a namespaced kind

    def path(self) -> str:
        where = f"/namespaces/{quote(self.namespace, safe='')}" if self.namespace and self.resource.namespaced else ""
        return f"{_group_version_path(self.ref.api_version)}{where}/{self.resource.plural}"


def _list(transport: _Transport, job: _ListJob) -> list[dict[str, Any]] | LiveGap:
    query = {"limit": str(PAGE_SIZE)}
    if (job.ref.api_version, job.ref.kind) == ("v1", "Secret"):
        query["fieldSelector"] = _RELEASE_SECRETS
    items: list[dict[str, Any]] = []
    while True:
        try:
            page = transport.get(job.path(), query)
        except _Answer as answer:
            return LiveGap(job.ref.api_version, job.ref.kind, job.namespace, _reason(answer))
        for item in page.get("items") or []:
            if isinstance(item, dict):
                items.append({"apiVersion": job.ref.api_version, "kind": job.ref.kind, **item})
        token = (page.get("metadata") or {}).get("continue")
        if not token:
            return items
        query["continue"] = str(token)


def _plan_lists(wanted: Iterable[tuple[KindRef, str]], found: Mapping[str, dict[str, _Resource] | str]
                ) -> tuple[list[_ListJob], list[LiveGap]]:
    """One LIST per (kind, namespace): a cluster-scoped kind is listed once, whatever namespace
    it was asked in."""
    jobs: dict[tuple[KindRef, str], _ListJob] = {}
    unreadable: dict[tuple[KindRef, str], LiveGap] = {}
    for ref, namespace in wanted:
        resources = found[ref.api_version]
        if isinstance(resources, str) or ref.kind not in resources:
            reason = resources if isinstance(resources, str) else NOT_SERVED
            unreadable.setdefault((ref, namespace), LiveGap(ref.api_version, ref.kind, namespace, reason))
            continue
        resource = resources[ref.kind]
        scope = namespace if resource.namespaced else ""
        if not resource.listable:
            unreadable.setdefault((ref, scope), LiveGap(ref.api_version, ref.kind, scope, "cannot be listed"))
            continue
        jobs.setdefault((ref, scope), _ListJob(ref, resource, scope))
    return list(jobs.values()), list(unreadable.values())


def read_live(settings: ClusterSettings, wanted: Iterable[tuple[KindRef, str]], *,
              connect_timeout: float = CONNECT_TIMEOUT, read_timeout: float = READ_TIMEOUT) -> LiveSnapshot:
    """Every live object of each (kind, namespace) in `wanted`; "" as the namespace means the
    cluster scope for a cluster-scoped kind and every namespace for a namespaced one."""
    wanted = list(dict.fromkeys(wanted))
    try:
        transport = _Transport(settings, connect_timeout, read_timeout)
    except _Unreachable as err:
        return LiveSnapshot(False, error=str(err))
    try:
        with ThreadPoolExecutor(max_workers=_WORKERS, thread_name_prefix="helm-plan-live") as pool:
            try:
                if not wanted:
                    transport.get("/version")  # nothing to read: only say whether the cluster answers
                group_versions = list(dict.fromkeys(ref.api_version for ref, _ in wanted))
                found = dict(zip(group_versions, pool.map(lambda gv: _discover(transport, gv), group_versions)))
                jobs, unreadable = _plan_lists(wanted, found)
                results = list(pool.map(lambda job: _list(transport, job), jobs))
            except (_Unreachable, _Answer) as err:
                return LiveSnapshot(False, requests=transport.requests, error=str(err))
    finally:
        transport.close()
    objects: list[dict[str, Any]] = []
    for result in results:
        if isinstance(result, LiveGap):
            unreadable.append(result)
        else:
            objects.extend(result)
    return LiveSnapshot(True, tuple(objects), tuple(unreadable), transport.requests)


# -- saved live state ---------------------------------------------------------------------------

