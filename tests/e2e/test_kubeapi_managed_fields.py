"""The loopback API server (tests/kubeapi.py) writes managedFields itself: a test describes the
writes (field managers' applies and updates), and the server stores what Kubernetes'
structured-merge-diff computes for them (tests/ssa_reference.py), in the entry shape and order a
real API server serves, instead of a test writing managedFields by hand. Issue 46."""
from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest

import ssa_reference
from kubeapi import FakeKube
from ssa_reference import Step

pytestmark = pytest.mark.e2e  # it runs the reference program and listens on loopback


@pytest.fixture(autouse=True)
def _reference() -> None:
    ssa_reference.required()


def _config(data: dict[str, str], **meta: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "shop", **meta},
            "data": data}


def _get(kube: FakeKube) -> dict[str, Any]:
    with urllib.request.urlopen(f"{kube.url}/api/v1/namespaces/shop/configmaps/c") as answer:
        return dict(json.loads(answer.read()))


def test_the_server_serves_the_managed_fields_the_library_computed() -> None:
    helm = _config({"a": "1", "b": "1"}, labels={"app": "shop"})
    edited = _config({"a": "1", "b": "hand"}, labels={"app": "shop"})
    conflicting = _config({"b": "2"})  # changes a field kubectl-edit owns: refused, nothing changes
    with FakeKube(namespace="shop") as kube:
        (outcome,) = kube.write([Step("helm", "Apply", helm), Step("kubectl-edit", "Update", edited),
                                 Step("ops", "Apply", conflicting)])
        served = _get(kube)
    assert [(c.manager, c.field) for c in outcome.conflicts[2]] == [("kubectl-edit", ".data.b")]
    assert served["data"] == {"a": "1", "b": "hand"}
    entries = served["metadata"]["managedFields"]
    # Apply entries first, then updates (as the API server sorts them); `ops` wrote nothing.
    assert [(e["manager"], e["operation"]) for e in entries] == [("helm", "Apply"), ("kubectl-edit", "Update")]
    assert all(e["fieldsType"] == "FieldsV1" and e["apiVersion"] == "v1" and e["time"] for e in entries)
    helm_fields, edit_fields = (e["fieldsV1"] for e in entries)
    assert edit_fields == {"f:data": {"f:b": {}}}  # the value it changed moved to it
    assert helm_fields["f:data"] == {"f:a": {}} and helm_fields["f:metadata"] == {"f:labels": {"f:app": {}}}


def test_a_forced_apply_takes_the_field() -> None:
    with FakeKube(namespace="shop") as kube:
        kube.write([Step("helm", "Apply", _config({"a": "1"})), Step("kubectl-edit", "Update", _config({"a": "2"})),
                    Step("helm", "Apply", _config({"a": "3"}), force=True)])
        served = _get(kube)
    assert served["data"] == {"a": "3"}
    assert [(e["manager"], e["fieldsV1"]) for e in served["metadata"]["managedFields"]] == \
        [("helm", {"f:data": {"f:a": {}}})]
