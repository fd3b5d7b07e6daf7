"""The diff engine's rules, and properties that must hold for any input (hypothesis).

Properties: an object diffed with itself gives nothing; applying the reported changes to the
previous object gives the desired one (set lists compared as sets); every pointer round-trips
through the `jsonpointer` package and names the reported value.
"""
from __future__ import annotations

import copy
from typing import Any

import jsonpointer
import pytest
from hypothesis import given, settings, strategies as st

from deployah_plan.core.diff import diff, diff_objects, line_diff, same
from deployah_plan.core.list_keys import KEY_DEFAULTS
from deployah_plan.core.quantity import equivalent, parse
from deployah_plan.model import FieldChange, FieldOp


def deployment(containers: list[dict[str, Any]], **meta: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", **meta},
            "spec": {"template": {"spec": {"containers": containers}}}}


def ops(changes: list[FieldChange]) -> list[tuple[str, str]]:
    return [(c.op.value, c.path) for c in changes]


# --- applying changes (the inverse the properties check) --------------------------------

def _tokens(path: str) -> list[str]:
    return [] if not path else [t.replace("~1", "/").replace("~0", "~") for t in path[1:].split("/")]


def _find(entries: list[Any], label: Any) -> int:
    """The entry a reorder names: by previous index, or by the key fields it declares (a port
    declared without a protocol is the TCP one)."""
    if isinstance(label, int):
        return label
    return next(i for i, e in enumerate(entries) if isinstance(e, dict) and all(
        e.get(k, KEY_DEFAULTS.get(k)) == label.get(k, KEY_DEFAULTS.get(k)) for k in {*label, *KEY_DEFAULTS}))


def _apply(value: Any, changes: list[tuple[list[str], FieldChange]]) -> Any:
    own = [c for t, c in changes if not t]
    for change in own:
        if change.op in (FieldOp.REPLACE, FieldOp.ADD):
            return copy.deepcopy(change.after)
    if not changes:
        return value
    below: dict[str, list[tuple[list[str], FieldChange]]] = {}
    for tokens, change in changes:
        if tokens:
            below.setdefault(tokens[0], []).append((tokens[1:], change))
    if value is None:  # a null map value is an absent one: changes below it fill a new one
        value = [] if all(key.isdigit() for key in below) else {}
    if isinstance(value, dict):
        out = dict(value)
        for key, sub in below.items():
            if any(not t and c.op is FieldOp.REMOVE for t, c in sub):
                del out[key]
            else:
                out[key] = _apply(out.get(key), sub)
        return out
    assert isinstance(value, list), (value, changes)
    removed = {int(k) for k, sub in below.items() if any(not t and c.op is FieldOp.REMOVE for t, c in sub)}
    added = {int(k): c.after for k, sub in below.items() for t, c in sub if not t and c.op is FieldOp.ADD}
    reorder = [c for c in own if c.op is FieldOp.REORDER]
    surviving = [_find(value, label) for label in reorder[0].after] if reorder else \
        [i for i in range(len(value)) if i not in removed]
    source = iter(surviving)
    out = [copy.deepcopy(added[j]) if j in added else value[next(source)] for j in range(len(surviving) + len(added))]
    for key, sub in below.items():
        j = int(key)
        if j in added or all(not t and c.op is FieldOp.REMOVE for t, c in sub):
            continue
        entry = out[j]
        for t, c in sub:
            if not t and c.op is FieldOp.RENAME:
                entry = {k: v for k, v in entry.items() if k not in c.before}
                entry.update(c.after)
        out[j] = _apply(entry, [(t, c) for t, c in sub if t or c.op not in (FieldOp.RENAME, FieldOp.REMOVE)])
    return out


def apply(before: Any, changes: list[FieldChange]) -> Any:
    return _apply(copy.deepcopy(before), [(_tokens(c.path), c) for c in changes])


def _no_nulls(value: Any) -> Any:
    """A null map value is the field left out; a map or list that went to null leaves an empty
    one behind when its entries are removed, which the API server does not store either."""
    if isinstance(value, dict):
        kept = {k: _no_nulls(v) for k, v in value.items() if v is not None}
        return {k: v for k, v in kept.items() if v not in ({}, [])}
    if isinstance(value, list):
        return [_no_nulls(v) for v in value]
    return value


def normalised(obj: Any) -> Any:
    """Set lists compare as sets; null and empty map values as absent."""
    obj = _no_nulls(copy.deepcopy(obj))
    if isinstance(obj, dict) and isinstance(obj.get("metadata"), dict) and "finalizers" in obj["metadata"]:
        obj["metadata"]["finalizers"] = sorted(obj["metadata"]["finalizers"])
    return obj


# --- strategies ---------------------------------------------------------------------------

scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([1.0, 0.5, "1", "a", "b"]),
                    st.text(alphabet="ab/~\n{}:", max_size=6))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(alphabet="ab/~", max_size=3), inner, max_size=4)), max_leaves=12)
flags = st.sampled_from(["--v=1", "--v=2", "--log.level=INFO", "--log.level=DEBUG", "-q", "run", "serve"])
env = st.fixed_dictionaries({"name": st.sampled_from(["A", "B", "C", "D"]), "value": st.sampled_from(["1", "2", "x"])})
port = st.fixed_dictionaries({"containerPort": st.sampled_from([80, 443, 8080])},
                             optional={"protocol": st.sampled_from(["TCP", "UDP"]), "name": st.sampled_from(["http", "h"])})
container = st.fixed_dictionaries(
    {"name": st.sampled_from(["app", "side", "init"]), "image": st.sampled_from(["app:1", "app:2"])},
    optional={"args": st.lists(flags, max_size=4), "env": st.lists(env, max_size=4), "ports": st.lists(port, max_size=3),
              "resources": st.fixed_dictionaries({"limits": st.fixed_dictionaries(
                  {"cpu": st.sampled_from(["1", "1000m", "500m", 0.5, 2])})})})
objects = st.builds(
    lambda cs, fin, ann, extra: {**deployment(cs, finalizers=fin, annotations=ann), "extra": extra},
    st.lists(container, max_size=3), st.lists(st.sampled_from(["a/x", "b", "c"]), unique=True, max_size=3),
    st.dictionaries(st.sampled_from(["a/b", "c~d", "e"]), st.sampled_from(["1", "2"]), max_size=2), json_values,
)


@settings(max_examples=300, deadline=None)
@given(objects)
def test_an_object_diffed_with_itself_gives_nothing(obj: dict[str, Any]) -> None:
    assert diff_objects(obj, copy.deepcopy(obj)) == []


@settings(max_examples=400, deadline=None)
@given(objects, objects)
def test_applying_the_changes_gives_the_desired_object(before: dict[str, Any], after: dict[str, Any]) -> None:
    changes = diff_objects(before, after)
    assert same(normalised(apply(before, changes)), normalised(after))


@settings(max_examples=300, deadline=None)
@given(json_values, json_values)
def test_applying_the_changes_of_schemaless_values(before: Any, after: Any) -> None:
    assert same(_no_nulls(apply(before, diff(before, after))), _no_nulls(after))


@settings(max_examples=300, deadline=None)
@given(objects, objects)
def test_pointers_round_trip_through_jsonpointer(before: dict[str, Any], after: dict[str, Any]) -> None:
    """Indices count in the desired object, except the last one of a remove, which counts in
    the previous list; so every pointer but a remove's names its value in `after`. A null map
    value is an absent one, so a remove may name a null."""
    for change in diff_objects(before, after):
        pointer = jsonpointer.JsonPointer(change.path)
        assert pointer.path == change.path
        assert pointer.parts == _tokens(change.path)
        if change.op is FieldOp.REMOVE:
            parent = jsonpointer.JsonPointer.from_parts(pointer.parts[:-1]).resolve(after)
            # gone from `after`: not there, or null there (null is absent), or under a null
            assert parent is None or isinstance(parent, list) or parent.get(pointer.parts[-1]) is None
        else:
            named = pointer.resolve(after)
            if change.op in (FieldOp.ADD, FieldOp.REPLACE):
                assert same(named, change.after)
        for prefix, key in change.keys:
            if change.op is FieldOp.REMOVE and prefix == change.path:
                continue
            entry = jsonpointer.resolve_pointer(after, prefix)
            assert {k: entry[k] for k in key} == key


# --- the rules, one by one ----------------------------------------------------------------

def test_inserting_one_env_var_is_one_add() -> None:
    a = deployment([{"name": "app", "env": [{"name": "A", "value": "1"}, {"name": "C", "value": "3"}]}])
    b = deployment([{"name": "app", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"},
                                            {"name": "C", "value": "3"}]}])
    (change,) = diff_objects(a, b)
    assert (change.op, change.path, change.after) == (FieldOp.ADD, "/spec/template/spec/containers/0/env/1",
                                                       {"name": "B", "value": "2"})
    assert dict(change.keys) == {"/spec/template/spec/containers/0": {"name": "app"},
                                 "/spec/template/spec/containers/0/env/1": {"name": "B"}}


def test_one_image_change_is_one_replace_under_its_container() -> None:
    a = deployment([{"name": "side", "image": "s:1"}, {"name": "app", "image": "a:1"}])
    b = deployment([{"name": "side", "image": "s:1"}, {"name": "app", "image": "a:2"}])
    assert ops(diff_objects(a, b)) == [("replace", "/spec/template/spec/containers/1/image")]


