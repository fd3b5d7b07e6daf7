"""Unit tests of deployah_plan/core/validate.py: what the API server refuses before Helm changes
anything, predicted from the rendered objects.

Fast (no helm, no API server): scripts/mutation runs these against mutants of validate.py. The
expected verdicts are Kubernetes' documented behaviour:
- a built-in object is decoded into its Go type: a JSON value of the wrong type is refused
  ("cannot unmarshal string into Go struct field ... of type int32"); an integer field takes
  `3.0` (YAML floats that are whole reach the server as `3`); int-or-string takes either;
  quantities take a string or a number; null means "not set";
- a custom resource is validated against its CRD version's `openAPIV3Schema` (types,
  `required`, `additionalProperties`, `x-kubernetes-int-or-string`,
  `x-kubernetes-preserve-unknown-fields`); its metadata is checked as ObjectMeta, and its status
  is ignored on create and update when the status subresource is on;
- an unknown field is an error only with `fieldValidation=Strict` (Helm 4's server-side apply),
  a warning with the server's default (Warn, client-side apply), dropped silently with Ignore
  (`--disable-openapi-validation`);
- a kind a version does not serve fails the REST mapping: "no matches for kind K in version V"
  (removals from the Kubernetes deprecation guide: autoscaling/v2beta2 HPA in 1.26,
  policy/v1beta1 PodDisruptionBudget and PodSecurityPolicy in 1.25, flowcontrol v1beta1 in 1.26);
- a CRD version is served only when `served: true` (a plain Go bool: left out, it is false);
- Helm deletes a hook's previous object before creating it again only with the
  `before-hook-creation` policy, the default when a hook sets none (pkg/action/hooks.go).
"""
from __future__ import annotations

import copy
from typing import Any, Mapping

import pytest

from deployah_plan.codes import Code
from deployah_plan.core.kube_api import table
from deployah_plan.core.validate import (
    Applied, Problem, SchemaChecker, Target, hook_collisions, namespace_warning, predict, schema_type,
)
from deployah_plan.facts import (
    ApiDeprecated, ApiKind, ApiNotServed, CrdMissing, HookCollision, HookCollisionRule, Judged, KindsNotChecked,
    NamespaceMissing, NotServedRule, ProblemKind, Role, SchemaInvalid, SchemaProblem, SchemaType, UnknownField,
    UnknownFieldRule, VersionSource,
)
from deployah_plan.model import ResourceRef, Severity, TaskAction, TaskPhase, TaskPlan, Warning

# --- the schema walk, on compact types written out by hand (see core/compact_schema.py) ------

TYPES: dict[str, Any] = {
    "Root": {"p": {"name": "s", "count": "i", "ratio": "n", "on": "b", "size": "q", "port": "x", "any": "a",
                   "child": "#Child", "items": "[#Child", "tags": "[s", "free": "[a", "labels": "{s", "extra": "{a",
                   "open": "#Open", "ghost": "#Missing"},
             "r": ["name"]},
    "Child": {"p": {"id": "i", "note": "s"}, "r": ["id"]},
    "Open": {"p": {"known": "i"}, "u": 1},
}
CHECKER = SchemaChecker(TYPES)
Path = tuple[str | int, ...]


def _wrong(path: Path, found: str, wants: SchemaType) -> Problem:
    return SchemaProblem(path=path, problem=ProblemKind.TYPE, found=found, wants=wants)


def _required(path: Path) -> Problem:
    return SchemaProblem(path=path, problem=ProblemKind.REQUIRED)


def _unknown(path: Path, near: Path | None = None) -> Problem:
    return SchemaProblem(path=path, problem=ProblemKind.UNKNOWN, near=near)


def _check(**fields: Any) -> list[Problem]:
    return CHECKER.check({"name": "n", **fields}, "Root")


@pytest.mark.parametrize(("field", "value"), [
    ("name", "text"), ("count", 3), ("count", 3.0), ("count", -2), ("ratio", 1), ("ratio", 0.5),
    ("size", "1Gi"), ("size", 2), ("size", 0.5), ("port", 80), ("port", "http"), ("port", 8080.0),
    ("on", True), ("on", False), ("any", True), ("any", "x"), ("any", [1, {"a": None}]), ("any", {"k": False}),
    ("child", {"id": 1}), ("items", [{"id": 1}, {"id": 2.0, "note": "x"}]), ("items", []), ("tags", ["a", "b"]),
    ("free", [True, 1, "x", {"y": []}]), ("labels", {"a": "b", "c": ""}), ("extra", {"a": True, "b": [1]}),
    ("open", {"known": 1, "anything": {"x": True}}), ("ghost", {"whatever": 1}),
    # null is "not set", wherever it is
    ("count", None), ("child", None), ("items", None), ("labels", None), ("on", None),
])
def test_every_form_the_api_server_accepts(field: str, value: Any) -> None:
    assert _check(**{field: value}) == []


