"""YAML as Kubernetes reads it (go-yaml v2 resolve rules), and refusals."""
from __future__ import annotations

import math
import time

import pytest
from hypothesis import given, settings, strategies as st

from deployah_plan import yamlkube
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
    ("0b-" + "0" * 70 + "1", -1), ("0b+1" + "0" * 63, "0b+1" + "0" * 63), ("0b+" + "1" * 63, 2**63 - 1),
    ("0b-0", 0), ("0b+000", 0),
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
    ("!" + "x" * 17 + "int 5", "5"),  # a local tag as long as the prefix of the standard ones
    ("[!custom yes, !!str 1, yes]", ["yes", "1", True]), ("{a: !custom yes}", {"a": "yes"}),
])
def test_explicit_tags_like_go_yaml(text: str, value: object) -> None:
    got = _one(f"v: {text}\n")["v"]  # type: ignore[index]
    assert type(got) is type(value) and got == value


@pytest.mark.parametrize("text,message", [
    ("!!int abc", "cannot decode a !!str as a !!int"),
    ("!!int 1.5", "cannot decode a !!float as a !!int"),
    ("!!int ''", "cannot decode a !!null as a !!int"),
    ("!!bool 1", "cannot decode a !!int as a !!bool"),
    ("!!float true", "cannot decode a !!bool as a !!float"),
    ("!!null x", "cannot decode a !!str as a !!null"),
    ("!!timestamp 12", "cannot decode a !!int as a !!timestamp"),
    ("!!timestamp x", "cannot decode a !!str as a !!timestamp"),
])
def test_an_explicit_tag_the_text_does_not_fit_is_an_error(text: str, message: str) -> None:
    err = _error(f"a: 1\nv: {text}\n")
    assert (str(err), err.line) == (message, 1)


def _shared(text: str) -> str:
    """`text` (a mapping) after two lines that use a container twice, so that it is built with
    shared nodes."""
    return "zz1: &zz {k: v}\nzz2: *zz\n" + text


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
    ("1e39: a", [".inf"]), ("-1e39: a", ["-.inf"]),
    # float32(x) is infinite from halfway between the largest float32 and 2**128 up
    ("3.4028235677973366e38: a", [".inf"]), ("-3.4028235677973366e38: a", ["-.inf"]),
    ("3.4028235677973362e38: a", ["3.4028235e+38"]), ("-3.4028235677973362e38: a", ["-3.4028235e+38"]), ("-0.0: a", ["-0"]), ("0.0: a", ["0"]),
    ("1e-5: a", ["1e-05"]), ("0.0001: a", ["0.0001"]), ("123456.0: a", ["123456"]),
    ("1234567.0: a", ["1.234567e+06"]), ("3.0: a", ["3"]), ("!!float 2: a", ["2"]),
    ("0x1F: a", ["31"]), ("-9223372036854775808: a", ["-9223372036854775808"]),
    ("9223372036854775807: a", ["9223372036854775807"]), ("yes: a\nOff: b", ["true", "false"]),
    ('"~": a\n"1.5": b', ["~", "1.5"]), ("!!str 1: a", ["1"]), ("!custom yes: a\nyes: b", ["yes", "true"]),
    ("!!int 0x10: a", ["16"]),
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
    ("!!null ~: a", "a mapping key cannot be null: quote the key to make it a string", 1),
    ("!!int 1: a\n1: b", 'mapping key "1" already defined', 2),
])
def test_keys_kubernetes_refuses(text: str, message: str, line: int) -> None:
    err = _error(f"ok: 1\n{text}\n")
    assert (str(err), err.line) == (message, line)
    err = _error(_shared(f"ok: 1\n{text}\n"))
    assert (str(err), err.line) == (message, line + 2)


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


def test_merge_keys_in_order_and_errors(load: object) -> None:
    base = "a: &a {x: 1, q: 1}\nb: &b {q: 2, z: 2}\n"
    got = load(base + "m:\n  <<: [*a, *b]\n  z: 3\n  w: 4\n")  # type: ignore[operator]
    assert got["m"] == {"x": 1, "q": 1, "z": 3, "w": 4}  # type: ignore[index]
    got = load(base + "m:\n  !!merge <<: *b\n  w: 4\n")  # type: ignore[operator]
    assert got["m"] == {"q": 2, "z": 2, "w": 4}  # type: ignore[index]
    got = load(base + "m:\n  '<<': 1\n")  # type: ignore[operator]
    assert got["m"] == {"<<": 1}  # type: ignore[index]
    got = load("m:\n  <<: {x: 1, w: 1}\n  w: 2\n  v: 3\n")  # type: ignore[operator]
    assert got["m"] == {"x": 1, "w": 2, "v": 3}  # type: ignore[index]
    got = load("m:\n  <<: [{x: 1}, {x: 2, w: 2}]\n")  # type: ignore[operator]
    assert got["m"] == {"x": 1, "w": 2}  # type: ignore[index]


