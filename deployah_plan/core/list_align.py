"""Which entries of two lists without keys are one entry: the pairs the diff engine walks.

A list whose schema names no key has entries whose only identity is their content: an atomic
list (a ClusterRole's `rules`, a container's `args`, `tolerations`) or a list of a custom
resource the schema does not know. Its entries are aligned in passes, each over what the
passes before it left:

1. flags by name: `--log.level=INFO` and `--log.level=DEBUG` are one entry, when the name is
   found once on each side;
2. equal entries kept in order, as many as can be (a longest common subsequence of their
   digests), so an entry inserted before an equal one is an add, not a move; then equal
   entries that moved;
3. between two entries matched so far (a gap), the rest in order: entries that share at least
   half their leaves (`similarity`) are paired, as close as can be without crossing (of two
   entries as close, the one whose lists are in the same order), and entries of a single
   value (a scalar, `{"port": 80}`) by position, as a value changed in place; what is left is
   added or removed. A rule inserted before a rule that lost a resource is one add and one
   changed rule, not a rewrite of the first and an add of the second. When a side repeats an
   entry, passes 2 and 3 are one alignment of the whole list (equal pairs weigh more than all
   close ones together), so which of two equal entries is kept never pushes a close pair out
   of order;
4. an entry that moved and changed is paired with the entry it is closest to, best pair first.

The diff shows a pair as the changes inside it, under the entry's index in the desired list,
and an entry left over as an `add` (its desired index) or a `remove` (its previous index), as
for keyed lists. For an atomic list the pairs are a reading aid: Kubernetes replaces the list
whole (client-side apply's three-way merge replaces a list that has no patchMergeKey;
server-side apply replaces an atomic list), so what Helm applies is the new list whatever the
pairs.

Cost: the equality passes compare digests (linear, plus a longest common subsequence table up
to _MAX_IN_ORDER_CELLS entry pairs). Similarity compares leaves, so it is bounded: a gap (or a
whole list with repeats) of more than _MAX_GAP_CELLS entry pairs, or whose entries would take
more than _GAP_LEAVES leaf comparisons, is not scored (a gap is then paired by position, as
before similarity was used; a whole list takes the passes one by one); the last pass scores
at most _MAX_MOVED entries each way. Entries whose sizes cannot reach SIMILAR are not compared.
A gap at the bound (64 entries of 30 leaves a side, every pair close) takes 65 ms; the gaps
of one list are disjoint, so the passes stay about linear in its size past that.
Measured on a ClusterRole of 40 rules with one inserted and one shrunk (0.7 ms), 2,000 rules
with 40 changed and one inserted (32 ms, as before), and 61 rules with a repeat and 20
changed (2.4 ms against 1.8 ms when entries were paired by position).
"""
from __future__ import annotations

import json
from typing import Any

from deployah_plan.startup import lazy

SIMILAR = 0.5  # share of equal leaves from which two entries are one entry changed
_FLAG = lazy(r"--?[A-Za-z0-9][^=\s]*")
_MAX_IN_ORDER_CELLS = 250_000  # equal entries kept in order exactly up to this many entry pairs
_MAX_GAP_CELLS = 4_096  # entry pairs of one gap scored at most (64 x 64)
_GAP_LEAVES = 125_000  # leaves compared at most in one gap (twice over for the pairs that are close)
_MAX_MOVED = 64  # entries each way scored at most for a move
# A pair's weight in an alignment: its similarity in the high digits, its similarity with list
# indices kept (`leaves(indexed=True)`) in the low ones, to choose between entries equally close
# whatever the order of their lists: the one whose lists are in the same order. A single value
# changed in place weighs less than any close pair.
_SCALE = 1_000
_SCALAR_PAIR = 1

Leaves = dict[tuple[Any, ...], int]  # (path, type, value) of each leaf -> how many times