@pytest.mark.parametrize(("field", "value", "problem"), [
    ("name", 1, _wrong(("name",), "integer", SchemaType.STRING)),
    ("name", True, _wrong(("name",), "boolean", SchemaType.STRING)),
    ("name", 1.5, _wrong(("name",), "number", SchemaType.STRING)),
    ("count", "3", _wrong(("count",), "string", SchemaType.INTEGER)),
    ("count", True, _wrong(("count",), "boolean", SchemaType.INTEGER)),
    ("count", 1.5, _wrong(("count",), "number", SchemaType.INTEGER)),
    ("ratio", "1", _wrong(("ratio",), "string", SchemaType.NUMBER)),
    ("ratio", False, _wrong(("ratio",), "boolean", SchemaType.NUMBER)),
    ("size", True, _wrong(("size",), "boolean", SchemaType.QUANTITY)),
    ("size", [1], _wrong(("size",), "list", SchemaType.QUANTITY)),
    ("port", 1.5, _wrong(("port",), "number", SchemaType.INT_OR_STRING)),
    ("port", True, _wrong(("port",), "boolean", SchemaType.INT_OR_STRING)),
    ("port", {"a": 1}, _wrong(("port",), "object", SchemaType.INT_OR_STRING)),
    ("on", "true", _wrong(("on",), "string", SchemaType.BOOLEAN)),
    ("on", 1, _wrong(("on",), "integer", SchemaType.BOOLEAN)),
    ("on", 1.0, _wrong(("on",), "number", SchemaType.BOOLEAN)),
    ("on", [True], _wrong(("on",), "list", SchemaType.BOOLEAN)),
    ("child", "x", _wrong(("child",), "string", SchemaType.OBJECT)),
    ("child", [{"id": 1}], _wrong(("child",), "list", SchemaType.OBJECT)),
    ("items", {"id": 1}, _wrong(("items",), "object", SchemaType.LIST)),
    ("items", "x", _wrong(("items",), "string", SchemaType.LIST)),
    ("free", {"a": 1}, _wrong(("free",), "object", SchemaType.LIST)),
    ("labels", ["a"], _wrong(("labels",), "list", SchemaType.MAP)),
    ("labels", "a=b", _wrong(("labels",), "string", SchemaType.MAP)),
    ("extra", [1], _wrong(("extra",), "list", SchemaType.MAP)),
    ("labels", {"a": "b", "c": 1}, _wrong(("labels", "c"), "integer", SchemaType.STRING)),
    ("tags", ["a", 1], _wrong(("tags", 1), "integer", SchemaType.STRING)),
    ("items", [{"id": 1}, {"id": "two"}], _wrong(("items", 1, "id"), "string", SchemaType.INTEGER)),
    ("items", [{"note": "x"}], _required(("items", 0, "id"))),
    ("child", {"id": None}, _required(("child", "id"))),
    ("open", {"known": "one", "other": 1}, _wrong(("open", "known"), "string", SchemaType.INTEGER)),
])
def test_what_the_api_server_refuses(field: str, value: Any, problem: Problem) -> None:
    assert _check(**{field: value}) == [problem]


def test_a_required_field_missing_or_null() -> None:
    assert CHECKER.check({}, "Root") == [_required(("name",))]
    assert CHECKER.check({"name": None}, "Root") == [_required(("name",))]


def test_unknown_fields_with_a_suggestion_when_one_is_close() -> None:
    assert _check(nmae="x") == [_unknown(("nmae",), ("name",))]
    assert _check(child={"id": 1, "nots": "x"}) == [_unknown(("child", "nots"), ("child", "note"))]
    assert _check(zzzzzz=1) == [_unknown(("zzzzzz",))]
    # every field is looked at, after an unknown one too
    assert _check(cuont=1, count="x") == [_unknown(("cuont",), ("count",)),
                                          _wrong(("count",), "string", SchemaType.INTEGER)]


def test_paths_name_keys_that_are_not_plain_words_in_brackets() -> None:
    assert _check(labels={"app.kubernetes.io/name": 1}) == [
        _wrong(("labels", "app.kubernetes.io/name"), "integer", SchemaType.STRING)]
    assert _check(labels={"max-surge_x": 1, "-": 2, "_": 3}) == [
        _wrong(("labels", "max-surge_x"), "integer", SchemaType.STRING),
        _wrong(("labels", "-"), "integer", SchemaType.STRING),
        _wrong(("labels", "_"), "integer", SchemaType.STRING)]
    assert _check(**{"a.b": 1}) == [_unknown(("a.b",))]
    # an object checked in its place in a larger one: its fields, and the suggestions, start there
    assert CHECKER.check({"nmae": "x"}, "Root", (), ("spec",)) == [
        _unknown(("spec", "nmae"), ("spec", "name")), _required(("spec", "name"))]


