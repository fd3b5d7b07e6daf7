"""What the deploy does to running things: restarts, config that reaches nobody, replicas fought
over, traffic and data at risk.

Pure: derived once from the plan's own changes (their field changes and snapshots, never a
second diff), the desired and previous objects of the release (a ConfigMap's consumers and a
Service's pods may be objects that do not change), and, when it was read, the live state.
Each rule is Kubernetes' documented controller behaviour (docs/plan.md, "What the deploy does to
running things", quotes it):

- Deployments, StatefulSets and DaemonSets roll their pods if and only if `.spec.template`
  changes (Deployment concepts: "A Deployment's rollout is triggered if and only if the
  Deployment's Pod template is changed"). The strategy says how: a Deployment's RollingUpdate
  (maxSurge and maxUnavailable, 25% each by default; surge rounds up, unavailable down) or
  Recreate; a StatefulSet's RollingUpdate from the highest ordinal down to its `partition`,
  with no surge (each pod is deleted before its replacement is created, so a single replica
  serves nothing meanwhile), or OnDelete; a DaemonSet's RollingUpdate (maxUnavailable 1, maxSurge 0 by default) or OnDelete.
  A paused Deployment rolls nothing until it is resumed.
- A ConfigMap or Secret is read by a running pod as environment variables (never updated), as a
  mounted volume (updated after the kubelet's periodic sync) or through a `subPath` mount (never
  updated). So changed data reaches no running pod unless the consumer's pod template changes
  too, which a `checksum/...` annotation on the template is the common way of doing.
- The chart's `spec.replicas` on a workload an HPA scales: client-side apply (Helm 3, Helm 4
  with --server-side=false) patches the declared value over the live one on every deploy;
  server-side apply conflicts with the HPA controller, which owns the field once it has scaled
  (the upgrade fails unless --force-conflicts, which sets the declared value).
- A Service sends traffic to the pods its selector matches; ports and routes removed drop the
  traffic that used them.
- Deleting a CRD deletes every custom resource of its kind; a PVC's storage request may not
  shrink, and grows only with a StorageClass that allows volume expansion; deleting a
  StatefulSet leaves the PVCs of its volumeClaimTemplates unless its
  persistentVolumeClaimRetentionPolicy says Delete.

An object whose apply is predicted to fail (a server-side apply conflict without
--force-conflicts) changes nothing: the API server refuses the whole apply. Helm 4 applies the
release's objects one by one (pkg/kube/client.go `update`): a failed update does not stop the
others, which are applied, but once every object was tried it returns the errors before its
deletions, so no object leaving the release is deleted. So such an object's change and every
deletion have no impact; only the failure is said (and an HPA's replicas conflict, which is the
failure itself).

A predicted failure that stops Helm before it applies any object (codes.Code.stops: an ownership
check that fails, a manifest Helm cannot build, --force-replace on a server-side update) changes
nothing running: the same rule for every object, so no impact at all.

An object Helm adopts (an existing object the chart now renders) is an update of the live
object: its field changes are from the live object to what Helm applies (core/adoption.py).
"""
from __future__ import annotations

from typing import Iterable

from msgspec.structs import replace

from deployah_plan.core.impact.common import Found, ImpactInput
from deployah_plan.core.impact.config import consumers
from deployah_plan.core.impact.rollouts import template_changed, workloads
from deployah_plan.core.impact.storage import data
from deployah_plan.core.impact.traffic import traffic
from deployah_plan.impact_facts import ReplicasReset, ResetRule
from deployah_plan.impacts import ImpactKind
from deployah_plan.model import Action, HelmAction, Impact, Ownership, ResourceChange, Warning


def find_impact(changes: Iterable[ResourceChange], given: ImpactInput) -> tuple[list[Impact], list[Warning]]:
    """The impacts of a plan's changes, in a fixed order (rollouts, config, replicas, traffic,
    data; each in the plan's order), and the failures they predict."""
    if given.stopped:
        return [], []
    changes = [_adopted(c, given) for c in changes if not _refused(c, given)]
    found = Found()
    if given.action is not HelmAction.UNINSTALL:
        # An install changes no running thing but the live objects it adopts.
        updates = [c for c in changes if c.action is Action.UPDATE or given.action is not HelmAction.INSTALL]
        workloads(updates, given, found)
        traffic(updates, given, found)
    data(changes, given, found)
    found.impacts = [i for i in found.impacts if i.resource.identity not in given.failing
                     or (isinstance(i.facts, ReplicasReset) and i.facts.rule is ResetRule.SSA_CONFLICT)]
    order = {kind: n for n, kind in enumerate(ImpactKind)}
    # Within a kind, the plan's order; an object the plan does not change (a workload whose
    # replicas an HPA fights over, a Service) keeps the manifest's order, after them.
    position = {c.resource.identity: n for n, c in enumerate(changes)}
    found.impacts.sort(key=lambda item: (order[item.kind], position.get(item.resource.identity, len(changes))))
    return found.impacts, found.warnings


def _adopted(change: ResourceChange, given: ImpactInput) -> ResourceChange:
    """An object Helm adopts is an update of the live object (its fields: live -> applied)."""
    live = given.live_of(change.resource) if given.live_of and change.ownership is Ownership.ADOPT else None
    return change if live is None else replace(change, action=Action.UPDATE, before=live)


def _refused(change: ResourceChange, given: ImpactInput) -> bool:
    """A change that does not happen because an apply fails: the object's own, or a deletion."""
    return bool(given.failing) and (change.resource.identity in given.failing or change.action is Action.DELETE)


__all__ = ["ImpactInput", "consumers", "find_impact", "template_changed"]
