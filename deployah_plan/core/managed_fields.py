"""Reading a live object's `metadata.managedFields`: who owns which field (Kubernetes' FieldsV1).

Pure. One walker serves drift (core/drift.py: which managers own a drifted field) and Helm 4's
server-side apply (core/server_side.py: conflicts, and the fields that stay).

A FieldsV1 set is a tree of keys: `f:name` a map field, `k:{"name":"app"}` a keyed list entry
(by its key fields, in compact JSON), `v:"x"` a set member (by its value), `i:0` an atomic
list's entry by position, `.` the node itself (a map or an entry as such, not its fields). An
empty set at a key is a leaf: the manager owns the whole value there (a scalar, or an atomic
list or map).
"""
from __future__ import annotations

import json
from typing import Any, Mapping, NamedTuple

from deployah_plan.core.diff import same
from deployah_plan.core.list_keys import KEY_DEFAULTS
from deployah_plan.model import FieldChange, FieldOp
from deployah_plan.pointer import escape, tokens

HELM_MANAGERS = frozenset({"helm"})  # the field manager Helm applies and patches with
UNNAMED = "(unnamed manager)"


def key_matches(entry: Any, key: Mapping[str, Any]) -> bool:
    """Whether a list entry has the key a change names. A key field with a default that the
    key leaves out is at its default (a port declared without a protocol is the TCP one);
    only lists keyed by such a field have entries that hold it."""
    return isinstance(entry, dict) and all(
        same(entry.get(f, KEY_DEFAULTS.get(f)), key.get(f, KEY_DEFAULTS.get(f))) for f in {*key, *KEY_DEFAULTS})


def field_key(entry: str, key: Mapping[str, Any]) -> bool:
    """Whether a FieldsV1 entry (`k:{...}`) names the list entry with this key."""
    if not entry.startswith("k:"):
        return False
    try:
        parsed = json.loads(entry[2:])
    except ValueError:
        return False
    return isinstance(parsed, dict) and key_matches(parsed, key)


class Reached(NamedTuple):
    """Where a FieldsV1 set meets a change's path: the managedFields path reached (its keys:
    `f:spec`, `k:{"name":"app"}`), the set's node there, and whether it is a whole value above
    the path (a leaf before the path ends)."""

    at: tuple[str, ...]
    node: Any
    above: bool


def walk(fields: Any, change: FieldChange, node_owns_all: bool = False) -> Reached | None:
    """Walk a FieldsV1 set down the change's path. None: the set holds nothing at or above the
    path. `node_owns_all`: a node that holds only itself (`{".": {}}`) counts as owning the
    whole value there, as a leaf does (how drift reads ownership)."""
    keys = dict(change.keys)
    node, prefix = fields, ""
    at: list[str] = []
    for token in tokens(change.path):
        if not isinstance(node, dict):
            return None
        if not node or (node_owns_all and set(node) == {"."}):
            return Reached(tuple(at), node, True)
        prefix += "/" + escape(token)
        name: str | None
        if prefix in keys:
            name = next((k for k in node if field_key(k, keys[prefix])), None)
        elif f"f:{token}" in node:
            name = f"f:{token}"
        elif token.isdigit() and f"i:{token}" in node:
            name = f"i:{token}"
        else:  # a set member, by its value (sets hold scalars, in compact JSON)
            member = "v:" + json.dumps(change.before if change.op is FieldOp.REMOVE else change.after,
                                       separators=(",", ":"))
            name = member if member in node else None
        if name is None:
            return None
        node = node[name]
        at.append(name)
    return Reached(tuple(at), node, False)


class Manager(NamedTuple):
    """One managedFields entry that owns something."""

    name: str
    applies: bool  # its operation is Apply (else Update)
    fields: dict[str, Any]


def managers(live: Mapping[str, Any]) -> tuple[list[Manager], list[Manager]]:
    """The live object's managers other than Helm with the fields each owns; and Helm's
    entries. An entry with no fields owns nothing and is left out."""
    others: list[Manager] = []
    helm: list[Manager] = []
    for entry in (live.get("metadata") or {}).get("managedFields") or []:
        fields = entry.get("fieldsV1") if isinstance(entry, dict) else None
        if isinstance(fields, dict) and fields:
            name = str(entry.get("manager") or UNNAMED)
            (helm if name in HELM_MANAGERS else others).append(Manager(name, entry.get("operation") == "Apply", fields))
    return others, helm
