"""Unit tests of deployah_plan/render/words/value.py: how a value is shown on one line.

The rules are docs/output.md's: a value up to LONG_VALUE (1,000) characters is shown whole; a longer
one is cut, around what differs when two values are compared (CONTEXT characters kept on each
side of it), and every gap says how many characters it stands for, so a reviewer always sees
the change and knows what was left out; --full-values (View.of(True)) shows everything."""
from __future__ import annotations

import datetime
import re

from typing import Any

import pytest

from deployah_plan.model import FieldChange, FieldOp, ResourceRef
from deployah_plan.redact import Masked
from deployah_plan.render.report import Highlight, Notable
from deployah_plan.escape import escape_controls
from deployah_plan.render.words import key_label, names, plural, readable_path
from deployah_plan.render.words.plan import HIGHLIGHTS, HIGHLIGHTS_TITLE, highlight_text, more_highlights
from deployah_plan.render.words.value import (
    CONTEXT, LONG_VALUE, OBJECT_LINES, View, content_rows, diff_rows, field_body, field_rows, field_sign, folded_note,
    inner_rows, shorten, shorten_pair, value_text,
)

_GAP = re.compile(r"…\((\d[\d,]*) (?:more characters|characters elided)\)…?")


def _shown_and_hidden(text: str) -> tuple[int, int]:
    """Characters shown, and characters the gaps say they stand for."""
    hidden = sum(int(m.group(1).replace(",", "")) for m in _GAP.finditer(text))
    return len(_GAP.sub("", text)), hidden


def test_the_limits() -> None:
    assert (LONG_VALUE, CONTEXT) == (1_000, 40)
    assert View.of(True) == View(None, None) and View.of(False) == View()


@pytest.mark.parametrize("length", [0, 1, 999, 1_000])
def test_a_value_at_or_under_the_limit_is_shown_whole(length: int) -> None:
    text = "x" * length
    assert shorten(text) == text
    assert shorten_pair(text, "y" * length) == (text, "y" * length)


@pytest.mark.parametrize("length", [1_001, 5_000])
def test_a_longer_value_keeps_its_start_and_says_how_much_more(length: int) -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(length))
    short = shorten(text)
    assert short.startswith(text[:LONG_VALUE]) and _shown_and_hidden(short) == (LONG_VALUE, length - LONG_VALUE)
    assert shorten(text, limit=None) == text


def test_a_pair_is_cut_around_what_differs_and_the_gaps_add_up() -> None:
    head = "registry.example.com/team/app@sha256:" + "0" * 2_000
    before, after = head + "aaaa" + "z" * 500, head + "bbbb" + "z" * 500
    short_before, short_after = shorten_pair(before, after)
    for whole, short, differ in ((before, short_before, "aaaa"), (after, short_after, "bbbb")):
        assert "0" * CONTEXT + differ + "z" * CONTEXT in short
        assert short.startswith("registry.example.com")
        shown, hidden = _shown_and_hidden(short)
        assert shown + hidden == len(whole)
    # Only the long side is cut.
    assert shorten_pair("short", "y" * 1_200)[0] == "short"
    assert shorten_pair("y" * 1_200, "short")[1] == "short"
    assert shorten_pair(before, after, limit=None) == (before, after)


def test_a_difference_at_the_start_keeps_the_start() -> None:
    before, after = "A" + "x" * 2_000, "B" + "x" * 2_000
    short_before, short_after = shorten_pair(before, after)
    assert short_before.startswith("A" + "x" * CONTEXT) and short_after.startswith("B" + "x" * CONTEXT)
    assert _shown_and_hidden(short_before)[1] > 0


@pytest.mark.parametrize("value, shown", [
    ("a", '"a"'), (1, "1"), (1.5, "1.5"), (True, "true"), (None, "null"), ({"a": [1, 2]}, '{"a": [1, 2]}'),
    ("é", '"é"'), (float("inf"), '"inf"'), ("one\ntwo", "(2 lines)"), ("one\ntwo\n", "(2 lines)"), ("one\n", '"one\\n"'),
    (Masked(3, 1), "(sensitive #1, 3 bytes)"),
])
def test_value_text(value: object, shown: str) -> None:
    assert value_text(value) == shown


