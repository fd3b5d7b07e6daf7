"""The published plan schema (deployah_plan/schema/plan.schema.json), and checking a JSON
document against it.

A saved plan is input: `helm plan show` checks it against the schema before building a Plan
from it, so a wrong type anywhere is one line naming where, not a crash.

A list of values (an `enum` of strings, or a `oneOf` of string `const`s: a warning code, an
impact kind, an action) is a vocabulary. A newer minor format version may add to a
vocabulary (the schema's rule: a minor version only adds), so in a document of a newer minor
version a vocabulary accepts any string shaped as its values are (letters, digits and `-`),
and the reader keeps what it can (an unknown warning
code or impact kind is shown as written) and refuses in one line what it cannot. A document
of this version or an older one must use the listed values.

This is a small interpreter of the JSON Schema keywords the plan schema uses (type, enum,
const, pattern, minimum, minLength, maxLength, properties, required, additionalProperties,
items, oneOf, anyOf, allOf, if/then and local $ref), not a general validator: the `jsonschema` package
checks a large plan in about seven times the time it takes to read it, and it would be one
more dependency at run time. The test suite checks, with `jsonschema`, that the schema uses
no keyword this module does not know.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Mapping

from deployah_plan.startup import lazy

__all__ = ["KNOWN_KEYWORDS", "first_error", "schema", "schema_text"]

KNOWN_KEYWORDS = frozenset({
    "type", "enum", "const", "pattern", "minimum", "minLength", "maxLength", "properties", "required",
    "additionalProperties", "items", "oneOf", "anyOf", "allOf", "if", "then", "$ref",
    # annotations, which check nothing
    "$schema", "$id", "$defs", "title", "description", "default", "examples", "$comment",
})


def schema_text() -> str:
    """The published JSON Schema of the plan document, as shipped in the package (read from its
    folder, as deployah_plan/data reads its tables); `helm plan schema` prints it."""
    return (Path(__file__).parent.parent / "schema" / "plan.schema.json").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(schema_text())
    return loaded


def _pointer(path: list[str | int]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path) or "the top level"


def _short(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


class _Invalid(Exception):
    """A broken rule; `path` is filled in, innermost last, as the error leaves each container.
    The message is made only when reported (`{}` stands for the value): a failed oneOf
    option is not worth a json.dumps."""

    def __init__(self, template: str, *value: Any) -> None:
        super().__init__(template)
        self.template = template
        self.value = value  # () when the template has no {}
        self.path: list[str | int] = []

    @property
    def message(self) -> str:
        return self.template.replace("{}", _short(self.value[0]), 1) if self.value else self.template


Check = Callable[[Any], None]


def first_error(document: Any, required: bool = True, newer: bool = False) -> str | None:
    """Where and how `document` breaks the plan schema (one line), or None when it does not.
    `required=False` checks only what is there: a document of an older minor version lacks
    the fields later ones added (the reader gives them their defaults). `newer=True` is for a
    document of a newer minor version: any string is accepted where the schema lists values."""
    try:
        _compiled(required, newer)(document)
    except _Invalid as err:
        return f"at {_pointer(err.path[::-1])}: {err.message}"
    return None


@lru_cache(maxsize=4)
def _compiled(required: bool, newer: bool) -> Check:
    root = schema()
    return _Compiler(root, required, newer).compile(root)


def _vocabulary(rule: Mapping[str, Any]) -> list[str] | None:
    """The values a rule lists, when it is a list of strings (an `enum`, or a `oneOf` of
    `const`s each with at most a description); None for any other rule."""
    if "enum" in rule:
        values = rule["enum"]
    elif rule.get("oneOf") and all(isinstance(o, dict) and "const" in o and set(o) <= {"const", "description"}
                                   for o in rule["oneOf"]):
        values = [o["const"] for o in rule["oneOf"]]
    else:
        return None
    return values if values and all(type(v) is str for v in values) else None


# What a value a newer version adds to a vocabulary can be: shaped as every listed one is, so
# that a writer can show it as it shows a known one (in markdown's inline code, say).
_NEW_VALUE = lazy(r"[A-Za-z0-9-]{1,100}")


def _string_of(values: list[str], newer: bool) -> Check:
    """A vocabulary's check: one of `values`, or (`newer`) any string shaped as they are."""
    known = frozenset(values)
    listed = ", ".join(_short(v) for v in values) if len(values) <= 8 else f"the {len(values)} values the schema lists"

    def check(value: Any) -> None:
        if type(value) is not str:
            raise _Invalid("{} is not of type string", value)
        if newer and not _NEW_VALUE.fullmatch(value):
            raise _Invalid("{} is not a value helm plan writes (letters, digits and -, at most 100)", value)
        if not newer and value not in known:
            raise _Invalid("{} is not one of " + listed, value)
    return check


