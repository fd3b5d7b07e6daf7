"""Every bad input gives one clear line on stderr, exit code 1, and no traceback."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import EXAMPLE, Result, Store, run_plan, write_chart

pytestmark = pytest.mark.e2e  # each test starts helm-plan or helm as a process


def _one_line_error(result: Result, *needles: str) -> None:
    assert result.code == 1, (result.out, result.err)
    assert result.out == ""  # never a partial plan
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert lines[0].startswith("helm plan: error: ")
    assert "Traceback" not in result.err
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_helm_not_found(store: Store, tmp_path: Path) -> None:
    result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v1"), store=store, PATH=str(tmp_path))
    _one_line_error(result, "helm not found", "HELM_BIN")
    result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v1"), helm=tmp_path / "nohelm", store=store)
    _one_line_error(result, "helm not found")


def test_helm_fails_to_render_and_its_message_is_shown(helm: Path, store: Store, tmp_path: Path) -> None:
    chart = write_chart(tmp_path, "boom", {"cm.yaml": '{{ fail "replicas must be positive" }}\n'})
    _one_line_error(run_plan("upgrade", "boom", str(chart), helm=helm, store=store),
                    "helm template failed", "replicas must be positive")


def test_chart_missing(helm: Path, store: Store, tmp_path: Path) -> None:
    _one_line_error(run_plan("upgrade", "x", str(tmp_path / "nochart"), helm=helm, store=store),
                    "chart", "not found")
    (tmp_path / "empty").mkdir()
    _one_line_error(run_plan("upgrade", "x", str(tmp_path / "empty"), helm=helm, store=store),
                    "no Chart.yaml")


def test_values_file_missing(helm: Path, store: Store, tmp_path: Path) -> None:
    _one_line_error(run_plan("upgrade", "shop", str(EXAMPLE / "chart-v1"), "-f", str(tmp_path / "nope.yaml"),
                             helm=helm, store=store), "values file", "nope.yaml", "not found")
    _one_line_error(run_plan("upgrade", "shop", str(EXAMPLE / "chart-v1"), "--set-file", f"a={tmp_path}/x",
                             helm=helm, store=store), "--set-file")


def test_malformed_yaml_names_the_source(helm: Path, store: Store, tmp_path: Path) -> None:
    chart = write_chart(tmp_path, "bad", {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata: [1\n"})
    _one_line_error(run_plan("upgrade", "bad", str(chart), helm=helm, store=store), "bad/templates/cm.yaml")
    manifest = tmp_path / "desired.yaml"
    manifest.write_text("---\n# Source: app/templates/ok.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n"
                        "---\n# Source: app/templates/broken.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n"
                        "  name: b\n  labels: {a: [}\n")
    _one_line_error(run_plan("diff", "-", str(manifest), stdin=""), "malformed YAML", "app/templates/broken.yaml")


def test_duplicate_identity(helm: Path, store: Store, tmp_path: Path) -> None:
    chart = write_chart(tmp_path, "dup", {
        "a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: same\n",
        "b.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: same\n  namespace: default\n",
    })
    _one_line_error(run_plan("upgrade", "dup", str(chart), helm=helm, store=store),
                    "same identity", "dup/templates/a.yaml", "dup/templates/b.yaml")


@pytest.mark.parametrize("body,needle", [
    ("apiVersion: v1\nmetadata:\n  name: a\n", "no kind"),
    ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: {a: b}\n", "no metadata.name"),
    ("kind: ConfigMap\nmetadata:\n  name: a\n", "no apiVersion"),
    ("- just\n- a list\n", "must be a mapping"),
])
def test_document_without_kind_or_name(body: str, needle: str, tmp_path: Path) -> None:
    desired = tmp_path / "desired.yaml"
    desired.write_text("---\n# Source: app/templates/x.yaml\n" + body)
    _one_line_error(run_plan("diff", "-", str(desired), stdin=""), needle, "app/templates/x.yaml")


def test_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    lines = ['apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\ndata:\n  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"  {cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(lines) + "\n")
    _one_line_error(run_plan("diff", "-", str(bomb), stdin=""), "excessive aliasing")


def test_pending_release_is_refused(helm: Path, store: Store) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop", revision=1, status="deployed")
    store.add("shop", EXAMPLE / "chart-v2", "shop", revision=2, status="pending-upgrade")
    _one_line_error(run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", helm=helm, store=store),
                    "operation in progress", "pending-upgrade", "revision 2", "helm rollback")


def test_unknown_flag_is_an_error_not_changes(helm: Path, store: Store) -> None:
    _one_line_error(run_plan("upgrade", "shop", str(EXAMPLE / "chart-v1"), "--bogus", helm=helm, store=store),
                    "--bogus")


def test_server_only_flags_conflict(helm: Path, store: Store) -> None:
    _one_line_error(run_plan("upgrade", "shop", str(EXAMPLE / "chart-v1"), "--render", "server",
                             "--kube-version", "1.30.0", helm=helm, store=store), "--render template")


def test_a_chart_message_on_stderr_is_escaped(helm: Path, store: Store, tmp_path: Path) -> None:
    # A chart's `fail` message quoted by helm's error: ESC, and a line that starts a workflow command.
    chart = write_chart(tmp_path, "boom", {"cm.yaml": '{{ fail "\\x1b[2J\\n::add-mask::x\\r::stop-commands::t" }}\n'})
    result = run_plan("upgrade", "boom", str(chart), helm=helm, store=store)
    _one_line_error(result, "helm template failed", "\\x1b[2J")
    assert "\x1b" not in result.err and "\r" not in result.err, repr(result.err)
    assert not any(line.lstrip().startswith("::") for line in result.err.splitlines())


def test_a_corrupt_memory_driver_file_names_the_call_and_the_file(helm: Path, tmp_path: Path) -> None:
    """Both helms fail to read HELM_MEMORY_DRIVER_DATA that holds no releases; the one line says
    which call failed and what to check."""
    garbage = tmp_path / "releases.json"
    garbage.write_text("garbage{{\n")
    result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", helm=helm,
                      HELM_DRIVER="memory", HELM_MEMORY_DRIVER_DATA=str(garbage))
    _one_line_error(result, "failed: ", "Unable to unmarshal memory driver data", "HELM_MEMORY_DRIVER_DATA names a file")
