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
    Applied, Problem, SchemaChecker, Target, hook_collisions, json_type, namespace_warning, predict,
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
    ("name", 1, Problem("name", "type", "an integer where the schema wants a string")),
    ("name", True, Problem("name", "type", "a boolean where the schema wants a string")),
    ("name", 1.5, Problem("name", "type", "a number where the schema wants a string")),
    ("count", "3", Problem("count", "type", "a string where the schema wants an integer")),
    ("count", True, Problem("count", "type", "a boolean where the schema wants an integer")),
    ("count", 1.5, Problem("count", "type", "a number where the schema wants an integer")),
    ("ratio", "1", Problem("ratio", "type", "a string where the schema wants a number")),
    ("ratio", False, Problem("ratio", "type", "a boolean where the schema wants a number")),
    ("size", True, Problem("size", "type", "a boolean where the schema wants a quantity (string or number)")),
    ("size", [1], Problem("size", "type", "a list where the schema wants a quantity (string or number)")),
    ("port", 1.5, Problem("port", "type", "a number where the schema wants an integer or a string")),
    ("port", True, Problem("port", "type", "a boolean where the schema wants an integer or a string")),
    ("port", {"a": 1}, Problem("port", "type", "an object where the schema wants an integer or a string")),
    ("on", "true", Problem("on", "type", "a string where the schema wants a boolean")),
    ("on", 1, Problem("on", "type", "an integer where the schema wants a boolean")),
    ("on", 1.0, Problem("on", "type", "a number where the schema wants a boolean")),
    ("on", [True], Problem("on", "type", "a list where the schema wants a boolean")),
    ("child", "x", Problem("child", "type", "a string where the schema wants an object")),
    ("child", [{"id": 1}], Problem("child", "type", "a list where the schema wants an object")),
    ("items", {"id": 1}, Problem("items", "type", "an object where the schema wants a list")),
    ("items", "x", Problem("items", "type", "a string where the schema wants a list")),
    ("free", {"a": 1}, Problem("free", "type", "an object where the schema wants a list")),
    ("labels", ["a"], Problem("labels", "type", "a list where the schema wants a map")),
    ("labels", "a=b", Problem("labels", "type", "a string where the schema wants a map")),
    ("extra", [1], Problem("extra", "type", "a list where the schema wants a map")),
    ("labels", {"a": "b", "c": 1}, Problem("labels.c", "type", "an integer where the schema wants a string")),
    ("tags", ["a", 1], Problem("tags[1]", "type", "an integer where the schema wants a string")),
    ("items", [{"id": 1}, {"id": "two"}], Problem("items[1].id", "type", "a string where the schema wants an integer")),
    ("items", [{"note": "x"}], Problem("items[0].id", "required", "")),
    ("child", {"id": None}, Problem("child.id", "required", "")),
    ("open", {"known": "one", "other": 1}, Problem("open.known", "type", "a string where the schema wants an integer")),
])
def test_what_the_api_server_refuses(field: str, value: Any, problem: Problem) -> None:
    assert _check(**{field: value}) == [problem]


def test_a_required_field_missing_or_null() -> None:
    assert CHECKER.check({}, "Root") == [Problem("name", "required", "")]
    assert CHECKER.check({"name": None}, "Root") == [Problem("name", "required", "")]


def test_unknown_fields_with_a_suggestion_when_one_is_close() -> None:
    assert _check(nmae="x") == [Problem("nmae", "unknown", "did you mean name?")]
    assert _check(child={"id": 1, "nots": "x"}) == [Problem("child.nots", "unknown", "did you mean child.note?")]
    assert _check(zzzzzz=1) == [Problem("zzzzzz", "unknown", "")]
    # every field is looked at, after an unknown one too
    assert _check(cuont=1, count="x") == [Problem("cuont", "unknown", "did you mean count?"),
                                          Problem("count", "type", "a string where the schema wants an integer")]


