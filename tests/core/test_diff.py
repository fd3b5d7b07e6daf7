"""Unit tests of deployah_plan/core/diff.py, fast enough for scripts/mutation.

The property tests of tests/core/test_diff_properties.py check that a change set turns `before` into
`after`; these check that it is the smallest true one (README: "the smallest true set of
changes"): equal values give nothing, edits that keep the order give no `reorder`, equal
entries are matched first come first served, and a keyed entry is a `rename` only when at
least 60% of its content (key fields aside) is unchanged. Pointers are RFC 6901."""
from __future__ import annotations

import copy
import itertools
import json
from typing import Any

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from deployah_plan.core.diff import (
    _in_order, declared_surface, diff, diff_objects, escape, key_label, leaves, line_diff, readable_path, same, similarity,
    tokens,
)
from deployah_plan.model import FieldChange, FieldOp
from deployah_plan.yamlkube import MAX_DEPTH


def deployment(containers: list[dict[str, Any]], **meta: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", **meta},
            "spec": {"template": {"spec": {"containers": containers}}}}


def ops(changes: list[FieldChange]) -> list[tuple[str, str]]:
    return [(c.op.value, c.path) for c in changes]


CONTAINERS = "/spec/template/spec/containers"


# -- pointers (RFC 6901) -------------------------------------------------------------------

@pytest.mark.parametrize("token, escaped", [("a/b", "a~1b"), ("a~b", "a~0b"), ("~/", "~0~1"), ("~1", "~01"), ("x", "x")])
def test_pointer_tokens_escape_and_unescape(token: str, escaped: str) -> None:
    assert escape(token) == escaped
    assert tokens("/" + escaped) == [token]


def test_tokens_of_pointers() -> None:
    assert tokens("") == []
    assert tokens("/") == [""]
    assert tokens("/a/0/b~1c") == ["a", "0", "b/c"]


@pytest.mark.parametrize("pointer, keys, shown", [
    ("", (), "(whole object)"),
    ("/spec/containers/0/image", (), "spec.containers[0].image"),
    ("/spec/containers/0/image", (("/spec/containers/0", {"name": "app"}),), "spec.containers[name=app].image"),
    ("/spec/ports/1", (("/spec/ports/1", {"containerPort": 80, "protocol": "TCP"}),), "spec.ports[containerPort=80,protocol=TCP]"),
    ("/metadata/annotations/a~1b", (), 'metadata.annotations["a/b"]'),
    ("/data/my.key", (), 'data["my.key"]'),
    ("/data/_x-y", (), "data._x-y"),
    ("/0/a", (), "[0].a"),
    ("/a b", (), '["a b"]'),
    ("/9lives", (), '["9lives"]'),
])
def test_readable_paths(pointer: str, keys: tuple[tuple[str, dict[str, Any]], ...], shown: str) -> None:
    assert readable_path(pointer, keys) == shown


def test_key_label() -> None:
    assert key_label({"name": "a"}) == "name=a"
    assert key_label({"containerPort": 80, "protocol": "TCP"}) == "containerPort=80,protocol=TCP"


# -- equality --------------------------------------------------------------------------------

@pytest.mark.parametrize("a, b, equal", [
    (1, 1.0, True), (True, 1, False), (False, 0, False), (1, True, False), (float("nan"), float("nan"), True),
    ({"a": [1, {"b": 2}]}, {"a": [1.0, {"b": 2.0}]}, True), ({"a": 1}, {"a": 1, "b": None}, False),
    ([1, 2], [2, 1], False), ([1], [1, 1], False), ("1", 1, False), (None, None, True), ({"a": 1}, {"b": 1}, False),
    ([1], (1,), False), (2**64, 2**64 + 1, False), (0.5, 0.5, True), ("a", "a", True), ({}, [], False),
])
def test_same_compares_as_json(a: Any, b: Any, equal: bool) -> None:
    assert same(a, b) is equal and same(b, a) is equal


def test_leaves_and_similarity() -> None:
    assert sorted(leaves({"a": [1, {"b": "x"}], "c": None})) == [("/a/0", "1"), ("/a/1/b", '"x"'), ("/c", "null")]
    assert leaves(3) == [("", "3")]
    assert similarity({}, {}) == 1.0
    assert similarity({"a": 1}, {}) == 0.0
    assert similarity({"a": 1, "b": 2}, {"a": 1, "b": 3}) == 0.5
    assert similarity({"a": 1, "b": 2, "c": 3}, {"a": 1}) == 0.5


