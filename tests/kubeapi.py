"""A small fake Kubernetes API server for end-to-end tests with real helm (stdlib only).

Real helm (3.19 and 4.3) talks to it through client-go over plain HTTP on 127.0.0.1, so tests
run `helm get all`, `helm history` and `helm upgrade --install --dry-run=server` against helm's
default Secret storage driver, with nothing patched. What it serves, and why:

- /version, and legacy discovery: /api, /api/v1, /apis, /apis/<group>/<version>. client-go
  asks /api and /apis for aggregated discovery first (`Accept: application/json;g=apidiscovery
  .k8s.io;v=v2;as=APIGroupDiscoveryList,...,application/json`); the answer here is always plain
  `application/json`, and client-go then reads the legacy documents, one per group version.
- /openapi/v2: 200 with an empty body, which is a valid, empty protobuf openapi_v2.Document.
  helm validates the rendered objects against it (unless --disable-openapi-validation), and
  a 404 there fails the dry run with "failed to download openapi"; an empty document holds no
  schema, so nothing is rejected. /openapi/v3 answers 404: client-go asks it whether the server
  does field validation, and falls back to v2 when it is missing. Given `openapi` (group
  version path, e.g. "apis/apps/v1", to its `components.schemas`), it serves the v3 index and
  one document per group version instead, as a real server does.
- objects, read-only, from an in-memory store: GET one object (a 404 Status when it is
  missing, which `lookup` turns into an empty map and helm's conflict check into "free"), and
  LIST with a labelSelector (`k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`;
  helm sends `name=<release>,owner=helm`), a fieldSelector on `metadata.name`,
  `metadata.namespace` or `type` (`=`, `==`, `!=`), and `limit`/`continue` pages. List items
  carry no apiVersion or kind, as a real API server sends them.
- `forbid(plural, namespace)` makes a resource answer 403 Forbidden, everywhere or in one
  namespace, as a missing RBAC permission does. `require_token(token)` makes every request
  without `Authorization: Bearer <token>` answer 401 Unauthorized.
- `require_client_cert(name)`: over TLS (`FakeKube(tls=make_ca(...))`, tests/tlsfiles.py),
  every request without a client certificate whose common name is `name` answers 401; the
  name of the certificate a request came with is kept in its `client` field.
  `require_authorization(value)` is `require_token` for any Authorization header (Basic).
- `Proxy`: an HTTP CONNECT proxy on loopback that tunnels to the server and records where
  it was asked to go (and the headers of each CONNECT), for kubeconfigs with `proxy-url`.
- `script(path, respond)`: a hostile or broken server for one path: `respond(handler,
  request)` writes the raw answer itself (slowly, endlessly, compressed, ...); the request is
  recorded as any other. `openapi_urls` replaces the v3 index's `serverRelativeURL` of a
  group version path.
- writes: none. POST, PUT, PATCH and DELETE answer 405; a plan must never write, and every
  request is kept in `requests` so a test can assert that (`writes()`).

client-go asks for protobuf or JSON (`Accept: application/vnd.kubernetes.protobuf,
application/json`); JSON answers are always accepted.

A Helm release is stored as Helm's secret driver stores it (`add_release`): Secret
`sh.helm.release.v1.<name>.v<rev>`, type `helm.sh/release.v1`, labels name, owner=helm, status
and version, and `data.release` = base64(gzip(json(record))) as Helm writes it, which the JSON
API serves base64-encoded once more, as it serves every Secret data value; or as its configmap
driver stores it (`add_release(record, "configmap")`): a ConfigMap of the same name and labels
whose `data.release` is Helm's value itself. A LIST answers in the order of the objects' keys
(namespace, then name), as etcd does, so `sh.helm.release.v1.web.v10` comes before `...v9`.
"""
from __future__ import annotations

import base64
import gzip
import json
import re
import select
import socket
import socketserver
import ssl
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Callable, Iterator
from urllib.parse import parse_qs, urlsplit

from tlsfiles import CertAuthority

