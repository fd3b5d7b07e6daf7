"""Why each change (core/causes.py), on renders given as text: the previous release, the new chart
with the previous values (`between`) and the desired render. Planned with real helm:
tests/e2e/test_causes.py."""
from __future__ import annotations

from typing import Any

from builders import plan
from deployah_plan.core.causes import Defaults, Given, chart_defaults
from deployah_plan.manifests import split_stream
from deployah_plan.model import Attribution, Cause, FieldOp, Plan


def _web(image: str, replicas: int, env: list[str], label: str = "1") -> str:
    entries = "".join(f"\n        - {{name: {name}, value: x}}" for name in env)
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, labels: {{chart: '{label}'}}}}\n"
            f"spec:\n  replicas: {replicas}\n  template:\n    spec:\n      containers:\n      - name: web\n"
            f"        image: {image}\n        env:{entries or ' []'}\n")


def _cm(name: str) -> str:
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}}}\ndata: {{a: b}}\n"


def _planned(previous: list[str], between: list[str], desired: list[str]) -> Plan:
    return plan(previous, desired, causes=Given(Attribution.RENDERED, split_stream("---\n".join(between), "between")))


def _causes(made: Plan) -> dict[str, Any]:
    return {c.resource.name: {f.path: f.cause for f in c.fields} if c.fields else c.cause for c in made.changes}


def test_each_field_is_placed_by_where_it_moved_a_keyed_entry_by_its_key() -> None:
    made = _planned([_web("a:1", 1, ["B"]), _cm("old"), _cm("legacy")],
                    [_web("a:1", 2, ["B"], label="2"), _cm("svc"), _cm("legacy")],
                    [_web("a:2", 2, ["A", "B"], label="2"), _cm("svc"), _cm("extra")])
    assert _causes(made) == {
        "web": {"/metadata/labels/chart": Cause.CHART, "/spec/replicas": Cause.CHART,
                "/spec/template/spec/containers/0/image": Cause.VALUES,
                "/spec/template/spec/containers/0/env/0": Cause.VALUES},  # inserted before B: B did not move
        "svc": Cause.CHART, "extra": Cause.VALUES, "old": Cause.CHART, "legacy": Cause.VALUES,
    }
    assert next(c for c in made.changes if c.resource.name == "web").cause is Cause.BOTH


def test_a_field_both_moved_is_both_and_a_create_the_values_changed_further_too() -> None:
    made = _planned([_web("a:1", 1, [])], [_web("a:2", 1, []), _cm("svc")],
                    [_web("a:3", 1, []), _cm("svc").replace("a: b", "a: c")])
    assert _causes(made) == {"web": {"/spec/template/spec/containers/0/image": Cause.BOTH}, "svc": Cause.BOTH}


def test_values_unchanged_every_change_is_the_charts() -> None:
    made = plan([_web("a:1", 1, [])], [_web("a:2", 1, []), _cm("svc")], causes=Given(Attribution.CHART))
    assert _causes(made) == {"web": {"/spec/template/spec/containers/0/image": Cause.CHART}, "svc": Cause.CHART}
    assert made.attribution is Attribution.CHART


def test_an_install_and_no_attribution_have_no_cause() -> None:
    assert plan(None, [_cm("a")], causes=Given(Attribution.CHART)).attribution is Attribution.NONE
    assert _causes(plan(None, [_cm("a")], causes=Given(Attribution.CHART))) == {"a": None}
    assert _causes(plan([_cm("a")], [_cm("a"), _cm("b")])) == {"b": None}


def test_chart_defaults_leave_out_what_the_user_sets_and_name_what_they_moved() -> None:
    made = _planned([_web("a:1", 1, [])], [_web("a:1", 2, [])], [_web("a:2", 2, [])])
    found = chart_defaults(Defaults(
        before={"replicas": 1, "image": {"tag": "1"}, "gone": 5, "same": {"x": 1}, "flag": True},
        after={"replicas": 2, "image": {"tag": "2"}, "new": "n", "same": {"x": 1}, "flag": False},
        user_keys=(("image",),)), made.changes)
    assert [(d.key, d.op, d.before, d.after, [r.name for r in d.moved]) for d in found] == [
        ("flag", FieldOp.REPLACE, True, False, []),  # a bool tells no field apart
        ("gone", FieldOp.REMOVE, 5, None, []),
        ("new", FieldOp.ADD, None, "n", []),
        ("replicas", FieldOp.REPLACE, 1, 2, ["web"]),
    ]


def test_a_default_names_only_the_objects_it_alone_can_have_moved() -> None:
    # Issue 49 point 2: two defaults that changed from 1 to 2 (one of them set by the user) both
    # could have moved replicas: neither names the Deployment; a field the values moved too is
    # not the default's; a label "1" -> "2" is not the number 1 -> 2.
    made = _planned([_web("a:1", 1, []), _cm("x")], [_web("a:1", 2, [], label="2"), _cm("x")],
                    [_web("a:1", 2, [], label="2"), _cm("x")])
    ambiguous = chart_defaults(Defaults(before={"replicas": 1, "workers": 1}, after={"replicas": 2, "workers": 2},
                                        user_keys=(("workers",),)), made.changes)
    assert [(d.key, d.moved) for d in ambiguous] == [("replicas", ())]
    alone = chart_defaults(Defaults(before={"replicas": 1, "version": 1}, after={"replicas": 2, "version": 3},
                                    user_keys=()), made.changes)
    assert [(d.key, [r.name for r in d.moved]) for d in alone] == [("replicas", ["web"]), ("version", [])]
    both = _planned([_web("a:1", 1, [])], [_web("a:2", 1, [])], [_web("a:3", 1, [])])
    moved = chart_defaults(Defaults(before={"image": "a:1"}, after={"image": "a:3"}, user_keys=()), both.changes)
    assert [(d.key, d.moved) for d in moved] == [("image", ())]  # a:1 -> a:3 is both's, not the default's


def test_a_render_read_only_where_it_differs_places_by_the_same_rules_without_a_diff() -> None:
    # Issue 49 (d): the render with the previous values read only where its text differs from
    # the desired render's; an object it has word for word is the desired one, placed as the
    # chart's without diffing it.
    previous = [_web("a:1", 1, ["B"]), _cm("old"), _cm("legacy")]
    between = [_web("a:1", 2, ["B"], label="2"), _cm("svc"), _cm("legacy")]
    desired = [_web("a:2", 2, ["A", "B"], label="2"), _cm("svc"), _cm("extra")]
    whole = _causes(_planned(previous, between, desired))
    differing = [doc for doc in between if doc not in desired]
    unlike = [doc for doc in desired if doc not in between]
    partial = plan(previous, desired, causes=Given(Attribution.RENDERED, split_stream("---\n".join(differing), "between"),
                                                   split_stream("---\n".join(unlike), "unlike")))
    assert _causes(partial) == whole

    import deployah_plan.core.causes as module

    diffed: list[Any] = []
    real = module.diff_objects
    module.diff_objects = lambda *args, **kwargs: diffed.append(args) or real(*args, **kwargs)  # type: ignore[assignment]
    try:
        made = plan([_web("a:1", 1, [])], [_web("a:1", 2, [])],
                    causes=Given(Attribution.RENDERED, split_stream("", "between"), split_stream("", "unlike")))
    finally:
        module.diff_objects = real
    assert _causes(made) == {"web": {"/spec/replicas": Cause.CHART}} and diffed == []