# -- maps and scalars -----------------------------------------------------------------------

def test_map_fields_added_removed_replaced_in_document_order() -> None:
    changes = diff({"a": 1, "b": {"c": 1}, "d": "x", "gone": [1]}, {"a": 2, "b": {"c": 1, "e": 2}, "d": "x", "new": {}})
    assert [(c.op.value, c.path, c.before, c.after) for c in changes] == [
        ("replace", "/a", 1, 2), ("add", "/b/e", None, 2), ("remove", "/gone", [1], None), ("add", "/new", None, {})]


def test_null_is_a_field_left_out() -> None:
    assert diff({"a": None}, {}) == [] and diff({}, {"a": None}) == [] and diff({"a": None}, {"a": None}) == []
    assert ops(diff({"a": None}, {"a": {"b": 1, "c": 2}})) == [("add", "/a/b"), ("add", "/a/c")]
    assert ops(diff({"a": {"b": 1}}, {"a": None})) == [("remove", "/a/b")]
    assert ops(diff({"a": [1, 2]}, {"a": None})) == [("remove", "/a/0"), ("remove", "/a/1")]
    assert ops(diff({"a": None}, {"a": [3]})) == [("add", "/a/0")]
    assert [(c.op.value, c.before, c.after) for c in diff({"a": None}, {"a": {}})] == [("add", None, {})]
    assert [(c.op.value, c.before, c.after) for c in diff({"a": []}, {"a": None})] == [("remove", [], None)]
    assert [(c.op.value, c.before, c.after) for c in diff({"a": "x"}, {"a": None})] == [("remove", "x", None)]
    assert [(c.op.value, c.before, c.after) for c in diff({"a": None}, {"a": 0})] == [("add", None, 0)]


def test_types_never_equal_across_kinds() -> None:
    assert [(c.op, c.before, c.after) for c in diff({"a": 1}, {"a": "1"})] == [(FieldOp.REPLACE, 1, "1")]
    assert ops(diff({"a": {"b": 1}}, {"a": [1]})) == [("replace", "/a")]
    assert ops(diff({"a": True}, {"a": 1})) == [("replace", "/a")]
    assert diff({"a": 1}, {"a": 1.0}) == [] and diff(1, 1) == [] and diff("a", "a") == []
    assert [(c.path, c.op) for c in diff(1, 2)] == [("", FieldOp.REPLACE)]


def test_a_single_line_string_is_one_replace_without_lines() -> None:
    (change,) = diff({"a": "x"}, {"a": "y"})
    assert change.lines == () and change.parts == () and not change.equivalent
    (trailing,) = diff({"a": "x\n"}, {"a": "y\n"})
    assert trailing.lines == () and trailing.parts == ()


def test_a_multi_line_string_carries_a_unified_diff_with_two_lines_of_context() -> None:
    before = "a\nb\nc\nd\ne\nf\ng\n"
    (change,) = diff({"s": before}, {"s": before.replace("d", "D")})
    assert change.lines == ("@@ -2,5 +2,5 @@", " b", " c", "-d", "+D", " e", " f")
    assert line_diff("a\nb", "a\nc", context=0) == ("@@ -2 +2 @@", "-b", "+c")
    (one_side,) = diff({"s": "a"}, {"s": "a\nb"})
    assert one_side.lines == ("@@ -1 +1,2 @@", " a", "+b")