def test_paths_name_keys_that_are_not_plain_words_in_brackets() -> None:
    assert _check(labels={"app.kubernetes.io/name": 1}) == [
        Problem("labels['app.kubernetes.io/name']", "type", "an integer where the schema wants a string")]
    assert _check(labels={"max-surge_x": 1, "-": 2, "_": 3}) == [
        Problem("labels.max-surge_x", "type", "an integer where the schema wants a string"),
        Problem("labels['-']", "type", "an integer where the schema wants a string"),
        Problem("labels['_']", "type", "an integer where the schema wants a string")]
    assert _check(**{"a.b": 1}) == [Problem("['a.b']", "unknown", "")]
    # an object checked in its place in a larger one: its fields, and the suggestions, start there
    assert CHECKER.check({"nmae": "x"}, "Root", (), "spec") == [
        Problem("spec.nmae", "unknown", "did you mean spec.name?"), Problem("spec.name", "required", "")]


def test_apiversion_kind_and_status_are_not_the_schemas_business() -> None:
    obj = {"apiVersion": "v1", "kind": "Root", "name": "n", "status": {"anything": 1}}
    assert CHECKER.check(obj, "Root") == []
    assert [p.path for p in CHECKER.check(obj, "Root", ())] == ["apiVersion", "kind", "status"]
    assert CHECKER.check({"name": 1}, "NoSuchType") == []


def test_json_type_names_each_json_value() -> None:
    values: list[Any] = [True, 1, 1.5, "s", [], {}]
    assert [json_type(v) for v in values] == [
        "a boolean", "an integer", "a number", "a string", "a list", "an object"]


# --- objects against the committed table ------------------------------------------------------

def _target(version: str = "1.34", **flags: Any) -> Target:
    return Target(version, "from --kube-version", table(), **flags)


STRICT = _target(strict_fields=True)
JUDGED = "Kubernetes 1.34 (from --kube-version)"


def _ref(obj: Mapping[str, Any]) -> ResourceRef:
    kind = obj["kind"]
    namespace = "" if kind in ("CustomResourceDefinition", "PodSecurityPolicy", "FlowSchema") else "ns"
    return ResourceRef(obj["apiVersion"], kind, namespace, obj["metadata"]["name"])


def _predict(*objs: Mapping[str, Any], target: Target = STRICT, crds: list[dict[str, Any]] | None = None,
             what: str = "", apply: bool = True) -> list[Warning]:
    return predict(target, [Applied(_ref(o), o, apply, what) for o in objs], crds or [])


def _configmap(**top: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, **top}


def _deployment(replicas: Any = 2, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {
        "replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "app", "image": "nginx"}]}},
        **spec}}


def test_a_wrong_type_fails_whatever_the_apply_method() -> None:
    cm = _configmap(data={"port": 8080})
    expected = Warning(Code.SCHEMA_INVALID, "ConfigMap ns/c: the API server rejects it: data.port is an integer where "
                       f"the schema wants a string (judged against the schema of {JUDGED}); fix the values or the "
                       "template", Severity.WARNING, _ref(cm), True)
    for target in (STRICT, _target(), _target(validate_fields=False)):
        assert _predict(cm, target=target) == [expected]


def test_five_problems_are_named_and_the_rest_counted() -> None:
    five = _configmap(data={k: 1 for k in "abcde"})
    (warning,) = _predict(five)
    listed = "; ".join(f"data.{k} is an integer where the schema wants a string" for k in "abcde")
    assert warning.message == (f"ConfigMap ns/c: the API server rejects it: {listed} (judged against the schema of "
                               f"{JUDGED}); fix the values or the template")
    six = _configmap(data={k: 1 for k in "abcdef"})
    (warning,) = _predict(six)
    assert f"{listed}; and 1 more (judged" in warning.message and "data.f" not in warning.message
    seven = _configmap(data={k: 1 for k in "abcdefg"})
    (warning,) = _predict(seven)
    assert f"{listed}; and 2 more (judged" in warning.message


def test_an_unknown_field_by_field_validation() -> None:
    cm = _configmap(dta={"a": "b"})
    field = "dta is unknown (did you mean data?)"
    assert _predict(cm, target=STRICT) == [Warning(
        Code.UNKNOWN_FIELD, f"ConfigMap ns/c: server-side apply with strict field validation rejects unknown fields: "
        f"{field} (judged against the schema of {JUDGED}); fix the field names, or pass "
        "--disable-openapi-validation to have them dropped", Severity.WARNING, _ref(cm), True)]
    assert _predict(cm, target=_target()) == [Warning(
        Code.UNKNOWN_FIELD, f"ConfigMap ns/c: unknown fields, dropped by the API server with a warning (client-side "
        f"apply): {field} (judged against the schema of {JUDGED})", Severity.WARNING, _ref(cm), False)]
    for target in (_target(validate_fields=False), _target(validate_fields=False, strict_fields=True)):
        assert _predict(cm, target=target) == [Warning(
            Code.UNKNOWN_FIELD, f"ConfigMap ns/c: unknown fields, dropped by the API server "
            f"(--disable-openapi-validation): {field}", Severity.INFO, _ref(cm), False)]


