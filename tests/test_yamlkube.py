"""YAML as Kubernetes reads it (go-yaml v2 resolve rules), and refusals."""
from __future__ import annotations

import math
import time

import pytest

from deployah_plan.yamlkube import YAMLError, load_all, resolve_plain, too_deep


@pytest.mark.parametrize("text,value", [
    ("yes", True), ("Yes", True), ("on", True), ("y", True), ("TRUE", True),
    ("no", False), ("off", False), ("n", False), ("False", False),
    ("~", None), ("null", None), ("", None),
    ("0777", 0o777), ("0o17", 15), ("0x1F", 31), ("-0b101", -5), ("1_000", 1000), ("+12", 12),
    ("08", 8.0),  # not octal, not decimal int: go-yaml falls back to a float
    ("1e3", 1000.0), (".5", 0.5), ("-.inf", -math.inf),
    ("1:20", "1:20"),  # no sexagesimal numbers
    ("2001-12-14", "2001-12-14"), ("2001-12-14T21:59:43.10-05:00", "2001-12-14T21:59:43.10-05:00"),
    ("18446744073709551615", 2**64 - 1),
    ("18446744073709551616", 1.8446744073709552e19),  # too big for 64 bits: a float
    ("-9223372036854775809", -9.223372036854776e18),
    ("yes please", "yes please"), ("0x", "0x"), ("1.2.3", "1.2.3"), ("+", "+"), (".", "."),
])
def test_resolve_table(text: str, value: object) -> None:
    got = resolve_plain(text) if text else None
    assert type(got) is type(value) and got == value


def test_quoted_scalars_stay_strings_and_keys_become_strings() -> None:
    (doc,) = [d.value for d in load_all('a: "yes"\nb: \'0777\'\nc: yes\n1: one\ntrue: t\n')]
    assert doc == {"a": "yes", "b": "0777", "c": True, "1": "one", "true": "t"}


def test_explicit_tags() -> None:
    (doc,) = [d.value for d in load_all("a: !!str 123\nb: !!float 1\nc: !!int '7'\n")]
    assert doc == {"a": "123", "b": 1.0, "c": 7}


def test_duplicate_keys_are_an_error() -> None:
    with pytest.raises(YAMLError, match='"a" already defined'):
        list(load_all("a: 1\nb: 2\na: 3\n"))


def test_merge_keys() -> None:
    (doc,) = [d.value for d in load_all("base: &b {x: 1, z: 2}\nobj:\n  <<: *b\n  z: 3\n")]
    assert doc["obj"] == {"x": 1, "z": 3}


def test_a_plain_y_key_is_the_boolean_true() -> None:
    # go-yaml v2 resolves keys too, and sigs.k8s.io/yaml writes a boolean key as "true".
    (doc,) = [d.value for d in load_all("y: 1\nn: 2\n")]
    assert doc == {"true": 1, "false": 2}


def test_empty_documents_are_skipped_and_lines_reported() -> None:
    docs = list(load_all("---\n# only a comment\n---\na: 1\n---\n---\nb: 2\n"))
    assert [d.value for d in docs] == [{"a": 1}, {"b": 2}]
    assert [d.start_line for d in docs] == [3, 6]


def test_alias_bomb_refused_in_bounded_time() -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 26):
        prev, cur = f"l{i - 1}" if i > 1 else "a", f"l{i}"
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    start = time.monotonic()
    with pytest.raises(YAMLError, match="excessive aliasing"):
        list(load_all("\n".join(lines)))
    assert time.monotonic() - start < 5  # 9**26 nodes were never built


def test_modest_aliasing_is_allowed() -> None:
    (doc,) = [d.value for d in load_all("a: &x {k: v}\nb: *x\nc: *x\n")]
    assert doc == {"a": {"k": "v"}, "b": {"k": "v"}, "c": {"k": "v"}}


def test_recursive_anchor_is_an_error() -> None:
    with pytest.raises(YAMLError):
        list(load_all("a: &a [*a]\n"))


def test_nested_merge_keys_are_built_once() -> None:
    """Each `<<` map is built once: nesting them must not double the work per level."""
    doc = "a: " + "{<<: " * 90 + "{x: 1}" + "}" * 90 + "\n"
    calls = 0
    import deployah_plan.yamlkube as yamlkube
    original = yamlkube._merge

    def counting(*args: object) -> object:
        nonlocal calls
        calls += 1
        return original(*args)  # type: ignore[arg-type]

    yamlkube._merge = counting  # type: ignore[assignment]
    try:
        assert [d.value for d in load_all(doc)] == [{"a": {"x": 1}}]
    finally:
        yamlkube._merge = original
    assert calls == 90


