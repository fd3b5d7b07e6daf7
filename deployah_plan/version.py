"""helm plan's own version, and `helm plan version`'s report.

The version is the package's `__version__` (deployah_plan/__init__.py), the one place it is
written: the plugin runs the package from the folder helm installed, and pip's metadata and
plugin.yaml are made from the same line (pyproject.toml reads it; plugin.yaml repeats it, and
tests/test_packaging.py holds the two equal).
"""
from __future__ import annotations

import os
import sys

from deployah_plan import __version__


def version() -> str:
    """This helm plan's version."""
    return __version__


def report(helm_binary: str | None, helm_version: str | None) -> list[str]:
    """`helm plan version`: its version, the helm and the Python it runs with, and the
    environment's folder (what a bug report needs)."""
    helm = f"{helm_version} ({helm_binary})" if helm_version else f"not found ({helm_binary or 'no helm on PATH'})"
    return [f"helm plan {version()}", f"helm: {helm}",
            f"python: {sys.version.split()[0]} ({sys.executable})", f"environment: {environment()}"]


def environment() -> str:
    """The folder of the Python environment helm plan runs in: the plugin's launcher starts its
    environment's Python without the site module (scripts/helm-plan), which is what sets
    `sys.prefix` to a virtual environment's folder, so it is read from the interpreter's path."""
    return os.path.dirname(os.path.dirname(sys.executable)) if sys.executable else sys.prefix


__all__ = ["report", "version"]
