"""The plan's helm calls started before the imports (sources/early.py): taken only when they are
the plan's own calls, the same plan either way, and ended when nobody takes them."""
from __future__ import annotations

import ast
import json
import os
import re
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given, settings, strategies as st

from conftest import ROOT, write_chart
from deployah_plan.flags import DIFF, UPGRADE, Flag, Reach
from deployah_plan.model import ApplyMethod
from deployah_plan.sources import chart_path, chart_scan, early, helm_versions
from deployah_plan.release.helm_storage import reused_values
from deployah_plan.sources.early import HelmCalls
from realcharts import CHARTS as REAL_CHARTS


@pytest.fixture
def remembered(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A program in helm's place whose version is remembered, in the environment helm gives a
    plugin."""
    program = tmp_path / "bin" / "helm"
    program.parent.mkdir()
    # It says which call it is on both outputs; `get` then waits 30 s.
    program.write_text('#!/bin/sh\necho "$1 out"\necho "$1 err" >&2\n[ "$1" = get ] && exec sleep 30\nexit 0\n')
    program.chmod(0o755)
    for name in [name for name in os.environ if name.startswith(("HELM_", "KUBECONFIG"))]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("HELM_BIN", str(program))
    monkeypatch.setenv("HELM_NAMESPACE", "shop")
    monkeypatch.setenv("HELM_DRIVER", "memory")
    monkeypatch.setenv("HELM_CACHE_HOME", str(tmp_path / "cache"))
    helm_versions.remembered(str(program), "version", lambda: "4.3.1")
    return program


@pytest.fixture
def chart(tmp_path: Path) -> str:
    return str(write_chart(tmp_path / "charts", "shop", {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\n"}))


def test_the_common_command_line_starts_the_render(remembered: Path, chart: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The release is read by helm plan itself from the memory, secret and configmap drivers
    (release/store.py); `helm get all` only from a store it does not read (issue 50 point 2)."""
    args = ["upgrade", "shop", chart, "--set", "a=1", "-f", "x.yaml", "-o", "json", "--atomic"]
    found = early.commands(args)
    assert [command[:3] for command in found] == [[str(remembered), "template", "shop"]]
    # Helm's order for values whatever the command line's: files first, then --set.
    assert found[0][3:] == [chart, "-n", "shop", "--include-crds", "--values", "x.yaml", "--set", "a=1", "--is-upgrade"]
    for driver in ("", "secrets", "configmap"):
        monkeypatch.setenv("HELM_DRIVER", driver)
        assert [command[1:3] for command in early.commands(args)] == [["upgrade", "--install"]]
    monkeypatch.setenv("HELM_DRIVER", "sql")
    found = early.commands(args)
    # The render first: it takes longer than the read.
    assert [command[1:3] for command in found] == [["upgrade", "--install"], ["get", "all"]]
    assert found[1][3:6] == ["shop", "-n", "shop"] and '"apply_method"' in found[1][-1]  # Helm 4's record


def test_with_a_cluster_the_render_is_the_server_dry_run(remembered: Path, chart: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HELM_DRIVER")
    found = early.commands(["upgrade", "shop", chart, "-n", "prod", "--set-json", "a=1", "-fx.yaml,y.yaml",
                            "--set-json", "b=2", "-f", "z.yaml"])
    assert found[0] == [str(remembered), "upgrade", "--install", "shop", chart, "-n", "prod", "--dry-run=server", "-o",
                        "json", "--values", "x.yaml", "--values", "y.yaml", "--values", "z.yaml",
                        "--set-json", "a=1", "--set-json", "b=2"]
    assert len(found) == 1  # the release is read by helm plan
    # Without values of the user's own, the server render is still the plan's first call.
    assert len(early.commands(["upgrade", "shop", chart])) == 1


def _memory_store(path: Path, *releases: dict[str, object]) -> Path:
    """A memory driver's file (HELM_MEMORY_DRIVER_DATA) of these releases, each with a name,
    a namespace, a version, a status and its user values (`config`)."""
    path.write_text(json.dumps([{"name": r["name"], "namespace": r.get("namespace", "shop"), "version": r["version"],
                                 "info": {"status": r["status"]}, "config": r.get("config")} for r in releases]))
    return path


def test_offline_without_values_the_render_takes_the_releases_values(remembered: Path, chart: str, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The render uses the values of the release (helm upgrade reuses them), which helm plan reads
    from the memory driver's files itself before the imports: given on standard input, as the
    plan gives them (commands/upgrade.py `_values_for_template`), so the plan takes the process."""
    store = _memory_store(tmp_path / "releases.json",
                          {"name": "shop", "version": 1, "status": "superseded", "config": {"a": 1}},
                          {"name": "shop", "version": 2, "status": "deployed", "config": {"a": 2, "big": 2**60}},
                          {"name": "shop", "version": 3, "status": "failed", "config": {"a": 3}},
                          {"name": "shop", "namespace": "other", "version": 1, "status": "deployed", "config": {}})
    monkeypatch.setenv("HELM_MEMORY_DRIVER_DATA", str(store))
    args = ["upgrade", "shop", chart, "-o", "json"]
    (command, stdin), = early.calls(args, reused_values)
    assert command == [str(remembered), "template", "shop", chart, "-n", "shop", "--include-crds", "--values", "-",
                       "--is-upgrade"]
    # The newest deployed revision's values (upgrade.go), integers as Go's float64 prints them.
    assert json.loads(stdin or "") == {"a": 2, "big": 1152921504606847000}


@pytest.mark.e2e
def test_the_render_given_the_releases_values_is_taken_with_them(remembered: Path, chart: str, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    store = _memory_store(tmp_path / "releases.json", {"name": "shop", "version": 1, "status": "deployed",
                                                       "config": {"a": 1}})
    monkeypatch.setenv("HELM_MEMORY_DRIVER_DATA", str(store))
    args = ["upgrade", "shop", chart]
    (command, stdin), = early.calls(args, reused_values)
    calls = HelmCalls()
    calls.start(args, reused_values)
    assert calls.take(command) is None  # not for a call given other input
    taken = calls.take(command, stdin)
    assert taken is not None and taken.communicate() == ("template out\n", "template err\n")
    calls.done(taken)
    # The records read for it are the plan's, once (release/store.py reads them no more).
    assert calls.memory_pairs(str(store)) is not None and calls.memory_pairs(str(store)) is None
    calls.end()


@pytest.mark.parametrize(("releases", "rendered"), [
    ([], ["--include-crds"]),  # no release: an install, without values
    ([{"name": "shop", "version": 1, "status": "uninstalled"}], ["--include-crds"]),  # installed again
    ([{"name": "shop", "version": 1, "status": "deployed", "config": {}}], ["--include-crds", "--is-upgrade"]),
    ([{"name": "shop", "version": 1, "status": "deployed"}], ["--include-crds", "--is-upgrade"]),  # null config
])
def test_offline_without_values_an_install_or_a_release_without_values_renders_without(
        remembered: Path, chart: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        releases: list[dict[str, object]], rendered: list[str]) -> None:
    monkeypatch.setenv("HELM_MEMORY_DRIVER_DATA", str(_memory_store(tmp_path / "releases.json", *releases)))
    (command, stdin), = early.calls(["upgrade", "shop", chart], reused_values)
    assert command[4:] == ["-n", "shop", *rendered] and stdin is None


@pytest.mark.parametrize("releases", [
    [{"name": "shop", "version": 1, "status": "deployed"}, {"name": "shop", "version": 2, "status": "pending-upgrade"}],
    [{"name": "shop", "version": 1, "status": "uninstalling"}],  # helm upgrade refuses both
    [{"name": "shop", "version": "one", "status": "deployed"}],  # a record the plan leaves to helm
])
def test_offline_without_values_a_release_helm_refuses_or_reads_itself_starts_nothing(
        remembered: Path, chart: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        releases: list[dict[str, object]]) -> None:
    monkeypatch.setenv("HELM_MEMORY_DRIVER_DATA", str(_memory_store(tmp_path / "releases.json", *releases)))
    assert early.calls(["upgrade", "shop", chart], reused_values) == []
    (tmp_path / "releases.json").write_text("{not json")  # nor a file helm cannot load
    assert early.calls(["upgrade", "shop", chart], reused_values) == []


def test_helm_3_reads_the_record_without_the_apply_method(remembered: Path, chart: str, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELM_CACHE_HOME", str(tmp_path / "helm3"))
    monkeypatch.setenv("HELM_DRIVER", "sql")  # a store helm reads
    helm_versions.remembered(str(remembered), "version", lambda: "3.19.0")
    (_, command) = early.commands(["upgrade", "shop", chart, "--set", "a=1"])
    assert '"apply_method"' not in command[-1]


@pytest.mark.parametrize("args", [
    ["rollback", "shop"],
    ["upgrade", "shop"],
    ["upgrade", "shop", "{chart}", "extra"],
    ["upgrade", "shop", "{chart}", "--help"],
    ["upgrade", "shop", "{chart}", "-f", "-"],  # values from standard input
    ["upgrade", "shop", "{chart}", "--set-file", "key=-"],
    ["upgrade", "shop", "{chart}", "--reuse-values", "--set", "a=1"],
    ["upgrade", "shop", "{chart}", "--render", "template"],
    ["upgrade", "shop", "{chart}", "--kube-version", "1.31"],
    ["upgrade", "shop", "{chart}", "--post-renderer", "./kustomize.sh"],
    ["upgrade", "shop", "{chart}", "--kube-context", "prod"],
    ["upgrade", "shop", "{chart}", "--version", "1.0.0"],
    ["upgrade", "shop", "repo/shop"],  # a chart to pull
    ["upgrade", "shop", "{chart}/templates"],  # a folder without Chart.yaml
    ["upgrade", "shop", "{chart}", "--no-such-flag"],
    ["upgrade", "shop", "{chart}", "--", "-x"],
])
def test_anything_else_starts_nothing(remembered: Path, chart: str, args: list[str]) -> None:
    assert early.commands([a.format(chart=chart) for a in args]) == []
    calls = HelmCalls()
    calls.start([a.format(chart=chart) for a in args])
    assert calls.take([str(remembered), "get"]) is None and calls.started_at is None


# The flags that change neither call, as they were when early.py listed them itself, less
# --take-ownership, which the server render takes (Helm checks ownership before a dry run returns).
NEUTRAL = {
    "install", "atomic", "rollback_on_failure", "wait", "wait_for_jobs", "timeout", "cleanup_on_fail",
    "create_namespace", "no_hooks", "force", "force_replace", "server_side", "force_conflicts", "history_max", "labels", "description",
    "render_subchart_notes", "hide_notes", "hide_secret", "no_drift",
    "output", "no_color", "color", "suppress", "source_root", "show_secrets", "full_values", "line_context",
    "out", "ignore", "ignore_files", "debug", "detailed_exitcode", "fail_on",
}


def test_the_neutral_flags_are_the_tables() -> None:
    assert {flag.dest for flag in UPGRADE if flag.neutral} == NEUTRAL


def _given(flag: Flag) -> list[str]:
    """The flag on a command line, with a value when it takes one."""
    return [flag.long] if not flag.takes_value or flag.bare else [f"{flag.long}=1"]


@pytest.mark.parametrize("flag", [flag for flag in UPGRADE if not flag.neutral and flag.reach is not Reach.VALUES
                                  and flag.dest != "namespace"], ids=lambda flag: flag.long)
def test_a_flag_not_marked_neutral_starts_nothing(remembered: Path, chart: str, flag: Flag) -> None:
    assert early.commands(["upgrade", "shop", chart, "--set", "a=1", *_given(flag)]) == []


@pytest.mark.parametrize("flag", [flag for flag in UPGRADE if flag.neutral], ids=lambda flag: flag.long)
def test_a_neutral_flag_starts_both_calls_as_without_it(remembered: Path, chart: str, flag: Flag) -> None:
    assert early.commands(["upgrade", "shop", chart, "--set", "a=1", *_given(flag)]) == \
        early.commands(["upgrade", "shop", chart, "--set", "a=1"])


def test_a_helm_not_yet_asked_has_its_render_started_alone(remembered: Path, chart: str,
                                                            monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The read's arguments depend on helm's major version; the render's do not (the plan asks
    the version first, then runs the same render)."""
    both = early.commands(["upgrade", "shop", chart, "--set", "a=1"])
    monkeypatch.setenv("HELM_CACHE_HOME", str(tmp_path / "empty"))
    assert early.commands(["upgrade", "shop", chart, "--set", "a=1"]) == both[:1]
    assert early.commands(["upgrade", "shop", chart]) == []  # offline without values: it waits for the read
    monkeypatch.setenv("HELM_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("HELM_NAMESPACE")  # the namespace would come from the kubeconfig
    assert early.commands(["upgrade", "shop", chart, "--set", "a=1"]) == []
    monkeypatch.setenv("HELM_NAMESPACE", "shop")
    monkeypatch.delenv("HELM_BIN")
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))  # no helm to find
    assert early.commands(["upgrade", "shop", chart, "--set", "a=1"]) == []


def test_the_apply_method_choices_are_the_models() -> None:
    flag = next(flag for flag in DIFF if flag.dest == "apply_method")
    assert flag.type is not None and not isinstance(flag.type, type)
    assert getattr(flag.type, "names") == tuple(method.value for method in ApplyMethod)
    assert flag.default == ApplyMethod.CSA.value


def _imports(module: str) -> set[str]:
    """The modules of helm plan that `module` imports, anywhere in it (functions and
    TYPE_CHECKING blocks too)."""
    found = set()
    for node in ast.walk(ast.parse((ROOT / (module.replace(".", "/") + ".py")).read_text())):
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
            [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom):
            names += [f"{node.module}.{alias.name}" for alias in node.names]
        found |= {name for name in names if (ROOT / (name.replace(".", "/") + ".py")).is_file()}
    return found


def test_what_early_imports_does_not_import_it() -> None:
    """No cycle through early.py (there was one: chart.py -> helm.py -> early.py -> chart.py)."""
    seen, todo = set(), ["deployah_plan.sources.early"]
    while todo:
        for name in _imports(todo.pop()) - seen:
            seen.add(name)
            todo.append(name)
    assert "deployah_plan.sources.early" not in seen


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet="/.a-", max_size=14))
def test_a_chart_path_is_written_as_pathlib_writes_it(path: str) -> None:
    """The start before the imports and the plan name the chart alike (a difference would cost
    a helm process): chart_path writes a path as pathlib does, without importing it."""
    assert chart_path.pathlib_text(path) == str(PurePosixPath(path))