# (groupVersion, plural, kind, namespaced): enough kinds for typical charts and Helm's kind order.
RESOURCES: list[tuple[str, str, str, bool]] = [
    ("v1", "namespaces", "Namespace", False), ("v1", "configmaps", "ConfigMap", True),
    ("v1", "secrets", "Secret", True), ("v1", "services", "Service", True), ("v1", "pods", "Pod", True),
    ("v1", "serviceaccounts", "ServiceAccount", True), ("v1", "persistentvolumeclaims", "PersistentVolumeClaim", True),
    ("v1", "persistentvolumes", "PersistentVolume", False), ("v1", "limitranges", "LimitRange", True),
    ("v1", "resourcequotas", "ResourceQuota", True), ("v1", "replicationcontrollers", "ReplicationController", True),
    ("apps/v1", "deployments", "Deployment", True), ("apps/v1", "statefulsets", "StatefulSet", True),
    ("apps/v1", "daemonsets", "DaemonSet", True), ("apps/v1", "replicasets", "ReplicaSet", True),
    ("batch/v1", "jobs", "Job", True), ("batch/v1", "cronjobs", "CronJob", True),
    ("autoscaling/v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", True),
    ("policy/v1", "poddisruptionbudgets", "PodDisruptionBudget", True),
    ("networking.k8s.io/v1", "ingresses", "Ingress", True), ("networking.k8s.io/v1", "networkpolicies", "NetworkPolicy", True),
    ("networking.k8s.io/v1", "ingressclasses", "IngressClass", False),
    ("rbac.authorization.k8s.io/v1", "roles", "Role", True), ("rbac.authorization.k8s.io/v1", "rolebindings", "RoleBinding", True),
    ("rbac.authorization.k8s.io/v1", "clusterroles", "ClusterRole", False),
    ("rbac.authorization.k8s.io/v1", "clusterrolebindings", "ClusterRoleBinding", False),
    ("apiextensions.k8s.io/v1", "customresourcedefinitions", "CustomResourceDefinition", False),
    ("storage.k8s.io/v1", "storageclasses", "StorageClass", False),
]
KUBE_VERSION = {"major": "1", "minor": "31", "gitVersion": "v1.31.0", "platform": "linux/amd64"}


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: tuple[tuple[str, str], ...] = ()  # as received, repeated headers kept
    client: str = ""  # the common name of the TLS client certificate, if one was sent

    def header(self, name: str) -> list[str]:
        """Every value of one header (case-insensitive), in the order received."""
        return [v for k, v in self.headers if k.lower() == name.lower()]


def _selector_terms(selector: str) -> Iterator[str]:
    """Split a label selector on the commas that are not inside `in (...)`."""
    yield from (t.strip() for t in re.split(r",(?![^()]*\))", selector) if t.strip())


def matches(labels: dict[str, str], selector: str) -> bool:
    for term in _selector_terms(selector):
        if m := re.fullmatch(r"(\S+)\s+(in|notin)\s+\((.*)\)", term):
            key, op, values = m.group(1), m.group(2), {v.strip() for v in m.group(3).split(",")}
            if (op == "in") != (key in labels and labels[key] in values):
                return False
        elif m := re.fullmatch(r"([^!=\s]+)\s*(!=|==|=)\s*(\S*)", term):
            key, op, value = m.groups()
            if (op == "!=") == (labels.get(key) == value):
                return False
        elif term.startswith("!"):
            if term[1:] in labels:
                return False
        elif term not in labels:
            return False
    return True


def field_matches(obj: dict[str, Any], selector: str) -> bool:
    fields = {"metadata.name": obj["metadata"].get("name", ""),
              "metadata.namespace": obj["metadata"].get("namespace", ""), "type": obj.get("type", "")}
    for term in (t.strip() for t in selector.split(",") if t.strip()):
        m = re.fullmatch(r"([^!=\s]+)\s*(!=|==|=)\s*(.*)", term)
        if m is None or (m.group(2) == "!=") == (fields.get(m.group(1), "") == m.group(3)):
            return False
    return True