def digest(value: Any) -> str:
    """Content identity of a list entry (JSON semantics: 1 and 1.0 are one number)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str, allow_nan=True)


def leaves(value: Any, indexed: bool = False) -> Leaves:
    """Every leaf of a value as (path, type, value), counted, with list indices left out of the
    path (unless `indexed`): a rule that lost its first resource still holds the others at the
    same path."""
    out: Leaves = {}
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, current = stack.pop()
        kind = type(current)
        if kind is dict and current:
            stack.extend((f"{path}/{key}", child) for key, child in current.items())
            continue
        if kind is list and current:
            if indexed:
                stack.extend((f"{path}/{index}", child) for index, child in enumerate(current))
            else:
                stack.extend((path + "/-", child) for child in current)
            continue
        if kind is bool:
            leaf: tuple[Any, ...] = (path, "b", current)
        elif kind is int or kind is float:
            leaf = (path, "n", current)  # 1 == 1.0 in a tuple, as in JSON
        elif kind is str:
            leaf = (path, "s", current)
        elif current is None or kind is dict or kind is list:
            leaf = (path, digest(current))
        else:
            leaf = (path, "o", str(current))
        out[leaf] = out.get(leaf, 0) + 1
    return out


def similarity(a: Leaves, b: Leaves) -> float:
    """Share of leaves two values have in common, 0 to 1 (Dice's coefficient of the counts)."""
    size = sum(a.values()) + sum(b.values())
    if not size:
        return 1.0
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    return 2 * sum(min(count, large.get(leaf, 0)) for leaf, count in small.items()) / size


def flag_name(entry: Any) -> str | None:
    """The name of a command-line flag (`--v` of `--v=2`), or None for another entry."""
    if type(entry) is str and _FLAG.match(entry):
        return entry.split("=", 1)[0]
    return None


def match_equal(a: list[Any], b: list[Any]) -> dict[int, int]:
    """Equal entries, first come first matched: desired index -> previous index."""
    return _equal([digest(x) for x in a], [digest(x) for x in b], set(), set())


def _equal(da: list[str], db: list[str], taken_a: set[int], taken_b: set[int]) -> dict[int, int]:
    waiting: dict[str, list[int]] = {}
    for i, found in enumerate(da):
        if i not in taken_a:
            waiting.setdefault(found, []).append(i)
    for queue in waiting.values():
        queue.reverse()  # popped from the end: first come first matched
    pairs: dict[int, int] = {}
    for j, found in enumerate(db):
        if j not in taken_b:
            left = waiting.get(found)
            if left:
                pairs[j] = left.pop()
    return pairs


def in_order(a: list[str], b: list[str]) -> list[tuple[int, int]]:
    """Equal entries of two lists kept in order, as many as can be (a longest common
    subsequence), each the first that can be: (index in a, index in b). Long lists, whose table
    would be too large, take difflib's matching blocks instead (in order, not always longest)."""
    if len(a) * len(b) > _MAX_IN_ORDER_CELLS:
        import difflib

        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        return [(block.a + k, block.b + k) for block in matcher.get_matching_blocks() for k in range(block.size)]
    longest = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]  # longest[i][j]: of a[i:] and b[j:]
    for i in range(len(a) - 1, -1, -1):
        row, below = longest[i], longest[i + 1]
        for j in range(len(b) - 1, -1, -1):
            row[j] = below[j + 1] + 1 if a[i] == b[j] else max(below[j], row[j + 1])
    out: list[tuple[int, int]] = []
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i] == b[j]:
            out.append((i, j))
            i, j = i + 1, j + 1
        elif longest[i + 1][j] >= longest[i][j + 1]:
            i += 1
        else:
            j += 1
    return out


