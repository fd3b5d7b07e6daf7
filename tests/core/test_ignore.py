"""Ignore rules (deployah_plan/core/ignore.py): parsing, matching, and what they do to exit codes."""
from __future__ import annotations


import pytest

from deployah_plan.core.ignore import apply_ignore, parse_file, parse_flag, parse_selector
from deployah_plan.errors import UsageError
from deployah_plan.build import build_plan
from deployah_plan.model import Action, FieldChange, FieldOp, Header, HelmAction, ResourceChange, ResourceRef

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
