"""helm plan's own version, and `helm plan version`'s report.

The version is the plugin's: `plugin.yaml` beside the package is what helm installed (a folder
install, a git clone, an unpacked release), and the plugin's Python environment holds only the
dependencies, not helm plan as a distribution. Installed with pip (the console script), there is
no plugin.yaml, and the distribution's metadata says it.
"""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from deployah_plan.startup import lazy

_PLUGIN = Path(__file__).resolve().parent.parent / "plugin.yaml"
_VERSION = lazy(r'^version:\s*"?([^"\s#]+)"?\s*(?:#.*)?$', re.MULTILINE)


def version() -> str:
    """This helm plan's version: plugin.yaml's `version`, else the installed distribution's."""
    try:
        found = _VERSION.search(_PLUGIN.read_text(encoding="utf-8"))
    except OSError:
        found = None
    if found:
        return found.group(1)
    from importlib import metadata

    try:
        return metadata.version("deployah-plan")
    except metadata.PackageNotFoundError:
        return "unknown"


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
