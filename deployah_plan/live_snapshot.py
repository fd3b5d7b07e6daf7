"""What a live read found, as a source hands it to the core (sources/cluster.py reads it from
the cluster or a saved file; core/planner.py plans with it), the way `manifests.Rendered` is a
render handed over: the core imports this record, never the source that made it.

A kind that cannot be read is a `LiveGap`, the plan model's own record of it: the reader
reports it and the plan carries it, so there is one type for the one concept.
"""
from __future__ import annotations

from typing import Any, Mapping

from msgspec import Struct, field

from deployah_plan.model import LiveGap

__all__ = ["KindRef", "LiveSnapshot"]


class KindRef(Struct, frozen=True):
    """A kind to read, as a manifest names it (`apps/v1`, `Deployment`)."""

    api_version: str
    kind: str


class LiveSnapshot(Struct, frozen=True):
    """What was read. When `reachable` is False nothing was read and `error` says why.

    `objects` are whole objects as the API returns them (JSON), each with its apiVersion and
    kind set (a LIST leaves them out of its items), in the order the kinds were asked for and
    then the server's order. A kind missing from `objects` and absent from `unreadable` was
    read and has no object. `requests` counts every HTTP request sent, discovery included.
    `namespaced`: for each kind asked for that the cluster's discovery lists, whether it serves
    it namespaced; the scope Helm's resource builder gives an object (a saved file has none).
    """

    reachable: bool
    objects: tuple[dict[str, Any], ...] = ()
    unreadable: tuple[LiveGap, ...] = ()
    requests: int = 0
    error: str = ""
    namespaced: Mapping[KindRef, bool] = field(default_factory=dict)
