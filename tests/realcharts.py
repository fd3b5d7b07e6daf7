"""The real public charts the tests plan (traefik, argo-cd, kube-state-metrics at two versions
each), read where they are and never kept in the repository: HELM_PLAN_CHARTS, else
`../shared/charts` beside the clone (CI and the project's machines), else the cache
scripts/fetch-charts fills (tests/charts/README.md). A test that needs one and finds it missing
is skipped with the command that fetches it, and fails under CI=true, where the folder is there."""
from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

from conftest import ROOT


def _fetch_charts() -> ModuleType:
    """scripts/fetch-charts as a module: one list of the charts and one rule of where they are."""
    path = ROOT / "scripts" / "fetch-charts"
    loader = importlib.machinery.SourceFileLoader("fetch_charts", str(path))
    spec = importlib.util.spec_from_loader("fetch_charts", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("fetch_charts", module)
    loader.exec_module(module)
    return module


fetch_charts = _fetch_charts()
CHARTS: Path = fetch_charts.charts_root()
NAMES: tuple[str, ...] = fetch_charts.NAMES


def missing(name: str, root: Path | None = None) -> str | None:
    """Why the chart `name` cannot be read under `root` (default CHARTS), or None when it can."""
    folder = (CHARTS if root is None else root) / name
    if all((folder / side / "Chart.yaml").is_file() for side in ("prev", "next")) and (folder / "case.yaml").is_file():
        return None
    return f"no chart {name} in {folder.parent}: run scripts/fetch-charts (tests/charts/README.md)"


def real_chart(name: str) -> Path:
    """The folder of the chart `name` (`prev/`, `next/`, `case.yaml`, values); missing, the
    test is skipped, or fails under CI=true (CI has ../shared/charts)."""
    why = missing(name)
    if why is None:
        return CHARTS / name
    if os.environ.get("CI") == "true":
        pytest.fail(f"{why}; CI=true: a missing chart is a failure here")
    pytest.skip(why)
