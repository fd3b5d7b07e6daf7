"""The lines of "what matters": what each is about, said before the details (render/report.py
finds them, render/words says them)."""
from __future__ import annotations

import enum
from typing import Any

from msgspec import Struct

from deployah_plan.model import ResourceRef


class Notable(enum.Enum):
    """What a line of "what matters" is about, in the order they are said."""

    FAILURE = "failure"
    DATA_LOSS = "data-loss"
    DELETE = "delete"
    IMAGE = "image"
    RBAC = "rbac"
    WEBHOOK = "webhook"
    SECRET = "secret"


class Highlight(Struct, frozen=True):
    """One line of "what matters", said before the details. `resources` are the objects it is
    about; for an image, `before` and `after` are the image (before None: a new container),
    and `detail` names each object's container; for RBAC, webhooks and Secrets, `detail` names
    what changed (top-level fields, or a Secret's keys as "key (added)"); for a failure or a
    data loss, `detail` is the warning's message."""

    what: Notable
    sign: str
    resources: tuple[ResourceRef, ...] = ()
    before: Any = None
    after: Any = None
    detail: tuple[str, ...] = ()


__all__ = ["Highlight", "Notable"]
