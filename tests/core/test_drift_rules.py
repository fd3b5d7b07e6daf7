"""Drift rules one at a time, as pure calls into `core.drift`: what Helm's upgrade does to each
live field that differs from the previous release, by apply method (Kubernetes' three-way
strategic merge, JSON merge patch for custom resources, server-side apply's field managers)."""
from __future__ import annotations

import copy
from typing import Any, Mapping

import pytest

from deployah_plan.core import drift
from deployah_plan.core.drift import field_owners, find_drift, find_live, index_live, is_custom, live_identity, resolve
from deployah_plan.model import (
    ApplyMethod, DriftEffect, DriftKind, DriftReason, FieldChange, FieldOp, ResourceRef, SsaReason,
)
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


# -- finding the live object ------------------------------------------------------------------------

def test_live_identity_is_group_kind_namespace_name() -> None:
    assert live_identity(obj("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n")) == (
        "apps", "Deployment", "shop", "web")
    assert live_identity({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x", "namespace": None}}) == (
        "", "Namespace", "", "x")
    assert live_identity({}) == ("", "", "", "")
    assert live_identity({"metadata": None, "kind": "K"}) == ("", "K", "", "")


def test_a_custom_kind_served_cluster_scoped_is_found_without_its_namespace() -> None:
    widget = {"apiVersion": "shop.example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    live = index_live([widget])
    namespaced = ResourceRef("shop.example.com/v1", "Widget", "shop", "w")
    assert find_live(live, namespaced) is widget
    assert find_live(live, ResourceRef("shop.example.com/v1", "Widget", "", "w")) is widget
    assert find_live(live, ResourceRef("shop.example.com/v1", "Widget", "shop", "v")) is None
    inside = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "shop"}}
    # A namespaced object is never found under another namespace.
    assert find_live(index_live([inside]), ResourceRef("v1", "ConfigMap", "", "c")) is None
    assert find_live(index_live([inside]), ResourceRef("v1", "ConfigMap", "other", "c")) is None


def test_custom_means_a_kind_the_schema_table_does_not_know() -> None:
    assert is_custom({"apiVersion": "shop.example.com/v1", "kind": "Widget"})
    assert not is_custom({"apiVersion": "apps/v1", "kind": "Deployment"})
    assert is_custom({})


# -- the value at a change's path in another version of the object ---------------------------------

MISSING = drift._MISSING
PODS = {"spec": {"containers": [{"name": "side", "image": "envoy"}, {"name": "web", "image": "nginx"}],
                 "finalizers": ["a", "b"], "args": ["--x", "--y"], "n": 3}}
WEB = (("/spec/containers/0", {"name": "web"}),)


@pytest.mark.parametrize("change, value", [
    (FieldChange("/spec/n", FieldOp.REPLACE, 1, 2), 3),
    (FieldChange("/spec/m", FieldOp.REPLACE, 1, 2), MISSING),
    (FieldChange("/spec/n/deeper", FieldOp.REPLACE, 1, 2), MISSING),
    # A keyed entry is found by its key wherever it stands.
    (FieldChange("/spec/containers/0/image", FieldOp.REPLACE, "a", "b", WEB), "nginx"),
    (FieldChange("/spec/containers/0", FieldOp.REMOVE, {"name": "web"}, None, WEB), PODS["spec"]["containers"][1]),
    (FieldChange("/spec/containers/0/image", FieldOp.REPLACE, "a", "b", (("/spec/containers/0", {"name": "db"}),)),
     MISSING),
    # A scalar added to or removed from a list is a member, found by value.
    (FieldChange("/spec/finalizers/0", FieldOp.ADD, None, "b"), "b"),
    (FieldChange("/spec/finalizers/7", FieldOp.ADD, None, "b"), "b"),
    (FieldChange("/spec/finalizers/0", FieldOp.ADD, None, "c"), MISSING),
    (FieldChange("/spec/finalizers/0", FieldOp.REMOVE, "b", None), "b"),
    (FieldChange("/spec/finalizers/1", FieldOp.REMOVE, "c", None), MISSING),
    # Otherwise by index, in range.
    (FieldChange("/spec/args/1", FieldOp.REPLACE, "--z", "--w"), "--y"),
    (FieldChange("/spec/args/2", FieldOp.REPLACE, "--z", "--w"), MISSING),
    (FieldChange("/spec/args/x", FieldOp.REPLACE, "--z", "--w"), MISSING),
    (FieldChange("/spec/args/0", FieldOp.ADD, None, {"a": 1}), "--x"),
    (FieldChange("/spec/args/0", FieldOp.REMOVE, ["--x"], None), "--x"),
    (FieldChange("/spec/args/1/x", FieldOp.ADD, None, "--x"), MISSING),
    (FieldChange("", FieldOp.REPLACE, 1, 2), PODS),
])
def test_resolve_finds_the_value_at_a_change_path(change: FieldChange, value: Any) -> None:
    assert resolve(PODS, change) is value or resolve(PODS, change) == value