def test_embedded_documents_give_inner_changes() -> None:
    (js,) = diff({"c": '{"a": 1, "b": [1, 2]}'}, {"c": '{"b": [1, 2], "a": 2}'})
    assert js.parts_of == "json" and [(p.op, p.path, p.before, p.after) for p in js.parts] == [
        (FieldOp.REPLACE, "/a", 1, 2)]
    (listed,) = diff({"c": "[1, 2]"}, {"c": "[1, 3]"})
    assert listed.parts_of == "json" and ops(list(listed.parts)) == [("replace", "/1")]
    (ym,) = diff({"c": "a: 1\nb: 2\n"}, {"c": "a: 1\nb: 3\n"})
    assert ym.parts_of == "yaml" and ops(list(ym.parts)) == [("replace", "/b")] and ym.lines == ()
    (spaced,) = diff({"c": '  {"a": 1}'}, {"c": '  {"a": 2}'})
    assert spaced.parts_of == "json"
    (scalar_yaml,) = diff({"c": "just\ntext"}, {"c": "just\nmore"})
    assert scalar_yaml.parts == () and scalar_yaml.lines
    (bad_json,) = diff({"c": "{not json"}, {"c": "{not json either"})
    assert bad_json.parts == () and bad_json.lines == ()
    (two_docs,) = diff({"c": "a: 1\n---\nb: 1\n"}, {"c": "a: 1\n---\nb: 2\n"})
    assert two_docs.parts == () and two_docs.lines
    (bad_yaml,) = diff({"c": "a: [\nb"}, {"c": "a: [\nc"})
    assert bad_yaml.parts == () and bad_yaml.lines


# -- lists: minimality -------------------------------------------------------------------------

def test_equal_keyed_lists_give_nothing() -> None:
    containers = [{"name": n, "image": "x"} for n in "abc"]
    assert diff_objects(deployment(containers), deployment(copy.deepcopy(containers))) == []


def test_inserting_before_an_equal_entry_is_an_add_not_a_move() -> None:
    assert ops(diff({"l": ["x", "y"]}, {"l": ["y", "x", "y"]})) == [("add", "/l/0")]
    assert ops(diff({"l": ["x", "x", "y", "x", "x"]}, {"l": ["y", "x"]})) == [
        ("remove", "/l/0"), ("remove", "/l/1"), ("remove", "/l/4")]
    assert ops(diff({"l": ["x", "x"]}, {"l": ["y", "x"]})) == [("replace", "/l/0")]


def test_equal_entries_are_matched_first_come_first_served() -> None:
    # Dropping the last of two equal entries, or appending one, is no reorder.
    assert ops(diff({"l": ["x", "x", "y"]}, {"l": ["x", "y"]})) == [("remove", "/l/1")]
    assert ops(diff({"l": ["x", "y"]}, {"l": ["x", "y", "x"]})) == [("add", "/l/2")]
    assert ops(diff({"l": [{"a": 1}, {"a": 1}, {"b": 1}]}, {"l": [{"a": 1}, {"b": 1}]})) == [("remove", "/l/1")]
    assert ops(diff({"l": ["x", "x", "z"]}, {"l": ["x", "x"]})) == [("remove", "/l/2")]


def test_set_lists_match_equal_members_first_come_first_served() -> None:
    before = deployment([], finalizers=["a", "a", "b"])
    assert ops(diff_objects(before, deployment([], finalizers=["a", "b"]))) == [("remove", "/metadata/finalizers/1")]
    assert ops(diff_objects(before, deployment([], finalizers=["b", "a", "a"]))) == []
    assert ops(diff_objects(deployment([], finalizers=["a"]), deployment([], finalizers=["a", "c"]))) == [
        ("add", "/metadata/finalizers/1")]


def test_unkeyed_entries_match_by_content_then_by_position() -> None:
    changes = diff({"l": [{"a": 1}, {"b": 1}, {"c": 1}]}, {"l": [{"b": 1}, {"a": 1}, {"c": 2}]})
    assert [(c.op.value, c.path, c.before, c.after) for c in changes] == [
        ("reorder", "/l", [0, 1, 2], [1, 0, 2]), ("replace", "/l/2/c", 1, 2)]
    positional = diff({"l": [{"a": 1}, {"b": 1}]}, {"l": [{"a": 2}, {"b": 2}]})
    assert ops(positional) == [("replace", "/l/0/a"), ("replace", "/l/1/b")]
    longer = diff({"l": [1]}, {"l": [2, 3]})
    assert ops(longer) == [("replace", "/l/0"), ("add", "/l/1")]
    shorter = diff({"l": [1, 2, 3]}, {"l": [4]})
    assert ops(shorter) == [("replace", "/l/0"), ("remove", "/l/1"), ("remove", "/l/2")]