class _Compiler:
    """Turns each schema node into one function, once: checking a large plan then costs a
    few calls per JSON node, and the values inside field changes (any JSON) cost nothing."""

    def __init__(self, root: Mapping[str, Any], required: bool, newer: bool) -> None:
        self.root = root
        self.required = required
        self.newer = newer
        self.refs: dict[str, Check] = {}

    def ref(self, target: str) -> Check:
        if target not in self.refs:
            holder: list[Check] = []
            self.refs[target] = lambda value: holder[0](value)  # a $ref may be recursive
            holder.append(self.compile(_resolve(target, self.root)))
        return self.refs[target]

    def compile(self, rule: Mapping[str, Any]) -> Check:
        vocabulary = _vocabulary(rule)
        if vocabulary is not None:
            rule = {k: v for k, v in rule.items() if k not in ("enum", "oneOf")}
        checks: list[Check] = [] if vocabulary is None else [_string_of(vocabulary, self.newer)]
        if "$ref" in rule:
            checks.append(self.ref(rule["$ref"]))
        if "type" in rule:
            checks.append(_type_check(rule["type"]))
        if "enum" in rule:
            options = rule["enum"]
            listed = ", ".join(_short(o) for o in options)
            strings = frozenset(o for o in options if type(o) is str)
            others = [o for o in options if type(o) is not str]

            def enum(value: Any) -> None:
                if not (type(value) is str and value in strings) and not any(_equal(value, o) for o in others):
                    raise _Invalid("{} is not one of " + listed, value)
            checks.append(enum)
        if "const" in rule:
            constant = rule["const"]

            def const(value: Any) -> None:
                if not _equal(value, constant):
                    raise _Invalid("{} is not " + _short(constant), value)
            checks.append(const)
        if any(k in rule for k in ("pattern", "maxLength", "minLength")):
            checks.append(_string_check(rule))
        if "minimum" in rule:
            least = rule["minimum"]

            def minimum(value: Any) -> None:
                if type(value) in (int, float) and value < least:
                    raise _Invalid(f"{{}} is less than {least}", value)
            checks.append(minimum)
        if any(k in rule for k in ("required", "properties", "additionalProperties")):
            checks.append(self._object_check(rule))
        if "items" in rule:
            item = self.compile(rule["items"])

            def items(value: Any) -> None:
                if isinstance(value, list):
                    for index, child in enumerate(value):
                        try:
                            item(child)
                        except _Invalid as err:
                            err.path.append(index)
                            raise
            checks.append(items)
        for word in ("allOf", "anyOf", "oneOf"):
            if rule.get(word):
                checks.append(_combination(word, [self.compile(option) for option in rule[word]]))
        if "if" in rule and "then" in rule:
            checks.append(_conditional(self.compile(rule["if"]), self.compile(rule["then"])))
        if not checks:
            return _anything
        if len(checks) == 1:
            return checks[0]

        def every(value: Any) -> None:
            for check in checks:
                check(value)
        return every

    def _object_check(self, rule: Mapping[str, Any]) -> Check:
        required = tuple(rule.get("required", ())) if self.required else ()
        properties = {key: self.compile(sub) for key, sub in rule.get("properties", {}).items()}
        extra_rule = rule.get("additionalProperties", True)
        extra: Check | bool = extra_rule if isinstance(extra_rule, bool) else self.compile(extra_rule)

        def check(value: Any) -> None:
            if not isinstance(value, dict):
                return
            for key in required:
                if key not in value:
                    raise _Invalid(f"{key!r} is missing")
            for key, child in value.items():
                sub = properties.get(key)
                if sub is None:
                    if extra is True:
                        continue
                    if extra is False:
                        raise _Invalid(f"{key!r} is not allowed")
                    sub = extra
                if sub is _anything:
                    continue
                try:
                    sub(child)
                except _Invalid as err:
                    err.path.append(key)
                    raise
        return check


def _anything(value: Any) -> None:
    pass


_PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,), "array": (list,), "string": (str,), "boolean": (bool,), "null": (type(None),),
    "integer": (int,), "number": (int, float),
}


def _type_check(kind: str | list[str]) -> Check:
    kinds = kind if isinstance(kind, list) else [kind]
    exact = frozenset(t for k in kinds for t in _PYTHON_TYPES[k])
    if "number" in kinds or "integer" in kinds:
        exact = exact - {bool} if "boolean" not in kinds else exact
    wanted = " or ".join(kinds)

    def check(value: Any) -> None:
        if type(value) not in exact:  # JSON gives exact types; bool is not an int here
            raise _Invalid("{} is not of type " + wanted, value)
    return check


def _string_check(rule: Mapping[str, Any]) -> Check:
    pattern = re.compile(rule["pattern"]) if "pattern" in rule else None
    most, least = rule.get("maxLength"), rule.get("minLength")

    def check(value: Any) -> None:
        if not isinstance(value, str):
            return
        if pattern is not None and not pattern.search(value):
            raise _Invalid("{} does not match " + pattern.pattern, value)
        if most is not None and len(value) > most:
            raise _Invalid(f"a string of {len(value):,} characters is longer than {most}")
        if least is not None and len(value) < least:
            raise _Invalid(f"a string shorter than {least}")
    return check


def _combination(word: str, options: list[Check]) -> Check:
    def check(value: Any) -> None:
        failures: list[_Invalid] = []
        for option in options:
            try:
                option(value)
            except _Invalid as err:
                failures.append(err)
        passed = len(options) - len(failures)
        ok = passed == len(options) if word == "allOf" else passed >= 1 if word == "anyOf" else passed == 1
        if not ok:
            if failures:
                raise failures[0]
            raise _Invalid("{} matches more than one of " + word, value)
    return check


def _conditional(condition: Check, then: Check) -> Check:
    """`if`/`then`: a value the condition holds for must pass `then` (a warning's facts by its code)."""
    def check(value: Any) -> None:
        try:
            condition(value)
        except _Invalid:
            return
        then(value)
    return check


def _resolve(ref: str, root: Mapping[str, Any]) -> Mapping[str, Any]:
    if not ref.startswith("#/"):
        raise ValueError(f"only local references are supported: {ref}")
    node: Any = root
    for token in ref[2:].split("/"):
        node = node[token.replace("~1", "/").replace("~0", "~")]
    return node  # type: ignore[no-any-return]


def _equal(a: Any, b: Any) -> bool:
    """JSON equality: true is not 1."""
    return type(a) is type(b) and a == b if isinstance(a, bool) or isinstance(b, bool) else a == b
