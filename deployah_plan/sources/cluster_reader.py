"""Reading live objects through `kubeclient` (the kubeconfig's cluster and credentials, GET
only): discovery, then one LIST per kind and namespace, in parallel (see
`deployah_plan.sources.cluster`, whose `read_live` imports this module only when a cluster is
read; this module imports only the shared values of sources/live.py and live_snapshot.py, never sources/cluster.py)."""
from __future__ import annotations

import json
from typing import Any, Iterable, Mapping
from urllib.parse import quote

from msgspec import Struct

from deployah_plan.model import LiveGap
from deployah_plan.escape import one_line
from deployah_plan.sources.kube_auth import KubeUnreachable
from deployah_plan.sources.kubeclient import AnswerTooLarge, KubeClient
from deployah_plan.sources.kubeconfig import ClusterSettings
from deployah_plan.live_snapshot import KindRef, LiveSnapshot
from deployah_plan.sources.live import CONNECT_TIMEOUT, MAX_OBJECTS, MAX_PAGES, NOT_SERVED, PAGE_SIZE, object_problem
from deployah_plan.sources.workers import workers


_WORKERS = 16
_RELEASE_SECRETS = "type!=helm.sh/release.v1"  # Helm's own release records, never in a chart


class _Unreachable(Exception):
    """The server could not be asked (or refused who we are): the whole read stops."""


class _Answer(Exception):
    """The server answered with an error status for one request (status 0: an answer that was
    not read, too large)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message if status == 0 else f"the cluster answered {status}: {message}")
        self.status = status
        self.message = message


class _Transport:
    """GET, and only GET, through one KubeClient; counts the requests it sends."""

    def __init__(self, settings: ClusterSettings, connect_timeout: float) -> None:
        try:
            self.client = KubeClient(settings, connect_timeout)
        except KubeUnreachable as err:
            raise _Unreachable(str(err)) from None

    @property
    def host(self) -> str:
        return self.client.host

    @property
    def requests(self) -> int:
        return self.client.requests

    def get(self, path: str, query: Mapping[str, str] | None = None) -> dict[str, Any]:
        try:
            response = self.client.get(path, query)
        except KubeUnreachable as err:
            raise _Unreachable(str(err)) from None
        except AnswerTooLarge as err:
            raise _Answer(0, str(err)) from None
        if response.status == 401:
            raise _Unreachable(f"the cluster at {self.host} refused the credentials (401 Unauthorized)")
        if not 200 <= response.status < 300:
            raise _Answer(response.status, _status_message(response.body) or response.reason)
        try:
            document = json.loads(response.body)
        except ValueError:
            raise _Answer(response.status, "the answer is not JSON") from None
        if not isinstance(document, dict):
            raise _Answer(response.status, "the answer is not a JSON object")
        return document

    def close(self) -> None:
        self.client.close()


def _status_message(body: bytes) -> str:
    try:
        status = json.loads(body)
    except ValueError:
        return ""
    return one_line(str(status.get("message") or "")) if isinstance(status, dict) else ""


def _reason(answer: _Answer) -> str:
    if answer.status == 403:
        return f"forbidden: {answer.message}"
    if answer.status == 404:
        return NOT_SERVED
    if answer.status == 0:
        return answer.message
    return f"HTTP {answer.status}: {answer.message}"


# -- discovery and lists --------------------------------------------------------------------------

class _Resource(Struct, frozen=True):
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
    entries = document.get("resources")
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        name, kind = str(entry.get("name", "")), str(entry.get("kind", ""))
        if name and kind and "/" not in name:  # "deployments/status" and the like are subresources
            resources.setdefault(kind, _Resource(name, bool(entry.get("namespaced")), "list" in (entry.get("verbs") or [])))
    return resources


class _ListJob(Struct, frozen=True):
    ref: KindRef
    resource: _Resource
    namespace: str  # "" : cluster scope, or every namespace for a namespaced kind

    def path(self) -> str:
        where = f"/namespaces/{quote(self.namespace, safe='')}" if self.namespace and self.resource.namespaced else ""
        return f"{_group_version_path(self.ref.api_version)}{where}/{self.resource.plural}"

    def gap(self, reason: str) -> LiveGap:
        """This list not read, and why."""
        return LiveGap(self.ref.api_version, self.ref.kind, self.namespace, reason)


def _list(transport: _Transport, job: _ListJob) -> list[dict[str, Any]] | LiveGap:
    query = {"limit": str(PAGE_SIZE)}
    if (job.ref.api_version, job.ref.kind) == ("v1", "Secret"):
        query["fieldSelector"] = _RELEASE_SECRETS
    items: list[dict[str, Any]] = []
    for _ in range(MAX_PAGES):
        try:
            page = transport.get(job.path(), query)
        except _Answer as answer:
            return job.gap(_reason(answer))
        found = page.get("items")
        if found is not None and not isinstance(found, list):
            return job.gap("the answer's items are not a list")
        for item in found or []:
            # The kind asked for, whatever an item says: a LIST of ConfigMaps holds ConfigMaps.
            obj = {**item, "apiVersion": job.ref.api_version, "kind": job.ref.kind} if isinstance(item, dict) else item
            problem = object_problem(obj)
            if problem:  # one object not read would read as missing: the whole list is a gap
                return job.gap(f"item {len(items)} of the answer {problem}")
            items.append(obj)
        if len(items) > MAX_OBJECTS:
            return job.gap(f"more than {MAX_OBJECTS:,} objects, the most helm plan reads of one kind")
        metadata = page.get("metadata")
        token = metadata.get("continue") if isinstance(metadata, dict) else None
        if not token:
            return items
        query["continue"] = str(token)
    return job.gap(f"more than {MAX_PAGES} pages, the most helm plan follows of one list")


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
              connect_timeout: float = CONNECT_TIMEOUT) -> LiveSnapshot:
    """Every live object of each (kind, namespace) in `wanted`; "" as the namespace means the
    cluster scope for a cluster-scoped kind and every namespace for a namespaced one."""
    wanted = list(dict.fromkeys(wanted))
    try:
        transport = _Transport(settings, connect_timeout)
    except _Unreachable as err:
        return LiveSnapshot(False, error=str(err))
    try:
        with workers(_WORKERS, "helm-plan-live") as pool:
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
    return LiveSnapshot(True, tuple(objects), tuple(unreadable), transport.requests, namespaced=_scopes(wanted, found))


def _scopes(wanted: Iterable[tuple[KindRef, str]], found: Mapping[str, dict[str, _Resource] | str]) -> dict[KindRef, bool]:
    """Whether discovery says each kind asked for is namespaced, for the kinds it lists."""
    out: dict[KindRef, bool] = {}
    for ref, _ in wanted:
        resources = found[ref.api_version]
        if not isinstance(resources, str) and ref.kind in resources:
            out[ref] = resources[ref.kind].namespaced
    return out


# -- saved live state ---------------------------------------------------------------------------

