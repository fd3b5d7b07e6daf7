"""A CustomResourceDefinition's change, by what it means for its custom resources. Pure.

A chart upgrade often rewrites a CRD's schema prose (hundreds of `description` edits) while
changing a handful of things that matter to the objects of that kind. `summarize` sorts the
change into:
- `descriptions`: how many field changes only edit the schema's prose (the `description`
  keyword anywhere under a version's `openAPIV3Schema`); the field changes themselves are
  marked `FieldChange.crd_description` by `mark_descriptions`;
- `changes`: versions added or removed (matched by name, as the API server requires names to
  be unique), a version's `served` or `storage` flag changed, and in each version kept a field
  added or removed, a field's type changed, a field made required or no longer required.

The API server refuses an update whose `spec.versions` leaves out a version that the CRD's
`status.storedVersions` still lists (apiextensions validation,
ValidateCustomResourceDefinitionStoredVersions: "must appear in spec.versions"): objects are
still stored in it. `stored_versions_removed` names them.
"""
from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from msgspec.structs import replace

from deployah_plan.startup import lazy
from deployah_plan.crd_paths import is_description, is_property, said_by_summary
from deployah_plan.kinds import group_of
from deployah_plan.model import CRDSchemaChange, CRDSummary, FieldChange

def is_crd(obj: Mapping[str, Any] | None) -> bool:
    return (obj is not None and obj.get("kind") == "CustomResourceDefinition"
            and group_of(str(obj.get("apiVersion", ""))) == "apiextensions.k8s.io")


_SAYS_CRDS = lazy(r"crds?(?![a-z])|customresourcedefinition", re.IGNORECASE)
_APPLY = lazy(r"(?<![a-z])apply(?![a-z])", re.IGNORECASE)