@pytest.mark.parametrize("merge", ["<<: 1", "<<: [1]", "<<: [{a: 1}, [2]]", "<<: *s"])
def test_merging_anything_but_maps_is_an_error(merge: str) -> None:
    line = 0 if merge == "<<: *s" else 2  # the merged value's line: an alias's is its anchor's
    for stream, shift in ((f"s: &s 1\nm:\n  {merge}\n", 0), (_shared(f"s: &s 1\nm:\n  {merge}\n"), 2)):
        err = _error(stream)
        assert (str(err), err.line) == ("map merge requires map or sequence of maps as the value", line + shift)


def test_a_merge_error_names_the_line_of_the_part() -> None:
    text = "m:\n  <<:\n    - {a: 1}\n    - [2]\n"
    assert _error(text).line == 3
    assert _error(_shared(text)).line == 5


def _nested_lists(levels: int) -> str:
    return "[\n" * levels + "1\n" + "]" * levels + "\n"


def test_depth_limit_of_lists() -> None:
    assert too_deep_free(_one(_nested_lists(100)))
    err = _error(_nested_lists(101))
    assert (str(err), err.line) == ("the document nests deeper than 100 levels", 101)


def too_deep_free(value: object) -> bool:
    depth = 0
    while isinstance(value, list):
        value, depth = value[0], depth + 1
    return value == 1 and depth == 100


def _nested_maps(levels: int) -> str:
    return "".join("  " * i + "a:\n" for i in range(levels - 1)) + "  " * (levels - 1) + "a: 1\n"


def test_depth_limit_of_mappings() -> None:
    doc = _one(_nested_maps(100))
    for _ in range(100):
        doc = doc["a"]  # type: ignore[index]
    assert doc == 1
    err = _error(_nested_maps(101))
    assert (str(err), err.line) == ("the document nests deeper than 100 levels", 100)
    for value in ("'s'", "[1]", "{b: 1}", "!!int 3"):
        err = _error(_nested_maps(100).replace("a: 1\n", f"a: {{b: {value}}}\n"))
        assert (str(err), err.line) == ("the document nests deeper than 100 levels", 99)
    # At the limit a key is refused on its own line, whatever its tag; just above it, it is read.
    for key in ("a", "!!int 1", "'a'"):
        last = "  " * 100 + f"? {key}\n" + "  " * 100 + ": 1\n"
        err = _error(_nested_maps(101).rsplit("  " * 100, 1)[0] + last)
        assert (str(err), err.line) == ("the document nests deeper than 100 levels", 100)
        last = "  " * 99 + f"? {key}\n" + "  " * 99 + ": 1\n"
        assert _one(_nested_maps(100).rsplit("  " * 99, 1)[0] + last)


def test_depth_limit_with_shared_nodes() -> None:
    base = "s: &x [1]\nt: *x\nz: "
    assert _one(base + "[" * 99 + "1" + "]" * 99 + "\n")["t"] == [1]  # type: ignore[index]
    for key in ("a", "!!int 1", "'a'"):
        assert _one(base + "[" * 98 + "{" + key + ": 1}" + "]" * 98 + "\n")
        err = _error(base + "[" * 99 + "{\n? " + key + "\n: 1}" + "]" * 99 + "\n")
        assert (str(err), err.line) == ("the document nests deeper than 100 levels", 3)
    for deep in ("[" * 100 + "1" + "]" * 100, "[" * 99 + "{a: 1}" + "]" * 99, "[" * 99 + "{'a': b}" + "]" * 99,
                 "[" * 99 + "[!!int 1]" + "]" * 99, "[" * 98 + "{<<: {a: {b: c}}}" + "]" * 98):
        err = _error(base + deep + "\n")
        assert (str(err), err.line) == ("the document nests deeper than 100 levels", 2)


