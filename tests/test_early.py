"""The plan's helm calls started before the imports (sources/early.py): taken only when they are
the plan's own calls, the same plan either way, and ended when nobody takes them."""
from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path, PurePosixPath
from typing import Iterator

import pytest
from hypothesis import given, settings, strategies as st

from conftest import EXAMPLE, ROOT, Store, clean_env, run_plan, write_chart
from kubeapi import FakeKube
from deployah_plan.errors import Interrupted
from deployah_plan.flags import DIFF, UPGRADE, Flag, Reach
from deployah_plan.model import ApplyMethod
from deployah_plan.sources import chart_path, chart_scan, early, helm_versions
from deployah_plan.sources.early import HelmCalls

EARLY = " (started before the imports)"


def _calls(err: str) -> list[str]:
    """The helm calls --debug printed: each call's first words, and whether it was started early."""
    return sorted(" ".join(line.split()[4:6]) + (EARLY if line.endswith(EARLY) else "")
                  for line in err.splitlines() if line.startswith("helm plan: running "))


@pytest.mark.parametrize("flags", [
    ("-f", "{values}"),
    ("-f{values}", "--set", "extra=1", "--set-string", "n=02", "-o", "json", "--atomic", "--wait", "--timeout", "5m"),
    ("--values={values},{values}", "--install", "--detailed-exitcode", "--fail-on", "delete:Job", "--no-color"),
], ids=["values", "values-set-output-deploy", "csv-values-gates"])
def test_the_second_plan_takes_the_calls_started_early(helm: Path, store: Store, tmp_path: Path,
                                                       flags: tuple[str, ...]) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    values = tmp_path / "values.yaml"
    values.write_text("extra: 2\n")
    args = ["upgrade", "shop", str(EXAMPLE / "chart-v2"), *(f.format(values=values) for f in flags), "--debug"]
    cache = str(tmp_path / "cache")
    # The first plan asks helm its version (remembered): the read, whose arguments depend on it,
    # is not started before it; the render is. (`template probe`: the Kubernetes version helm assumes.)
    first = run_plan(*args, helm=helm, store=store, HELM_CACHE_HOME=cache, HELM_NAMESPACE="shop")
    second = run_plan(*args, helm=helm, store=store, HELM_CACHE_HOME=cache, HELM_NAMESPACE="shop")
    assert (first.code, second.code) == ((2, 2) if "--detailed-exitcode" in flags else (0, 0)), first.err
    assert _calls(first.err) == ["get all", "template probe", "template shop" + EARLY, "version --template"]
    assert _calls(second.err) == ["get all" + EARLY, "template shop" + EARLY]
    assert second.out == first.out


def test_a_chart_that_makes_values_anew_has_both_renders_started_early(helm: Path, store: Store,
                                                                       tmp_path: Path) -> None:
    """Its templates call randAlphaNum: the plan renders it twice, the second beside the first,
    and both renders start before the imports."""
    templates = {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: {{ .Values.a | quote }}\n",
                 "secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: web\n"
                                "stringData:\n  token: {{ randAlphaNum 12 | quote }}\n"}
    v1 = write_chart(tmp_path / "v1", "web", templates, values="a: one\n")
    v2 = write_chart(tmp_path / "v2", "web", templates, values="a: two\n", version="0.2.0")
    store.add("web", v1, "shop")
    args = ["upgrade", "web", str(v2), "-n", "shop", "--set", "a=three", "--debug"]
    cache = str(tmp_path / "cache")
    first = run_plan(*args, helm=helm, store=store, HELM_CACHE_HOME=cache)
    second = run_plan(*args, helm=helm, store=store, HELM_CACHE_HOME=cache)
    assert (first.code, second.code) == (0, 0), second.err
    assert _calls(second.err) == ["get all" + EARLY, "template web" + EARLY, "template web" + EARLY]
    assert second.out == first.out


def test_a_release_to_install_takes_the_render_started_early(helm: Path, store: Store, tmp_path: Path) -> None:
    args = ["upgrade", "new", str(EXAMPLE / "chart-v1"), "-n", "shop", "--set", "extra=1", "--debug", "-o", "json"]
    cache = str(tmp_path / "cache")
    first = run_plan(*args, helm=helm, store=store, HELM_CACHE_HOME=cache)
    second = run_plan(*args, helm=helm, store=store, HELM_CACHE_HOME=cache)
    assert second.code == 0, second.err
    # The release does not exist: the install is rendered again, without --is-upgrade.
    assert _calls(second.err) == ["get all" + EARLY, "template new", "template new" + EARLY]
    assert second.out == first.out


