"""Keeping Secret values out of every output.

A value is sensitive when it sits under a core Secret's `data` or `stringData`, or in a
`kubectl.kubernetes.io/last-applied-configuration` annotation (which copies whole objects).
Renderers call `field_view` for each field change; unless the user asked for secrets, a
sensitive value is replaced by a `Masked` marker that only says how long the value is.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from deployah_plan.model import FieldChange, ResourceRef

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
_LAST_APPLIED_POINTER = "/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration"


@dataclass(frozen=True)
class Masked:
    """Stands for a hidden value of `length` characters (or entries, for a mapping)."""

    length: int

    def __str__(self) -> str:
        return f"(sensitive value, {self.length} bytes)"


def is_secret(ref: ResourceRef) -> bool:
    return ref.kind == "Secret" and ref.group == ""


def sensitive_path(ref: ResourceRef, path: str) -> bool:
    if path.startswith(_LAST_APPLIED_POINTER) or path == "/metadata/annotations" or path == "/metadata":
        return True
    if not is_secret(ref):
        return False
    return path in ("", "/data", "/stringData") or path.startswith(("/data/", "/stringData/"))


def mask(value: Any) -> Any:
    """Every leaf value replaced by its length; the shape (keys) stays visible. A value that
    is already masked (a plan read back from JSON) stays as it is."""
    if isinstance(value, Masked):
        return value
    if isinstance(value, dict):
        return {k: mask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mask(v) for v in value]
    if value is None:
        return None
    return Masked(len(value) if isinstance(value, str) else len(str(value)))


def _mask_whole_object(ref: ResourceRef, value: Any, path: str) -> Any:
    """A value that contains a secret's data or a last-applied annotation, with those masked."""
    if not isinstance(value, dict):
        return mask(value)
    out = dict(value)
    if path == "/metadata/annotations" and LAST_APPLIED in out:
        out[LAST_APPLIED] = mask(out[LAST_APPLIED])
    elif path == "/metadata" and isinstance(out.get("annotations"), dict) and LAST_APPLIED in out["annotations"]:
        out["annotations"] = {**out["annotations"], LAST_APPLIED: mask(out["annotations"][LAST_APPLIED])}
    elif path in ("/data", "/stringData"):
        out = mask(out)
    elif path == "" and is_secret(ref):
        for key in ("data", "stringData"):
            if key in out:
                out[key] = mask(out[key])
    return out


def field_view(ref: ResourceRef, change: FieldChange, show_secrets: bool) -> tuple[Any, Any]:
    """The before and after values a renderer may print for this change."""
    if show_secrets or not sensitive_path(ref, change.path):
        return change.before, change.after
    if change.path.startswith(("/data/", "/stringData/", _LAST_APPLIED_POINTER)):
        return (None if change.before is None else mask(change.before),
                None if change.after is None else mask(change.after))
    return (None if change.before is None else _mask_whole_object(ref, change.before, change.path),
            None if change.after is None else _mask_whole_object(ref, change.after, change.path))
