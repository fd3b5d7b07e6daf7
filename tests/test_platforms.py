"""What works where (docs/install.md, "What works where"), read from the files: plugin.yaml runs
the launcher on Linux and macOS only, the launchers need no bash newer than macOS's bash 3.2,
and plugin.complete is POSIX sh. Run under real helm and shells: tests/e2e/test_platforms.py."""
from __future__ import annotations

import re

import pytest
import yaml

from conftest import ROOT


def test_plugin_yaml_runs_the_launcher_on_linux_and_macos_only() -> None:
    plugin = yaml.safe_load((ROOT / "plugin.yaml").read_text())
    commands = {entry["os"]: entry["command"] for entry in plugin["platformCommand"]}
    assert commands == {"linux": "$HELM_PLUGIN_DIR/scripts/helm-plan", "darwin": "$HELM_PLUGIN_DIR/scripts/helm-plan"}
    said = (ROOT / "docs" / "install.md").read_text()
    assert "| Windows | Run helm inside WSL" in said and "declares no command for Windows" in said


# Constructs bash 3.2 (macOS's /bin/bash) does not have, and what each is.
_NEWER_BASH = {
    r"\bdeclare -A\b|\blocal -A\b": "associative arrays (bash 4)",
    r"\bmapfile\b|\breadarray\b": "mapfile (bash 4)",
    r"\$\{[A-Za-z_]+(,,|\^\^)": "case conversion (bash 4)",
    r"\$\{[A-Za-z_]+@[QEPAaKk]\}": "parameter transformation (bash 4.4)",
    r"\|&": "|& (bash 4)",
    r"&>>": "&>> (bash 4)",
    r";;&|;&": "case fall-through (bash 4)",
    r"\bcoproc\b": "coproc (bash 4)",
    r"\bshopt -s globstar\b": "globstar (bash 4)",
    r"\$EPOCH(REAL)?TIME|\$SRANDOM": "bash 5 variables",
    r"\bwait -n\b": "wait -n (bash 4.3)",
    r"\[\[ -v ": "[[ -v (bash 4.2)",
}


@pytest.mark.parametrize("script", ["scripts/helm-plan", "scripts/ci-plan"])
def test_the_launchers_need_no_bash_newer_than_3_2(script: str) -> None:
    code = "\n".join(line for line in (ROOT / script).read_text().splitlines() if not line.lstrip().startswith("#"))
    for pattern, what in _NEWER_BASH.items():
        assert not re.search(pattern, code), f"{script} uses {what}"


def test_plugin_complete_is_posix_sh() -> None:
    script = (ROOT / "plugin.complete").read_text()
    assert script.startswith("#!/bin/sh\n")
    code = "\n".join(line for line in script.splitlines() if not line.lstrip().startswith("#"))
    for construct in ("[[", "local ", "function ", "$'", "<(", "${!", "declare ", "+=("):
        assert construct not in code, construct