def test_resolve_reads_keys_under_escaped_pointer_tokens() -> None:
    doc = {"a/b": {"c~d": [{"name": "y", "v": 5}, {"name": "x", "v": 1}]}}
    change = FieldChange("/a~1b/c~0d/0/v", FieldOp.REPLACE, 0, 2, (("/a~1b/c~0d/0", {"name": "x"}),))
    assert resolve(doc, change) == 1
    assert resolve({"a/b": {"c~d": [{"name": "x", "v": 1}]}}, FieldChange("/a~1b/c~0d/0/v", FieldOp.REPLACE, 0, 2)) == 1
    # A key never matches an entry that is not a map.
    assert resolve({"l": ["x"]}, FieldChange("/l/0", FieldOp.REPLACE, 0, 2, (("/l/0", {"name": "x"}),))) is MISSING


def test_a_key_default_applies_to_both_sides() -> None:
    ports = {"ports": [{"containerPort": 53, "protocol": "UDP", "n": 1}, {"containerPort": 53, "n": 2},
                       {"containerPort": 53, "protocol": "SCTP", "n": 3}]}
    at = "/ports/0"

    def find(key: dict[str, Any]) -> Any:
        return resolve(ports, FieldChange(at + "/n", FieldOp.REPLACE, 0, 9, ((at, key),)))
    assert find({"containerPort": 53}) == 2
    assert find({"containerPort": 53, "protocol": "TCP"}) == 2
    assert find({"containerPort": 53, "protocol": "UDP"}) == 1
    assert find({"containerPort": 53, "protocol": "SCTP"}) == 3
    assert find({"containerPort": 54}) is MISSING


# -- managedFields ------------------------------------------------------------------------------------

IMAGE = FieldChange("/spec/containers/0/image", FieldOp.REPLACE, "a", "b", WEB)


def managed(*entries: Any) -> dict[str, Any]:
    return {"metadata": {"managedFields": list(entries)}}


@pytest.mark.parametrize("fields, owns", [
    # structured-merge-diff writes "." only beside children; alone it is the value itself.
    ({"f:spec": {"f:containers": {'k:{"name":"web"}': {".": {}}}}}, True),
    ({"f:spec": {"f:containers": {'k:{"name":"web"}': {".": {}, "f:image": {}}}}}, True),
    ({"f:spec": {"f:containers": {'k:{"name":"web"}': {".": {}, "f:env": {}}}}}, False),
    ({"f:spec": {"f:containers": {'k:{"name":"web"}': {"f:image": {"f:deeper": {}}}}}}, True),
    ({"f:spec": "junk"}, False),
    ({"f:spec": {"f:containers": {'k:{"name":"web"}': "junk"}}}, False),
    ({"f:spec": {"f:containers": {'x:{"name":"web"}': {"f:image": {}}}}}, False),
    ({"f:spec": {"f:containers": {'k:"web"': {"f:image": {}}}}}, False),
    ({"f:spec": {"f:containers": {"i:0": {"f:image": {}}}}}, False),  # a keyed entry is never named by index
])
def test_what_a_fields_v1_set_holds(fields: Any, owns: bool) -> None:
    entry = {"manager": "ops", "operation": "Update", "fieldsV1": fields}
    assert field_owners(managed(entry), IMAGE) == (["ops"] if owns else [])


