"""Field-level differences between two parsed objects, matched the way Kubernetes matches them.

The result is the smallest true set of `FieldChange`s, named by RFC 6901 JSON Pointers.

- Values compare as Kubernetes compares them after parsing: key order and encoding never
  matter; a boolean is never equal to a number; an integer equals the same float.
- Lists follow the kind's schema (`core.list_keys`): a keyed list matches entries by their key
  fields (inserting one env var is one `add`; a changed image is one `replace` under its
  container; a keyed entry whose key changed but whose content is close is one `rename`); a
  set list compares as a set; an atomic list is one value, shown with an entry diff. The
  entries of an atomic list, and of a list the schema does not know, are aligned by
  `core.list_align`: flags by name, equal entries in order, then close entries (an inserted
  rule is one `add`, the rule after it keeps its own changes). Entries matched out of order
  give one `reorder`.
- A changed multi-line string carries a line diff with context; a string holding a JSON or
  YAML document carries the structural changes inside it.
- Two spellings of one quantity where the schema says quantity (`1000m`, `1`) give an
  `equivalent` change, which is not a real one.

Indices in pointers count in the desired list, except for a `remove`, which names the entry
where it was in the previous list (see `FieldChange`): an added or changed entry is found at
its pointer in the desired object, a removed one in the previous object. Keyed and unkeyed
lists alike; an atomic list's entry diff (`parts`) points into the list's own value the same way.
"""
from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from deployah_plan.core import quantity
from deployah_plan.pointer import escape
from deployah_plan.core.list_align import align, digest, match_equal
from deployah_plan.core.list_keys import KEY_DEFAULTS, QUANTITY, Node, Spec, root
from deployah_plan.model import FieldChange, FieldOp
from deployah_plan.yamlkube import MAX_DEPTH, YAMLError, load_all, too_deep

if TYPE_CHECKING:
    import difflib  # imported where a line diff is made: most plans make none

_NUMBERS = (int, float)
_SCALARS = (str, int, float, bool, type(None))
_RENAME_SIMILARITY = 0.6  # share of equal leaves (key fields aside) that makes a rename
_MAX_RENAME_CANDIDATES = 64  # removed x added pairs scored at most this many each way
Key = tuple[Any, ...]


def same(a: Any, b: Any) -> bool:
    """Deep equality with JSON semantics (True is not 1; 1 is 1.0; NaN is NaN)."""
    if a is b:
        return True
    ta, tb = type(a), type(b)
    if ta is dict:
        if tb is not dict or len(a) != len(b):
            return False
        for key, value in a.items():
            if key not in b or not same(value, b[key]):
                return False
        return True
    if ta is list:
        return tb is list and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if ta in _NUMBERS and tb in _NUMBERS:
        return a == b or (ta is float and tb is float and math.isnan(a) and math.isnan(b))
    return ta is tb and a == b


LINE_CONTEXT = 2  # unchanged lines around each change of a multi-line string (--context)


def diff(before: Any, after: Any, schema: Node | None = None, context: int = LINE_CONTEXT) -> list[FieldChange]:
    """The changes that turn `before` into `after`, in document order. `schema` is the node of
    the top-level value (None: no list keys or quantities are known); `context` the unchanged
    lines kept around each change of a multi-line string."""
    walker = _Walker(context=context)
    walker.value(before, after, Spec("o", node=schema) if schema else None)
    return walker.out


def diff_objects(before: Mapping[str, Any], after: Mapping[str, Any], context: int = LINE_CONTEXT) -> list[FieldChange]:
    """`diff` of two Kubernetes objects, with the schema of the desired object's kind."""
    return diff(before, after, root(after.get("apiVersion"), after.get("kind")), context)


def leaves(value: Any) -> list[tuple[str, str]]:
    """Every leaf of a value as (path, digest of its value), walked without recursion."""
    out: list[tuple[str, str]] = []
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        prefix, current = stack.pop()
        if isinstance(current, dict):
            stack.extend((f"{prefix}/{key}", child) for key, child in current.items())
        elif isinstance(current, list):
            stack.extend((f"{prefix}/{index}", child) for index, child in enumerate(current))
        else:
            out.append((prefix, digest(current)))
    return out


