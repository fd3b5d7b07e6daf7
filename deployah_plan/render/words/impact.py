"""What the deploy does to running things, in words: each impact's line and the lines under it.

Every writer says an impact with `message` and `details`, and the JSON plan's `message` and
`details` are the same text.
"""
from __future__ import annotations

from deployah_plan.model import Impact


def message(impact: Impact) -> str:
    """The impact in one line."""
    return impact.message


def details(impact: Impact) -> tuple[str, ...]:
    """The lines under it: what each consumer sees, the strategy."""
    return impact.details