def test_a_pure_reorder_is_one_order_change() -> None:
    a = deployment([{"name": n, "image": "x"} for n in ("a", "b", "c", "d")])
    b = deployment([{"name": n, "image": "x"} for n in ("d", "a", "b", "c")])
    (change,) = diff_objects(a, b)
    assert change.op is FieldOp.REORDER and change.path == "/spec/template/spec/containers"
    assert change.after == [{"name": "d"}, {"name": "a"}, {"name": "b"}, {"name": "c"}]


def test_set_lists_compare_as_sets() -> None:
    a = deployment([], finalizers=["x", "y"])
    assert diff_objects(a, deployment([], finalizers=["y", "x"])) == []
    assert ops(diff_objects(a, deployment([], finalizers=["y", "z"]))) == [
        ("add", "/metadata/finalizers/1"), ("remove", "/metadata/finalizers/0")]


def test_atomic_lists_are_one_value_with_an_entry_diff_matching_flags_by_name() -> None:
    a = deployment([{"name": "app", "args": ["serve", "--log.level=INFO", "--port=80"]}])
    b = deployment([{"name": "app", "args": ["serve", "--port=80", "--log.level=DEBUG"]}])
    (change,) = diff_objects(a, b)
    assert change.op is FieldOp.REPLACE and change.parts_of == "entries"
    assert [(p.op.value, p.path, p.before, p.after) for p in change.parts] == [
        ("reorder", "", [0, 1, 2], [0, 2, 1]), ("replace", "/2", "--log.level=INFO", "--log.level=DEBUG")]


def test_unkeyed_lists_match_by_content_then_position() -> None:
    a = {"items": [{"x": 1}, {"y": 2}, "--flag=a", {"z": 3}]}
    b = {"items": [{"y": 2}, {"x": 1}, "--flag=b", {"z": 4}]}
    assert [(c.op.value, c.path) for c in diff(a, b)] == [
        ("reorder", "/items"), ("replace", "/items/2"), ("replace", "/items/3/z")]


def test_a_keyed_entry_whose_key_changed_is_a_rename() -> None:
    a = deployment([{"name": "app", "image": "a:1", "ports": [{"containerPort": 80}]}])
    b = deployment([{"name": "web", "image": "a:1", "ports": [{"containerPort": 80}]}])
    (change,) = diff_objects(a, b)
    assert (change.op, change.before, change.after) == (FieldOp.RENAME, {"name": "app"}, {"name": "web"})


def test_a_keyed_entry_with_other_content_is_a_remove_and_an_add() -> None:
    a = deployment([{"name": "app", "image": "a:1", "command": ["a"]}])
    b = deployment([{"name": "web", "image": "b:1", "command": ["b"]}])
    assert [c.op for c in diff_objects(a, b)] == [FieldOp.ADD, FieldOp.REMOVE]


def test_multi_line_strings_get_a_line_diff_with_context() -> None:
    before = "".join(f"key{i}=value{i}\n" for i in range(40))
    after = before.replace("key20=value20", "key20=changed")
    (change,) = diff({"data": {"p": before}}, {"data": {"p": after}})
    assert change.lines == ("@@ -19,5 +19,5 @@", " key18=value18", " key19=value19", "-key20=value20",
                            "+key20=changed", " key21=value21", " key22=value22")
    assert line_diff("a\n", "a\n") == ()


def test_embedded_json_and_yaml_are_diffed_structurally() -> None:
    a = {"data": {"c.json": '{"server": {"port": 80}, "debug": false}', "c.yaml": "server:\n  port: 80\nname: x\n"}}
    b = {"data": {"c.json": '{"debug": false, "server": {"port": 81}}', "c.yaml": "name: x\nserver:\n  port: 81\n"}}
    changes = diff(a, b)
    assert [(c.path, c.parts_of, [(p.path, p.before, p.after) for p in c.parts]) for c in changes] == [
        ("/data/c.json", "json", [("/server/port", 80, 81)]), ("/data/c.yaml", "yaml", [("/server/port", 80, 81)])]
    # An embedded document that only changed its layout is still a changed file: a line diff.
    (layout,) = diff({"d": "a: 1\nb: 2\n"}, {"d": "b: 2\na: 1\n"})
    assert layout.lines and not layout.parts


@pytest.mark.parametrize("a,b", [("1000m", "1"), ("1Gi", "1024Mi"), ("0.5", "500m"), (1, "1"), ("1e3", "1k"),
                                 ("129e6", "129M"), ("123Mi", "128974848")])
def test_equal_quantities(a: Any, b: Any) -> None:
    (change,) = diff_objects(deployment([{"name": "x", "resources": {"limits": {"cpu": a}}}]),
                             deployment([{"name": "x", "resources": {"limits": {"cpu": b}}}]))
    assert change.equivalent