@pytest.fixture
def kube() -> Iterator[FakeKube]:
    with FakeKube(namespace="default", context="fake-ctx") as server:
        yield server


def test_the_server_render_is_started_early(helm: Path, store: Store, kube: FakeKube, tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    kube.load_releases(store.path)
    kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
    args = ["upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "-o", "json", "--debug"]
    cache = str(tmp_path / "cache")
    first = run_plan(*args, helm=helm, KUBECONFIG=kubeconfig, HELM_CACHE_HOME=cache)
    second = run_plan(*args, helm=helm, KUBECONFIG=kubeconfig, HELM_CACHE_HOME=cache)
    assert second.code == 0, second.err
    calls = _calls(second.err)
    assert "get all" + EARLY in calls and "upgrade --install" + EARLY in calls
    assert len([call for call in calls if call.endswith(EARLY)]) == 2
    assert second.out == first.out


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


def test_the_common_command_line_starts_both_calls(remembered: Path, chart: str) -> None:
    found = early.commands(["upgrade", "shop", chart, "--set", "a=1", "-f", "x.yaml", "-o", "json", "--atomic"])
    # The render first: it takes longer than the read.
    assert [command[:3] for command in found] == [[str(remembered), "template", "shop"], [str(remembered), "get", "all"]]
    assert found[1][3:6] == ["shop", "-n", "shop"] and '"apply_method"' in found[1][-1]  # Helm 4's record
    # Helm's order for values whatever the command line's: files first, then --set.
    assert found[0][3:] == [chart, "-n", "shop", "--include-crds", "--values", "x.yaml", "--set", "a=1", "--is-upgrade"]


def test_with_a_cluster_the_render_is_the_server_dry_run(remembered: Path, chart: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HELM_DRIVER")
    found = early.commands(["upgrade", "shop", chart, "-n", "prod", "--set-json", "a=1", "-fx.yaml,y.yaml",
                            "--set-json", "b=2", "-f", "z.yaml"])
    assert found[0] == [str(remembered), "upgrade", "--install", "shop", chart, "-n", "prod", "--dry-run=server", "-o",
                        "json", "--values", "x.yaml", "--values", "y.yaml", "--values", "z.yaml",
                        "--set-json", "a=1", "--set-json", "b=2"]
    assert found[1][3:6] == ["shop", "-n", "prod"]
    # Without values of the user's own, the server render is still the plan's first call.
    assert len(early.commands(["upgrade", "shop", chart])) == 2


@pytest.mark.e2e
def test_the_render_is_started_twice_for_a_folder_whose_templates_make_values_anew(remembered: Path,
                                                                                   tmp_path: Path) -> None:
    chart = write_chart(tmp_path / "charts", "shop", {"s.yaml": "a: {{ genCA \"x\" 365 }}\n"})
    assert early.may_regenerate(str(chart))
    calls = HelmCalls()
    calls.start(["upgrade", "shop", str(chart), "--set", "a=1"])
    template, get = early.commands(["upgrade", "shop", str(chart), "--set", "a=1"])
    assert [calls.take(template) is not None for _ in range(3)] == [True, True, False]  # two renders, in turn
    calls.end()
    # Packaged, it is not opened here; nor is a folder whose templates make nothing anew.
    (tmp_path / "shop-0.1.0.tgz").write_bytes(b"")
    assert not early.may_regenerate(str(tmp_path / "shop-0.1.0.tgz"))
    plain = write_chart(tmp_path / "plain", "shop", {"s.yaml": "a: {{ .Values.a }}\n"})
    assert not early.may_regenerate(str(plain))


@pytest.mark.e2e
def test_the_templates_read_before_the_imports_are_not_read_again(remembered: Path, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """What the early start read of a chart folder's templates is what the plan takes (sources/chart.py
    `scan`), for that folder only."""
    from deployah_plan.sources import chart as charts

    chart = str(write_chart(tmp_path / "charts", "shop", {"s.yaml": "a: {{ lookup \"v1\" \"Secret\" \"\" \"\" }}\n"}))
    calls = HelmCalls()
    calls.start(["upgrade", "shop", chart, "--set", "a=1"])
    calls.end()
    assert calls.templates(chart) == (True, False) and calls.templates(chart + "/") is None
    read: list[str] = []
    monkeypatch.setattr(chart_scan, "folder_texts", lambda root: (read.append(root), ([], False))[1])
    assert charts.scan(chart, calls.templates(chart)) == charts.Templates(True, False) and read == []
    assert charts.scan(chart, calls.templates(chart + "/")) == charts.Templates(False, False) and read == [chart]
    # A packaged chart is not opened before the imports.
    (tmp_path / "shop-0.1.0.tgz").write_bytes(b"")
    packaged = HelmCalls()
    packaged.start(["upgrade", "shop", str(tmp_path / "shop-0.1.0.tgz"), "--set", "a=1"])
    packaged.end()
    assert packaged.templates(str(tmp_path / "shop-0.1.0.tgz")) is None


def test_offline_without_values_only_the_release_is_read_first(remembered: Path, chart: str) -> None:
    """The render then uses the values of the release (helm upgrade reuses them): it waits for
    the read."""
    found = early.commands(["upgrade", "shop", chart, "-o", "json"])
    assert [command[1:3] for command in found] == [["get", "all"]]


def test_helm_3_reads_the_record_without_the_apply_method(remembered: Path, chart: str, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELM_CACHE_HOME", str(tmp_path / "helm3"))
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


# The flags that change neither call, as they were when early.py listed them itself.
NEUTRAL = {
    "install", "atomic", "rollback_on_failure", "wait", "wait_for_jobs", "timeout", "cleanup_on_fail",
    "create_namespace", "no_hooks", "force", "force_replace", "history_max", "labels", "description",
    "render_subchart_notes", "hide_notes", "hide_secret", "take_ownership", "no_drift",
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
    assert early.commands(["upgrade", "shop", chart]) == []  # offline without values: the read alone, which waits
    monkeypatch.setenv("HELM_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("HELM_NAMESPACE")  # the namespace would come from the kubeconfig
    assert early.commands(["upgrade", "shop", chart, "--set", "a=1"]) == []
    monkeypatch.setenv("HELM_NAMESPACE", "shop")
    monkeypatch.delenv("HELM_BIN")
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))  # no helm to find
    assert early.commands(["upgrade", "shop", chart, "--set", "a=1"]) == []


@pytest.mark.e2e
def test_what_is_taken_is_read_as_the_plans_own_call_and_the_rest_is_ended(remembered: Path, chart: str) -> None:
    args = ["upgrade", "shop", chart, "--set", "a=1"]
    template, get = early.commands(args)
    calls = HelmCalls()
    calls.start(args)
    assert calls.started_at is not None
    taken = calls.take(template)
    assert taken is not None and calls.take(template) is None  # taken once
    assert taken.communicate() == ("template out\n", "template err\n")  # both outputs, as text
    calls.done(taken)
    waiting = calls.take(get)
    assert waiting is not None and waiting.poll() is None  # still running
    calls.end()
    assert waiting.returncode is not None  # ended, and reaped
    with pytest.raises(Interrupted):  # once ended, nothing more starts
        calls.popen(get, stdin=False)


@pytest.mark.e2e
def test_what_nobody_took_is_ended(remembered: Path, chart: str) -> None:
    calls = HelmCalls()
    calls.start(["upgrade", "shop", chart, "--set", "a=1"])
    running = list(calls._running)
    assert len(running) == 2 and any(process.poll() is None for process in running)  # `get` waits 30 s
    calls.end()
    assert all(process.returncode is not None for process in running)
    assert calls.take(early.commands(["upgrade", "shop", chart, "--set", "a=1"])[0]) is None


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


# What the plan imports before its first helm calls start: each of these took milliseconds
# (msgspec 15, pathlib 6, shutil 3, subprocess 8 beyond enum, typing 6, dataclasses and yaml more),
# and the plan needs none of them to read the command line, name the calls and start them.
_NOT_BEFORE_HELM = ("msgspec", "pathlib", "shutil", "dataclasses", "inspect", "yaml", "click", "json.tool",
                    "concurrent.futures", "logging", "tempfile", "urllib.parse", "subprocess", "typing",
                    "threading", "contextlib", "selectors", "locale")


@pytest.mark.e2e
def test_the_first_calls_are_named_without_the_heavy_imports(remembered: Path, chart: str) -> None:
    probe = ("import sys; from deployah_plan.sources import early; "
             "found = early.commands(sys.argv[1:]); "
             "print(len(found)); print(' '.join(sorted(sys.modules)))")
    # -S: without site, whose packages (an editable install's finder) import pathlib themselves.
    done = subprocess.run([sys.executable, "-S", "-c", probe, "upgrade", "shop", chart, "-f", "x.yaml", "-o", "json"],
                          capture_output=True, text=True, cwd=ROOT, check=True)
    started, loaded = done.stdout.splitlines()
    assert started == "2"
    assert sorted(set(loaded.split()) & set(_NOT_BEFORE_HELM)) == []


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
    for chart in [root, *(p for p in (ROOT / "tests" / "charts").glob("*/*") if (p / "Chart.yaml").is_file())]:
        texts, archived = chart_scan.folder_texts(str(chart))
        expected, expected_archived = _templates_as_pathlib_finds_them(chart)
        assert (sorted(texts), archived) == (sorted(expected), expected_archived), chart
    assert chart_scan.calls(["{{ lookup \"v1\" }}"], False) == (True, False)
    assert chart_scan.calls(["{{- randAlphaNum 5 }}"], False) == (False, True)
    assert chart_scan.calls([], True) == (False, True)  # a subchart archive is not looked into


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
    assert chart_scan.calls([text], False) == expected


# What a plan of a chart on disk with values flags does without: each was measured on a small
# chart's plan (docs/performance.md) and is imported where an input needs it, if at all.
_NOT_ON_THE_PATH = ("click", "concurrent.futures", "logging", "pathlib", "urllib.parse", "tempfile", "shutil",
                    "difflib", "dataclasses", "site", "textwrap", "msgspec._json_schema", "subprocess", "selectors",
                    "locale", "gzip")


def test_a_plan_imports_none_of_what_it_does_without(helm: Path, store: Store, tmp_path: Path) -> None:
    templates = {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: {{ .Values.a | quote }}\n"}
    v1 = write_chart(tmp_path / "v1", "web", templates, values="a: one\n")
    v2 = write_chart(tmp_path / "v2", "web", templates, values="a: two\n", version="0.2.0")
    store.add("web", v1, "shop")
    probe = ("import sys\n"
             "sys.argv = ['helm-plan', *sys.argv[1:]]\n"
             "from deployah_plan.entry import command\n"
             "from deployah_plan.sources.early import HelmCalls\n"
             "calls = HelmCalls()\n"
             "code = command(sys.argv[1:], calls)\n"
             "calls.end()\n"
             f"sys.stderr.write('imported: %s\\n' % [m for m in {_NOT_ON_THE_PATH!r} if m in sys.modules])\n"
             "sys.stderr.write('exit: %d\\n' % code)\n")
    import sysconfig

    # Started as the launcher starts it: no site module, the packages folder on the path.
    env = clean_env(HELM_BIN=str(helm), HELM_DRIVER="memory", HELM_MEMORY_DRIVER_DATA=str(store.path),
                    HELM_CACHE_HOME=str(tmp_path / "cache"),
                    PYTHONPATH=os.pathsep.join([str(ROOT), sysconfig.get_paths()["purelib"]]))
    for args in (["--set", "a=three"], ["--set", "a=three", "-o", "json"], []):
        # What helm plan remembers of a helm binary is asked the first time only (sources/helm_versions.py).
        subprocess.run([sys.executable, "-m", "deployah_plan", "upgrade", "web", str(v2), "-n", "shop"],
                       capture_output=True, env=env, cwd=tmp_path)
        done = subprocess.run([sys.executable, "-S", "-c", probe, "upgrade", "web", str(v2), "-n", "shop", *args],
                              capture_output=True, text=True, env=env, cwd=tmp_path)
        assert done.stderr.endswith("exit: 0\n") and "a: one" not in done.stdout, done.stderr
        imported = done.stderr.rsplit("imported: ", 1)[1].split("\n")[0]
        assert imported == "[]", (args, done.stderr)
