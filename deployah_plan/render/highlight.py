"""The lines of "what matters": what each is about, said before the details (render/report.py
finds them, render/words says them)."""
from __future__ import annotations

import enum
from typing import Any

from msgspec import Struct

from deployah_plan.model import ResourceRef, Warning


class Notable(enum.Enum):
    """What a line of "what matters" is about, in the order they are said."""

    FAILURE = "failure"
    DATA_LOSS = "data-loss"
    WARNING = "warning"  # a warning that asks the reviewer to act (severity warning)
    RISK = "risk"  # running things at risk (an impact marked `!`)
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
    data loss or a warning, `detail` is the line said for its group of warnings
    (render/words/warning.grouped) and then, for a group of several, what each is about, and
    `warnings` are the warnings it says; for a risk, `detail` is its impact kind's value and
    `resources` the objects at risk."""

    what: Notable
    sign: str
    resources: tuple[ResourceRef, ...] = ()
    before: Any = None
    after: Any = None
    detail: tuple[str, ...] = ()
    warnings: tuple[Warning, ...] = ()


__all__ = ["Highlight", "Notable"]
