"""Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource), compared by value.

`1000m` and `1`, `1Gi` and `1024Mi`, `0.5` and `500m` are one quantity written differently;
the API server stores the canonical form, so changing one spelling for another changes
nothing in the cluster.

A value is kept as Kubernetes' parser keeps it, a decimal mantissa and a scale
(`inf.Dec`), never expanded: `1e999999999` costs what its text costs, not 10**999999999.
Comparison is exact. The exponent of an `e` suffix is bounded as `ParseQuantity` bounds it
(it must fit in 32 bits), and a binary suffix multiplies the mantissa only when it is short
(a quantity whose mantissa runs to thousands of digits is not one Kubernetes would store).
"""
from __future__ import annotations

from typing import Any

from msgspec import Struct

from deployah_plan.startup import lazy

_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}  # powers of two
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}  # powers of ten
# <signedNumber><suffix>, as resource.ParseQuantity reads it.
_QUANTITY = lazy(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?\Z")
_MAX_EXPONENT = 2**31 - 1  # the scale of an inf.Dec is an int32
_MAX_BINARY_DIGITS = 1000  # mantissa digits a binary suffix may multiply


class Quantity(Struct, frozen=True):
    """`digits` * 10**`exponent`, negated when `negative`; `digits` has no leading or trailing
    zeros ("" is zero, which is never negative), so equal values are equal tuples."""

    negative: bool
    digits: str
    exponent: int

    def _sign(self) -> int:
        return 0 if not self.digits else -1 if self.negative else 1

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        if self == other:
            return False
        sign, other_sign = self._sign(), other._sign()
        if sign != other_sign:
            return sign < other_sign
        # Same sign, both non-zero: the place of the leading digit orders the magnitudes,
        # then the digits do.
        place, other_place = len(self.digits) + self.exponent, len(other.digits) + other.exponent
        if place != other_place:
            smaller = place < other_place
        else:
            width = max(len(self.digits), len(other.digits))
            smaller = self.digits.ljust(width, "0") < other.digits.ljust(width, "0")
        return smaller != self.negative

    def __le__(self, other: object) -> bool:
        return self == other or self < other if isinstance(other, Quantity) else NotImplemented

    def __gt__(self, other: object) -> bool:
        return other < self if isinstance(other, Quantity) else NotImplemented

    def __ge__(self, other: object) -> bool:
        return self == other or other < self if isinstance(other, Quantity) else NotImplemented


def _canonical(negative: bool, digits: str, exponent: int) -> Quantity:
    stripped = digits.lstrip("0")
    significant = stripped.rstrip("0")
    if not significant:
        return Quantity(False, "", 0)
    return Quantity(negative, significant, exponent + len(stripped) - len(significant))


def parse(value: Any) -> Quantity | None:
    """The exact value of a quantity (a string, or a number as YAML gives it), or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return _canonical(value < 0, str(abs(value)), 0) if abs(value).bit_length() <= 256 else None
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return None
        value = repr(value)  # the shortest text of the float, as Go's encoder writes it
    if not isinstance(value, str):
        return None
    match = _QUANTITY.match(value.strip())
    if not match or not (match[2] or match[3]):
        return None
    sign, whole, fraction, suffix = match[1], match[2], match[3] or "", match[4] or ""
    negative, digits, exponent = sign == "-", whole + fraction, -len(fraction)
    if suffix in _BINARY:
        if len(digits) > _MAX_BINARY_DIGITS:
            return None
        mantissa = _canonical(negative, digits, exponent)
        if not mantissa.digits:
            return mantissa
        return _canonical(negative, str(int(mantissa.digits) << _BINARY[suffix]), mantissa.exponent)
    if suffix in _DECIMAL:
        return _canonical(negative, digits, exponent + _DECIMAL[suffix])
    power = suffix[1:]
    if len(power.lstrip("+-0")) > 10 or abs(int(power)) > _MAX_EXPONENT:
        return None
    return _canonical(negative, digits, exponent + int(power))


def equivalent(a: Any, b: Any) -> bool:
    """True when both are quantities of the same value."""
    x = parse(a)
    return x is not None and x == parse(b)
