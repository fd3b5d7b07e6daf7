"""The helm-diff drop-in: helm-diff's command lines (databus23/helm-diff cmd/*.go) and the exact
ones helmfile builds (pkg/helmexec/exec.go DiffRelease, pkg/state/state.go commonDiffFlags and
flagsForDiff), read and answered by helm plan."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Mapping

import click
import pytest
import yaml

from conftest import EXAMPLE, EXAMPLE_UPGRADE, ROOT, Store, changes_of, clean_env
from deployah_plan.cli import main_group
from deployah_plan.compat import helm_diff
from deployah_plan.errors import UsageError


def _plan_flags() -> Mapping[str, bool]:
    out: dict[str, bool] = {}
    for param in main_group.commands["upgrade"].params:
        if isinstance(param, click.Option) and not param.hidden:
            for name in [*param.opts, *param.secondary_opts]:
                out[name] = not param.is_flag
    return out


def translate(*args: str, **environ: str) -> helm_diff.Translated:
    return helm_diff.translate(list(args), _plan_flags(), environ)


def test_helmfile_diff_upgrade_line() -> None:
    """helmfile apply's line: `diff upgrade --allow-unreleased NAME CHART` then flagsForDiff
    (chart version, kube version, values), appendValuesControlModeFlag and commonDiffFlags."""
    done = translate("upgrade", "--allow-unreleased", "shop", "charts/shop", "--version", "1.2.0",
                     "--kube-version", "v1.30.4", "--namespace", "shop", "--values", "/tmp/helmfile1234-values",
                     "--reset-values", "--detailed-exitcode", "--suppress-secrets", "--context", "3",
                     HELM_DIFF_COLOR="false")
    assert done.allow_unreleased and not done.notes
    assert done.argv == ("upgrade", "shop", "charts/shop", "--version", "1.2.0", "--kube-version", "v1.30.4",
                         "--namespace", "shop", "--values", "/tmp/helmfile1234-values", "--reset-values",
                         "--detailed-exitcode", "--context", "3", "--suppress", "Secret", "-o", "text", "--no-color")


def test_flags_as_pflag_reads_them() -> None:
    done = translate("shop", "./chart", "-fvalues.yaml", "-C=5", "-q", "--detailed-exitcode=false", "--output=simple",
                     "--suppress", "ConfigMap,Service", "--dry-run=server", "--three-way-merge", "--install")
    assert done.argv == ("upgrade", "shop", "./chart", "-fvalues.yaml", "--render", "server", "--require-cluster",
                         "--context", "5", "--suppress", "ConfigMap", "--suppress", "Service", "--suppress", "Secret",
                         "-o", "summary")
    assert done.allow_unreleased


def test_environment_as_helm_diff_reads_it() -> None:
    done = translate("upgrade", "shop", "./chart", HELM_DIFF_COLOR="true", HELM_DIFF_OUTPUT="json",
                     HELM_DIFF_OUTPUT_CONTEXT="7", HELM_DIFF_THREE_WAY_MERGE="true", HELM_DIFF_USE_UPGRADE_DRY_RUN="true",
                     HELM_DIFF_NORMALIZE_MANIFESTS="true")
    assert done.argv == ("upgrade", "shop", "./chart", "--render", "server", "--require-cluster", "--context", "7",
                         "-o", "json", "--color")
    assert not done.allow_unreleased
    flag_wins = translate("upgrade", "shop", "./chart", "--no-color", "--output", "diff", "-C", "1",
                          HELM_DIFF_COLOR="true", HELM_DIFF_OUTPUT="json", HELM_DIFF_OUTPUT_CONTEXT="7")
    assert flag_wins.argv[-4:] == ("1", "-o", "text", "--no-color")


def test_what_cannot_be_honoured_is_one_line() -> None:
    for args, said in [
        (("--suppress-output-line-regex", "helm.sh/chart"), "--suppress-output-line-regex cannot be honoured here"),
        (("--dry-run",), "--dry-run=client (no cluster, as an install) cannot be honoured here"),
        (("--output", "table"), "--output table is not one of helm-diff's outputs"),
        (("--no-such-flag",), "unknown flag: --no-such-flag"),
        (("--context", "many"), "--context takes a number of lines"),
        (("--context",), "flag needs an argument: --context"),  # helm-diff's own flag, last on the line
        (("--version",), "flag needs an argument: --version"),  # a helm upgrade flag given through
    ]:
        with pytest.raises(UsageError, match=said.replace("(", r"\(").replace(")", r"\)")):
            translate("upgrade", "shop", "./chart", *args)
    ignored = translate("upgrade", "shop", "./chart", "--no-such-flag", HELM_DIFF_IGNORE_UNKNOWN_FLAGS="true")
    assert ignored.argv[:3] == ("upgrade", "shop", "./chart") and "--no-such-flag" in ignored.notes[0]
    template = translate("upgrade", "shop", "./chart", "--output", "template")
    assert template.argv[-2:] == ("-o", "json") and "HELM_DIFF_TPL" in template.notes[0]


def test_history_commands() -> None:
    assert translate("version").text == f"{helm_diff.DECLARED_VERSION}\n"
    assert translate("revision", "shop", "3", "--detailed-exitcode").argv == (
        "revision", "shop", "3", "--detailed-exitcode", "-o", "text")
    assert translate("rollback", "shop", "2", "--kube-context", "prod").argv == (
        "rollback", "shop", "2", "--kube-context", "prod", "-o", "text")
    assert translate("release", "prod/shop", "stage/shop", "-q").argv == (
        "releases", "prod/shop", "stage/shop", "--suppress", "Secret", "-o", "text")
    with pytest.raises(UsageError, match="helm diff rollback has no flag --reset-values"):
        translate("rollback", "shop", "2", "--reset-values")
    with pytest.raises(UsageError, match="helm diff revision takes RELEASE, REVISION1"):
        translate("revision", "shop")


def test_the_declared_version_gets_every_flag_helmfile_checks() -> None:
    """helmfile passes --insecure-skip-tls-verify from 3.8.1, --suppress-output-line-regex from
    3.9.0, --take-ownership from 3.11.0 and --server-side (Helm 4) from 3.15.10."""
    declared = tuple(int(part) for part in helm_diff.DECLARED_VERSION.split("."))
    assert all(declared >= needed for needed in [(3, 8, 1), (3, 9, 0), (3, 11, 0), (3, 15, 10)])


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


def test_the_docs_list_every_flag_and_variable() -> None:
    readme = (ROOT / "docs" / "helm-diff.md").read_text()
    for flag in helm_diff.FLAGS:
        assert f"| {', '.join(f'`{name}`' for name in flag.names)} | " in readme, flag.names[0]
        assert flag.here in readme, flag.names[0]
    for variable, here in helm_diff.ENVIRONMENT.items():
        assert f"| `{variable}` | {here} |" in readme
    assert 'helm plugin install "$(helm env HELM_PLUGINS)/helm-plan/compat/helm-diff"' in readme
