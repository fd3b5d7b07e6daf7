"""What the API server does with Helm 4's server-side apply of one object, from the live
object's `metadata.managedFields` (Kubernetes' structured-merge-diff, `merge.Updater.Apply`).

Pure: the caller hands in the live object (with its managedFields), the desired object Helm
applies (field manager `helm`) and the chart's field changes (previous -> desired).

The API server's rules, as structured-merge-diff computes them:
- **Conflict:** a field the applied object sets to a value other than the live one (or adds)
  that another field manager owns, by an Apply or an Update operation (kubectl edit, a
  controller, client-side apply), is a conflict: the apply fails unless forced
  (`--force-conflicts`), which takes the field from that manager. A field the applied object
  sets to the live value is shared: no conflict. A manager owning an atomic value (an atomic
  list or map: a leaf in managedFields) owns every change inside it.
- **Prune:** a field Helm's last apply set and this one does not is removed, unless a manager
  that *applied* owns it or anything under it (`Updater.prune` adds back only what Apply
  managers own: an Update manager's field inside an entry Helm owns goes with the entry). A
  field Helm no longer owns (an Update took it) is not Helm's to remove: it stays.

Owning a node (`.` in managedFields: a map, a keyed list entry) is not owning its fields: a
change under it conflicts only with a manager that owns the changed field itself.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping, NamedTuple

from msgspec.structs import replace

from deployah_plan.core.diff import diff_objects
from deployah_plan.core.drift import _MISSING, resolve
from deployah_plan.core.managed_fields import Manager, managers as read_managers, walk
from deployah_plan.model import FieldChange, FieldOp
from deployah_plan.pointer import escape, tokens


class Owned(NamedTuple):
    """A field another manager owns: the managedFields path of what it owns (its FieldsV1 keys:
    `f:spec`, `k:{"name":"app"}`), at or above the field."""

    manager: str
    at: tuple[str, ...]


class Conflict(NamedTuple):
    """A field the apply sets to a new value, owned by other managers."""

    change: FieldChange  # live -> desired
    owners: tuple[Owned, ...]

    @property
    def managers(self) -> tuple[str, ...]:
        return tuple(sorted({o.manager for o in self.owners}))


class Applied(NamedTuple):
    """What the apply of one object does: its conflicts, and the chart's changes as the API
    server makes them (a field the chart stops setting that another manager owns, `kept_by`
    it; with --force-conflicts, a change taken from other managers, `taken_from` them)."""

    conflicts: tuple[Conflict, ...]
    fields: tuple[FieldChange, ...]


def _value_owners(managers: Iterable[Manager], everyone: list[Manager], live: Mapping[str, Any],
                  change: FieldChange) -> tuple[Owned, ...]:
    """The managers that own the value the change sets: the field itself, or an atomic value
    above it (`_whole`)."""
    out = []
    for name, _, fields in managers:
        found = walk(fields, change)
        if found is not None and (not found.node if not found.above else _whole(everyone, live, change, found.at)):
            out.append(Owned(name, found.at))
    return tuple(out)


def _whole(everyone: list[Manager], live: Mapping[str, Any], change: FieldChange, at: tuple[str, ...]) -> bool:
    """Whether a leaf in a manager's set above the change's field owns the whole value there (an
    atomic list or map). A leaf is also a map or list node whose fields were all taken by other
    managers, or that holds none live (an empty map): owning such a node is not owning what is
    put into it. So a leaf with fields under it in any manager's set, or an empty map live, is
    a node, not a value."""
    for manager in everyone:
        node: Any = manager.fields
        for key in at:
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, dict) and set(node) - {"."}:
            return False
    return bool(_at(live, change, len(at)) != {})


def _under(manager: Manager, change: FieldChange) -> bool:
    """Whether the manager owns the change's field or anything under it."""
    found = walk(manager.fields, change)
    return found is not None and not found.above