def test_apiversion_kind_and_status_are_not_the_schemas_business() -> None:
    obj = {"apiVersion": "v1", "kind": "Root", "name": "n", "status": {"anything": 1}}
    assert CHECKER.check(obj, "Root") == []
    assert [p.path for p in CHECKER.check(obj, "Root", ())] == [("apiVersion",), ("kind",), ("status",)]
    assert CHECKER.check({"name": 1}, "NoSuchType") == []


def test_schema_type_names_each_json_value_as_a_schema_does() -> None:
    values: list[Any] = [True, 1, 1.5, "s", [], {}]
    assert [schema_type(v) for v in values] == [
        "a boolean", "an integer", "a number", "a string", "a list", "an object"]


# --- objects against the committed table ------------------------------------------------------

def _target(version: str = "1.34", **flags: Any) -> Target:
    return Target(version, VersionSource.FLAG, table(), **flags)


STRICT = _target(strict_fields=True)
JUDGED = Judged("1.34", VersionSource.FLAG)


def _ref(obj: Mapping[str, Any]) -> ResourceRef:
    kind = obj["kind"]
    namespace = "" if kind in ("CustomResourceDefinition", "PodSecurityPolicy", "FlowSchema") else "ns"
    return ResourceRef(obj["apiVersion"], kind, namespace, obj["metadata"]["name"])


def _predict(*objs: Mapping[str, Any], target: Target = STRICT, crds: list[dict[str, Any]] | None = None,
             role: Role = Role.RELEASE, apply: bool = True) -> list[Warning]:
    return predict(target, [Applied(_ref(o), o, apply, role) for o in objs], crds or [])


def _not_served(api_version: str, kind: str, judged: Judged | None, removed_in: str = "", replacement: str = "", *,
                rule: NotServedRule = NotServedRule.TARGET, role: Role = Role.RELEASE,
                served: tuple[str, ...] = ()) -> ApiNotServed:
    return ApiNotServed(role=role, api_version=api_version, kind=kind, rule=rule, judged=judged,
                        removed_in=removed_in, replacement=replacement, served=served)


def _configmap(**top: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, **top}


def _deployment(replicas: Any = 2, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {
        "replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "app", "image": "nginx"}]}},
        **spec}}


def test_a_wrong_type_fails_whatever_the_apply_method() -> None:
    cm = _configmap(data={"port": 8080})
    expected = Warning(Code.SCHEMA_INVALID, SchemaInvalid(
        role=Role.RELEASE, problems=(_wrong(("data", "port"), "integer", SchemaType.STRING),), judged=JUDGED),
        Severity.WARNING, _ref(cm), True)
    for target in (STRICT, _target(), _target(validate_fields=False)):
        assert _predict(cm, target=target) == [expected]


def test_every_problem_is_in_the_facts() -> None:
    seven = _configmap(data={k: 1 for k in "abcdefg"})
    (warning,) = _predict(seven)
    assert isinstance(warning.facts, SchemaInvalid)
    assert warning.facts.problems == tuple(_wrong(("data", k), "integer", SchemaType.STRING) for k in "abcdefg")


def test_an_unknown_field_by_field_validation() -> None:
    cm = _configmap(dta={"a": "b"})
    field = (_unknown(("dta",), ("data",)),)
    assert _predict(cm, target=STRICT) == [Warning(
        Code.UNKNOWN_FIELD, UnknownField(role=Role.RELEASE, rule=UnknownFieldRule.STRICT, problems=field, judged=JUDGED),
        Severity.WARNING, _ref(cm), True)]
    assert _predict(cm, target=_target()) == [Warning(
        Code.UNKNOWN_FIELD, UnknownField(role=Role.RELEASE, rule=UnknownFieldRule.CLIENT_SIDE, problems=field,
                                         judged=JUDGED), Severity.WARNING, _ref(cm), False)]
    for target in (_target(validate_fields=False), _target(validate_fields=False, strict_fields=True)):
        assert _predict(cm, target=target) == [Warning(
            Code.UNKNOWN_FIELD, UnknownField(role=Role.RELEASE, rule=UnknownFieldRule.VALIDATION_DISABLED,
                                             problems=field, judged=JUDGED), Severity.INFO, _ref(cm), False)]