def test_field_bodies() -> None:
    assert field_body(FieldChange("/a", FieldOp.ADD, None, "x" * 80), "a") == "a: " + '"' + "x" * 80 + '"'
    long = field_body(FieldChange("/a", FieldOp.ADD, None, "x" * 1_500), "a")
    assert long.startswith('a: "' + "x" * 999) and "more characters" in long
    assert field_body(FieldChange("/a", FieldOp.REMOVE, 1, None), "a") == "a: 1"
    assert field_body(FieldChange("/a", FieldOp.REPLACE, 1, 2), "a") == "a: 1 -> 2"
    assert field_body(FieldChange("/a", FieldOp.REPLACE, "1", "1000m", equivalent=True), "a") == (
        'a: "1" -> "1000m" (the same quantity: not a change)')
    assert field_body(FieldChange("/l", FieldOp.REORDER, [0, 1], [1, 0]), "l") == "l: reordered: #0, #1 -> #1, #0"
    assert field_body(FieldChange("/l", FieldOp.REORDER, [{"name": "a"}], [{"name": "a"}]), "l") == (
        "l: reordered: name=a -> name=a")
    assert field_body(FieldChange("/l/0", FieldOp.RENAME, {"name": "a"}, {"name": "b"}), "l[name=b]") == (
        "l[name=b]: renamed from name=a")
    assert field_body(FieldChange("/s", FieldOp.REPLACE, "a\nb", "a\nc", lines=("-b", "+c")), "s") == "s:"
    assert field_body(FieldChange("/s", FieldOp.REPLACE, "{}", "{}", parts=(FieldChange("/a", FieldOp.ADD, None, 1),),
                                  parts_of="json"), "s") == "s (JSON):"
    assert field_sign(FieldChange("/a", FieldOp.REPLACE, 1, 2)) == "~"
    assert field_sign(FieldChange("/a", FieldOp.REPLACE, "1", "1000m", equivalent=True)) == "="
    assert field_sign(FieldChange("/a", FieldOp.ADD, None, 2)) == "+"


def test_plural() -> None:
    assert (plural(0, "hook"), plural(1, "hook"), plural(2, "hook")) == ("0 hooks", "1 hook", "2 hooks")


# -- control characters ----------------------------------------------------------------------------

@pytest.mark.parametrize("text, shown", [
    ("plain text, tab\tkept", "plain text, tab\tkept"),
    ("a\x1b[2Jb", "a\\x1b[2Jb"),  # a terminal would clear the screen
    ("line\nfake line", "line\\x0afake line"),  # a newline could fake a line of the plan
    ("\x00\x08\x0b\x1f\x7f\x80\x9f", "\\x00\\x08\\x0b\\x1f\\x7f\\x80\\x9f"),
    ("\xa0é\u00ff", "\xa0é\u00ff"),  # printable Latin-1 stays
    ("abc\u202edcba", "abc\\u202edcba"),  # a bidirectional override would reorder what is shown
    ("\u061c\u200e\u200f\u202a\u2066\u2069", "\\u061c\\u200e\\u200f\\u202a\\u2066\\u2069"),
    ("\u200d\u2070", "\u200d\u2070"),
])
def test_control_characters_and_bidi_overrides_are_shown_as_escapes(text: str, shown: str) -> None:
    assert escape_controls(text) == shown


# -- values ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, shown", [
    ("one\n  ", "(2 lines)"),  # a newline before trailing spaces: two lines
    ("a\nX", "(2 lines)"),
    ("a\n\n", '"a\\n\\n"'),  # trailing newlines end one line
    (datetime.date(2024, 1, 2), '"2024-01-02"'),  # what JSON has no type for, as text
    (float("-inf"), '"-inf"'), (float("nan"), '"nan"'),
    ([1, {"a": "b"}], '[1, {"a": "b"}]'),
])
def test_value_text_more(value: object, shown: str) -> None:
    assert value_text(value) == shown


