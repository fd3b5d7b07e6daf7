"""Where a chart on disk is, from the reference the command line gives: read by sources/chart.py
and, before the imports, by sources/early.py. Imports nothing of helm plan's but its errors, so
that neither depends on the other (chart.py takes a `Helm`, which takes early.py's calls).
Paths are strings here (os.path): pathlib's import would hold the first helm calls back.
"""
from __future__ import annotations

import os

from deployah_plan.errors import UsageError


def folder(path: str) -> str:
    """A chart folder, checked to hold a Chart.yaml; a file (a packaged chart) as it is. Written
    as `str(Path(path))` writes it."""
    target = pathlib_text(path)
    if os.path.isdir(target) and not os.path.isfile(os.path.join(target, "Chart.yaml")):
        raise UsageError(f"{path} is not a chart: it has no Chart.yaml", "pass the folder that holds Chart.yaml")
    return target


def pathlib_text(path: str) -> str:
    """`path` as `str(pathlib.PurePosixPath(path))` writes it: repeated slashes and `.` parts
    dropped, `..` kept, two leading slashes kept (POSIX leaves their meaning to the system),
    `.` for nothing."""
    stripped = path.lstrip("/")
    leading = len(path) - len(stripped)
    root = "//" if leading == 2 else "/" if leading else ""
    rest = "/".join(part for part in stripped.split("/") if part and part != ".")
    return root + rest if root or rest else "."


def on_disk(ref: str) -> str | None:
    """The path of the chart `ref` names on disk (a folder, checked to hold a Chart.yaml, or an
    archive); None when nothing is there."""
    expanded = os.path.expanduser(ref)
    return folder(expanded) if os.path.exists(expanded) else None


__all__ = ["folder", "on_disk", "pathlib_text"]
