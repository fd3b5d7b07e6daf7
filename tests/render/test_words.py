"""Unit tests of deployah_plan/render/words.py: how a value is shown on one line.

The rules are the README's: a line shows at most MAX_VALUE (72) characters of a value; a value
that long or shorter is shown whole; a longer one is cut with "…", around what differs when two
values are compared, so a reviewer always sees the change."""
from __future__ import annotations

import pytest

from deployah_plan.model import FieldChange, FieldOp
from deployah_plan.redact import Masked
from deployah_plan.render.words import CONTEXT, MAX_VALUE, field_body, field_sign, plural, shorten, shorten_pair, value_text


def test_the_limits() -> None:
    assert (MAX_VALUE, CONTEXT) == (72, 12)


@pytest.mark.parametrize("length", [0, 1, 71, 72])
def test_a_value_at_or_under_the_limit_is_shown_whole(length: int) -> None:
    text = "x" * length
    assert shorten(text) == text
    assert shorten_pair(text, "y" * length) == (text, "y" * length)


@pytest.mark.parametrize("length", [73, 100])
def test_a_longer_value_is_cut_to_the_limit_with_an_ellipsis(length: int) -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(length))
    assert shorten(text) == text[:71] + "…" and len(shorten(text)) == 72
    assert shorten(text, limit=10) == text[:9] + "…"


def test_a_pair_is_cut_around_what_differs_on_both_sides() -> None:
    head = "registry.example.com/team/app@sha256:" + "0" * 50
    before, after = head + "aaaa", head + "bbbb"
    short_before, short_after = shorten_pair(before, after)
    assert len(short_before) <= MAX_VALUE and len(short_after) <= MAX_VALUE
    assert short_before.endswith("0" * CONTEXT + "aaaa") and short_after.endswith("0" * CONTEXT + "bbbb")
    assert short_before.startswith("registry.example.com") and "…" in short_before
    # Only the long side is cut.
    assert shorten_pair("short", "y" * 80)[0] == "short"
    assert shorten_pair("y" * 80, "short")[1] == "short"


def test_a_difference_at_the_start_keeps_the_start() -> None:
    before, after = "A" + "x" * 100, "B" + "x" * 100
    assert shorten_pair(before, after) == ("A" + "x" * CONTEXT + "…", "B" + "x" * CONTEXT + "…")


def test_a_long_difference_shows_where_it_starts() -> None:
    before, after = "x" * 20 + "A" * 100, "x" * 20 + "B" * 100
    short_before, short_after = shorten_pair(before, after)
    assert short_before == "…" + "x" * CONTEXT + "A" * 58 + "…" and len(short_before) == MAX_VALUE
    assert short_after == "…" + "x" * CONTEXT + "B" * 58 + "…"


def test_a_difference_in_the_middle_keeps_the_start_and_context() -> None:
    before = "s" * 10 + "m" * 60 + "A" + "e" * 60
    after = "s" * 10 + "m" * 60 + "B" + "e" * 60
    short_before, _ = shorten_pair(before, after)
    assert short_before.startswith("s" * 10) and ("m" * CONTEXT + "A" + "e" * CONTEXT + "…") in short_before
    assert len(short_before) <= MAX_VALUE
    assert short_before.count("…") == 2


@pytest.mark.parametrize("value, shown", [
    ("a", '"a"'), (1, "1"), (1.5, "1.5"), (True, "true"), (None, "null"), ({"a": [1, 2]}, '{"a": [1, 2]}'),
    ("é", '"é"'), (float("inf"), '"inf"'), ("one\ntwo", "(2 lines)"), ("one\ntwo\n", "(2 lines)"), ("one\n", '"one\\n"'),
    (Masked(3, 1), "(sensitive #1, 3 bytes)"),
])
def test_value_text(value: object, shown: str) -> None:
    assert value_text(value) == shown


def test_field_bodies() -> None:
    assert field_body(FieldChange("/a", FieldOp.ADD, None, "x" * 80), "a") == "a: " + '"' + "x" * 70 + "…"
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