def status(code: int, reason: str, message: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": reason, "code": code}


class FakeKube:
    """The store, the request log and the server thread. Use it as a context manager."""

    def __init__(self, namespace: str = "default", context: str = "fake",
                 custom: list[tuple[str, str, str, bool]] | None = None, tls: CertAuthority | None = None,
                 openapi: dict[str, dict[str, Any]] | None = None) -> None:
        """`custom`: more (groupVersion, plural, kind, namespaced) to serve, as installed CRDs do.
        `tls`: serve HTTPS with this CA's server certificate, and accept its client certificates.
        `openapi`: the OpenAPI v3 schemas to serve, per group version path."""
        self.openapi = openapi
        self.openapi_urls: dict[str, str] = {}
        self.scripts: dict[str, Callable[[BaseHTTPRequestHandler, Request], None]] = {}
        self.namespace, self.context = namespace, context
        self.resources = RESOURCES + list(custom or [])
        self.objects: dict[tuple[str, str, str, str], dict[str, Any]] = {}  # (gv, plural, ns, name)
        self.requests: list[Request] = []
        self.forbidden: set[tuple[str, str | None]] = set()  # (plural, namespace or None: everywhere)
        self.authorization: str | None = None
        self.client_cert: str | None = None
        self.tls = tls
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # -- the store --------------------------------------------------------------------------
    def put(self, obj: dict[str, Any]) -> None:
        """Store an object of a kind served here (namespaced ones default to `namespace`)."""
        gv, kind, meta = obj["apiVersion"], obj["kind"], obj["metadata"]
        (plural, namespaced), = [(p, n) for g, p, k, n in self.resources if (g, k) == (gv, kind)]
        meta.setdefault("uid", f"uid-{len(self.objects) + 1}")
        meta.setdefault("resourceVersion", "1")
        meta.setdefault("creationTimestamp", "2025-01-01T00:00:00Z")
        if namespaced:
            meta.setdefault("namespace", self.namespace)
        with self._lock:
            self.objects[(gv, plural, meta.get("namespace", "") if namespaced else "", meta["name"])] = obj

    def add_release(self, record: dict[str, Any], driver: str = "secret") -> str:
        """Store a release record (as `helm install -o json` prints it) the way Helm's secret
        driver (or, `driver="configmap"`, its configmap driver) does; returns the object's name.
        (pkg/storage/driver secrets.go, cfgmaps.go: the same name, labels and value; a Secret
        typed helm.sh/release.v1, whose data the JSON API serves base64-encoded once more.)"""
        name, revision, info = record["name"], int(record["version"]), record["info"]
        secret_name = f"sh.helm.release.v1.{name}.v{revision}"
        helm_value = base64.b64encode(gzip.compress(json.dumps(record).encode()))  # what Helm writes
        meta = {"name": secret_name, "namespace": record["namespace"], "labels": {
            "name": name, "owner": "helm", "status": info["status"], "version": str(revision)}}
        if driver == "configmap":
            self.put({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"release": helm_value.decode()}})
        else:
            self.put({"apiVersion": "v1", "kind": "Secret", "type": "helm.sh/release.v1", "metadata": meta,
                      "data": {"release": base64.b64encode(helm_value).decode()}})  # what the JSON API serves
        return secret_name

    def load_releases(self, path: Path, driver: str = "secret") -> list[str]:
        """Store every record of a JSON list written by scripts/release-fixture."""
        return [self.add_release(record, driver) for record in json.loads(path.read_text())]

    def forbid(self, plural: str, namespace: str | None = None) -> None:
        """Answer 403 Forbidden to every GET and LIST of this resource (e.g. "secrets"), or only
        to those in one namespace."""
        self.forbidden.add((plural, namespace))

    def require_token(self, token: str) -> None:
        """Answer 401 Unauthorized unless a request carries `Authorization: Bearer <token>`."""
        self.authorization = f"Bearer {token}"

    def require_authorization(self, value: str) -> None:
        """Answer 401 Unauthorized unless a request carries `Authorization: <value>`."""
        self.authorization = value

    def require_client_cert(self, name: str) -> None:
        """Answer 401 Unauthorized unless a request came with a client certificate for `name`."""
        self.client_cert = name

    def script(self, path: str, respond: Callable[[BaseHTTPRequestHandler, Request], None]) -> None:
        """Answer every request for `path` with `respond(handler, request)`, which writes the raw
        answer (status line, headers, body) to `handler.wfile` as it likes."""
        self.scripts[path] = respond

    def writes(self) -> list[Request]:
        """Requests that could change something: any non-GET, or any dryRun request."""
        return [r for r in self.requests if r.method not in ("GET", "HEAD") or "dryRun" in r.query]

    # -- the server -------------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._server is not None, "not started"
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self._server.server_address[1]}"

    def write_kubeconfig(self, path: Path, url: str | None = None) -> Path:
        """A kubeconfig whose current context points at this server (or at `url`)."""
        cluster = {"server": url or self.url, "insecure-skip-tls-verify": True}
        config = {
            "apiVersion": "v1", "kind": "Config", "current-context": self.context, "preferences": {},
            "clusters": [{"name": "fake", "cluster": cluster}],
            "users": [{"name": "fake", "user": {"token": "fake-token"}}],
            "contexts": [{"name": self.context, "context": {"cluster": "fake", "user": "fake", "namespace": self.namespace}}],
        }
        path.write_text(json.dumps(config, indent=1) + "\n")  # JSON is YAML
        return path

    def __enter__(self) -> "FakeKube":
        fake = self

        class Handler(_Handler):
            kube = fake

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if self.tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(str(self.tls.server.cert), str(self.tls.server.key))
            context.load_verify_locations(cafile=str(self.tls.ca))
            context.verify_mode = ssl.CERT_OPTIONAL  # a client certificate is one way to log in
            self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    # -- answering ----------------------------------------------------------------------------
    def answer(self, method: str, path: str, query: dict[str, list[str]],
               headers: tuple[tuple[str, str], ...] = (), client: str = "") -> tuple[int, dict[str, Any] | bytes]:
        """The status code and body (a JSON document, or raw bytes) for one request."""
        request = Request(method, path, query, headers, client)
        with self._lock:
            self.requests.append(request)
        if self.authorization is not None and request.header("Authorization") != [self.authorization]:
            return 401, status(401, "Unauthorized", "Unauthorized")
        if self.client_cert is not None and client != self.client_cert:
            return 401, status(401, "Unauthorized", "Unauthorized")
        if method != "GET":
            return 405, status(405, "MethodNotAllowed", f"this fake cluster is read-only: {method} {path}")
        if path == "/openapi/v2":
            return 200, b""  # an empty protobuf openapi_v2.Document: no schema, so no validation errors
        if path == "/version":
            return 200, KUBE_VERSION
        if path.startswith("/openapi/v3") and self.openapi is not None:
            if path == "/openapi/v3":
                return 200, {"paths": {gv: {"serverRelativeURL": self.openapi_urls.get(gv, f"/openapi/v3/{gv}?hash=0")}
                                       for gv in self.openapi}}
            schemas = self.openapi.get(path.removeprefix("/openapi/v3/"))
            if schemas is None:
                return 404, status(404, "NotFound", "the server could not find the requested resource")
            return 200, {"openapi": "3.0.0", "components": {"schemas": schemas}}
        if path == "/api":
            return 200, {"kind": "APIVersions", "versions": ["v1"],
                         "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]}
        if path == "/apis":
            versions = [gv.split("/") for gv in sorted({gv for gv, *_ in self.resources if "/" in gv})]
            return 200, {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
                {"name": g, "versions": [{"groupVersion": f"{g}/{v}", "version": v}],
                 "preferredVersion": {"groupVersion": f"{g}/{v}", "version": v}} for g, v in versions]}
        parts = path.strip("/").split("/")
        gv, rest = ("v1", parts[2:]) if parts[:2] == ["api", "v1"] else ("/".join(parts[1:3]), parts[3:])
        if parts[0] not in ("api", "apis") or not any(g == gv for g, *_ in self.resources):
            return 404, status(404, "NotFound", "the server could not find the requested resource")
        if not rest:
            return 200, {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": [
                {"name": p, "singularName": k.lower(), "namespaced": n, "kind": k,
                 "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]}
                for g, p, k, n in self.resources if g == gv]}
        namespace = ""
        if rest[0] == "namespaces" and len(rest) >= 3:
            namespace, rest = rest[1], rest[2:]
        plural, name = rest[0], "/".join(rest[1:])
        kinds = [k for g, p, k, _ in self.resources if (g, p) == (gv, plural)]
        if not kinds or "/" in name:  # unknown resources and subresources
            return 404, status(404, "NotFound", "the server could not find the requested resource")
        if (plural, None) in self.forbidden or (plural, namespace) in self.forbidden:
            what = f'{plural} "{name}"' if name else plural
            where = f'in the namespace "{namespace}"' if namespace else "at the cluster scope"
            return 403, status(403, "Forbidden", f'{what} is forbidden: User "fake" cannot {"get" if name else "list"} '
                               f'resource "{plural}" in API group "{gv.rpartition("/")[0]}" {where}')
        with self._lock:
            if name:
                obj = self.objects.get((gv, plural, namespace, name))
                if obj is None:
                    return 404, {**status(404, "NotFound", f'{plural} "{name}" not found'),
                                 "details": {"name": name, "group": gv.rpartition("/")[0], "kind": plural}}
                return 200, obj
            selector, fields = query.get("labelSelector", [""])[0], query.get("fieldSelector", [""])[0]
            items = [{k: v for k, v in o.items() if k not in ("apiVersion", "kind")}
                     for (g, p, ns, _), o in sorted(self.objects.items())
                     if (g, p) == (gv, plural) and (not namespace or ns == namespace)
                     and matches(o["metadata"].get("labels") or {}, selector) and field_matches(o, fields)]
        start = int(query.get("continue", ["0"])[0])
        limit = int(query.get("limit", ["0"])[0]) or len(items)
        meta: dict[str, Any] = {"resourceVersion": "1"}
        if start + limit < len(items):
            meta["continue"] = str(start + limit)
        return 200, {"kind": f"{kinds[0]}List", "apiVersion": gv, "metadata": meta, "items": items[start:start + limit]}