@pytest.mark.parametrize(("text", "value"), [
    ("a: &x 1\nb: *x\n", {"a": 1, "b": 1}),
    ("- &x {k: v}\n- *x\n", [{"k": "v"}, {"k": "v"}]),
    ("[&x a, *x]\n", ["a", "a"]),
    ("{a: &x [1], b: *x}\n", {"a": [1], "b": [1]}),
    ("{\"a\": &x 1, \"b\":*x}\n", {"a": 1, "b": 1}),
    ("a:\n\t- &x 1\n\t- *x\n".replace("\t", "  "), {"a": [1, 1]}),
    ("? &k key\n: *k\n", {"key": "key"}),
    ("\ufeffa: &x 1\nb: *x\n", {"a": 1, "b": 1}),
])
def test_aliases_wherever_yaml_allows_them(text: str, value: object) -> None:
    assert [d.value for d in load_all(text)] == [value]


def test_star_and_ampersand_in_text_are_not_aliases() -> None:
    text = 'rules: [{verbs: ["*"], resources: [\'*\']}]\nnote: "R&D * a&b *c"\nglob: a*b\nx: |\n  * item &amp; more\n'
    (doc,) = [d.value for d in load_all(text)]
    assert doc == {"rules": [{"verbs": ["*"], "resources": ["*"]}], "note": "R&D * a&b *c", "glob": "a*b",
                   "x": "* item &amp; more\n"}


def test_an_alias_bomb_is_refused_among_plain_documents() -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 26):
        prev, cur = f"l{i - 1}" if i > 1 else "a", f"l{i}"
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    stream = "plain: [\"*\"]\n---\n" + "\n".join(lines) + "\n---\nafter: 1\n"
    with pytest.raises(YAMLError, match="excessive aliasing"):
        list(load_all(stream))


def _checked(text: str) -> tuple[list[object], int]:
    """The documents of `text`, and how many were checked for excessive aliasing."""
    import deployah_plan.yamlkube as yamlkube
    original, calls = yamlkube._check_aliasing, []

    def counting(root: object) -> None:
        calls.append(root)
        original(root)  # type: ignore[arg-type]

    yamlkube._check_aliasing = counting  # type: ignore[assignment]
    try:
        return [d.value for d in load_all(text)], len(calls)
    finally:
        yamlkube._check_aliasing = original


def test_text_that_only_looks_like_an_alias_is_built_once() -> None:
    """A CEL rule's `&&` and a pattern's `]*` pass for an anchor and an alias in the text: the
    document is built as a tree, and only a container met twice would send it to the check."""
    text = ("rule: self.a && self.b\npattern: '^[a-z]*$'\nglob: x\n  *.example.com\n"
            "scalar: &s one\nagain: *s\n")
    docs, checked = _checked(text)
    assert docs == [{"rule": "self.a && self.b", "pattern": "^[a-z]*$", "glob": "x *.example.com",
                     "scalar": "one", "again": "one"}]
    assert checked == 0


@pytest.mark.parametrize(("text", "value"), [
    ("a: &x {k: v}\nb: *x\n", {"a": {"k": "v"}, "b": {"k": "v"}}),
    ("base: &b {k: v}\nmine:\n  <<: *b\n", {"base": {"k": "v"}, "mine": {"k": "v"}}),
    ("- &x [1]\n- [*x]\n", [[1], [[1]]]),
])
def test_a_container_met_twice_is_checked_and_shared(text: str, value: object) -> None:
    assert _checked(text) == ([value], 1)


