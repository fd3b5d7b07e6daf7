"""What each impact rule found, as typed values: one class per impact kind (`impacts.ImpactKind`,
its `kind`), and the value types they share. The impact kinds' counterpart of facts.py.

A class here is made where core/impact/ finds the impact and carried by `model.Impact`
(`facts`); render/words/impact.py words it, the JSON plan carries it beside the words, and
the schema describes each kind's facts from these classes (`scripts/gen-schema-codes`). A
class holds no sentence: the objects (`ResourceRef`), the numbers, the names of what reads or
routes to what, and the rule it rests on as an enum.
"""
from __future__ import annotations

import enum

from msgspec import Struct

from deployah_plan.impacts import ImpactFacts, ImpactKind
from deployah_plan.model import ResourceRef, SsaReason


class Strategy(enum.Enum):
    """How a workload's controller replaces its pods (its strategy type)."""

    ROLLING_UPDATE = "RollingUpdate"
    RECREATE = "Recreate"
    ON_DELETE = "OnDelete"


class Rollout(ImpactFacts, frozen=True, kw_only=True):
    """A workload's pod template changes: its strategy (the values in effect, defaults filled
    in, and as resolved to pods against `replicas`), the replica counts and the HPA that scales
    it, the checksum annotations that changed, and the changed ConfigMaps and Secrets it reads."""

    strategy: Strategy
    paused: bool = False  # a paused Deployment
    max_surge: int | str | None = None  # as given, or the default
    max_unavailable: int | str | None = None  # as given, or the default (a StatefulSet's: None, one pod)
    surge_pods: int | None = None  # resolved against `replicas` (maxSurge rounds up)
    unavailable_pods: int | None = None  # resolved (rounds down; 1 when both are 0)
    partition: int = 0  # a StatefulSet's rollingUpdate.partition
    replicas: int | None = None  # the count the rollout runs with (None: a DaemonSet, one per node; an HPA's, unknown)
    chart_replicas: int | None = None  # spec.replicas in the chart
    live_replicas: int | None = None
    pods: int | None = None  # the pods that restart now
    # The workload's only pod restarts and none serves meanwhile: a StatefulSet of one replica
    # (its RollingUpdate has no surge: the controller deletes the pod, then creates it anew).
    only_pod_down: bool = False
    hpa: ResourceRef | None = None
    hpa_min: int | None = None  # as the HPA gives them (minReplicas defaults to 1)
    hpa_max: int | None = None
    # The checksum annotations of the template that changed because a key they hash really changes.
    checksums: tuple[str, ...] = ()
    reads: tuple[ResourceRef, ...] = ()  # the ConfigMaps and Secrets with a key it reads that really changes
    # Values the chart regenerates on every render (core/regenerated.py): `regenerated`, the
    # template changes by nothing else (a `checksum/secret` of a random password), so whether
    # its pods restart depends on whether the real upgrade regenerates them too (a `lookup`
    # keeps the stored value); the checksums and configs whose only changes are such values,
    # apart from the others.
    regenerated: bool = False
    regenerated_checksums: tuple[str, ...] = ()
    regenerated_reads: tuple[ResourceRef, ...] = ()
    # Checksum annotations that changed while no key they plausibly hash (core/impact/config.py)
    # really changes, and not only by regeneration either: what moved them is not new config.
    # What they hash (ConfigMaps and Secrets), and of those the ones whose metadata changes (a
    # template hashed whole carries the chart's labels) or whose data changes only in keys the
    # pods do not read.
    other_checksums: tuple[str, ...] = ()
    hashed: tuple[ResourceRef, ...] = ()
    hashed_metadata: tuple[ResourceRef, ...] = ()
    hashed_unread: tuple[ResourceRef, ...] = ()


class Restart(Rollout, frozen=True, kw_only=True):
    """A pod-template change that replaces the pods now."""

    kind = ImpactKind.RESTART


class DeferredRestart(Rollout, frozen=True, kw_only=True):
    """A pod-template change that restarts no pod now (OnDelete, paused, a partition at or above
    the replica count, no replica)."""

    kind = ImpactKind.DEFERRED_RESTART


