"""Field-level differences between two parsed objects, as RFC 6901 JSON Pointers.

Values compare as Kubernetes compares them after parsing: key order and encoding never
matter; a boolean is never equal to a number; an integer equals the same float.
"""
from __future__ import annotations

import math
from typing import Any

from deployah_plan.model import FieldChange, FieldOp

_NUMBERS = (int, float)


def escape(token: str) -> str:
    """One reference token of a JSON Pointer (RFC 6901 section 3)."""
    return token.replace("~", "~0").replace("/", "~1")


def same(a: Any, b: Any) -> bool:
    """Deep equality with JSON semantics (True is not 1; 1 is 1.0; NaN is NaN)."""
    if a is b:
        return True
    ta, tb = type(a), type(b)
    if ta is dict:
        if tb is not dict or len(a) != len(b):
            return False
        for key, value in a.items():
            if key not in b or not same(value, b[key]):
                return False
        return True
    if ta is list:
        return tb is list and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if ta is bool or tb is bool:
        return ta is tb and a == b
    if ta in _NUMBERS and tb in _NUMBERS:
        return a == b or (ta is float and tb is float and math.isnan(a) and math.isnan(b))
    return ta is tb and a == b


def diff(before: Any, after: Any, path: str = "") -> list[FieldChange]:
    """The changes that turn `before` into `after`, in document order."""
    out: list[FieldChange] = []
    _walk(before, after, path, out)
    return out


def _walk(a: Any, b: Any, path: str, out: list[FieldChange]) -> None:
    ta, tb = type(a), type(b)
    if ta is dict and tb is dict:
        for key, value in a.items():
            child = f"{path}/{escape(key)}"
            if key in b:
                _walk(value, b[key], child, out)
            else:
                out.append(FieldChange(child, FieldOp.REMOVE, value, None))
        for key, value in b.items():
            if key not in a:
                out.append(FieldChange(f"{path}/{escape(key)}", FieldOp.ADD, None, value))
    elif ta is list and tb is list:
        common = min(len(a), len(b))
        for i in range(common):
            _walk(a[i], b[i], f"{path}/{i}", out)
        for i in range(common, len(b)):
            out.append(FieldChange(f"{path}/{i}", FieldOp.ADD, None, b[i]))
        for i in range(len(a) - 1, common - 1, -1):
            out.append(FieldChange(f"{path}/{i}", FieldOp.REMOVE, a[i], None))
    elif not same(a, b):
        out.append(FieldChange(path, FieldOp.REPLACE, a, b))