def test_flags_match_by_name_only_when_the_name_is_unique() -> None:
    (change,) = diff({"args": ["--v=1", "serve"]}, {"args": ["--v=2", "serve"]})
    assert (change.path, change.before, change.after) == ("/args/0", "--v=1", "--v=2")
    moved = diff({"args": ["-q", "--v=1"]}, {"args": ["--v=2", "-q"]})
    assert ops(moved) == [("reorder", "/args"), ("replace", "/args/0")]
    # Two flags of one name: matched by content, then position, never by name.
    twice = diff({"args": ["--x=1", "--x=2"]}, {"args": ["--x=2", "--x=3"]})
    assert ops(twice) == [("add", "/args/1"), ("remove", "/args/0")]  # --x=2 stays first: no move
    assert ops(diff({"args": ["--x=1"]}, {"args": ["--x=2", "--x=3"]})) == [("replace", "/args/0"), ("add", "/args/1")]
    assert ops(diff({"args": ["run"]}, {"args": ["walk"]})) == [("replace", "/args/0")]
    assert ops(diff({"args": ["b", "a=1"]}, {"args": ["a=2", "b"]})) == [("add", "/args/0"), ("remove", "/args/1")]


def test_a_reorder_names_the_matched_entries_in_each_order() -> None:
    (change,) = diff({"l": ["a", "b", "c"]}, {"l": ["c", "a", "b"]})
    assert (change.op, change.path, change.before, change.after) == (FieldOp.REORDER, "/l", [0, 1, 2], [2, 0, 1])
    (keyed,) = diff_objects(deployment([{"name": "a"}, {"name": "b"}]), deployment([{"name": "b"}, {"name": "a"}]))
    assert (keyed.op, keyed.before, keyed.after) == (FieldOp.REORDER, [{"name": "a"}, {"name": "b"}],
                                                     [{"name": "b"}, {"name": "a"}])


ALPHABET = st.sampled_from(["x", "y", "z", 1, {"a": 1}])
NEW = st.sampled_from(["n", "m", 2, {"a": 2}])


@st.composite
def order_keeping_edits(draw: st.DrawFn) -> tuple[list[Any], list[Any]]:
    """A list and an edit of it that inserts and deletes entries but moves none."""
    before = draw(st.lists(ALPHABET, max_size=6))
    after: list[Any] = []
    for entry in before:
        after += draw(st.lists(NEW, max_size=1))  # insert an entry that was not there
        if draw(st.booleans()):  # keep or delete
            after.append(entry)
    after += draw(st.lists(NEW, max_size=2))
    return before, after


@settings(max_examples=150, deadline=None)
@given(order_keeping_edits())
def test_edits_that_move_nothing_give_no_reorder(edit: tuple[list[Any], list[Any]]) -> None:
    before, after = edit
    changes = diff({"l": before}, {"l": after})
    assert FieldOp.REORDER not in [c.op for c in changes]
    assert len(changes) <= len(before) + len(after)
    if before == after:
        assert changes == []


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), unique=True, max_size=5), st.data())
def test_keyed_entries_that_keep_their_order_are_never_moved_or_renamed(names: list[str], data: st.DataObject) -> None:
    kept = [n for n in names if data.draw(st.booleans())]
    before = deployment([{"name": n, "image": f"{n}:1"} for n in names])
    after = deployment([{"name": n, "image": f"{n}:2" if data.draw(st.booleans()) else f"{n}:1"} for n in kept])
    changes = diff_objects(before, after)
    assert not {FieldOp.REORDER, FieldOp.RENAME} & {c.op for c in changes}
    assert sum(c.op is FieldOp.REMOVE for c in changes) == len(names) - len(kept)


# -- keyed lists and renames -------------------------------------------------------------------

def _container(name: str, shared: int, own: int, tag: str) -> dict[str, Any]:
    """A container with `shared` fields common to every tag and `own` fields of its tag."""
    return {"name": name, **{f"s{i}": "same" for i in range(shared)}, **{f"o{i}": tag for i in range(own)}}