def _limit_shown(text: str) -> int:
    return _shown_and_hidden(text)[0]


def test_a_pair_shows_the_value_start_the_elided_gap_the_difference_and_the_rest_counted() -> None:
    before, after = "p" * 2_000 + "A" + "s" * 2_000, "p" * 2_000 + "B" + "s" * 2_000
    # 40 characters either side of what differs, the value's start in the rest of the 1,000.
    head = "p" * (LONG_VALUE - 2 * CONTEXT - 1)
    expected = [head + f"…({2_000 - CONTEXT - len(head):,} characters elided)…" + "p" * CONTEXT + x + "s" * CONTEXT
                + f"…({2_000 - CONTEXT:,} more characters)" for x in "AB"]
    assert list(shorten_pair(before, after)) == expected
    assert _limit_shown(expected[0]) == LONG_VALUE


def test_a_difference_near_the_end_leaves_no_tail() -> None:
    before, after = "p" * 2_000 + "A" + "ss", "p" * 2_000 + "B" + "ss"
    head = "p" * (LONG_VALUE - CONTEXT - 3)
    assert shorten_pair(before, after) == tuple(
        head + f"…({2_000 - CONTEXT - len(head):,} characters elided)…" + "p" * CONTEXT + x + "ss" for x in "AB")


def test_a_difference_at_the_very_start_keeps_the_first_character() -> None:
    before, after = "A" + "s" * 2_000, "B" + "s" * 2_000
    # The common end is elided too, keeping its 40 characters of context.
    assert shorten_pair(before, after) == tuple(x + "s" * CONTEXT + "…(1,960 more characters)" for x in "AB")


def test_values_of_different_lengths_share_their_end() -> None:
    before, after = "p" * 1_200, "p" * 1_300  # the longer one only adds at the end
    assert shorten_pair(before, after) == (
        "p" * (LONG_VALUE - CONTEXT) + "…(200 characters elided)…" + "p" * CONTEXT,
        "p" * (LONG_VALUE - CONTEXT - 100) + "…(300 characters elided)…" + "p" * (CONTEXT + 100))
    before, after = "x" + "a" * 1_500 + "yz", "a" * 1_500 + "yz"  # a first character removed
    assert shorten_pair(before, after) == ("x" + "a" * CONTEXT + "…(1,462 more characters)",
                                           "a" * CONTEXT + "…(1,462 more characters)")


def test_a_long_difference_shows_its_own_start() -> None:
    before, after = "p" * 100 + "A" * 3_000 + "s" * 100, "p" * 100 + "B" * 3_000 + "s" * 100
    # The changed part alone is longer than the limit: its start (and the context before it).
    assert shorten_pair(before, after) == tuple(
        f"…({100 - CONTEXT} characters elided)…" + "p" * CONTEXT + x * (LONG_VALUE - CONTEXT)
        + f"…({3_200 - 100 - (LONG_VALUE - CONTEXT) + 0:,} more characters)" for x in "AB")
    # With a limit shorter than the context, the first character that differs is still shown.
    short = shorten_pair("p" * 50 + "A" * 30, "p" * 50 + "B" * 30, limit=10)
    assert short == ("…(10 characters elided)…" + "p" * 40 + "A" + "…(29 more characters)",
                     "…(10 characters elided)…" + "p" * 40 + "B" + "…(29 more characters)")


def test_only_the_long_side_of_a_pair_is_cut() -> None:
    long = "B" * 1_500 + "s" * 100
    short_before, short_after = shorten_pair("A" + "s" * 100, long)
    assert short_before == "A" + "s" * 100  # whole, though most of it is the common end
    assert short_after == "B" * LONG_VALUE + "…(600 more characters)"
    assert shorten_pair(long, "A" + "s" * 100) == (short_after, short_before)
    # A side of exactly 1,000 characters is whole, even when most of it is the common end.
    exactly, longer = "A" + "s" * 999, "B" * 10 + "s" * 999
    assert shorten_pair(exactly, longer) == (exactly, "B" * 10 + "s" * CONTEXT + "…(959 more characters)")
    assert shorten_pair(longer, exactly) == ("B" * 10 + "s" * CONTEXT + "…(959 more characters)", exactly)


