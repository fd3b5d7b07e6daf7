"""What the cluster's API server serves: its version, the kinds of the group versions a plan
uses, their OpenAPI v3 schemas, and whether the release namespace exists. GET only.

Requests, all in parallel after the first:
1. `/version`;
2. discovery of each group version asked about (`/api/v1`, `/apis/<group>/<version>`): 404
   means the server does not serve it;
3. `/openapi/v3` (the index), then the document of each served group version it lists
   (`/openapi/v3/apis/apps/v1?hash=...`); a server without it leaves the schemas out. The
   index's `serverRelativeURL` is resolved as a URL reference against the server (RFC 3986,
   urljoin), and one that resolves to another origin (`//host/...`, `https://host/...`) is
   not asked: the credentials go only to the kubeconfig's server;
4. `/api/v1/namespaces/<namespace>`: 200 exists, 404 does not, anything else unknown.
An unreachable cluster is a result (`reachable` False), not an exception.
"""
from __future__ import annotations

from typing import Any, Iterable
from urllib.parse import parse_qsl, quote, urljoin, urlsplit

from msgspec import Struct, field

from deployah_plan import progress
from deployah_plan.sources.cluster import CONNECT_TIMEOUT
from deployah_plan.sources.cluster_reader import _Answer, _group_version_path, _Transport, _Unreachable
from deployah_plan.sources.kubeconfig import ClusterSettings
from deployah_plan.sources.workers import Workers, workers


class ApiAnswers(Struct, frozen=True):
    reachable: bool
    error: str = ""
    version: str = ""  # "1.31", from /version
    # "apiVersion Kind" of the group versions asked about; None when discovery of one of them
    # failed for another reason than 404 (a 403, or an aggregated API that is down): then which
    # kinds are served is not known, and the version's table answers instead.
    served: frozenset[str] | None = frozenset()
    # the OpenAPI v3 schemas of the served group versions, merged (`components.schemas`);
    # release/api_target.py compacts them for the core
    schemas: dict[str, Any] = field(default_factory=dict)
    openapi: bool = False  # the server's /openapi/v3 was read
    namespace_exists: bool | None = None
    requests: int = 0


def _version(document: dict[str, Any]) -> str:
    major = str(document.get("major", "")).rstrip("+")
    minor = str(document.get("minor", "")).rstrip("+")
    if major and minor:
        return f"{major}.{minor}"
    return str(document.get("gitVersion", "")).lstrip("v")


def _kinds(transport: _Transport, api_version: str) -> list[str] | None:
    """The kinds one group version serves: none when it answers 404, None (not known) when it
    answers anything else."""
    try:
        document = transport.get(_group_version_path(api_version))
    except _Answer as answer:
        return [] if answer.status == 404 else None
    entries = document.get("resources")
    return [f"{api_version} {entry.get('kind')}" for entry in (entries if isinstance(entries, list) else [])
            if isinstance(entry, dict) and entry.get("kind") and "/" not in str(entry.get("name", ""))]


def _namespace(transport: _Transport, namespace: str) -> bool | None:
    try:
        transport.get(f"/api/v1/namespaces/{quote(namespace, safe='')}")
    except _Answer as answer:
        return False if answer.status == 404 else None
    return True


def _same_origin(server: str, reference: str) -> tuple[str, dict[str, str]] | None:
    """The path and query a serverRelativeURL names on `server`, resolved as a URL reference;
    None when it resolves to another scheme, host or port (it is then not asked)."""
    base, target = urlsplit(server + "/"), urlsplit(urljoin(server + "/", reference))
    try:
        same = (target.scheme, target.hostname, target.port) == (base.scheme, base.hostname, base.port)
    except ValueError:  # a port that is not a number
        return None
    if not same or target.username is not None or not target.path.startswith("/"):
        return None
    prefix = base.path.rstrip("/")  # the server's own path prefix, which the client adds again
    path = target.path[len(prefix):] if prefix and target.path.startswith(prefix + "/") else target.path
    return path, dict(parse_qsl(target.query))


def _schemas(transport: _Transport, pool: Workers, api_versions: list[str]) -> tuple[bool, dict[str, Any]]:
    try:
        index = transport.get("/openapi/v3")
    except _Answer:
        return False, {}
    paths = index.get("paths")
    urls = []
    for api_version in api_versions:
        entry = paths.get(_group_version_path(api_version).lstrip("/")) if isinstance(paths, dict) else None
        if isinstance(entry, dict) and isinstance(entry.get("serverRelativeURL"), str):
            target = _same_origin(transport.host, entry["serverRelativeURL"])
            if target is not None:
                urls.append(target)

    def fetch(target: tuple[str, dict[str, str]]) -> dict[str, Any]:
        try:
            document = transport.get(*target)
        except _Answer:
            return {}
        components = document.get("components")
        schemas = components.get("schemas") if isinstance(components, dict) else None
        return schemas if isinstance(schemas, dict) else {}

    merged: dict[str, Any] = {}
    for schemas in pool.map(fetch, urls):
        merged.update(schemas)
    return True, merged


def read_api(settings: ClusterSettings, api_versions: Iterable[str], namespace: str, *,
             connect_timeout: float = CONNECT_TIMEOUT) -> ApiAnswers:
    """What the API server a plan judges its objects against answers."""
    with progress.step("reading what the cluster's API server serves"):
        return _read_api(settings, api_versions, namespace, connect_timeout)


def _read_api(settings: ClusterSettings, api_versions: Iterable[str], namespace: str,
              connect_timeout: float) -> ApiAnswers:
    asked = list(dict.fromkeys(v for v in api_versions if v))
    try:
        transport = _Transport(settings, connect_timeout)
    except _Unreachable as err:
        return ApiAnswers(False, str(err))
    try:
        with workers(8, "helm-plan-api") as pool:
            try:
                version = _version(transport.get("/version"))
                kinds_call = [pool.submit(_kinds, transport, v) for v in asked]
                namespace_call = pool.submit(_namespace, transport, namespace)
                answers = [call.result() for call in kinds_call]
                found = frozenset(k for kinds in answers if kinds is not None for k in kinds)
                served = None if any(kinds is None for kinds in answers) else found
                served_versions = [v for v in asked if any(k.startswith(f"{v} ") for k in found)]
                openapi, schemas = _schemas(transport, pool, served_versions)
                namespace_exists = namespace_call.result()
            except _Unreachable as err:
                return ApiAnswers(False, str(err), requests=transport.requests)
            except _Answer as answer:
                return ApiAnswers(False, str(answer), requests=transport.requests)
    finally:
        transport.close()
    return ApiAnswers(True, "", version, served, schemas, openapi, namespace_exists, transport.requests)