def test_every_unknown_field_is_in_the_facts() -> None:
    six = _configmap(**{f"zz{i}": 1 for i in range(6)})
    (warning,) = _predict(six)
    assert isinstance(warning.facts, UnknownField)
    assert warning.facts.problems == tuple(_unknown((f"zz{i}",)) for i in range(6))


def test_a_wrong_type_and_an_unknown_field_are_two_warnings() -> None:
    cm = _configmap(data={"a": 1}, dta={})
    assert [(w.code, w.fails) for w in _predict(cm)] == [(Code.SCHEMA_INVALID, True), (Code.UNKNOWN_FIELD, True)]


def test_only_objects_sent_to_the_server_are_validated() -> None:
    bad = _configmap(data={"a": 1}, dta={})
    assert _predict(bad, apply=False) == []
    assert _predict(bad, apply=False, role=Role.PREVIOUS_RELEASE) == []


def test_the_oldest_version_of_the_table_has_schemas_and_an_older_one_none() -> None:
    (warning,) = _predict(_deployment("two"), target=_target("1.25"))
    assert warning.code is Code.SCHEMA_INVALID and isinstance(warning.facts, SchemaInvalid)
    assert warning.facts.problems == (_wrong(("spec", "replicas"), "string", SchemaType.INTEGER),)
    assert warning.facts.judged == Judged("1.25", VersionSource.FLAG)
    assert _predict(_deployment("two"), target=_target("1.24")) == []


# --- kinds a version serves ---------------------------------------------------------------------

HPA = {"apiVersion": "autoscaling/v2beta2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"},
       "spec": {"maxReplicas": 3, "scaleTargetRef": {"kind": "Deployment", "name": "web"}}}
PSP = {"apiVersion": "policy/v1beta1", "kind": "PodSecurityPolicy", "metadata": {"name": "p"}, "spec": {}}
V130 = Judged("1.30", VersionSource.FLAG)


def test_a_removed_api_fails_and_names_its_replacement() -> None:
    assert _predict(HPA, target=_target("1.30")) == [Warning(
        Code.API_NOT_SERVED, _not_served("autoscaling/v2beta2", "HorizontalPodAutoscaler", V130, "1.26", "autoscaling/v2"),
        Severity.WARNING, _ref(HPA), True)]


def test_the_replacement_is_one_the_target_version_serves() -> None:
    # flowcontrol v1beta1 went in 1.26; v1 came in 1.29: on 1.28 the newest served is v1beta3
    fs = {"apiVersion": "flowcontrol.apiserver.k8s.io/v1beta1", "kind": "FlowSchema", "metadata": {"name": "f"}}
    (warning,) = _predict(fs, target=_target("1.28"))
    assert warning.facts == _not_served("flowcontrol.apiserver.k8s.io/v1beta1", "FlowSchema",
                                        Judged("1.28", VersionSource.FLAG), "1.26", "flowcontrol.apiserver.k8s.io/v1beta3")


def test_a_removed_api_without_replacement() -> None:
    assert _predict(PSP, target=_target("1.25")) == [Warning(
        Code.API_NOT_SERVED, _not_served("policy/v1beta1", "PodSecurityPolicy", Judged("1.25", VersionSource.FLAG),
                                         "1.25"), Severity.WARNING, _ref(PSP), True)]


def test_a_kind_a_builtin_group_never_had() -> None:
    widget = {"apiVersion": "apps/v1", "kind": "Widget", "metadata": {"name": "w"}}
    (warning,) = _predict(widget)
    assert warning.facts == _not_served("apps/v1", "Widget", JUDGED)


def test_a_kind_with_a_space_in_its_name_is_not_served() -> None:
    odd = {"apiVersion": "apps/v1", "kind": "Foo Bar", "metadata": {"name": "x"}}
    (warning,) = _predict(odd)
    assert (warning.code, warning.fails) == (Code.API_NOT_SERVED, True)
    assert warning.facts == _not_served("apps/v1", "Foo Bar", JUDGED)


def test_what_the_charts_crds_folder_holds_is_judged_by_its_own_kind() -> None:
    # Helm creates every document of crds/ as it is, whatever its kind
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "tools"}}
    label = ResourceRef("v1", "CustomResourceDefinition", "", "tools")
    assert predict(STRICT, [Applied(label, ns, True, Role.CHART_CRD)], []) == []
    old = _crd(api="apiextensions.k8s.io/v1beta1", version="v1")
    ref = ResourceRef("apiextensions.k8s.io/v1beta1", "CustomResourceDefinition", "", "widgets.example.com")
    (warning,) = predict(_target("1.25"), [Applied(ref, old, True, Role.CHART_CRD)], [old])
    assert (warning.resource, warning.fails) == (ref, True)
    assert warning.facts == _not_served("apiextensions.k8s.io/v1beta1", "CustomResourceDefinition",
                                        Judged("1.25", VersionSource.FLAG), "1.22", "apiextensions.k8s.io/v1",
                                        role=Role.CHART_CRD)