def test_the_common_end_is_counted_exactly() -> None:
    before, after = "x" * 1_500 + "a" + "s" * 101, "x" * 1_500 + "b" + "s" * 101
    head = "x" * (LONG_VALUE - 2 * CONTEXT - 1)
    assert shorten_pair(before, after) == tuple(
        head + f"…({1_500 - CONTEXT - len(head):,} characters elided)…" + "x" * CONTEXT + c + "s" * CONTEXT
        + "…(61 more characters)" for c in "ab")


def test_field_bodies_follow_the_view() -> None:
    full = View.of(True)
    long = "x" * 1_500
    for op, before, after in ((FieldOp.ADD, None, long), (FieldOp.REMOVE, long, None)):
        change = FieldChange("/a", op, before, after)
        assert field_body(change, "a", full) == f'a: "{long}"'
        assert field_body(change, "a", View(10, None)) == 'a: "xxxxxxxxx…(1,492 more characters)'
        assert field_body(change, "a") == f'a: "{long[:999]}…(502 more characters)'
    replace = FieldChange("/a", FieldOp.REPLACE, long + "a", long + "b")
    assert field_body(replace, "a", full) == f'a: "{long}a" -> "{long}b"'
    assert "elided" in field_body(replace, "a") and "elided" in field_body(replace, "a", View(100, None))
    assert len(field_body(replace, "a", View(100, None))) < len(field_body(replace, "a"))
    parts = (FieldChange("/0", FieldOp.ADD, None, 1),)
    assert field_body(FieldChange("/l", FieldOp.REPLACE, [0], [0, 1], parts=parts, parts_of="entries"), "l") == (
        "l (an atomic list, replaced as a whole):")
    assert field_body(FieldChange("/s", FieldOp.REPLACE, "a: 1", "a: 2", parts=parts, parts_of="yaml"), "s") == "s (YAML):"


# -- a field change's rows ----------------------------------------------------------------------------

def test_a_field_change_as_rows_names_its_path_and_marks_a_regenerated_value() -> None:
    keys = (("/spec/containers/0", {"name": "app"}),)
    change = FieldChange("/spec/containers/0/image", FieldOp.REPLACE, "a:1", "a:2", keys=keys)
    assert field_rows(change) == [("~", 'spec.containers[name=app].image: "a:1" -> "a:2"')]
    assert field_rows(change, "image") == [("~", 'image: "a:1" -> "a:2"')]
    password = FieldChange("/data/p", FieldOp.REPLACE, "x", "y", regenerated=True)
    assert field_rows(password) == [("~", 'data.p: "x" -> "y"  (regenerated on every render)')]
    assert field_rows(FieldChange("/a", FieldOp.ADD, None, "x" * 1_500), view=View.of(True)) == [
        ("+", 'a: "' + "x" * 1_500 + '"')]


def test_a_line_diff_is_indented_under_its_field_with_its_marks() -> None:
    change = FieldChange("/data/run.sh", FieldOp.REPLACE, "a\nb\n", "a\nc\n",
                         lines=("@@ -1,2 +1,2 @@", " a", "-b", "+c"))
    rows = [("~", "data[\"run.sh\"]:"), (" ", "    @@ -1,2 +1,2 @@"), (" ", "    a"), ("-", "    b"), ("+", "    c")]
    assert field_rows(change) == rows
    assert inner_rows(change) == rows[1:]
    assert diff_rows(change) == rows