@pytest.mark.parametrize("height", [1, 30, 60])
def test_an_alias_counts_at_the_depth_where_it_is_used(height: int) -> None:
    # The anchored value nests `height` levels; used at depth d, its deepest scalar is at d + height.
    value = "[" * height + "1" + "]" * height
    for where, ok in ((100 - height, True), (101 - height, False)):
        text = f"a: &a {value}\nb: " + "[" * (where - 1) + "*a" + "]" * (where - 1) + "\n"
        if ok:
            assert len(_one(text)) == 2  # type: ignore[arg-type]
        else:
            err = _error(text)
            assert (str(err), err.line) == ("the document nests deeper than 100 levels", 0)
    mapping = "{k: " * height + "1" + "}" * height
    text = f"a: &a {mapping}\nb: " + "[" * (100 - height) + "*a" + "]" * (100 - height) + "\n"
    assert _error(text).line == 0
    text = f"a: &a {mapping}\nb: " + "[" * (99 - height) + "*a" + "]" * (99 - height) + "\n"
    assert len(_one(text)) == 2  # type: ignore[arg-type]
    merged = "{<<: " + "{k: " * height + "1" + "}" * height + "}"
    text = f"a: &a {merged}\nb: " + "[" * (100 - height) + "*a" + "]" * (100 - height) + "\n"
    assert _error(text).line == 0


def test_shared_nodes_are_one_value() -> None:
    doc = _one("a: &x {k: [v]}\nb: *x\nc: [*x]\n")
    assert doc["a"] is doc["b"] is doc["c"][0]  # type: ignore[index]


@pytest.mark.parametrize("value,limit,deep", [
    (1, 0, False), ([], 0, True), ([], 1, False), ({}, 0, True), ([1], 1, False), ([[1]], 1, True),
    ({"a": [{"b": []}]}, 3, True), ({"a": [{"b": []}]}, 4, False), ({"a": {"b": {}}}, 2, True),
    ([[], [[]]], 2, True), ([[[]], []], 2, True), ([1, "x", None], 1, False),
])
def test_too_deep(value: object, limit: int, deep: bool) -> None:
    assert too_deep(value, limit) is deep


def test_too_deep_default_limit() -> None:
    value: object = []
    for _ in range(99):
        value = [value]
    assert too_deep(value) is False and too_deep([value]) is True
    assert too_deep({"a": value}) is True


def test_allowed_alias_ratio_is_go_yamls() -> None:
    from deployah_plan.yamlkube import _allowed_alias_ratio as ratio
    assert ratio(0) == ratio(400_000) == 0.99
    assert ratio(400_001) == pytest.approx(0.99 - 0.89 / 3_600_000, abs=1e-15) and ratio(400_001) < 0.99
    assert ratio(2_200_000) == pytest.approx(0.545, abs=1e-15)
    assert ratio(3_999_999) == pytest.approx(0.10 + 0.89 / 3_600_000, abs=1e-15)
    assert ratio(4_000_000) == ratio(10**9) == 0.10
    # Go: 0.99 - 0.89*(float64(decodeCount-alias_ratio_range_low)/alias_ratio_range), in that order
    assert ratio(514_656) == 0.99 - 0.89 * (114_656 / 3_600_000) == 0.9616544888888888


def test_excessive_aliasing_of_a_mapping() -> None:
    # 99 keys and their values: 2 + 199 + m * 200 decodes, m * 199 through an alias: 39,402 of
    # 39,801 for m = 198, 39,601 of 40,001 (above 0.99) for m = 199.
    assert len(_one(_fan_out(198, 198, mapping=True))) == 199  # type: ignore[arg-type]
    assert str(_error(_fan_out(198, 199, mapping=True))) == "document contains excessive aliasing"


def test_many_aliased_nodes_in_a_large_document_are_allowed() -> None:
    text = "a: &a [" + ",".join(["1"] * 300) + "]\nb: *a\nc: [" + ",".join(["2"] * 2000) + "]\n"
    doc = _one(text)
    assert doc["b"] is doc["a"] and len(doc["c"]) == 2000  # type: ignore[index]


def test_an_alias_bomb_as_a_key_is_counted() -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 8):
        prev, cur = f"l{i - 1}" if i > 1 else "a", f"l{i}"
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    assert str(_error("\n".join(lines) + "\n? *l7\n: x\n")) == "document contains excessive aliasing"


def test_an_alias_bomb_in_the_key_of_an_aliased_mapping_is_counted() -> None:
    # go-yaml decodes a key before it refuses a list as a key: its aliases count first.
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 4):
        prev, cur = f"l{i - 1}" if i > 1 else "a", f"l{i}"
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    lines.append("pad: [" + ",".join(["1"] * 1000) + "]")
    lines.append("m: &m {? *l3 : x}")
    text = "\n".join(lines) + "\n"
    assert str(_error(text)) == "a mapping key cannot be a list: use a string, number or boolean"
    assert str(_error(text + "n: [" + ", ".join(["*m"] * 20) + "]\n")) == "document contains excessive aliasing"