def test_a_deprecated_api_is_a_warning_once_per_kind() -> None:
    other = {**HPA, "metadata": {"name": "h2"}}
    assert _predict(HPA, other, target=_target("1.25")) == [Warning(
        Code.API_DEPRECATED, ApiDeprecated(api_version="autoscaling/v2beta2", kind="HorizontalPodAutoscaler",
                                           judged=Judged("1.25", VersionSource.FLAG), removed_in="1.26",
                                           replacement="autoscaling/v2"), Severity.WARNING, _ref(HPA), False)]


def test_each_kind_is_judged_as_itself_whatever_came_before() -> None:
    cm, deploy = _configmap(data={"a": 1}), _deployment("two")
    assert [w.facts.problems for w in _predict(cm, deploy, cm) if isinstance(w.facts, SchemaInvalid)] == [
        (_wrong(("data", "a"), "integer", SchemaType.STRING),),
        (_wrong(("spec", "replicas"), "string", SchemaType.INTEGER),),
        (_wrong(("data", "a"), "integer", SchemaType.STRING),)]
    # the previous release's copy of a deprecated kind does not hide the chart's from the warning
    (warning,) = predict(_target("1.25"), [Applied(_ref(HPA), HPA, False, Role.PREVIOUS_RELEASE),
                                           Applied(_ref(HPA), HPA)], [])
    assert warning.code is Code.API_DEPRECATED


def test_a_deprecated_api_without_replacement_before_the_table() -> None:
    # 1.24 still serves PodSecurityPolicy; the table has no schemas that old, so nothing else is said
    assert _predict(PSP, target=_target("1.24")) == [Warning(
        Code.API_DEPRECATED, ApiDeprecated(api_version="policy/v1beta1", kind="PodSecurityPolicy",
                                           judged=Judged("1.24", VersionSource.FLAG), removed_in="1.25",
                                           replacement=""), Severity.WARNING, _ref(PSP), False)]


def test_the_previous_release_is_mapped_not_judged_for_deprecation() -> None:
    assert _predict(HPA, target=_target("1.25"), role=Role.PREVIOUS_RELEASE, apply=False) == []
    assert _predict(HPA, target=_target("1.30"), role=Role.PREVIOUS_RELEASE, apply=False) == [Warning(
        Code.API_NOT_SERVED, _not_served("autoscaling/v2beta2", "HorizontalPodAutoscaler", V130, "1.26", "autoscaling/v2",
                                         role=Role.PREVIOUS_RELEASE), Severity.WARNING, _ref(HPA), True)]


def test_a_hook_is_named_as_one() -> None:
    (warning,) = _predict(HPA, target=_target("1.30"), role=Role.HOOK)
    assert isinstance(warning.facts, ApiNotServed) and warning.facts.role is Role.HOOK


def test_not_served_is_a_warning_when_the_version_is_assumed_or_capabilities_are_helms_defaults() -> None:
    assert _predict(HPA, target=_target("1.30", assumed=True)) == [Warning(
        Code.API_NOT_SERVED, _not_served("autoscaling/v2beta2", "HorizontalPodAutoscaler", V130, "1.26", "autoscaling/v2",
                                         rule=NotServedRule.ASSUMED_VERSION), Severity.WARNING, _ref(HPA), False)]
    assert _predict(HPA, target=_target("1.30", render_defaults=True)) == [Warning(
        Code.API_NOT_SERVED, _not_served("autoscaling/v2beta2", "HorizontalPodAutoscaler", V130, "1.26", "autoscaling/v2",
                                         rule=NotServedRule.OFFLINE_DEFAULTS), Severity.WARNING, _ref(HPA), False)]


def test_custom_kinds_offline_without_their_crd_are_listed_once() -> None:
    kinds = [{"apiVersion": f"k{i}.example.com/v1", "kind": f"K{i}", "metadata": {"name": "x"}} for i in range(6)]
    five = _predict(*kinds[:5], kinds[0])
    listed = tuple(ApiKind(f"K{i}", f"k{i}.example.com/v1") for i in range(5))
    assert five == [Warning(Code.KINDS_NOT_CHECKED, KindsNotChecked(kinds=listed), Severity.INFO, None, False)]
    (six,) = _predict(*kinds)
    assert six.facts == KindsNotChecked(kinds=(*listed, ApiKind("K5", "k5.example.com/v1")))


# --- custom resources and the chart's CRDs -------------------------------------------------------