@pytest.mark.parametrize("shared, own, rename", [
    (5, 0, True), (4, 1, True), (3, 2, True),  # 3 of 5 leaves unchanged: 60%, the threshold
    (2, 3, False), (1, 4, False), (0, 5, False), (1, 1, False),  # 50%
])
def test_a_key_change_is_a_rename_only_when_most_content_is_unchanged(shared: int, own: int, rename: bool) -> None:
    before = deployment([_container("side", 0, 1, "s"), _container("app", shared, own, "old")])
    after = deployment([_container("side", 0, 1, "s"), _container("web", shared, own, "new")])
    changes = diff_objects(before, after)
    if rename:
        assert changes[0].op is FieldOp.RENAME and changes[0].path == f"{CONTAINERS}/1"
        assert (changes[0].before, changes[0].after) == ({"name": "app"}, {"name": "web"})
        assert [c.op for c in changes[1:]] == [FieldOp.REPLACE] * own
    else:
        assert ops(changes) == [("add", f"{CONTAINERS}/1"), ("remove", f"{CONTAINERS}/1")]


def test_different_containers_are_never_paired_as_a_rename() -> None:
    app = {"name": "app", "image": "app:1", "imagePullPolicy": "IfNotPresent", "command": ["/app"], "ports": [{"containerPort": 8080}]}
    proxy = {"name": "proxy", "image": "envoy:1", "imagePullPolicy": "IfNotPresent", "args": ["-c", "/etc/envoy.yaml"],
             "ports": [{"containerPort": 9901}]}
    changes = diff_objects(deployment([app]), deployment([proxy]))
    assert FieldOp.RENAME not in [c.op for c in changes]


def test_renames_pair_the_closest_entries_first() -> None:
    before = deployment([{"name": "a", "image": "x", "tag": "1", "pull": "p"}, {"name": "b", "image": "y", "tag": "2", "pull": "q"}])
    after = deployment([{"name": "c", "image": "y", "tag": "2", "pull": "q"}, {"name": "d", "image": "x", "tag": "1", "pull": "p"}])
    renames = [(c.before, c.after) for c in diff_objects(before, after) if c.op is FieldOp.RENAME]
    assert renames == [({"name": "b"}, {"name": "c"}), ({"name": "a"}, {"name": "d"})]


def test_an_entry_with_nothing_but_its_key_is_never_a_rename() -> None:
    assert [c.op for c in diff_objects(deployment([{"name": "a"}]), deployment([{"name": "b"}]))] == [
        FieldOp.ADD, FieldOp.REMOVE]


def test_keyed_changes_name_their_entries() -> None:
    before = deployment([{"name": "side", "image": "s"}, {"name": "app", "image": "a:1", "env": [{"name": "A", "value": "1"}]}])
    after = deployment([{"name": "side", "image": "s"}, {"name": "app", "image": "a:1", "env": [{"name": "A", "value": "2"}]}])
    (change,) = diff_objects(before, after)
    assert change.path == f"{CONTAINERS}/1/env/0/value"
    assert change.keys == ((f"{CONTAINERS}/1", {"name": "app"}), (f"{CONTAINERS}/1/env/0", {"name": "A"}))
    removed = diff_objects(before, deployment([{"name": "side", "image": "s"}]))
    assert [(c.op, c.path, c.keys) for c in removed] == [(FieldOp.REMOVE, f"{CONTAINERS}/1", ((f"{CONTAINERS}/1", {"name": "app"}),))]


def test_a_list_that_cannot_be_keyed_is_matched_unkeyed() -> None:
    no_name = deployment([{"image": "a"}, {"image": "b"}])
    assert ops(diff_objects(no_name, deployment([{"image": "b"}, {"image": "a"}]))) == [("reorder", CONTAINERS)]
    twice = deployment([{"name": "a", "image": "1"}, {"name": "a", "image": "2"}])
    assert ops(diff_objects(twice, deployment([{"name": "a", "image": "1"}, {"name": "a", "image": "3"}]))) == [
        ("replace", f"{CONTAINERS}/1/image")]
    odd = deployment(["text"])  # type: ignore[list-item]
    assert ops(diff_objects(odd, deployment(["other"]))) == [("replace", f"{CONTAINERS}/0")]  # type: ignore[list-item]
    nested = deployment([{"name": {"x": 1}}])
    assert ops(diff_objects(nested, deployment([{"name": {"x": 2}}]))) == [("replace", f"{CONTAINERS}/0/name/x")]


