"""Predicted failures from the API server (core/validate.py), the pure rules: objects a Kubernetes
version's schemas accept or reject, unknown fields under strict field validation, removed and
deprecated API versions, custom resources against their CRD's schema. The command line with
real helm 3 and 4, offline and against the loopback API, is tests/e2e/test_validate.py."""
from __future__ import annotations

import json
from typing import Any

import pytest

from deployah_plan.core.kube_api import table
from deployah_plan.core.validate import Applied, Target, predict
from deployah_plan.facts import (
    ApiDeprecated, ApiNotServed, Judged, NotServedRule, ProblemKind, SchemaInvalid, SchemaProblem, SchemaType,
    UnknownField, VersionSource,
)
from deployah_plan.model import ResourceRef


DEPLOYMENT = {
    "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"app": "web"},
                                                             "creationTimestamp": None},
    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}, "template": {
        "metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{
            "name": "app", "image": "nginx:1", "ports": [{"containerPort": 80}],
            "resources": {"limits": {"cpu": 1, "memory": "1Gi"}, "requests": {"cpu": "100m", "memory": 1e9}},
            "livenessProbe": {"httpGet": {"port": "http", "path": "/"}},
            "readinessProbe": {"tcpSocket": {"port": 8080}},
            "env": [{"name": "A", "value": "1"}, {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
        }]},
    }, "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}}},
    "status": {"whatever": True},
}


def _target(version: str = "1.34", **flags: Any) -> Target:
    return Target(version, VersionSource.FLAG, table(), **flags)


def _predict(obj: dict[str, Any], target: Target | None = None, crds: list[dict[str, Any]] | None = None) -> list[Any]:
    ref = ResourceRef(obj["apiVersion"], obj["kind"], "ns", obj["metadata"]["name"])
    return predict(target or _target(strict_fields=True), [Applied(ref, obj)], crds or [])


def _with(obj: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    out = json.loads(json.dumps(obj))
    node = out
    *head, last = path.split(".")
    for key in head:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return out


def test_a_valid_deployment_passes_with_every_accepted_form() -> None:
    # int-or-string ports and maxSurge, quantities as numbers and strings, null metadata, status
    assert _predict(DEPLOYMENT) == []


def _type(found: str, wants: SchemaType) -> dict[str, Any]:
    return {"problem": ProblemKind.TYPE, "found": found, "wants": wants}


@pytest.mark.parametrize(("path", "value", "problem"), [
    ("spec.replicas", "two", _type("string", SchemaType.INTEGER)),
    ("spec.template.spec.containers.0.env.0.value", 8080, _type("integer", SchemaType.STRING)),
    ("metadata.labels.app", True, _type("boolean", SchemaType.STRING)),
    ("spec.template.spec.containers.0.ports.0.containerPort", 80.5, _type("number", SchemaType.INTEGER)),
    ("spec.selector", None, {"problem": ProblemKind.REQUIRED}),
])
def test_the_api_server_rejects_wrong_types_and_missing_required_fields(path: str, value: Any,
                                                                        problem: dict[str, Any]) -> None:
    (warning,) = _predict(_with(DEPLOYMENT, path, value))
    assert (warning.code, warning.fails) == ("schema-invalid", True)
    steps = tuple(int(step) if step.isdigit() else step for step in path.split("."))
    assert isinstance(warning.facts, SchemaInvalid) and warning.facts.judged == Judged("1.34", VersionSource.FLAG)
    assert warning.facts.problems == (SchemaProblem(path=steps, **problem),)


def test_an_unknown_field_fails_only_with_strict_field_validation() -> None:
    typo = _with(DEPLOYMENT, "spec.replica", 3)
    (strict,) = _predict(typo, _target(strict_fields=True))
    assert (strict.code, strict.fails) == ("unknown-field", True)
    assert isinstance(strict.facts, UnknownField) and strict.facts.problems == (
        SchemaProblem(path=("spec", "replica"), problem=ProblemKind.UNKNOWN, near=("spec", "replicas")),)
    (dropped,) = _predict(typo, _target(strict_fields=False))
    assert (dropped.code, dropped.fails, dropped.severity.value) == ("unknown-field", False, "warning")
    (ignored,) = _predict(typo, _target(strict_fields=False, validate_fields=False))
    assert (ignored.fails, ignored.severity.value) == (False, "info")


def test_removed_and_deprecated_api_versions() -> None:
    hpa = {"apiVersion": "autoscaling/v2beta2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"},
           "spec": {"maxReplicas": 3, "scaleTargetRef": {"kind": "Deployment", "name": "web"}}}
    (removed,) = _predict(hpa, _target("1.30"))
    assert (removed.code, removed.fails) == ("api-not-served", True)
    assert isinstance(removed.facts, ApiNotServed) and removed.facts.rule is NotServedRule.TARGET
    assert removed.facts.judged == Judged("1.30", VersionSource.FLAG)
    assert (removed.facts.removed_in, removed.facts.replacement) == ("1.26", "autoscaling/v2")
    (deprecated,) = _predict(hpa, _target("1.25"))
    assert (deprecated.code, deprecated.fails) == ("api-deprecated", False)
    assert isinstance(deprecated.facts, ApiDeprecated) and deprecated.facts.removed_in == "1.26"
    pdb = {"apiVersion": "policy/v1beta1", "kind": "PodDisruptionBudget", "metadata": {"name": "p"}, "spec": {}}
    (gone,) = _predict(pdb, _target("1.25"))
    assert gone.fails and isinstance(gone.facts, ApiNotServed)
    assert (gone.facts.removed_in, gone.facts.replacement) == ("1.25", "policy/v1")


CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced", "names": {"kind": "Widget", "plural": "widgets"},
             "versions": [
                 {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                     "type": "object", "properties": {"spec": {"type": "object", "required": ["size"], "properties": {
                         "size": {"type": "integer"}, "port": {"x-kubernetes-int-or-string": True},
                         "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                         "template": {"type": "object", "x-kubernetes-embedded-resource": True,
                                      "x-kubernetes-preserve-unknown-fields": True},
                         "labels": {"type": "object", "additionalProperties": {"type": "string"}}}}}}}},
                 {"name": "v0", "served": False, "storage": False}]},
}


def test_custom_resources_against_their_crd_schema() -> None:
    good = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "annotations": {"a": "b"}},
            "spec": {"size": 3, "port": "http", "extra": {"anything": [1, {"x": None}]},
                     "template": {"apiVersion": "v1", "kind": "Pod", "whatever": 1}, "labels": {"a": "b"}}}
    assert _predict(good, crds=[CRD]) == []
    bad = _with(_with(good, "spec.size", "three"), "spec.colour", "red")
    codes = {(w.code, w.fails) for w in _predict(bad, crds=[CRD])}
    assert codes == {("schema-invalid", True), ("unknown-field", True)}
    (unserved,) = _predict(_with(good, "apiVersion", "example.com/v0"), crds=[CRD])
    assert unserved.code == "api-not-served" and isinstance(unserved.facts, ApiNotServed)
    assert unserved.facts.served == ("example.com/v1",)
    offline = _predict({**good, "apiVersion": "other.io/v1"})
    assert [(w.code, w.fails) for w in offline] == [("kinds-not-checked", False)]
