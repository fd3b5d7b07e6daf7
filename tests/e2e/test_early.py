"""The plan's helm calls started before the imports (sources/early.py): taken only when they are
the plan's own calls, the same plan either way, and ended when nobody takes them."""
from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any, Iterator

import pytest

from conftest import EXAMPLE, ROOT, Result, Store, clean_env, run_plan, write_chart
from kubeapi import FakeKube
from deployah_plan.errors import Interrupted
from deployah_plan.sources import chart_scan, early
from deployah_plan.sources.early import HelmCalls
from sources.test_early import chart, remembered

EARLY = " (started before the imports)"


def _twice(args: list[str], tmp_path: Path, **given: Any) -> tuple[Result, Result]:
    """The same plan run twice with one helm cache: the second finds helm's versions remembered,
    and so starts what the first could not before the imports."""
    cache = str(tmp_path / "cache")
    first = run_plan(*args, HELM_CACHE_HOME=cache, **given)
    return first, run_plan(*args, HELM_CACHE_HOME=cache, **given)


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
    # The first plan asks helm its version (remembered); the render is started before it.
    # (`template probe`: the Kubernetes version helm assumes.) The release is read by helm plan
    # from the memory driver's file: the render is the plan's one helm process (issue 50 point 2).
    first, second = _twice(args, tmp_path, helm=helm, store=store, HELM_NAMESPACE="shop")
    assert (first.code, second.code) == ((2, 2) if "--detailed-exitcode" in flags else (0, 0)), first.err
    # Beside it, the new chart rendered with the release's previous values, which tells the
    # chart's changes from the values' (commands/causes.py): it needs the release read first.
    assert _calls(first.err) == ["template probe", "template shop", "template shop" + EARLY, "version --template"]
    assert _calls(second.err) == ["template shop", "template shop" + EARLY]
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
    first, second = _twice(args, tmp_path, helm=helm, store=store)
    assert (first.code, second.code) == (0, 0), second.err
    # And the new chart with the previous values (commands/causes.py), once the release is read.
    assert _calls(second.err) == ["template web", "template web" + EARLY, "template web" + EARLY]
    assert second.out == first.out


def _packaged(folder: Path) -> Path:
    """The chart folder `folder` packaged beside it, as `helm package` lays it out (NAME/...)."""
    path = folder.parent / f"{folder.name}.tgz"
    with tarfile.open(path, "w:gz") as archive:
        archive.add(folder, arcname=folder.name)
    return path


@pytest.mark.parametrize("packaged", [False, True], ids=["folder", "package"])
@pytest.mark.parametrize("values", [("--set", "a=three"), ()], ids=["values-flags", "release-values"])
def test_templates_that_read_the_kubernetes_version_have_the_older_render_started_early(
        helm: Path, store: Store, tmp_path: Path, values: tuple[str, ...], packaged: bool) -> None:
    """Offline, templates that read the cluster's version are rendered for an older version too
    (commands/upgrade.py `_older`): once helm template's default version is remembered, that
    render starts before the imports beside the first, with the same values and input. A
    packaged chart is opened for that once the first render has started."""
    templates = {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: {{ .Values.a | quote }}\n"
                            "  minor: {{ .Capabilities.KubeVersion.Minor | quote }}\n"}
    v1 = write_chart(tmp_path / "v1", "web", templates, values="a: one\n")
    v2 = write_chart(tmp_path / "v2", "web", templates, values="a: two\n", version="0.2.0")
    store.add("web", v1, "shop", flags=("--set", "a=kept"))
    args = ["upgrade", "web", str(_packaged(v2) if packaged else v2), "-n", "shop", *values, "--debug"]
    first, second = _twice(args, tmp_path, helm=helm, store=store)
    assert (first.code, second.code) == (0, 0), second.err
    older = [line for line in second.err.splitlines() if "--kube-version" in line]
    assert len(older) == 1 and older[0].endswith(EARLY), second.err
    # The first plan asked helm its default version: its older render started after the imports.
    assert not any(line.endswith(EARLY) for line in first.err.splitlines() if "--kube-version" in line)
    assert second.out == first.out
    # With values flags, also the new chart with the previous values (commands/causes.py).
    assert _calls(second.err) == ["template web"] * bool(values) + ["template web" + EARLY] * 2


def test_a_release_to_install_takes_the_render_started_early(helm: Path, store: Store, tmp_path: Path) -> None:
    args = ["upgrade", "new", str(EXAMPLE / "chart-v1"), "-n", "shop", "--set", "extra=1", "--debug", "-o", "json"]
    first, second = _twice(args, tmp_path, helm=helm, store=store)
    assert second.code == 0, second.err
    # The release does not exist: the install is rendered again, without --is-upgrade.
    assert _calls(second.err) == ["template new", "template new" + EARLY]
    assert second.out == first.out