def test_ports_are_keyed_by_port_and_protocol_defaulting_to_tcp() -> None:
    def ports(*entries: dict[str, Any]) -> dict[str, Any]:
        return deployment([{"name": "app", "ports": list(entries)}])
    assert diff_objects(ports({"containerPort": 80}), ports({"containerPort": 80, "protocol": "TCP"})) == [
        FieldChange(f"{CONTAINERS}/0/ports/0/protocol", FieldOp.ADD, None, "TCP",
                    ((f"{CONTAINERS}/0", {"name": "app"}), (f"{CONTAINERS}/0/ports/0", {"containerPort": 80, "protocol": "TCP"})))]
    udp = diff_objects(ports({"containerPort": 53, "protocol": "TCP"}, {"containerPort": 53, "protocol": "UDP"}),
                       ports({"containerPort": 53, "protocol": "UDP"}))
    assert ops(udp) == [("remove", f"{CONTAINERS}/0/ports/0")]


def test_atomic_lists_are_replaced_whole_with_an_entry_diff() -> None:
    before = deployment([{"name": "app", "command": ["a", "b"]}])
    (change,) = diff_objects(before, deployment([{"name": "app", "command": ["a", "c"]}]))
    assert (change.op, change.path, change.before, change.after) == (
        FieldOp.REPLACE, f"{CONTAINERS}/0/command", ["a", "b"], ["a", "c"])
    assert change.parts_of == "entries" and [(p.op, p.path) for p in change.parts] == [(FieldOp.REPLACE, "/1")]
    assert diff_objects(before, deployment([{"name": "app", "command": ["a", "b"]}])) == []


def test_quantities_are_equivalent_only_where_the_schema_says_so() -> None:
    def cpu(value: Any) -> dict[str, Any]:
        return deployment([{"name": "x", "resources": {"limits": {"cpu": value}}}])
    (equal,) = diff_objects(cpu("1"), cpu("1000m"))
    assert equal.equivalent and equal.op is FieldOp.REPLACE and (equal.before, equal.after) == ("1", "1000m")
    (unequal,) = diff_objects(cpu("1"), cpu("2"))
    assert not unequal.equivalent
    assert not diff({"cpu": "1"}, {"cpu": "1000m"})[0].equivalent


# -- declared surface (drift) --------------------------------------------------------------

def test_the_surface_keeps_only_what_was_declared() -> None:
    declared = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"a": "1"}},
                "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "app", "image": "a:1"}]}}}}
    live = {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "labels": {"a": "1", "b": "2"}, "uid": "u", "resourceVersion": "9"},
            "spec": {"replicas": 3, "strategy": {"type": "RollingUpdate"},
                     "template": {"spec": {"containers": [{"name": "sidecar", "image": "s"},
                                                          {"name": "app", "image": "a:2", "imagePullPolicy": "Always"}]}}},
            "status": {"ready": 1}}
    assert declared_surface(declared, live) == {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"a": "1"}},
        "spec": {"replicas": 3, "template": {"spec": {"containers": [{"name": "app", "image": "a:2"}]}}}}


def test_the_surface_takes_bookkeeping_status_and_last_applied_from_the_declared_object() -> None:
    last = "kubectl.kubernetes.io/last-applied-configuration"
    declared = {"apiVersion": "v1", "kind": "ConfigMap", "status": {"x": 1},
                "metadata": {"name": "c", "creationTimestamp": None, "annotations": {last: "{}", "a": "1"}}, "data": {"k": "v"}}
    live = {"apiVersion": "v1", "kind": "ConfigMap", "status": {"x": 2},
            "metadata": {"name": "c", "creationTimestamp": "2025-01-01", "annotations": {last: '{"big": 1}', "a": "2"}},
            "data": {"k": "v"}}
    assert declared_surface(declared, live) == {
        "apiVersion": "v1", "kind": "ConfigMap", "status": {"x": 1},
        "metadata": {"name": "c", "creationTimestamp": None, "annotations": {last: "{}", "a": "2"}}, "data": {"k": "v"}}


@pytest.mark.parametrize("zero", [False, 0, 0.0, "", {}, [], None])
def test_a_declared_zero_value_the_server_dropped_is_not_drift(zero: Any) -> None:
    declared = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": zero, "other": "x"}}
    live = {"apiVersion": "v1", "kind": "ConfigMap", "data": {}}
    assert declared_surface(declared, live)["data"] == {"k": zero}


@pytest.mark.parametrize("value", [True, 1, "x", {"a": 1}, [1]])
def test_a_declared_value_missing_live_is_drift(value: Any) -> None:
    declared = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": value}}
    assert declared_surface(declared, {"apiVersion": "v1", "kind": "ConfigMap", "data": {}})["data"] == {}