def test_unknown_fields_five_named_and_the_rest_counted() -> None:
    five = _configmap(**{f"zz{i}": 1 for i in range(5)})
    (warning,) = _predict(five)
    listed = "; ".join(f"zz{i} is unknown" for i in range(5))
    assert f"rejects unknown fields: {listed} (judged" in warning.message
    six = _configmap(**{f"zz{i}": 1 for i in range(6)})
    (warning,) = _predict(six)
    assert f"rejects unknown fields: {listed}; and 1 more (judged" in warning.message


def test_a_wrong_type_and_an_unknown_field_are_two_warnings() -> None:
    cm = _configmap(data={"a": 1}, dta={})
    assert [(w.code, w.fails) for w in _predict(cm)] == [(Code.SCHEMA_INVALID, True), (Code.UNKNOWN_FIELD, True)]


def test_only_objects_sent_to_the_server_are_validated() -> None:
    bad = _configmap(data={"a": 1}, dta={})
    assert _predict(bad, apply=False) == []
    assert _predict(bad, apply=False, what="previous release") == []


def test_the_oldest_version_of_the_table_has_schemas_and_an_older_one_none() -> None:
    (warning,) = _predict(_deployment("two"), target=_target("1.25"))
    assert warning.code is Code.SCHEMA_INVALID
    assert "spec.replicas is a string where the schema wants an integer" in warning.message
    assert _predict(_deployment("two"), target=_target("1.24")) == []


# --- kinds a version serves ---------------------------------------------------------------------

HPA = {"apiVersion": "autoscaling/v2beta2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"},
       "spec": {"maxReplicas": 3, "scaleTargetRef": {"kind": "Deployment", "name": "web"}}}
PSP = {"apiVersion": "policy/v1beta1", "kind": "PodSecurityPolicy", "metadata": {"name": "p"}, "spec": {}}


def test_a_removed_api_fails_and_names_its_replacement() -> None:
    assert _predict(HPA, target=_target("1.30")) == [Warning(
        Code.API_NOT_SERVED, "HorizontalPodAutoscaler ns/h: autoscaling/v2beta2 HorizontalPodAutoscaler is not served "
        "by Kubernetes 1.30 (from --kube-version) (removed in 1.26): Helm fails with \"no matches for kind "
        "HorizontalPodAutoscaler in version autoscaling/v2beta2\"; use autoscaling/v2", Severity.WARNING, _ref(HPA), True)]


def test_the_replacement_is_one_the_target_version_serves() -> None:
    # flowcontrol v1beta1 went in 1.26; v1 came in 1.29: on 1.28 the newest served is v1beta3
    fs = {"apiVersion": "flowcontrol.apiserver.k8s.io/v1beta1", "kind": "FlowSchema", "metadata": {"name": "f"}}
    (warning,) = _predict(fs, target=_target("1.28"))
    assert warning.message.endswith("(removed in 1.26): Helm fails with \"no matches for kind FlowSchema in version "
                                    "flowcontrol.apiserver.k8s.io/v1beta1\"; use flowcontrol.apiserver.k8s.io/v1beta3")


def test_a_removed_api_without_replacement() -> None:
    assert _predict(PSP, target=_target("1.25")) == [Warning(
        Code.API_NOT_SERVED, "PodSecurityPolicy p: policy/v1beta1 PodSecurityPolicy is not served by Kubernetes 1.25 "
        "(from --kube-version) (removed in 1.25): Helm fails with \"no matches for kind PodSecurityPolicy in version "
        "policy/v1beta1\"; move to a version the cluster serves", Severity.WARNING, _ref(PSP), True)]


def test_a_kind_a_builtin_group_never_had() -> None:
    widget = {"apiVersion": "apps/v1", "kind": "Widget", "metadata": {"name": "w"}}
    (warning,) = _predict(widget)
    assert warning.message == (f"Widget ns/w: apps/v1 Widget is not served by {JUDGED}: Helm fails with \"no matches "
                               "for kind Widget in version apps/v1\"; move to a version the cluster serves")


