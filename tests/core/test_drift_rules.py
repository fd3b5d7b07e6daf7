"""Drift rules one at a time, as pure calls into `core.drift`: what Helm's upgrade does to each
live field that differs from the previous release, by apply method (Kubernetes' three-way
strategic merge, JSON merge patch for custom resources, server-side apply's field managers)."""
from __future__ import annotations

import copy
from typing import Any, Mapping

import pytest

from deployah_plan.core import drift
from deployah_plan.core.drift import field_owners, find_drift, find_live, index_live, is_custom, live_identity, resolve
from deployah_plan.model import ApplyMethod, DriftEffect, DriftKind, FieldChange, FieldOp, ResourceRef
from deployah_plan.yamlkube import load_all

OWNED = {"meta.helm.sh/release-name": "shop", "meta.helm.sh/release-namespace": "shop"}


def obj(text: str) -> dict[str, Any]:
    (doc,) = load_all(text)
    value: dict[str, Any] = doc.value
    return value


def ref_of(o: Mapping[str, Any]) -> ResourceRef:
    meta = o["metadata"]
    return ResourceRef(o["apiVersion"], o["kind"], meta.get("namespace", ""), meta["name"])


def release(*objects: Mapping[str, Any]) -> dict[Any, tuple[ResourceRef, Mapping[str, Any]]]:
    return {ref_of(o).identity: (ref_of(o), o) for o in objects}


def live_copy(o: Mapping[str, Any], managed: list[tuple[str, Any]] | None = None, **meta: Any) -> dict[str, Any]:
    live = copy.deepcopy(dict(o))
    live["metadata"].setdefault("namespace", "shop")
    live["metadata"]["annotations"] = {**live["metadata"].get("annotations", {}), **OWNED}
    if managed is not None:
        live["metadata"]["managedFields"] = [{"manager": m, "operation": "Update", "fieldsV1": f} for m, f in managed]
    live["metadata"].update(meta)
    return live


def drifts(previous: list[dict[str, Any]], desired: list[dict[str, Any]], live: list[dict[str, Any]],
           method: ApplyMethod | None = None, force: bool = False, **kw: Any) -> list[Any]:
    return find_drift(release(*previous), release(*desired), index_live(live), lambda ref: True, "shop", "shop",
                      apply_method=method, force_conflicts=force, **kw)


def fields_of(found: list[Any]) -> list[tuple[str, str, str]]:
    (item,) = found
    return [(f.change.path, f.change.op.value, f.effect.value) for f in item.fields]


DNS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: dns, namespace: shop}
spec:
  template:
    spec:
      containers:
      - name: dns
        image: coredns:1.11
        ports:
        - {containerPort: 53, protocol: UDP, name: dns}
        - {containerPort: 53, name: dns-tcp}
"""
TCP_NAME = "/spec/template/spec/containers/0/ports/1/name"


def test_a_port_without_protocol_is_the_tcp_port_never_the_udp_one_on_the_same_number() -> None:
    """Container ports are keyed by containerPort and protocol, protocol defaulting to TCP: the
    entry declared without a protocol is 53/TCP, not 53/UDP listed before it."""
    previous = obj(DNS)
    desired = obj(DNS.replace("name: dns-tcp", "name: tcp"))
    live = live_copy(obj(DNS.replace("name: dns-tcp", "name: tcp")))
    # Client-side: the new chart declares the live value of the TCP port's name.
    assert fields_of(drifts([previous], [desired], [live])) == [(TCP_NAME, "replace", "left")]
    # Server-side: another manager owns the UDP port's name, Helm the TCP one: no conflict.
    udp = {"f:spec": {"f:template": {"f:spec": {"f:containers": {'k:{"name":"dns"}': {"f:ports": {
        'k:{"containerPort":53,"protocol":"UDP"}': {"f:name": {}}}}}}}}}
    live = live_copy(obj(DNS.replace("name: dns-tcp", "name: other")), [("ops", udp)])
    (item,) = drifts([previous], [previous], [live], ApplyMethod.SSA)
    (field,) = item.fields
    assert field.change.path == TCP_NAME and field.effect is DriftEffect.REVERTED
    assert field_owners(live, field.change) == []
    tcp = {"f:spec": {"f:template": {"f:spec": {"f:containers": {'k:{"name":"dns"}': {"f:ports": {
        'k:{"containerPort":53,"protocol":"TCP"}': {"f:name": {}}}}}}}}}
    assert field_owners(live_copy(live, [("ops", tcp)]), field.change) == ["ops"]
