"""Builders the planner's tests share: a manifest parsed, the object the API server would
return for it, and a plan made by the pure core from manifests and live objects.

Every builder speaks of release `shop` in namespace `shop`.
"""
from __future__ import annotations

from typing import Any, Mapping

from deployah_plan.core.planner import PlanRequest, make_plan
from deployah_plan.manifests import split_stream
from deployah_plan.model import Header, Plan
from deployah_plan.live_snapshot import LiveSnapshot
from deployah_plan.yamlkube import load_all

HELM = {"app.kubernetes.io/managed-by": "Helm"}
OWNED = {"meta.helm.sh/release-name": "shop", "meta.helm.sh/release-namespace": "shop"}


def obj(text: str) -> dict[str, Any]:
    """One manifest, parsed as the planner parses it."""
    (doc,) = load_all(text)
    value: dict[str, Any] = doc.value
    return value


def live_of(text: str, spec: Mapping[str, Any] | None = None, **meta: Any) -> dict[str, Any]:
    """What the API server would return for a manifest of the release: in namespace shop
    (unless it names one), with the server's bookkeeping and Helm's label and annotations.
    `spec` updates the spec (a scaled replica count); `meta` replaces metadata keys."""
    live = obj(text)
    metadata = live["metadata"]
    metadata.setdefault("namespace", "shop")
    metadata.update(uid="u-1", resourceVersion="42", generation=3, creationTimestamp="2025-01-01T00:00:00Z",
                    managedFields=[{"manager": "helm", "operation": "Update", "fieldsV1": {"f:metadata": {}}}])
    metadata["labels"] = {**metadata.get("labels", {}), **HELM}
    metadata["annotations"] = {**metadata.get("annotations", {}), **OWNED}
    metadata.update(meta)
    if spec:
        live.setdefault("spec", {}).update(spec)
    return live


def plan(previous: list[str] | None, desired: list[str], live: list[dict[str, Any]] | LiveSnapshot | None = None,
         **request: Any) -> Plan:
    """The plan of release shop from `previous` (None: an install) to `desired`, with the live
    objects read from the cluster (a list), a snapshot as given, or no live state (None)."""
    prev = split_stream("---\n".join(previous), "previous") if previous is not None else None
    want = split_stream("---\n".join(desired), "desired")
    snapshot = LiveSnapshot(True, tuple(live), requests=1) if isinstance(live, list) else live
    header = Header("shop", "shop", fresh_install=prev is None)
    return make_plan(PlanRequest(header, prev, want, live=snapshot, live_source="cluster" if live is not None else "",
                                 **request))