@pytest.mark.parametrize("a,b", [("1", "2"), ("1Gi", "1G"), ("100m", "0.01")])
def test_different_quantities(a: Any, b: Any) -> None:
    assert not equivalent(a, b)


def test_quantities_only_where_the_schema_says_quantity() -> None:
    (change,) = diff_objects({"apiVersion": "v1", "kind": "ConfigMap", "data": {"x": "1000m"}},
                             {"apiVersion": "v1", "kind": "ConfigMap", "data": {"x": "1"}})
    assert not change.equivalent
    assert parse("1.5Gi") == parse("1610612736") == parse(1610612736) and parse("x") is None and parse(True) is None


def test_numbers_compare_as_resolved() -> None:
    assert diff({"a": 1, "b": 0.5}, {"a": 1.0, "b": 0.5}) == []
    assert ops(diff({"a": 1}, {"a": True})) == [("replace", "/a")]
    assert ops(diff({"a": 2**64}, {"a": 2**64 + 1})) == [("replace", "/a")]


def test_pointer_tokens_are_escaped() -> None:
    (change,) = diff({"metadata": {"annotations": {"a/b~c": "1"}}}, {"metadata": {"annotations": {"a/b~c": "2"}}})
    assert change.path == "/metadata/annotations/a~1b~0c"


# -- the line diff of big values --------------------------------------------------------------------

def _patched(a: list[str], hunks: tuple[str, ...]) -> list[str]:
    """b, rebuilt from a and its unified diff: checks that the diff is true."""
    import re
    out: list[str] = []
    at = 0
    for line in hunks:
        header = re.fullmatch(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", line)
        if header:
            start = int(header[1]) - (0 if header[2] == "0" else 1)
            out += a[at:start]
            at = start
        elif line[:1] in (" ", "-"):
            assert a[at] == line[1:]
            at += 1
            if line[:1] == " ":
                out.append(line[1:])
        else:
            out.append(line[1:])
    return out + a[at:]


def _lines(count: int, seed: int) -> list[str]:
    import random
    rng = random.Random(seed)
    return [f"line {i} " + "".join(rng.choices("abcdefghij ", k=70)) for i in range(count)]


def test_an_8_mb_value_with_ten_thousand_changed_lines_is_diffed_in_seconds() -> None:
    """difflib alone took minutes on this (its cost grows with both sides' length)."""
    import time
    from deployah_plan.core.diff import MAX_DIFF_LINES
    a = _lines(100_000, 1)
    b = list(a)
    for i in range(0, len(b), 10):
        b[i] += " changed"
    del b[5_000:5_100]
    b[70_000:70_000] = ["new"] * 300
    started = time.monotonic()
    changes = diff_objects({"data": {"k": "\n".join(a)}}, {"data": {"k": "\n".join(b)}})
    assert time.monotonic() - started < 10
    assert len("\n".join(a)) > 8_000_000
    (change,) = changes
    assert len(change.lines) == MAX_DIFF_LINES + 1
    assert change.lines[-1].startswith(f"@@ the line diff is cut at {MAX_DIFF_LINES:,} lines: ")


def test_a_big_value_with_few_changes_gets_a_whole_true_line_diff() -> None:
    a = _lines(60_000, 2)
    b = list(a)
    b[10] = "changed"
    del b[30_000:30_050]
    b[50_000:50_000] = ["added 1", "added 2"]
    hunks = line_diff("\n".join(a), "\n".join(b))
    assert _patched(a, hunks) == b
    assert [h for h in hunks if h.startswith("@@")] == ["@@ -9,5 +9,5 @@", "@@ -29999,54 +29999,4 @@",
                                                       "@@ -50049,4 +49999,6 @@"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from("abcdefgh"), max_size=60), st.lists(st.sampled_from("abcdefgh"), max_size=60),
       st.integers(min_value=0, max_value=40))
def test_the_anchored_line_diff_is_always_true(a: list[str], b: list[str], cells: int) -> None:
    """The path big values take (anchors, then difflib between them), forced onto small ones."""
    from deployah_plan.core import diff as engine
    saved = engine._DIFFLIB_LINES, engine._DIFFLIB_CELLS
    engine._DIFFLIB_LINES, engine._DIFFLIB_CELLS = 0, cells
    try:
        hunks = line_diff("\n".join(a), "\n".join(b))
    finally:
        engine._DIFFLIB_LINES, engine._DIFFLIB_CELLS = saved
    assert _patched(a, hunks) == b


def test_repeated_lines_without_anchors_stay_fast() -> None:
    import time
    a, b = ["a", "b"] * 50_000, ["b", "a"] * 50_000
    started = time.monotonic()
    hunks = line_diff("\n".join(a), "\n".join(b))
    assert time.monotonic() - started < 10 and hunks
