"""Failures Helm hits before it changes anything, predicted from the rendered objects. Pure.

What the API server does with what Helm sends (Helm builds every object of the release, the
previous release's too, with a REST mapping first: pkg/kube `buildResourceList`):
- a kind the server does not serve in that apiVersion stops the action before anything is
  applied ("no matches for kind ... in version ..."): an API version the target Kubernetes
  version removed, or a custom resource whose CRD is neither in the cluster nor in the chart.
  The previous release's manifest is built too, so a removed API there fails an upgrade
  ("unable to build kubernetes objects from current release manifest");
- a value of the wrong type cannot be decoded, and a missing required field fails the
  server's validation: the request is rejected, whatever the apply method;
- an unknown field is rejected only with strict field validation, which Helm 4 sends with
  server-side apply (`FieldValidationDirectiveStrict` unless `--disable-openapi-validation`);
  with client-side apply (Helm 3, Helm 4 `--server-side=false`) Helm sends no directive and the
  server's default (Warn) drops the field with a warning;
- a release namespace that does not exist fails every namespaced create (without
  `--create-namespace`);
- a hook Helm creates (client-side: a POST) while the previous run's object remains fails with
  "already exists": Helm deletes it first only with the `before-hook-creation` policy (the
  default when none is set; pkg/action/hooks.go).

Schemas come from the cluster's `/openapi/v3` when read, else from the committed table for the
target version (`kube_api`); custom resources from their CRD's `openAPIV3Schema`. Values the
server accepts in several forms are accepted in all of them: int-or-string, quantities
(string or number), integral floats for integers (YAML `1.0` reaches the server as `1`),
null anywhere (not set), free-form JSON and `x-kubernetes-preserve-unknown-fields`,
embedded resources. `status` is never checked: the server ignores it on create and update.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from msgspec import Struct, field

from deployah_plan.core.kube_api import ApiTable, parse_version
from deployah_plan.core.compact_schema import compact_crd_schema
from deployah_plan.kinds import group_of
from deployah_plan.facts import (
    ApiDeprecated, ApiKind, ApiNotServed, CrdMissing, HookCollision, HookCollisionRule, Judged, KindsNotChecked,
    NamespaceMissing, NotServedRule, ProblemKind, Role, SchemaInvalid, SchemaProblem, SchemaType, UnknownField,
    UnknownFieldRule, VersionSource,
)
from deployah_plan.model import ResourceRef, Severity, TaskPlan, Warning, warn

OBJECT_META = "apimachinery.pkg.apis.meta.v1.ObjectMeta"


class Target(Struct, frozen=True):
    """The API server Helm will talk to, as far as the plan knows it.

    `kube_version` is the version judged against and `source` where it came from (the
    cluster, --kube-version, helm template's default). With a cluster, `served` holds
    the "apiVersion Kind" pairs its discovery lists and `roots`/`types` its own OpenAPI
    schemas (compact, `core.compact_schema`); without one they are None and the table answers.
    `namespace_exists` is None when not known. `strict_fields`: Helm sends strict field
    validation (Helm 4 server-side apply without --disable-openapi-validation).
    """

    kube_version: str
    source: VersionSource
    table: ApiTable
    served: frozenset[str] | None = None
    roots: Mapping[str, str] | None = None
    types: Mapping[str, Any] | None = None
    namespace_exists: bool | None = None
    create_namespace: bool = False
    strict_fields: bool = False
    validate_fields: bool = True  # False: --disable-openapi-validation
    client_side_hooks: bool = True  # hooks are created with a POST (not server-side apply)
    requests: int = 0  # HTTP requests sent to the cluster to learn all this (GET only)
    # Rendered with helm template's default capabilities, not the target's: a chart that picks
    # its apiVersion by capability renders another one against a real cluster, so a kind not
    # served is a warning here, not a predicted failure.
    render_defaults: bool = False
    # The version was not given (`helm plan diff` without --kube-version): the newest the table
    # knows is judged against, and a kind it does not serve is a warning, not a predicted failure.
    assumed: bool = False

    @property
    def minor(self) -> int:
        parsed = parse_version(self.kube_version)
        return parsed[1] if parsed else self.table.newest

    @property
    def judged(self) -> Judged:
        return Judged(self.kube_version, self.source)


class Applied(Struct, frozen=True):
    """One object Helm builds (its apiVersion and kind are set: the manifest reader checks).
    `apply`: it is sent to the server (created or changed) and so validated against the
    schema; else only mapped to a REST resource (the previous release's objects). `role`: what
    it is when it is not a plain release object (a hook, the previous release's)."""

    ref: ResourceRef
    obj: Mapping[str, Any]
    apply: bool = True
    role: Role = Role.RELEASE


class _Crd(Struct):
    group: str
    kind: str
    versions: dict[str, tuple[bool, Mapping[str, Any] | None]] = field(default_factory=dict)  # name: (served, schema)


def chart_crds(objs: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], _Crd]:
    """The CRDs the chart brings (crds/, templates, hooks), by (group, kind)."""
    out: dict[tuple[str, str], _Crd] = {}
    for obj in objs:
        if obj.get("kind") != "CustomResourceDefinition" or group_of(str(obj.get("apiVersion", ""))) != "apiextensions.k8s.io":
            continue
        spec = obj.get("spec")
        if not isinstance(spec, dict) or not isinstance(spec.get("names"), dict):
            continue
        crd = _Crd(str(spec.get("group", "")), str(spec["names"].get("kind", "")))
        for version in spec.get("versions") or ():
            if isinstance(version, dict) and version.get("name"):
                schema = (version.get("schema") or {}).get("openAPIV3Schema") if isinstance(version.get("schema"), dict) else None
                # `served` is a plain bool in the API: a version that leaves it out is not served
                crd.versions[str(version["name"])] = (version.get("served") is True,
                                                      schema if isinstance(schema, dict) else None)
        if not crd.versions and spec.get("version"):  # apiextensions v1beta1: one version
            crd.versions[str(spec["version"])] = (True, None)
        out[(crd.group, crd.kind)] = crd
    return out


# --- schema check ---------------------------------------------------------------------------

def schema_type(value: Any) -> str:
    """A value's JSON type in the words a schema check uses, with its article ("a string", "an
    object"); `sources.live.json_type` words a live object's field as client-go's decoder does."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _type_name(value: Any) -> str:
    """A value's JSON type by name ("string", "object"; a YAML-only type by its Python name)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


_WANTS = {"s": SchemaType.STRING, "i": SchemaType.INTEGER, "n": SchemaType.NUMBER, "b": SchemaType.BOOLEAN,
          "q": SchemaType.QUANTITY, "x": SchemaType.INT_OR_STRING, "#": SchemaType.OBJECT, "[": SchemaType.LIST,
          "{": SchemaType.MAP}
_Path = tuple[str | int, ...]


def _scalar_ok(code: str, value: Any) -> bool:
    if code == "s":
        return isinstance(value, str)
    if isinstance(value, bool):
        return code == "b"
    if code == "i":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if code == "n" or code == "q":
        return isinstance(value, (int, float)) or (code == "q" and isinstance(value, str))
    if code == "x":
        return isinstance(value, (int, str)) or (isinstance(value, float) and value.is_integer())
    return False  # a boolean field given something else ("a", anything, never gets here)


Problem = SchemaProblem  # one field's problem: its path, what is wrong, the types (facts.SchemaProblem)


def _wrong(value: Any, path: _Path, wants: str) -> SchemaProblem:
    return SchemaProblem(path=path, problem=ProblemKind.TYPE, found=_type_name(value), wants=_WANTS.get(wants[0]))


class SchemaChecker:
    """Walks an object and its compact schema together (see core.compact_schema for the form)."""

    def __init__(self, types: Mapping[str, Any]) -> None:
        self.types = types

    def check(self, obj: Mapping[str, Any], root: str, skip: Iterable[str] = ("apiVersion", "kind", "status"),
              path: _Path = ()) -> list[Problem]:
        """The problems of `obj` as type `root`, its fields named from `path` (the object's own
        place in a larger one: ("metadata",))."""
        out: list[Problem] = []
        body = self.types.get(root)
        if body is None:
            return out
        skipped = set(skip)
        self._object({k: v for k, v in obj.items() if k not in skipped}, body, path, out)
        return out

    def _object(self, value: Mapping[str, Any], body: Mapping[str, Any], path: _Path, out: list[Problem]) -> None:
        props = body["p"]
        for key, item in value.items():
            code = props.get(key)
            if code is None:
                if "u" not in body:
                    import difflib  # only for an unknown field's suggestion

                    near = difflib.get_close_matches(str(key), list(props), n=1)
                    out.append(SchemaProblem(path=(*path, str(key)), problem=ProblemKind.UNKNOWN,
                                             near=(*path, near[0]) if near else None))
                continue
            if item is not None and code != "a":
                self._value(item, code, (*path, str(key)), out)
        for key in body.get("r", ()):
            if value.get(key) is None:
                out.append(SchemaProblem(path=(*path, str(key)), problem=ProblemKind.REQUIRED))

    def _value(self, value: Any, code: str, path: _Path, out: list[Problem]) -> None:
        head = code[0]
        if head == "#":
            if not isinstance(value, dict):
                out.append(_wrong(value, path, code))
                return
            body = self.types.get(code[1:])
            if body is not None:
                self._object(value, body, path, out)
        elif head == "[":
            if not isinstance(value, list):
                out.append(_wrong(value, path, code))
                return
            inner = code[1:]
            if inner != "a":
                for index, item in enumerate(value):
                    if item is not None:
                        self._value(item, inner, (*path, index), out)
        elif head == "{":
            if not isinstance(value, dict):
                out.append(_wrong(value, path, code))
                return
            inner = code[1:]
            if inner != "a":
                for key, item in value.items():
                    if item is not None:
                        self._value(item, inner, (*path, str(key)), out)
        elif not _scalar_ok(code, value):
            out.append(_wrong(value, path, code))


# --- the predictions ------------------------------------------------------------------------

class _Predictor:
    def __init__(self, target: Target, crds: Mapping[tuple[str, str], _Crd],
                 uncreated: Mapping[tuple[str, str], str]) -> None:
        self.target = target
        self.crds = crds
        self.uncreated = uncreated
        self.minor = target.minor
        self.table = target.table
        self.checker = SchemaChecker(target.table.types_at(self.minor))
        self.live_checker = SchemaChecker(target.types or {})
        self.crd_types: dict[str, Any] = {}
        self.crd_checker = SchemaChecker(self.crd_types)
        self.warnings: list[Warning] = []
        self.unchecked: list[ApiKind] = []  # in the order first met
        self.deprecated: set[str] = set()
        # Kinds whose answer is the same for every object and says nothing about one: served,
        # with a schema, not deprecated. Most objects of a release are of a handful of kinds.
        self.settled: dict[str, tuple[str, str | None]] = {}

    # kinds
    def kind(self, item: Applied) -> tuple[str, str | None] | None:
        """Whether the kind is served; returns how to check its schema: ("builtin"|"live"|"crd", root),
        the root None when no schema is known for it."""
        # the object's own: the chart's crds/ may hold any kind, and Helm creates it as it is
        api_version, kind = str(item.obj["apiVersion"]), str(item.obj["kind"])
        gvk = f"{api_version} {kind}"
        how = self.settled.get(gvk)
        if how is None:
            how = self._kind(item, api_version, kind)
            if how is not None and not self.table.removed_in(gvk):
                self.settled[gvk] = how
        return how

    def _kind(self, item: Applied, api_version: str, kind: str) -> tuple[str, str | None] | None:
        target, gvk = self.target, f"{api_version} {kind}"
        group, _, version = api_version.rpartition("/")
        crd = self.crds.get((group, kind))
        if crd is not None and not self.table.builtin(api_version):
            served, schema = crd.versions.get(version, (False, None))
            if not served:
                offered = tuple(f"{group}/{v}" for v, (s, _) in crd.versions.items() if s)
                self.warnings.append(warn(ApiNotServed(
                    role=item.role, api_version=api_version, kind=kind, rule=NotServedRule.CRD_VERSION, judged=None,
                    removed_in="", replacement="", served=offered), item.ref, fails=True))
                return None
            if schema is None:
                return None
            name = f"crd:{group}/{version}/{kind}"
            if name not in self.crd_types:
                self.crd_types.update(compact_crd_schema(schema, name))
            return ("crd", name)
        if target.served is not None:
            if gvk in target.served:
                self._deprecation(item, api_version, kind)
                if target.roots is not None and gvk in target.roots:
                    return ("live", target.roots[gvk])
                return ("builtin", self.table.root(gvk))  # None for a custom resource: not checked
            if self.table.builtin(api_version):
                self._removed(item, api_version, kind)
            else:
                self.warnings.append(warn(CrdMissing(role=item.role, api_version=api_version, kind=kind,
                                                     chart_crd=self.uncreated.get((group, kind))),
                                          item.ref, fails=True))
            return None
        if not self.table.builtin(api_version):
            if ApiKind(kind, api_version) not in self.unchecked:
                self.unchecked.append(ApiKind(kind, api_version))
            return ("builtin", None)  # whether it is served is not known; its metadata is checked
        if not self.table.served(gvk, self.minor):
            self._removed(item, api_version, kind)
            return None
        self._deprecation(item, api_version, kind)
        if self.minor < self.table.oldest:
            return None  # no schema for versions older than the table
        return ("builtin", self.table.root(gvk))

    def _removed(self, item: Applied, api_version: str, kind: str) -> None:
        gvk = f"{api_version} {kind}"
        instead = self.table.alternatives(gvk, self.minor)
        rule = (NotServedRule.ASSUMED_VERSION if self.target.assumed else
                NotServedRule.OFFLINE_DEFAULTS if self.target.render_defaults else NotServedRule.TARGET)
        self.warnings.append(warn(ApiNotServed(
            role=item.role, api_version=api_version, kind=kind, rule=rule, judged=self.target.judged,
            removed_in=self.table.removed_in(gvk) or "", replacement=instead[0] if instead else "", served=()),
            item.ref, fails=rule is NotServedRule.TARGET))

    def _deprecation(self, item: Applied, api_version: str, kind: str) -> None:
        gvk = f"{api_version} {kind}"
        removed = self.table.removed_in(gvk)
        if removed and gvk not in self.deprecated and item.role is not Role.PREVIOUS_RELEASE:
            self.deprecated.add(gvk)
            instead = self.table.alternatives(gvk, self.table.newest)
            self.warnings.append(warn(ApiDeprecated(
                api_version=api_version, kind=kind, judged=self.target.judged, removed_in=removed,
                replacement=instead[0] if instead else ""), item.ref))

    # schemas
    def schema(self, item: Applied, how: tuple[str, str | None]) -> None:
        source, root = how
        if root is None:
            # No schema for the kind (a custom resource no CRD at hand defines): its metadata is
            # still ObjectMeta, which the API server checks for every kind.
            meta = item.obj.get("metadata")
            problems = self.checker.check(meta, OBJECT_META, (), ("metadata",)) if isinstance(meta, dict) else []
            source = "meta"
        elif source == "crd":
            problems = self.crd_checker.check(item.obj, root, ("apiVersion", "kind", "metadata", "status"))
            meta = item.obj.get("metadata")
            if isinstance(meta, dict):
                problems += self.checker.check(meta, OBJECT_META, (), ("metadata",))
        elif source == "live":
            problems = self.live_checker.check(item.obj, root)
        else:
            problems = self.checker.check(item.obj, root)
        rejected = tuple(p for p in problems if p.problem is not ProblemKind.UNKNOWN)
        unknown = tuple(p for p in problems if p.problem is ProblemKind.UNKNOWN)
        judged = self.target.judged if source != "crd" else None
        meta_only = source == "meta"
        if rejected:
            self.warnings.append(warn(SchemaInvalid(role=item.role, problems=rejected, judged=judged,
                                                    object_meta=meta_only), item.ref, fails=True))
        if unknown:
            if not self.target.validate_fields:
                rule, severity = UnknownFieldRule.VALIDATION_DISABLED, Severity.INFO
            elif self.target.strict_fields:
                rule, severity = UnknownFieldRule.STRICT, None
            else:
                rule, severity = UnknownFieldRule.CLIENT_SIDE, None
            self.warnings.append(warn(UnknownField(role=item.role, rule=rule, problems=unknown, judged=judged,
                                                   object_meta=meta_only),
                                      item.ref, fails=rule is UnknownFieldRule.STRICT, severity=severity))


def predict(target: Target, objects: Iterable[Applied], crd_objects: Iterable[Mapping[str, Any]],
            crds_dir: Iterable[tuple[str, Mapping[str, Any]]] = (), created: bool = True) -> list[Warning]:
    """Kinds and schemas: the predicted failures (and deprecations) of every object Helm builds.
    `crd_objects` are the CRDs the release applies (templates, hooks); `crds_dir` the chart's
    crds/ files (source, CRD), which Helm creates only on install (`created`): on an upgrade one
    counts only where the cluster serves its kind, or where what it serves is not known (it was
    created by the install)."""
    known: dict[tuple[str, str], _Crd] = {}
    uncreated: dict[tuple[str, str], str] = {}
    for source, obj in crds_dir:
        for key, crd in chart_crds([obj]).items():
            if created or target.served is None or any(
                    f"{crd.group}/{version} {crd.kind}" in target.served for version in crd.versions):
                known[key] = crd
            else:
                uncreated[key] = source
    applied = chart_crds(crd_objects)
    known.update(applied)
    predictor = _Predictor(target, known, {k: v for k, v in uncreated.items() if k not in applied})
    for item in objects:
        how = predictor.kind(item)
        if how is not None and item.apply:
            predictor.schema(item, how)
    if predictor.unchecked:
        predictor.warnings.append(warn(KindsNotChecked(kinds=tuple(predictor.unchecked))))
    return predictor.warnings


def namespace_warning(target: Target, release_namespace: str) -> list[Warning]:
    """An install into a namespace that does not exist, without --create-namespace: Helm's
    first write there (the release record, or the first namespaced object) fails with
    `namespaces "NS" not found`, even when the chart itself declares that Namespace."""
    if target.namespace_exists is not False or target.create_namespace:
        return []
    return [warn(NamespaceMissing(namespace=release_namespace))]


def hook_collisions(target: Target, tasks: Iterable[TaskPlan], live_of: Callable[[ResourceRef], Mapping[str, Any] | None] | None,
                    ran_before: Callable[[ResourceRef], bool]) -> list[Warning]:
    """Hooks (the ones that run on this action) whose delete policy does not remove the previous
    run's object before creating it again. `live_of` answers for objects whose kind was read live (None: not read at all);
    `ran_before`: the hook was in the previous release (it may have left its object)."""
    out: list[Warning] = []
    for task in tasks:
        if not task.delete_policies or "before-hook-creation" in task.delete_policies:
            continue
        for ref in task.resources:
            if ref.kind == "CustomResourceDefinition" or ref.generate_name:
                continue
            live = live_of(ref) if live_of is not None else None
            policies = tuple(task.delete_policies)
            if live is not None:
                if target.client_side_hooks:
                    out.append(warn(HookCollision(rule=HookCollisionRule.EXISTS, delete_policies=policies), ref,
                                    fails=True))
                else:
                    out.append(warn(HookCollision(rule=HookCollisionRule.EXISTS_SERVER_SIDE, delete_policies=policies),
                                    ref))
            elif ran_before(ref) and live_of is None:
                out.append(warn(HookCollision(rule=HookCollisionRule.MAY_EXIST, delete_policies=policies), ref,
                                severity=Severity.INFO))
    return out


__all__ = ["Applied", "Problem", "SchemaChecker", "Target", "chart_crds", "hook_collisions",
           "namespace_warning", "predict"]
