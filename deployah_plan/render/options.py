"""What every writer is told besides the plan: one options object, whatever the format."""
from __future__ import annotations

from msgspec import Struct


class WriteOptions(Struct, frozen=True, kw_only=True):
    """`colour` and `width` only change text; `fold=False` repeats common changes under every
    object, and `suppress` lists the objects and hooks of those kinds without their field
    changes or content (text and markdown); `source_root` places findings in the repository
    (github, codequality);
    `full_values` shows every value and created object whole (text and markdown).
    Secret values are masked unless `show_secrets`."""

    show_secrets: bool = False
    colour: bool = False
    width: int | None = None  # wrap text at this width; None: never
    fold: bool = True
    suppress: frozenset[str] = frozenset()  # kinds whose field changes and content are not shown (--suppress)
    source_root: str = ""  # the chart's folder in the repository (--source-root)
    full_values: bool = False
