"""The live state: objects read from the cluster with GET requests only, or from a saved file.

The drift and ownership checks need, for each kind a release touches and each namespace, every
live object: the ones the release declares, and the "unexpected" ones that carry the release's
`meta.helm.sh/release-name` annotation (an annotation cannot be selected on, so the server
cannot filter them). One LIST per kind and namespace serves both, so that is all we ask:

1. discovery, once and only for the group versions asked about (`/api/v1`,
   `/apis/<group>/<version>`), to map each kind to its resource name and scope. A group
   version or kind the server does not serve is reported, not guessed;
2. one LIST per (kind, namespace), all in parallel (pages of 500 follow `continue`, at most
   MAX_PAGES pages and MAX_OBJECTS objects: past that the kind and namespace is unreadable).

Never a write, never a dry run: the only verb sent is GET. Release Secrets (type
`helm.sh/release.v1`, the largest objects in a release namespace) are left out by a field
selector; no chart declares one.

What can go wrong is part of the result, not an exception, so a plan can still say what it
could not see:
- the cluster cannot be reached (connection refused, DNS, TLS, a connect timeout of a few
  seconds, a kubeconfig that names no cluster), or it refuses the credentials (401):
  `reachable` is False and `error` says why in one line; nothing is read;
- the reading passes its deadline (settings.budget: each request, and all of them), or a
  client's answers pass their size bound: `reachable` is False, as above;
- a kind or namespace cannot be read (403, not served, another error answer, more pages or
  objects than the bounds, an answer larger than kubeclient.MAX_ANSWER_BYTES, an answer with an
  item that is not a Kubernetes object: `live.object_problem`, the check a saved file's
  objects get too): an unreadable entry (a `LiveGap`, the plan's own record of it), and every
  other kind is still read.

The values (KindRef, LiveSnapshot) live in live_snapshot.py and the bounds in sources/live.py,
which both this module and the reader (sources/cluster_reader.py) import; neither imports the
other at module level.

Requests go through `kubeclient` (the kubeconfig's cluster and credentials, over urllib3's
connection pool) as plain REST calls. Discovery reads only the group versions asked about,
not /api and /apis and then every group version as a dynamic client's discovery does.
"""
from __future__ import annotations

import os
from typing import Any, Iterable

from deployah_plan.errors import LiveStateError
from deployah_plan.sources.files import FileReader
from deployah_plan.sources.kubeconfig import ClusterSettings
from deployah_plan.live_snapshot import KindRef, LiveSnapshot
from deployah_plan.sources.live import CONNECT_TIMEOUT, MAX_OBJECTS, MAX_PAGES, NOT_SERVED, PAGE_SIZE, object_problem
from deployah_plan.yamlkube import YAMLError, load_all

__all__ = ["CONNECT_TIMEOUT", "PAGE_SIZE", "MAX_PAGES", "MAX_OBJECTS", "NOT_SERVED", "read_live", "load_live_file"]


# -- the transport ------------------------------------------------------------------------------

def read_live(settings: ClusterSettings, wanted: Iterable[tuple[KindRef, str]], *,
              connect_timeout: float = CONNECT_TIMEOUT) -> LiveSnapshot:
    """The live objects of each (kind, namespace) wanted; see the module docstring."""
    # The client (and urllib3) is imported only when a cluster is read: most plans (offline,
    # saved, from files) never need it.
    from deployah_plan import progress
    from deployah_plan.sources import cluster_reader

    with progress.step("reading the live objects from the cluster"):
        return cluster_reader.read_live(settings, wanted, connect_timeout=connect_timeout)


_SAVE_HINT = "save the live state with `kubectl get KIND... -o yaml > FILE` (a List), or as YAML documents"


def _check_object(value: Any, where: str, origin: str) -> dict[str, Any]:
    """The object, or a LiveStateError saying what keeps it from being read: the check the
    cluster reader holds an API server's answer to (`object_problem`)."""
    problem = object_problem(value)
    if not problem and isinstance(value, dict):
        return value
    named = f" ({value['kind']})" if "metadata" in problem else ""  # a metadata problem comes after the kind's check
    raise LiveStateError(f"{origin}: {where}{named} {problem}", _SAVE_HINT)


def _list_items(document: dict[str, Any], line: int, origin: str) -> list[dict[str, Any]]:
    """The items of a `kind: List` (kubectl) or a `<Kind>List` (the API's own list, whose items
    carry no apiVersion or kind: they are the list's)."""
    items = document.get("items")
    if items is None:
        return []
    if not isinstance(items, list):
        raise LiveStateError(f"{origin}: the {document['kind']} at line {line} has items that are not a list", _SAVE_HINT)
    kind = str(document["kind"]).removesuffix("List")
    out = []
    for index, item in enumerate(items):
        if kind and isinstance(item, dict):
            item = {"apiVersion": document.get("apiVersion"), "kind": kind, **item}
        out.append(_check_object(item, f"item {index} of the {document['kind']} at line {line}", origin))
    return out


def load_live_file(path: str | os.PathLike[str], reader: FileReader | None = None) -> LiveSnapshot:
    """Live state saved earlier (`-` reads standard input), for plans made without a cluster;
    `reader` is the command's reader, when other inputs may have taken standard input."""
    origin = str(path)
    text = (reader or FileReader()).read(origin, "live state file", "check the path of the live state file",
                                     LiveStateError)
    objects: list[dict[str, Any]] = []
    try:
        for document in load_all(text):
            line = document.start_line + 1
            value = document.value
            if isinstance(value, dict) and str(value.get("kind", "")).endswith("List") and "items" in value:
                objects.extend(_list_items(value, line, origin))
            else:
                objects.append(_check_object(value, f"the document at line {line}", origin))
    except YAMLError as err:
        where = f" at line {err.line + 1}" if err.line >= 0 else ""
        raise LiveStateError(f"the live state file {origin} is not valid YAML{where}: {err}", _SAVE_HINT) from None
    return LiveSnapshot(True, tuple(objects))