def test_the_surface_puts_keyed_entries_and_set_members_in_the_declared_order() -> None:
    declared = deployment([{"name": "a", "image": "1"}, {"name": "b", "image": "1"}], finalizers=["x", "y"])
    live = deployment([{"name": "b", "image": "2"}, {"name": "c", "image": "9"}, {"name": "a", "image": "1"}],
                      finalizers=["z", "y", "x"])
    surface = declared_surface(declared, live)
    assert surface["spec"]["template"]["spec"]["containers"] == [{"name": "a", "image": "1"}, {"name": "b", "image": "2"}]
    assert surface["metadata"]["finalizers"] == ["x", "y"]
    gone = declared_surface(deployment([{"name": "a"}, {"name": "b"}]), deployment([{"name": "b"}]))
    assert gone["spec"]["template"]["spec"]["containers"] == [{"name": "b"}]


def test_atomic_and_unkeyed_lists_are_taken_live() -> None:
    declared = deployment([{"name": "a", "command": ["x"], "extra": [{"k": 1}]}])
    live = deployment([{"name": "a", "command": ["x", "y"], "extra": [{"k": 2, "more": 3}]}])
    container = declared_surface(declared, live)["spec"]["template"]["spec"]["containers"][0]
    assert container == {"name": "a", "command": ["x", "y"], "extra": [{"k": 2}]}
    longer = declared_surface({"a": [1]}, {"a": [1, 2]})
    assert longer == {"a": [1, 2]}
    assert declared_surface({"a": {"b": 1}}, {"a": "scalar"}) == {"a": "scalar"}
    assert declared_surface({"apiVersion": "v1", "kind": "X"}, {}) == {"apiVersion": "v1", "kind": "X"}


def test_long_unkeyed_lists_are_matched_in_order_too() -> None:
    before = [f"line-{i}" for i in range(600)]  # 600 x 601 entry pairs: matched by difflib's blocks
    assert ops(diff({"l": before}, {"l": ["new", *before]})) == [("add", "/l/0")]
    assert ops(diff({"l": before}, {"l": before[:300] + before[301:]})) == [("remove", "/l/300")]


def test_an_entry_that_moved_and_changed_is_a_reorder_and_its_change() -> None:
    web = {"name": "web", "rules": [{"alert": "Down", "expr": "up == 0"}, {"alert": "Slow", "expr": "latency > 1"}]}
    edited = {"name": "web", "rules": [{"alert": "Down", "expr": "up == 0"}, {"alert": "Slow", "expr": "latency > 2"}]}
    other = {"name": "db", "rules": [{"alert": "Full", "expr": "disk > 0.9"}]}
    changes = diff({"groups": [web, other]}, {"groups": [other, edited]})
    assert [(c.op.value, c.path) for c in changes] == [("reorder", "/groups"), ("replace", "/groups/1/rules/1/expr")]
    unlike = diff({"l": [{"a": 1, "b": 2}, "x"]}, {"l": ["x", {"c": 3, "d": 4}]})
    assert ops(unlike) == [("add", "/l/1"), ("remove", "/l/0")]


def _nest(depth: int, leaf: Any) -> Any:
    value = leaf
    for _ in range(depth):
        value = {"k": value}
    return value


@pytest.mark.parametrize("place", [1, 3])
def test_an_embedded_document_is_walked_while_the_whole_path_nests_at_most_max_depth(place: int) -> None:
    # The string's place plus the document's nesting: at most MAX_DEPTH levels (yamlkube), as
    # for any document; deeper is one replace, never a walk past the limit.
    def changes(depth: int, form: str) -> FieldChange:
        def text(leaf: int) -> str:
            doc = _nest(depth, leaf)
            return json.dumps(doc) if form == "json" else yaml.safe_dump(doc)
        (change,) = diff(_wrap(place, text(1)), _wrap(place, text(2)))
        return change
    for form in ("json", "yaml"):
        assert changes(MAX_DEPTH - place, form).parts_of == form
        deep = changes(MAX_DEPTH - place + 1, form)
        assert deep.parts == () and deep.op is FieldOp.REPLACE


