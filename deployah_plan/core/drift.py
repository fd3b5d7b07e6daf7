"""Drift: the previous release as Helm stored it, against the objects really in the cluster.

Pure: the caller hands in parsed previous and desired objects and the live objects read.

Only the declared surface is compared (`core.diff.declared_surface`): fields the previous
manifest declares. Server defaults, `status` and bookkeeping are never drift, and keyed lists
are matched by the same keys as the diff engine, so a reordering server shows no drift.

What this deploy does to each drift, by apply method (helm-facts.md, field-level semantics):
- client-side apply, built-in kinds: a three-way strategic merge (previous, desired, live).
  A field the new chart declares is set to the declared value: the drift is *reverted*
  (*left* when the live value already is the new one). A field the new chart no longer
  declares, or declares null, is deleted: *removed*.
- client-side apply, custom resources (kinds Helm's scheme does not know: the schema table
  does not either): a JSON merge patch from the previous manifest to the new one, which never
  looks at the live object. Drift on a field the chart does not change is *left*; a changed
  field is set (*reverted*); a field the chart drops or sets to null is *removed*. Lists are
  replaced whole.
- server-side apply (Helm 4, when the release was installed with it): the declared state is
  applied with field manager `helm`. A declared field that another manager owns (its
  `managedFields`) and that differs is a *conflict*: the upgrade fails unless forced. A field
  no longer declared is removed when Helm alone owned it, *left* when another manager does.
- An object missing from the cluster is recreated when the chart still declares it (Helm
  creates what it cannot find), else left gone. An object leaving the release is deleted
  (*removed*), or *left* when the live object says `helm.sh/resource-policy: keep`.
- Unexpected objects (this release's ownership annotations, not in the previous release):
  adopted and set to the chart when the new chart declares them, else *left*.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from deployah_plan.core.diff import declared_surface, diff_objects, same
from deployah_plan.pointer import escape, tokens
from deployah_plan.core.ownership import kept_by_policy, release_of
from deployah_plan.core.list_keys import root
from deployah_plan.core.managed_fields import key_matches, managers, walk
from deployah_plan.kinds import group_of
from deployah_plan.model import (
    ApplyMethod, DriftChange, DriftEffect, DriftField, DriftKind, DriftReason, FieldChange, FieldOp, ResourceRef,
    SsaReason,
)

Identity = tuple[str, str, str, str]
_MISSING = object()


def live_identity(obj: Mapping[str, Any]) -> Identity:
    metadata = obj.get("metadata") or {}
    return (group_of(str(obj.get("apiVersion", ""))), str(obj.get("kind", "")),
            str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))


def index_live(objects: Iterable[Mapping[str, Any]]) -> dict[Identity, Mapping[str, Any]]:
    return {live_identity(obj): obj for obj in objects}


def find_live(index: Mapping[Identity, Mapping[str, Any]], ref: ResourceRef) -> Mapping[str, Any] | None:
    """The live object of `ref`; a custom kind the cluster serves cluster-scoped has no
    namespace live, whatever the manifest assumed."""
    found = index.get(ref.identity)
    if found is None and ref.namespace:
        found = index.get((ref.group, ref.kind, "", ref.name))
    return found


def is_custom(obj: Mapping[str, Any]) -> bool:
    """A kind Helm patches with a JSON merge patch: one its scheme (and our table) does not know."""
    return root(obj.get("apiVersion"), obj.get("kind")) is None


# -- walking a pointer ------------------------------------------------------------------------------

def resolve(obj: Any, change: FieldChange) -> Any:
    """The value at the change's path in another version of the object (keyed list entries
    found by key, set members by value), or `_MISSING`."""
    keys = dict(change.keys)
    path = tokens(change.path)
    node, prefix = obj, ""
    for depth, token in enumerate(path):
        prefix += "/" + escape(token)
        last = depth == len(path) - 1
        if isinstance(node, dict):
            if token not in node:
                return _MISSING
            node = node[token]
        elif isinstance(node, list):
            if prefix in keys:
                node = next((e for e in node if key_matches(e, keys[prefix])), _MISSING)
            elif last and change.op in (FieldOp.ADD, FieldOp.REMOVE) and not isinstance(
                    change.before if change.op is FieldOp.REMOVE else change.after, (dict, list)):
                value = change.before if change.op is FieldOp.REMOVE else change.after
                return value if any(same(value, e) for e in node) else _MISSING  # a set member
            elif token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                return _MISSING
            if node is _MISSING:
                return _MISSING
        else:
            return _MISSING
    return node


def _merge_patch_touches(previous: Any, desired: Any, path: list[str]) -> bool:
    """Whether the JSON merge patch from `previous` to `desired` (RFC 7386, what Helm sends for
    a custom resource) sets anything at `path` or above it. The patch holds only what differs;
    an object in it is merged into the live object key by key, anything else (a list, a scalar,
    null for a deletion) replaces the live value whole."""
    node_p, node_d = previous, desired
    for token in path:
        if same(node_p, node_d):
            return False
        if not isinstance(node_d, dict):
            return True
        node_p = node_p.get(token, _MISSING) if isinstance(node_p, dict) else _MISSING
        node_d = node_d.get(token, _MISSING)
    return not same(node_p, node_d)


# -- server-side apply ownership ---------------------------------------------------------------------

def field_owners(live: Mapping[str, Any], change: FieldChange) -> list[str]:
    """Field managers other than Helm that own the change's path in the live object (or a
    whole value above it: a leaf, or a node that holds only itself)."""
    return sorted({m.name for m in managers(live)[0] if walk(m.fields, change, node_owns_all=True) is not None})


# -- effects --------------------------------------------------------------------------------------------

def _client_side(change: FieldChange, previous: Mapping[str, Any], desired: Mapping[str, Any], custom: bool) -> DriftEffect:
    wanted = resolve(desired, change)
    if wanted is None:
        # A field the new chart declares null is in either patch as null, and null deletes
        # (RFC 7386; strategicpatch, a three-way diff of live to desired whose value changed
        # type): it is removed, as one no longer declared is, never set back to null.
        wanted = _MISSING
    gone_live = change.op is FieldOp.REMOVE
    if wanted is not _MISSING and not gone_live and same(wanted, change.after):
        return DriftEffect.LEFT  # the new chart declares the live value
    if custom and not _merge_patch_touches(previous, desired, tokens(change.path)):
        return DriftEffect.LEFT
    if wanted is not _MISSING:
        return DriftEffect.REVERTED
    return DriftEffect.LEFT if gone_live else DriftEffect.REMOVED


def _server_side(change: FieldChange, live: Mapping[str, Any], desired: Mapping[str, Any],
                 force_conflicts: bool) -> DriftField:
    wanted = resolve(desired, change)
    gone_live = change.op is FieldOp.REMOVE
    owners = () if gone_live else tuple(field_owners(live, change))
    if wanted is not _MISSING:
        if not gone_live and same(wanted, change.after):
            return DriftField(change, DriftEffect.LEFT, SsaReason.DECLARES_LIVE)
        if owners and force_conflicts:
            return DriftField(change, DriftEffect.REVERTED, SsaReason.FORCED, owners)
        if owners:
            return DriftField(change, DriftEffect.CONFLICT, SsaReason.CONFLICT, owners)
        return DriftField(change, DriftEffect.REVERTED, SsaReason.SETS_BACK)
    if gone_live:
        return DriftField(change, DriftEffect.LEFT, SsaReason.GONE)
    if owners:
        return DriftField(change, DriftEffect.LEFT, SsaReason.OTHER_OWNS, owners)
    return DriftField(change, DriftEffect.REMOVED, SsaReason.REMOVES)


def _modified(ref: ResourceRef, previous: Mapping[str, Any], live: Mapping[str, Any],
              desired: Mapping[str, Any] | None, ssa: bool, force_conflicts: bool) -> DriftChange | None:
    changes = [c for c in diff_objects(previous, declared_surface(previous, live)) if not c.equivalent]
    if not changes:
        return None
    custom = is_custom(previous)
    if desired is None:
        kept = kept_by_policy(live)
        effect = DriftEffect.LEFT if kept else DriftEffect.REMOVED
        return DriftChange(ref, DriftKind.MODIFIED, effect, tuple(DriftField(c, effect) for c in changes),
                           why=DriftReason.KEPT if kept else DriftReason.DELETED, live=live)
    fields = [_server_side(change, live, desired, force_conflicts) if ssa
              else DriftField(change, _client_side(change, previous, desired, custom)) for change in changes]
    why = (DriftReason.SERVER_SIDE_APPLY if ssa else DriftReason.MERGE_PATCH if custom
           else DriftReason.THREE_WAY_MERGE)
    return DriftChange(ref, DriftKind.MODIFIED, DriftEffect.MIXED, tuple(fields), why=why, live=live)


def find_drift(
    previous: Mapping[Identity, tuple[ResourceRef, Mapping[str, Any]]],
    desired: Mapping[Identity, tuple[ResourceRef, Mapping[str, Any]]],
    live: Mapping[Identity, Mapping[str, Any]],
    covered: Callable[[ResourceRef], bool],
    release: str,
    namespace: str,
    apply_method: ApplyMethod | None = None,
    not_unexpected: Iterable[Identity] = (),
    force_conflicts: bool = False,
) -> list[DriftChange]:
    """Drift of every previous object whose kind and namespace were read (`covered`), and the
    unexpected live objects of this release. `not_unexpected`: identities that are this
    release's but not in its manifest (its hooks)."""
    ssa = apply_method is ApplyMethod.SSA
    out: list[DriftChange] = []
    seen: set[Identity] = set()
    for ident, (ref, stored) in previous.items():
        if ref.generate_name or not covered(ref):
            continue
        obj = find_live(live, ref)
        if obj is not None:
            seen.add(live_identity(obj))
        new = desired.get(ident)
        if obj is None:
            effect = DriftEffect.REVERTED if new is not None else DriftEffect.LEFT
            why = DriftReason.RECREATED if new is not None else DriftReason.LEAVES_RELEASE
            out.append(DriftChange(ref, DriftKind.MISSING, effect, why=why))
            continue
        found = _modified(ref, stored, obj, new[1] if new else None, ssa, force_conflicts)
        if found is not None:
            out.append(found)
    skip = set(previous) | set(not_unexpected) | seen
    for ident, obj in live.items():
        if ident in skip or release_of(obj) != (namespace, release) or _controlled(obj):
            continue
        metadata = obj.get("metadata") or {}
        ref = ResourceRef(str(obj.get("apiVersion", "")), str(obj.get("kind", "")),
                          str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))
        if ident in desired:
            effect, why = DriftEffect.REVERTED, DriftReason.ADOPTED
        else:
            effect, why = DriftEffect.LEFT, DriftReason.UNTOUCHED
        out.append(DriftChange(ref, DriftKind.UNEXPECTED, effect, why=why, live=obj))
    return out


def _controlled(obj: Mapping[str, Any]) -> bool:
    """Made by a controller (which may copy its owner's annotations), not by Helm."""
    refs = (obj.get("metadata") or {}).get("ownerReferences") or []
    return any(isinstance(r, dict) and r.get("controller") for r in refs)
