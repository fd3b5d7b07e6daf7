"""Where a CustomResourceDefinition's schema sits in its JSON Pointers: a schema's `description`
keyword, one of its properties, and the field changes a CRD's summary already says. The core
marks and summarizes CRD changes by these (core/crd.py); the writers leave out what the summary
says by the same rule."""
from __future__ import annotations

from deployah_plan.model import FieldChange, FieldOp
from deployah_plan.pointer import tokens

# Schema keywords whose value is a map of names to schemas: the token after them is a name.
_NAMED = frozenset({"properties", "patternProperties", "definitions", "dependencies"})


def _schema_start(parts: list[str]) -> int:
    """Where the schema begins in a CRD pointer's tokens (after `openAPIV3Schema`), or -1."""
    for n, token in enumerate(parts):
        if token == "openAPIV3Schema" and n >= 1 and parts[n - 1] in ("schema", "validation"):
            return n + 1
    return -1


def is_description(pointer: str) -> bool:
    """The pointer names a schema's `description` keyword (not a property called description)."""
    parts = tokens(pointer)
    start = _schema_start(parts)
    if start < 0 or not parts or parts[-1] != "description" or len(parts) == start:
        return False
    expect_name = False  # walk keyword / name alternation from the schema's root
    for token in parts[start:-1]:
        expect_name = not expect_name and token in _NAMED
    return not expect_name


def is_property(pointer: str) -> bool:
    """The pointer names one property of a schema (`.../properties/NAME`), not a keyword."""
    parts = tokens(pointer)
    start = _schema_start(parts)
    if start < 0 or len(parts) <= start:
        return False
    expect_name = False
    for token in parts[start:-1]:
        expect_name = not expect_name and token in _NAMED
    return expect_name and parts[-2] == "properties"


def said_by_summary(change: FieldChange) -> bool:
    """A CRD field change its summary already says: schema prose (counted), or a property
    added or removed whole (named)."""
    return change.crd_description or (change.op in (FieldOp.ADD, FieldOp.REMOVE) and is_property(change.path))


__all__ = ["is_description", "is_property", "said_by_summary"]
