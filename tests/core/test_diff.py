"""Unit tests of deployah_plan/core/diff.py, fast enough for scripts/mutation.

The property tests of tests/core/test_diff_properties.py check that a change set turns `before` into
`after`; these check that it is the smallest true one (docs/plan.md: "the smallest true set of
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

from deployah_plan.core import diff as engine
from deployah_plan.core.list_align import in_order as _in_order
from deployah_plan.core.diff import declared_surface, diff, diff_objects, leaves, line_diff, same, similarity
from deployah_plan.pointer import escape, tokens
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


def test_unkeyed_entries_match_by_content_then_by_similarity_then_single_values_by_position() -> None:
    changes = diff({"l": [{"a": 1}, {"b": 1}, {"c": 1, "d": 1}]}, {"l": [{"b": 1}, {"a": 1}, {"c": 2, "d": 1}]})
    assert [(c.op.value, c.path, c.before, c.after) for c in changes] == [
        ("reorder", "/l", [0, 1, 2], [1, 0, 2]), ("replace", "/l/2/c", 1, 2)]
    # An entry of one value is that value changed in place, as a scalar is.
    single = diff({"l": [{"a": 1}, {"b": 1}, {"c": 1}]}, {"l": [{"b": 1}, {"a": 1}, {"c": 2}]})
    assert full(single) == [("reorder", "/l", [0, 1, 2], [1, 0, 2]), ("replace", "/l/2/c", 1, 2)]
    positional = diff({"l": [{"a": 1}, {"b": 1}]}, {"l": [{"a": 2}, {"b": 2}]})
    assert ops(positional) == [("replace", "/l/0/a"), ("replace", "/l/1/b")]
    assert ops(diff({"l": [{"a": 1}]}, {"l": [{"b": 1}]})) == [("add", "/l/0"), ("remove", "/l/0")]
    # Entries of more values that share less than half of them are two entries.
    unlike = diff({"l": [{"a": 1, "b": 1}, {"c": 1, "d": 1}]}, {"l": [{"a": 2, "b": 2}, {"c": 1, "d": 1}]})
    assert full(unlike) == [("add", "/l/0", None, {"a": 2, "b": 2}), ("remove", "/l/0", {"a": 1, "b": 1}, None)]
    close = diff({"l": [{"a": 1, "k": 0}, {"b": 1, "k": 0}]}, {"l": [{"a": 2, "k": 0}, {"b": 2, "k": 0}]})
    assert ops(close) == [("replace", "/l/0/a"), ("replace", "/l/1/b")]
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


# -- the line diff of big values: anchors, then difflib between them -------------------------------
# Past _DIFFLIB_LINES lines a side, common leading and trailing lines are set aside, lines found
# once in each side anchor the rest (patience diff), and difflib matches only a stretch between
# anchors of at most _DIFFLIB_CELLS line pairs; a larger stretch without an anchor is removed and
# added whole. The limits are lowered here so small values take that path.


@pytest.fixture
def anchored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "_DIFFLIB_LINES", 2)
    monkeypatch.setattr(engine, "_DIFFLIB_CELLS", 0)


def test_unique_lines_in_the_same_order_on_both_sides_anchor_the_diff() -> None:
    # Pairs (index in a, index in b) of lines found once on each side; the longest run with
    # both indices increasing. j in a's order: 2, 0, 1, 5, 3, 4: the one longest run is 0, 1, 3, 4.
    a = ["c", "a", "b", "f", "d", "e", "dup", "dup", "only-a"]
    b = ["a", "b", "c", "d", "e", "f", "dup", "only-b"]
    assert engine._unique_anchors(a, 0, len(a), b, 0, len(b)) == [(1, 0), (2, 1), (4, 3), (5, 4)]
    # Only the lines inside the ranges count, and a line twice on one side is no anchor.
    assert engine._unique_anchors(a, 3, 6, b, 3, 6) == [(4, 3), (5, 4)]
    assert engine._unique_anchors(["x", "y", "x"], 0, 3, ["x", "y"], 0, 2) == [(1, 1)]
    assert engine._unique_anchors(["x", "y"], 0, 2, ["x", "y", "y"], 0, 3) == [(0, 0)]
    assert engine._unique_anchors(["x"], 0, 1, ["y"], 0, 1) == []
    assert engine._unique_anchors(["u", "w"], 0, 1, ["w", "u"], 0, 2) == [(0, 1)]


def test_matching_blocks_between_anchors(anchored: None) -> None:
    # No common first or last line; u1 and u2 anchor; nothing else is shared.
    assert engine._matching_blocks(["s", "u1", "p", "u2", "q"], ["u1", "r", "u2", "w"]) == [(1, 0, 1), (3, 2, 1)]
    # Adjacent equal runs are one block, as difflib gives them.
    assert engine._matching_blocks(["u1", "u2", "x"], ["z", "u1", "u2"]) == [(0, 1, 2)]
    # Common leading and trailing lines of each stretch between anchors (p is on both sides twice).
    assert engine._matching_blocks(["x", "u1", "p", "s", "u2", "p", "y"], ["z", "u1", "p", "t", "u2", "p", "w"]) == [
        (1, 1, 2), (4, 4, 2)]
    assert engine._matching_blocks(["x", "u1", "s", "p", "u2", "y"], ["z", "u1", "t", "p", "u2", "w"]) == [
        (1, 1, 1), (3, 3, 2)]
    # Common first and last lines of the whole value.
    assert engine._matching_blocks(["h", "p", "q", "p", "t"], ["h", "q", "p", "q", "t"]) == [(0, 0, 1), (4, 4, 1)]
    assert engine._matching_blocks(["p", "q"], ["p", "q", "r"]) == [(0, 0, 2)]
    assert engine._matching_blocks(["p", "q"], ["o", "p", "q"]) == [(0, 1, 2)]
    assert engine._matching_blocks(["h1", "h2", "x", "t1", "t2"], ["h1", "h2", "y", "t1", "t2"]) == [
        (0, 0, 2), (3, 3, 2)]
    # Trailing lines are looked for only after the leading ones, never across them.
    assert engine._matching_blocks(["p", "q"], ["p", "x", "p", "q"]) == [(0, 0, 1), (1, 3, 1)]
    assert engine._matching_blocks(["p", "x", "p", "q"], ["p", "q"]) == [(0, 0, 1), (3, 1, 1)]
    assert engine._matching_blocks([], ["a"]) == []


def test_matching_blocks_use_difflib_on_a_small_stretch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "_DIFFLIB_CELLS", 4)
    # Past the first and last lines, 5 x 5 is too large: u1 anchors (p and q are there twice);
    # each 2 x 2 stretch beside it goes to difflib, which matches one line of it.
    a = ["h", "p", "q", "u1", "p", "q", "u2"]
    b = ["h", "q", "p", "u1", "q", "p", "u2"]
    assert engine._matching_blocks(a, b) == [(0, 0, 1), (1, 2, 1), (3, 3, 1), (4, 5, 1), (6, 6, 1)]
    # Below that, the stretches are anchored in turn: inside each, p and q are found once a side.
    monkeypatch.setattr(engine, "_DIFFLIB_CELLS", 3)
    assert engine._matching_blocks(a, b) == [(0, 0, 1), (2, 1, 1), (3, 3, 1), (5, 4, 1), (6, 6, 1)]
    # A stretch with no anchor larger than the limit is removed and added whole.
    assert engine._matching_blocks(["p", "q", "p", "q", "p"], ["q", "p", "q", "p", "q"]) == []


def test_the_anchored_line_diff(anchored: None) -> None:
    a, b = "s\nu1\np\nu2\nq", "u1\nr\nu2\nw"
    assert line_diff(a, b) == ("@@ -1,5 +1,4 @@", "-s", " u1", "-p", "+r", " u2", "-q", "+w")
    assert line_diff(a, b, context=0) == ("@@ -1 +0,0 @@", "-s", "@@ -3 +2 @@", "-p", "+r", "@@ -5 +4 @@", "-q", "+w")
    assert line_diff("u1\nu2\nx\ny", "u1\nu2") == ("@@ -1,4 +1,2 @@", " u1", " u2", "-x", "-y")
    assert line_diff("u1\nu2", "u1\nu2\nx\ny", context=1) == ("@@ -2 +2,3 @@", " u2", "+x", "+y")


@pytest.mark.parametrize("limit, a, b, anchored_path", [
    # Repeated lines with no anchor: difflib finds "p q p"; the anchored path removes and adds all.
    (4, "p\nq\np\nq", "q\np\nq\np\nr", True),  # one side past the limit is enough
    (5, "p\nq\np\nq", "q\np\nq\np\nr", False),
    (4, "q\np\nq\np\nr", "p\nq\np\nq", True),
    (3, "p\nq\np", "q\np\nq", False),  # exactly at the limit: difflib
])
def test_values_past_the_line_limit_take_the_anchored_path(monkeypatch: pytest.MonkeyPatch, limit: int, a: str,
                                                           b: str, anchored_path: bool) -> None:
    monkeypatch.setattr(engine, "_DIFFLIB_CELLS", 0)
    monkeypatch.setattr(engine, "_DIFFLIB_LINES", limit)
    whole = ("@@ -1,{} +1,{} @@".format(a.count("\n") + 1, b.count("\n") + 1),
             *("-" + line for line in a.split("\n")), *("+" + line for line in b.split("\n")))
    assert (line_diff(a, b) == whole) is anchored_path


def test_a_line_diff_past_its_line_cap_counts_what_it_hides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "MAX_DIFF_LINES", 5)
    a = [f"l{i}" for i in range(30)]
    b = [f"L{i}" if i in (2, 12, 22) else line for i, line in enumerate(a)]
    # Three hunks of 7 lines (header, 2 + 2 context lines, one removed, one added): 5 shown, 16 hidden.
    assert line_diff("\n".join(a), "\n".join(b)) == (
        "@@ -1,5 +1,5 @@", " l0", " l1", "-l2", "+L2", "@@ the line diff is cut at 5 lines: 16 more are not shown @@")
    monkeypatch.setattr(engine, "MAX_DIFF_LINES", 14)
    assert line_diff("\n".join(a), "\n".join(b))[-1] == "@@ the line diff is cut at 14 lines: 7 more are not shown @@"
    monkeypatch.setattr(engine, "MAX_DIFF_LINES", 21)
    assert len(line_diff("\n".join(a), "\n".join(b))) == 21


# -- what each change carries ---------------------------------------------------------------------------

def full(changes: list[FieldChange]) -> list[tuple[str, str, Any, Any]]:
    return [(c.op.value, c.path, c.before, c.after) for c in changes]


def test_added_and_removed_entries_carry_their_values() -> None:
    # Set lists (finalizers), unkeyed lists and keyed lists.
    meta = {"apiVersion": "v1", "kind": "ConfigMap"}
    assert full(diff_objects({**meta, "metadata": {"finalizers": ["a", "b"]}}, {**meta, "metadata": {"finalizers": ["b", "c"]}})) == [
        ("add", "/metadata/finalizers/1", None, "c"), ("remove", "/metadata/finalizers/0", "a", None)]
    assert full(diff({"l": ["a", "b"]}, {"l": ["b", "c"]})) == [("add", "/l/1", None, "c"), ("remove", "/l/0", "a", None)]
    web, side = {"name": "web", "image": "x"}, {"name": "side", "image": "y"}
    assert full(diff_objects(deployment([web]), deployment([side]))) == [
        ("add", f"{CONTAINERS}/0", None, side), ("remove", f"{CONTAINERS}/0", web, None)]


def test_equal_lists_of_every_kind_give_nothing_beside_a_change() -> None:
    before = deployment([{"name": "web", "image": "x", "args": ["--a", "-b"], "ports": [{"containerPort": 80}]}],
                        finalizers=["f"])
    after = copy.deepcopy(before)
    after["spec"]["template"]["spec"]["containers"][0]["image"] = "y"
    assert full(diff_objects(before, after)) == [("replace", f"{CONTAINERS}/0/image", "x", "y")]
    assert diff({"l": [1, "a"]}, {"l": [1, "a"]}) == []


def test_a_keyed_list_that_only_one_side_can_key_is_matched_unkeyed() -> None:
    keyed = deployment([{"name": "a", "image": "1"}, {"name": "b", "image": "2"}])
    twice = deployment([{"name": "a", "image": "1"}, {"name": "a", "image": "3"}])
    # Container b and the second container a share no field: one removed, the other added.
    assert full(diff_objects(keyed, twice)) == [
        ("add", f"{CONTAINERS}/1", None, {"name": "a", "image": "3"}),
        ("remove", f"{CONTAINERS}/1", {"name": "b", "image": "2"}, None)]
    # Container b renamed a, its image kept: half its leaves equal, one entry changed.
    close = deployment([{"name": "a", "image": "1"}, {"name": "a", "image": "2"}])
    assert full(diff_objects(keyed, close)) == [("replace", f"{CONTAINERS}/1/name", "b", "a")]


def _cpu(value: str, **container: Any) -> dict[str, Any]:
    return {"name": "web", "resources": {"limits": {"cpu": value}}, **container}


def test_quantities_are_known_wherever_the_entry_is_matched() -> None:
    # Renamed, matched unkeyed (two entries share a name), and inside an atomic list (HPA metrics).
    shared = {"image": "x", "tag": "1", "pull": "p"}
    (rename, cpu) = diff_objects(deployment([_cpu("1", **shared)]), deployment([_cpu("1000m", **shared, name="app")]))
    assert rename.op is FieldOp.RENAME and cpu.equivalent and cpu.path == f"{CONTAINERS}/0/resources/limits/cpu"
    twice = deployment([_cpu("1"), _cpu("2")])
    (cpu,) = diff_objects(twice, deployment([_cpu("1000m"), _cpu("2")]))
    assert cpu.equivalent and cpu.path == f"{CONTAINERS}/0/resources/limits/cpu"
    hpa = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "spec": {"metrics": [
        {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "AverageValue", "averageValue": "1"}}}]}}
    after = copy.deepcopy(hpa)
    after["spec"]["metrics"][0]["resource"]["target"]["averageValue"] = "1000m"
    (whole,) = diff_objects(hpa, after)
    (inner,) = whole.parts
    assert whole.path == "/spec/metrics" and whole.parts_of == "entries" and inner.equivalent
    assert diff_objects(hpa, copy.deepcopy(hpa)) == []


def test_a_list_or_map_coming_from_null_is_its_entries_added_by_its_schema() -> None:
    # tolerations is atomic: one replace of the whole list, with the entries shown.
    pod = {"apiVersion": "v1", "kind": "Pod", "spec": {"tolerations": None, "nodeSelector": None}}
    after = {"apiVersion": "v1", "kind": "Pod", "spec": {"tolerations": [{"key": "a"}], "nodeSelector": {"d": "x"}}}
    (tolerations, selector) = diff_objects(pod, after)
    assert (tolerations.op, tolerations.path, tolerations.before, tolerations.after, tolerations.parts_of) == (
        FieldOp.REPLACE, "/spec/tolerations", [], [{"key": "a"}], "entries")
    assert full([selector]) == [("add", "/spec/nodeSelector/d", None, "x")]
    assert full(diff_objects(after, pod))[1] == ("remove", "/spec/nodeSelector/d", "x", None)


def test_an_atomic_list_entry_diff_keeps_the_context_and_depth_of_its_place() -> None:
    before = deployment([{"name": "web", "command": ["sh", "a\nb\nc\nd\ne"]}])
    after = deployment([{"name": "web", "command": ["sh", "a\nb\nX\nd\ne"]}])
    (whole,) = diff_objects(before, after, context=0)
    (entry,) = whole.parts
    assert entry.path == "/1" and entry.lines == ("@@ -3 +3 @@", "-c", "+X")
    (whole,) = diff_objects(before, after)
    assert whole.parts[0].lines == ("@@ -1,5 +1,5 @@", " a", " b", "-c", "+X", " d", " e")
    # An embedded document in an atomic list entry counts the list's place against MAX_DEPTH.
    room = MAX_DEPTH - 7  # spec/template/spec/containers/0/command, then the entry
    (whole,) = diff_objects(deployment([{"name": "w", "command": [json.dumps(_nest(room, 1))]}]),
                            deployment([{"name": "w", "command": [json.dumps(_nest(room, 2))]}]))
    assert whole.parts[0].parts_of == "json"
    (whole,) = diff_objects(deployment([{"name": "w", "command": [json.dumps(_nest(room + 1, 1))]}]),
                            deployment([{"name": "w", "command": [json.dumps(_nest(room + 1, 2))]}]))
    assert whole.parts[0].parts == ()


def test_the_context_reaches_every_multi_line_string() -> None:
    a, b = "a\nb\nc\nd\ne", "a\nb\nX\nd\ne"
    (change,) = diff_objects({"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": a}},
                             {"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": b}}, context=0)
    assert (change.before, change.after, change.lines) == (a, b, ("@@ -3 +3 @@", "-c", "+X"))
    # Inside an embedded document too.
    (change,) = diff({"c": json.dumps({"s": a})}, {"c": json.dumps({"s": b})}, context=0)
    (inner,) = change.parts
    assert inner.lines == ("@@ -3 +3 @@", "-c", "+X")


@pytest.mark.parametrize("a, b, lined", [
    ("one\n ", "two\n ", True),  # a second line of one space
    ("one\n ", "two", True),
    ("one", "two\n ", True),
    ("one\nX", "two", True),
    ("one", "two\nX", True),
    ("one\n", "two\n", False),  # one line and its final newline
])
def test_which_strings_are_multi_line(a: str, b: str, lined: bool) -> None:
    (change,) = diff({"s": a}, {"s": b})
    assert (change.before, change.after) == (a, b) and bool(change.lines) is lined


def test_a_yaml_document_with_a_trailing_blank_line_is_still_a_document() -> None:
    for a, b in (("k: 1\n ", "k: 2\n"), ("k: 1\n", "k: 2\n ")):
        (change,) = diff({"c": a}, {"c": b})
        assert change.parts_of == "yaml" and full(list(change.parts)) == [("replace", "/k", 1, 2)]


def test_a_json_document_is_walked_only_when_both_sides_are_one() -> None:
    (change,) = diff({"c": '{"a": 1}'}, {"c": "2"})
    assert change.parts == () and (change.before, change.after) == ('{"a": 1}', "2")
    (change,) = diff({"c": "[1]"}, {"c": '"x"'})
    assert change.parts == ()


@pytest.mark.parametrize("form", ["json", "yaml"])
def test_an_embedded_document_too_deep_on_one_side_is_one_replace(form: str) -> None:
    def text(depth: int) -> str:
        doc = _nest(depth, 1)
        return json.dumps(doc) if form == "json" else yaml.safe_dump(doc)
    fits, deep = text(MAX_DEPTH - 1), text(MAX_DEPTH)
    for a, b in ((fits, deep), (deep, fits)):
        (change,) = diff({"c": a}, {"c": b})
        assert change.parts == () and change.op is FieldOp.REPLACE
    flat = {"k": 1, "j": 0}
    one, two = (json.dumps(flat), json.dumps({**flat, "k": 2})) if form == "json" else (
        yaml.safe_dump(flat), yaml.safe_dump({**flat, "k": 2}))
    (change,) = diff(_wrap(MAX_DEPTH - 1, one), _wrap(MAX_DEPTH - 1, two))
    assert change.parts_of == form  # one level of room is enough for a flat document


def test_entries_equal_whatever_their_key_order_are_matched_when_all_moved() -> None:
    a = [{"n": i, "v": f"x{i}"} for i in range(3)]
    b = [{"v": f"x{i}", "n": i} for i in reversed(range(3))]
    assert full(diff({"l": a}, {"l": b})) == [("reorder", "/l", [0, 1, 2], [2, 1, 0])]


def test_flags_are_named_by_what_comes_before_the_first_equals_sign() -> None:
    assert full(diff({"l": ["--x=1=a", "--y"]}, {"l": ["--y", "--x=2=a"]})) == [
        ("reorder", "/l", [0, 1], [1, 0]), ("replace", "/l/1", "--x=1=a", "--x=2=a")]
    assert full(diff({"l": ["--a"]}, {"l": ["--b"]})) == [("replace", "/l/0", "--a", "--b")]


FIVE = {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}


def test_an_entry_that_moved_and_changed_pairs_at_exactly_sixty_percent() -> None:
    close = {**FIVE, "d": 9, "e": 9}  # 3 of 5 leaves equal: 2 * 3 / 10 = 0.6
    assert ops(diff({"l": [FIVE, "m"]}, {"l": ["m", close]})) == [
        ("reorder", "/l"), ("replace", "/l/1/d"), ("replace", "/l/1/e")]
    far = {**close, "c": 9}
    assert ops(diff({"l": [FIVE, "m"]}, {"l": ["m", far]})) == [("add", "/l/1"), ("remove", "/l/0")]


def test_a_moved_entry_pairs_with_one_entry_only_the_closest() -> None:
    closest, close = {**FIVE, "e": 9}, {**FIVE, "d": 9, "e": 9}
    assert full(diff({"l": [close, closest, "m"]}, {"l": ["m", FIVE]})) == [
        ("reorder", "/l", [1, 2], [2, 1]), ("replace", "/l/1/e", 9, 5), ("remove", "/l/0", close, None)]
    assert full(diff({"l": [FIVE, "m"]}, {"l": ["m", close, closest]})) == [
        ("reorder", "/l", [0, 1], [1, 0]), ("add", "/l/1", None, close), ("replace", "/l/2/e", 5, 9)]


def test_renames_pair_each_entry_once_best_first_skipping_bare_keys() -> None:
    web = {"image": "x", "tag": "1", "pull": "p", "port": "80", "arg": "a"}
    closest, close = {**web, "arg": "b"}, {**web, "arg": "b", "port": "81"}
    renames = lambda before, after: [(c.before, c.after) for c in diff_objects(before, after)  # noqa: E731
                                     if c.op is FieldOp.RENAME]
    two_removed = deployment([{"name": "a", **close}, {"name": "b", **closest}])
    assert renames(two_removed, deployment([{"name": "c", **web}])) == [({"name": "b"}, {"name": "c"})]
    two_added = deployment([{"name": "c", **close}, {"name": "d", **closest}])
    assert renames(deployment([{"name": "a", **web}]), two_added) == [({"name": "a"}, {"name": "d"})]
    bare_first = deployment([{"name": "a"}, {"name": "b", **web}])
    assert renames(bare_first, deployment([{"name": "c", **web}])) == [({"name": "b"}, {"name": "c"})]


# -- the declared surface, more -------------------------------------------------------------------------

def test_the_surface_of_nested_keyed_lists_follows_the_schema_all_the_way_down() -> None:
    env = [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]
    declared = deployment([{"name": "web", "env": env}])
    live = deployment([{"name": "web", "env": env[::-1]}])
    assert declared_surface(declared, live) == declared
    # Entries that cannot be keyed (two share a name) are taken in order, with their schema.
    twice = deployment([{"name": "web", "env": env}, {"name": "web", "env": env}])
    assert declared_surface(twice, deployment([{"name": "web", "env": env[::-1]}] * 2)) == twice


def test_the_surface_takes_atomic_lists_and_other_types_live_whole() -> None:
    declared = {"apiVersion": "v1", "kind": "Pod", "spec": {"tolerations": [{"key": "a"}], "l": [1, 2]}}
    live = {"apiVersion": "v1", "kind": "Pod", "spec": {"tolerations": [{"key": "a", "effect": "NoSchedule"}], "l": "ab"}}
    assert declared_surface(declared, live)["spec"] == live["spec"]


def test_the_surface_keeps_the_declared_bookkeeping_and_only_the_last_applied_annotation() -> None:
    declared = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "uid": "u-1", "annotations": {"a": "1"}}}
    live = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
        "name": "c", "uid": "u-2", "annotations": {"a": "1", "kubectl.kubernetes.io/last-applied-configuration": "{}"}}}
    assert declared_surface(declared, live) == declared
    assert declared_surface(declared, {"apiVersion": "v1", "kind": "ConfigMap"}) == {"apiVersion": "v1", "kind": "ConfigMap"}


def test_the_surface_follows_the_schema_through_maps_of_objects() -> None:
    # A CRD's schema properties are a map of schemas; x-kubernetes-validations is keyed by rule.
    def crd(rules: list[str]) -> dict[str, Any]:
        validations = [{"rule": rule, "message": rule.upper()} for rule in rules]
        schema = {"type": "object", "properties": {"spec": {"type": "object", "x-kubernetes-validations": validations}}}
        return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema": schema}}]}}
    assert declared_surface(crd(["a", "b"]), crd(["b", "a"])) == crd(["a", "b"])


def test_the_difflib_stretches_of_the_anchored_path_never_skip_popular_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    # difflib's autojunk would drop a line found in over 1% of 200 or more lines (here the
    # blank one) and match nothing; blank lines are real content in a config file.
    monkeypatch.setattr(engine, "_DIFFLIB_LINES", 2)
    a, b = ["A", *[""] * 200, "B"], ["C", *[""] * 200, "D"]
    assert engine._matching_blocks(a, b) == [(1, 1, 200)]


def test_a_keyed_list_only_one_side_can_key_has_its_surface_taken_in_order() -> None:
    env = [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]
    twice = deployment([{"name": "web", "env": env}, {"name": "web", "env": env}])
    unique = deployment([{"name": "web", "env": env[::-1]}, {"name": "side", "env": env[::-1]}])
    surface = declared_surface(twice, unique)
    assert [c["name"] for c in surface["spec"]["template"]["spec"]["containers"]] == ["web", "side"]
    assert declared_surface(unique, twice)["spec"]["template"]["spec"]["containers"][1]["name"] == "web"


def test_a_port_without_protocol_is_the_tcp_entry_beside_a_udp_one_on_the_same_number() -> None:
    tcp, udp, other = {"containerPort": 443}, {"containerPort": 443, "protocol": "UDP"}, {"containerPort": 8080}
    before = deployment([{"name": "web", "ports": [other, udp, tcp]}])
    after = deployment([{"name": "web", "ports": [tcp, other]}])
    assert full(diff_objects(before, after)) == [
        ("reorder", f"{CONTAINERS}/0/ports", [other, tcp], [tcp, other]), ("remove", f"{CONTAINERS}/0/ports/1", udp, None)]