def align(a: list[Any], b: list[Any]) -> dict[int, int]:
    """Desired index -> previous index of the entries that are one entry (the passes above)."""
    pairs = _flags(a, b)
    da, db = [digest(x) for x in a], [digest(x) for x in b]
    taken = set(pairs.values())
    rest_a = [i for i in range(len(a)) if i not in taken]
    rest_b = [j for j in range(len(b)) if j not in pairs]
    # When a side repeats an entry, which of the equal ones are kept in order is chosen together
    # with the close ones: one alignment of the whole list, equal pairs weighing more than all
    # close ones, so that keeping an equal entry never pushes a close one out of order.
    repeated = len(set(da[i] for i in rest_a)) < len(rest_a) or len(set(db[j] for j in rest_b)) < len(rest_b)
    whole = _aligned(a, b, rest_a, rest_b, da, db) if repeated else None
    if whole is not None:
        pairs.update(whole)
        pairs.update(_equal(da, db, set(pairs.values()), set(pairs)))
    else:
        for i, j in in_order([da[i] for i in rest_a], [db[j] for j in rest_b]):
            pairs[rest_b[j]] = rest_a[i]
        pairs.update(_equal(da, db, set(pairs.values()), set(pairs)))
        for gap_a, gap_b in _gaps(pairs, len(a), len(b)):
            found = _aligned(a, b, gap_a, gap_b, da, db)
            pairs.update(dict(zip(gap_b, gap_a)) if found is None else found)  # too many to score: by position
    pairs.update(_moved(a, b, pairs))
    return _in_order_among_equals(pairs, da, db)


def _gaps(pairs: dict[int, int], len_a: int, len_b: int) -> list[tuple[list[int], list[int]]]:
    """The entries left between two matched entries, each side's in order; all that is left,
    as one gap, when matched entries moved."""
    anchors = sorted(pairs.items())  # (desired, previous), by desired index
    if any(i > k for (_, i), (_, k) in zip(anchors, anchors[1:])):
        taken = set(pairs.values())
        return [([i for i in range(len_a) if i not in taken], [j for j in range(len_b) if j not in pairs])]
    # Nothing moved: what is left is aligned between two matched entries, never across one, so
    # an edit that moves nothing shows no reorder.
    bounds = [(-1, -1), *anchors, (len_b, len_a)]
    return [(list(range(i0 + 1, i1)), list(range(j0 + 1, j1))) for (j0, i0), (j1, i1) in zip(bounds, bounds[1:])]


def _in_order_among_equals(pairs: dict[int, int], da: list[str], db: list[str]) -> dict[int, int]:
    """The pairs with equal entries of one side taking their partners in order: which of two
    equal entries is paired with what changes no change shown, only whether the pairs cross
    (a reorder that is not one)."""
    for previous_side in (True, False):
        groups: dict[str, list[tuple[int, int]]] = {}
        for j, i in pairs.items():
            groups.setdefault(da[i] if previous_side else db[j], []).append((j, i))
        for group in groups.values():
            if len(group) > 1:
                desired = sorted(j for j, _ in group)
                previous = sorted(i for _, i in group)
                pairs.update(zip(desired, previous))
    return pairs


def _flags(a: list[Any], b: list[Any]) -> dict[int, int]:
    """Flags matched by name, when the name is found once on each side."""
    names_a: dict[str, list[int]] = {}
    names_b: dict[str, list[int]] = {}
    for i, entry in enumerate(a):
        name = flag_name(entry)
        if name:
            names_a.setdefault(name, []).append(i)
    for j, entry in enumerate(b):
        name = flag_name(entry)
        if name:
            names_b.setdefault(name, []).append(j)
    pairs: dict[int, int] = {}
    for name, (j, *more_b) in names_b.items():
        found = names_a.get(name)
        if found and len(found) == 1 and not more_b:
            pairs[j] = found[0]
    return pairs


