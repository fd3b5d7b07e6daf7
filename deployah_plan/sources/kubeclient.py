"""A GET-only Kubernetes API client: the kubeconfig's cluster and user, as client-go reads them.

Why not the official `kubernetes` package: a plan sends GET requests and nothing else, and
that package with its dependencies is 126 MB on disk and a third of the command's start-up
time. This module is the part of it a plan uses, over `urllib3` (one connection pool, TLS,
proxies), which the official client uses too. Why not the official client: docs/commands/upgrade.md.

The kubeconfig's cluster and credentials are read as client-go reads them by
sources/kube_auth.py.

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

import socket
import ssl
import threading
import time
import warnings
import zlib
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import unquote, urlencode, urlsplit
from urllib.request import getproxies, proxy_bypass

from msgspec import Struct
import urllib3

from deployah_plan.escape import one_line
from deployah_plan.redact import without_userinfo
from deployah_plan.sources.kube_auth import (
    READ_CHUNK, Credential, Entry, Kubeconfig, KubeUnreachable, decode_b64, load_config, read_file, user_credential,
)
from deployah_plan.sources.kubeconfig import ClusterSettings
from deployah_plan.sources.workdir import private_folder

__all__ = ["AnswerTooLarge", "Response", "KubeClient", "MAX_ANSWER_BYTES", "MAX_READ_BYTES", "MAX_RETRIES",
           "MAX_RETRY_AFTER"]

MAX_ANSWER_BYTES = 64 * 2**20  # one answer, decoded: a page of 500 large objects is a few MB
MAX_READ_BYTES = 512 * 2**20  # every answer of one client (one read of the live state or API facts)
MAX_RETRIES = 3  # a 429 or 503 with Retry-After is asked again this many times at most
MAX_RETRY_AFTER = 10.0  # seconds: a longer Retry-After is waited this long


class AnswerTooLarge(Exception):
    """One answer was larger than MAX_ANSWER_BYTES (decoded): that answer is not read, others
    may be. The message is one line."""


class Response(Struct, frozen=True):
    status: int
    reason: str
    body: bytes
    retry_after: str = ""  # the Retry-After header, as sent


# -- TLS and the pool ----------------------------------------------------------------------------

def _tls_context(cluster: Entry, settings: ClusterSettings, credential: Credential) -> ssl.SSLContext:
    values = cluster.values
    if settings.ca_file or settings.insecure_skip_tls_verify:
        # helm's --kube-ca-file and --kube-insecure-skip-tls-verify replace the kubeconfig's CA
        # and its insecure flag together (client-go's DirectClientConfig.getCluster).
        insecure = settings.insecure_skip_tls_verify
        ca = read_file(settings.ca_file, "--kube-ca-file (HELM_KUBECAFILE)") if settings.ca_file else b""
    else:
        insecure = bool(values.get("insecure-skip-tls-verify"))
        ca = (decode_b64(values["certificate-authority-data"], "certificate-authority-data") if values.get("certificate-authority-data")
              else read_file(cluster.path("certificate-authority"), "kubeconfig's certificate-authority")
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
        with private_folder("helm-plan-tls-") as folder:
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
    for chunk in answer.stream(READ_CHUNK, decode_content=False):
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


def _proxy_for(server: str, cluster: Entry) -> str:
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
            config = load_config(settings)
        except KubeUnreachable:
            if not settings.api_server:
                raise
            config = Kubeconfig()  # helm's --kube-apiserver works without a usable kubeconfig
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
        credential, basic = user_credential(config.user, self.host, config.cluster, settings.token, self.budget)
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
                # The read timeout is `seconds` too: it may fire a moment before the watch does.
                if watch.expired or isinstance(_reason(err), urllib3.exceptions.ReadTimeoutError):
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
        reason = _reason(err)
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


def _reason(err: BaseException) -> BaseException:
    """What failed under urllib3's retry wrapper."""
    if isinstance(err, urllib3.exceptions.MaxRetryError) and err.reason is not None:
        return err.reason
    return err


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