def similarity(a: Any, b: Any) -> float:
    """Share of leaves (path and value) two values have in common, 0 to 1."""
    left, right = set(leaves(a)), set(leaves(b))
    if not left and not right:
        return 1.0
    return 2 * len(left & right) / (len(left) + len(right))


def _without(entry: Mapping[str, Any], fields: Iterable[str]) -> dict[str, Any]:
    drop = set(fields)
    return {k: v for k, v in entry.items() if k not in drop}


def _list_keys(entries: list[Any], fields: tuple[str, ...]) -> list[Key] | None:
    """Each entry's key, or None when some entry has no key, a compound key, or a duplicate."""
    keys: list[Key] = []
    for entry in entries:
        if type(entry) is not dict:
            return None
        key = tuple(entry.get(f, KEY_DEFAULTS.get(f)) for f in fields)
        if all(v is None for v in key) or not all(isinstance(v, _SCALARS) for v in key):
            return None
        keys.append(key)
    return keys if len(set(keys)) == len(keys) else None


def _key_view(entry: Mapping[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    """The key fields an entry declares, for readers."""
    return {f: entry[f] for f in fields if f in entry}


def _embedded(a: str, b: str, room: int) -> tuple[str, Any, Any] | None:
    """Both strings parsed as one JSON or YAML document (an object or a list) that nests at
    most `room` levels (what MAX_DEPTH leaves below the string's place), or None."""
    if room <= 0:
        return None
    sa, sb = a.lstrip(), b.lstrip()
    if sa[:1] in ("{", "[") and sb[:1] in ("{", "["):
        try:
            ja, jb = json.loads(a), json.loads(b)
        except (ValueError, RecursionError):
            pass
        else:
            return None if too_deep(ja, room) or too_deep(jb, room) else ("json", ja, jb)
    if "\n" not in a.rstrip("\n") and "\n" not in b.rstrip("\n"):
        return None
    try:
        da, db = [d.value for d in load_all(a)], [d.value for d in load_all(b)]
    except YAMLError:
        return None
    if len(da) == 1 and len(db) == 1 and isinstance(da[0], (dict, list)) and isinstance(db[0], (dict, list)):
        return None if too_deep(da[0], room) or too_deep(db[0], room) else ("yaml", da[0], db[0])
    return None


# The line diff of a multi-line value. difflib's matcher costs about the product of the two
# sides' lengths, which is fine for any real file but ran for minutes on two 8 MB values with
# many changed lines. So, past _DIFFLIB_LINES lines a side: common leading and trailing lines
# are set aside, lines found once in each side anchor the rest (patience diff, n log n), and
# difflib matches only what lies between anchors, when that is at most _DIFFLIB_CELLS lines x
# lines (a larger stretch with no anchor is shown as removed and added whole). The result is a
# true diff, not always the shortest. At most MAX_DIFF_LINES lines of it are kept; a last line
# says how many more there are.
_DIFFLIB_LINES = 2_000
_DIFFLIB_CELLS = 1_000_000
MAX_DIFF_LINES = 20_000


def line_diff(a: str, b: str, context: int = LINE_CONTEXT) -> tuple[str, ...]:
    """A unified diff of two multi-line strings: hunk headers and lines, no file header."""
    import difflib  # only for a multi-line value that changed

    la, lb = a.splitlines(), b.splitlines()
    if len(la) <= _DIFFLIB_LINES and len(lb) <= _DIFFLIB_LINES:
        matcher = difflib.SequenceMatcher(None, la, lb)
    else:
        matcher = _matched(_matching_blocks(la, lb), len(la), len(lb))
    out: list[str] = []
    hidden = 0
    for group in matcher.get_grouped_opcodes(context):
        if len(out) >= MAX_DIFF_LINES:
            hidden += 1 + sum(i2 - i1 if tag == "equal" else (i2 - i1) + (j2 - j1) for tag, i1, i2, j1, j2 in group)
            continue
        out.append(f"@@ -{_range(group[0][1], group[-1][2])} +{_range(group[0][3], group[-1][4])} @@")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += (" " + line for line in la[i1:i2])
                continue
            out += ("-" + line for line in la[i1:i2])
            out += ("+" + line for line in lb[j1:j2])
    if len(out) > MAX_DIFF_LINES:
        hidden += len(out) - MAX_DIFF_LINES
        del out[MAX_DIFF_LINES:]
    if hidden:
        out.append(f"@@ the line diff is cut at {MAX_DIFF_LINES:,} lines: {hidden:,} more are not shown @@")
    return tuple(out)


def _matched(blocks: list[tuple[int, int, int]], len_a: int, len_b: int) -> difflib.SequenceMatcher[str]:
    """difflib's opcodes and hunks over equal runs found by _matching_blocks."""
    import difflib

    class Matched(difflib.SequenceMatcher[str]):
        def __init__(self) -> None:
            super().__init__()  # its sequences are never read: every opcode comes from the blocks
            self._blocks = [difflib.Match(i, j, n) for i, j, n in blocks] + [difflib.Match(len_a, len_b, 0)]

        def get_matching_blocks(self) -> list[difflib.Match]:
            return self._blocks
    return Matched()


def _range(start: int, stop: int) -> str:
    """A unified diff's line range (difflib's _format_range_unified)."""
    length = stop - start
    return f"{start + 1}" if length == 1 else f"{start + (1 if length else 0)},{length}"


def _matching_blocks(a: list[str], b: list[str]) -> list[tuple[int, int, int]]:
    """Equal runs (i, j, size) in increasing order, as difflib's get_matching_blocks gives them
    (without its last, empty one), found as the comment above line_diff says."""
    blocks: list[tuple[int, int, int]] = []
    stack = [(0, len(a), 0, len(b))]
    while stack:
        a1, a2, b1, b2 = stack.pop()
        start = 0  # common leading lines
        while a1 + start < a2 and b1 + start < b2 and a[a1 + start] == b[b1 + start]:
            start += 1
        if start:
            blocks.append((a1, b1, start))
            a1, b1 = a1 + start, b1 + start
        end = 0  # common trailing lines
        while a2 - end > a1 and b2 - end > b1 and a[a2 - end - 1] == b[b2 - end - 1]:
            end += 1
        if end:
            blocks.append((a2 - end, b2 - end, end))
            a2, b2 = a2 - end, b2 - end
        if a1 == a2 or b1 == b2:
            continue
        if (a2 - a1) * (b2 - b1) <= _DIFFLIB_CELLS:
            import difflib

            inner = difflib.SequenceMatcher(None, a[a1:a2], b[b1:b2], autojunk=False)
            blocks += [(a1 + i, b1 + j, n) for i, j, n in inner.get_matching_blocks() if n]
            continue
        anchors = _unique_anchors(a, a1, a2, b, b1, b2)
        previous_i, previous_j = a1, b1
        for i, j in anchors:
            blocks.append((i, j, 1))
            stack.append((previous_i, i, previous_j, j))
            previous_i, previous_j = i + 1, j + 1
        if anchors:
            stack.append((previous_i, a2, previous_j, b2))
    blocks.sort()
    merged: list[tuple[int, int, int]] = []
    for i, j, n in blocks:  # adjacent runs as one, as difflib gives them
        if merged and merged[-1][0] + merged[-1][2] == i and merged[-1][1] + merged[-1][2] == j:
            merged[-1] = (merged[-1][0], merged[-1][1], merged[-1][2] + n)
        else:
            merged.append((i, j, n))
    return merged


def _unique_anchors(a: list[str], a1: int, a2: int, b: list[str], b1: int, b2: int) -> list[tuple[int, int]]:
    """Lines found exactly once in a[a1:a2] and once in b[b1:b2], the longest run of them in the
    same order on both sides (patience sorting)."""
    count: dict[str, list[int]] = {}
    for i in range(a1, a2):
        entry = count.setdefault(a[i], [0, 0, i, 0])
        entry[0] += 1
    for j in range(b1, b2):
        entry = count.get(b[j])  # type: ignore[assignment]
        if entry is not None:
            entry[1] += 1
            entry[3] = j
    pairs = sorted((i, j) for ca, cb, i, j in count.values() if ca == 1 and cb == 1)
    # Longest increasing subsequence of j over pairs in i order.
    tails: list[int] = []  # index into pairs of the smallest tail of each length
    back: list[int] = [-1] * len(pairs)
    for n, (_, j) in enumerate(pairs):
        low, high = 0, len(tails)
        while low < high:
            middle = (low + high) // 2
            if pairs[tails[middle]][1] < j:
                low = middle + 1
            else:
                high = middle
        back[n] = tails[low - 1] if low else -1
        if low == len(tails):
            tails.append(n)
        else:
            tails[low] = n
    chain: list[tuple[int, int]] = []
    n = tails[-1] if tails else -1
    while n >= 0:
        chain.append(pairs[n])
        n = back[n]
    return chain[::-1]


class _Walker:
    """Walks two values and a schema together; `tokens` is the current path, unescaped, and
    `keyed` the keyed list entries on it (depth in tokens, key), turned into pointers only
    when a change is recorded."""

    def __init__(self, base: int = 0, context: int = LINE_CONTEXT) -> None:
        self.base = base  # the depth of the string this walk is inside, for embedded documents
        self.context = context
        self.out: list[FieldChange] = []
        self.tokens: list[str] = []
        # (depth, entry, key fields): the key view is made only when a change is recorded
        self.keyed: list[tuple[int, Mapping[str, Any], tuple[str, ...]]] = []

    def _pointer(self, depth: int | None = None) -> str:
        return "".join("/" + escape(t) for t in self.tokens[:depth])

    def emit(self, op: FieldOp, before: Any, after: Any, **extra: Any) -> None:
        keys = tuple((self._pointer(depth), _key_view(entry, fields)) for depth, entry, fields in self.keyed)
        self.out.append(FieldChange(self._pointer(), op, before, after, keys, **extra))

    def at(self, token: str | int, op: FieldOp, before: Any, after: Any,
           keyed: tuple[Mapping[str, Any], tuple[str, ...]] | None = None) -> None:
        self.tokens.append(str(token))
        if keyed is not None:
            self.keyed.append((len(self.tokens), *keyed))
        self.emit(op, before, after)
        if keyed is not None:
            self.keyed.pop()
        self.tokens.pop()

    def value(self, a: Any, b: Any, spec: Spec | None) -> None:
        ta, tb = type(a), type(b)
        if ta is tb and ta is not dict and ta is not list and a == b:
            return
        if ta is dict and tb is dict:
            self.mapping(a, b, spec)
        elif ta is list and tb is list:
            self.sequence(a, b, spec)
        elif same(a, b):
            return
        elif spec is QUANTITY and quantity.equivalent(a, b):
            self.emit(FieldOp.REPLACE, a, b, equivalent=True)
        elif ta is str and tb is str:
            self.string(a, b)
        else:
            self.emit(FieldOp.REPLACE, a, b)

    def mapping(self, a: dict[str, Any], b: dict[str, Any], spec: Spec | None) -> None:
        fields = spec.node.fields if spec is not None and spec.node is not None else None
        value_spec = spec.value if spec is not None and spec.kind == "m" else None
        tokens = self.tokens
        for key, va in a.items():
            tokens.append(key)
            if key in b:
                vb = b[key]
                if va is not vb:
                    child = fields.get(key) if fields is not None else value_spec
                    if va is None or vb is None:
                        self.absent(va, vb, child)
                    else:
                        self.value(va, vb, child)
            elif va is not None:
                self.emit(FieldOp.REMOVE, va, None)
            tokens.pop()
        for key, vb in b.items():
            if key not in a and vb is not None:
                tokens.append(key)
                self.emit(FieldOp.ADD, None, vb)
                tokens.pop()

    def absent(self, a: Any, b: Any, spec: Spec | None) -> None:
        """A map value that is null on one side. The API server never stores a null field
        (decoding drops it), so null is the field left out: a map or list going to null is its
        entries removed, one coming from null its entries added (an empty one is added or
        removed whole, as when the field is left out)."""
        present = a if b is None else b
        if present is None:
            return
        if type(present) is dict and present:
            self.mapping(a or {}, b or {}, spec)
        elif type(present) is list and present:
            self.sequence(a or [], b or [], spec)
        elif b is None:
            self.emit(FieldOp.REMOVE, a, None)
        else:
            self.emit(FieldOp.ADD, None, b)

    def string(self, a: str, b: str) -> None:
        if "\n" in a or "\n" in b or a.lstrip()[:1] in ("{", "["):
            embedded = _embedded(a, b, MAX_DEPTH - self.base - len(self.tokens))
            if embedded is not None:
                form, da, db = embedded
                walker = _Walker(self.base + len(self.tokens), self.context)
                walker.value(da, db, None)
                inner = walker.out
                if inner:
                    self.emit(FieldOp.REPLACE, a, b, parts=tuple(inner), parts_of=form)
                    return
            if "\n" in a.rstrip("\n") or "\n" in b.rstrip("\n"):
                self.emit(FieldOp.REPLACE, a, b, lines=line_diff(a, b, self.context))
                return
        self.emit(FieldOp.REPLACE, a, b)

    # Lists -----------------------------------------------------------------------------

    def sequence(self, a: list[Any], b: list[Any], spec: Spec | None) -> None:
        if spec is not None and spec.kind == "l":
            if spec.list_type == "map" and self.keyed_list(a, b, spec):
                return
            if spec.list_type == "set":
                self.set_list(a, b)
                return
            if spec.list_type == "atomic":
                if not same(a, b):
                    inner = _Walker(self.base + len(self.tokens), self.context)
                    inner.unkeyed_list(a, b, spec.value)
                    self.emit(FieldOp.REPLACE, a, b, parts=tuple(inner.out), parts_of="entries")
                return
            self.unkeyed_list(a, b, spec.value)
            return
        self.unkeyed_list(a, b, None)

    def keyed_list(self, a: list[Any], b: list[Any], spec: Spec) -> bool:
        """Entries matched by key; False when the entries cannot be keyed (the caller falls
        back to unkeyed matching)."""
        if len(a) == len(b) and all(x is y or same(x, y) for x, y in zip(a, b)):
            return True
        fields = spec.keys
        ka, kb = _list_keys(a, fields), _list_keys(b, fields)
        if ka is None or kb is None:
            return False
        index_a = {key: i for i, key in enumerate(ka)}
        index_b = {key: j for j, key in enumerate(kb)}
        pairs = {j: index_a[key] for j, key in enumerate(kb) if key in index_a}
        removed = [i for i, key in enumerate(ka) if key not in index_b]
        added = [j for j, key in enumerate(kb) if key not in index_a]
        renames = _pair_renames(a, b, removed, added, fields)
        pairs.update(renames)
        self._reorder(pairs, lambda i: _key_view(a[i], fields))
        depth = len(self.tokens) + 1
        for j, entry in enumerate(b):
            i = pairs.get(j)
            self.tokens.append(str(j))
            self.keyed.append((depth, entry, fields))
            if i is None:
                self.emit(FieldOp.ADD, None, entry)
            elif j in renames:
                self.emit(FieldOp.RENAME, _key_view(a[i], fields), _key_view(entry, fields))
                self.value(_without(a[i], fields), _without(entry, fields), spec.value)
            elif a[i] is not entry:
                self.value(a[i], entry, spec.value)
            self.keyed.pop()
            self.tokens.pop()
        renamed = set(renames.values())
        for i in removed:
            if i not in renamed:
                self.at(i, FieldOp.REMOVE, a[i], None, (a[i], fields))
        return True

    def set_list(self, a: list[Any], b: list[Any]) -> None:
        if same(a, b):
            return
        pairs = match_equal(a, b)
        matched_a = set(pairs.values())
        for j, entry in enumerate(b):
            if j not in pairs:
                self.at(j, FieldOp.ADD, None, entry)
        for i, entry in enumerate(a):
            if i not in matched_a:
                self.at(i, FieldOp.REMOVE, entry, None)

    def unkeyed_list(self, a: list[Any], b: list[Any], item: Spec | None) -> None:
        if len(a) == len(b) and all(same(x, y) for x, y in zip(a, b)):
            return
        pairs = align(a, b)
        self._reorder(pairs, lambda i: i)
        for j, entry in enumerate(b):
            i = pairs.get(j)
            if i is None:
                self.at(j, FieldOp.ADD, None, entry)
            else:
                self.tokens.append(str(j))
                self.value(a[i], entry, item)
                self.tokens.pop()
        matched_a = set(pairs.values())
        for i, entry in enumerate(a):
            if i not in matched_a:
                self.at(i, FieldOp.REMOVE, entry, None)

    def _reorder(self, pairs: Mapping[int, int], label: Any) -> None:
        """One `reorder` change when matched entries changed their relative order; before and
        after name the matched entries (by key, or by previous index) in each order."""
        by_desired = [pairs[j] for j in sorted(pairs)]
        if all(x < y for x, y in zip(by_desired, by_desired[1:])):
            return
        self.emit(FieldOp.REORDER, [label(i) for i in sorted(by_desired)], [label(i) for i in by_desired])


def _pair_renames(a: list[Any], b: list[Any], removed: list[int], added: list[int],
                  fields: tuple[str, ...]) -> dict[int, int]:
    """Removed and added keyed entries whose content (key fields aside) is close: desired
    index -> previous index. Greedy by similarity, best pairs first."""
    if not removed or not added:
        return {}
    scored = []
    for i in removed[:_MAX_RENAME_CANDIDATES]:
        rest_a = _without(a[i], fields)
        if not rest_a:
            continue
        for j in added[:_MAX_RENAME_CANDIDATES]:
            score = similarity(rest_a, _without(b[j], fields))
            if score >= _RENAME_SIMILARITY:
                scored.append((-score, i, j))
    scored.sort()
    out: dict[int, int] = {}
    used: set[int] = set()
    for _, i, j in scored:
        if j not in out and i not in used:
            out[j] = i
            used.add(i)
    return out


# The declared surface (drift) ---------------------------------------------------------------

# Metadata the API server writes: never drift, even when a manifest spells one of them out
# (`creationTimestamp: null` is common in generated manifests).
BOOKKEEPING = frozenset({"managedFields", "resourceVersion", "uid", "generation", "creationTimestamp",
                         "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"})
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def _zero(value: Any) -> bool:
    """A value the API server drops when it stores an object (Go's omitempty)."""
    return value is None or (type(value) in (str, dict, list) and not value) or value is False or (
        type(value) in _NUMBERS and value == 0)


def declared_surface(declared: Mapping[str, Any], live: Mapping[str, Any]) -> dict[str, Any]:
    """`live` cut down to what `declared` declares, for comparing the two with `diff`.

    Kept: every field `declared` has, at the value `live` has. Left out: what only the live
    object has (server defaults, `status`, the server's bookkeeping, entries added to keyed
    lists or sets: a three-way merge leaves those alone). Keyed list entries and set members
    are put in the declared order, so a server that reorders them shows no drift; a declared
    zero value (`false`, `0`, `""`, `{}`, `[]`, null) that the server dropped is kept as
    declared. The bookkeeping metadata, `status`, the last-applied annotation, `apiVersion` and
    `kind` are taken from `declared`: they are never drift.
    """
    node = root(declared.get("apiVersion"), declared.get("kind"))
    out: dict[str, Any] = _surface(dict(declared), dict(live), Spec("o", node=node) if node else None)
    for key in ("apiVersion", "kind", "status"):
        if key in declared:
            out[key] = declared[key]
    meta_declared, meta_live = declared.get("metadata"), out.get("metadata")
    if isinstance(meta_declared, dict) and isinstance(meta_live, dict):
        for key in BOOKKEEPING & meta_declared.keys():
            meta_live[key] = meta_declared[key]
        annotations, live_annotations = meta_declared.get("annotations"), meta_live.get("annotations")
        if isinstance(annotations, dict) and LAST_APPLIED in annotations and isinstance(live_annotations, dict):
            live_annotations[LAST_APPLIED] = annotations[LAST_APPLIED]
    return out


def _surface(declared: Any, live: Any, spec: Spec | None) -> Any:
    if type(declared) is dict and type(live) is dict:
        fields = spec.node.fields if spec is not None and spec.node is not None else None
        value_spec = spec.value if spec is not None and spec.kind == "m" else None
        out: dict[str, Any] = {}
        for key, value in declared.items():
            if key in live:
                out[key] = _surface(value, live[key], fields.get(key) if fields is not None else value_spec)
            elif _zero(value):
                out[key] = value
        return out
    if type(declared) is list and type(live) is list:
        if spec is not None and spec.kind == "l":
            if spec.list_type == "atomic":
                return live
            if spec.list_type == "set":
                return [entry for entry in declared if any(same(entry, other) for other in live)]
            if spec.list_type == "map":
                keys_declared, keys_live = _list_keys(declared, spec.keys), _list_keys(live, spec.keys)
                if keys_declared is not None and keys_live is not None:
                    by_key = dict(zip(keys_live, live))
                    return [_surface(entry, by_key[key], spec.value)
                            for entry, key in zip(declared, keys_declared) if key in by_key]
            item = spec.value
        else:
            item = None
        if len(declared) == len(live):
            return [_surface(d, v, item) for d, v in zip(declared, live)]
        return live
    return live
