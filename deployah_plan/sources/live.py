"""The values of a live read, shared by the reader (sources/cluster_reader.py) and its callers.

A kind that cannot be read is a `LiveGap`, the plan model's own record of it: the reader
reports it and the plan carries it, so there is one type for the one concept.
"""
from __future__ import annotations

from typing import Any

from msgspec import Struct

from deployah_plan.model import LiveGap

__all__ = ["CONNECT_TIMEOUT", "PAGE_SIZE", "MAX_PAGES", "MAX_OBJECTS", "NOT_SERVED", "KindRef", "LiveSnapshot"]

CONNECT_TIMEOUT = 3.0  # seconds to open a connection: an unreachable cluster fails fast
PAGE_SIZE = 500  # objects per LIST page, as kubectl asks
MAX_PAGES = 200  # pages of one LIST followed at most (100,000 objects at PAGE_SIZE)
MAX_OBJECTS = 100_000  # objects of one LIST kept at most, whatever the server's page size
NOT_SERVED = "not served by the cluster"

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
    """

    reachable: bool
    objects: tuple[dict[str, Any], ...] = ()
    unreadable: tuple[LiveGap, ...] = ()
    requests: int = 0
    error: str = ""
