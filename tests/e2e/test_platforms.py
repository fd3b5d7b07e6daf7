"""What works where (docs/install.md, "What works where"), tested as far as this machine can:
plugin.yaml's commands per system as real helm reads them, the launcher free of bash newer than
macOS's bash 3.2 and working from folders with spaces, and the completion script the same under
dash and `bash --posix` (macOS's /bin/sh) as under sh."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import EXAMPLE, ROOT, Store, clean_env


@pytest.mark.e2e
def test_helm_runs_only_the_command_for_its_system(helm: Path, tmp_path: Path, shared_cache: Path) -> None:
    """A plugin.yaml with a command for macOS only: helm on Linux refuses to run it, as helm for
    Windows refuses helm plan (no command for Windows); with the Linux entry it runs."""
    folder = tmp_path / "plan"
    shutil.copytree(ROOT, folder, ignore=shutil.ignore_patterns(".git", ".venv", ".cache", "tests", "site"))
    text = (folder / "plugin.yaml").read_text()
    linux = '  - os: linux\n    command: "$HELM_PLUGIN_DIR/scripts/helm-plan"\n'
    assert linux in text
    (folder / "plugin.yaml").write_text(text.replace(linux, ""))
    home = tmp_path / "home"
    env = clean_env(HELM_DATA_HOME=str(home / "data"), HELM_CONFIG_HOME=str(home / "config"),
                    HELM_CACHE_HOME=str(shared_cache), PATH=os.environ["PATH"])
    env.pop("PYTHONPATH")
    installed = subprocess.run([str(helm), "plugin", "install", str(folder)], env=env, capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
    ran = subprocess.run([str(helm), "plan", "version"], env=env, capture_output=True, text=True)
    assert ran.returncode != 0 and "no plugin command is applicable" in ran.stderr, ran.stderr
    (folder / "plugin.yaml").write_text(text)
    ran = subprocess.run([str(helm), "plan", "version"], env=env, capture_output=True, text=True)
    assert ran.returncode == 0 and ran.stdout.startswith("helm plan "), ran.stderr


@pytest.mark.e2e
def test_the_launcher_works_from_folders_with_spaces(tmp_path: Path) -> None:
    """macOS keeps its folders under names with spaces often enough (a checkout in "My
    Projects"): the plugin folder and helm's cache both have one here."""
    folder = tmp_path / "My Projects" / "helm plan"
    shutil.copytree(ROOT, folder, ignore=shutil.ignore_patterns(".git", ".venv", ".cache", "tests", "site"))
    env = clean_env(HELM_CACHE_HOME=str(tmp_path / "Library Caches" / "helm"), PATH=os.environ["PATH"])
    env.pop("PYTHONPATH")
    for _ in range(2):  # the environment made, then found again the quick way
        ran = subprocess.run([str(folder / "scripts" / "helm-plan"), "version"], env=env, capture_output=True,
                             text=True, cwd=tmp_path)
        assert ran.returncode == 0, ran.stderr
        assert ran.stdout.startswith("helm plan ") and "Library Caches" in ran.stdout


@pytest.mark.e2e
def test_the_completion_script_says_the_same_under_each_posix_shell(helm4: Path, store: Store) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    store.add("shop", EXAMPLE / "chart-v2", "shop", revision=2)
    env = clean_env(HELM_BIN=str(helm4), HELM_DRIVER="memory", HELM_MEMORY_DRIVER_DATA=str(store.path),
                    HELM_NAMESPACE="shop", PATH=os.environ["PATH"])
    shells = [["sh"], ["bash", "--posix"], *([["dash"]] if shutil.which("dash") else [])]
    asked = [("upgrade", ""), ("rollback", "shop", ""), ("upgrade", "shop", "-o", "j"), ("upgrade", "--set", "a=b", "s"),
             ("verify", "plan.json", "--", "")]
    expected = ["shop\n:4\n", "2\tdeployed shop-0.2.0\n1\tdeployed shop-0.1.0\n:4\n", "json\n:4\n", "shop\n:4\n", ":0\n"]
    for shell in shells:
        said = [subprocess.run([*shell, str(ROOT / "plugin.complete"), *words], env=env, capture_output=True,
                               text=True) for words in asked]
        assert [(s.stdout, s.stderr) for s in said] == [(e, "") for e in expected], shell