def _crd(*versions: Any, api: str = "apiextensions.k8s.io/v1", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": api, "kind": "CustomResourceDefinition", "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced", "names": {"kind": "Widget", "plural": "widgets"},
                     "versions": list(versions), **spec}}


SCHEMA = {"openAPIV3Schema": {"type": "object", "properties": {
    "spec": {"type": "object", "required": ["size"], "properties": {
        "size": {"type": "integer"}, "port": {"x-kubernetes-int-or-string": True},
        "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}}}},
    "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}}}}
V1 = {"name": "v1", "served": True, "storage": True, "schema": SCHEMA, "subresources": {"status": {}}}
CRD = _crd(V1)


def _widget(version: str = "v1", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": f"example.com/{version}", "kind": "Widget", "metadata": {"name": "w"},
            "spec": {"size": 3, **spec}}


def test_a_custom_resource_against_its_crd_schema() -> None:
    good = _widget(port="http", extra={"any": [1, {"thing": None}]}, labels={"a": "b"})
    assert _predict(good, crds=[CRD]) == []
    bad = _widget(size="three", colour="red")
    assert _predict(bad, crds=[CRD]) == [
        Warning(Code.SCHEMA_INVALID, SchemaInvalid(
            role=Role.RELEASE, problems=(_wrong(("spec", "size"), "string", SchemaType.INTEGER),), judged=None),
            Severity.WARNING, _ref(bad), True),
        Warning(Code.UNKNOWN_FIELD, UnknownField(
            role=Role.RELEASE, rule=UnknownFieldRule.STRICT, problems=(_unknown(("spec", "colour")),), judged=None),
            Severity.WARNING, _ref(bad), True)]


def test_a_custom_resources_metadata_is_checked_as_objectmeta_and_its_status_ignored() -> None:
    cr = _widget()
    cr["metadata"]["labels"] = {"tier": 1}
    cr["status"] = {"ready": "yes", "whatever": 1}
    (warning,) = _predict(cr, crds=[CRD])
    assert warning.code is Code.SCHEMA_INVALID
    assert warning.facts == SchemaInvalid(
        role=Role.RELEASE, problems=(_wrong(("metadata", "labels", "tier"), "integer", SchemaType.STRING),), judged=None)
    typo = _widget()
    typo["metadata"]["lables"] = {"tier": "web"}
    typo["metadata"]["status"] = "x"  # ObjectMeta has no status: only the object's own status is ignored
    (warning,) = _predict(typo, crds=[CRD])
    assert warning.code is Code.UNKNOWN_FIELD and warning.fails and isinstance(warning.facts, UnknownField)
    assert warning.facts.problems == (_unknown(("metadata", "lables"), ("metadata", "labels")),
                                      _unknown(("metadata", "status")))


def test_a_version_the_crd_does_not_serve() -> None:
    cr = _widget("v2")
    assert _predict(cr, crds=[CRD]) == [Warning(
        Code.API_NOT_SERVED, _not_served("example.com/v2", "Widget", None, rule=NotServedRule.CRD_VERSION,
                                         served=("example.com/v1",)), Severity.WARNING, _ref(cr), True)]
    two = _crd(V1, {"name": "v2beta1", "served": True, "storage": False}, {"name": "v0", "served": False})
    (warning,) = _predict(_widget("v0"), crds=[two])
    assert isinstance(warning.facts, ApiNotServed) and warning.facts.served == ("example.com/v1", "example.com/v2beta1")
    # `served` left out is false, as the API server decodes it
    none = _crd({"name": "v1", "storage": True, "schema": SCHEMA}, {"name": "v2", "served": False})
    (warning,) = _predict(_widget("v1"), crds=[none])
    assert warning.code is Code.API_NOT_SERVED and isinstance(warning.facts, ApiNotServed)
    assert warning.facts.served == ()


def test_a_crd_version_without_a_usable_schema_is_served_and_not_checked() -> None:
    junk = _widget(size="three", colour="red")
    for version in ({"name": "v1", "served": True, "storage": True},
                    {"name": "v1", "served": True, "storage": True, "schema": "nonsense"},
                    {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": "nonsense"}}):
        assert _predict(junk, crds=[_crd(version)]) == []


def test_a_v1beta1_crd_with_one_version() -> None:
    old = _crd(api="apiextensions.k8s.io/v1beta1", version="v1")
    del old["spec"]["versions"]
    assert _predict(_widget(size="three"), crds=[old]) == []
    (warning,) = _predict(_widget("v2"), crds=[old])
    assert isinstance(warning.facts, ApiNotServed) and warning.facts.served == ("example.com/v1",)
    # with a list of versions, the list decides
    both = _crd(V1, {"name": "v0", "served": False}, api="apiextensions.k8s.io/v1beta1", version="v1")
    assert [w.code for w in _predict(_widget(size="three"), crds=[both])] == [Code.SCHEMA_INVALID]


def test_only_apiextensions_crds_define_kinds_and_odd_ones_are_skipped() -> None:
    fake = {**CRD, "apiVersion": "example.com/v1"}
    odd = [_configmap(), fake, {**CRD, "spec": "x"}, {**CRD, "spec": {"group": "example.com", "versions": []}},
           {**CRD, "spec": {**CRD["spec"], "names": "Widget"}}]
    assert [w.code for w in _predict(_widget(), crds=odd)] == [Code.KINDS_NOT_CHECKED]
    # the real one is found after the others
    assert _predict(_widget(size="three"), crds=[*odd, CRD])[0].code is Code.SCHEMA_INVALID
    # version entries that are not versions are skipped
    messy = _crd("v1", {"served": True}, {"name": "", "served": True}, V1)
    assert _predict(_widget(size="three"), crds=[messy])[0].code is Code.SCHEMA_INVALID


# --- against a cluster: discovery and its own OpenAPI schemas ------------------------------------

LIVE_TYPES = {
    "live.Deployment": {"p": {"apiVersion": "s", "kind": "s", "metadata": "a", "spec": "#live.Spec"}},
    "live.Spec": {"p": {"replicas": "i", "selector": "a", "template": "a", "newField": "s"}, "r": ["selector"]},
}
CLUSTER = Judged("1.34", VersionSource.CLUSTER_OPENAPI)


def _live(*served: str, roots: Mapping[str, str] | None = None, **flags: Any) -> Target:
    source = VersionSource.CLUSTER_OPENAPI if roots is not None else VersionSource.CLUSTER_DISCOVERY
    return Target("1.34", source, table(), served=frozenset(served), roots=roots,
                  types=LIVE_TYPES if roots is not None else None, strict_fields=True, **flags)


def test_the_clusters_own_schema_is_the_one_judged() -> None:
    target = _live("apps/v1 Deployment", roots={"apps/v1 Deployment": "live.Deployment"})
    assert _predict(_deployment(newField="x"), target=target) == []
    (warning,) = _predict(_deployment("two"), target=target)
    assert warning.facts == SchemaInvalid(
        role=Role.RELEASE, problems=(_wrong(("spec", "replicas"), "string", SchemaType.INTEGER),), judged=CLUSTER)


def test_a_served_kind_without_the_clusters_schema_is_judged_by_the_table() -> None:
    target = _live("apps/v1 Deployment", "v1 ConfigMap", roots={"apps/v1 Deployment": "live.Deployment"})
    assert [w.code for w in _predict(_configmap(data={"a": 1}), target=target)] == [Code.SCHEMA_INVALID]
    no_schemas = _live("apps/v1 Deployment")
    assert [w.code for w in _predict(_deployment(newField="x"), target=no_schemas)] == [Code.UNKNOWN_FIELD]
    # a custom resource the cluster serves: there is no schema for it here
    assert _predict(_widget(size="three"), target=_live("example.com/v1 Widget", roots={})) == []


def test_a_kind_the_cluster_does_not_serve() -> None:
    target = _live("apps/v1 Deployment")
    assert _predict(_widget(), target=target) == [Warning(
        Code.CRD_MISSING, CrdMissing(role=Role.RELEASE, api_version="example.com/v1", kind="Widget"), Severity.WARNING,
        _ref(_widget()), True)]
    (removed,) = _predict(HPA, target=target)
    assert removed.facts == _not_served("autoscaling/v2beta2", "HorizontalPodAutoscaler",
                                        Judged("1.34", VersionSource.CLUSTER_DISCOVERY), "1.26", "autoscaling/v2")
    assert removed.fails and removed.resource == _ref(HPA)
    # the chart's CRD answers before the cluster does
    assert _predict(_widget(size="three"), target=target, crds=[CRD])[0].code is Code.SCHEMA_INVALID


def test_a_deprecated_kind_the_cluster_serves() -> None:
    target = _live("autoscaling/v2beta2 HorizontalPodAutoscaler")
    assert [(w.code, w.facts) for w in _predict(HPA, target=target)] == [(
        Code.API_DEPRECATED, ApiDeprecated(api_version="autoscaling/v2beta2", kind="HorizontalPodAutoscaler",
                                           judged=Judged("1.34", VersionSource.CLUSTER_DISCOVERY), removed_in="1.26",
                                           replacement="autoscaling/v2"))]


# --- the release namespace ------------------------------------------------------------------------

def test_a_missing_namespace_fails_without_create_namespace() -> None:
    missing = _target(namespace_exists=False)
    assert namespace_warning(missing, "shop") == [Warning(
        Code.NAMESPACE_MISSING, NamespaceMissing(namespace="shop"), Severity.WARNING, None, True)]
    assert namespace_warning(_target(namespace_exists=False, create_namespace=True), "shop") == []
    assert namespace_warning(_target(namespace_exists=True), "shop") == []
    assert namespace_warning(_target(), "shop") == []  # not known


# --- hooks whose previous object remains --------------------------------------------------------

JOB = ResourceRef("batch/v1", "Job", "ns", "migrate")
OTHER = ResourceRef("batch/v1", "Job", "ns", "seed")


def _hook(*policies: str, resources: tuple[ResourceRef, ...] = (JOB,)) -> TaskPlan:
    return TaskPlan("migrate", TaskPhase.PRE_DEPLOY, TaskAction.CREATE, ("pre-upgrade",), 0, policies,
                    resources=resources)


def _collisions(task: TaskPlan, live: Mapping[ResourceRef, Mapping[str, Any]] | None, ran: set[ResourceRef] = set(),
                client_side: bool = True) -> list[Warning]:
    return hook_collisions(_target(client_side_hooks=client_side), [task],
                           None if live is None else live.get, lambda ref: ref in ran)


def test_a_hook_without_before_hook_creation_collides_with_its_live_object() -> None:
    live = {JOB: {"kind": "Job"}}
    assert _collisions(_hook("hook-succeeded"), live) == [Warning(
        Code.HOOK_COLLISION, HookCollision(rule=HookCollisionRule.EXISTS, delete_policies=("hook-succeeded",)),
        Severity.WARNING, JOB, True)]
    assert _collisions(_hook("hook-succeeded", "hook-failed"), live, client_side=False) == [Warning(
        Code.HOOK_COLLISION, HookCollision(rule=HookCollisionRule.EXISTS_SERVER_SIDE,
                                           delete_policies=("hook-succeeded", "hook-failed")),
        Severity.WARNING, JOB, False)]


def test_before_hook_creation_explicit_or_by_default_never_collides() -> None:
    live = {JOB: {"kind": "Job"}}
    assert _collisions(_hook(), live, {JOB}) == []
    assert _collisions(_hook("hook-succeeded", "before-hook-creation"), live, {JOB}) == []
    assert _collisions(_hook(), None, {JOB}) == []


def test_each_hook_and_each_of_its_resources_is_looked_at() -> None:
    live = {OTHER: {"kind": "Job"}, JOB: {"kind": "Job"}}
    seed = TaskPlan("seed", TaskPhase.POST_DEPLOY, TaskAction.CREATE, ("post-upgrade",), 0, ("hook-succeeded",),
                    resources=(OTHER,))
    found = hook_collisions(_target(), [_hook(), seed], live.get, lambda ref: True)
    assert [(w.resource, w.fails) for w in found] == [(OTHER, True)]
    live = {OTHER: {"kind": "Job"}}
    (warning,) = _collisions(_hook("hook-succeeded", resources=(JOB, OTHER)), live)
    assert warning.resource == OTHER and warning.fails
    # read and absent: nothing to collide with, even when it ran before
    assert _collisions(_hook("hook-succeeded"), {}, {JOB}) == []


def test_crds_and_generated_names_never_collide() -> None:
    crd = ResourceRef("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "widgets.example.com")
    generated = ResourceRef("batch/v1", "Job", "ns", "", generate_name="migrate-")
    live = {crd: {"kind": "CustomResourceDefinition"}, generated: {"kind": "Job"}}
    assert _collisions(_hook("hook-succeeded", resources=(crd, generated)), live, {crd, generated}) == []
    found = _collisions(_hook("hook-succeeded", resources=(crd, generated, JOB)), {**live, JOB: {}})
    assert [w.resource for w in found] == [JOB]


def test_without_the_live_state_a_hook_that_ran_before_may_collide() -> None:
    assert _collisions(_hook("hook-failed"), None, {JOB}) == [Warning(
        Code.HOOK_COLLISION, HookCollision(rule=HookCollisionRule.MAY_EXIST, delete_policies=("hook-failed",)),
        Severity.INFO, JOB, False)]
    assert _collisions(_hook("hook-failed"), None, set()) == []
    assert _collisions(_hook("hook-failed", resources=(JOB, OTHER)), None, {OTHER})[0].resource == OTHER


def test_inputs_are_not_changed() -> None:
    cr = _widget(size="three")
    crd = copy.deepcopy(CRD)
    before = (copy.deepcopy(cr), copy.deepcopy(crd))
    _predict(cr, crds=[crd])
    assert (cr, crd) == before
