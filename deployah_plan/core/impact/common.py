"""What the impact rules share: their input, what they found, and how they read an object."""
from __future__ import annotations

from typing import Any, Callable, Mapping

from msgspec import Struct, field

from deployah_plan.model import ApplyMethod, DriftChange, HelmAction, Identity, Impact, ResourceRef, Warning

LiveOf = Callable[[ResourceRef], "Mapping[str, Any] | None"]

WORKLOADS = frozenset({("apps", "Deployment"), ("apps", "StatefulSet"), ("apps", "DaemonSet")})
WORKLOAD_KINDS = frozenset(kind for _, kind in WORKLOADS)
# Objects whose pods a Service may select: the workloads, and what else carries a pod template.
POD_OWNERS = WORKLOADS | {("apps", "ReplicaSet")}


class ImpactInput(Struct, frozen=True):
    """What the impact rules read, besides the plan's changes.

    `previous` and `desired` are the release's objects by identity (ref, object); `live_of`
    gives an object's live state when it was read (None otherwise); `live_objects` are every
    live object read (HPAs and StorageClasses outside the release count too). `apply_method`
    is this deploy's (None: Helm 3, client-side). `sources` names the template of each desired
    object (its `# Source:` path) where the render gave one: a checksum annotation may hash the
    ConfigMaps and Secrets of its own chart or subchart (core/impact/config.py). `failing` are
    the objects whose apply is predicted to fail (a server-side apply conflict, not forced):
    nothing of their change rolls out, and Helm deletes nothing (core/impact/__init__.py).
    `stopped`: a predicted failure stops Helm before it applies anything (codes.Code.stops):
    nothing rolls out at all.
    """

    action: HelmAction
    previous: Mapping[Identity, tuple[ResourceRef, Mapping[str, Any]]]
    desired: Mapping[Identity, tuple[ResourceRef, Mapping[str, Any]]]
    live_of: LiveOf | None = None
    live_objects: tuple[Mapping[str, Any], ...] = ()
    apply_method: ApplyMethod | None = None
    force_conflicts: bool = False
    drift: tuple[DriftChange, ...] = ()
    sources: Mapping[Identity, str] = {}
    failing: frozenset[Identity] = frozenset()
    stopped: bool = False


class Found(Struct):
    impacts: list[Impact] = field(default_factory=list)
    warnings: list[Warning] = field(default_factory=list)


def group_kind(ref: ResourceRef) -> tuple[str, str]:
    return (ref.group, ref.kind)


def dig(obj: Any, *path: str) -> Any:
    for part in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(part)
    return obj


def natural(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def int_or_string(value: Any) -> int | str | None:
    """An int-or-string field as given (anything else as its text, as it was always said)."""
    if value is None or isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return str(value)

def dicts(value: Any) -> list[Mapping[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []
