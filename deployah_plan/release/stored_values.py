"""A stored release's values as helm prints them: `helm get values -o json` (the user's
config) and `helm get values --all -o json` (the chart's defaults coalesced under it).

Helm decodes a stored release with encoding/json into `map[string]interface{}`, so every number
in its values is a float64 (an integer beyond 2^53 loses digits) and is printed back as Go prints
a float64; `go_numbers` makes the decoded JSON hold the same numbers.

`--all` is `CoalesceValues(release.Chart, release.Config)`: the stored chart is the top chart
alone (its subcharts are not stored), so only its own values are coalesced, no dependency's and
no globals. The rules differ by helm's major version, each as its source says:
- Helm 3 (pkg/chartutil/coalesce.go, v3.19): a user null removes the key where the chart has it,
  at any depth; a chart default that is null is copied in at the top.
- Helm 4 (pkg/chart/common/util/coalesce.go, v4.2; 4.3.1 checked to print the same): chart
  defaults that are null are dropped first; a user null removes the key only where the chart
  default is not null, and is kept otherwise (below the top).
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported before the first helm call (sources/early.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["computed_values", "go_numbers", "user_values"]

_EXACT = 2**53  # a float64 holds every integer below this


def _go_int(value: int) -> int | float:
    """An integer read as a float64 and printed as encoding/json prints one, read back by Python."""
    if -_EXACT <= value <= _EXACT:
        return value
    from decimal import Decimal  # rarely needed: not imported before the first helm call

    number = float(value)
    return int(Decimal(repr(number))) if abs(number) < 1e21 else number


def _scalar(value: Any) -> Any:
    return _go_int(value) if isinstance(value, int) and not isinstance(value, bool) else value


def go_numbers(value: Any) -> Any:
    """A copy of `value` (parsed JSON) with each integer as Go's float64 would print it; without
    recursion (values nest as deep as Go writes them)."""
    if not isinstance(value, (dict, list)):
        return _scalar(value)
    root: Any = {} if isinstance(value, dict) else []
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, copied = stack.pop()
        for key, item in (source.items() if isinstance(source, dict) else enumerate(source)):
            if isinstance(item, (dict, list)):
                new: Any = {} if isinstance(item, dict) else []
                stack.append((item, new))
            else:
                new = _scalar(item)
            if isinstance(copied, dict):
                copied[key] = new
            else:
                copied.append(new)
    return root


def user_values(release: dict[str, Any]) -> dict[str, Any]:
    """`helm get values -o json` of a decoded release (its `config`; {} for none)."""
    config = release.get("config")
    return go_numbers(config) if isinstance(config, dict) else {}


def computed_values(release: dict[str, Any], helm_major: int) -> dict[str, Any]:
    """`helm get values --all -o json` of a decoded release, by the rules of helm `helm_major`.
    RecursionError where the chart's defaults and the user's values are both tables thousands of
    levels deep (the caller asks helm then)."""
    values = user_values(release)
    chart = release.get("chart")
    defaults = chart.get("values") if isinstance(chart, dict) else None
    if not isinstance(defaults, dict):
        return values
    defaults = go_numbers(defaults)
    if helm_major >= 4:
        _coalesce_values_4(values, defaults)
    else:
        _coalesce_values_3(values, defaults)
    return values


# -- Helm 3 -------------------------------------------------------------------------------------------

def _coalesce_values_3(values: dict[str, Any], defaults: dict[str, Any]) -> None:
    for key, default in defaults.items():
        if key in values:
            value = values[key]
            if value is None:
                del values[key]
            elif isinstance(value, dict) and isinstance(default, dict):
                _tables_3(value, default)
        else:
            values[key] = default


def _tables_3(dst: dict[str, Any], src: dict[str, Any]) -> None:
    for key, value in src.items():
        if key in dst and dst[key] is None:
            del dst[key]
        elif key not in dst:
            dst[key] = value
        elif isinstance(value, dict) and isinstance(dst[key], dict):
            _tables_3(dst[key], value)


# -- Helm 4 -------------------------------------------------------------------------------------------

def _clean_nils(table: dict[str, Any]) -> None:
    for key in [k for k, v in table.items() if v is None]:
        del table[key]
    for value in table.values():
        if isinstance(value, dict):
            _clean_nils(value)


def _coalesce_values_4(values: dict[str, Any], defaults: dict[str, Any]) -> None:
    for key, default in defaults.items():
        if key in values:
            value = values[key]
            if value is None:
                del values[key]
            elif isinstance(value, dict) and isinstance(default, dict):
                _clean_nils(default)
                _tables_4(value, default)
        elif default is not None:
            if isinstance(default, dict):
                _clean_nils(default)
            values[key] = default


def _tables_4(dst: dict[str, Any], src: dict[str, Any]) -> None:
    given = {key for key, value in src.items() if value is not None}
    for key, value in dst.items():
        if value is None:
            src[key] = None
    for key, value in src.items():
        if key in dst and dst[key] is None and key in given:
            del dst[key]
        elif key not in dst:
            dst[key] = value
        elif isinstance(value, dict) and isinstance(dst[key], dict):
            _tables_4(dst[key], value)
