"""Unit tests of deployah_plan/core/list_align.py: the entries of lists without keys (atomic
lists such as a ClusterRole's rules or a container's args, and lists of unknown custom
resources) are aligned as one entry when equal, then when close, so inserting an entry shifts
nothing into a rewrite (issue 45 point 9). Pointers are RFC 6901: an added or changed entry at
its index in the desired list, a removed one at its index in the previous list."""
from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from deployah_plan.core import list_align
from deployah_plan.core.diff import diff, diff_objects
from deployah_plan.core.list_align import align, leaves, similarity
from deployah_plan.model import FieldChange, FieldOp
from deployah_plan.pointer import tokens


def cluster_role(*rules: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "operator"},
            "rules": list(rules)}


def rule(group: str, resources: list[str], verbs: list[str], **more: Any) -> dict[str, Any]:
    return {"apiGroups": [group], "resources": resources, "verbs": verbs, **more}


def parts(changes: list[FieldChange], path: str) -> list[tuple[str, str]]:
    """The entry diff of the atomic list at `path`: (op, pointer into the list) of each part."""
    (change,) = [c for c in changes if c.path == path]
    assert change.op is FieldOp.REPLACE and change.parts_of == "entries"
    return [(p.op.value, p.path) for p in change.parts]


def entries(a: list[Any], b: list[Any]) -> list[tuple[str, str]]:
    """The changes of an unkeyed list, as (op, pointer into the list)."""
    return [(c.op.value, c.path[len("/l"):]) for c in diff({"l": a}, {"l": b})]


# -- a ClusterRole's rules ---------------------------------------------------------------------

CRDS = rule("apiextensions.k8s.io", ["customresourcedefinitions"], ["create", "get", "list", "watch"])
STATUS = rule("apiextensions.k8s.io", ["customresourcedefinitions/status"], ["update"], resourceNames=["pools.x.io"])
READ = rule("x.io", ["pools", "ippools", "peeringpolicies", "clusterconfigs", "overrides", "peerconfigs"],
            ["get", "list", "watch"])
CREATE = rule("x.io", ["ippools"], ["create"])


def test_a_rule_inserted_before_a_rule_that_loses_resources_is_one_add_and_one_changed_rule() -> None:
    # The shape of cilium 1.19 -> 1.20's operator ClusterRole: a new rule before a rule that
    # loses three resources and gains one.
    smaller = rule("x.io", ["pools", "ippools", "peerconfigs", "plugins"], ["get", "list", "watch"])
    changes = diff_objects(cluster_role(CRDS, READ, CREATE), cluster_role(CRDS, STATUS, smaller, CREATE))
    assert parts(changes, "/rules") == [("add", "/1"), ("replace", "/2/resources")]
    (resources,) = [p for p in changes[0].parts if p.path == "/2/resources"]
    assert [(p.op.value, p.path, p.before, p.after) for p in resources.parts] == [
        ("add", "/3", None, "plugins"), ("remove", "/2", "peeringpolicies", None),
        ("remove", "/3", "clusterconfigs", None), ("remove", "/4", "overrides", None)]


@pytest.mark.parametrize("where", [0, 1, 2, 3])
def test_a_rule_inserted_anywhere_is_one_add(where: int) -> None:
    rules = [CRDS, READ, CREATE]
    inserted = [*rules[:where], STATUS, *rules[where:]]
    assert parts(diff_objects(cluster_role(*rules), cluster_role(*inserted)), "/rules") == [("add", f"/{where}")]


def test_a_removed_rule_is_one_remove_at_its_previous_index() -> None:
    changes = diff_objects(cluster_role(CRDS, STATUS, READ, CREATE), cluster_role(CRDS, READ, CREATE))
    assert parts(changes, "/rules") == [("remove", "/1")]


def test_a_rule_that_shares_less_than_half_its_leaves_is_removed_and_another_added() -> None:
    changed = rule("y.io", ["nodes"], ["get", "list", "watch"])  # 3 of 5 and 3 of 10 leaves: 6/15
    changes = diff_objects(cluster_role(CRDS, READ, CREATE), cluster_role(CRDS, changed, CREATE))
    assert parts(changes, "/rules") == [("add", "/1"), ("remove", "/1")]
    verbs = rule("x.io", READ["resources"], ["update"])  # verbs replaced, all else kept
    assert parts(diff_objects(cluster_role(CRDS, READ), cluster_role(CRDS, verbs)), "/rules") == [
        ("replace", "/1/verbs")]


def test_reordered_rules_are_one_reorder() -> None:
    changes = diff_objects(cluster_role(CRDS, READ, CREATE), cluster_role(CREATE, CRDS, READ))
    (change,) = changes
    assert [(p.op, p.before, p.after) for p in change.parts] == [(FieldOp.REORDER, [0, 1, 2], [2, 0, 1])]


