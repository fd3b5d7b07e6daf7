"""Drift and ownership in the pure core: the planner given parsed manifests and a live snapshot."""
from __future__ import annotations

import copy
from typing import Any

import pytest

from builders import HELM, OWNED, live_of, obj, plan

from deployah_plan.core.diff import declared_surface, diff_objects
from deployah_plan.core.drift import field_owners
from deployah_plan.core.ownership import check_ownership, kept_by_policy, kept_on_delete
from deployah_plan.core.planner import live_scope, release_scope
from deployah_plan.facts import Metadata, OwnershipCheck, OwnershipProblem
from deployah_plan.manifests import split_stream
from deployah_plan.build import build_plan
from deployah_plan.model import (
    ApplyMethod, DriftEffect, DriftKind, DriftReason, FieldChange, FieldOp, HelmAction, LiveCheck, LiveGap, LiveStatus,
    Ownership, Plan, ResourceRef, SsaReason,
)
from deployah_plan.render.words import drift as drift_words
from deployah_plan.live_snapshot import KindRef, LiveSnapshot

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      hostNetwork: false
      containers:
      - name: web
        image: nginx:1.25
        env: [{name: A, value: "1"}, {name: B, value: "2"}]
        ports: [{containerPort: 80}]
      - name: sidecar
        image: envoy:1
