"""The flag table (deployah_plan/flags.py): each flag declared once, and what derives from it."""
from __future__ import annotations

import click
import msgspec
import pytest

from deployah_plan import flags
from deployah_plan.cli import main_group
from deployah_plan.commands.diff import DiffOptions
from deployah_plan.commands.kube_upgrade import KubeUpgradeOptions
from deployah_plan.commands.history import ReleasesOptions, RevisionOptions
from deployah_plan.commands.rollback import RollbackOptions
from deployah_plan.commands.uninstall import UninstallOptions
from deployah_plan.commands.upgrade import UpgradeOptions, ValueFlags
from deployah_plan.commands.upgrade_flags import ChartSource, DeployFlags
from deployah_plan.flags import Reach, helm_args
from deployah_plan.manifests import Rendered
from deployah_plan.model import Header
from deployah_plan.planfile.inputs import Inputs, make_record
from deployah_plan.planfile.seal import Digester

REQUESTS = {"upgrade": UpgradeOptions, "values": ValueFlags, "source": ChartSource, "deploy": DeployFlags,
            "rollback": RollbackOptions, "uninstall": UninstallOptions, "diff": DiffOptions,
            "revision": RevisionOptions, "releases": ReleasesOptions, "kube_upgrade": KubeUpgradeOptions}
# Filled from the command's arguments, or by the command line itself, not from a flag.
NOT_FLAGS = {"release", "chart", "revision", "previous", "desired", "debug", "values", "source", "deploy", "first",
             "second",
             # set by helm plan kube-upgrade on the upgrade it plans for each release (commands/kube_upgrade.py)
             "stored_chart", "carried", "subcharts", "helm_timeout", "release_state", "releases"}


def test_every_request_field_is_filled_by_exactly_one_flag() -> None:
    for name, table in flags.BY_COMMAND.items():
        parts = {flag.into for flag in table if flag.into}
        for part in parts:
            request = REQUESTS[part]
            filled = [flag.field for flag in table if flag.into == part]
            assert len(filled) == len(set(filled)), (name, part)
            fields = {f.name for f in msgspec.structs.fields(request)}
            assert set(filled) <= fields, (name, part, set(filled) - fields)
            assert fields - set(filled) <= NOT_FLAGS, (name, part, fields - set(filled) - NOT_FLAGS)


def test_the_table_is_spelt_as_pflag_spells_flags() -> None:
    for table in flags.BY_COMMAND.values():
        dests = [flag.dest for flag in table]
        assert len(dests) == len(set(dests))
        for flag in table:
            assert all(name.startswith("--") and len(name) > 3 for name in flag.names), flag
            assert flag.short == "" or (flag.short.startswith("-") and len(flag.short) == 2), flag
            assert not (flag.bare and not flag.takes_value) and not (flag.repeatable and not flag.takes_value), flag


def test_each_command_has_the_options_its_table_declares() -> None:
    for name, table in flags.BY_COMMAND.items():
        options = {param.name: param for param in main_group.commands[name].params if isinstance(param, click.Option)}
        for flag in table:
            option = options[flag.dest]
            assert set(option.opts) == {*flag.names, *([flag.short] if flag.short else [])}
            assert option.multiple == flag.repeatable
            if flag.bare:  # `--wait=VALUE` is read by a hidden option; `--wait VALUE` never takes VALUE
                assert option.is_flag and options[flag.value_dest].hidden


