"""deepjson reads what json reads, the same way, and what Go writes deeper than json can."""
from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, strategies as st

from deployah_plan import deepjson
from deployah_plan.deepjson import _deep

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=30)


@given(JSON, st.sampled_from([None, 1, 2]))
def test_the_deep_decoder_reads_what_json_reads(value: Any, indent: int | None) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    assert _deep(text, dict, float) == json.loads(text)


def test_the_hooks_are_those_of_json() -> None:
    text = '{"a": 1, "a": 2, "b": 1.50, "c": [1e3]}'
    pairs = []

    def hook(items: list[tuple[str, Any]]) -> dict[str, Any]:
        pairs.append(items)
        return dict(items[:1])

    assert _deep(text, hook, Decimal) == json.loads(text, object_pairs_hook=hook, parse_float=Decimal)


def test_values_nested_past_the_recursion_limit_are_read() -> None:
    text = '{"deep": ' + '{"a": ' * 3000 + '"bottom"' + "}" * 3001
    value = deepjson.loads(text)
    for _ in range(3001):
        value = value["deep" if "deep" in value else "a"]
    assert value == "bottom"
    assert deepjson.loads("[" * 5000 + "]" * 5000) is not None


@pytest.mark.parametrize("text", ["[" * 10_001 + "]" * 10_001, '{"a": 1,}', "[1 2]", '{"a" 1}', "[1] x", "", "[01]"])
def test_what_json_and_go_refuse_is_refused(text: str) -> None:
    with pytest.raises(json.JSONDecodeError):
        _deep(text, dict, float)


@given(JSON)
def test_the_deep_encoder_writes_what_json_writes(value: Any) -> None:
    from deployah_plan.deepjson import _deep_chunks

    assert "".join(_deep_chunks(value)) == json.dumps(value)


def test_values_nested_past_the_recursion_limit_are_written() -> None:
    text = '{"deep": ' + '{"a": ' * 3000 + '"bottom"' + "}" * 3001
    assert deepjson.dumps(deepjson.loads(text)) == text
