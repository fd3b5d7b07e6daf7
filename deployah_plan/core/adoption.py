"""An existing object the chart now renders, which Helm adopts (core/ownership.py says when: it
carries this release's ownership metadata, or `--take-ownership`): what Helm's apply changes in
the live object. Pure: the caller hands in the live object read and the desired one.

Helm applies an adopted object as an update whose *previous* state is the desired object
itself: `requireAdoption` and `existingResourceConflict` (pkg/action/validate.go) return a copy
of the target's resource info, which upgrade appends to the release's current objects and
install passes as the originals (pkg/action/upgrade.go, install.go). Before applying, Helm sets
its ownership metadata on every target (`setMetadataVisitor`: label
`app.kubernetes.io/managed-by: Helm`, annotations `meta.helm.sh/release-name` and
`-namespace`). So, by apply method (pkg/kube/client.go `update`, `createPatch`):

- **Client-side, built-in kinds:** a three-way strategic merge patch with the original equal
  to the desired object: no deletions, and every field the chart declares set to its value.
  Fields only the live object has stay (server defaults, another tool's labels, list entries
  by key); an atomic list is replaced whole.
- **Client-side, custom resources:** a JSON merge patch from the original to the desired
  object, that is from the desired object to itself: empty. The live object is left as it is.
  Only an install with `--take-ownership` asks for a three-way JSON merge patch for them
  (`ClientUpdateOptionThreeWayMergeForUnstructured`, `UpdateThreeWayMerge` in Helm 3): then
  every declared field is set, a list replaced whole, and nothing deleted.
- **Server-side (Helm 4):** the desired object is applied with field manager `helm` over the
  live one (core/server_side.py): every declared field is set, and conflicts with the fields
  other managers own (`kubectl-client-side-apply`, `kubectl-edit`, `before-first-apply`, ...)
  fail the apply unless forced. A field Helm's own earlier apply set and the chart no longer
  sets is pruned, as on any apply; fields Helm never owned stay.
"""
from __future__ import annotations

from typing import Any, Mapping

from deployah_plan.core import server_side
from deployah_plan.core.diff import declared_surface, diff_objects
from deployah_plan.core.drift import is_custom
from deployah_plan.core.managed_fields import managers
from deployah_plan.core.ownership import stamped
from deployah_plan.facts import ForceReplace
from deployah_plan.model import Action, FieldChange, FieldOp, Ownership, ResourceChange, Warning, warn


def _merge_surface(declared: Any, live: Any) -> Any:
    """`live` as a JSON merge patch without deletions sees it: maps key by key, anything else whole."""
    if type(declared) is dict and type(live) is dict:
        return {k: _merge_surface(v, live[k]) for k, v in declared.items() if k in live}
    return live


def _helm_prunes(live: Mapping[str, Any], applied: Mapping[str, Any]) -> list[FieldChange]:
    """The fields an earlier apply of Helm's own set that the applied object no longer sets."""
    helm = managers(live)[1]
    out = []
    for change in diff_objects(server_side.without_managed_fields(live), applied):
        if change.op is FieldOp.REMOVE and not change.equivalent:
            if any(server_side.helm_owns(m, change) for m in helm):
                out.append(change)
    return out


def adopt(live: Mapping[str, Any], desired: Mapping[str, Any], release: str, namespace: str, ssa: bool,
          three_way_custom: bool, force_conflicts: bool) -> server_side.Applied:
    """What Helm's apply of the adopted object does to `live`: its field changes (live ->
    applied, as the apply makes them) and, server-side, its conflicts. `three_way_custom`: an
    install with --take-ownership, the one case a client-side apply merges a custom resource
    three ways."""
    applied = stamped(desired, release, namespace)
    if not ssa and is_custom(applied):
        if not three_way_custom:
            return server_side.Applied((), ())
        before: Mapping[str, Any] = _merge_surface(applied, live)
    else:
        before = declared_surface(applied, live)
    fields = [c for c in diff_objects(before, applied) if not c.equivalent]
    if not ssa:
        return server_side.Applied((), tuple(fields))
    return server_side.apply(live, applied, [*fields, *_helm_prunes(live, applied)], force_conflicts)


def force_replace_note(flag: str, server_side: bool, adopted: int = 0) -> Warning:
    """--force/--force-replace: each updated object is replaced (pkg/kube/client.go
    updateResource: helper.Replace instead of a patch). When the action updates objects
    server-side, Helm 4's Update refuses the pair before it applies anything (pkg/kube/client.go):

        if updateOptions.serverSideApply && updateOptions.forceReplace {
            return &Result{}, errors.New("invalid operation: cannot use server-side apply and force replace together")

    An upgrade or a rollback updates through it (`server_side`). An install creates its objects
    (Create, no replace) and is refused only when it adopts existing ones (`adopted`): those it
    updates, with both options (pkg/action/install.go performInstall):

        if len(toBeAdopted) == 0 && len(resources) > 0 {
            _, err = i.cfg.KubeClient.Create(resources, ...)
        } else if len(resources) > 0 {
            _, err = i.cfg.KubeClient.Update(toBeAdopted, resources,
                kube.ClientUpdateOptionForceReplace(i.ForceReplace),
                kube.ClientUpdateOptionServerSideApply(i.ServerSideApply, i.ForceConflicts), ...)

    where toBeAdopted is what `requireAdoption` (--take-ownership) or `existingResourceConflict`
    (objects already labelled for this release) found live."""
    fails = server_side or adopted > 0
    return warn(ForceReplace(flag=flag, server_side=fails, adopted=adopted), fails=fails)


def force_replace_on_install(notes: list[Warning], changes: list[ResourceChange]) -> list[Warning]:
    """The notes of a server-side install, with --force-replace's made a predicted failure when
    the install adopts live objects (force_replace_note says why); unchanged otherwise."""
    adopted = sum(1 for c in changes if c.action is Action.CREATE and c.ownership is Ownership.ADOPT)
    if not adopted:
        return notes
    return [force_replace_note(w.facts.flag, True, adopted) if isinstance(w.facts, ForceReplace) else w for w in notes]