def test_a_kind_with_a_space_in_its_name_is_not_served() -> None:
    odd = {"apiVersion": "apps/v1", "kind": "Foo Bar", "metadata": {"name": "x"}}
    (warning,) = _predict(odd)
    assert (warning.code, warning.fails) == (Code.API_NOT_SERVED, True)
    assert "apps/v1 Foo Bar is not served" in warning.message
    assert '"no matches for kind Foo Bar in version apps/v1"' in warning.message


def test_what_the_charts_crds_folder_holds_is_judged_by_its_own_kind() -> None:
    # Helm creates every document of crds/ as it is, whatever its kind
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "tools"}}
    label = ResourceRef("v1", "CustomResourceDefinition", "", "tools")
    assert predict(STRICT, [Applied(label, ns, True, "chart CRD")], []) == []
    old = _crd(api="apiextensions.k8s.io/v1beta1", version="v1")
    ref = ResourceRef("apiextensions.k8s.io/v1beta1", "CustomResourceDefinition", "", "widgets.example.com")
    (warning,) = predict(_target("1.25"), [Applied(ref, old, True, "chart CRD")], [old])
    assert warning.message == (
        "chart CRD CustomResourceDefinition widgets.example.com: apiextensions.k8s.io/v1beta1 CustomResourceDefinition "
        "is not served by Kubernetes 1.25 (from --kube-version) (removed in 1.22): Helm fails with \"no matches for "
        "kind CustomResourceDefinition in version apiextensions.k8s.io/v1beta1\"; use apiextensions.k8s.io/v1")


def test_a_deprecated_api_is_a_warning_once_per_kind() -> None:
    other = {**HPA, "metadata": {"name": "h2"}}
    assert _predict(HPA, other, target=_target("1.25")) == [Warning(
        Code.API_DEPRECATED, "autoscaling/v2beta2 HorizontalPodAutoscaler is served by Kubernetes 1.25 (from "
        "--kube-version), and removed in Kubernetes 1.26: move to autoscaling/v2", Severity.WARNING, _ref(HPA), False)]


def test_each_kind_is_judged_as_itself_whatever_came_before() -> None:
    cm, deploy = _configmap(data={"a": 1}), _deployment("two")
    assert [w.message.split(": ", 2)[2].split(" (judged")[0] for w in _predict(cm, deploy, cm)] == [
        "data.a is an integer where the schema wants a string", "spec.replicas is a string where the schema wants an integer",
        "data.a is an integer where the schema wants a string"]
    # the previous release's copy of a deprecated kind does not hide the chart's from the warning
    (warning,) = predict(_target("1.25"), [Applied(_ref(HPA), HPA, False, "previous release"), Applied(_ref(HPA), HPA)], [])
    assert warning.code is Code.API_DEPRECATED


def test_a_deprecated_api_without_replacement_before_the_table() -> None:
    # 1.24 still serves PodSecurityPolicy; the table has no schemas that old, so nothing else is said
    assert _predict(PSP, target=_target("1.24")) == [Warning(
        Code.API_DEPRECATED, "policy/v1beta1 PodSecurityPolicy is served by Kubernetes 1.24 (from --kube-version), "
        "and removed in Kubernetes 1.25", Severity.WARNING, _ref(PSP), False)]


def test_the_previous_release_is_mapped_not_judged_for_deprecation() -> None:
    assert _predict(HPA, target=_target("1.25"), what="previous release", apply=False) == []
    assert _predict(HPA, target=_target("1.30"), what="previous release", apply=False) == [Warning(
        Code.API_NOT_SERVED, "previous release HorizontalPodAutoscaler ns/h: autoscaling/v2beta2 "
        "HorizontalPodAutoscaler is not served by Kubernetes 1.30 (from --kube-version) (removed in 1.26): Helm fails "
        "with \"no matches for kind HorizontalPodAutoscaler in version autoscaling/v2beta2\"; the previous release's "
        "manifest must be rewritten first (the helm-mapkubeapis plugin does it), and the chart must use "
        "autoscaling/v2", Severity.WARNING, _ref(HPA), True)]


def test_a_hook_is_named_as_one() -> None:
    (warning,) = _predict(HPA, target=_target("1.30"), what="hook")
    assert warning.message.startswith("hook HorizontalPodAutoscaler ns/h: autoscaling/v2beta2 HorizontalPodAutoscaler "
                                      "is not served")


