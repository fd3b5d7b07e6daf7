"""The helm-diff drop-in: helm-diff's command lines (databus23/helm-diff cmd/*.go) and the exact
ones helmfile builds (pkg/helmexec/exec.go DiffRelease, pkg/state/state.go commonDiffFlags and
flagsForDiff), read and answered by helm plan."""
from __future__ import annotations

from typing import Mapping

import click
import pytest

from conftest import ROOT
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


def test_the_docs_list_every_flag_and_variable() -> None:
    readme = (ROOT / "docs" / "helm-diff.md").read_text()
    for flag in helm_diff.FLAGS:
        assert f"| {', '.join(f'`{name}`' for name in flag.names)} | " in readme, flag.names[0]
        assert flag.here in readme, flag.names[0]
    for variable, here in helm_diff.ENVIRONMENT.items():
        assert f"| `{variable}` | {here} |" in readme
    assert 'helm plugin install "$(helm env HELM_PLUGINS)/helm-plan/compat/helm-diff"' in readme
