"""scripts/demo, the README's first command, run as a newcomer runs it: it needs only what
`helm plugin install` makes (helm plan's runtime environment: the package's dependencies, no
test tools) and helm 4, says in one line what it sets up and that it happens once, only when it
does, and prints the plan (issue 48 point 5)."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, clean_env

pytestmark = pytest.mark.e2e  # runs the demo, helm and pip as processes

SETUP = "scripts/demo: setting up, once: "


def _demo(*args: str) -> subprocess.CompletedProcess[str]:
    env = clean_env()
    env.pop("PYTHONPATH", None)
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if not (Path(p) / "helm").exists())
    return subprocess.run([str(ROOT / "scripts" / "demo"), "--no-color", *args], capture_output=True, text=True,
                          env=env, cwd=ROOT)


def test_the_demo_runs_on_the_runtime_environment_alone() -> None:
    first = _demo()
    assert first.returncode == 0, first.stderr
    said = [line for line in first.stderr.splitlines() if not line.startswith("WARNING: Location")]
    assert said == [] or (len(said) <= 2 and said[0].startswith(SETUP) and "runtime environment" in said[0]), said
    assert "Plan: 2 to create, 3 to update, 1 to delete." in first.stdout
    again = _demo("-o", "json")
    assert again.returncode == 0 and SETUP not in again.stderr and again.stdout.startswith("{")
    # The environment is the plugin's (scripts/helm-plan --prepare, as helm plugin install makes
    # it): the runtime dependencies import, and no test tool is there.
    env = subprocess.run([str(ROOT / "scripts" / "helm-plan"), "--env-path"], capture_output=True, text=True,
                         env={**clean_env(), "HELM_CACHE_HOME": str(ROOT / ".cache" / "demo")}, check=True).stdout.strip()
    python = Path(env) / "bin" / "python"
    assert python.is_file()
    for module, present in (("click", True), ("msgspec", True), ("yaml", True), ("urllib3", True),
                            ("mypy", False), ("hypothesis", False), ("pytest", False), ("mkdocs", False),
                            ("cryptography", False), ("jsonschema", False), ("deployah_plan", False)):
        found = subprocess.run([str(python), "-c", f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is None)"],
                               capture_output=True, env={"PATH": os.environ["PATH"]}, cwd="/")
        assert (found.returncode == 0) is present, module