def test_the_expanded_node_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    import deployah_plan.yamlkube as yamlkube
    text = "a: &x {k: v}\nb: *x\n"  # 11 decodes: document, root, a, {k: v} (3), b, the alias (1 + 3)
    monkeypatch.setattr(yamlkube, "_MAX_EXPANDED_NODES", 11)
    assert _one(text) == {"a": {"k": "v"}, "b": {"k": "v"}}
    monkeypatch.setattr(yamlkube, "_MAX_EXPANDED_NODES", 10)
    assert str(_error(text)) == "document contains excessive aliasing"


def test_an_anchor_that_contains_itself() -> None:
    err = _error("x: 1\na: &a\n  - b\n  - *a\n")  # the anchored value starts at its anchor
    assert (str(err), err.line) == ("an anchor's value contains itself", 1)
    err = _error("x: 1\na:\n  &a\n  k: [*a]\n")
    assert (str(err), err.line) == ("an anchor's value contains itself", 2)


def test_each_plain_text_is_resolved_once_per_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    import deployah_plan.yamlkube as yamlkube
    calls: list[str] = []

    def counting(text: str) -> object:
        calls.append(text)
        return resolve_plain(text)

    monkeypatch.setattr(yamlkube, "resolve_plain", counting)
    text = ("1\n---\n1\n---\n- null\n- yes\n- yes\n---\nk: null\nyes: 1\nn: [yes, null]\n---\n1: yes\n"
)
    docs = [d.value for d in load_all(text)]
    assert docs == [1, 1, [None, True, True], {"k": None, "true": 1, "false": [True, None]}, {"1": True}]
    assert sorted(calls) == ["1", "k", "n", "null", "yes"]


def test_empty_documents_of_every_spelling_are_skipped() -> None:
    text = "---\n~\n---\nnull\n---\nNull\n---\nNULL\n---\n\n--- '~'\n--- \"null\"\n--- !!str\n--- 1\n"
    assert [d.value for d in load_all(text)] == ["~", "null", "", 1]


def test_malformed_yaml_is_one_line_with_its_line() -> None:
    err = _error("a: 1\nb: [1, 2\n")
    assert err.line == 2 and "\n" not in str(err) and str(err)
    err = _error("a: 1\nb: *nothing\n")
    assert err.line == 1 and "alias" in str(err)


def test_an_unreadable_character_is_one_line() -> None:
    err = _error("a: \x07\n")
    assert str(err).startswith("unacceptable character #x0007") and "\n" not in str(err)
    assert err.line == -1


def test_binding_the_parser_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first load binds PyYAML; a fresh bind reads quoted, plain, flow and block nodes alike."""
    import deployah_plan.yamlkube as yamlkube
    monkeypatch.setattr(yamlkube, "_Loader", None)
    text = "a: 'yes'\nb: yes\nc: [1, \"2\"]\nd: {e: ~}\nf:\n- g\n"
    assert _one(text) == {"a": "yes", "b": True, "c": [1, "2"], "d": {"e": None}, "f": ["g"]}
    assert yamlkube._Loader is not None


def test_the_pure_python_parser_when_libyaml_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    import deployah_plan.yamlkube as yamlkube
    monkeypatch.setitem(sys.modules, "yaml._yaml", None)  # the import of libyaml's parser fails
    monkeypatch.setattr(yamlkube, "_Loader", None)
    text = "a: 'yes'\nb: yes\nc: [1, \"2\"]\nd: &d {e: ~}\nf: *d\ng:\n- h\n"
    assert _one(text) == {"a": "yes", "b": True, "c": [1, "2"], "d": {"e": None}, "f": {"e": None}, "g": ["h"]}
    assert "CParser" not in [base.__name__ for base in yamlkube._Loader.__mro__]
    err = _error("a: 1\nb: [1, 2\n")
    assert err.line == 2


@pytest.mark.parametrize("merge", ["{<<: {a: b}}", "{<<: [{a: b}, {c: d}]}", "{<<: *m}", "{<<: [*m]}"])
def test_merged_keys_count_at_the_depth_where_they_land(merge: str) -> None:
    base = "m: &m {a: b}\nz: " if "*" in merge else "z: "
    # z's value is at depth 1: the merging mapping at depth 99 holds its merged scalars at 100.
    assert _one(base + "[" * 98 + merge + "]" * 98 + "\n")
    err = _error(base + "[" * 99 + merge + "]" * 99 + "\n")
    assert str(err) == "the document nests deeper than 100 levels"


def test_a_local_tag_named_like_our_marker_is_a_custom_tag() -> None:
    # go-yaml decodes a scalar with a custom tag as its text.
    assert _one("a: !plain yes\nb: !plain 0777\nc: !plain [yes]\n!plain on: d\n") == {
        "a": "yes", "b": "0777", "c": [True], "on": "d"}


def test_a_tag_error_does_not_print_the_value() -> None:
    """The value may be a Secret's: the error names the kinds and the line only."""
    with pytest.raises(YAMLError) as raised:
        list(load_all("data:\n  password: !!int hunter2\n"))
    assert "hunter2" not in str(raised.value) and raised.value.line == 1