def test_inner_changes_nest_one_level_deeper_each() -> None:
    verbs = FieldChange("/7/verbs", FieldOp.REPLACE, ["get"], ["get", "delete"], parts_of="entries",
                        parts=(FieldChange("/1", FieldOp.ADD, None, "delete"),))
    whole = FieldChange("", FieldOp.REPLACE, 1, 2)
    rules = FieldChange("/rules", FieldOp.REPLACE, [], [], parts_of="entries", parts=(verbs, whole))
    assert field_rows(rules) == [
        ("~", "rules (an atomic list, replaced as a whole):"),
        ("~", "    [7].verbs (an atomic list, replaced as a whole):"),
        ("+", '        [1]: "delete"'),
        ("~", "    (whole value): 1 -> 2"),
    ]
    assert diff_rows(rules) == [
        ("~", "rules (an atomic list, replaced as a whole):"),
        ("~", "    [7].verbs (an atomic list, replaced as a whole):"),
        ("+", '        [1]: "delete"'),
        ("-", "    (whole value): 1"),
        ("+", "    (whole value): 2"),
    ]
    long = FieldChange("/l", FieldOp.REPLACE, [], [], parts_of="entries",
                       parts=(FieldChange("/0", FieldOp.ADD, None, "x" * 1_500),))
    assert field_rows(long, "l", View.of(True))[1] == ("+", '    [0]: "' + "x" * 1_500 + '"')
    assert field_rows(long, "l")[1] == ("+", '    [0]: "' + "x" * 999 + "…(502 more characters)")
    keyed = FieldChange("/0/x", FieldOp.ADD, None, 1, keys=(("/0", {"name": "a"}),))
    assert inner_rows(FieldChange("/l", FieldOp.REPLACE, [], [], parts=(keyed,), parts_of="entries")) == [
        ("+", "    [name=a].x: 1")]


def test_diff_rows_draw_a_replace_as_minus_and_plus_lines() -> None:
    assert diff_rows(FieldChange("/spec/replicas", FieldOp.REPLACE, 1, 2)) == [
        ("-", "spec.replicas: 1"), ("+", "spec.replicas: 2")]
    image = FieldChange("/spec/containers/0/image", FieldOp.REPLACE, "a:1", "a:2",
                        keys=(("/spec/containers/0", {"name": "app"}),))
    assert diff_rows(image) == [("-", 'spec.containers[name=app].image: "a:1"'),
                                ("+", 'spec.containers[name=app].image: "a:2"')]
    assert diff_rows(FieldChange("/a", FieldOp.REPLACE, "x", "y", regenerated=True), "a") == [
        ("-", 'a: "x"'), ("+", 'a: "y"  (regenerated on every render)')]
    assert diff_rows(FieldChange("/cpu", FieldOp.REPLACE, "1", "1000m", equivalent=True)) == [
        (" ", 'cpu: "1" -> "1000m" (the same quantity: not a change)')]
    assert diff_rows(FieldChange("/a", FieldOp.ADD, None, 1, regenerated=True)) == [
        ("+", "a: 1  (regenerated on every render)")]
    assert diff_rows(FieldChange("/a", FieldOp.REMOVE, 1, None)) == [("-", "a: 1")]
    assert diff_rows(FieldChange("/l", FieldOp.REORDER, [0, 1], [1, 0])) == [("~", "l: reordered: #0, #1 -> #1, #0")]
    long = "x" * 1_500
    assert diff_rows(FieldChange("/a", FieldOp.REPLACE, long + "a", long + "b"), "a", View.of(True)) == [
        ("-", f'a: "{long}a"'), ("+", f'a: "{long}b"')]
    assert diff_rows(FieldChange("/a", FieldOp.REPLACE, long + "a", long + "b"), "a", View(50, None))[0][1] == (
        'a: "xxxxxxx…(1,453 characters elided)…' + "x" * 40 + 'a"')  # 50 shown, the quotes too
    assert diff_rows(FieldChange("/a", FieldOp.ADD, None, long), "a", View(10, None)) == [
        ("+", 'a: "xxxxxxxxx…(1,492 more characters)')]
    inner = FieldChange("/l", FieldOp.REPLACE, [], [], parts_of="entries",
                        parts=(FieldChange("/0", FieldOp.ADD, None, long),))
    assert diff_rows(inner, "l", View(10, None)) == [
        ("~", "l (an atomic list, replaced as a whole):"), ("+", '    [0]: "xxxxxxxxx…(1,492 more characters)')]
    script = FieldChange("/s", FieldOp.REPLACE, "a\nb", "a\nc", lines=("-b", "+c"), regenerated=True)
    assert diff_rows(script) == [("~", "s:  (regenerated on every render)"), ("-", "    b"), ("+", "    c")]