def _keepers(others: list[Manager], helm: list[Manager], change: FieldChange) -> tuple[str, ...]:
    """The managers that keep a field the applied object no longer sets (structured-merge-diff's
    prune, `Updater.prune`): Helm's apply removes the fields of its last apply that it no longer
    sets, and then adds back what managers that *applied* own; an Update manager's fields keep
    nothing Helm owns (`addBackOwnedItems` reads only Apply managers). A field Helm no longer
    owns (an Update took it) is not Helm's to remove: it stays with its owners."""
    appliers = {m.name for m in others if m.applies and _under(m, change)}
    if appliers:
        return tuple(sorted(appliers))
    if any(helm_owns(m, change) for m in helm):
        return ()
    return tuple(sorted({m.name for m in others if _under(m, change)}))


def helm_owns(manager: Manager, change: FieldChange) -> bool:
    """Whether Helm's last apply holds the field itself (so its prune removes it whole)."""
    found = walk(manager.fields, change)
    return found is not None and (found.above or not found.node or "." in found.node)


def without_managed_fields(live: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(live)
    out["metadata"] = {k: v for k, v in (live.get("metadata") or {}).items() if k != "managedFields"}
    return out


def _atomic_owners(managers: Iterable[Manager], everyone: list[Manager], live: Mapping[str, Any],
                   desired: Mapping[str, Any], change: FieldChange) -> tuple[Owned, ...]:
    """The managers that own an atomic value (a label selector, an atomic list) above a field
    the applied object leaves out, when it still sets that value: it changes the whole value.
    A field it leaves out elsewhere is no conflict: it is pruned, or kept (`_keepers`)."""
    out = []
    for name, _, fields in managers:
        found = walk(fields, change)
        if found is not None and found.above and _sets(desired, change, len(found.at)) \
                and _whole(everyone, live, change, found.at):
            out.append(Owned(name, found.at))
    return tuple(out)


def _sets(desired: Mapping[str, Any], change: FieldChange, depth: int) -> bool:
    """Whether the applied object sets the value `depth` tokens down the change's path."""
    return not _missing(_at(desired, change, depth))


def _at(obj: Mapping[str, Any], change: FieldChange, depth: int) -> Any:
    """The value `depth` tokens down the change's path in `obj` (`_MISSING`: none)."""
    path = tokens(change.path)[:depth]
    pointer = "".join("/" + escape(t) for t in path)
    keys = tuple((p, k) for p, k in change.keys if len(tokens(p)) <= depth)
    return resolve(obj, FieldChange(pointer, FieldOp.REPLACE, keys=keys))


def apply(live: Mapping[str, Any], desired: Mapping[str, Any], fields: Iterable[FieldChange],
          force_conflicts: bool) -> Applied:
    """Helm's server-side apply of `desired` over `live`; `fields`: the chart's changes to the object."""
    managers, helm = read_managers(live)
    if not managers:
        return Applied((), tuple(fields))
    everyone = [*managers, *helm]
    conflicts = []
    seen: set[Owned] = set()
    for change in diff_objects(without_managed_fields(live), desired):
        if change.equivalent or change.op in (FieldOp.REORDER, FieldOp.RENAME):
            continue
        owners = tuple(o for o in (_atomic_owners(managers, everyone, live, desired, change) if change.op is FieldOp.REMOVE
                                   else _value_owners(managers, everyone, live, change)) if o not in seen)
        seen.update(owners)
        if owners:
            conflicts.append(Conflict(change, owners))
    taken = {c.change.path: c.managers for c in conflicts} if force_conflicts else {}
    out = []
    for change in fields:
        if change.op is FieldOp.REMOVE and _missing(resolve(desired, change)) and not _missing(resolve(live, change)):
            kept = _keepers(managers, helm, change)
            if kept:
                change = replace(change, kept_by=kept)
        elif change.path in taken:
            change = replace(change, taken_from=taken[change.path])
        out.append(change)
    return Applied(tuple(conflicts), tuple(out))


def _missing(value: Any) -> bool:
    return value is _MISSING