def _aligned(a: list[Any], b: list[Any], gap_a: list[int], gap_b: list[int], da: list[str],
             db: list[str]) -> dict[int, int] | None:
    """The entries gap_a and gap_b name aligned in order, as a weighted longest common
    subsequence: as many equal pairs as can be, then the closest pairs, then as many entries of
    a single value as can be, by position. None when there are too many to score."""
    if not gap_a or not gap_b:
        return {}
    if len(gap_a) * len(gap_b) > _MAX_GAP_CELLS:
        return None
    la = [leaves(a[i]) if type(a[i]) in (dict, list) else None for i in gap_a]
    lb = [leaves(b[j]) if type(b[j]) in (dict, list) else None for j in gap_b]
    sizes_a, sizes_b = [sum(x.values()) if x else 0 for x in la], [sum(x.values()) if x else 0 for x in lb]
    if min(len(gap_a) * sum(sizes_b), len(gap_b) * sum(sizes_a)) > _GAP_LEAVES:
        return None
    shapes_a, shapes_b = [_single(x) for x in la], [_single(x) for x in lb]
    ordered_a: dict[int, Leaves] = {}
    ordered_b: dict[int, Leaves] = {}
    equal = _SCALE * _SCALE * (min(len(gap_a), len(gap_b)) + 1)  # more than all close pairs together
    low = SIMILAR / (2 - SIMILAR)  # Dice >= SIMILAR needs the smaller side at least this share of the larger
    score = [[0] * len(gap_b) for _ in gap_a]
    for x, left in enumerate(la):
        row = score[x]
        for y, right in enumerate(lb):
            if da[gap_a[x]] == db[gap_b[y]]:
                row[y] = equal
            elif shapes_a[x] is not None and shapes_a[x] == shapes_b[y]:
                row[y] = _SCALAR_PAIR
            elif left is not None and right is not None and (
                    min(sizes_a[x], sizes_b[y]) >= low * max(sizes_a[x], sizes_b[y])):
                found = similarity(left, right)
                if found >= SIMILAR:
                    ordered = similarity(_cached(ordered_a, a, gap_a[x]), _cached(ordered_b, b, gap_b[y]))
                    row[y] = round(found * (_SCALE - 1)) * _SCALE + round(ordered * (_SCALE - 1)) + 1
    best = [[0] * (len(gap_b) + 1) for _ in range(len(gap_a) + 1)]  # best[x][y]: of the gap's x: and y:
    for x in range(len(gap_a) - 1, -1, -1):
        row, below = best[x], best[x + 1]
        for y in range(len(gap_b) - 1, -1, -1):
            paired = score[x][y] + below[y + 1] if score[x][y] else 0
            row[y] = max(paired, below[y], row[y + 1])
    pairs: dict[int, int] = {}
    x = y = 0
    while x < len(gap_a) and y < len(gap_b):
        if score[x][y] and score[x][y] + best[x + 1][y + 1] == best[x][y]:
            pairs[gap_b[y]] = gap_a[x]
            x, y = x + 1, y + 1
        elif best[x + 1][y] == best[x][y]:
            x += 1
        else:
            y += 1
    return pairs


def _cached(found: dict[int, Leaves], entries: list[Any], index: int) -> Leaves:
    """The leaves of an entry with list indices kept, made once."""
    if index not in found:
        found[index] = leaves(entries[index], indexed=True)
    return found[index]


def _single(found: Leaves | None) -> str | None:
    """What makes two entries of one value each a value changed in place, as two scalars are:
    "=" for a scalar, the path of the one leaf of a list or map that has one (`{"port": 80}`
    and `{"port": 81}` share none, yet one is the other changed); None for any other entry."""
    if found is None:
        return "="
    if len(found) == 1:
        ((leaf, count),) = found.items()
        return str(leaf[0]) if count == 1 else None
    return None


def _moved(a: list[Any], b: list[Any], pairs: dict[int, int]) -> dict[int, int]:
    """Entries left over that moved and changed, each paired with the one it is closest to,
    best pair first."""
    taken = set(pairs.values())
    rest_a = [i for i in range(len(a)) if i not in taken and type(a[i]) in (dict, list)][:_MAX_MOVED]
    rest_b = [j for j in range(len(b)) if j not in pairs and type(b[j]) in (dict, list)][:_MAX_MOVED]
    if not rest_a or not rest_b:
        return {}
    la, lb = {i: leaves(a[i]) for i in rest_a}, {j: leaves(b[j]) for j in rest_b}
    scored = sorted((-similarity(la[i], lb[j]), j, i) for i in rest_a for j in rest_b)
    out: dict[int, int] = {}
    for score, j, i in scored:
        if -score < SIMILAR:
            break
        if j not in out and i not in taken:
            out[j] = i
            taken.add(i)
    return out