# -- a created object's content ---------------------------------------------------------------------

def test_a_created_object_shows_its_content_as_yaml_without_what_its_own_line_says() -> None:
    obj = {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
        "metadata": {"name": "reader", "namespace": "shop", "labels": {"app": "web", "yes": "y", "True": 1,
                                                                       "1st": 2, "a b": 3, "a.b/c-d_e": 4}},
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}, {}],
        "data": {"run.sh": "echo a\necho b\n", "empty": "", "none": None, "map": {}, "list": []},
        "nested": [[1, 2], ["x\ny"], "two\nlines"],
        "masked": [Masked(3, 1)],
        "long": ["a" * 30, "b" * 30],
    }
    rows, folded = content_rows(obj, View(None, None))
    assert folded == 0
    assert rows == [
        "metadata:",
        "  labels:",
        '    app: "web"',
        '    "yes": "y"',  # YAML 1.1 would read a bare yes as true
        '    "True": 1',
        '    "1st": 2',
        '    "a b": 3',
        "    a.b/c-d_e: 4",
        "rules:",
        '  - apiGroups: [""]',
        '    resources: ["pods"]',
        '    verbs: ["get", "list"]',
        "  - {}",
        "data:",
        "  run.sh: |",
        "    echo a",
        "    echo b",
        '  empty: ""',
        "  none: null",
        "  map: {}",
        "  list: []",
        "nested:",
        "  - [1, 2]",
        "  -",
        "    - |",
        "      x",
        "      y",
        "  - |",
        "    two",
        "    lines",
        "masked:",
        "  - (sensitive #1, 3 bytes)",  # a masked value is never folded into a line with others
        "long:",
        '  - "' + "a" * 30 + '"',
        '  - "' + "b" * 30 + '"',
    ]


def test_a_string_with_a_newline_before_its_end_is_a_block() -> None:
    obj = {"spaces": "a\n  ", "lead": "\nabc", "x": "a\nX", "end": "one\n\n", "l": ["a\n  "], "m": ["\nb"],
           "o": ["a\nX"]}
    assert content_rows(obj) == ([
        "spaces: |", "  a", "    ",
        "lead: |", "  ", "  abc",
        "x: |", "  a", "  X",
        'end: "one\\n\\n"',  # trailing newlines only: one line
        "l:", "  - |", "    a", "      ",
        "m:", "  - |", "    ", "    b",
        "o:", "  - |", "    a", "    X",
    ], 0)


def test_keys_that_yaml_would_misread_are_quoted_as_json() -> None:
    assert content_rows({"ключ": 1, "é key": 2, "null": 3, "Off": 4, "~": 5, "_ok": 6}) == ([
        '"ключ": 1', '"é key": 2', '"null": 3', '"Off": 4', '"~": 5', "_ok: 6"], 0)


def test_nested_maps_in_lists_keep_their_indent() -> None:
    obj = {"spec": {"containers": [{"name": "app", "ports": [{"containerPort": 80, "name": "http"}]}]}}
    assert content_rows(obj) == ([
        "spec:",
        "  containers:",
        '    - name: "app"',
        "      ports:",
        "        - containerPort: 80",
        '          name: "http"',
    ], 0)


def test_an_inline_list_is_at_most_60_characters() -> None:
    exactly = ["x" * 56]  # ["xxx…"] is 60 characters
    assert content_rows({"a": exactly}) == (['a: ["' + "x" * 56 + '"]'], 0)
    assert content_rows({"a": ["x" * 57]}) == (["a:", '  - "' + "x" * 57 + '"'], 0)


