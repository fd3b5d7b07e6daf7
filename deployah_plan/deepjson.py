"""JSON nested as deep as Go writes it. Python's decoder recurses once per level and stops at the
interpreter's recursion limit (about 1,000 levels), while Go's encoding/json, which wrote every
release record and helm's values, reads and writes up to 10,000. A record whose author nested
its values 3,000 levels deep is still a record helm reads, so it is read here too: the usual
decoder first (fast), then, only when it runs out of depth, a decoder that keeps its own stack.

The second decoder takes the first one's pieces (its string scanner and number grammar), so
both read the same text to the same values; it is bounded by the text's length, not its depth.
"""
from __future__ import annotations

import json
import json.decoder

from deployah_plan.startup import lazy

TYPE_CHECKING = False  # typing is not imported before the first helm call (sources/early.py)
if TYPE_CHECKING:
    from typing import Any, Callable

    PairsHook = Callable[[list[tuple[str, Any]]], Any]

# JSON's number grammar (json.scanner's NUMBER_RE) and white space.
_NUMBER = lazy(r"(-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)?")
_SPACE = lazy(r"[ \t\n\r]*")
# Go's limit (encoding/json maxNestingDepth): what it could not have written is refused.
MAX_DEPTH = 10_000

# json's own string scanner (C when built), which typeshed does not declare.
scanstring: Callable[[str, int], tuple[str, int]] = getattr(json.decoder, "scanstring")


def loads(text: str, object_pairs_hook: PairsHook | None = None,
          parse_float: Callable[[str], Any] | None = None) -> Any:
    """json.loads(text, object_pairs_hook=..., parse_float=...), at any depth Go writes."""
    try:
        return json.loads(text, object_pairs_hook=object_pairs_hook, parse_float=parse_float)
    except RecursionError:
        return _deep(text, object_pairs_hook or dict, parse_float or float)


class _Open:
    __slots__ = ("pairs", "items", "key")

    def __init__(self, is_object: bool) -> None:
        self.pairs: list[tuple[str, Any]] | None = [] if is_object else None
        self.items: list[Any] | None = None if is_object else []
        self.key: str | None = None


def _fail(text: str, at: int, what: str) -> json.JSONDecodeError:
    return json.JSONDecodeError(what, text, at)


def _deep(text: str, pairs_hook: PairsHook, parse_float: Callable[[str], Any]) -> Any:
    stack: list[_Open] = []
    at = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
    while True:
        # A value starts at `at`.
        char = text[at:at + 1]
        value: Any
        if char in ("{", "["):
            if len(stack) >= MAX_DEPTH:
                raise _fail(text, at, f"nested deeper than {MAX_DEPTH:,} levels")
            opened = _Open(char == "{")
            at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
            closing = "}" if char == "{" else "]"
            if text[at:at + 1] == closing:
                value = pairs_hook([]) if char == "{" else []
                at += 1
            else:
                stack.append(opened)
                if char == "{":
                    at = _key(text, at, opened)
                continue
        elif char == '"':
            value, at = scanstring(text, at + 1)
        elif text.startswith("true", at):
            value, at = True, at + 4
        elif text.startswith("false", at):
            value, at = False, at + 5
        elif text.startswith("null", at):
            value, at = None, at + 4
        else:
            number = _NUMBER.match(text, at)
            if number is None or number.end() == at:
                raise _fail(text, at, "Expecting value")
            whole, fraction, exponent = number.groups()
            value = parse_float(whole + (fraction or "") + (exponent or "")) if fraction or exponent else int(whole)
            at = number.end()
        # The value ends: place it, and close what it ends.
        while True:
            at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
            if not stack:
                if at != len(text):
                    raise _fail(text, at, "Extra data")
                return value
            top = stack[-1]
            if top.pairs is not None:
                top.pairs.append((str(top.key), value))
                closing = "}"
            else:
                assert top.items is not None
                top.items.append(value)
                closing = "]"
            char = text[at:at + 1]
            if char == ",":
                at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
                if top.pairs is not None:
                    at = _key(text, at, top)
                break
            if char != closing:
                raise _fail(text, at, f"Expecting ',' delimiter or {closing!r}")
            at += 1
            stack.pop()
            value = pairs_hook(top.pairs) if top.pairs is not None else top.items


def _key(text: str, at: int, opened: _Open) -> int:
    """Read `"key":` at `at` into `opened`; where its value starts."""
    if text[at:at + 1] != '"':
        raise _fail(text, at, "Expecting property name enclosed in double quotes")
    opened.key, at = scanstring(text, at + 1)
    at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
    if text[at:at + 1] != ":":
        raise _fail(text, at, "Expecting ':' delimiter")
    return _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]


def dumps(value: Any) -> str:
    """json.dumps(value), at any depth: the usual encoder first, then one that keeps its own stack."""
    try:
        return json.dumps(value)
    except RecursionError:
        return "".join(_deep_chunks(value))


def _deep_chunks(value: Any) -> Any:
    """json.dumps's chunks, without recursion: a stack of the open containers' remaining items."""
    stack: list[tuple[str, Any]] = [("value", value)]
    while stack:
        what, item = stack.pop()
        if what == "text":
            yield item
        elif isinstance(item, dict):
            if not item:
                yield "{}"
                continue
            yield "{"
            entries = list(item.items())
            stack.append(("text", "}"))
            for n, (key, inner) in reversed(list(enumerate(entries))):
                stack.append(("value", inner))
                stack.append(("text", (", " if n else "") + json.dumps(key if isinstance(key, str) else str(key)) + ": "))
        elif isinstance(item, (list, tuple)):
            if not item:
                yield "[]"
                continue
            yield "["
            stack.append(("text", "]"))
            for n, inner in reversed(list(enumerate(item))):
                stack.append(("value", inner))
                if n:
                    stack.append(("text", ", "))
        else:
            yield json.dumps(item)


__all__ = ["MAX_DEPTH", "dumps", "loads"]
