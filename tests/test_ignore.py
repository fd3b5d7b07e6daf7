"""Ignore rules (deployah_plan/core/ignore.py): parsing, matching, and what they do to exit codes."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT, run_plan
from deployah_plan.core.ignore import apply_ignore, parse_file, parse_flag, parse_selector
from deployah_plan.errors import UsageError
from deployah_plan.build import build_plan
from deployah_plan.model import Action, FieldChange, FieldOp, Header, HelmAction, ResourceChange, ResourceRef
from test_bad_input import _one_line_error

CASE = ROOT / "tests" / "cases" / "create-update-delete"
WEB = ResourceRef("apps/v1", "Deployment", "prod", "web")
OBJ = {"metadata": {"name": "web", "labels": {"app": "web", "tier": "front"}}}


def test_selectors_read_like_kubernetes() -> None:
    labels = {"app": "web", "tier": "front"}
    def match(text: str) -> bool:
        return all(r.matches(labels) for r in parse_selector(text, "t"))
    assert match("app=web") and match("app==web,tier in (front, back)") and match("app, !legacy")
    assert match("tier notin (db)") and match("missing!=x")
    assert not match("app!=web") and not match("tier in (db)") and not match("!app") and not match("missing")
    with pytest.raises(UsageError):
        parse_selector("app in (web", "t")


def test_a_rule_ignores_the_fields_under_its_pointers() -> None:
    replicas = FieldChange("/spec/replicas", FieldOp.REPLACE, 1, 3)
    image = FieldChange("/spec/template/spec/containers/0/image", FieldOp.REPLACE, "a", "b")
    rule = parse_flag("{paths: [/spec/replicas], target: {kind: Deployment, labelSelector: app=web}}", 1)
    plan = apply_ignore(build_plan(Header("r", "prod", revision=2, previous_revision=1), HelmAction.UPGRADE,
                                   [ResourceChange(WEB, Action.UPDATE, OBJ, OBJ, (replicas, image))]), [rule])
    (change,) = plan.changes
    assert change.fields == (image,) and change.ignored_fields == (replicas,) and change.ignored_by == ("--ignore #1",)
    assert plan.summary.update == 1 and plan.summary.ignored == 0
    # Every field ignored: the whole change moves to `ignored`, and nothing is left to change.
    everything = parse_flag('{paths: ["/spec"]}', 2)
    plan = apply_ignore(plan, [everything])
    assert plan.changes == () and [c.resource for c in plan.ignored] == [WEB]
    assert plan.summary.ignored == 1 and not plan.has_changes
    # A pointer above a change never splits it; a different label never matches.
    wide = FieldChange("/spec", FieldOp.ADD, None, {"replicas": 3})
    other = parse_flag("{paths: [/spec/replicas, /spec], target: {labelSelector: app=db}}", 3)
    assert apply_ignore(build_plan(Header("r", "prod", revision=2, previous_revision=1), HelmAction.UPGRADE,
                                   [ResourceChange(WEB, Action.UPDATE, OBJ, OBJ, (wide,))]),
                        [parse_flag("{paths: [/spec/replicas]}", 1), other]).ignored == ()


@pytest.mark.parametrize("text, needle", [
    ("{paths: []}", "non-empty list of paths"),
    ("{paths: [spec/replicas]}", "is not a JSON Pointer"),
    ("{paths: [/a~2b]}", "is not a JSON Pointer"),
    ("{paths: [/a], target: {kinds: Deployment}}", "unknown key 'kinds'"),
    ("{paths: [/a], target: {labelSelector: 'app in (x'}}", "bad selector"),
    ("[/spec/replicas]", "must be a mapping"),
    ("{paths: [/a], target: {name: [x]}}", "name must be a string"),
    ("{paths: [/a]", "not valid YAML"),
])
def test_bad_rules_say_what_is_wrong(text: str, needle: str) -> None:
    with pytest.raises(UsageError) as err:
        parse_flag(text, 1)
    assert needle in str(err.value) and "--ignore #1" in str(err.value)


def test_ignore_files_take_flux_and_argo_shapes() -> None:
    flux = parse_file("ignore:\n  - paths: [/spec/replicas]\n    target: {kind: Deployment}\n", "f.yaml")
    argo = parse_file("ignoreDifferences:\n  - kind: Deployment\n    jsonPointers: [/spec/replicas]\n", "a.yaml")
    assert [(r.kind, r.paths, r.label) for r in flux + argo] == [
        ("Deployment", ("/spec/replicas",), "f.yaml #1"), ("Deployment", ("/spec/replicas",), "a.yaml #1")]
    with pytest.raises(UsageError, match="holds a list of rules"):
        parse_file("paths: [/a]\n", "x.yaml")


@pytest.mark.e2e
def test_ignored_changes_do_not_count_for_detailed_exitcode() -> None:
    everything = "{paths: ['']}"
    result = run_plan("diff", "previous.yaml", "desired.yaml", "--detailed-exitcode", "--ignore", everything,
                      "-o", "json", cwd=CASE)
    assert result.code == 0, result.err
    doc = result.json()
    assert doc["changes"] == [] and len(doc["ignored"]) == 6 and doc["summary"]["has_changes"] is False
    assert {c["ignored_by"][0] for c in doc["ignored"]} == {"--ignore #1"}
    assert run_plan("diff", "previous.yaml", "desired.yaml", "--detailed-exitcode", cwd=CASE).code == 2


@pytest.mark.e2e
def test_bad_ignore_input_is_one_line(tmp_path: Path) -> None:
    _one_line_error(run_plan("diff", "previous.yaml", "desired.yaml", "--ignore", "{paths: [nope]}", cwd=CASE),
                    "--ignore #1", "not a JSON Pointer")
    _one_line_error(run_plan("diff", "previous.yaml", "desired.yaml", "--ignore-file", str(tmp_path / "none.yaml"),
                             cwd=CASE), "cannot read the ignore file", "--ignore-file")
    (tmp_path / "bad.yaml").write_text("- paths: [/a]\n  target: {kind: [x]}\n")
    _one_line_error(run_plan("diff", "previous.yaml", "desired.yaml", "--ignore-file", str(tmp_path / "bad.yaml"),
                             cwd=CASE), "bad.yaml #1", "kind must be a string")


@pytest.mark.e2e
@pytest.mark.parametrize("labels", ["5", "just-a-string", "[app, web]", "{app: 7}"])
def test_labels_that_are_not_a_map_are_planned_not_crashed_on(tmp_path: Path, labels: str) -> None:
    """Kubernetes refuses such an object; the plan shows its change, and a selector rule, which
    cannot judge it, hides nothing of it (a map with a number for a value is read as Kubernetes
    would read "7")."""
    for name, size in (("previous.yaml", "small"), ("desired.yaml", "large")):
        (tmp_path / name).write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  labels: {labels}\n"
                                     f"  annotations: {labels}\ndata:\n  size: {size}\n")
    for selector in ("labelSelector: app!=web", "annotationSelector: app=7"):
        rule = f"{{target: {{{selector}}}, paths: [/data]}}"
        result = run_plan("diff", "previous.yaml", "desired.yaml", "--ignore", rule, "-o", "json", cwd=tmp_path)
        assert result.code == 0, result.err
        doc = result.json()
        ignored = labels == "{app: 7}"  # a map: app!=web and app=7 both select it
        assert [c["resource"]["name"] for c in doc["changes"]] == ([] if ignored else ["app"]), selector