class NoRestart(ImpactFacts, frozen=True, kw_only=True):
    """A workload updated outside its pod template only; its spec.replicas before and after."""

    kind = ImpactKind.NO_RESTART
    replicas_before: int | None
    replicas_after: int | None


class Reads(enum.Enum):
    """How a container reads a ConfigMap or Secret."""

    ENV = "env"  # env[].valueFrom: one variable
    ENV_FROM = "envFrom"  # every key as a variable
    VOLUME = "volume"  # a configMap or secret volume, mounted
    PROJECTED = "projected"  # a source of a projected volume, mounted
    SUB_PATH = "subPath"  # a mount with subPath or subPathExpr


class Read(Struct, frozen=True, kw_only=True):
    """One way a container reads the config: `name` the variable (env) or the mount path."""

    container: str
    how: Reads
    name: str = ""


class Consumer(Struct, frozen=True, kw_only=True):
    """A workload that reads the config, and each way it does."""

    workload: ResourceRef
    reads: tuple[Read, ...]


class ConfigUnreached(ImpactFacts, frozen=True, kw_only=True):
    """A ConfigMap's or Secret's data changes (names only, never values) and no pod template
    that reads it does: its consumers."""

    kind = ImpactKind.CONFIG_UNREACHED
    consumers: tuple[Consumer, ...]
    # Its data changes only by values the chart regenerates on every render: the real upgrade
    # may keep the stored ones (a `lookup`), and then nothing changes.
    regenerated: bool = False


class ResetRule(enum.Enum):
    """What the apply does to spec.replicas an HPA scales."""

    CLIENT_SIDE = "client-side"  # patched to the chart's count on every deploy
    SSA_CONFLICT = "ssa-conflict"  # another field manager owns it now: the upgrade fails
    SSA_FORCED = "ssa-forced"  # --force-conflicts sets the chart's count
    SSA_SAME = "ssa-same"  # the live count is the chart's: nothing moves now
    SSA_LATER = "ssa-later"  # conflicts once the HPA has moved it


class ReplicasReset(ImpactFacts, frozen=True, kw_only=True):
    """The chart sets spec.replicas on a workload an HPA scales."""

    kind = ImpactKind.REPLICAS_RESET
    rule: ResetRule
    chart_replicas: int
    live_replicas: int | None
    hpa: ResourceRef
    hpa_live: bool  # found only in the live state, not in the release
    hpa_min: int | None
    hpa_max: int | None
    ssa: SsaReason | None = None  # what server-side apply does with the drifted spec.replicas (ssa-conflict)
    managers: tuple[str, ...] = ()  # the field managers that own it


class TrafficUnmatched(ImpactFacts, frozen=True, kw_only=True):
    """A Service's selector no longer matches the pods of any workload of the release."""

    kind = ImpactKind.TRAFFIC_UNMATCHED
    matched_before: tuple[ResourceRef, ...]


class TrafficMoved(ImpactFacts, frozen=True, kw_only=True):
    """A Service's selector matches other workloads than before."""

    kind = ImpactKind.TRAFFIC_MOVED
    matched_before: tuple[ResourceRef, ...]
    matched_after: tuple[ResourceRef, ...]


class SelectorLabel(Struct, frozen=True, kw_only=True):
    """A pair of a Service's new selector that the running pods do not carry: the value they
    carry (None: they lack the label), as the first of them does, and the one selected."""

    key: str
    running: str | None
    selected: str


class TrafficGap(ImpactFacts, frozen=True, kw_only=True):
    """A Service's new selector matches none of the pods running before the upgrade: Helm
    applies Services before the workloads (its install order), so it has no endpoints from then
    until new pods it matches are ready. `running`: the workloads whose running pods it matched
    and stops matching (their live pod templates when read: `live`); `labels`: why; `serving`:
    the workloads whose new pods it matches; `waiting`: those of them whose pods do not restart
    now (OnDelete, paused, a partition), so the gap lasts until their pods are deleted or it is
    resumed."""

    kind = ImpactKind.TRAFFIC_GAP
    running: tuple[ResourceRef, ...]
    labels: tuple[SelectorLabel, ...]
    serving: tuple[ResourceRef, ...]
    waiting: tuple[ResourceRef, ...] = ()
    live: bool = False