def test_a_plan_without_values_flags_takes_the_render_started_early(helm: Path, store: Store, tmp_path: Path) -> None:
    """Offline without a values flag, the render needs the release's values (helm upgrade
    reuses them): they are read from the memory driver's file before the imports and given to
    the render on standard input, as the plan gives them; the same plan as one whose render
    starts after the imports (--reset-then-reuse-values renders with the same values, and is
    not a flag the early start takes)."""
    store.add("shop", EXAMPLE / "chart-v1", "shop", flags=("--set", "replicas=3", "--set", "extra=kept"))
    args = ["upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "-o", "json", "--debug"]
    cache = str(tmp_path / "cache")
    early_plan = run_plan(*args, helm=helm, store=store, HELM_CACHE_HOME=cache)
    late_plan = run_plan(*args, "--reset-then-reuse-values", helm=helm, store=store, HELM_CACHE_HOME=cache)
    assert (early_plan.code, late_plan.code) == (0, 0), early_plan.err
    assert _calls(early_plan.err) == ["template probe", "template shop" + EARLY, "version --template"]
    assert "template shop /" in early_plan.err and "--values - --is-upgrade (started before" in early_plan.err
    assert _calls(late_plan.err) == ["template shop"]
    assert early_plan.out == late_plan.out
    assert '"replicas"' not in early_plan.err  # the values go on standard input, not on the command line


def test_an_install_without_values_flags_takes_the_render_started_early(helm: Path, store: Store,
                                                                       tmp_path: Path) -> None:
    args = ["upgrade", "new", str(EXAMPLE / "chart-v1"), "-n", "shop", "-o", "json", "--debug"]
    first, second = _twice(args, tmp_path, helm=helm, store=store)
    assert second.code == 0, second.err
    # No release: rendered as an install (no --is-upgrade, no values) before the imports.
    assert _calls(second.err) == ["template new" + EARLY]
    assert "--is-upgrade" not in second.err
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
    first, second = _twice(args, tmp_path, helm=helm, KUBECONFIG=kubeconfig)
    assert second.code == 0, second.err
    # The release is read from its Secret by helm plan: the dry run is the plan's one helm process.
    assert _calls(second.err) == ["upgrade --install" + EARLY]
    assert "read release shop from its secret storage (1 revisions)" in second.err
    assert second.out == first.out


@pytest.mark.e2e
def test_the_render_is_started_twice_for_a_folder_whose_templates_make_values_anew(remembered: Path,
                                                                                   tmp_path: Path) -> None:
    chart = write_chart(tmp_path / "charts", "shop", {"s.yaml": "a: {{ genCA \"x\" 365 }}\n"})
    assert early.may_regenerate(str(chart))
    calls = HelmCalls()
    calls.start(["upgrade", "shop", str(chart), "--set", "a=1"])
    template, = early.commands(["upgrade", "shop", str(chart), "--set", "a=1"])
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
    assert calls.templates(chart) == (True, False, False) and calls.templates(chart + "/") is None
    read: list[str] = []
    monkeypatch.setattr(chart_scan, "folder_texts", lambda root: (read.append(root), ([], False))[1])
    assert charts.scan(chart, calls.templates(chart)) == charts.Templates(True, False) and read == []
    assert charts.scan(chart, calls.templates(chart + "/")) == charts.Templates(False, False) and read == [chart]
    # A packaged chart is opened once the first calls have started, for its Chart.yaml too; the
    # plan takes what was read (sources/chart.py `read_local`) and does not open it again.
    package = str(_packaged(Path(chart)))
    packaged = HelmCalls()
    packaged.start(["upgrade", "shop", package, "--set", "a=1"])
    packaged.end()
    assert packaged.templates(package) == (True, False, False)
    opened: list[str] = []
    monkeypatch.setattr(chart_scan, "package", lambda target, templates=True: (opened.append(target), (None, None))[1])
    local, templates = charts.read_local(package, packaged.templates(package), packaged.chart_yaml(package))
    assert (local.name, local.version, templates, opened) == ("shop", "0.1.0", charts.Templates(True, False), [])
    # What cannot be read as a package is left to the plan, which says what is wrong.
    monkeypatch.undo()
    (tmp_path / "shop-0.1.0.tgz").write_bytes(b"not an archive")
    unreadable = HelmCalls()
    unreadable.start(["upgrade", "shop", str(tmp_path / "shop-0.1.0.tgz"), "--set", "a=1"])
    unreadable.end()
    assert unreadable.templates(str(tmp_path / "shop-0.1.0.tgz")) is None
    assert unreadable.chart_yaml(str(tmp_path / "shop-0.1.0.tgz")) is None


@pytest.mark.e2e
def test_what_is_taken_is_read_as_the_plans_own_call_and_the_rest_is_ended(remembered: Path, chart: str,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELM_DRIVER", "sql")  # a store helm reads: `helm get all` is started too
    args = ["upgrade", "shop", chart, "--set", "a=1"]
    template, get = early.commands(args)
    calls = HelmCalls()
    calls.start(args)
    assert calls.started_at is not None
    taken = calls.take(template)
    assert taken is not None and calls.take(template) is None  # taken once
    assert taken.communicate() == ("upgrade out\n", "upgrade err\n")  # both outputs, as text (the server render)
    calls.done(taken)
    waiting = calls.take(get)
    assert waiting is not None and waiting.poll() is None  # still running
    calls.end()
    assert waiting.returncode is not None  # ended, and reaped
    with pytest.raises(Interrupted):  # once ended, nothing more starts
        calls.popen(get, stdin=False)


@pytest.mark.e2e
def test_what_nobody_took_is_ended(remembered: Path, chart: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELM_DRIVER", "sql")  # a store helm reads: `helm get all` is started too
    calls = HelmCalls()
    calls.start(["upgrade", "shop", chart, "--set", "a=1"])
    running = list(calls._running)
    assert len(running) == 2 and any(process.poll() is None for process in running)  # `get` waits 30 s
    calls.end()
    assert all(process.returncode is not None for process in running)
    assert calls.take(early.commands(["upgrade", "shop", chart, "--set", "a=1"])[0]) is None


# What the plan imports before its first helm calls start: each of these took milliseconds
# (msgspec 15, pathlib 6, shutil 3, subprocess 8 beyond enum, typing 6, dataclasses and yaml more),
# and the plan needs none of them to read the command line, name the calls and start them.
_NOT_BEFORE_HELM = ("msgspec", "pathlib", "shutil", "dataclasses", "inspect", "yaml", "click", "json.tool",
                    "concurrent.futures", "logging", "tempfile", "urllib.parse", "subprocess", "typing",
                    "threading", "contextlib", "selectors", "locale")


@pytest.mark.e2e
def test_the_first_calls_are_named_without_the_heavy_imports(remembered: Path, chart: str) -> None:
    # The entry point's module first, as the launcher imports it (its `run` starts the calls).
    probe = ("import sys; import deployah_plan.entry; from deployah_plan.sources import early; "
             "found = early.commands(sys.argv[1:]); "
             "print(len(found)); print(' '.join(sorted(sys.modules)))")
    # -S: without site, whose packages (an editable install's finder) import pathlib themselves.
    done = subprocess.run([sys.executable, "-S", "-c", probe, "upgrade", "shop", chart, "-f", "x.yaml", "-o", "json"],
                          capture_output=True, text=True, cwd=ROOT, check=True)
    started, loaded = done.stdout.splitlines()
    assert started == "1"  # the render: the memory driver's release is read by helm plan
    assert sorted(set(loaded.split()) & set(_NOT_BEFORE_HELM)) == []


@pytest.mark.e2e
def test_the_release_for_the_first_render_is_read_without_the_heavy_imports(remembered: Path, chart: str,
                                                                            tmp_path: Path) -> None:
    """Without a values flag the render takes the release's values, read from the memory driver's
    file before it starts: by json alone (no typing, base64 or decimal on the way)."""
    store = tmp_path / "releases.json"
    store.write_text('[{"name": "shop", "namespace": "shop", "version": 1, "info": {"status": "deployed"}, '
                     '"config": {"a": 1}}]')
    probe = ("import sys; import deployah_plan.entry; from deployah_plan.sources import early; "
             "found = early.calls(sys.argv[1:], deployah_plan.entry.reused_values); "
             "print(found[0][1]); print(' '.join(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-S", "-c", probe, "upgrade", "shop", chart],
                          capture_output=True, text=True, cwd=ROOT, check=True,
                          env={**os.environ, "HELM_MEMORY_DRIVER_DATA": str(store)})
    given, loaded = done.stdout.splitlines()
    assert given == '{"a": 1}'  # the release's values, for the render's standard input
    assert sorted(set(loaded.split()) & {*_NOT_BEFORE_HELM, "base64", "decimal", "gzip"}) == []


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