def test_a_rule_that_moved_and_changed_is_a_reorder_and_its_change() -> None:
    fewer = rule("x.io", READ["resources"][:5], READ["verbs"])
    changes = diff_objects(cluster_role(CRDS, READ, CREATE), cluster_role(fewer, CRDS, CREATE))
    assert parts(changes, "/rules") == [("reorder", ""), ("replace", "/0/resources")]


def test_tolerations_are_aligned_too() -> None:
    def pod(tolerations: list[dict[str, Any]]) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"tolerations": tolerations}}
    master = {"key": "node-role/master", "operator": "Exists", "effect": "NoSchedule"}
    plane = {"key": "node-role/control-plane", "operator": "Exists", "effect": "NoSchedule"}
    gpu = {"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}
    changes = diff_objects(pod([master, gpu]), pod([plane, master, {**gpu, "effect": "NoExecute"}]))
    assert parts(changes, "/spec/tolerations") == [("add", "/0"), ("replace", "/2/effect")]


# -- args --------------------------------------------------------------------------------------

ARGS = ["serve", "--port=80", "config.yaml", "--verbose"]


@pytest.mark.parametrize("where", [0, 2, 4])
def test_an_argument_inserted_at_the_front_in_the_middle_or_at_the_end_is_one_add(where: int) -> None:
    assert entries(ARGS, [*ARGS[:where], "extra", *ARGS[where:]]) == [("add", f"/{where}")]


def test_a_removed_argument_is_one_remove() -> None:
    assert entries(ARGS, ["serve", "--port=80", "--verbose"]) == [("remove", "/2")]


def test_an_argument_changed_in_place_is_one_replace() -> None:
    assert entries(ARGS, ["serve", "--port=80", "other.yaml", "--verbose"]) == [("replace", "/2")]
    assert entries(["sh", "-c", "echo 1\nrun\n"], ["sh", "-c", "echo 2\nrun\n"]) == [("replace", "/2")]


def test_reordered_arguments_are_one_reorder() -> None:
    (change,) = diff({"l": ARGS}, {"l": ["--verbose", *ARGS[:3]]})
    assert (change.op, change.before, change.after) == (FieldOp.REORDER, [0, 1, 2, 3], [3, 0, 1, 2])


def test_duplicate_entries_are_matched_in_order() -> None:
    assert entries(["-v", "-v", "x"], ["-v", "x"]) == [("remove", "/1")]
    assert entries(["-v", "x"], ["-v", "-v", "x"]) == [("add", "/1")]
    assert entries([READ, READ, CREATE], [READ, STATUS, READ, CREATE]) == [("add", "/1")]
    fewer = rule("x.io", READ["resources"][1:], READ["verbs"])
    assert entries([READ, READ], [READ, fewer]) == [("remove", "/1/resources/0")]


# -- how close is close ------------------------------------------------------------------------

def test_similarity_counts_leaves_whatever_their_index() -> None:
    # A rule that lost its first resource still holds the others.
    assert similarity(leaves(["a", "b", "c"]), leaves(["b", "c"])) == pytest.approx(0.8)
    assert similarity(leaves({"l": [1, 1]}), leaves({"l": [1]})) == pytest.approx(2 / 3)
    assert similarity(leaves({"a": 1}), leaves({"a": 1.0})) == 1.0
    assert similarity(leaves({"a": True}), leaves({"a": 1})) == 0.0
    assert similarity(leaves({"a": {}}), leaves({"a": {}, "b": None})) == pytest.approx(2 / 3)
    assert similarity(leaves({}), leaves({})) == 1.0
    assert similarity(leaves(["a", "b"], indexed=True), leaves(["b", "a"], indexed=True)) == 0.0


def test_entries_pair_from_half_their_leaves_equal() -> None:
    assert align([{"a": 1, "b": 1}], [{"a": 1, "b": 2}]) == {0: 0}
    assert align([{"a": 1, "b": 1, "c": 1}], [{"a": 1, "b": 2, "c": 2}]) == {}


def test_entries_of_one_value_at_one_place_pair_by_position_as_scalars_do() -> None:
    assert align([{"port": 80}, {"port": 90}], [{"port": 81}, {"port": 91}]) == {0: 0, 1: 1}
    assert align([[["a"]]], [[["b"]]]) == {0: 0}
    assert align([{"port": 80}], [{"name": "x"}]) == {}
    assert align([{"port": 80}], ["x"]) == {}
    assert align([{"l": [1, 1]}], [{"l": [2, 2]}]) == {}  # two values, none shared
    # A close pair wins over a single value by position.
    assert align(["x", {"a": 1, "b": 1}], [{"a": 1, "b": 2}]) == {0: 1}


def test_the_closest_pairs_that_keep_the_order_are_taken_in_a_gap() -> None:
    one, two = {"a": 1, "b": 1, "c": 1, "d": 1}, {"a": 2, "b": 2, "c": 2, "d": 2}
    a = ["x", one, two, "y"]
    b = ["x", {**one, "d": 9}, {**two, "d": 9}, "y"]  # each close to its own entry only
    assert align(a, b) == {0: 0, 1: 1, 2: 2, 3: 3}
    inserted = ["x", {**one, "c": 9, "d": 9}, {**one, "d": 9}, "y"]  # the closer one is the second
    assert align(a, inserted) == {0: 0, 2: 1, 3: 3}


def test_a_gap_too_large_to_score_is_paired_by_position(monkeypatch: pytest.MonkeyPatch) -> None:
    a = [{"k": i, "v": i} for i in range(3)]
    b = [{"z": i} for i in range(3)]
    assert align(a, b) == {}
    monkeypatch.setattr(list_align, "_MAX_GAP_CELLS", 8)
    assert align(a, b) == {0: 0, 1: 1, 2: 2}
    monkeypatch.setattr(list_align, "_MAX_GAP_CELLS", 9)
    monkeypatch.setattr(list_align, "_GAP_LEAVES", 5)
    assert align(a, b) == {0: 0, 1: 1, 2: 2}


# -- properties --------------------------------------------------------------------------------

ENTRY = st.fixed_dictionaries({"g": st.sampled_from(["a", "b"]), "r": st.lists(st.sampled_from("pqrst"), max_size=4),
                               "v": st.sampled_from(["get", "list"])})
VALUE = st.one_of(st.sampled_from(["x", "y", 1]), ENTRY)


def _resolve(document: Any, pointer: str) -> Any:
    for token in tokens(pointer):
        document = document[int(token)] if isinstance(document, list) else document[token]
    return document


def _walk(changes: tuple[FieldChange, ...] | list[FieldChange], before: Any, after: Any) -> None:
    """Every pointer resolves in the side it names: an add or a change in the desired value; a
    remove's parent in the desired value, and a remove of an entry of the list itself in the
    previous value."""
    for change in changes:
        if change.op is FieldOp.REMOVE:
            parent = change.path.rsplit("/", 1)[0]
            assert isinstance(_resolve(after, parent), (dict, list))
            if parent == "/rules":
                assert _resolve(before, change.path) == change.before
            continue
        found = _resolve(after, change.path)
        if change.op in (FieldOp.ADD, FieldOp.REPLACE):
            assert found == change.after
        if change.parts_of == "entries":
            _walk(change.parts, change.before, change.after)


@settings(max_examples=200, deadline=None)
@given(st.lists(VALUE, max_size=6), st.data())
def test_pointers_resolve_in_the_side_they_name(before: list[Any], data: st.DataObject) -> None:
    after = data.draw(st.lists(st.one_of(st.sampled_from(before) if before else VALUE, VALUE), max_size=7))
    changes = diff_objects(cluster_role(), cluster_role()) + diff({"rules": before}, {"rules": after})
    _walk(changes, {"rules": before}, {"rules": after})
    pairs = align(before, after)
    assert len(set(pairs.values())) == len(pairs)
    assert all(0 <= i < len(before) and 0 <= j < len(after) for j, i in pairs.items())


@settings(max_examples=500, deadline=None)
@given(st.lists(ENTRY, max_size=6), st.data())
def test_edits_that_insert_remove_and_change_entries_in_place_give_no_reorder(before: list[Any],
                                                                             data: st.DataObject) -> None:
    after: list[Any] = []
    for entry in before:
        after += data.draw(st.lists(st.just({"g": "n", "r": ["n"], "v": "n"}), max_size=1))  # insert a new entry
        choice = data.draw(st.sampled_from(["keep", "drop", "change"]))
        if choice == "keep":
            after.append(entry)
        elif choice == "change":
            after.append({**entry, "v": "watch"})
    changes = diff({"l": before}, {"l": after})
    assert FieldOp.REORDER not in [c.op for c in changes]


def test_of_two_entries_equally_close_the_one_whose_lists_keep_their_order_is_taken() -> None:
    same, swapped = {"g": "b", "r": ["p", "q"], "v": "get"}, {"g": "b", "r": ["q", "p"], "v": "get"}
    changed = {**same, "v": "watch"}
    assert align([swapped, same, "z"], [changed, "z"]) == {0: 1, 1: 2}
    assert align([same, swapped, "z"], ["n", changed, "z"]) == {1: 0, 2: 2}
