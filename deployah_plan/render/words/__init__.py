"""The words of a plan, one module per subject: `value` (how a value, a field change and a created
object's content are shown, shortened around what differs so a reviewer always sees the
change), `plan` (the header, the summary sentence, the section titles and "what matters"),
`change` (an object's line), `task` (task lines), `drift`, `crd` (chart CRDs), `warning` (each
warning code), `impact` (each impact kind) and `gate` (the --fail-on gates). A writer imports
the subjects it says.

Here only what several subjects share: the signs, an object's field path in words, counts and
lists of names, and the table a subject's wording functions register in (`Wording`).

Text and markdown both say these; the JSON document keeps the facts they come from. Nothing
here decides anything about the plan (render/report.py does); it only words what is decided.
"""
from __future__ import annotations

import json
from typing import Any, Callable, Iterable, Mapping, TypeVar

from deployah_plan.startup import lazy
from deployah_plan.model import Action, FieldOp
from deployah_plan.pointer import escape, tokens


SIGN = {Action.CREATE: "+", Action.UPDATE: "~", Action.DELETE: "-", Action.RETAIN: "=",
        FieldOp.ADD: "+", FieldOp.REMOVE: "-", FieldOp.REPLACE: "~", FieldOp.REORDER: "~", FieldOp.RENAME: "~"}

_F = TypeVar("_F", bound=Callable[..., Any])


class Wording:
    """A table of wording functions by what they word (a warning code, an impact kind): a
    decorator that enters a function under each key it is given."""

    def __init__(self, table: dict[Any, Callable[..., Any]]) -> None:
        self.table = table

    def __call__(self, *keys: Any) -> Callable[[_F], _F]:
        def register(function: _F) -> _F:
            for key in keys:
                self.table[key] = function
            return function
        return register


_IDENT = lazy(r"[A-Za-z_][A-Za-z0-9_-]*\Z")


def key_label(key: Mapping[str, Any]) -> str:
    return ",".join(f"{field}={value}" for field, value in key.items())


def readable_path(pointer: str, keys: Iterable[tuple[str, Mapping[str, Any]]] = ()) -> str:
    """`/spec/containers/0/image` -> `spec.containers[0].image`, or `spec.containers[name=app].image`
    when the entry's key is known (`keys`: pointer of each keyed entry, its key fields)."""
    if not pointer:
        return "(whole object)"
    by_prefix = dict(keys)
    out, prefix = "", ""
    for token in tokens(pointer):
        prefix += "/" + escape(token)
        if prefix in by_prefix:
            out += f"[{key_label(by_prefix[prefix])}]"
        elif token.isdigit():
            out += f"[{token}]"
        elif _IDENT.match(token):
            out += f".{token}" if out else token
        else:
            out += f"[{json.dumps(token)}]"
    return out


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


NAMES = 8  # objects named on one line of "what matters"; the rest are counted


def names(refs: Iterable[Any], notes: Iterable[str] = ()) -> str:
    """Objects named in a row, each with its note ("Deployment ns/web (app)"), at most NAMES
    of them and then how many more."""
    notes = list(notes)
    listed = [f"{ref} ({notes[n]})" if n < len(notes) and notes[n] else str(ref) for n, ref in enumerate(refs)]
    more = len(listed) - NAMES
    return ", ".join(listed[:NAMES]) + (f" and {more:,} more" if more > 0 else "")