def _templates_as_pathlib_finds_them(root: Path) -> tuple[list[str], bool]:
    """What the template scan read before it was written with os.path: pathlib's rglob."""
    texts = [p.read_text(errors="replace") for p in sorted(root.rglob("*"))
             if p.is_file() and "templates" in p.relative_to(root).parts]
    return texts, any(p.is_file() for p in root.rglob("charts/*.tgz"))


def test_the_template_scan_reads_what_pathlib_finds(tmp_path: Path) -> None:
    root = write_chart(tmp_path, "shop", {"a.yaml": "a"}, extra_files={
        "templates/deep/b.tpl": "b", "charts/sub/templates/c.yaml": "c", "charts/sub/charts/dep-1.0.0.tgz": "", "notes/templates": "d",
        "files/x.yaml": "not a template", "templatesx/e.yaml": "not one either", "charts/other.tgz": ""})
    (root / "templates" / "linked.yaml").symlink_to(root / "files" / "x.yaml")  # a linked file is read
    (root / "templates" / "loop").symlink_to(root, target_is_directory=True)  # a linked folder is not entered
    ours = (ROOT / "tests" / "charts").glob("*/*")
    real = REAL_CHARTS.glob("*/*")  # the real public charts where they are (tests/realcharts.py), none when absent
    for chart in [root, *(p for p in [*ours, *real] if (p / "Chart.yaml").is_file())]:
        texts, archived = chart_scan.folder_texts(str(chart))
        expected, expected_archived = _templates_as_pathlib_finds_them(chart)
        assert (sorted(texts), archived) == (sorted(expected), expected_archived), chart
    assert chart_scan.calls(["{{ lookup \"v1\" }}"], False) == (True, False, False)
    assert chart_scan.calls(["{{- randAlphaNum 5 }}"], False) == (False, True, False)
    assert chart_scan.calls([], True) == (False, True, False)  # a subchart archive is not looked into


