"""Reading the live state for a release command: whether to read it at all, reading the
kinds a plan needs, and --require-cluster. The reading itself is sources/cluster.py."""
from __future__ import annotations

import os

from deployah_plan.errors import LiveStateError, UsageError
from deployah_plan.live_snapshot import KindRef, LiveSnapshot
from deployah_plan.sources.cluster import read_live
from deployah_plan.sources.kubeconfig import ClusterSettings

Scope = list[tuple[str, str, str]]  # (apiVersion, kind, namespace) to read


def offline() -> bool:
    """The memory driver is the offline release store: there is no cluster to ask."""
    return os.environ.get("HELM_DRIVER", "").lower() == "memory"


def skipped_reason(no_drift: bool, require_cluster: bool, settings: ClusterSettings) -> str:
    """Why the live state is not read ("" when it is); refuses what --require-cluster forbids."""
    if no_drift and require_cluster:
        raise UsageError("--no-drift and --require-cluster contradict each other", "drop one of them")
    reason = ""
    if no_drift:
        reason = "--no-drift"
    elif offline() and not settings.kubeconfig and not settings.api_server:
        reason = "the release store is offline (HELM_DRIVER=memory) and no cluster is configured"
    if reason and require_cluster:
        raise LiveStateError(f"--require-cluster: the live state is not read ({reason})",
                             "point helm at the cluster (kubeconfig, HELM_KUBECONTEXT), or drop --require-cluster")
    return reason


def read(settings: ClusterSettings, scope: Scope) -> LiveSnapshot:
    return read_live(settings, [(KindRef(api_version, kind), namespace) for api_version, kind, namespace in scope])


def merge(first: LiveSnapshot, then: LiveSnapshot) -> LiveSnapshot:
    """Two reads as one snapshot; unreachable if the second could not reach the cluster."""
    requests = first.requests + then.requests
    if not then.reachable:
        return LiveSnapshot(False, requests=requests, error=then.error)
    return LiveSnapshot(True, first.objects + then.objects, first.unreadable + then.unreadable, requests,
                        namespaced={**first.namespaced, **then.namespaced})


def required(live: LiveSnapshot | None, require_cluster: bool) -> LiveSnapshot | None:
    """The snapshot, unless --require-cluster and the cluster could not be reached."""
    if live is not None and not live.reachable and require_cluster:
        raise LiveStateError(f"--require-cluster: {live.error}",
                             "check the kube context and that the cluster is reachable, or drop --require-cluster")
    return live
