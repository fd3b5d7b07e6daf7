"""YAML read the way Kubernetes reads it: sigs.k8s.io/yaml over go-yaml v2 (YAML 1.1).

PyYAML's C parser builds the node graph; we resolve plain scalars with go-yaml v2's table
ourselves (so `yes` is a boolean, `0777` octal, `1:20` a string and timestamps stay strings),
refuse duplicate keys, and refuse excessive aliasing with go-yaml's own budget before anything
is expanded, so an alias bomb costs time and memory in proportion to its text, not its size.
"""
from __future__ import annotations

import itertools
import math
import struct
from bisect import bisect_right
from typing import TYPE_CHECKING, Any, Iterator, NamedTuple
from deployah_plan.startup import deferred, lazy

if TYPE_CHECKING:
    from yaml.nodes import Node

# PyYAML is imported by the first load (`_bind`), not with this module: a plan starts helm
# before it reads any YAML, and PyYAML's import would hold helm back (one of the tricks for a
# fast start that startup.py lists). These are its node types and the parser, once bound.
ScalarNode: Any = None
SequenceNode: Any = None
MappingNode: Any = None
_Loader: Any = None
_MarkedError: Any = None
_Error: Any = None


def pyyaml() -> Any:
    """The `yaml` module (PyYAML), imported with the patterns its modules compile deferred until
    they are used (startup.py `deferred`): those of its pure-Python reader, resolver and
    constructor, which neither libyaml's parser nor this module uses (their figure:
    docs/performance.md, Tricks). Every import of PyYAML on helm plan's path is this one."""
    with deferred("yaml"):
        import yaml
    return yaml


def _bind() -> None:
    """Import PyYAML and make the parser: libyaml's (parses and composes in C), else PyYAML's
    own in pure Python."""
    global ScalarNode, SequenceNode, MappingNode, _Loader, _MarkedError, _Error
    yaml = pyyaml()
    from yaml.nodes import MappingNode as mapping, ScalarNode as scalar, SequenceNode as sequence

    try:
        from yaml._yaml import CParser as base
    except ImportError:  # pragma: no cover - PyYAML built without libyaml
        from yaml.composer import Composer
        from yaml.parser import Parser
        from yaml.reader import Reader
        from yaml.scanner import Scanner

        class base(Reader, Scanner, Parser, Composer):  # type: ignore[no-redef, misc]
            def __init__(self, stream: str) -> None:
                Reader.__init__(self, stream)
                Scanner.__init__(self)
                Parser.__init__(self)
                Composer.__init__(self)

    class Loader(base):  # type: ignore[misc]
        """The parser and composer, with a resolver that only marks plain scalars."""

        def resolve(self, kind: type, value: Any, implicit: tuple[bool, bool]) -> object:
            # A container's tag is never read: its node type tells what it is.
            return _PLAIN if kind is scalar and implicit[0] else _STR

        # Called around every node and unused here: built-in callables that do nothing (a
        # method of an empty dict, the tuple type) cost the composer far less than Python
        # functions.
        descend_resolver = _NOTHING.get  # (parent, index) -> index
        ascend_resolver = tuple  # () -> ()

    ScalarNode, SequenceNode, MappingNode = scalar, sequence, mapping
    _MarkedError, _Error = yaml.MarkedYAMLError, yaml.YAMLError
    _Loader = Loader


# Our tag for an untagged plain scalar, resolved later by go-yaml's rules: not a string, so that
# no tag a document writes (`!plain`) can pass for it.
_PLAIN: Any = object()
_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"


class YAMLError(Exception):
    """Malformed YAML; `line` is 0-based within the stream, or -1 when unknown."""

    def __init__(self, message: str, line: int = -1) -> None:
        super().__init__(message)
        self.line = line


class LoadedDocument(NamedTuple):
    value: Any
    start_line: int  # 0-based line of the document's first node within the stream


_NOTHING: dict[Any, Any] = {}