# go-yaml v2 resolve.go: strconv.ParseInt(text, 0, 64), then ParseUint (no sign allowed), then a
# float when yamlStyleFloat matches, then ParseInt of what follows "0b" in base 2.
@pytest.mark.parametrize("text,value", [
    ("Y", True), ("YES", True), ("On", True), ("ON", True), ("True", True),
    ("N", False), ("NO", False), ("Off", False), ("OFF", False), ("FALSE", False),
    ("Null", None), ("NULL", None),
    (".Inf", math.inf), ("+.INF", math.inf), ("-.Inf", -math.inf), (".5e3", 500.0), (".5x", ".5x"),
    ("0", 0), ("00", 0), ("-0", 0), ("0O17", 15), ("0B11", 3), ("0X1f", 31), ("-0x1F", -31),
    ("0888", 888.0), ("1.", 1.0), ("+.5", 0.5), ("-1_000", -1000), ("1_0e2", 1000.0),
    ("9223372036854775807", 2**63 - 1), ("-9223372036854775808", -(2**63)),
    ("+9223372036854775807", 2**63 - 1),
    ("+9223372036854775808", 9.223372036854776e18),  # ParseInt overflows, ParseUint takes no sign
    ("+18446744073709551615", 1.8446744073709552e19),
    ("0xFFFFFFFFFFFFFFFF", 2**64 - 1), ("0x10000000000000000", "0x10000000000000000"),
    ("-0x8000000000000000", -(2**63)), ("-0x8000000000000001", "-0x8000000000000001"),
    ("0b" + "1" * 64, 2**64 - 1), ("0b1" + "0" * 64, "0b1" + "0" * 64),
    ("0x" + "0" * 80 + "1", 1),  # leading zeros after the prefix cost nothing
    ("0b-101", -5), ("0b+101", 5),  # ParseInt("-101", 2, 64) after the prefix
    ("0b-1" + "0" * 63, -(2**63)), ("0b-" + "1" * 64, "0b-" + "1" * 64),
    ("0b-" + "0" * 70 + "1", -1), ("0b+1" + "0" * 63, "0b+1" + "0" * 63),
    ("0b0b1", "0b0b1"), ("0b 1", "0b 1"), ("-0b-1", "-0b-1"), ("-0b+1", "-0b+1"), ("0b-", "0b-"),
    ("1e999", "1e999"), ("-1e999", "-1e999"), ("1e-400", 0.0),
    ("_", "_"), ("-", "-"), ("+-", "+-"), ("-+1", "-+1"), ("1e", "1e"), ("12:30", "12:30"),
    ("2001-12-14 21:59:43.10", "2001-12-14 21:59:43.10"), ("yes_", "yes_"), ("x1", "x1"),
])
def test_resolve_like_go_yaml(text: str, value: object) -> None:
    got = resolve_plain(text)
    assert type(got) is type(value) and got == value


def test_nan_is_a_float() -> None:
    for text in (".nan", ".NaN", ".NAN"):
        assert math.isnan(resolve_plain(text))
    assert resolve_plain("nan") == "nan"


def _one(text: str) -> object:
    (doc,) = [d.value for d in load_all(text)]
    return doc


def _error(text: str) -> YAMLError:
    with pytest.raises(YAMLError) as caught:
        list(load_all(text))
    return caught.value


# Explicit tags: go-yaml v2 resolves the text and requires the tag's own type; an int may be a
# float; !!str, custom tags and the rest keep the text.
@pytest.mark.parametrize("text,value", [
    ("!!float 1", 1.0), ("!!float 1.5", 1.5), ("!!float .inf", math.inf), ("!!float 0x10", 16.0),
    ("!!int 0x10", 16), ("!!int '7'", 7), ("!<tag:yaml.org,2002:int> 5", 5),
    ("!!bool yes", True), ("!!bool 'off'", False), ("!!null ~", None), ("!!null ''", None),
    ("!!timestamp 2001-12-14", "2001-12-14"), ("!!str 12", "12"), ("!!str yes", "yes"),
    ("!custom 12", "12"), ("!<tag:yaml.org,2002:intx> 5", "5"), ("!!seq 5", "5"),
])
def test_explicit_tags_like_go_yaml(text: str, value: object) -> None:
    got = _one(f"v: {text}\n")["v"]  # type: ignore[index]
    assert type(got) is type(value) and got == value


@pytest.mark.parametrize("text,message", [
    ("!!int abc", "cannot decode !!str `abc` as a !!int"),
    ("!!int 1.5", "cannot decode !!float `1.5` as a !!int"),
    ("!!int ''", "cannot decode !!null `` as a !!int"),
    ("!!bool 1", "cannot decode !!int `1` as a !!bool"),
    ("!!float true", "cannot decode !!bool `true` as a !!float"),
    ("!!null x", "cannot decode !!str `x` as a !!null"),
    ("!!timestamp 12", "cannot decode !!int `12` as a !!timestamp"),
    ("!!timestamp x", "cannot decode !!str `x` as a !!timestamp"),
])
def test_an_explicit_tag_the_text_does_not_fit_is_an_error(text: str, message: str) -> None:
    err = _error(f"a: 1\nv: {text}\n")
    assert (str(err), err.line) == (message, 1)