def test_metadata_with_only_a_name_is_left_out() -> None:
    assert content_rows({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "n"},
                         "data": {"a": "1"}}) == (["data:", '  a: "1"'], 0)
    assert content_rows({"kind": "Namespace", "metadata": {"name": "n", "annotations": {"a": "b"}}}) == (
        ["metadata:", "  annotations:", '    a: "b"'], 0)


def test_a_long_object_is_folded_after_40_lines_and_says_how_many_more() -> None:
    obj = {"data": {f"k{n:02}": n for n in range(45)}}
    rows, folded = content_rows(obj)
    assert len(rows) == OBJECT_LINES == 40 and folded == 6 and rows[-1] == "  k38: 38"
    assert content_rows(obj, View(LONG_VALUE, 46)) == (["data:", *(f"  k{n:02}: {n}" for n in range(45))], 0)
    assert content_rows(obj, View(LONG_VALUE, 45))[1] == 1
    assert content_rows(obj, View.of(True))[1] == 0 and len(content_rows(obj, View.of(True))[0]) == 46
    assert folded_note(6) == "… 6 more lines (--full-values shows them; the JSON plan has the whole object)"
    assert folded_note(1) == "… 1 more line (--full-values shows them; the JSON plan has the whole object)"


def test_long_values_in_content_are_cut_unless_full_values() -> None:
    obj = {"data": {"big": "x" * 1_500, "script": "y" * 1_200 + "\nz\n"}, "l": ["w" * 1_100]}
    assert content_rows(obj) == ([
        "data:",
        '  big: "' + "x" * 999 + "…(502 more characters)",
        "  script: |",
        "    " + "y" * 1_000 + "…(200 more characters)",
        "    z",
        "l:",
        '  - "' + "w" * 999 + "…(102 more characters)",
    ], 0)
    assert content_rows(obj, View.of(True))[0][1] == '  big: "' + "x" * 1_500 + '"'
    assert content_rows(obj, View.of(True))[0][3] == "    " + "y" * 1_200
    # Inline when the list, as shown, is short.
    assert content_rows({"l": ["a" * 1_100, "b"]}, View(5, None)) == (['l: ["aaaa…(1,097 more characters), "b"]'], 0)


# -- what matters ---------------------------------------------------------------------------------------

def _ref(kind: str, name: str, namespace: str = "shop", api_version: str = "v1") -> ResourceRef:
    return ResourceRef(api_version, kind, namespace, name)


WEB = _ref("Deployment", "web", api_version="apps/v1")
READER = _ref("ClusterRole", "reader", "", "rbac.authorization.k8s.io/v1")


def test_names_are_spelt_kind_namespace_slash_name_with_notes_and_at_most_eight() -> None:
    assert names([WEB, READER]) == "Deployment shop/web, ClusterRole reader"
    assert names([WEB, READER], ["app", ""]) == "Deployment shop/web (app), ClusterRole reader"
    assert names([WEB, READER], ["app"]) == "Deployment shop/web (app), ClusterRole reader"
    many = [_ref("ConfigMap", f"c{n}") for n in range(10)]
    assert names(many) == ", ".join(f"ConfigMap shop/c{n}" for n in range(8)) + " and 2 more"
    assert names(many[:8]) == ", ".join(f"ConfigMap shop/c{n}" for n in range(8))
    assert names(many[:9]) == ", ".join(f"ConfigMap shop/c{n}" for n in range(8)) + " and 1 more"
    assert names([_ref("ConfigMap", f"c{n}") for n in range(1_010)]).endswith(" and 1,002 more")
    assert names([]) == ""