def test_helm_arguments_come_from_the_table() -> None:
    # The post-renderer's arguments go with `=` (one may start with "-"), and only with a post-renderer.
    assert DeployFlags(post_renderer_args=("--team=a",)).render_args() == []
    assert DeployFlags(post_renderer="./kustomize", post_renderer_args=("--team=a",), enable_dns=True).render_args() \
        == ["--post-renderer", "./kustomize", "--post-renderer-args=--team=a", "--enable-dns"]
    assert ChartSource(username="ci", password="p", verify=True).pull_args() == \
        ["--username", "ci", "--password", "p", "--verify"]
    values = ValueFlags(files=("a.yaml", "b.yaml"), set=("x=1",), set_literal=("y=a,b",))
    assert values.args() == ["--values", "a.yaml", "--values", "b.yaml", "--set", "x=1", "--set-literal", "y=a,b"]
    options = UpgradeOptions(release="r", chart="c", reuse_values=True, skip_crds=True, take_ownership=True)
    # --take-ownership too: Helm 3.19's and 4.3's upgrade take it, and check ownership before a dry run returns.
    assert sorted(helm_args(options, Reach.SERVER_RENDER)) == ["--reuse-values", "--skip-crds", "--take-ownership"]
    assert helm_args(UpgradeOptions(release="r", chart="c"), Reach.SERVER_RENDER) == []


def test_verify_compares_the_helm_flags_and_takes_the_plan_flags_from_the_record() -> None:
    skipped = flags.not_compared(flags.UPGRADE)
    # helm plan's own flags, where the release is (compared as resolved) and --install.
    assert skipped == {"output", "detailed_exitcode", "fail_on", "no_color", "color", "suppress", "source_root",
                       "show_secrets", "full_values", "line_context", "debug", "out", "ignore", "ignore_files", "render", "no_drift",
                       "require_cluster", "namespace", "kube_context", "kubeconfig", "install"}
    assert set(flags.from_record(flags.UPGRADE)) == {"render", "no_drift", "require_cluster", "ignore", "ignore_files",
                                                     "show_secrets", "line_context"}
    assert {"values_files", "set_", "password", "wait", "wait_value", "post_renderer"}.isdisjoint(skipped)


def test_optional_values_are_read_as_helm_reads_them() -> None:
    wait = next(flag for flag in flags.UPGRADE if flag.dest == "wait")
    assert flags.value(wait, {"wait": False, "wait_value": None}) == ""
    assert flags.value(wait, {"wait": True, "wait_value": None}) == "true"
    assert flags.value(wait, {"wait": False, "wait_value": "watcher"}) == "watcher"
    assert [flag.long for flag in flags.UPGRADE if flag.bare] == ["--wait", "--dry-run"]


def test_the_record_is_made_of_what_the_planner_read() -> None:
    digester = Digester.of("00ff", keyed=False)
    header = Header(release="r", namespace="ns", helm_version="3.19.0")
    upgrade = "upgrade"
    argv = ["upgrade", "r", "./chart"]
    nothing = make_record(Inputs(), header, upgrade, {}, argv, digester)
    assert (nothing["chart"], nothing["previous"], nothing["render"], nothing["live"]) == (None, None, "", {"read": False})
    rendered = make_record(Inputs(desired=Rendered()), header, upgrade, {}, argv, digester)
    assert rendered["render"].startswith("hmac-sha256:")
    assert make_record(Inputs(desired=Rendered()), header, upgrade, {}, argv, digester) == rendered  # a function of its inputs


def test_every_command_that_prints_a_plan_takes_full_values() -> None:
    for command in ("upgrade", "rollback", "uninstall", "diff", "show"):
        assert "full_values" in {f.dest for f in flags.BY_COMMAND[command]}, command


def test_what_names_a_program_is_never_taken_from_the_record() -> None:
    named = {flag.long for table in flags.BY_COMMAND.values() for flag in table if flag.program}
    assert named == {"--post-renderer", "--kubeconfig"}
    with pytest.raises(ValueError, match="never taken from a plan's record"):
        flags.check_tables([[flags.Flag(names=("--exec",), dest="exec", program=True, verify=flags.Verify.FROM_RECORD)]])
    # pflag's value types: StringSlice (CSV) and StringToString (pairs), per helm's flag definitions
    split = {flag.long: flag.split for flag in flags.UPGRADE if flag.split is not flags.Split.NONE}
    assert split == {"--values": flags.Split.CSV, "--api-versions": flags.Split.CSV, "--labels": flags.Split.PAIRS}