class _Handler(BaseHTTPRequestHandler):
    kube: FakeKube
    protocol_version = "HTTP/1.1"

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        url = urlsplit(self.path)
        client = ""
        if isinstance(self.connection, ssl.SSLSocket):
            peer = self.connection.getpeercert() or {}
            client = next((v for rdn in peer.get("subject", ()) for k, v in rdn if k == "commonName"), "")
        respond = self.kube.scripts.get(url.path)
        if respond is not None:
            request = Request(self.command, url.path, parse_qs(url.query), tuple(self.headers.items()), client)
            with self.kube._lock:
                self.kube.requests.append(request)
            respond(self, request)
            self.close_connection = True
            return
        code, body = self.kube.answer(self.command, url.path, parse_qs(url.query), tuple(self.headers.items()), client)
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/octet-stream" if isinstance(body, bytes) else "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the tests read `requests`
        pass


class Proxy:
    """An HTTP CONNECT proxy on loopback (the kind `proxy-url` names): it tunnels each CONNECT
    to its target and keeps the targets in `tunnels`. Use it as a context manager."""

    def __init__(self) -> None:
        self.tunnels: list[str] = []
        self.headers: list[dict[str, str]] = []  # of each CONNECT, names in lower case
        self._server: socketserver.ThreadingTCPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None, "not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> "Proxy":
        proxy = self

        class Tunnel(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                line = self.rfile.readline().decode("latin-1")
                headers = {}
                while (header := self.rfile.readline()) not in (b"\r\n", b"\n", b""):
                    name, _, value = header.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                proxy.headers.append(headers)
                method, target, _ = (line.split() + ["", "", ""])[:3]
                if method != "CONNECT":
                    self.wfile.write(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
                    return
                proxy.tunnels.append(target)
                host, _, port = target.rpartition(":")
                with socket.create_connection((host, int(port))) as upstream:
                    self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    self.wfile.flush()
                    ends = [self.connection, upstream]
                    while True:
                        ready, _, _ = select.select(ends, [], [], 5)
                        if not ready:
                            return
                        for end in ready:
                            data = end.recv(65536)
                            if not data:
                                return
                            (upstream if end is self.connection else self.connection).sendall(data)

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Tunnel)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