# The patterns the template scan had before it found names with str.find: what it finds must not change.
_OLD_LOOKUP = re.compile(r"\{\{-?[^}]*\blookup\b")
_OLD_REGENERATES = re.compile(r"\{\{-?[^}]*\b(?:rand(?:AlphaNum|Alpha|Numeric|Ascii|Int|Bytes)|uuidv4|"
                              r"genCA(?:WithKey)?|genPrivateKey|genSelfSignedCert(?:WithKey)?|"
                              r"genSignedCert(?:WithKey)?|htpasswd|bcrypt|encryptAES|shuffle)\b")
_PIECES = ["{{", "{{-", "}}", "}", "{", "-", " ", "\n", "_", "x", "é", ".", "(", "lookup", "lookups", "xlookup",
           "randAlphaNum", "randAlpha", "rand", "randInt", "uuidv4", "uuidv4x", "genCA", "genCAWithKey",
           "genSignedCert", "genSelfSignedCertWithKey", "genPrivateKey", "htpasswd", "bcrypt", "encryptAES",
           "shuffle", "now", "_shuffle", "9rand"]


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join))
def test_the_template_scan_finds_what_the_whole_text_patterns_found(text: str) -> None:
    expected = (bool(_OLD_LOOKUP.search(text)), bool(_OLD_REGENERATES.search(text)))
    assert chart_scan.calls([text], False)[:2] == expected
