"""Unit tests of deployah_plan/render/words.py: how a value is shown on one line.

The rules are the README's: a value up to LONG_VALUE (1,000) characters is shown whole; a longer
one is cut, around what differs when two values are compared (CONTEXT characters kept on each
side of it), and every gap says how many characters it stands for, so a reviewer always sees
the change and knows what was left out; --full-values (View.of(True)) shows everything."""
from __future__ import annotations

import re

import pytest

from deployah_plan.model import FieldChange, FieldOp
from deployah_plan.redact import Masked
from deployah_plan.render.words import (
    CONTEXT, LONG_VALUE, View, field_body, field_sign, plural, shorten, shorten_pair, value_text,
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
