"""Keeping Secret values out of every output.

A value is sensitive when it sits under a core Secret's `data` or `stringData`, or in a
`kubectl.kubernetes.io/last-applied-configuration` annotation (which copies whole objects).
Unless the user asked for secrets, renderers see each field change through a `Redactor`:
a sensitive value becomes a `Masked` marker that says only how long the value is (decoded
bytes, for `data`) and carries a token. Equal values within one plan share a token (as kapp
does), so a reader sees that two keys got the same value; no hash of a value is ever shown,
and line diffs or inner changes of a sensitive value are dropped.

Tokens are numbered in plan order (changes, then tasks, then drift), once per plan, so every renderer,
and a saved plan shown again, gives the same numbers.
"""
from __future__ import annotations

import base64
import binascii
import re
from typing import Any, Iterable, Mapping, Sequence

from msgspec import Struct
from msgspec.structs import replace

from deployah_plan.startup import lazy
from deployah_plan.model import Action, FieldChange, FieldOp, Plan, ResourceRef, TaskAction

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# A chart default whose key's last part names a credential (`auth.password`, `apiToken`,
# `tls.privateKey`; `tls.existingSecret.lookup` is not one).
_SECRET_KEY = lazy(r"(?:^|\.)[^.]*(?:passw|secret|token|credential|private.?key|api.?key|auth.?key)[^.]*$", re.I)
_LAST_APPLIED_POINTER = "/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration"


class Masked(Struct, frozen=True):
    """Stands for a hidden value of `length` bytes; equal values in one plan share `token`."""

    length: int
    token: int = 0

    def __str__(self) -> str:
        token = f" #{self.token}" if self.token else ""
        return f"(sensitive{token}, {self.length} bytes)"


def is_secret(ref: ResourceRef) -> bool:
    return ref.kind == "Secret" and ref.group == ""


def sensitive_path(ref: ResourceRef, path: str) -> bool:
    if path.startswith(_LAST_APPLIED_POINTER) or path in ("/metadata/annotations", "/metadata"):
        return True
    if not is_secret(ref):
        return False
    return path in ("", "/data", "/stringData") or path.startswith(("/data/", "/stringData/"))


def fold_string_data(obj: dict[str, Any]) -> dict[str, Any]:
    """A Secret as the API server stores it: `stringData` merged into `data`, base64-encoded,
    each stringData key overriding the data key of the same name."""
    string_data = obj.get("stringData")
    if not isinstance(string_data, dict):
        return obj
    data = dict(obj.get("data") or {})
    for key, value in string_data.items():
        text = value if isinstance(value, str) else "" if value is None else str(value)
        data[key] = base64.b64encode(text.encode()).decode()
    folded = {k: v for k, v in obj.items() if k != "stringData"}
    folded["data"] = data
    return folded


def _secret_bytes(path: str, value: Any) -> bytes:
    """What a sensitive leaf really holds: decoded bytes for Secret `data`, else its text."""
    text = value if isinstance(value, str) else str(value)
    if path.startswith("/data"):
        try:
            return base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            pass
    return text.encode()


class Redactor:
    """Turns field changes into what a reader may see; one per plan (see the module doc)."""

    def __init__(self, show_secrets: bool = False) -> None:
        self.show_secrets = show_secrets
        self._tokens: dict[bytes, int] = {}

    @classmethod
    def for_plan(cls, plan: Plan, show_secrets: bool = False) -> "Redactor":
        redactor = cls(show_secrets)
        if not show_secrets:
            for ref, change in _plan_fields(plan):
                redactor.view(ref, change)  # numbers the tokens in plan order
        return redactor

    def _leaf(self, path: str, value: Any) -> Masked:
        secret = _secret_bytes(path, value)
        token = self._tokens.setdefault(secret, len(self._tokens) + 1)
        return Masked(len(secret), token)

    def mask(self, value: Any, path: str) -> Any:
        """Every leaf replaced by a Masked marker; the shape (keys) stays visible. A value
        already masked (a plan read back from JSON) stays as it is."""
        if isinstance(value, Masked):
            return value
        if isinstance(value, dict):
            return {k: self.mask(v, f"{path}/{k}") for k, v in value.items()}
        if isinstance(value, list):
            return [self.mask(v, path) for v in value]
        if value is None:
            return None
        return self._leaf(path, value)

    def _mask_container(self, value: Any, path: str) -> Any:
        """A value that contains a Secret's data or a last-applied annotation, those masked. The
        root ("") holds sensitive data only in a Secret (`sensitive_path`): callers pass it for no
        other kind."""
        if not isinstance(value, dict):
            return self.mask(value, path)
        out = dict(value)
        if path == "/metadata/annotations" and LAST_APPLIED in out:
            out[LAST_APPLIED] = self.mask(out[LAST_APPLIED], _LAST_APPLIED_POINTER)
        elif path == "/metadata" and isinstance(out.get("annotations"), dict) and LAST_APPLIED in out["annotations"]:
            out["annotations"] = {**out["annotations"],
                                  LAST_APPLIED: self.mask(out["annotations"][LAST_APPLIED], _LAST_APPLIED_POINTER)}
        elif path in ("/data", "/stringData"):
            out = self.mask(out, path)
        elif path == "":
            for key in ("data", "stringData"):
                if key in out:
                    out[key] = self.mask(out[key], f"/{key}")
        return out

    def default_value(self, key: str, value: Any) -> Any:
        """A chart default's value (model.ChartDefault) as a reader may see it: masked when its
        dotted key names a credential."""
        if self.show_secrets or value is None or not _SECRET_KEY.search(key):
            return value
        return self.mask(value, "")

    def content(self, ref: ResourceRef, obj: Mapping[str, Any]) -> dict[str, Any]:
        """A whole object as a reader may see it (a created object's content): a Secret's
        `data` and `stringData` and a last-applied annotation masked, the rest as it is."""
        out = dict(obj)
        if self.show_secrets:
            return out
        metadata = out.get("metadata")
        if isinstance(metadata, dict):
            out["metadata"] = self._mask_container(metadata, "/metadata")
        if is_secret(ref):
            out = self._mask_container(out, "")
        return out

    def view(self, ref: ResourceRef, change: FieldChange) -> FieldChange:
        """The change as a reader may see it."""
        if self.show_secrets or not sensitive_path(ref, change.path):
            return change
        leaf = change.path.startswith(("/data/", "/stringData/", _LAST_APPLIED_POINTER))

        def masked(value: Any) -> Any:
            if value is None:
                return None
            return self.mask(value, change.path) if leaf else self._mask_container(value, change.path)

        return replace(change, before=masked(change.before), after=masked(change.after), lines=(), parts=(),
                       parts_of="")


