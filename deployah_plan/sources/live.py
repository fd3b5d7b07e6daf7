"""The bounds of a live read and the check every live object gets, shared by the reader
(sources/cluster_reader.py) and its callers; what the read found is `live_snapshot.LiveSnapshot`.
"""
from __future__ import annotations

from typing import Any

__all__ = ["CONNECT_TIMEOUT", "PAGE_SIZE", "MAX_PAGES", "MAX_OBJECTS", "NOT_SERVED", "json_type", "object_problem"]

CONNECT_TIMEOUT = 3.0  # seconds to open a connection: an unreachable cluster fails fast
PAGE_SIZE = 500  # objects per LIST page, as kubectl asks
MAX_PAGES = 200  # pages of one LIST followed at most (100,000 objects at PAGE_SIZE)
MAX_OBJECTS = 100_000  # objects of one LIST kept at most, whatever the server's page size
NOT_SERVED = "not served by the cluster"


# The metadata the plan reads from a live object, and the JSON type Kubernetes gives each
# (ObjectMeta): null is an empty value, as Go's JSON decoder reads it.
_STRINGS = ("name", "namespace")
_STRING_MAPS = ("labels", "annotations")
_LISTS = ("ownerReferences", "managedFields")


def json_type(value: Any) -> str:
    """The JSON type of a decoded value, for a message that must not name the value itself (a
    YAML timestamp is a string once the YAML is JSON, as client-go reads it)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "a list"
    return "a mapping" if isinstance(value, dict) else "a string"


def object_problem(value: Any) -> str:
    """Why `value` is not a live object the plan can read, or "" when it is: a mapping with an
    apiVersion, a kind, and metadata of the types Kubernetes gives them (a string name, a
    string namespace, labels and annotations that map strings to strings, ownerReferences and
    managedFields lists). A saved file and an API server's answer are held to this one check,
    so drift, ownership and the inputs record never meet a value of another type. The phrase
    names the field and the type found, never a value or a key (a hostile answer chose them)."""
    if not isinstance(value, dict):
        return "is not a Kubernetes object"
    for key in ("apiVersion", "kind"):
        if not isinstance(value.get(key), str) or not value[key]:
            return f"has no {key}"
    metadata = value.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        return f"has metadata that is {json_type(metadata)}, not a mapping"
    metadata = metadata or {}
    for key in _STRINGS:
        if metadata.get(key) is not None and not isinstance(metadata[key], str):
            return f"has metadata.{key} that is {json_type(metadata[key])}, not a string"
    if not metadata.get("name"):
        return "has no metadata.name"
    for key in _STRING_MAPS:
        entries = metadata.get(key)
        if entries is not None and not isinstance(entries, dict):
            return f"has metadata.{key} that is {json_type(entries)}, not a mapping"
        odd = next((v for v in (entries or {}).values() if not isinstance(v, str)), "")
        if not isinstance(odd, str):
            return f"has a value in metadata.{key} that is {json_type(odd)}, not a string"
    for key in _LISTS:
        if metadata.get(key) is not None and not isinstance(metadata[key], list):
            return f"has metadata.{key} that is {json_type(metadata[key])}, not a list"
    return ""