def test_not_served_is_a_warning_when_the_version_is_assumed_or_capabilities_are_helms_defaults() -> None:
    head = ("HorizontalPodAutoscaler ns/h: autoscaling/v2beta2 HorizontalPodAutoscaler is not served by Kubernetes "
            "1.30 (from --kube-version) (removed in 1.26); ")
    assert _predict(HPA, target=_target("1.30", assumed=True)) == [Warning(
        Code.API_NOT_SERVED, head + "pass --kube-version with your cluster's version to know whether Helm fails; use "
        "autoscaling/v2", Severity.WARNING, _ref(HPA), False)]
    assert _predict(HPA, target=_target("1.30", render_defaults=True)) == [Warning(
        Code.API_NOT_SERVED, head + "rendered with helm's offline capabilities, a chart may pick another apiVersion "
        "against a real cluster: plan with --kube-version or a cluster to know whether Helm fails; use autoscaling/v2",
        Severity.WARNING, _ref(HPA), False)]


def test_custom_kinds_offline_without_their_crd_are_listed_once() -> None:
    kinds = [{"apiVersion": f"k{i}.example.com/v1", "kind": f"K{i}", "metadata": {"name": "x"}} for i in range(6)]
    five = _predict(*kinds[:5], kinds[0])
    listed = ", ".join(f"K{i} (k{i}.example.com/v1)" for i in range(5))
    assert five == [Warning(Code.KINDS_NOT_CHECKED, f"not checked offline: {listed} (no CRD in this chart defines them; "
                            "plan with a cluster to check that it serves them)", Severity.INFO, None, False)]
    (six,) = _predict(*kinds)
    assert six.message.startswith(f"not checked offline: {listed}, ... (no CRD")


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
        Warning(Code.SCHEMA_INVALID, "Widget ns/w: the API server rejects it: spec.size is a string where the schema "
                "wants an integer (judged against its CRD's schema); fix the values or the template",
                Severity.WARNING, _ref(bad), True),
        Warning(Code.UNKNOWN_FIELD, "Widget ns/w: server-side apply with strict field validation rejects unknown "
                "fields: spec.colour is unknown (judged against its CRD's schema); fix the field names, or pass "
                "--disable-openapi-validation to have them dropped", Severity.WARNING, _ref(bad), True)]


def test_a_custom_resources_metadata_is_checked_as_objectmeta_and_its_status_ignored() -> None:
    cr = _widget()
    cr["metadata"]["labels"] = {"tier": 1}
    cr["status"] = {"ready": "yes", "whatever": 1}
    (warning,) = _predict(cr, crds=[CRD])
    assert warning.code is Code.SCHEMA_INVALID
    assert ("rejects it: metadata.labels.tier is an integer where the schema wants a string (judged against its "
            "CRD's") in warning.message
    typo = _widget()
    typo["metadata"]["lables"] = {"tier": "web"}
    typo["metadata"]["status"] = "x"  # ObjectMeta has no status: only the object's own status is ignored
    (warning,) = _predict(typo, crds=[CRD])
    assert warning.code is Code.UNKNOWN_FIELD and warning.fails
    assert ("rejects unknown fields: metadata.lables is unknown (did you mean metadata.labels?); metadata.status is "
            "unknown") in warning.message


def test_a_version_the_crd_does_not_serve() -> None:
    cr = _widget("v2")
    assert _predict(cr, crds=[CRD]) == [Warning(
        Code.API_NOT_SERVED, "Widget ns/w: example.com/v2 is not a version the chart's CRD for Widget serves (it serves "
        "example.com/v1): Helm fails with \"no matches for kind Widget in version example.com/v2\"; use a served "
        "version", Severity.WARNING, _ref(cr), True)]
    two = _crd(V1, {"name": "v2beta1", "served": True, "storage": False}, {"name": "v0", "served": False})
    (warning,) = _predict(_widget("v0"), crds=[two])
    assert "(it serves example.com/v1, example.com/v2beta1)" in warning.message
    # `served` left out is false, as the API server decodes it
    none = _crd({"name": "v1", "storage": True, "schema": SCHEMA}, {"name": "v2", "served": False})
    (warning,) = _predict(_widget("v1"), crds=[none])
    assert warning.code is Code.API_NOT_SERVED and "(it serves none)" in warning.message


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
    assert "(it serves example.com/v1)" in warning.message
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