def _shared(text: str) -> str:
    """`text` (a mapping) with a container met twice, so it is built with shared nodes."""
    return text + "zz1: &zz {k: v}\nzz2: *zz\n"


def _without_shared(doc: object) -> object:
    assert isinstance(doc, dict)
    return {k: v for k, v in doc.items() if k not in ("zz1", "zz2")}


@pytest.fixture(params=["tree", "shared"])
def load(request: pytest.FixtureRequest) -> object:
    """Load a one-document mapping, built as a tree or with shared nodes."""
    def loaded(text: str) -> object:
        if request.param == "tree":
            return _one(text)
        return _without_shared(_one(_shared(text)))
    return loaded


@pytest.mark.parametrize("text,keys", [
    ("1.5: a", ["1.5"]), ("1e6: a", ["1e+06"]), (".inf: a", [".inf"]), ("-.inf: a", ["-.inf"]),
    (".nan: a", [".nan"]), ("0.1: a", ["0.1"]), ("123456789.0: a", ["1.2345679e+08"]),
    ("1e39: a", [".inf"]), ("-1e39: a", ["-.inf"]), ("-0.0: a", ["-0"]), ("0.0: a", ["0"]),
    ("1e-5: a", ["1e-05"]), ("0.0001: a", ["0.0001"]), ("123456.0: a", ["123456"]),
    ("1234567.0: a", ["1.234567e+06"]), ("3.0: a", ["3"]), ("!!float 2: a", ["2"]),
    ("0x1F: a", ["31"]), ("-9223372036854775808: a", ["-9223372036854775808"]),
    ("9223372036854775807: a", ["9223372036854775807"]), ("yes: a\nOff: b", ["true", "false"]),
    ('"~": a\n"1.5": b', ["~", "1.5"]), ("!!str 1: a", ["1"]),
])
def test_keys_as_sigs_k8s_yaml_writes_them(load: object, text: str, keys: list[str]) -> None:
    # strconv.FormatFloat(key, 'g', -1, 32) for a float key, strconv.Itoa for an int key.
    assert list(load(text + "\n")) == keys  # type: ignore[operator]


@pytest.mark.parametrize("text,message,line", [
    ("~: a", "a mapping key cannot be null: quote the key to make it a string", 1),
    ("? \n: a", "a mapping key cannot be null: quote the key to make it a string", 1),
    ("18446744073709551615: a", "a mapping key cannot be 18446744073709551615, beyond 64-bit "
     "signed integers,: quote the key to make it a string", 1),
    ("? [a]\n: b", "a mapping key cannot be a list: use a string, number or boolean", 1),
    ("? {a: 1}\n: b", "a mapping key cannot be a mapping: use a string, number or boolean", 1),
    ("x: 1\nx: 2", 'mapping key "x" already defined', 2),
    ("1: a\n'1': b", 'mapping key "1" already defined', 2),
    ("yes: a\n'true': b", 'mapping key "true" already defined', 2),
    ("!!str 1: a\n1: b", 'mapping key "1" already defined', 2),
])
def test_keys_kubernetes_refuses(text: str, message: str, line: int) -> None:
    for stream in (f"ok: 1\n{text}\n", _shared(f"ok: 1\n{text}\n")):
        err = _error(stream)
        assert (str(err), err.line) == (message, line)


def _fan_out(items: int, uses: int, mapping: bool = False) -> str:
    """A root sequence: an anchored list (or mapping) of `items` scalars, then `uses` aliases to it.
    go-yaml counts 3 + items + uses * (items + 2) decodes (the document node, the root, the
    anchored value and its scalars; each alias node and, through it, the value again), of which
    uses * (items + 1) through an alias."""
    value = ("{" + ", ".join(f"k{i}: 1" for i in range(items // 2)) + "}" if mapping
             else "[" + ",".join(["1"] * items) + "]")
    return f"- &a {value}\n" + "- *a\n" * uses


def test_excessive_aliasing_at_go_yamls_exact_boundary() -> None:
    # 197 items, 200 uses: 39,600 of 40,000 decodes through an alias, exactly the ratio 0.99.
    assert len(_one(_fan_out(197, 200))) == 201  # type: ignore[arg-type]
    err = _error("a: 1\n---\n" + _fan_out(197, 201))  # 39,798 of 40,199: above 0.99
    assert (str(err), err.line) == ("document contains excessive aliasing", 2)