def test_managers_that_own_nothing_or_are_helm_are_not_owners() -> None:
    fields = {"f:spec": {"f:containers": {'k:{"name":"web"}': {"f:image": {}}}}}
    assert field_owners(managed({"manager": "ops", "fieldsV1": {}}), IMAGE) == []  # an empty set owns nothing
    assert field_owners(managed({"manager": "ops", "fieldsV1": "f:spec"}), IMAGE) == []
    assert field_owners(managed({"manager": "ops"}), IMAGE) == []
    assert field_owners(managed({"manager": "helm", "fieldsV1": fields}), IMAGE) == []
    assert field_owners(managed({"manager": "", "fieldsV1": fields}), IMAGE) == ["(unnamed manager)"]
    assert field_owners(managed({"manager": "z", "fieldsV1": fields}, {"manager": "a", "fieldsV1": fields},
                                {"manager": "z", "operation": "Apply", "fieldsV1": fields}), IMAGE) == ["a", "z"]
    assert field_owners({"metadata": None}, IMAGE) == []
    assert field_owners({"metadata": {"managedFields": None}}, IMAGE) == []


def test_set_members_are_owned_by_value_the_value_removed_or_added() -> None:
    owned = {"f:metadata": {"f:finalizers": {'v:"example.com/a"': {}, "v:7": {}, "v:true": {}}}}
    entry = {"manager": "ops", "fieldsV1": owned}
    for op, value in ((FieldOp.ADD, "example.com/a"), (FieldOp.REMOVE, "example.com/a"), (FieldOp.ADD, 7),
                      (FieldOp.REMOVE, True)):
        change = FieldChange("/metadata/finalizers/3", op, value if op is FieldOp.REMOVE else None,
                             value if op is FieldOp.ADD else None)
        assert field_owners(managed(entry), change) == ["ops"], (op, value)
    # The value is what was added or removed, never the other side.
    assert field_owners(managed(entry), FieldChange("/metadata/finalizers/3", FieldOp.REMOVE, "x", "example.com/a")) == []
    assert field_owners(managed(entry), FieldChange("/metadata/finalizers/3", FieldOp.ADD, "example.com/a", "x")) == []
    assert field_owners(managed(entry), FieldChange("/metadata/finalizers/3", FieldOp.ADD, None, {"a": 1})) == []


# -- what the upgrade does to each drifted field ---------------------------------------------------------

CM = obj("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: shop}\ndata: {a: '1', b: '2'}\n")
WIDGET = obj("apiVersion: shop.example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: shop}\n"
             "spec: {size: 2, colour: blue, items: [p, r]}\n")
THREE_WAY = DriftReason.THREE_WAY_MERGE
MERGE_PATCH = DriftReason.MERGE_PATCH
SSA = DriftReason.SERVER_SIDE_APPLY


def with_data(base: dict[str, Any], **data: Any) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in data.items():
        if value is None:
            out["data"].pop(key, None)
        else:
            out["data"][key] = value
    return out


@pytest.mark.parametrize("desired, live, effect", [
    (CM, {"a": "9"}, "reverted"),  # declared: set back
    (with_data(CM, a="9"), {"a": "9"}, "left"),  # the new chart declares the live value
    (with_data(CM, a="8"), {"a": "9"}, "reverted"),
    (with_data(CM, a=None), {"a": "9"}, "removed"),  # no longer declared: the three-way merge deletes it
    (CM, {"a": None}, "reverted"),  # gone live, still declared: put back
    (with_data(CM, a=None), {"a": None}, "left"),  # gone live and no longer declared
])
def test_client_side_three_way_merge(desired: dict[str, Any], live: dict[str, Any], effect: str) -> None:
    found = drifts([CM], [desired], [live_copy(with_data(CM, **live))])
    (item,) = found
    assert item.kind is DriftKind.MODIFIED and item.effect is DriftEffect.MIXED and item.why is THREE_WAY
    (field,) = item.fields
    assert (field.change.path, field.effect.value, field.ssa, field.managers) == ("/data/a", effect, None, ())