def _dict(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def applies_crds(obj: Mapping[str, Any]) -> bool:
    """A hook Job or Pod that looks like it applies CRDs (gatekeeper's `update-crds-hook`, a
    `kubectl apply -f crds/`): its name, a label or an image says crds, or a container's command
    and arguments both apply and name crds. Read from its shape only: a likelihood."""
    kind = obj.get("kind")
    if kind not in ("Job", "Pod"):
        return False
    meta = _dict(obj.get("metadata"))
    said = [str(meta.get("name") or ""), *(f"{k} {v}" for k, v in _dict(meta.get("labels")).items())]
    spec = _dict(_dict(_dict(obj.get("spec")).get("template")).get("spec")) if kind == "Job" else _dict(obj.get("spec"))
    for group in ("initContainers", "containers"):
        found = spec.get(group)
        for container in found if isinstance(found, list) else ():
            if not isinstance(container, dict):
                continue
            said.append(str(container.get("image") or ""))
            line = " ".join(str(w) for key in ("command", "args") if isinstance(container.get(key), list)
                            for w in container[key])
            if _APPLY.search(line) and _SAYS_CRDS.search(line):
                return True
    return any(_SAYS_CRDS.search(text) for text in said)


def custom_resources(definition: Mapping[str, Any], objects: Iterable[Mapping[str, Any]]) -> int:
    """How many of `objects` are custom resources of the CRD `definition` (its group and kind,
    any of its versions)."""
    spec = _dict(definition.get("spec"))
    group, kind = str(spec.get("group") or ""), str(_dict(spec.get("names")).get("kind") or "")
    if not group or not kind:
        return 0
    return sum(1 for obj in objects if obj.get("kind") == kind
               and str(obj.get("apiVersion") or "").rpartition("/")[0] == group)


def mark_descriptions(fields: Iterable[FieldChange]) -> tuple[FieldChange, ...]:
    """The field changes of a CRD, each one that only edits schema prose marked as such."""
    return tuple(replace(f, crd_description=True) if is_description(f.path) and not f.parts else f for f in fields)


def _versions(obj: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    spec = obj.get("spec")
    found: dict[str, Mapping[str, Any]] = {}
    if not isinstance(spec, dict):
        return found
    for version in spec.get("versions") or ():
        if isinstance(version, dict) and isinstance(version.get("name"), str):
            found[version["name"]] = version
    if not found and isinstance(spec.get("version"), str):  # apiextensions v1beta1: one version
        found[spec["version"]] = {"name": spec["version"], "served": True, "storage": True,
                                  "schema": {"openAPIV3Schema": (spec.get("validation") or {}).get("openAPIV3Schema")}}
    return found


def _schema(version: Mapping[str, Any]) -> Mapping[str, Any]:
    schema = version.get("schema")
    root = schema.get("openAPIV3Schema") if isinstance(schema, dict) else None
    return root if isinstance(root, dict) else {}


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _walk(version: str, old: Mapping[str, Any], new: Mapping[str, Any], path: str,
          out: list[CRDSchemaChange], depth: int = 0) -> None:
    if depth > 64:  # schemas nest far less; a hostile one stops here
        return
    if old.get("type") != new.get("type"):
        out.append(CRDSchemaChange("type-changed", version, path or "(root)", old.get("type"), new.get("type")))
    old_required = [r for r in old.get("required") or () if isinstance(r, str)]
    new_required = [r for r in new.get("required") or () if isinstance(r, str)]
    out += [CRDSchemaChange("required-added", version, _join(path, r)) for r in new_required if r not in old_required]
    out += [CRDSchemaChange("required-removed", version, _join(path, r)) for r in old_required if r not in new_required]
    old_props, new_props = old.get("properties"), new.get("properties")
    old_props = old_props if isinstance(old_props, dict) else {}
    new_props = new_props if isinstance(new_props, dict) else {}
    for name, schema in new_props.items():
        before = old_props.get(name)
        if not isinstance(before, dict):
            out.append(CRDSchemaChange("field-added", version, _join(path, name), None,
                                       schema.get("type") if isinstance(schema, dict) else None))
        elif isinstance(schema, dict):
            _walk(version, before, schema, _join(path, name), out, depth + 1)
    out += [CRDSchemaChange("field-removed", version, _join(path, name),
                            schema.get("type") if isinstance(schema, dict) else None)
            for name, schema in old_props.items() if name not in new_props]
    for keyword, suffix in (("items", "[]"), ("additionalProperties", "{}")):
        before, after = old.get(keyword), new.get(keyword)
        if isinstance(before, dict) and isinstance(after, dict):
            _walk(version, before, after, path + suffix, out, depth + 1)


def summarize(before: Mapping[str, Any], after: Mapping[str, Any], fields: Iterable[FieldChange]) -> CRDSummary:
    """What changed in a CRD, by meaning; `fields` are its field changes (marked)."""
    old, new = _versions(before), _versions(after)
    out: list[CRDSchemaChange] = []
    for name in new:
        if name not in old:
            out.append(CRDSchemaChange("version-added", name))
    for name in old:
        if name not in new:
            out.append(CRDSchemaChange("version-removed", name))
    for name, version in new.items():
        previous = old.get(name)
        if previous is None:
            continue
        for flag in ("served", "storage"):
            if bool(previous.get(flag)) != bool(version.get(flag)):
                out.append(CRDSchemaChange(f"{flag}-changed", name, "", bool(previous.get(flag)), bool(version.get(flag))))
        _walk(name, _schema(previous), _schema(version), "", out)
    return CRDSummary(sum(1 for f in fields if f.crd_description), tuple(out))


def stored_versions_removed(after: Mapping[str, Any], live: Mapping[str, Any]) -> list[str]:
    """The versions the live CRD's `status.storedVersions` lists that the new CRD leaves out."""
    status = live.get("status")
    stored = status.get("storedVersions") if isinstance(status, dict) else None
    kept = _versions(after)
    return [v for v in stored or () if isinstance(v, str) and v not in kept]


__all__ = ["applies_crds", "is_crd", "is_description", "is_property", "mark_descriptions", "said_by_summary", "stored_versions_removed", "summarize"]