def _plan_fields(plan: Plan) -> Iterable[tuple[ResourceRef, FieldChange]]:
    """Every value a writer may show, in plan order; a created object's content is its one
    field change at the root (masked as `Redactor.content` masks it)."""
    for change in (*plan.changes, *plan.ignored):
        if change.action is Action.CREATE:
            yield from _content_fields(change.resource, change.after)
        for field in (*change.fields, *change.ignored_fields):
            yield change.resource, field
    for task in plan.tasks:
        for definition in task.definitions:
            if definition.action is TaskAction.CREATE:
                yield from _content_fields(definition.resource, definition.after)
            for field in definition.fields:
                yield definition.resource, field
    for drift in plan.drift:  # live values, masked like every other Secret value
        for drifted in drift.fields:
            yield drift.resource, drifted.change


def _content_fields(ref: ResourceRef, obj: Mapping[str, Any] | None) -> Iterable[tuple[ResourceRef, FieldChange]]:
    """The sensitive parts of a created object's content, as `Redactor.content` masks them."""
    if not obj:
        return
    metadata = obj.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if isinstance(annotations, dict) and LAST_APPLIED in annotations:  # not a map: the API server refuses it
        yield ref, FieldChange("/metadata", FieldOp.ADD, None, metadata)
    if is_secret(ref):
        yield ref, FieldChange("", FieldOp.ADD, None, obj)


_VALUE_KEY = lazy(r"[A-Za-z0-9_.\[\]/-]+\Z")


def value_keys(value: str, whole: bool = False) -> str:
    """The keys a `--set`-style value names, never a value: `a=1,b.c=2` -> `a,b.c`. Parts are
    split on unescaped commas as helm's strvals does; a part whose text before `=` is not a
    plain key (a list entry `{x,y}`, an escaped comma, JSON) is left out, so no fragment of a
    value is shown. `whole`: the value is one key=value (`--set-json`, `--set-literal`)."""
    parts = [value] if whole else re.split(r"(?<!\\),", value)
    keys = [part.split("=", 1)[0] for part in parts if "=" in part]
    return ",".join(key for key in keys if _VALUE_KEY.match(key)) or "(keys hidden)"


_USERINFO = lazy(r"\b([A-Za-z][A-Za-z0-9+.-]*://)[^/?#\s\"'<>]*@")


def hide_userinfo(text: str) -> str:
    """Text with the user and password of every URL in it (`scheme://user:pw@host`) as
    `(hidden)`, so that it still says a credential was given."""
    return _USERINFO.sub(r"\1(hidden)@", text)


_PASSWORD_IN_URL = lazy(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^/?#\s\"'<>:@]*:([^/?#\s\"'<>]*)@")
_CREDENTIAL_FLAGS = ("--password", "--kube-token")
_SHORTEST = 4  # a shorter "password" would hide every such run of letters in a message, and protects nothing


_VALUE_FLAGS = ("--set", "--set-string", "--set-json", "--set-literal")


def _set_values(value: str) -> list[str]:
    """What a --set-style value may put in a message: the whole of it, what follows its first
    `=`, and each comma-separated part's value (helm quotes any of them when it cannot read one)."""
    found = [value, value.partition("=")[2]]
    found += [part.partition("=")[2] or part for part in re.split(r"(?<!\\),", value)]
    return found


def credentials(argv: Sequence[str]) -> list[str]:
    """The credentials a command line carries: the values of --password (and helm's
    --kube-token), the password of every URL given with one (`https://user:pw@host`), and the
    values of --set, --set-string, --set-json and --set-literal (a message helm writes about one
    it cannot read quotes it; --debug already shows their keys only)."""
    found: list[str] = []
    for i, token in enumerate(argv):
        name, eq, value = token.partition("=")
        given = value if eq else (argv[i + 1] if i + 1 < len(argv) else "")
        if name in _CREDENTIAL_FLAGS:
            found.append(given)
        elif name in _VALUE_FLAGS:
            found += _set_values(given)
        for password in _PASSWORD_IN_URL.findall(token):
            from urllib.parse import unquote  # only for a URL with a password: a plan rarely has one

            found += [password, unquote(password)]
    return sorted({f for f in found if len(f) >= _SHORTEST}, key=len, reverse=True)


def scrub(text: str, secrets: Iterable[str]) -> str:
    """Text fit to print: no URL's user and password, and none of `secrets`."""
    text = hide_userinfo(text)
    for secret in secrets:
        text = text.replace(secret, "(hidden)")
    return text


def without_userinfo(url: str) -> str:
    """A URL fit to print: a user and password in it (`scheme://user:pw@host`) are left out."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
