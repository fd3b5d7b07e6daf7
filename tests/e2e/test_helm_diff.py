"""The helm-diff drop-in: helm-diff's command lines (databus23/helm-diff cmd/*.go) and the exact
ones helmfile builds (pkg/helmexec/exec.go DiffRelease, pkg/state/state.go commonDiffFlags and
flagsForDiff), read and answered by helm plan."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml

from conftest import EXAMPLE, EXAMPLE_UPGRADE, ROOT, Store, changes_of, clean_env
from deployah_plan.compat import helm_diff


# -- through the installed drop-in, with real helm -------------------------------------------------

@pytest.fixture
def diff_env(helm: Path, tmp_path: Path, shared_cache: Path, store: Store) -> dict[str, str]:
    """helm with the drop-in installed as a user installs it (`helm plugin install FOLDER`),
    and a memory-driver release store."""
    home = tmp_path / "helm-home"
    env = clean_env(HELM_DATA_HOME=str(home / "data"), HELM_CONFIG_HOME=str(home / "config"),
                    HELM_CACHE_HOME=str(shared_cache), HELM_DRIVER="memory",
                    HELM_MEMORY_DRIVER_DATA=str(store.path), PATH=f"{helm.parent}{os.pathsep}{os.environ['PATH']}")
    env.pop("PYTHONPATH")
    done = subprocess.run([str(helm), "plugin", "install", str(ROOT / "compat" / "helm-diff")], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return env


def _helm(env: dict[str, str], *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["helm", *args], env={**env, **extra}, capture_output=True, text=True)


def _helmfile_line(helm: Path, release: str, chart: Path, values: Path, *, allow_unreleased: bool = True,
                   color: bool = False) -> tuple[list[str], dict[str, str]]:
    """`helm diff upgrade` as helmfile's DiffRelease builds it for `helmfile apply` (detailed
    exit code on, secrets suppressed, context 3, reset values, the cluster's kube version), and
    the environment it adds: on Helm 4 it moves --color to HELM_DIFF_COLOR."""
    args = ["diff", "upgrade", *(["--allow-unreleased"] if allow_unreleased else []), release, str(chart),
            "--kube-version", "v1.30.4", "--namespace", "shop", "--values", str(values), "--reset-values",
            "--detailed-exitcode", "--suppress-secrets", "--context", "3"]
    env: dict[str, str] = {}
    if color:
        if helm.parent.name.startswith("4."):
            env["HELM_DIFF_COLOR"] = "true"
        else:
            args.append("--color")
    return args, env


def test_helmfile_apply_sees_2_on_changes_and_0_without(helm: Path, diff_env: dict[str, str], store: Store,
                                                         tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    values = tmp_path / "values.yaml"
    values.write_text("replicas: 2\n")
    args, extra = _helmfile_line(helm, "shop", EXAMPLE / "chart-v2", values)
    changed = _helm(diff_env, *args, **extra)
    assert changed.returncode == 2, changed.stdout + changed.stderr  # helmfile apply upgrades this release
    assert "Deployment shop/shop-web" in changed.stdout and "image" in changed.stdout
    assert "field change" in changed.stdout and "not shown: --suppress Secret" in changed.stdout
    assert "s3cret" not in changed.stdout and "\x1b[" not in changed.stdout
    same = _helm(diff_env, *_helmfile_line(helm, "shop", EXAMPLE / "chart-v1", values)[0])
    assert same.returncode == 0, same.stdout + same.stderr  # helmfile apply skips it
    assert "No changes" in same.stdout


def test_a_missing_release_needs_allow_unreleased(helm: Path, diff_env: dict[str, str], tmp_path: Path) -> None:
    values = tmp_path / "values.yaml"
    values.write_text("{}\n")
    refused = _helm(diff_env, *_helmfile_line(helm, "new", EXAMPLE / "chart-v1", values, allow_unreleased=False)[0])
    assert refused.returncode == 1
    (line, *_) = [line for line in refused.stderr.splitlines() if line.startswith("helm plan")]
    assert "release new not found" in line and "--allow-unreleased" in line
    install = _helm(diff_env, *_helmfile_line(helm, "new", EXAMPLE / "chart-v1", values)[0])
    assert install.returncode == 2, install.stderr
    assert "install" in install.stdout.lower()


def test_colour_as_helmfile_asks_for_it(helm: Path, diff_env: dict[str, str], store: Store, tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    values = tmp_path / "values.yaml"
    values.write_text("{}\n")
    args, extra = _helmfile_line(helm, "shop", EXAMPLE / "chart-v2", values, color=True)
    coloured = _helm(diff_env, *args, **extra)
    assert coloured.returncode == 2, coloured.stderr
    assert "\x1b[" in coloured.stdout  # forced: standard output is a pipe here


def test_version_and_the_manifest_agree(helm: Path, diff_env: dict[str, str]) -> None:
    shown = _helm(diff_env, "diff", "version")
    assert shown.returncode == 0 and shown.stdout == f"{helm_diff.DECLARED_VERSION}\n"
    manifest = yaml.safe_load((ROOT / "compat" / "helm-diff" / "plugin.yaml").read_text())
    assert manifest["name"] == "diff" and manifest["version"] == helm_diff.DECLARED_VERSION
    listed = _helm(diff_env, "plugin", "list")
    assert any(line.split()[:2] == ["diff", helm_diff.DECLARED_VERSION] for line in listed.stdout.splitlines())


def test_outputs_and_a_refused_flag(helm: Path, diff_env: dict[str, str], store: Store) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    base = ["diff", "upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop"]
    as_json = _helm(diff_env, *base, "--output", "json")
    assert as_json.returncode == 0, as_json.stderr
    assert changes_of(json.loads(as_json.stdout)) == EXAMPLE_UPGRADE
    simple = _helm(diff_env, *base, "--output", "simple")
    assert simple.stdout.splitlines()[-1].startswith("Plan: 2 to create, 3 to update, 1 to delete.")
    assert "~ Deployment shop/shop-web: update" in simple.stdout
    refused = _helm(diff_env, *base, "--suppress-output-line-regex", "helm.sh/chart")
    assert refused.returncode == 1 and refused.stdout == ""
    assert [line for line in refused.stderr.splitlines() if line.startswith("helm plan")] == [
        "helm plan: error: --suppress-output-line-regex cannot be honoured here: it filters helm-diff's text lines, "
        "which helm plan does not print; use --ignore rules (`--ignore '{paths: [/metadata/labels/x]}'`) instead; "
        "leave it out"]


def test_revision_rollback_and_release(helm: Path, diff_env: dict[str, str], store: Store) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop", status="superseded")
    store.add("shop", EXAMPLE / "chart-v2", "shop", revision=2)
    store.add("stage", EXAMPLE / "chart-v1", "stage")
    between = _helm(diff_env, "diff", "revision", "shop", "2", "1", "-n", "shop", "--detailed-exitcode",
                    "--output", "json")
    assert between.returncode == 2, between.stderr
    doc = json.loads(between.stdout)
    assert changes_of(doc) == EXAMPLE_UPGRADE  # the older revision is the previous state, as in helm-diff
    assert (doc["header"]["previous_revision"], doc["header"]["revision"]) == (1, 2)
    to_newest = _helm(diff_env, "diff", "revision", "shop", "1", "-n", "shop", "--output", "json")
    assert to_newest.returncode == 0 and changes_of(json.loads(to_newest.stdout)) == EXAMPLE_UPGRADE
    back = _helm(diff_env, "diff", "rollback", "shop", "1", "-n", "shop", "--output", "json", "--detailed-exitcode")
    assert back.returncode == 2, back.stderr
    assert {(a, k) for a, k, _ in changes_of(json.loads(back.stdout))} >= {("delete", "HorizontalPodAutoscaler"),
                                                                          ("create", "Service")}
    releases = _helm(diff_env, "diff", "release", "stage/stage", "shop/shop", "--output", "json")
    assert releases.returncode == 0, releases.stderr
    assert json.loads(releases.stdout)["header"]["release"] == "shop"
    missing = _helm(diff_env, "diff", "revision", "shop", "9", "-n", "shop")
    assert missing.returncode == 1 and "release shop has no revision 9" in missing.stderr