def widget(**spec: Any) -> dict[str, Any]:
    out = copy.deepcopy(WIDGET)
    for key, value in spec.items():
        if value is None:
            out["spec"].pop(key)
        else:
            out["spec"][key] = value
    return out


@pytest.mark.parametrize("desired, live, effects", [
    # A merge patch from the previous manifest to the new one: a field the chart leaves alone keeps its drift.
    (WIDGET, {"size": 9}, [("/spec/size", "left")]),
    (widget(size=3), {"size": 9}, [("/spec/size", "reverted")]),
    (widget(size=9), {"size": 9}, [("/spec/size", "left")]),
    (widget(size=None), {"size": 9}, [("/spec/size", "removed")]),
    (WIDGET, {"size": None}, [("/spec/size", "left")]),  # gone live, the patch does not touch it
    (widget(size=None), {"size": None}, [("/spec/size", "left")]),
    # A merge patch replaces a list whole: an entry the chart keeps is set back when the list changes.
    (widget(items=["p", "s"]), {"items": ["q", "r"]}, [("/spec/items/0", "reverted")]),
    (WIDGET, {"items": ["q", "r"]}, [("/spec/items/0", "left")]),
    (widget(items=["p"]), {"items": ["p", "q"]}, [("/spec/items/1", "removed")]),
])
def test_client_side_merge_patch_of_a_custom_resource(desired: dict[str, Any], live: dict[str, Any],
                                                      effects: list[tuple[str, str]]) -> None:
    (item,) = drifts([WIDGET], [desired], [live_copy(widget(**live))])
    assert item.why is MERGE_PATCH and item.effect is DriftEffect.MIXED
    assert [(f.change.path, f.effect.value) for f in item.fields] == effects


OPS_OWNS_A = [("ops", {"f:data": {"f:a": {}}})]


@pytest.mark.parametrize("desired, live, managers, force, effect, note", [
    (with_data(CM, a="9"), {"a": "9"}, OPS_OWNS_A, False, "left", (SsaReason.DECLARES_LIVE, ())),
    (CM, {"a": "9"}, OPS_OWNS_A, False, "conflict", (SsaReason.CONFLICT, ("ops",))),
    (CM, {"a": "9"}, OPS_OWNS_A + [("kubectl", {"f:data": {}})], False, "conflict",
     (SsaReason.CONFLICT, ("kubectl", "ops"))),
    (CM, {"a": "9"}, OPS_OWNS_A, True, "reverted", (SsaReason.FORCED, ("ops",))),
    (CM, {"a": "9"}, [("helm", {"f:data": {"f:a": {}}})], False, "reverted", (SsaReason.SETS_BACK, ())),
    (CM, {"a": "9"}, [("ops", {"f:data": {"f:b": {}}})], True, "reverted", (SsaReason.SETS_BACK, ())),
    (CM, {"a": None}, OPS_OWNS_A, False, "reverted", (SsaReason.SETS_BACK, ())),  # gone live: nobody owns it
    (with_data(CM, a=None), {"a": None}, OPS_OWNS_A, False, "left", (SsaReason.GONE, ())),
    (with_data(CM, a=None), {"a": "9"}, OPS_OWNS_A, False, "left", (SsaReason.OTHER_OWNS, ("ops",))),
    (with_data(CM, a=None), {"a": "9"}, [], False, "removed", (SsaReason.REMOVES, ())),
])
def test_server_side_apply(desired: dict[str, Any], live: dict[str, Any], managers: list[tuple[str, Any]],
                           force: bool, effect: str, note: tuple[SsaReason, tuple[str, ...]]) -> None:
    (item,) = drifts([CM], [desired], [live_copy(with_data(CM, **live), managers)], ApplyMethod.SSA, force)
    assert item.why is SSA and item.effect is DriftEffect.MIXED
    (field,) = item.fields
    assert (field.change.path, field.effect.value, (field.ssa, field.managers)) == ("/data/a", effect, note)