def _wrap(place: int, value: Any) -> Any:
    out: Any = {"c": value}
    for _ in range(place - 1):
        out = {"x": out}
    return out


def test_a_document_embedded_in_an_embedded_document_counts_both_places() -> None:
    def outer(leaf: int, depth: int) -> dict[str, Any]:
        return {"c": json.dumps({"inner": json.dumps(_nest(depth, leaf))})}
    (change,) = diff(outer(1, MAX_DEPTH - 2), outer(2, MAX_DEPTH - 2))
    (inner,) = change.parts
    assert inner.parts_of == "json" and inner.path == "/inner"
    (too_deep,) = diff(outer(1, MAX_DEPTH - 1), outer(2, MAX_DEPTH - 1))
    (inner,) = too_deep.parts
    assert inner.parts == ()


def test_what_makes_a_string_an_embedded_document() -> None:
    (js,) = diff({"c": '{"a": 1}'}, {"c": '{"a": 2}'})
    assert (js.op, js.before, js.after) == (FieldOp.REPLACE, '{"a": 1}', '{"a": 2}')
    (one_json,) = diff({"c": '{"a": 1}'}, {"c": "plain"})
    assert one_json.parts == () and one_json.lines == ()
    (one_yaml,) = diff({"c": "a: 1\nb: 2\n"}, {"c": "b: 3"})  # both parse as maps: walked
    assert one_yaml.parts_of == "yaml" and ops(list(one_yaml.parts)) == [("remove", "/a"), ("replace", "/b")]
    (other_yaml,) = diff({"c": "b: 3"}, {"c": "a: 1\nb: 2\n"})
    assert other_yaml.parts_of == "yaml"
    for a, b in (("a: 1\n", "b: 2"), ("b: 2", "a: 1\n")):  # one line each (a final newline aside): a plain replace
        (flat,) = diff({"c": a}, {"c": b})
        assert flat.parts == () and flat.lines == ()
    (scalar_to_map,) = diff({"c": "just\ntext"}, {"c": "a: 1\nb: 2\n"})
    assert scalar_to_map.parts == () and scalar_to_map.lines
    (map_to_scalar,) = diff({"c": "a: 1\nb: 2\n"}, {"c": "just\ntext"})
    assert map_to_scalar.parts == () and map_to_scalar.lines
    (to_one_line,) = diff({"s": "a\nb"}, {"s": "c"})
    assert to_one_line.lines == ("@@ -1,2 +1 @@", "-a", "-b", "+c")


@pytest.mark.parametrize("a, b, equal", [
    (True, False, False), (False, True, False), ("".join(["a", "b"]), "ab", True), ("".join(["a", "b"]), "ac", False),
    (1.5, 2.5, False), (1.5, 2, False), (2, 1.5, False), (1, float("nan"), False), (float("nan"), 1, False),
    (1000.5, float("1000.5"), True),
])
def test_same_without_the_identity_shortcut(a: Any, b: Any, equal: bool) -> None:
    assert same(a, b) is equal


def test_equal_entries_are_found_whatever_their_key_order() -> None:
    assert ops(diff({"l": [{"a": 1, "b": 2}, "x"]}, {"l": ["x", {"b": 2, "a": 1}]})) == [("reorder", "/l")]
    assert ops(diff({"l": [float("nan"), 1]}, {"l": [1, float("nan")]})) == [("reorder", "/l")]


def test_long_lists_keep_equal_entries_in_order() -> None:
    unique = [f"line-{i}" for i in range(600)]
    assert ops(diff({"l": ["x", *unique, "x"]}, {"l": [*unique, "x"]})) == [("remove", "/l/0")]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from("abc"), max_size=6), st.lists(st.sampled_from("abc"), max_size=6))
def test_entries_kept_in_order_are_a_longest_common_subsequence(a: list[str], b: list[str]) -> None:
    pairs = _in_order(a, b)
    assert all(a[i] == b[j] for i, j in pairs)
    assert all(i1 < i2 and j1 < j2 for (i1, j1), (i2, j2) in zip(pairs, pairs[1:]))
    longest = max((n for n in range(min(len(a), len(b)) + 1)
                   if any(list(sub) == [b[j] for j in idx] for sub in itertools.combinations(a, n)
                          for idx in itertools.combinations(range(len(b)), n))), default=0)
    assert len(pairs) == longest
