"""OpenAPI schemas made small: the shape of each type as the API server decodes it.

Both the committed table (`scripts/gen-api-table`, from Kubernetes' OpenAPI definitions) and a
live cluster's `/openapi/v3` documents go through `compact_definitions`, and a CRD's
`openAPIV3Schema` through `compact_crd_schema`, so the validator reads one form whatever the
source. Pure: callers hand in parsed JSON.

A compact type is `{"p": {field: T}, "r": [required...], "u": 1}`: its properties, its
required fields, and `u` when it keeps unknown fields (`x-kubernetes-preserve-unknown-fields`).
A field's `T` is a string:
- `s` string, `i` integer, `n` number, `b` boolean;
- `q` a quantity (string or number), `x` int-or-string;
- `a` anything (a free-form JSON value, a `RawExtension`, a type with no declared shape);
- `#NAME` an object of type NAME; `[T` a list of T; `{T` a map of string to T.
Every value may be null: Kubernetes decodes null as "not set".
"""
from __future__ import annotations

from typing import Any, Mapping

QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
# Types whose content the API server does not check against a schema.
FREE_FORM = frozenset({
    "io.k8s.apimachinery.pkg.runtime.RawExtension",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1beta1.JSON",
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
    "io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
})
_SCALARS = {"string": "s", "integer": "i", "number": "n", "boolean": "b"}


def short(name: str) -> str:
    """A type's name without the common prefix (`io.k8s.api.apps.v1.Deployment` is
    `apps.v1.Deployment`)."""
    return name.removeprefix("io.k8s.api.").removeprefix("io.k8s.")


def _ref(schema: Mapping[str, Any]) -> str | None:
    ref = schema.get("$ref")
    if not ref:
        options = [o for key in ("allOf", "anyOf") if isinstance(schema.get(key), list) for o in schema[key]]
        for option in options:
            if isinstance(option, dict) and "$ref" in option:
                ref = option["$ref"]
                break
    return str(ref).rsplit("/", 1)[-1] if ref else None


def _types(schema: Mapping[str, Any]) -> list[str]:
    kinds = schema.get("type")
    if isinstance(kinds, str):
        return [kinds]
    if not isinstance(kinds, list):  # a chart's CRD may say anything here: nothing to check against
        return []
    return [k for k in kinds if isinstance(k, str) and k != "null"]


class _Compactor:
    """Compacts the types reachable from the kinds, following `$ref`s."""

    def __init__(self, defs: Mapping[str, Any]) -> None:
        self.defs = defs
        self.out: dict[str, dict[str, Any]] = {}

    def field(self, schema: Mapping[str, Any]) -> str:
        ref = _ref(schema)
        if ref is not None:
            return self.named(ref)
        if schema.get("x-kubernetes-int-or-string"):
            return "x"
        if schema.get("x-kubernetes-preserve-unknown-fields") and not schema.get("properties"):
            return "a"
        one_of = schema.get("oneOf") or schema.get("anyOf")
        kinds = _types(schema)
        if one_of and not kinds:
            found = sorted({t for option in one_of if isinstance(option, dict) for t in _types(option)})
            if found == ["integer", "string"]:
                return "x"
            if found == ["number", "string"]:
                return "q"
            return "a"
        if len(kinds) != 1:
            return "a"
        kind = kinds[0]
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "array":
            items = schema.get("items")
            return "[" + (self.field(items) if isinstance(items, dict) else "a")
        if kind == "object":
            extra = schema.get("additionalProperties")
            if isinstance(extra, dict) and not schema.get("properties"):
                return "{" + self.field(extra)
        return "a"

    def named(self, name: str) -> str:
        if name == QUANTITY:
            return "q"
        if name == INT_OR_STRING:
            return "x"
        if name in FREE_FORM:
            return "a"
        key = short(name)
        if key in self.out:
            return "#" + key
        schema = self.defs.get(name)
        if not isinstance(schema, dict):
            return "a"
        if not schema.get("properties"):
            return self.field({k: v for k, v in schema.items() if k != "$ref"}) if schema.get("type") else "a"
        body: dict[str, Any] = {}
        self.out[key] = body  # before the fields: types refer to themselves (JSONSchemaProps)
        body["p"] = {f: self.field(s) for f, s in schema["properties"].items() if isinstance(s, dict)}
        required = [r for r in schema.get("required") or () if r in body["p"]]
        if required:
            body["r"] = required
        if schema.get("x-kubernetes-preserve-unknown-fields"):
            body["u"] = 1
        return "#" + key