def test_server_side_apply_of_a_custom_resource_reads_managed_fields_not_the_merge_patch() -> None:
    (item,) = drifts([WIDGET], [WIDGET], [live_copy(widget(size=9))], ApplyMethod.SSA)
    assert item.why is SSA and [(f.effect.value, f.ssa) for f in item.fields] == [("reverted", SsaReason.SETS_BACK)]
    # Client-side apply of the same, and no method recorded (Helm 3): the merge patch leaves it.
    for method in (ApplyMethod.CSA, None):
        (item,) = drifts([WIDGET], [WIDGET], [live_copy(widget(size=9))], method)
        assert item.why is MERGE_PATCH and [f.effect.value for f in item.fields] == ["left"]


# -- objects: modified, missing, unexpected -------------------------------------------------------------

def test_an_object_leaving_the_release_with_drift_is_deleted_unless_the_live_object_keeps_it() -> None:
    live = live_copy(with_data(CM, a="9"))
    (item,) = drifts([CM], [], [live])
    assert (item.kind, item.effect, item.why) == (DriftKind.MODIFIED, DriftEffect.REMOVED, DriftReason.DELETED)
    assert [(f.change.path, f.effect) for f in item.fields] == [("/data/a", DriftEffect.REMOVED)]
    assert item.live is live and item.resource == ref_of(CM)
    live["metadata"]["annotations"]["helm.sh/resource-policy"] = "keep"
    (item,) = drifts([CM], [], [live])
    assert (item.effect, item.why) == (DriftEffect.LEFT, DriftReason.KEPT)
    assert [f.effect for f in item.fields] == [DriftEffect.LEFT]
    # The keep annotation on the previous manifest alone does not keep it: Helm reads the live object.
    kept = copy.deepcopy(CM)
    kept["metadata"]["annotations"] = {"helm.sh/resource-policy": "keep"}
    (item,) = drifts([kept], [], [live_copy(with_data(kept, a="9"), annotations=OWNED)])
    assert item.effect is DriftEffect.REMOVED


def test_no_drift_when_only_equivalent_or_undeclared_values_differ() -> None:
    declared = obj("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\nspec:\n  containers:\n"
                   "  - name: web\n    resources: {limits: {cpu: '1'}}\n")
    live = live_copy(declared)
    live["spec"]["containers"][0]["resources"]["limits"]["cpu"] = "1000m"  # the same quantity
    live["spec"]["containers"][0]["image"] = "x"  # not declared
    live["status"] = {"phase": "Running"}
    assert drifts([declared], [declared], [live]) == []
    live["spec"]["containers"][0]["resources"]["limits"]["cpu"] = "2"
    (item,) = drifts([declared], [declared], [live])
    assert [f.change.path for f in item.fields] == ["/spec/containers/0/resources/limits/cpu"]


def test_a_missing_object_is_created_again_while_the_chart_declares_it() -> None:
    (item,) = drifts([CM], [CM], [])
    assert (item.kind, item.effect, item.why, item.fields, item.live) == (
        DriftKind.MISSING, DriftEffect.REVERTED, DriftReason.RECREATED, (), None)
    (item,) = drifts([CM], [], [])
    assert (item.kind, item.effect, item.why) == (DriftKind.MISSING, DriftEffect.LEFT, DriftReason.LEAVES_RELEASE)


