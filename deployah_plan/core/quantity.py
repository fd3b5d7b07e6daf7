"""Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource), compared by value.

`1000m` and `1`, `1Gi` and `1024Mi`, `0.5` and `500m` are one quantity written differently;
the API server stores the canonical form, so changing one spelling for another changes
nothing in the cluster. Exact arithmetic (Fraction), as the Go type is exact.
"""
from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": Fraction(1),
            "k": Fraction(10**3), "M": Fraction(10**6), "G": Fraction(10**9), "T": Fraction(10**12),
            "P": Fraction(10**15), "E": Fraction(10**18)}
# <signedNumber><suffix>, as resource.ParseQuantity reads it.
_QUANTITY = re.compile(r"([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?\Z")


def parse(value: Any) -> Fraction | None:
    """The exact value of a quantity (a string, or a number as YAML gives it), or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(value) if value == value and value not in (float("inf"), float("-inf")) else None
    if not isinstance(value, str):
        return None
    match = _QUANTITY.match(value.strip())
    if not match:
        return None
    number, suffix = Fraction(match[1]), match[2] or ""
    if suffix in _BINARY:
        return number * _BINARY[suffix]
    if suffix in _DECIMAL:
        return number * _DECIMAL[suffix]
    return number * Fraction(10) ** int(suffix[1:])


def equivalent(a: Any, b: Any) -> bool:
    """True when both are quantities of the same value."""
    x = parse(a)
    return x is not None and x == parse(b)
