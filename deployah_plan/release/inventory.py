"""The releases in a scope, as `helm list` finds them: the newest revision of each release
whose status is deployed, failed or pending.

With helm's storage in the cluster (secrets, configmaps, sql) helm itself lists them
(`helm list -o json`). The memory driver's `helm list` asks for a cluster first (it checks
that one is reachable), so with HELM_DRIVER=memory the files helm would load
(HELM_MEMORY_DRIVER_DATA, a path list) are read here, as helm's memory driver reads them, and
`-l` is matched against the labels helm's drivers keep (name, owner, status, version) and the
release's own.
"""
from __future__ import annotations

import os
from typing import Any, Mapping

from msgspec import Struct

from deployah_plan.startup import lazy
from deployah_plan.errors import UsageError
from deployah_plan.release import helm_storage
from deployah_plan.sources.helm import Helm

LISTED = ("deployed", "failed", "pending-install", "pending-upgrade", "pending-rollback")
# The names `helm upgrade` accepts (pkg/chartutil ValidateReleaseName): a stored record may hold
# any other, but an upgrade of it fails before anything is rendered.
_RELEASE_NAME = lazy(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
RELEASE_NAME_MAX = 53


def valid_release_name(name: str) -> bool:
    return len(name) <= RELEASE_NAME_MAX and _RELEASE_NAME.fullmatch(name) is not None


class Listed(Struct, frozen=True):
    """One release in scope: its newest revision's number and status, and its chart."""

    name: str
    namespace: str
    revision: int
    status: str
    chart: str  # name-version, as helm list prints it


def memory_driver() -> bool:
    return os.environ.get("HELM_DRIVER", "").lower() == "memory"


def releases(helm: Helm, namespace: str | None, selector: str | None) -> list[Listed]:
    """The releases in `namespace` (None: every namespace) that `selector` matches, sorted by
    namespace, then name."""
    if memory_driver():
        found = _memory(namespace, selector)
    else:
        found = [Listed(str(item.get("name", "")), str(item.get("namespace", "")), int(item.get("revision") or 0),
                        str(item.get("status", "")), str(item.get("chart", ""))) for item in helm.releases(namespace, selector)]
    return sorted(found, key=lambda item: (item.namespace, item.name))


def _memory(namespace: str | None, selector: str | None) -> list[Listed]:
    match = parse_selector(selector or "")
    newest: dict[tuple[str, str], dict[str, Any]] = {}
    for record in (r for r in helm_storage.memory_releases(os.environ) if isinstance(r, dict)):
        key = (str(record.get("namespace") or "default"), str(record.get("name", "")))
        if key[1] and (key not in newest or int(record.get("version") or 0) > int(newest[key].get("version") or 0)):
            newest[key] = record
    out = []
    for (ns, name), record in newest.items():
        status = str((record.get("info") or {}).get("status", ""))
        chart = (record.get("chart") or {}).get("metadata") or {}
        labels = {**{str(k): str(v) for k, v in (record.get("labels") or {}).items()},
                  "name": name, "owner": "helm", "status": status, "version": str(record.get("version") or 0)}
        if (namespace is None or ns == namespace) and status in LISTED and match(labels):
            out.append(Listed(name, ns, int(record.get("version") or 0), status,
                              f"{chart.get('name', '')}-{chart.get('version', '')}"))
    return out


_TERM = lazy(r"^\s*(?:(?P<not>!)\s*(?P<absent>[\w./-]+)|(?P<key>[\w./-]+)\s*(?:(?P<op>==|=|!=)\s*(?P<value>[\w.-]*)"
                   r"|\s+(?P<set>in|notin)\s*\((?P<values>[^)]*)\))?)\s*$")


def _terms(selector: str) -> list[str]:
    """The selector's terms: commas split them, except inside a set's parentheses."""
    terms, depth, start = [], 0, 0
    for i, char in enumerate(selector):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            terms.append(selector[start:i])
            start = i + 1
    terms.append(selector[start:])
    return [term for term in terms if term.strip()]


def parse_selector(selector: str) -> Any:
    """A label selector (Kubernetes' syntax: k=v, k==v, k!=v, k in (a,b), k notin (a,b), k, !k)
    as a predicate over a label map; a one-line error for one it cannot read."""
    checks = []
    for term in _terms(selector):
        found = _TERM.match(term)
        if found is None:
            raise UsageError(f"cannot read the label selector term {term.strip()!r}",
                             "write -l as key=value, key!=value, key in (a,b), key notin (a,b), key or !key, "
                             "comma-separated")
        checks.append(found.groupdict())

    def matches(labels: Mapping[str, str]) -> bool:
        for term in checks:
            if term["absent"]:
                if term["absent"] in labels:
                    return False
                continue
            key, op, value = term["key"], term["op"], term["value"]
            if term["set"]:
                values = {v.strip() for v in term["values"].split(",") if v.strip()}
                if (labels.get(key) in values) != (term["set"] == "in") or (term["set"] == "in" and key not in labels):
                    return False
            elif op in ("=", "=="):
                if labels.get(key) != value:
                    return False
            elif op == "!=":
                if labels.get(key) == value:
                    return False
            elif key not in labels:
                return False
        return True
    return matches


def selector_keys(selector: str) -> set[str]:
    """The label keys a selector (parse_selector's syntax) names."""
    found = (_TERM.match(term) for term in _terms(selector))
    return {str(term.group("absent") or term.group("key")) for term in found if term is not None}


__all__ = ["LISTED", "Listed", "RELEASE_NAME_MAX", "memory_driver", "parse_selector", "releases", "selector_keys", "valid_release_name"]