def test_objects_not_read_or_named_by_generate_name_are_never_drift() -> None:
    previous = release(CM)
    assert find_drift(previous, previous, {}, lambda ref: False, "shop", "shop") == []
    named = ResourceRef("v1", "Pod", "shop", "", generate_name="job-")
    assert find_drift({named.identity: (named, {"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "job-"}})},
                      {}, {}, lambda ref: True, "shop", "shop") == []
    # Only the kinds read are checked: the ConfigMap is reported, the Widget not.
    found = find_drift(release(WIDGET, CM), release(WIDGET, CM), {}, lambda ref: ref.kind == "ConfigMap", "shop", "shop")
    assert [(d.resource.kind, d.kind) for d in found] == [("ConfigMap", DriftKind.MISSING)]


def stray(name: str, **meta: Any) -> dict[str, Any]:
    out = live_copy(obj(f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, namespace: shop}}\n"))
    out["metadata"].update(meta)
    return out


def test_unexpected_objects_carry_this_release_s_annotations() -> None:
    other_ns = stray("ns", annotations={**OWNED, "meta.helm.sh/release-namespace": "prod"})
    other_name = stray("name", annotations={**OWNED, "meta.helm.sh/release-name": "shop2"})
    unowned = stray("none", annotations={})
    controlled = stray("pod", ownerReferences=[{"kind": "ReplicaSet", "controller": True}])
    not_controller = stray("ref", ownerReferences=["junk", {"kind": "ConfigMap", "controller": False}])
    adopted, left, hook = stray("adopted"), stray("left"), stray("hook")
    cluster = stray("global")
    del cluster["metadata"]["namespace"]
    declared = obj("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: adopted, namespace: shop}\n")
    bare = {"metadata": {"namespace": "shop", "annotations": OWNED}}  # a saved list's item may name no kind
    live = [live_copy(CM), other_ns, other_name, unowned, controlled, not_controller, adopted, left, hook, cluster, bare]
    found = drifts([CM], [CM, declared], live, not_unexpected=[live_identity(hook)])
    got = {d.resource.name: (d.kind, d.effect, d.why) for d in found}
    left_alone = (DriftKind.UNEXPECTED, DriftEffect.LEFT, DriftReason.UNTOUCHED)
    assert got == {
        "adopted": (DriftKind.UNEXPECTED, DriftEffect.REVERTED, DriftReason.ADOPTED),
        "left": left_alone, "ref": left_alone, "global": left_alone, "": left_alone}
    by_name = {d.resource.name: d for d in found}
    assert by_name["left"].live is left and by_name["left"].resource == ResourceRef("v1", "ConfigMap", "shop", "left")
    assert by_name["global"].resource == ResourceRef("v1", "ConfigMap", "", "global")
    assert by_name[""].resource == ResourceRef("", "", "shop", "")


def test_a_previous_object_found_cluster_scoped_is_not_also_unexpected() -> None:
    live = live_copy(widget(size=9))
    del live["metadata"]["namespace"]
    (item,) = drifts([WIDGET], [WIDGET], [live])
    assert item.kind is DriftKind.MODIFIED and item.live is live


def test_a_custom_resource_field_the_chart_declares_null_keeps_its_live_content() -> None:
    """A JSON merge patch holds only what differs from the previous manifest to the new one,
    and merges an object into the live one key by key (RFC 7386): a live map under a field the
    chart declares null is left, also when the new chart gives that field other keys."""
    previous = widget()
    previous["spec"]["extra"] = None
    live = live_copy(widget(extra={"a": 1}))
    (item,) = drifts([previous], [previous], [live])
    assert [(f.change.path, f.change.op.value, f.effect.value) for f in item.fields] == [("/spec/extra/a", "add", "left")]
    (item,) = drifts([previous], [widget(extra={"b": 1})], [live])
    assert [(f.change.path, f.effect.value) for f in item.fields] == [("/spec/extra/a", "left")]
    # A new chart that declares it as something else than a map replaces it whole.
    (item,) = drifts([previous], [widget(extra="x")], [live])
    assert [(f.change.path, f.effect.value) for f in item.fields] == [("/spec/extra/a", "removed")]
    (item,) = drifts([previous], [widget(extra={"a": 2})], [live])
    assert [(f.change.path, f.effect.value) for f in item.fields] == [("/spec/extra/a", "reverted")]


def test_conflicts_are_not_forced_unless_asked() -> None:
    live = live_copy(with_data(CM, a="9"), OPS_OWNS_A)
    (item,) = find_drift(release(CM), release(CM), index_live([live]), lambda ref: True, "shop", "shop",
                         apply_method=ApplyMethod.SSA)
    assert [f.effect for f in item.fields] == [DriftEffect.CONFLICT]
