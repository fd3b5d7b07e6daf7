"""--context, --suppress, --color and -o summary: how a plan is shown, never what it says."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_plan

pytestmark = pytest.mark.e2e  # each test starts helm-plan or helm as a process

CONFIG = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  app.ini: |\n"
          + "".join(f"    line{i} = {{v{i}}}\n" for i in range(1, 11)))
SECRET = "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\nstringData:\n  password: '{p}'\n"


def _files(tmp_path: Path) -> tuple[str, str]:
    before = {f"v{i}": i for i in range(1, 11)}
    after = {**before, "v5": 50}
    previous, desired = tmp_path / "previous.yaml", tmp_path / "desired.yaml"
    previous.write_text(CONFIG.format(**before) + SECRET.format(p="old"))
    desired.write_text(CONFIG.format(**after) + SECRET.format(p="new"))
    return str(previous), str(desired)


def _line_diff(doc: dict[str, object]) -> list[str]:
    change = next(c for c in doc["changes"] if c["resource"]["kind"] == "ConfigMap")  # type: ignore[index, union-attr]
    return next(f["line_diff"] for f in change["fields"] if "line_diff" in f)  # type: ignore[no-any-return]


def test_context_sets_the_unchanged_lines_around_a_change(tmp_path: Path) -> None:
    previous, desired = _files(tmp_path)
    default = _line_diff(run_plan("diff", previous, desired, "-o", "json").json())
    assert [line for line in default if not line.startswith("@@")] == [
        " line3 = 3", " line4 = 4", "-line5 = 5", "+line5 = 50", " line6 = 6", " line7 = 7"]  # 2, the default
    none = _line_diff(run_plan("diff", previous, desired, "-o", "json", "--context", "0").json())
    assert [line for line in none if not line.startswith("@@")] == ["-line5 = 5", "+line5 = 50"]
    four = _line_diff(run_plan("diff", previous, desired, "-o", "json", "--context", "4").json())
    assert len([line for line in four if not line.startswith(("@@", "-", "+"))]) == 8
    refused = run_plan("diff", previous, desired, "--context", "-1")
    assert refused.code == 1 and refused.err.startswith("helm plan: error: Invalid value for '--context'")


def test_suppress_lists_the_object_without_its_fields_and_it_still_counts(tmp_path: Path) -> None:
    previous, desired = _files(tmp_path)
    shown = run_plan("diff", previous, desired, "--suppress", "ConfigMap", "--detailed-exitcode")
    assert shown.code == 2
    assert "ConfigMap default/app" in shown.out and "1 field change not shown: --suppress ConfigMap" in shown.out
    assert "line5" not in shown.out
    markdown = run_plan("diff", previous, desired, "--suppress", "ConfigMap", "-o", "markdown")
    assert "1 field change not shown: --suppress ConfigMap" in markdown.out and "line5" not in markdown.out
    as_json = run_plan("diff", previous, desired, "--suppress", "ConfigMap", "-o", "json").json()
    assert _line_diff(as_json)  # JSON keeps every field change
    only_secret = run_plan("diff", previous, desired, "--suppress", "Secret")
    assert "line5" in only_secret.out and "not shown: --suppress Secret" in only_secret.out


def test_color_forces_colour_into_a_pipe_and_no_color_wins(tmp_path: Path) -> None:
    previous, desired = _files(tmp_path)
    assert "\x1b[" not in run_plan("diff", previous, desired).out  # a pipe: no colour by default
    assert "\x1b[" in run_plan("diff", previous, desired, "--color").out
    assert "\x1b[" not in run_plan("diff", previous, desired, "--color", "--no-color").out


def test_summary_output(tmp_path: Path) -> None:
    previous, desired = _files(tmp_path)
    out = run_plan("diff", previous, desired, "-o", "summary").out.splitlines()
    assert out == ["~ Secret default/creds: update", "~ ConfigMap default/app: update",  # Helm's order
                   "Plan: 0 to create, 2 to update, 0 to delete."]
    saved = tmp_path / "plan.json"
    run_plan("diff", previous, desired, "--out", str(saved))
    assert run_plan("show", str(saved), "-o", "summary").out.splitlines() == out
    assert json.loads(saved.read_text())["summary"]["update"] == 2


NEW_OBJECTS = ("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\ndata:\n  feature_flag: 'on'\n"
               "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n"
               "    helm.sh/hook: pre-upgrade\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n"
               "      containers:\n      - name: migrate\n        image: migrate-tool:1\n")


def test_suppress_hides_what_a_created_object_or_hook_contains_and_keeps_its_line(tmp_path: Path) -> None:
    previous, desired = _files(tmp_path)
    Path(desired).write_text(Path(desired).read_text() + NEW_OBJECTS)
    shown = run_plan("diff", previous, desired, "--suppress", "ConfigMap", "--suppress", "Job")
    assert "+ ConfigMap default/extra  (create)" in shown.out
    assert "(content not shown: --suppress ConfigMap)" in shown.out
    assert "(content not shown: --suppress Job)" in shown.out and "Job default/migrate" in shown.out
    assert "feature_flag" not in shown.out and "migrate-tool" not in shown.out  # nor in "What matters"
    no_secret = run_plan("diff", previous, desired, "--suppress", "Secret").out
    assert "Secret default/creds  (update)" in no_secret and "password" not in no_secret  # its keys unsaid
    markdown = run_plan("diff", previous, desired, "--suppress", "ConfigMap", "--suppress", "Job", "-o", "markdown")
    assert "ConfigMap default/extra" in markdown.out and "content not shown: --suppress ConfigMap" in markdown.out
    assert "content not shown: --suppress Job" in markdown.out
    assert "feature_flag" not in markdown.out and "migrate-tool" not in markdown.out
    unsuppressed = run_plan("diff", previous, desired)  # the same plan shows both without the flag
    assert "feature_flag" in unsuppressed.out and "migrate-tool" in unsuppressed.out
    as_json = run_plan("diff", previous, desired, "--suppress", "ConfigMap", "--suppress", "Job", "-o", "json").out
    assert "feature_flag" in as_json and "migrate-tool" in as_json  # JSON keeps every object whole
