"""How Kubernetes matches list entries and compares quantities, per kind and field.

The table `deployah_plan/data/list_keys.json` is generated from Kubernetes' OpenAPI
definitions by `scripts/gen-list-keys` (see there for its shape). Here it is compiled once into
linked `Node`s, so the diff engine walks an object and its schema together with one dict
lookup per field.

List types are the ones server-side apply uses:
- `map`: entries are matched by their key fields (`x-kubernetes-list-map-keys`, or the older
  strategic-merge `patchMergeKey`): containers by name, ports by containerPort and protocol.
- `set`: entries are scalars whose order does not matter (finalizers).
- `atomic`: the list is one value (args, command, tolerations).
A list the table does not know (a custom resource) is "unkeyed": see the diff engine.
"""
from __future__ import annotations

import functools
import json
from typing import Any

from msgspec import Struct, field

from deployah_plan.data import read_bytes
from deployah_plan.kinds import group_of


class Node:
    """The schema of one object type: what each field holds. Unknown fields map to nothing."""

    __slots__ = ("fields", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self.fields: dict[str, Spec] = {}


class Spec(Struct):
    """What one field holds. `kind` is "q" (quantity), "o" (object), "m" (map) or "l" (list).

    For "o", `node` is the object's schema; for "m", `value` is the spec of every value; for
    "l", `list_type` is map/set/atomic, `keys` the key fields of a map list, and `value` the
    spec of each entry (an "o" spec, or None when nothing under the entries matters).
    """

    kind: str
    node: Node | None = None
    value: Spec | None = None
    list_type: str = ""
    keys: tuple[str, ...] = field(default=())


QUANTITY = Spec("q")
# Lists whose schema declares no keys but whose entries Kubernetes validation keeps unique by
# a field: matched by it, so a reader sees `versions[name=v1]` rather than a list replaced
# whole. A CRD's versions must have unique names (apiextensions validation: "Duplicate value").
_KEYED_BY_VALIDATION = {
    ("apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionSpec", "versions"): ("name",),
}
# A missing key field that Kubernetes defaults, so `ports` entries with and without
# `protocol: TCP` are the same entry.
KEY_DEFAULTS = {"protocol": "TCP"}


@functools.lru_cache(maxsize=1)
def _table() -> tuple[dict[str, Node], dict[tuple[str, str], Node]]:
    raw = json.loads(read_bytes("list_keys.json"))
    nodes = {name: Node(name) for name in raw["types"]}

    def value_spec(name: str | None) -> Spec | None:
        if name == "q":
            return QUANTITY
        node = nodes.get(name or "")
        return Spec("o", node=node) if node else None

    for name, fields in raw["types"].items():
        node = nodes[name]
        for field_name, entry in fields.items():
            spec: Spec | None
            if entry == "q":
                spec = QUANTITY
            elif entry[0] == "o":
                spec = value_spec(entry[1])
            elif entry[0] == "m":
                inner = value_spec(entry[1])
                spec = Spec("m", value=inner) if inner else None
            else:
                spec = Spec("l", value=value_spec(entry[3]), list_type=entry[1], keys=tuple(entry[2] or ()))
            if spec is not None and spec.kind == "l" and (name, field_name) in _KEYED_BY_VALIDATION:
                spec = Spec("l", value=spec.value, list_type="map", keys=_KEYED_BY_VALIDATION[(name, field_name)])
            if spec is not None:
                node.fields[field_name] = spec
    by_version: dict[str, Node] = {}
    by_group_kind: dict[tuple[str, str], Node] = {}
    for root, name in raw["roots"].items():
        by_version[root] = nodes[name]
        api_version, kind = root.split(" ")
        by_group_kind.setdefault((group_of(api_version), kind), nodes[name])
    return by_version, by_group_kind


def root(api_version: Any, kind: Any) -> Node | None:
    """The schema of a top-level object, by apiVersion and kind; another version of the same
    group and kind when this one is not in the table; None for kinds it does not know."""
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None
    by_version, by_group_kind = _table()
    return by_version.get(f"{api_version} {kind}") or by_group_kind.get((group_of(api_version), kind))