# go-yaml v2 resolve.go: the values looked up by their exact text.
_BOOL_NULL: dict[str, Any] = {}
for _words, _value in (
    (("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    (("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    (("", "~", "null", "Null", "NULL"), None),
    ((".nan", ".NaN", ".NAN"), math.nan),
    ((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
    (("-.inf", "-.Inf", "-.INF"), -math.inf),
):
    for _word in _words:
        _BOOL_NULL[_word] = _value

_YAML_STYLE_FLOAT = lazy(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
_GO_INT = lazy(r"([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)\Z")
_SIGNED_BINARY = lazy(r"0b([-+])([01]+)\Z")
_TIMESTAMP = lazy(
    r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"
    r"(?:(?:[Tt]| )[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]+)?(?:Z|[-+][0-9]{2}:[0-9]{2})?)?\Z"
)
_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(2**63), 2**63 - 1, 2**64 - 1
_DECIMAL_FLOAT = lazy(r"\.[0-9]+([eE][-+]?[0-9]+)?\Z")


_BASES = {"x": 16, "o": 8, "b": 2}


def _go_int(text: str) -> int | None:
    """strconv.ParseInt(text, 0, 64), falling back to ParseUint (which takes no sign), as go-yaml
    v2 does."""
    match = _GO_INT.match(text)
    if not match:
        return None
    sign, body = match.groups()
    base = _BASES.get(body[1:2].lower(), 8 if body[0] == "0" else 10)
    digits = (body[2:] if body[1:2].isalpha() else body).lstrip("0")
    if len(digits) > 64:  # more digits than 64 bits hold in any base
        return None
    value = int(digits or "0", base)
    if sign == "-":
        value = -value
    return value if _INT64_MIN <= value <= (_INT64_MAX if sign else _UINT64_MAX) else None


def _signed_binary(text: str) -> int | None:
    """go-yaml v2's last try, strconv.ParseInt(text[2:], 2, 64) after "0b": a sign may follow the
    prefix there ("0b-101" is -5)."""
    match = _SIGNED_BINARY.match(text)
    if not match:
        return None
    sign, digits = match.group(1), match.group(2).lstrip("0")
    if len(digits) > 64:
        return None
    value = int(digits or "0", 2) * (-1 if sign == "-" else 1)
    return value if _INT64_MIN <= value <= _INT64_MAX else None


def resolve_plain(text: str) -> Any:
    """go-yaml v2's resolution of an untagged plain scalar (resolve.go)."""
    if text in _BOOL_NULL:
        return _BOOL_NULL[text]
    first = text[0]
    if first == ".":
        return float(text) if _DECIMAL_FLOAT.match(text) else text
    if first in "+-0123456789":
        # A timestamp (2001-12-14) stays a string: go-yaml v2 keeps its text in interface{}
        # values, and no number rule below matches it.
        plain = text.replace("_", "")
        number = _go_int(plain)
        if number is not None:
            return number
        if _YAML_STYLE_FLOAT.match(plain):
            real = float(plain)
            # strconv.ParseFloat fails out of range (1e999), and go-yaml then keeps the text.
            return real if not math.isinf(real) else text
        number = _signed_binary(plain)
        if number is not None:
            return number
    return text


_YAML_TAG = "tag:yaml.org,2002:"


def _kind(value: Any) -> str:
    """The go-yaml tag a resolved value carries."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    return "int" if isinstance(value, int) else "float" if isinstance(value, float) else "str"


def _explicit(node: Node) -> Any:
    """A scalar with a tag of its own: go-yaml v2 resolves the text and requires the tag's type
    (an int is accepted as a float); any other tag leaves the text."""
    tag, text = node.tag, node.value
    short = tag[len(_YAML_TAG):]
    if not tag.startswith(_YAML_TAG) or short not in ("int", "float", "bool", "null", "timestamp"):
        return text
    value = resolve_plain(text)
    kind = "timestamp" if short == "timestamp" and _TIMESTAMP.match(text) else _kind(value)
    if kind == short:
        return value  # a timestamp resolves to its text
    if short == "float" and kind == "int":
        return float(value)
    # The text is left out: it may be a Secret's value.
    raise YAMLError(f"cannot decode a !!{kind} as a !!{short}", node.start_mark.line)


def _key_text(value: Any, node: Node) -> str:
    """sigs.k8s.io/yaml turns a boolean or number key into a JSON object key; a null key or an
    integer beyond int64 it refuses ("unsupported map key")."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and _INT64_MIN <= value <= _INT64_MAX:
        return str(value)
    if isinstance(value, float):
        return _float32_text(value)
    what = "null" if value is None else f"{value}, beyond 64-bit signed integers,"
    raise YAMLError(f"a mapping key cannot be {what}: quote the key to make it a string",
                    node.start_mark.line)


def _container_key(node: Node) -> YAMLError:
    """go-yaml refuses a list or mapping as a key ("invalid map key")."""
    what = "a list" if isinstance(node, SequenceNode) else "a mapping"
    return YAMLError(f"a mapping key cannot be {what}: use a string, number or boolean",
                     node.start_mark.line)


_FLOAT32_OVERFLOW = 2.0**128 - 2.0**103  # halfway from the largest float32 up: rounds to infinity


def _float32_text(value: float) -> str:
    """strconv.FormatFloat(value, 'g', -1, 32), with go-yaml's names for infinities and NaN: the
    shortest digits that read back as the same float32, in %e form when the exponent is below
    -4 or at least 6."""
    if math.isnan(value):
        return ".nan"
    if abs(value) >= _FLOAT32_OVERFLOW:
        return "-.inf" if value < 0 else ".inf"
    single = struct.unpack("f", struct.pack("f", value))[0]
    for precision in itertools.count(1):
        digits = f"{single:.{precision - 1}e}"
        if struct.unpack("f", struct.pack("f", float(digits)))[0] == single:
            break
    mantissa, exponent = digits.split("e")
    power = int(exponent)
    if power < -4 or power >= 6:
        return f"{mantissa}e{power:+03d}"
    return f"{float(digits):.{max(len(mantissa.lstrip('-').replace('.', '')) - 1 - power, 0)}f}"


# go-yaml v2 decode.go allowedAliasRatio: lenient for small documents, strict for huge ones.
def _allowed_alias_ratio(decode_count: int) -> float:
    if decode_count <= 400_000:
        return 0.99
    if decode_count >= 4_000_000:
        return 0.10
    return 0.99 - 0.89 * ((decode_count - 400_000) / 3_600_000)  # Go's order of operations


_MAX_EXPANDED_NODES = 5_000_000


def _check_aliasing(root: Node) -> None:
    """Count what decoding would do once aliases are expanded, without expanding them."""
    sizes: dict[int, int] = {}
    active: set[int] = set()

    def expanded(node: Node) -> int:
        key = id(node)
        known = sizes.get(key)
        if known is not None:
            return known
        if key in active:
            raise YAMLError("an anchor's value contains itself", node.start_mark.line)
        active.add(key)
        total = 1
        if isinstance(node, MappingNode):
            for k, v in node.value:
                total += expanded(k) + expanded(v)
        elif isinstance(node, SequenceNode):
            for item in node.value:
                total += expanded(item)
        sizes[key] = total  # found before `active` from now on
        return total

    seen: set[int] = set()
    counts = [1, 0]  # decode count (the document node counts too), nodes decoded through an alias

    def walk(node: Node) -> None:
        stack = [node]
        while stack:
            current = stack.pop()
            if id(current) in seen:
                inner = expanded(current)
                counts[0] += 1 + inner
                counts[1] += inner
                continue
            seen.add(id(current))
            counts[0] += 1
            if isinstance(current, MappingNode):
                for k, v in reversed(current.value):
                    stack.append(v)
                    stack.append(k)
            elif isinstance(current, SequenceNode):
                stack.extend(reversed(current.value))

    walk(root)
    decodes, aliased = counts
    if decodes > _MAX_EXPANDED_NODES or (
        aliased > 100 and decodes > 1000 and aliased / decodes > _allowed_alias_ratio(decodes)
    ):
        raise YAMLError("document contains excessive aliasing", root.start_mark.line)


MAX_DEPTH = 100
"""Containers nested deeper than this are refused. libyaml allows 1,000 levels and the API
server more, but no Kubernetes object comes close (the deepest CRD schemas of popular charts
nest about 25 levels): the bound keeps every walk of a document (diff, redaction, output)
far inside Python's recursion limit, so depth is an input error, never a crash."""


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """True when containers nest deeper than `limit` (a scalar is depth 0), walked without
    recursion."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, (dict, list)):
            if depth >= limit:
                return True
            children = current.values() if isinstance(current, dict) else current
            stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


class _Repeated(Exception):
    """`_construct_tree` met a container a second time: the document uses an alias."""


def _construct_tree(root: Node, resolved: dict[str, Any], seen: set[int] | None = None) -> Any:
    """`_construct` for a document without aliases, where every node is used once: no memo and
    no heights, only the depth on the way down. The common case, and the one time is spent on:
    scalars under a container are read in place rather than through a call each, and each
    plain scalar's text is resolved once per stream (`resolved`, text to value). With `seen`,
    a container met a second time (an alias) stops the build (`_Repeated`) before any of it is
    built twice: each node is built at most once, so no input makes this costly."""
    known = resolved.get
    missing = resolved  # not a value any text resolves to

    def plain(text: str) -> Any:
        value = resolved[text] = resolve_plain(text)
        return value

    def build(node: Node, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise YAMLError(f"the document nests deeper than {MAX_DEPTH} levels", node.start_mark.line)
        kind = type(node)
        if kind is ScalarNode:
            tag = node.tag
            if tag is _PLAIN:
                value = known(node.value, missing)
                return plain(node.value) if value is missing else value
            return node.value if tag == _STR else _explicit(node)
        if seen is not None:
            if id(node) in seen:
                raise _Repeated
            seen.add(id(node))
        # Below the depth limit a scalar child is read here; at it, build() refuses the child.
        inline = depth < MAX_DEPTH
        if kind is SequenceNode:
            items = []
            for item in node.value:
                if inline and type(item) is ScalarNode and item.tag == _STR:
                    items.append(item.value)
                elif inline and type(item) is ScalarNode and item.tag is _PLAIN:
                    value = known(item.value, missing)
                    items.append(plain(item.value) if value is missing else value)
                else:
                    items.append(build(item, depth + 1))
            return items
        mapping: dict[str, Any] = {}
        merged: list[Node] = []
        for key_node, value_node in node.value:
            key_tag = key_node.tag
            if type(key_node) is not ScalarNode:
                raise _container_key(key_node)
            if key_node.value == "<<" and key_tag in (_PLAIN, _MERGE):
                merged.append(value_node)
                continue
            elif key_tag == _STR and inline:
                name = key_node.value
            elif key_tag is _PLAIN and inline:
                key = known(key_node.value, missing)
                if key is missing:
                    key = plain(key_node.value)
                name = key if type(key) is str else _key_text(key, key_node)
            else:
                name = _key_text(build(key_node, depth + 1), key_node)
            if name in mapping:
                raise YAMLError(f'mapping key "{name}" already defined', key_node.start_mark.line)
            if inline and type(value_node) is ScalarNode and value_node.tag == _STR:
                mapping[name] = value_node.value
            elif inline and type(value_node) is ScalarNode and value_node.tag is _PLAIN:
                value = known(value_node.value, missing)
                mapping[name] = plain(value_node.value) if value is missing else value
            else:
                mapping[name] = build(value_node, depth + 1)
        if merged:
            # A merged map's keys land in this mapping: it is built at this mapping's depth.
            parts = [(build(part, depth), part.start_mark.line)
                     for source in merged for part in (source.value if type(source) is SequenceNode else [source])]
            mapping = _merge(parts, mapping)
        return mapping

    return build(root, 0)


def _construct(root: Node) -> Any:
    """Turn a node graph into plain dicts, lists and scalars, each node built once and shared
    by its aliases, refusing depth past MAX_DEPTH (an alias counts at the depth where it is
    used: its value's height is remembered)."""
    memo: dict[int, tuple[Any, int]] = {}

    def built(node: Node, depth: int) -> tuple[Any, int]:
        """The value of `node` and its height (0 for a scalar)."""
        if depth > MAX_DEPTH:
            raise YAMLError(f"the document nests deeper than {MAX_DEPTH} levels", node.start_mark.line)
        known = memo.get(id(node))
        if known is not None:
            if depth + known[1] > MAX_DEPTH:
                raise YAMLError(f"the document nests deeper than {MAX_DEPTH} levels", node.start_mark.line)
            return known
        height = 0
        if isinstance(node, ScalarNode):
            value: Any = resolve_plain(node.value) if node.tag is _PLAIN else _explicit(node)
        elif isinstance(node, MappingNode):
            value = {}
            merged: list[Node] = []
            for key_node, value_node in node.value:
                if isinstance(key_node, ScalarNode) and key_node.tag in (_PLAIN, _MERGE) and key_node.value == "<<":
                    merged.append(value_node)
                    continue
                if not isinstance(key_node, ScalarNode):
                    raise _container_key(key_node)
                name = _key_text(built(key_node, depth + 1)[0], key_node)
                if name in value:
                    raise YAMLError(f'mapping key "{name}" already defined', key_node.start_mark.line)
                value[name], child_height = built(value_node, depth + 1)
                height = max(height, child_height + 1)
            if merged:
                parts = []  # each merged map built once, at this depth, where its keys land
                for source in merged:
                    for part in source.value if isinstance(source, SequenceNode) else [source]:
                        part_value, part_height = built(part, depth)
                        parts.append((part_value, part.start_mark.line))
                        height = max(height, part_height)
                value = _merge(parts, value)
            height = max(height, 1)
        else:
            value = []
            for item in node.value:
                child, child_height = built(item, depth + 1)
                value.append(child)
                height = max(height, child_height + 1)
            height = max(height, 1)
        memo[id(node)] = (value, height)
        return value, height

    return built(root, 0)[0]


def _merge(parts: list[tuple[Any, int]], explicit: dict[str, Any]) -> dict[str, Any]:
    """`<<` merge keys: the merged maps (built, with their line), then the explicit keys."""
    result: dict[str, Any] = {}
    for built, line in parts:
        if not isinstance(built, dict):
            raise YAMLError("map merge requires map or sequence of maps as the value", line)
        for k, v in built.items():
            result.setdefault(k, v)
    result.update(explicit)
    return result


def load_all(text: str, known: Known | None = None) -> Iterator[LoadedDocument]:
    """Each non-empty document of a stream, in order. `known`: documents already read from
    another stream, taken where this one repeats them word for word (`Known`); this stream's
    are added to it."""
    if known is None or not _chunkable(text):
        yield from _load_all(text)
        return
    yield from known.load(text)


# A line `---` (alone, or followed by a blank) starts a document; a document ends only at the
# next such line, or at a line `...`. In a stream with neither `...` nor a directive line
# (`%YAML`, `%TAG`), and whose lines end in `\n` alone (libyaml's line count then is the count
# of `\n`), each part from one `---` line to the next is read by libyaml as one document, or
# none, whatever stands before or after it: anything else, however it ends, is refused by both
# readings (a flow collection or quoted text left open at `---`). helm writes such streams.
# Lines are found with str.find: a pattern anchored at line starts tries every character.
_BLANK_OR_END = ("", " ", "\t", "\n")


def _marker_lines(text: str, marker: str) -> Iterator[int]:
    """Where each line that is `marker` alone, or followed by a blank, starts."""
    size = len(marker)
    start = 0
    while True:
        if text.startswith(marker, start) and text[start + size:start + size + 1] in _BLANK_OR_END:
            yield start
        start = text.find("\n" + marker, start) + 1
        if not start:
            return


def _chunkable(text: str) -> bool:
    """Whether each part of `text` from one `---` line to the next is a document of its own."""
    if any(character in text for character in "\r\x85\u2028\u2029\ufeff\x00"):
        return False
    if text.startswith("%") or "\n%" in text:  # a directive
        return False
    return next(_marker_lines(text, "..."), None) is None


class Known:
    """The documents of the streams read with it, by their text: the part of the stream from a
    `---` line to the next (see above `_marker_lines`), kept with what it holds. A stream read after
    another takes each part it repeats word for word from here rather than from the parser: the
    release's stored manifest and the chart's new render share every document that did not
    change (reading a 6,000-object release again took longer than the rest of its plan). Each
    value is kept as `marshal` bytes and read from them anew, so no two streams share an
    object. Parts are read by libyaml all at once, but for the repeated ones; if that reading
    fails, the whole stream is read as it is, so an error names the line it always named."""

    def __init__(self) -> None:
        # A part's text -> its document's value (marshal) and first line within the part, or
        # None for a part that holds no document (a template that rendered nothing).
        self._parts: dict[str, tuple[bytes, int] | None] = {}

    def load(self, text: str) -> list[LoadedDocument]:
        import marshal

        starts = [0] + [at for at in _marker_lines(text, "---") if at]
        parts = [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)])]
        first_lines = list(itertools.accumulate((part.count("\n") for part in parts[:-1]), initial=0))
        found: dict[int, LoadedDocument | None] = {}
        unread: list[int] = []
        for i, part in enumerate(parts):
            if part not in self._parts:
                unread.append(i)
                continue
            kept = self._parts[part]
            found[i] = None if kept is None else LoadedDocument(marshal.loads(kept[0]), first_lines[i] + kept[1])
        if unread:
            # The parts not seen before, read as one stream: each starts at a `---` line (but
            # the stream's first part, which is read first), so each is a document of its own.
            whole = len(unread) == len(parts)
            joined_lines = first_lines if whole else list(
                itertools.accumulate((parts[i].count("\n") for i in unread[:-1]), initial=0))
            try:
                read = list(_load_all(text if whole else "".join(parts[i] for i in unread)))
            except YAMLError:
                return list(_load_all(text))  # the error as the whole stream gives it
            held: dict[int, list[LoadedDocument]] = {}
            for document in read:
                k = bisect_right(joined_lines, document.start_line) - 1
                held.setdefault(k, []).append(document)
            for k, i in enumerate(unread):
                documents = held.get(k, [])
                if len(documents) > 1:  # cannot be (see above `_marker_lines`): read the stream as it is
                    return list(_load_all(text))
                if documents:
                    relative = documents[0].start_line - joined_lines[k]
                    found[i] = LoadedDocument(documents[0].value, first_lines[i] + relative)
                    try:
                        self._parts[parts[i]] = (marshal.dumps(documents[0].value), relative)
                    except ValueError:  # nested past marshal's depth: read again when repeated
                        pass
                else:
                    found[i] = None
                    self._parts[parts[i]] = None
        return [document for document in (found[i] for i in range(len(parts))) if document is not None]


def _load_all(text: str) -> Iterator[LoadedDocument]:
    """Each non-empty document of a stream, in order."""
    if _Loader is None:
        _bind()
    has_aliases = "&" in text and "*" in text
    resolved: dict[str, Any] = {}
    loader = _Loader(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            if isinstance(node, ScalarNode) and node.tag is _PLAIN and node.value in ("", "~", "null", "Null", "NULL"):
                continue  # an empty document
            if has_aliases:
                # The stream may use an alias: each document is built as a tree unless a
                # container turns up twice (an alias to a scalar costs nothing more), else
                # checked for excessive aliasing and built with shared nodes. A CEL rule's `&&`
                # and a pattern's `]*` put both characters in most large CRDs.
                try:
                    value = _construct_tree(node, resolved, set())
                except _Repeated:
                    _check_aliasing(node)
                    value = _construct(node)
            else:
                value = _construct_tree(node, resolved)
            yield LoadedDocument(value, node.start_mark.line)
    except _MarkedError as err:  # PyYAML's and libyaml's all carry a problem and its mark
        raise YAMLError(err.problem, err.problem_mark.line) from None
    except _Error as err:
        raise YAMLError(str(err).splitlines()[0]) from None
    finally:
        loader.dispose()
