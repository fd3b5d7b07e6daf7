"""An upgrade's values files (-f) merged as helm merges them: whether they change the release's
values, and which keys they set. Read by commands/causes.py (which render tells the chart's
changes from the values') and by sources/early.py (whether that render starts before the
imports), so it imports PyYAML alone, when a file is read."""
from __future__ import annotations

import os
from typing import Any, Sequence


def merged(files: Sequence[str]) -> dict[str, Any] | None:
    """The -f files merged as helm merges them (pkg/cli/values/options.go mergeMaps: a map into
    a map key by key, anything else replaced); None when one is not a local YAML map: standard
    input, a URL, what is not a regular file (a FIFO, /dev/zero: the plan refuses it) or one
    larger than any input helm plan reads (sources/files.py `MAX_INPUT_BYTES`)."""
    import yaml

    from deployah_plan.sources.files import MAX_INPUT_BYTES

    out: dict[str, Any] = {}
    for path in files:
        if path == "-" or "://" in path:
            return None
        try:
            if not os.path.isfile(path) or os.path.getsize(path) > MAX_INPUT_BYTES:
                return None
        except OSError:
            return None
        try:
            with open(path, encoding="utf-8") as text:
                loaded = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except (OSError, yaml.YAMLError, UnicodeDecodeError):
            return None
        if loaded is None:
            continue
        if not isinstance(loaded, dict):
            return None
        out = _merge(out, loaded)
    return out


def _merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in top.items():
        below = out.get(key)
        out[key] = _merge(below, value) if isinstance(value, dict) and isinstance(below, dict) else value
    return out


def unchanged(files: Sequence[str], sets: bool, previous: dict[str, Any]) -> bool:
    """Whether values flags (`files`; `sets`: whether any --set kind was given) give exactly the
    release's user values `previous`: only values files that say exactly what the release has
    (a pipeline that gives the same file each time)."""
    return bool(files) and not sets and merged(files) == previous


__all__ = ["merged", "unchanged"]
