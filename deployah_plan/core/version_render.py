"""Which objects render differently for another Kubernetes version. Pure.

A chart whose templates read `.Capabilities.KubeVersion` is rendered offline for the version
`helm template` assumes unless given one. Most such charts read it only to pick an apiVersion
that every recent version serves alike (the Bitnami common helpers, argo-cd), so the sources
render the chart a second time, with the same values, for an older supported version, and
`differing` compares the two renders' objects: an object in one render only, or one whose
fields differ. A field the chart makes anew on every render is no difference of the version:
it differs between the two renders of the same inputs too (`again`, core/regenerated.py), or
holds the time of the render (`now`); an object whose name the chart makes anew is one that
the render of the same inputs names differently too.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from deployah_plan.core import regenerated
from deployah_plan.core.diff import diff_objects
from deployah_plan.kinds import CLUSTER_SCOPED, group_of
from deployah_plan.manifests import Document, Rendered
from deployah_plan.model import FieldOp, ResourceRef

_Key = tuple[str, str, str, str]  # group, kind, namespace, name


def _ref(doc: Document, namespace: str) -> ResourceRef:
    obj = doc.obj
    api_version, kind = str(obj.get("apiVersion") or ""), str(obj.get("kind") or "")
    metadata = obj.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    scoped = (group_of(api_version), kind) in CLUSTER_SCOPED
    return ResourceRef(api_version, kind, "" if scoped else str(metadata.get("namespace") or namespace),
                       str(metadata.get("name") or ""), "" if metadata.get("name") else
                       str(metadata.get("generateName") or ""))


def _index(rendered: Rendered, namespace: str) -> dict[_Key, tuple[ResourceRef, Document]]:
    found: dict[_Key, tuple[ResourceRef, Document]] = {}
    for doc in (*rendered.resources, *rendered.hooks):
        ref = _ref(doc, namespace)
        name = ref.name or f"{ref.generate_name}*#{doc.position}"
        found.setdefault((ref.group, ref.kind, ref.namespace, name), (ref, doc))
    return found


def _under(path: str, prefixes: Iterable[str]) -> bool:
    return any(path == p or path.startswith(p + "/") for p in prefixes)


def _differs(first: Mapping[str, Any], other: Mapping[str, Any], again: Mapping[str, Any] | None,
             window: tuple[float, float], secret: bool) -> bool:
    """Whether two renders of one object differ by more than what the chart makes anew."""
    varies = [f.path for f in diff_objects(first, again)] if again is not None else []
    for change in diff_objects(first, other):
        if change.equivalent or _under(change.path, varies):
            continue
        if change.op in (FieldOp.ADD, FieldOp.REPLACE) and not change.parts and regenerated.is_render_time(
                change.after, window, secret and change.path.startswith("/data/")):
            continue
        return True
    return False


def differing(first: Rendered, other: Rendered, again: Rendered | None, window: tuple[float, float],
              namespace: str) -> tuple[ResourceRef, ...]:
    """The objects (resources and hooks) that the render `other`, for another Kubernetes
    version, has differently from `first`, in `first`'s order then `other`'s. `again`: the
    documents of the second render of `first`'s inputs that differ from it (None when the
    chart makes nothing anew, and it was not rendered); `window`: when the renders ran;
    `namespace`: the release's, for objects that declare none."""
    ours, theirs = _index(first, namespace), _index(other, namespace)
    repeated = _index(again, namespace) if again is not None else {}
    # An object named anew on every render: the render of the same inputs has another object
    # of its template that `first` lacks (regenerated.pair_names).
    renamed = {(ref.group, ref.kind, ref.namespace, doc.source)
               for key, (ref, doc) in repeated.items() if key not in ours and doc.source}
    out: list[ResourceRef] = []
    for key, (ref, doc) in ours.items():
        found = theirs.get(key)
        if found is None:
            if (ref.group, ref.kind, ref.namespace, doc.source) not in renamed:
                out.append(ref)
            continue
        again_doc = repeated.get(key)
        secret = ref.kind == "Secret" and ref.group == ""
        if _differs(doc.obj, found[1].obj, again_doc[1].obj if again_doc else None, window, secret):
            out.append(ref)
    out += [ref for key, (ref, doc) in theirs.items() if key not in ours
            and (ref.group, ref.kind, ref.namespace, doc.source) not in renamed]
    return tuple(out)


__all__ = ["differing"]