# Streams as helm writes them, and as it does not, for the reading that takes the documents a
# stream repeats from another (yamlkube.Known): it must read every stream exactly as load_all
# reads it alone, its errors included.
_DOCUMENT_PIECES = [
    "---\n", "--- \n", "---\t# c\n", "--- |\n  text\n", "--- >\n---x\n", "--- !!str x\n", "---x: 1\n",
    "# Source: chart/templates/a.yaml\n", "a: 1\n", "b: [1, 2]\n", "c: {d: e}\n", "f: |\n  ---\n  g\n",
    "h: |\n---\n", "i: \"quoted\n---\nstill\"\n", "j: [open,\n", "k: &x {l: 1}\nm: *x\n", "n: *nothing\n",
    "~\n", "null\n", "\n", "  - item\n", "- item\n", "o: 'p'\n", "...\n", "%YAML 1.1\n", "q: r\r\n",
    "s:\n  t: 1\n", "u: v\n  w: x\n", "a: 2\n", "\x85", "y: \U0001F600\n", "z: [\n  1]\n",
]


def _read(text: str, known: yamlkube.Known | None = None) -> object:
    try:
        return [tuple(document) for document in yamlkube.load_all(text, known)]
    except yamlkube.YAMLError as error:
        return ("error", str(error), error.line)


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_DOCUMENT_PIECES), max_size=10).map("".join),
       st.lists(st.sampled_from(_DOCUMENT_PIECES), max_size=10).map("".join),
       st.lists(st.integers(0, 9), max_size=4))
def test_a_stream_read_after_another_is_read_as_it_is_alone(first: str, second: str, repeated: list[int]) -> None:
    # The second stream repeats some parts of the first, in another order.
    parts = [first[a:b] for a, b in zip([0, *_starts(first)], [*_starts(first), len(first)])]
    second += "".join(parts[i % len(parts)] for i in repeated) if parts else ""
    known = yamlkube.Known()
    assert _read(first, known) == _read(first)
    assert _read(second, known) == _read(second)
    assert _read(first, known) == _read(first)  # read a third time, wholly from what is known


def _starts(text: str) -> list[int]:
    return [at for at in yamlkube._marker_lines(text, "---") if at]


def test_a_repeated_document_is_read_as_a_value_of_its_own() -> None:
    known = yamlkube.Known()
    text = "---\n# Source: a\nkind: A\nmetadata:\n  labels: {x: '1'}\n---\nkind: B\n"
    first = [d.value for d in yamlkube.load_all(text, known)]
    second = [d.value for d in yamlkube.load_all("---\nkind: C\n" + text, known)]
    assert second[1:] == first and second[1] is not first[0]
    second[1]["metadata"]["labels"]["x"] = "changed"
    assert first[0]["metadata"]["labels"]["x"] == "1"
    assert [d.value for d in yamlkube.load_all(text, known)][0]["metadata"]["labels"]["x"] == "1"
    assert [d.start_line for d in yamlkube.load_all("---\nkind: C\n" + text, known)] == [1, 4, 8]


def test_what_is_known_is_only_what_whole_parts_held() -> None:
    """A stream with a directive or a `...` line, or another line ending, is read as it is and
    teaches nothing (its parts need not be documents of their own)."""
    for text in ("%YAML 1.1\n---\na: 1\n", "a: 1\n...\n---\nb: 2\n", "---\r\na: 1\r\n", "\ufeff---\na: 1\n"):
        known = yamlkube.Known()
        assert _read(text, known) == _read(text) and known._parts == {}
