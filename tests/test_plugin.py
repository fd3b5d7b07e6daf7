"""The plugin installed into real helm with `helm plugin install`, run as a user runs it."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from conftest import EXAMPLE, ROOT, Store, clean_env


def test_helm_plugin_install_then_helm_plan(helm: Path, store: Store, tmp_path: Path) -> None:
    home = tmp_path / "helm-home"
    env = clean_env(
        HELM_DATA_HOME=str(home / "data"), HELM_CONFIG_HOME=str(home / "config"), HELM_CACHE_HOME=str(home / "cache"),
        HELM_DRIVER="memory", HELM_MEMORY_DRIVER_DATA=str(store.path),
        PATH=os.environ["PATH"],
    )
    env.pop("PYTHONPATH")
    installed = subprocess.run([str(helm), "plugin", "install", str(ROOT)], env=env, capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
    listed = subprocess.run([str(helm), "plugin", "list"], env=env, capture_output=True, text=True)
    assert "plan" in listed.stdout

    store.add("shop", EXAMPLE / "chart-v1", "shop")
    # helm consumes its global -n and hands it to the plugin as HELM_NAMESPACE.
    result = subprocess.run([str(helm), "plan", "upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop",
                             "--detailed-exitcode"], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "helm plan: upgrade release shop in namespace shop" in result.stdout
    assert f"Helm {helm.parent.name}" in result.stdout  # the plugin used the helm that ran it (HELM_BIN)
    assert "Plan: 2 to create, 3 to update, 1 to delete." in result.stdout

    same = subprocess.run([str(helm), "plan", "upgrade", "shop", str(EXAMPLE / "chart-v1"), "--namespace", "shop",
                           "--detailed-exitcode", "-o", "json"], env=env, capture_output=True, text=True)
    assert same.returncode == 0, same.stderr
    assert '"helm_action": "none"' in same.stdout

    bad = subprocess.run([str(helm), "plan", "upgrade", "shop", str(tmp_path / "missing")], env=env,
                         capture_output=True, text=True)
    assert bad.returncode == 1
    assert "helm plan: error: chart" in bad.stderr and "Traceback" not in bad.stderr