def group_version_kinds(schema: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(apiVersion, kind) of the kinds a definition declares."""
    out = []
    for gvk in schema.get("x-kubernetes-group-version-kind") or ():
        group, version = gvk.get("group", ""), gvk.get("version", "")
        out.append((f"{group}/{version}" if group else version, gvk.get("kind", "")))
    return out


def compact_definitions(defs: Mapping[str, Any]) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
    """From OpenAPI definitions (swagger `definitions`, JSON Schema `$defs`, or an OpenAPI v3
    document's `components.schemas`): the root type of each kind ("apiVersion Kind" to a
    type name) and the compact types reachable from them."""
    compactor = _Compactor(defs)
    roots: dict[str, str] = {}
    for name, schema in sorted(defs.items()):
        if not isinstance(schema, dict) or name.endswith("List"):
            continue
        for api_version, kind in group_version_kinds(schema):
            if kind in ("Status", "WatchEvent", "DeleteOptions", "APIResourceList", "APIGroup", "APIVersions",
                        "APIGroupList") or not kind:
                continue
            named = compactor.named(name)
            if named.startswith("#"):
                roots[f"{api_version} {kind}"] = named[1:]
    return roots, compactor.out


def compact_crd_schema(schema: Mapping[str, Any], name: str) -> dict[str, dict[str, Any]]:
    """A CRD version's `openAPIV3Schema` as compact types: the root is `name`, nested objects
    are `name/path`. The root's apiVersion, kind and metadata are the API server's own (it
    checks metadata as ObjectMeta), so they are not part of the schema here."""
    out: dict[str, dict[str, Any]] = {}

    def field(node: Mapping[str, Any], path: str) -> str:
        if node.get("x-kubernetes-int-or-string"):
            return "x"
        if node.get("x-kubernetes-embedded-resource"):
            return "a"  # an object of its own kind: checked when it is applied, not here
        kinds = _types(node)
        kind = kinds[0] if len(kinds) == 1 else ""
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "array":
            items = node.get("items")
            return "[" + (field(items, path + "/*") if isinstance(items, dict) else "a")
        if kind == "object" or node.get("properties"):
            props = node.get("properties")
            extra = node.get("additionalProperties")
            if isinstance(props, dict) and props:
                obj(node, path)
                return "#" + path
            if isinstance(extra, dict):
                return "{" + field(extra, path + "/*")
            return "a"  # no declared fields: a free-form object (or pruned to nothing: not an error)
        return "a"

    def obj(node: Mapping[str, Any], path: str) -> None:
        body: dict[str, Any] = {}
        out[path] = body
        body["p"] = {f: field(s, f"{path}/{f}") for f, s in (node.get("properties") or {}).items() if isinstance(s, dict)}
        required = [r for r in node.get("required") or () if r in body["p"]]
        if required:
            body["r"] = required
        if node.get("x-kubernetes-preserve-unknown-fields"):
            body["u"] = 1

    root = dict(schema)
    root["properties"] = {k: v for k, v in (schema.get("properties") or {}).items()
                          if k not in ("apiVersion", "kind", "metadata")}
    root["required"] = [r for r in schema.get("required") or () if r not in ("apiVersion", "kind", "metadata")]
    obj(root, name)
    if not root["properties"] and not schema.get("x-kubernetes-preserve-unknown-fields"):
        out[name]["u"] = 1  # a CRD without a schema for its content keeps whatever it is given
    return out