class PortRule(enum.Enum):
    REMOVED = "removed"
    TARGET_PORT = "target-port"  # its targetPort changes


class Port(Struct, frozen=True, kw_only=True):
    """A Service port as its clients use it (port and protocol), and what changes on it."""

    port: int | str
    protocol: str
    rule: PortRule
    target_before: int | str | None = None
    target_after: int | str | None = None


class TrafficPort(ImpactFacts, frozen=True, kw_only=True):
    """A Service's ports removed, or their targetPort changed."""

    kind = ImpactKind.TRAFFIC_PORT
    ports: tuple[Port, ...]


class RouteKind(enum.Enum):
    DEFAULT_BACKEND = "default-backend"  # an Ingress's default backend
    INGRESS_PATH = "ingress-path"  # an Ingress rule's host (may be empty: any host) and path
    HOSTNAME = "hostname"  # an HTTPRoute's hostname
    RULE = "rule"  # an HTTPRoute rule's match: method, path, header names


class Route(Struct, frozen=True, kw_only=True):
    route: RouteKind
    host: str = ""
    path: str = ""
    method: str = ""
    headers: tuple[str, ...] = ()


class TrafficRoute(ImpactFacts, frozen=True, kw_only=True):
    """An Ingress's or HTTPRoute's routes that stop serving: the object deleted or the routes
    removed."""

    kind = ImpactKind.TRAFFIC_ROUTE
    deleted: bool
    routes: tuple[Route, ...]


class DataCrd(ImpactFacts, frozen=True, kw_only=True):
    """A CustomResourceDefinition is deleted: the kind and group of its custom resources (None
    when it does not say them)."""

    kind = ImpactKind.DATA_CRD
    resource_kind: str | None
    group: str | None


class PvcShrink(ImpactFacts, frozen=True, kw_only=True):
    """A PersistentVolumeClaim asks for less storage."""

    kind = ImpactKind.DATA_PVC_SHRINK
    storage_before: str
    storage_after: str


class Expansion(enum.Enum):
    """Whether the claim's StorageClass allows volume expansion."""

    NOT_READ = "not-read"  # the StorageClass was not read
    ALLOWED = "allowed"
    REFUSED = "refused"


class PvcExpand(ImpactFacts, frozen=True, kw_only=True):
    """A PersistentVolumeClaim asks for more storage: its StorageClass (the claim's, or the
    default; None: neither known) and whether it allows expansion."""

    kind = ImpactKind.DATA_PVC_EXPAND
    storage_before: str
    storage_after: str
    storage_class: str | None
    expansion: Expansion


class PvcLeft(ImpactFacts, frozen=True, kw_only=True):
    """A StatefulSet with volumeClaimTemplates is deleted: its claims (TEMPLATE-NAME-ORDINAL for
    each template and each of `replicas` ordinals) stay, or go with a whenDeleted: Delete
    retention policy."""

    kind = ImpactKind.DATA_PVC_LEFT
    templates: tuple[str, ...]
    replicas: int
    claims_deleted: bool


def impact_facts_class(kind: ImpactKind) -> type[ImpactFacts] | None:
    """The facts class of an impact kind; None for a kind with none (a newer version's)."""
    return _BY_KIND.get(kind)


def _impact_classes(base: type[ImpactFacts]) -> list[type[ImpactFacts]]:
    out = []
    for cls in base.__subclasses__():
        out += [cls, *_impact_classes(cls)]
    return out


_BY_KIND: dict[ImpactKind, type[ImpactFacts]] = {
    cls.kind: cls for cls in _impact_classes(ImpactFacts) if "kind" in vars(cls)}

__all__ = ["ConfigUnreached", "Consumer", "DataCrd", "DeferredRestart", "Expansion", "NoRestart", "Port",
           "PortRule", "PvcExpand", "PvcLeft", "PvcShrink", "Read", "Reads", "ReplicasReset", "ResetRule",
           "Restart", "Rollout", "Route", "RouteKind", "SelectorLabel", "Strategy", "TrafficGap", "TrafficMoved",
           "TrafficPort", "TrafficRoute", "TrafficUnmatched", "impact_facts_class"]