def test_what_matters_lines() -> None:
    assert HIGHLIGHTS_TITLE == "What matters (the details follow):" and HIGHLIGHTS == 30
    assert more_highlights(1_234) == "… and 1,234 more (see the details)"
    line = highlight_text
    assert line(Highlight(Notable.FAILURE, "!", (WEB,), detail=("Deployment shop/web: spec.selector is immutable",))) == (
        "Deployment shop/web: spec.selector is immutable")
    assert line(Highlight(Notable.DATA_LOSS, "!", (WEB,), detail=("PVC data goes",))) == "PVC data goes"
    # A group of several warnings: its line, then what each is about, at most 8 named.
    assert line(Highlight(Notable.WARNING, "!", (), detail=("2 chart CRDs changed", "a.x", "b.x"))) == (
        "2 chart CRDs changed: a.x, b.x")
    many = tuple(f"c{n}.x" for n in range(10))
    assert line(Highlight(Notable.FAILURE, "X", (), detail=("each of 10 objects fails", *many))) == (
        "each of 10 objects fails: c0.x, c1.x, c2.x, c3.x, c4.x, c5.x, c6.x, c7.x and 2 more")
    # Running things at risk: a kind a line, counted, its objects named.
    assert line(Highlight(Notable.RISK, "!", (WEB,), detail=("replicas-reset",))) == (
        "replicas-reset: HPA-scaled replica count set by the chart: Deployment shop/web")
    assert line(Highlight(Notable.RISK, "!", (WEB, WEB), detail=("traffic-port",))) == (
        "traffic-port: 2 traffic risks: Deployment shop/web, Deployment shop/web")
    assert line(Highlight(Notable.DELETE, "-", (WEB, READER))) == "deleted: Deployment shop/web, ClusterRole reader"
    assert line(Highlight(Notable.DELETE, "=", (WEB,))) == "leaving the release, kept in the cluster: Deployment shop/web"
    assert line(Highlight(Notable.IMAGE, "~", (WEB,), "web:1", "web:2", ("app",))) == (
        'image "web:1" -> "web:2" in Deployment shop/web (app)')
    assert line(Highlight(Notable.IMAGE, "+", (WEB,), None, "web:2", ("app",))) == (
        'image "web:2" in Deployment shop/web (app)')
    long = "registry.example.com/web@sha256:" + "0" * 1_200
    assert line(Highlight(Notable.IMAGE, "+", (WEB,), None, long, ("app",))) == (
        f'image "{long[:999]}…(234 more characters) in Deployment shop/web (app)')
    assert line(Highlight(Notable.IMAGE, "+", (WEB,), None, long, ("app",)), View.of(True)) == (
        f'image "{long}" in Deployment shop/web (app)')
    bumped = line(Highlight(Notable.IMAGE, "~", (WEB,), long + "1", long + "2", ("app",)))
    assert bumped.count("characters elided") == 2 and '1" -> "' in bumped
    assert line(Highlight(Notable.IMAGE, "~", (WEB,), long + "1", long + "2", ("app",)), View.of(True)) == (
        f'image "{long}1" -> "{long}2" in Deployment shop/web (app)')
    assert line(Highlight(Notable.RBAC, "+", (READER,))) == "new RBAC: ClusterRole reader"
    hook = _ref("ValidatingWebhookConfiguration", "check", "", "admissionregistration.k8s.io/v1")
    assert line(Highlight(Notable.WEBHOOK, "+", (hook,))) == "new admission webhook: ValidatingWebhookConfiguration check"
    assert line(Highlight(Notable.WEBHOOK, "+", (hook, hook))) == (
        "new admission webhooks: ValidatingWebhookConfiguration check, ValidatingWebhookConfiguration check")
    assert line(Highlight(Notable.RBAC, "+", (READER, READER))) == "new RBAC: ClusterRole reader, ClusterRole reader"
    assert line(Highlight(Notable.RBAC, "~", (READER,), detail=("rules", "aggregationRule"))) == (
        "RBAC: ClusterRole reader: rules, aggregationRule changed")
    assert line(Highlight(Notable.WEBHOOK, "~", (hook,), detail=("webhooks",))) == (
        "admission webhook: ValidatingWebhookConfiguration check: webhooks changed")
    secret = _ref("Secret", "db")
    assert line(Highlight(Notable.SECRET, "~", (secret,), detail=("password (changed)", "user (added)"))) == (
        "Secret keys: Secret shop/db: password (changed), user (added)")
    assert line(Highlight(Notable.SECRET, "+", (secret,))) == "new Secret keys: Secret shop/db"


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