def _live(*served: str, roots: Mapping[str, str] | None = None, **flags: Any) -> Target:
    return Target("1.34", "the cluster", table(), served=frozenset(served), roots=roots,
                  types=LIVE_TYPES if roots is not None else None, strict_fields=True, **flags)


def test_the_clusters_own_schema_is_the_one_judged() -> None:
    target = _live("apps/v1 Deployment", roots={"apps/v1 Deployment": "live.Deployment"})
    assert _predict(_deployment(newField="x"), target=target) == []
    (warning,) = _predict(_deployment("two"), target=target)
    assert warning.message == ("Deployment ns/web: the API server rejects it: spec.replicas is a string where the "
                               "schema wants an integer (judged against the schema of Kubernetes 1.34 (the cluster)); "
                               "fix the values or the template")


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
        Code.CRD_MISSING, "Widget ns/w: the cluster does not serve Widget in example.com/v1 and no CRD in this chart "
        "defines it: Helm fails with \"no matches for kind Widget in version example.com/v1\"; install the CRD first "
        "(or add it to the chart's crds/)", Severity.WARNING, _ref(_widget()), True)]
    (removed,) = _predict(HPA, target=target)
    assert removed.message == ("HorizontalPodAutoscaler ns/h: autoscaling/v2beta2 HorizontalPodAutoscaler is not "
                               "served by Kubernetes 1.34 (the cluster) (removed in 1.26): Helm fails with \"no matches "
                               "for kind HorizontalPodAutoscaler in version autoscaling/v2beta2\"; use autoscaling/v2")
    assert removed.fails and removed.resource == _ref(HPA)
    # the chart's CRD answers before the cluster does
    assert _predict(_widget(size="three"), target=target, crds=[CRD])[0].code is Code.SCHEMA_INVALID


def test_a_deprecated_kind_the_cluster_serves() -> None:
    target = _live("autoscaling/v2beta2 HorizontalPodAutoscaler")
    assert [(w.code, w.message) for w in _predict(HPA, target=target)] == [(
        Code.API_DEPRECATED, "autoscaling/v2beta2 HorizontalPodAutoscaler is served by Kubernetes 1.34 (the cluster), "
        "and removed in Kubernetes 1.26: move to autoscaling/v2")]


# --- the release namespace ------------------------------------------------------------------------

def test_a_missing_namespace_fails_without_create_namespace() -> None:
    missing = _target(namespace_exists=False)
    assert namespace_warning(missing, "shop") == [Warning(
        Code.NAMESPACE_MISSING, "namespace shop does not exist in the cluster: Helm fails with namespaces \"shop\" not "
        "found; pass --create-namespace, or create the namespace first", Severity.WARNING, None, True)]
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
        Code.HOOK_COLLISION, "hook Job ns/migrate exists in the cluster and its delete policy (hook-succeeded) lacks "
        "before-hook-creation: Helm fails creating it with \"already exists\"; delete it first, or add "
        "before-hook-creation to helm.sh/hook-delete-policy", Severity.WARNING, JOB, True)]
    assert _collisions(_hook("hook-succeeded", "hook-failed"), live, client_side=False) == [Warning(
        Code.HOOK_COLLISION, "hook Job ns/migrate exists in the cluster and its delete policy (hook-succeeded, "
        "hook-failed) lacks before-hook-creation: server-side apply updates the old object instead of running a new "
        "one", Severity.WARNING, JOB, False)]


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
        Code.HOOK_COLLISION, "hook Job ns/migrate: its delete policy (hook-failed) lacks before-hook-creation, so an "
        "object left by an earlier run makes Helm fail with \"already exists\" (the live state was not read); add "
        "before-hook-creation to be safe", Severity.INFO, JOB, False)]
    assert _collisions(_hook("hook-failed"), None, set()) == []
    assert _collisions(_hook("hook-failed", resources=(JOB, OTHER)), None, {OTHER})[0].resource == OTHER


def test_inputs_are_not_changed() -> None:
    cr = _widget(size="three")
    crd = copy.deepcopy(CRD)
    before = (copy.deepcopy(cr), copy.deepcopy(crd))
    _predict(cr, crds=[crd])
    assert (cr, crd) == before
