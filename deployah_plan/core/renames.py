"""A delete and a create that are one object under a new name: each delete is paired with the
most similar create of the same group and kind, when close enough, so the plan shows a rename
(`ResourceChange.renamed_from`, `renamed_to`) rather than two unrelated changes.

Pure, like the rest of the core (core/planner.py calls it on the changes it made).
"""
from __future__ import annotations

import math
from typing import Any, Mapping

from msgspec.structs import replace

from deployah_plan.core.diff import leaves
from deployah_plan.model import Action, ResourceChange, ResourceRef


_RENAME_SIMILARITY = 0.8  # share of equal leaves of the content for a delete and a create to look like one object


def _content(obj: Mapping[str, Any]) -> dict[str, Any]:
    """What makes an object the same object under another name: its body (spec, data, rules...).
    Metadata moves with a rename (name, labels that carry it, a finalizer added), so it counts
    only for an object that has no body."""
    body = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata", "status")}
    if body:
        return body
    meta = obj.get("metadata") or {}
    return {key: meta.get(key) or {} for key in ("labels", "annotations")}


_RENAME_CANDIDATES = 32  # creates scored against one delete at most
_RENAME_BUDGET = 5_000_000  # leaves compared at most when scoring pairs, over the whole plan


def link_renames(changes: list[ResourceChange]) -> list[ResourceChange]:
    """Pairs each delete with the most similar create of the same group and kind, when close.

    Similarity is the share of equal leaves (`core.diff.similarity`), and pairs are taken
    greedily, best first. Scoring every delete against every create is quadratic, so:
    - objects are bucketed by group and kind, and each object's leaves are computed once;
    - equal content (a pure rename, the common case) pairs by digest, in order;
    - the rest are scored only against candidates that can reach the threshold: sizes within
      the ratio it allows, and sharing a leaf among the rarest ones (a prefix filter: two
      sets that are close enough must share one of those), rarest shared leaf first and at
      most _RENAME_CANDIDATES per delete;
    - at most _RENAME_BUDGET leaves are compared in all; past that, no more links are made.
    A likely rename is a hint, never a change, so a link missed among many look-alikes
    costs little, and the work stays linear in the size of the release.
    """
    creates = [c for c in changes if c.action is Action.CREATE and not c.resource.generate_name]
    deletes = [c for c in changes if c.action is Action.DELETE]
    buckets: dict[tuple[str, str], tuple[list[ResourceChange], list[ResourceChange]]] = {}
    for gone in deletes:
        buckets.setdefault((gone.resource.group, gone.resource.kind), ([], []))[0].append(gone)
    for new in creates:
        bucket = buckets.get((new.resource.group, new.resource.kind))
        if bucket is not None:
            bucket[1].append(new)
    linked: dict[int, ResourceRef] = {}
    budget = [_RENAME_BUDGET]
    for olds, news in buckets.values():
        if news:
            _link_bucket(olds, news, linked, budget)
    return [replace(c, likely_rename=linked[id(c)]) if id(c) in linked else c for c in changes]


def _link_bucket(olds: list[ResourceChange], news: list[ResourceChange], linked: dict[int, ResourceRef],
                 budget: list[int]) -> None:
    old_leaves = [frozenset(leaves(_content(c.before or {}))) for c in olds]
    new_leaves = [frozenset(leaves(_content(c.after or {}))) for c in news]
    # Equal content first: a score of 1 is the best there is, and greedy order is helm order.
    by_content: dict[frozenset[tuple[str, str]], list[int]] = {}
    for j, found in enumerate(new_leaves):
        by_content.setdefault(found, []).append(j)
    rest: list[int] = []
    for i, found in enumerate(old_leaves):
        same_content = by_content.get(found)  # each create sits in one list: taken ones are popped
        if same_content:
            j = same_content.pop(0)
            linked[id(olds[i])], linked[id(news[j])] = news[j].resource, olds[i].resource
        else:
            rest.append(i)
    open_new = [j for j, new in enumerate(news) if id(new) not in linked]
    # The prefix filter: order leaves by how rare they are, and index each set's rarest.
    frequency: dict[tuple[str, str], int] = {}
    for found in [*(old_leaves[i] for i in rest), *(new_leaves[j] for j in open_new)]:
        for leaf in found:
            frequency[leaf] = frequency.get(leaf, 0) + 1
    rank = {leaf: n for n, leaf in enumerate(sorted(frequency, key=lambda leaf: (frequency[leaf], leaf)))}

    def prefix(found: frozenset[tuple[str, str]]) -> list[int]:
        # Two sets with Dice >= t share at least t*|x|/(2-t) leaves, so their
        # |x| - that + 1 rarest leaves meet (one more for rounding).
        size = len(found)
        need = math.floor(_RENAME_SIMILARITY * size / (2 - _RENAME_SIMILARITY))
        return sorted(rank[leaf] for leaf in found)[: size - need + 2]

    index: dict[int, list[int]] = {}
    for j in open_new:
        for token in prefix(new_leaves[j]):
            index.setdefault(token, []).append(j)
    ratio = _RENAME_SIMILARITY / (2 - _RENAME_SIMILARITY)
    scored = []
    for i in rest:
        if budget[0] <= 0:
            break
        left = old_leaves[i]
        candidates: dict[int, None] = {}  # rarest shared leaf first, at most _RENAME_CANDIDATES
        looked = 0  # postings looked at, bounded too: sizes that cannot match are skipped
        for j in (j for token in prefix(left) for j in index.get(token, ())):
            looked += 1
            if looked > 8 * _RENAME_CANDIDATES or len(candidates) >= _RENAME_CANDIDATES:
                break
            small, large = sorted((len(left), len(new_leaves[j])))
            if small >= ratio * large - 1e-9:
                candidates[j] = None
        for j in candidates:
            right = new_leaves[j]
            budget[0] -= min(len(left), len(right)) + 1
            score = 2 * len(left & right) / (len(left) + len(right))
            if score >= _RENAME_SIMILARITY:
                scored.append((-score, olds[i].helm_order, news[j].helm_order, olds[i], news[j]))
    _take_best(scored, linked)


def _take_best(scored: list[tuple[float, int, int, ResourceChange, ResourceChange]], linked: dict[int, ResourceRef]) -> None:
    scored.sort(key=lambda item: item[:3])
    for _, _, _, gone, new in scored:
        if id(gone) not in linked and id(new) not in linked:
            linked[id(gone)], linked[id(new)] = new.resource, gone.resource