"""
CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  colour: teal\n"
SECRET = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: hunter2\n"
WIDGET = "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata:\n  name: blue\nspec:\n  size: 2\n  colour: blue\n"


def drift_of(p: Plan) -> dict[str, tuple[str, str, list[tuple[str, str, str]]]]:
    return {d.resource.name: (d.kind.value, d.effect.value, [(f.change.path, f.change.op.value, f.effect.value)
                                                             for f in d.fields]) for d in p.drift}


# -- the declared surface --------------------------------------------------------------------------

def test_bookkeeping_defaults_and_status_are_never_drift() -> None:
    declared = obj(DEPLOYMENT)
    declared["metadata"]["creationTimestamp"] = None  # as generated manifests often say
    live = live_of(DEPLOYMENT)
    live["status"] = {"replicas": 2}
    container = live["spec"]["template"]["spec"]["containers"][0]
    container.update(imagePullPolicy="IfNotPresent", terminationMessagePath="/dev/termination-log")
    container["ports"][0]["protocol"] = "TCP"
    del live["spec"]["template"]["spec"]["hostNetwork"]  # false is dropped by the server (omitempty)
    live["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] = "{}"
    live["spec"]["template"]["spec"]["containers"][0]["env"].append({"name": "INJECTED", "value": "x"})
    assert diff_objects(declared, declared_surface(declared, live)) == []


def test_keyed_list_reordered_by_the_server_is_not_drift() -> None:
    declared = obj(DEPLOYMENT)
    live = live_of(DEPLOYMENT)
    spec = live["spec"]["template"]["spec"]
    spec["containers"].reverse()
    spec["containers"][1]["env"].reverse()
    p = plan([DEPLOYMENT], [DEPLOYMENT], [live])
    assert p.drift == () and p.live.status is LiveStatus.CHECKED
    assert diff_objects(declared, declared_surface(declared, live)) == []


# -- drift kinds and effects ------------------------------------------------------------------------

def test_modified_field_is_reverted_by_a_three_way_merge() -> None:
    live = live_of(DEPLOYMENT)
    live["spec"]["replicas"] = 5
    live["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:hotfix"
    p = plan([DEPLOYMENT], [DEPLOYMENT], [live])
    assert drift_of(p) == {"web": ("modified", "reverted", [
        ("/spec/replicas", "replace", "reverted"),
        ("/spec/template/spec/containers/0/image", "replace", "reverted")])}
    (item,) = p.drift
    assert item.fields[1].change.keys == (("/spec/template/spec/containers/0", {"name": "web"}),)
    assert item.fields[0].change.before == 2 and item.fields[0].change.after == 5
    # No object of the release changes, but Helm's three-way merge sets the live fields back:
    # that is work this deploy does, so it is an upgrade with changes (--detailed-exitcode 2).
    assert p.helm_action is HelmAction.UPGRADE and p.summary.total == 0
    assert p.summary.drift_reverted == 1 and p.has_changes


def test_drift_left_alone_is_no_change() -> None:
    live = live_of(WIDGET)
    live["spec"]["size"] = 9  # a custom resource gets a JSON merge patch: live drift stays
    p = plan([WIDGET], [WIDGET], [live])
    assert drift_of(p) == {"blue": ("modified", "left", [("/spec/size", "replace", "left")])}
    assert p.helm_action is HelmAction.NONE and p.summary.drift_reverted == 0 and not p.has_changes


def test_a_field_the_new_chart_drops_is_removed_and_one_it_now_declares_is_left() -> None:
    live = live_of(DEPLOYMENT)
    live["spec"]["replicas"] = 5
    live["metadata"]["labels"]["app"] = "shop"
    desired = DEPLOYMENT.replace("  replicas: 2\n", "").replace("labels: {app: web}\nspec", "labels: {app: shop}\nspec")
    p = plan([DEPLOYMENT], [desired], [live])
    assert drift_of(p)["web"] == ("modified", "mixed", [
        ("/metadata/labels/app", "replace", "left"), ("/spec/replicas", "replace", "removed")])


# A field the new chart declares null: either client-side patch holds it as null, and null
# deletes (RFC 7386 for a custom resource's merge patch from the previous manifest; for a
# built-in kind the three-way strategic merge patch, whose live-to-desired diff puts the desired
# value, null, where the type changed). So the field is removed, never "set back" to null.
NULL_REPLICAS = DEPLOYMENT.replace("replicas: 2", "replicas: null")
NULL_SIZE = WIDGET.replace("size: 2", "size: null")


@pytest.mark.parametrize("previous, desired, live_value, expected", [
    (DEPLOYMENT, NULL_REPLICAS, 5, ("/spec/replicas", "replace", "removed")),
    (NULL_REPLICAS, NULL_REPLICAS, 5, ("/spec/replicas", "add", "removed")),  # the live-to-desired diff deletes it
    (DEPLOYMENT, NULL_REPLICAS, None, ("/spec/replicas", "remove", "left")),  # already gone: stays gone
    (WIDGET, NULL_SIZE, 9, ("/spec/size", "replace", "removed")),  # the merge patch holds size: null
    (NULL_SIZE, NULL_SIZE, 9, ("/spec/size", "add", "left")),  # the merge patch does not touch it
], ids=["built-in", "built-in, null before too", "built-in, gone live", "custom", "custom, null before too"])
def test_a_field_the_new_chart_declares_null_is_removed_not_set_back(previous: str, desired: str, live_value: Any,
                                                                     expected: tuple[str, str, str]) -> None:
    spec_key = "replicas" if "Deployment" in previous else "size"
    live = live_of(previous)
    if live_value is None:
        live["spec"].pop(spec_key, None)
    else:
        live["spec"][spec_key] = live_value
    p = plan([previous], [desired], [live])
    (name, (kind, effect, fields)), = drift_of(p).items()
    assert fields == [expected] and effect == expected[2]
    if expected[2] == "removed":  # the deploy deletes a live field: work, even with no change of the chart
        assert p.summary.drift_reverted == 1 and p.has_changes and p.helm_action is HelmAction.UPGRADE
        assert drift_words.drift_label(p.drift[0]) == ("modified live: the new chart no longer declares it (or declares it "
                                                       "null): this deploy deletes it from the live object")
    else:
        assert p.summary.drift_reverted == 0


def test_drift_on_an_object_the_deploy_deletes_is_not_drift_set_back() -> None:
    live = live_of(CONFIGMAP)
    live["data"]["colour"] = "red"
    p = plan([CONFIGMAP, DEPLOYMENT], [DEPLOYMENT], [live, live_of(DEPLOYMENT)])
    assert drift_of(p)["cfg"] == ("modified", "removed", [("/data/colour", "replace", "removed")])
    assert p.summary.drift_reverted == 0  # the delete is a change of its own


def test_missing_and_unexpected_objects() -> None:
    stray = live_of(CONFIGMAP.replace("name: cfg", "name: stray"))
    adopted = live_of(CONFIGMAP.replace("name: cfg", "name: back"))
    other = live_of(CONFIGMAP.replace("name: cfg", "name: theirs"))
    other["metadata"]["annotations"]["meta.helm.sh/release-name"] = "other"
    copied = live_of(CONFIGMAP.replace("name: cfg", "name: copy"), ownerReferences=[{"controller": True, "name": "x"}])
    desired = [DEPLOYMENT, CONFIGMAP.replace("name: cfg", "name: back")]
    p = plan([DEPLOYMENT, CONFIGMAP], desired, [stray, adopted, other, copied])
    found = drift_of(p)
    assert found["web"] == ("missing", "reverted", [])  # still declared: helm creates it again
    assert found["cfg"] == ("missing", "left", [])  # leaves the release: nothing to delete
    assert found["stray"] == ("unexpected", "left", [])
    assert found["back"] == ("unexpected", "reverted", [])
    assert "theirs" not in found and "copy" not in found
    by_name = {d.resource.name: d for d in p.drift}
    assert by_name["web"].resource == ResourceRef("apps/v1", "Deployment", "shop", "web")
    assert (by_name["web"].why, by_name["web"].live) == (DriftReason.RECREATED, None)
    assert by_name["cfg"].why is DriftReason.LEAVES_RELEASE
    assert by_name["stray"].resource == ResourceRef("v1", "ConfigMap", "shop", "stray")
    assert by_name["stray"].why is DriftReason.UNTOUCHED
    assert by_name["stray"].live == stray
    assert by_name["back"].why is DriftReason.ADOPTED
    # The object the plan creates is live and owned by this release: an adoption.
    (create,) = [c for c in p.changes if c.resource.name == "back"]
    assert create.ownership is Ownership.ADOPT


def test_drift_on_an_object_leaving_the_release_and_keep_read_from_live() -> None:
    live = live_of(CONFIGMAP, annotations={**OWNED, "helm.sh/resource-policy": " Keep "})
    live["data"]["colour"] = "red"
    p = plan([CONFIGMAP, DEPLOYMENT], [DEPLOYMENT], [live, live_of(DEPLOYMENT)])
    assert drift_of(p)["cfg"] == ("modified", "left", [("/data/colour", "replace", "left")])
    assert p.drift[0].why is DriftReason.KEPT
    live["metadata"]["annotations"].pop("helm.sh/resource-policy")
    p = plan([CONFIGMAP, DEPLOYMENT], [DEPLOYMENT], [live, live_of(DEPLOYMENT)])
    assert drift_of(p)["cfg"] == ("modified", "removed", [("/data/colour", "replace", "removed")])


def test_custom_resource_drift_is_left_unless_the_chart_changes_the_field() -> None:
    live = live_of(WIDGET)
    live["spec"].update(size=9, colour="red")
    desired = WIDGET.replace("colour: blue", "colour: green")
    p = plan([WIDGET], [desired], [live])
    assert drift_of(p)["blue"] == ("modified", "mixed", [
        ("/spec/size", "replace", "left"), ("/spec/colour", "replace", "reverted")])
    assert p.drift[0].why is DriftReason.MERGE_PATCH


def test_server_side_apply_conflicts_with_another_field_manager() -> None:
    live = live_of(DEPLOYMENT)
    live["spec"]["replicas"] = 5
    live["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:hotfix"
    live["metadata"]["labels"]["team"] = "a"
    live["metadata"]["managedFields"] = [
        {"manager": "helm", "operation": "Apply", "fieldsV1": {"f:spec": {"f:template": {"f:spec": {
            "f:containers": {'k:{"name":"web"}': {"f:image": {}}}}}}}},
        {"manager": "kubectl-edit", "operation": "Update", "fieldsV1": {"f:spec": {"f:replicas": {}}}},
    ]
    p = plan([DEPLOYMENT], [DEPLOYMENT], [live], apply_method=ApplyMethod.SSA)
    (item,) = p.drift
    effects = {f.change.path: (f.effect, f.ssa, f.managers) for f in item.fields}
    assert effects["/spec/replicas"] == (DriftEffect.CONFLICT, SsaReason.CONFLICT, ("kubectl-edit",))
    assert effects["/spec/template/spec/containers/0/image"][0] is DriftEffect.REVERTED
    assert item.effect is DriftEffect.MIXED
    assert [w.code for w in p.warnings] == ["ssa-conflict"]
    # The same drift under client-side apply: both reverted, no note.
    p = plan([DEPLOYMENT], [DEPLOYMENT], [live], apply_method=ApplyMethod.CSA)
    assert {f.effect for f in p.drift[0].fields} == {DriftEffect.REVERTED} and p.drift[0].fields[0].ssa is None


def test_server_side_apply_leaves_a_dropped_field_another_manager_owns() -> None:
    live = live_of(CONFIGMAP.replace("colour: teal", "colour: teal\n  size: m"))
    live["data"].update(colour="red", size="l")
    live["metadata"]["managedFields"] = [{"manager": "ops", "operation": "Update", "fieldsV1": {"f:data": {"f:size": {}}}}]
    previous = CONFIGMAP.replace("colour: teal", "colour: teal\n  size: m")
    p = plan([previous], [CONFIGMAP.replace("colour: teal", "other: x")], [live], apply_method=ApplyMethod.SSA)
    assert drift_of(p)["cfg"][2] == [("/data/colour", "replace", "removed"), ("/data/size", "replace", "left")]


def _ssa_field(previous: str, desired: str, live: dict[str, Any],
               **request: Any) -> tuple[str, SsaReason | None, tuple[str, ...]]:
    p = plan([previous], [desired], [live], apply_method=ApplyMethod.SSA, **request)
    (item,) = p.drift
    (field,) = item.fields
    return field.effect.value, field.ssa, field.managers


SIZED = CONFIGMAP.replace("colour: teal", "colour: teal\n  size: m")


@pytest.mark.parametrize("desired, owners, force, effect, note", [
    # The new chart declares the field (Kubernetes server-side apply: the applier sets what it
    # declares; a field another manager owns is a conflict unless forced).
    (SIZED.replace("size: m", "size: l"), [], False, "left", SsaReason.DECLARES_LIVE),
    (SIZED, [], False, "reverted", SsaReason.SETS_BACK),
    (SIZED, ["ops"], False, "conflict", SsaReason.CONFLICT),
    (SIZED, ["ops"], True, "reverted", SsaReason.FORCED),
    # The new chart no longer declares it: removed only when no other manager owns it.
    (CONFIGMAP, [], False, "removed", SsaReason.REMOVES),
    (CONFIGMAP, ["ops"], False, "left", SsaReason.OTHER_OWNS),
])
def test_server_side_apply_effect_of_each_drifted_field(desired: str, owners: list[str], force: bool, effect: str,
                                                         note: SsaReason) -> None:
    live = live_of(SIZED)
    live["data"]["size"] = "l"
    live["metadata"]["managedFields"] = [{"manager": m, "operation": "Update", "fieldsV1": {"f:data": {"f:size": {}}}}
                                         for m in owners]
    got = _ssa_field(SIZED, desired, live, force_conflicts=force)
    named = tuple(owners) if note in (SsaReason.CONFLICT, SsaReason.FORCED, SsaReason.OTHER_OWNS) else ()
    assert got == (effect, note, named), got


def test_a_field_already_gone_live_and_no_longer_declared_is_left_not_removed() -> None:
    live = live_of(SIZED)
    del live["data"]["size"]
    assert _ssa_field(SIZED, CONFIGMAP, live) == ("left", SsaReason.GONE, ())
    client = plan([SIZED], [CONFIGMAP], [live], apply_method=ApplyMethod.CSA)
    assert drift_of(client)["cfg"][2] == [("/data/size", "remove", "left")]
    # Still declared: put back, under either apply method.
    assert _ssa_field(SIZED, SIZED, live)[0] == "reverted"
    assert drift_of(plan([SIZED], [SIZED], [live], apply_method=ApplyMethod.CSA))["cfg"][2] == [
        ("/data/size", "remove", "reverted")]


def test_secret_drift_compares_folded_string_data() -> None:
    live = live_of(SECRET.replace("stringData:\n  password: hunter2", "data:\n  password: aHVudGVyMg=="))
    assert plan([SECRET], [SECRET], [live]).drift == ()
    live["data"]["password"] = "Y2hhbmdlZA=="
    assert drift_of(plan([SECRET], [SECRET], [live]))["db"][2] == [("/data/password", "replace", "reverted")]


# -- coverage ---------------------------------------------------------------------------------------

def test_unread_kinds_make_a_partial_check_that_names_them() -> None:
    snapshot = LiveSnapshot(True, (live_of(CONFIGMAP),), (LiveGap("apps/v1", "Deployment", "shop", "forbidden: no"),), 4)
    p = plan([DEPLOYMENT, CONFIGMAP], [DEPLOYMENT, CONFIGMAP], snapshot)
    assert p.live.status is LiveStatus.PARTIAL and not p.live.complete
    assert [(g.kind, g.namespace, g.reason) for g in p.live.unreadable] == [("Deployment", "shop", "forbidden: no")]
    assert p.drift == ()  # the Deployment was not read: not "missing"


# The cluster's scope of a custom kind, from the live read's discovery, is the scope Helm's
# resource builder gives its objects (cli-runtime SetNamespace: the release namespace only for
# a kind the REST mapping says is namespaced), whatever the chart assumed.
WIDGET_KIND = KindRef("shop.example.com/v1", "Widget")
SCOPED_WIDGET_CRD = """\
# Source: app/crds/widget.yaml
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.shop.example.com}
spec: {group: shop.example.com, scope: Cluster, names: {kind: Widget, plural: widgets}}
"""


@pytest.mark.parametrize("declared", ["", "  namespace: shop\n"])
def test_a_custom_kind_the_cluster_serves_cluster_scoped_has_no_namespace_drift(declared: str) -> None:
    widget = WIDGET.replace("  name: blue\n", "  name: blue\n" + declared)
    live = live_of(WIDGET)
    del live["metadata"]["namespace"]  # as the API server holds a cluster-scoped object
    snapshot = LiveSnapshot(True, (live,), requests=2, namespaced={WIDGET_KIND: False})
    p = plan([widget], [widget.replace("size: 2", "size: 3")], snapshot)
    assert p.drift == () and p.live.status is LiveStatus.CHECKED
    (change,) = p.changes
    assert change.resource == ResourceRef("shop.example.com/v1", "Widget", "", "blue")
    assert [f.path for f in change.fields] == ["/spec/size"]  # the namespace is no change: the server drops it
    assert change.after is not None and "namespace" not in change.after["metadata"]
    # The object is Helm's, found where the cluster keeps it: a create of it is an adoption check.
    created = plan(None, [widget], snapshot).changes[0]
    assert created.resource.namespace == "" and created.ownership is Ownership.ADOPT


def test_a_custom_kind_the_cluster_serves_namespaced_gets_the_release_namespace() -> None:
    """A CRD in the chart says Cluster, the cluster serves the kind namespaced: the cluster wins."""
    snapshot = LiveSnapshot(True, (live_of(WIDGET),), requests=2, namespaced={WIDGET_KIND: True})
    release = [WIDGET, SCOPED_WIDGET_CRD]  # a crds/ file runs to the next `# Source:` line: it goes last
    p = plan(release, release, snapshot)
    assert p.drift == () and p.live.status is LiveStatus.CHECKED
    unread = plan(release, release, LiveSnapshot(True, (live_of(WIDGET),)))
    # Without the cluster's word, the chart's guess: one object read as missing and as unexpected.
    assert [(d.resource.namespace, d.kind) for d in unread.drift] == [("", DriftKind.MISSING), ("shop", DriftKind.UNEXPECTED)]


def test_unreachable_and_skipped() -> None:
    p = plan([CONFIGMAP], [CONFIGMAP], LiveSnapshot(False, error="cannot reach the cluster at x: refused"))
    assert p.live.status is LiveStatus.UNREACHABLE and p.live.reason.startswith("cannot reach")
    p = plan([CONFIGMAP], [CONFIGMAP], None, live_reason="--no-drift")
    assert p.live == LiveCheck(LiveStatus.SKIPPED, "--no-drift")
    created = plan([], [CONFIGMAP], None).changes[0]
    assert created.ownership is Ownership.NOT_CHECKED


def test_live_scope_names_each_kind_and_namespace_once() -> None:
    stream = split_stream("---\n".join([DEPLOYMENT, CONFIGMAP, CONFIGMAP.replace("name: cfg", "name: b"),
                                        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n"]), "s")
    assert release_scope([stream], "shop") == [("apps/v1", "Deployment", "shop"), ("v1", "ConfigMap", "shop"),
                                               ("v1", "Namespace", "")]
    # The read adds, for the impact only, the HPAs that may scale the Deployment (test_impact.py).
    assert live_scope([stream], "shop") == [*release_scope([stream], "shop"),
                                            ("autoscaling/v2", "HorizontalPodAutoscaler", "shop")]


def test_the_model_refuses_drift_without_a_live_state() -> None:
    p = plan([CONFIGMAP], [CONFIGMAP], [])
    with pytest.raises(ValueError, match="drift needs a live state"):
        build_plan(p.header, p.helm_action, drift=plan([CONFIGMAP], [CONFIGMAP], [live_of(CONFIGMAP.replace("teal", "x"))]).drift)
    with pytest.raises(ValueError, match="partial"):
        build_plan(p.header, p.helm_action, live=LiveCheck(LiveStatus.PARTIAL, ""))


# -- ownership --------------------------------------------------------------------------------------

def _cm(**meta: Any) -> dict[str, Any]:
    live = obj(CONFIGMAP)
    live["metadata"].update(namespace="shop", **meta)
    return live


@pytest.mark.parametrize("live, take, ownership, owner, problems", [
    (None, False, Ownership.ABSENT, "", ()),
    (_cm(labels=HELM, annotations=OWNED), False, Ownership.ADOPT, "", ()),
    (_cm(), False, Ownership.UNOWNED, "", (
        OwnershipProblem(Metadata.LABEL, "app.kubernetes.io/managed-by", "Helm"),
        OwnershipProblem(Metadata.ANNOTATION, "meta.helm.sh/release-name", "shop"),
        OwnershipProblem(Metadata.ANNOTATION, "meta.helm.sh/release-namespace", "shop"))),
    (_cm(), True, Ownership.ADOPT, "", ()),
    (_cm(labels=HELM, annotations={**OWNED, "meta.helm.sh/release-name": "other"}), False, Ownership.OTHER_RELEASE,
     "shop/other", (OwnershipProblem(Metadata.ANNOTATION, "meta.helm.sh/release-name", "shop", "other"),)),
    (_cm(labels=HELM, annotations={**OWNED, "meta.helm.sh/release-name": "other"}), True, Ownership.ADOPT, "shop/other", ()),
    (_cm(labels=HELM, annotations=OWNED, deletionTimestamp="2025-01-01T00:00:00Z"), False, Ownership.TERMINATING, "", ()),
])
def test_ownership_check(live: dict[str, Any] | None, take: bool, ownership: Ownership, owner: str,
                         problems: tuple[OwnershipProblem, ...]) -> None:
    verdict = check_ownership(live, "shop", "shop", take)
    assert verdict.ownership is ownership and verdict.owner_release == owner
    assert verdict.problems == problems


def test_ownership_in_the_plan_and_warnings() -> None:
    desired = [CONFIGMAP, CONFIGMAP.replace("name: cfg", "name: mine"), CONFIGMAP.replace("name: cfg", "name: theirs"),
               CONFIGMAP.replace("name: cfg", "name: going"), CONFIGMAP.replace("name: cfg", "name: new")]
    theirs = _cm(labels=HELM, annotations={"meta.helm.sh/release-name": "billing", "meta.helm.sh/release-namespace": "pay"})
    theirs["metadata"]["name"] = "theirs"
    going = _cm(labels=HELM, annotations=OWNED, deletionTimestamp="2025-01-01T00:00:00Z")
    going["metadata"]["name"] = "going"
    p = plan(None, desired, [_cm(), theirs, going])
    verdicts = {c.resource.name: (c.ownership.value, c.owner_release) for c in p.changes}
    assert verdicts == {"cfg": ("unowned", ""), "mine": ("absent", ""), "theirs": ("other-release", "pay/billing"),
                        "going": ("terminating", ""), "new": ("absent", "")}
    codes = {(w.code, w.resource.name if w.resource else "") for w in p.warnings}
    assert codes == {("ownership", "cfg"), ("ownership", "theirs"), ("collision", "going")}
    assert any(isinstance(w.facts, OwnershipCheck) and w.fails and w.facts.action is HelmAction.INSTALL for w in p.warnings)
    taken = plan(None, desired, [_cm(), theirs, going], take_ownership=True)
    assert {c.resource.name: c.ownership.value for c in taken.changes}["theirs"] == "adopt"


def test_kept_by_policy() -> None:
    assert kept_by_policy(_cm(annotations={"helm.sh/resource-policy": "  KEEP\n"}))
    assert not kept_by_policy(_cm(annotations={"helm.sh/resource-policy": "keep-please"}))
    assert not kept_by_policy(_cm())
    manifest, live = _cm(annotations={"helm.sh/resource-policy": "keep"}), _cm()
    assert kept_on_delete(manifest, None) and not kept_on_delete(manifest, live)
    assert kept_on_delete(_cm(), copy.deepcopy(manifest))


# -- managedFields (structured-merge-diff's fieldsV1: f:<field>, k:<key JSON>, v:<value JSON>,
#    i:<index>, and "." for the value itself) ------------------------------------------------------

CONTAINER = "/spec/template/spec/containers/0"
IMAGE = FieldChange(f"{CONTAINER}/image", FieldOp.REPLACE, "a", "b", ((CONTAINER, {"name": "web"}),))


def _managed(*entries: tuple[str, Any]) -> dict[str, Any]:
    return {"metadata": {"managedFields": [{"manager": m, "operation": "Update", "fieldsV1": f} for m, f in entries]}}


def _containers(key: str, leaf: Any) -> dict[str, Any]:
    return {"f:spec": {"f:template": {"f:spec": {"f:containers": {key: leaf}}}}}


@pytest.mark.parametrize("fields, owns", [
    (_containers('k:{"name":"web"}', {"f:image": {}}), True),
    (_containers('k:{"name":"web"}', {".": {}, "f:name": {}}), False),  # the entry, not its image
    (_containers('k:{"name":"web"}', {}), True),  # an empty set: the whole entry
    (_containers('k:{"name":"other"}', {"f:image": {}}), False),
    (_containers('k:{not json', {"f:image": {}}), False),
    (_containers('k:["web"]', {"f:image": {}}), False),
    (_containers("f:web", {"f:image": {}}), False),
    ({"f:spec": {"f:template": {}}}, True),  # owns the template as a whole
    ({"f:spec": {"f:replicas": {}}}, False),
    ({"f:metadata": {}}, False),
    ([], False),
])
def test_who_owns_a_field_is_read_from_fields_v1(fields: Any, owns: bool) -> None:
    assert field_owners(_managed(("kubectl-edit", fields)), IMAGE) == (["kubectl-edit"] if owns else [])


def test_helm_is_never_another_field_manager() -> None:
    fields = _containers('k:{"name":"web"}', {"f:image": {}})
    assert field_owners(_managed(("helm", fields), ("b", fields), ("a", fields), ("a", fields)), IMAGE) == ["a", "b"]
    assert field_owners({"metadata": {"managedFields": [{"fieldsV1": fields}]}}, IMAGE) == ["(unnamed manager)"]
    assert field_owners({"metadata": {"managedFields": ["junk", {"manager": "x"}]}}, IMAGE) == []
    assert field_owners({}, IMAGE) == []


def test_ports_match_their_key_with_the_protocol_defaulting_to_tcp() -> None:
    port = FieldChange(f"{CONTAINER}/ports/0/name", FieldOp.REPLACE, "a", "b",
                       ((CONTAINER, {"name": "web"}), (f"{CONTAINER}/ports/0", {"containerPort": 80, "protocol": "TCP"})))
    fields = _containers('k:{"name":"web"}', {"f:ports": {'k:{"containerPort":80,"protocol":"TCP"}': {"f:name": {}}}})
    assert field_owners(_managed(("x", fields)), port) == ["x"]
    implied = _containers('k:{"name":"web"}', {"f:ports": {'k:{"containerPort":80}': {"f:name": {}}}})
    assert field_owners(_managed(("x", implied)), port) == ["x"]
    udp = _containers('k:{"name":"web"}', {"f:ports": {'k:{"containerPort":80,"protocol":"UDP"}': {"f:name": {}}}})
    assert field_owners(_managed(("x", udp)), port) == []


def test_set_members_and_list_indices() -> None:
    finalizer = FieldChange("/metadata/finalizers/1", FieldOp.ADD, None, "example.com/x")
    assert field_owners(_managed(("x", {"f:metadata": {"f:finalizers": {'v:"example.com/x"': {}}}})), finalizer) == ["x"]
    assert field_owners(_managed(("x", {"f:metadata": {"f:finalizers": {'v:"example.com/y"': {}}}})), finalizer) == []
    args = FieldChange("/spec/args/0", FieldOp.REPLACE, "a", "b")
    assert field_owners(_managed(("x", {"f:spec": {"f:args": {"i:0": {}}}})), args) == ["x"]
    assert field_owners(_managed(("x", {"f:spec": {"f:args": {"i:1": {}}}})), args) == []
