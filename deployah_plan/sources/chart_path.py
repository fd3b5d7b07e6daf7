"""Where a chart on disk is, from the reference the command line gives: read by sources/chart.py
and, before the imports, by sources/early.py. Imports nothing of helm plan's but its errors, so
that neither depends on the other (chart.py takes a `Helm`, which takes early.py's calls).
"""
from __future__ import annotations

import os
from pathlib import Path

from deployah_plan.errors import UsageError


def folder(path: str) -> str:
    """A chart folder, checked to hold a Chart.yaml; a file (a packaged chart) as it is."""
    target = Path(path)
    if target.is_dir() and not (target / "Chart.yaml").is_file():
        raise UsageError(f"{path} is not a chart: it has no Chart.yaml", "pass the folder that holds Chart.yaml")
    return str(target)


def on_disk(ref: str) -> str | None:
    """The path of the chart `ref` names on disk (a folder, checked to hold a Chart.yaml, or an
    archive); None when nothing is there."""
    expanded = os.path.expanduser(ref)
    return folder(expanded) if os.path.exists(expanded) else None


__all__ = ["folder", "on_disk"]
