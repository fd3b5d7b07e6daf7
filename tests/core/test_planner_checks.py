"""The planner's checks against the live state and the API server: what the live read covered,
Helm's ownership check, drift and server-side apply conflicts, the chart's crds/, stored CRD
versions, the failures the API server is predicted to return, and the warnings at the end of a
plan. Pure: parsed manifests and an in-memory live snapshot, no helm, no API server."""
from __future__ import annotations

from typing import Any

from deployah_plan.codes import Code
from deployah_plan.facts import CrdChangeUnknown, CrdLive, CrdMissing, CrdNotCreated, EmptyRender, PvcExpandRefused
from deployah_plan.impact_facts import Expansion, PvcExpand, ReplicasReset, ResetRule
from deployah_plan.core.kube_api import table
from deployah_plan.core.planner import PlanRequest, live_scope, make_plan, release_scope
from deployah_plan.core.validate import Target
from deployah_plan.facts import (
    ApiNotServed, Collision, CrdNotUpgraded, CrdsUntouched, CrdVersionRemoved, DroppedDocument, Field, HookCollision,
    HookCollisionRule, Judged, KeepFromManifest, Metadata, OwnedField, NamespaceMissing, NotServedRule, OwnershipCheck,
    OwnershipProblem, ProblemKind, Role, SchemaInvalid, SchemaProblem, SchemaType, SsaConflict, StoredVersions,
    VersionSource,
)
from deployah_plan.manifests import Rendered, split_stream
from deployah_plan.model import (
    Action, ApplyMethod, ChartCRD, CRDLifecycle, CRDSchemaChange, CRDSummary, DriftEffect, Header, HelmAction, LiveCheck, LiveGap, LiveStatus,
    Ownership, Plan, ResourceRef, SsaReason, Warning,
)
from deployah_plan.live_snapshot import LiveSnapshot
from deployah_plan.yamlkube import load_all

HELM = {"app.kubernetes.io/managed-by": "Helm"}
OWNED = {"meta.helm.sh/release-name": "shop", "meta.helm.sh/release-namespace": "shop"}

CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  colour: teal\n"
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.25
"""
STATEFULSET = DEPLOYMENT.replace("kind: Deployment", "kind: StatefulSet").replace("name: web\n", "name: db\n", 1)
PVC = "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\nspec:\n  resources: {requests: {storage: 1Gi}}\n"
STORAGE_CLASS = "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: fast\nprovisioner: x\n"
HPA = """\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 9
"""
WIDGET = "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata:\n  name: blue\nspec:\n  size: 2\n"


def cm(name: str, **data: str) -> str:
    return CONFIGMAP.replace("name: cfg", f"name: {name}") + "".join(f"  {k}: {v}\n" for k, v in data.items())


def obj(text: str) -> dict[str, Any]:
    (doc,) = load_all(text)
    value: dict[str, Any] = doc.value
    return value


def live_of(text: str, namespace: str | None = "shop", **meta: Any) -> dict[str, Any]:
    """What the API server returns for a manifest this release applied: namespace, Helm's metadata."""
    live = obj(text)
    metadata = live["metadata"]
    if namespace is not None:
        metadata.setdefault("namespace", namespace)
    metadata["labels"] = {**metadata.get("labels", {}), **HELM}
    metadata["annotations"] = {**metadata.get("annotations", {}), **OWNED}
    metadata.update(meta)
    return live


def stream(*texts: str) -> Rendered:
    return split_stream("---\n".join(texts), "stream")


def request(previous: list[str] | None, desired: list[str], live: list[dict[str, Any]] | LiveSnapshot | None = None,
            **fields: Any) -> PlanRequest:
    snapshot = LiveSnapshot(True, tuple(live), requests=3) if isinstance(live, list) else live
    fields.setdefault("live_source", "cluster")
    prev = stream(*previous) if previous is not None else None
    header = Header("shop", "shop", fresh_install=prev is None)
    return PlanRequest(header, prev, stream(*desired), live=snapshot, **fields)


def plan(previous: list[str] | None, desired: list[str], live: list[dict[str, Any]] | LiveSnapshot | None = None,
         **fields: Any) -> Plan:
    return make_plan(request(previous, desired, live, **fields))


def by_code(p: Plan, code: Code) -> list[Warning]:
    return [w for w in p.warnings if w.code is code]


def ref(api_version: str, kind: str, name: str, namespace: str = "shop") -> ResourceRef:
    return ResourceRef(api_version, kind, namespace, name)


# -- what the live read asks for ------------------------------------------------------------------

def test_the_impact_reads_the_hpas_of_each_namespace_with_a_deployment_or_statefulset() -> None:
    # A StatefulSet is scaled by an HPA as a Deployment is (scale subresource): its namespace's
    # HPAs are read; a ConfigMap's namespace is not.
    elsewhere = STATEFULSET.replace("name: db\n", "name: db\n  namespace: batch\n", 1)
    scope = live_scope([stream(STATEFULSET, elsewhere, cm("cfg").replace("name: cfg", "name: cfg\n  namespace: x"))], "shop")
    assert scope == [("apps/v1", "StatefulSet", "shop"), ("apps/v1", "StatefulSet", "batch"), ("v1", "ConfigMap", "x"),
                     ("autoscaling/v2", "HorizontalPodAutoscaler", "shop"),
                     ("autoscaling/v2", "HorizontalPodAutoscaler", "batch")]


def test_a_release_with_its_own_hpas_reads_them_once_as_its_own_kind() -> None:
    s = stream(DEPLOYMENT, HPA)
    assert live_scope([s], "shop") == release_scope([s], "shop") == [
        ("apps/v1", "Deployment", "shop"), ("autoscaling/v2", "HorizontalPodAutoscaler", "shop")]


def test_the_releases_own_hpas_of_another_version_stand_in_for_the_read_in_their_namespace() -> None:
    own = HPA.replace("autoscaling/v2", "autoscaling/v1")
    elsewhere = DEPLOYMENT.replace("name: web\n", "name: web\n  namespace: batch\n", 1)
    assert live_scope([stream(DEPLOYMENT, elsewhere, own)], "shop") == [
        ("apps/v1", "Deployment", "shop"), ("apps/v1", "Deployment", "batch"),
        ("autoscaling/v1", "HorizontalPodAutoscaler", "shop"),
        # The release has no HPA in batch: a live one there may still scale its Deployment.
        ("autoscaling/v2", "HorizontalPodAutoscaler", "batch")]


def test_a_claim_makes_the_read_include_the_cluster_scoped_storage_classes() -> None:
    assert live_scope([stream(PVC)], "shop") == [("v1", "PersistentVolumeClaim", "shop"),
                                                  ("storage.k8s.io/v1", "StorageClass", "")]
    # A release that brings its own StorageClass reads them already; no claim, no StorageClass.
    assert live_scope([stream(PVC, STORAGE_CLASS)], "shop") == [("v1", "PersistentVolumeClaim", "shop"),
                                                                 ("storage.k8s.io/v1", "StorageClass", "")]
    beta = STORAGE_CLASS.replace("storage.k8s.io/v1", "storage.k8s.io/v1beta1")
    assert live_scope([stream(PVC, beta)], "shop") == [("v1", "PersistentVolumeClaim", "shop"),
                                                        ("storage.k8s.io/v1beta1", "StorageClass", "")]
    assert live_scope([stream(CONFIGMAP)], "shop") == [("v1", "ConfigMap", "shop")]


# -- what the live read covered --------------------------------------------------------------------

def test_not_read_says_why_and_keeps_the_apply_method() -> None:
    p = plan([CONFIGMAP], [CONFIGMAP], None, apply_method=ApplyMethod.SSA)
    assert p.live == LiveCheck(LiveStatus.SKIPPED, "the live state was not read", apply_method=ApplyMethod.SSA)
    p = plan([CONFIGMAP], [CONFIGMAP], None, live_reason="--no-drift")
    assert p.live == LiveCheck(LiveStatus.SKIPPED, "--no-drift")


def test_an_unreachable_cluster_keeps_the_source_the_requests_and_the_apply_method() -> None:
    p = plan([CONFIGMAP], [CONFIGMAP], LiveSnapshot(False, requests=2), apply_method=ApplyMethod.SSA)
    assert p.live == LiveCheck(LiveStatus.UNREACHABLE, "the cluster could not be read", "cluster", (), 2, ApplyMethod.SSA)
    assert p.drift == ()


def test_a_kind_unreadable_in_every_namespace_is_not_covered_in_the_release_namespace() -> None:
    gap = LiveGap("v1", "ConfigMap", "", "forbidden: cannot list configmaps at the cluster scope")
    p = plan([CONFIGMAP, DEPLOYMENT], [CONFIGMAP, DEPLOYMENT], LiveSnapshot(True, (live_of(DEPLOYMENT),), (gap,), 5),
             apply_method=ApplyMethod.CSA)
    assert p.live == LiveCheck(LiveStatus.PARTIAL, "", "cluster", (gap,), 5, ApplyMethod.CSA)
    assert p.drift == ()  # the ConfigMap was not read: not "missing"


def test_a_read_cluster_makes_a_complete_check() -> None:
    p = plan([CONFIGMAP], [CONFIGMAP], [live_of(CONFIGMAP)], apply_method=ApplyMethod.SSA)
    assert p.live == LiveCheck(LiveStatus.CHECKED, "", "cluster", (), 3, ApplyMethod.SSA)


def test_a_live_file_covers_only_the_kinds_it_holds_an_object_of() -> None:
    # A saved file holds what was saved: a kind with no object in it was not saved, so its
    # objects are neither missing nor compared.
    live = LiveSnapshot(True, (_foreign(cm("other")),), requests=0)  # another release's ConfigMap
    p = plan([CONFIGMAP, DEPLOYMENT], [CONFIGMAP, DEPLOYMENT], live, live_source="live.yaml",
             apply_method=ApplyMethod.CSA)
    assert p.live == LiveCheck(LiveStatus.PARTIAL, "", "live.yaml",
                               (LiveGap("apps/v1", "Deployment", "shop", "not in the live file"),), 0, ApplyMethod.CSA)
    # The ConfigMap kind was saved and cfg is not in it: missing, created again.
    assert [(d.resource.name, d.kind.value) for d in p.drift] == [("cfg", "missing")]


def test_a_live_file_covers_a_custom_kind_the_cluster_serves_without_a_namespace() -> None:
    # No CRD in the chart says Widget is cluster-scoped, so the manifest's Widget is taken to be
    # in the release namespace; the saved object has none: the cluster serves it cluster-scoped.
    saved = live_of(WIDGET, namespace=None)
    saved["spec"]["size"] = 7
    p = plan([WIDGET], [WIDGET], LiveSnapshot(True, (saved,)), live_source="live.yaml")
    assert p.live == LiveCheck(LiveStatus.CHECKED, "", "live.yaml")
    # Found and compared (not "missing"): the saved size differs.
    assert [(d.resource.name, d.kind.value, "/spec/size" in [f.change.path for f in d.fields]) for d in p.drift] == [
        ("blue", "modified", True)]


# -- Helm's ownership check (pkg/action/validate.go existingResourceConflict) ----------------------

def _foreign(text: str, **meta: Any) -> dict[str, Any]:
    live = obj(text)
    live["metadata"].update(namespace="shop", **meta)
    return live


def test_ownership_is_checked_for_every_create_whatever_comes_before_it() -> None:
    # An unchanged and an updated object come first in the plan; the creates after them are
    # still checked against their live objects.
    previous = [DEPLOYMENT, cm("a", x="1")]
    desired = [DEPLOYMENT, cm("a", x="2"), cm("b"), cm("c")]
    p = plan(previous, desired, [live_of(DEPLOYMENT), live_of(cm("a", x="1")), _foreign(cm("b"))])
    assert {c.resource.name: c.ownership for c in p.changes} == {
        "a": Ownership.NOT_CHECKED, "b": Ownership.UNOWNED, "c": Ownership.ABSENT}


def test_an_object_without_helm_metadata_fails_the_upgrade() -> None:
    p = plan([DEPLOYMENT], [DEPLOYMENT, CONFIGMAP], [live_of(DEPLOYMENT), _foreign(CONFIGMAP)])
    (warning,) = by_code(p, Code.OWNERSHIP)
    assert warning.resource == ref("v1", "ConfigMap", "cfg") and warning.fails
    assert warning.facts == OwnershipCheck(
        ownership=Ownership.UNOWNED, release="shop", action=HelmAction.UPGRADE, problems=(
            OwnershipProblem(Metadata.LABEL, "app.kubernetes.io/managed-by", "Helm"),
            OwnershipProblem(Metadata.ANNOTATION, "meta.helm.sh/release-name", "shop"),
            OwnershipProblem(Metadata.ANNOTATION, "meta.helm.sh/release-namespace", "shop")))
    assert p.summary.failures == 1


def test_an_object_of_another_release_fails_unless_taken_over() -> None:
    theirs = _foreign(CONFIGMAP, labels=HELM,
                      annotations={"meta.helm.sh/release-name": "billing", "meta.helm.sh/release-namespace": "shop"})
    (warning,) = by_code(plan(None, [CONFIGMAP], [theirs]), Code.OWNERSHIP)
    assert warning.resource == ref("v1", "ConfigMap", "cfg") and warning.fails
    assert warning.facts == OwnershipCheck(
        ownership=Ownership.OTHER_RELEASE, release="shop", owner_release="shop/billing", action=HelmAction.INSTALL,
        problems=(OwnershipProblem(Metadata.ANNOTATION, "meta.helm.sh/release-name", "shop", "billing"),))
    # --take-ownership (Helm 3.17+) skips the check: the object is adopted, nothing fails.
    taken = plan(None, [CONFIGMAP], [theirs], take_ownership=True)
    (warning,) = by_code(taken, Code.OWNERSHIP)
    assert (warning.facts, warning.resource, warning.fails) == (
        OwnershipCheck(ownership=Ownership.ADOPT, release="shop", owner_release="shop/billing", action=HelmAction.INSTALL),
        ref("v1", "ConfigMap", "cfg"), False)
    assert taken.changes[0].ownership is Ownership.ADOPT and taken.changes[0].owner_release == "shop/billing"


def test_an_object_already_carrying_this_releases_metadata_is_adopted() -> None:
    p = plan(None, [CONFIGMAP], [live_of(CONFIGMAP)])
    (warning,) = by_code(p, Code.OWNERSHIP)
    assert (warning.facts, warning.resource, warning.fails) == (
        OwnershipCheck(ownership=Ownership.ADOPT, release="shop", action=HelmAction.INSTALL),
        ref("v1", "ConfigMap", "cfg"), False)
    assert p.summary.failures == 0


def test_creating_over_an_object_being_deleted_collides() -> None:
    going = live_of(CONFIGMAP, deletionTimestamp="2025-01-01T00:00:00Z")
    p = plan(None, [CONFIGMAP], [going])
    assert [(w.code, w.facts, w.resource, w.fails) for w in p.warnings] == [(
        Code.COLLISION, Collision(), ref("v1", "ConfigMap", "cfg"), True)]


# -- drift ------------------------------------------------------------------------------------------

def test_an_install_has_no_drift_even_when_live_objects_carry_its_name() -> None:
    # Drift is the live state against the previous release; an install has none to compare.
    p = plan(None, [CONFIGMAP], [live_of(cm("cfg", size="m")), live_of(cm("stray"))])
    assert p.drift == ()


def test_server_side_apply_conflicts_name_each_conflicting_field() -> None:
    live = live_of(DEPLOYMENT)
    live["spec"]["replicas"] = 5
    live["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:hotfix"
    live["metadata"]["labels"]["team"] = "a"
    live["metadata"]["managedFields"] = [
        {"manager": "kubectl-edit", "operation": "Update", "fieldsV1": {"f:spec": {
            "f:replicas": {}, "f:template": {"f:spec": {"f:containers": {'k:{"name":"web"}': {"f:image": {}}}}}}}},
    ]
    drifted = DEPLOYMENT.replace("name: web\n", "name: web\n  labels: {team: b}\n", 1)
    p = plan([drifted], [drifted], [live], apply_method=ApplyMethod.SSA)
    (item,) = p.drift
    assert {f.change.path: f.effect for f in item.fields} == {
        "/metadata/labels/team": DriftEffect.REVERTED, "/spec/replicas": DriftEffect.CONFLICT,
        "/spec/template/spec/containers/0/image": DriftEffect.CONFLICT}
    (warning,) = by_code(p, Code.SSA_CONFLICT)
    assert (warning.facts, warning.resource) == (
        SsaConflict(fields=(OwnedField("/spec/replicas", managers=("kubectl-edit",)),
                            OwnedField("/spec/template/spec/containers/0/image",
                                       {"/spec/template/spec/containers/0": {"name": "web"}}, ("kubectl-edit",)))),
        ref("apps/v1", "Deployment", "web"))
    assert warning.fails


# -- the chart's crds/ (Helm installs them on a fresh install only, never upgrades them) -----------

def crd(plural: str, versions: dict[str, dict[str, str]], source: str = "", description: str = "a widget") -> str:
    """A CRD of shop.example.com; each version's spec properties are name: type."""
    head = f"# Source: {source}\n" if source else ""
    body = "".join(
        f"  - name: {name}\n    served: true\n    storage: {'true' if n == len(versions) - 1 else 'false'}\n"
        "    schema:\n      openAPIV3Schema:\n        type: object\n"
        f"        description: {description}\n        properties:\n          spec:\n            type: object\n"
        "            properties: {" + ", ".join(f"{k}: {{type: {t}}}" for k, t in props.items()) + "}\n"
        for n, (name, props) in enumerate(versions.items()))
    kind = plural[:-1].capitalize()
    return (f"{head}apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n"
            f"  name: {plural}.shop.example.com\nspec:\n  group: shop.example.com\n  scope: Namespaced\n"
            f"  names: {{plural: {plural}, singular: {plural[:-1]}, kind: {kind}, listKind: {kind}List}}\n"
            f"  versions:\n{body}")


def crd_ref(plural: str) -> ResourceRef:
    return ResourceRef("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", f"{plural}.shop.example.com")


def live_crd(text: str, stored: list[str]) -> dict[str, Any]:
    live = obj(text)
    live["metadata"].update(uid="u-1", resourceVersion="7", generation=2)
    live["status"] = {"storedVersions": stored, "acceptedNames": {"kind": "X"}}
    return live


WIDGETS_V1 = {"v1": {"size": "integer"}}
CRD_FILE = "shop/crds/crds.yaml"


def test_an_upgrade_leaves_the_charts_crds_as_they_are_and_says_which_changed() -> None:
    old = [crd("widgets", WIDGETS_V1, CRD_FILE), crd("gadgets", WIDGETS_V1), crd("doodads", WIDGETS_V1)]
    new = [crd("widgets", {"v1": {"size": "integer", "colour": "string"}}, CRD_FILE),
           crd("gadgets", WIDGETS_V1, description="a gadget"),  # only schema prose changes
           crd("doodads", WIDGETS_V1), crd("sprockets", WIDGETS_V1)]
    live = [live_crd(old[0].split("\n", 1)[1], ["v1"]), live_crd(new[1], ["v1"]), live_crd(new[2], ["v1"])]
    p = plan([CONFIGMAP, *old], [CONFIGMAP, *new], [*live, live_of(CONFIGMAP)])
    assert list(p.chart_crds) == [
        # The live copy is the old one: the cluster's differs from the new chart's.
        ChartCRD(CRD_FILE, "widgets.shop.example.com", CRDLifecycle.NOT_ON_UPGRADE, True, True,
                 summary_of("field-added", "v1", "spec.colour", None, "string")),
        # Prose only: still a change of the chart's copy, which Helm leaves alone as well.
        ChartCRD(CRD_FILE, "gadgets.shop.example.com", CRDLifecycle.NOT_ON_UPGRADE, False, True, CRDSummary(1, ())),
        ChartCRD(CRD_FILE, "doodads.shop.example.com", CRDLifecycle.NOT_ON_UPGRADE, False, False, None),
        # New in the chart: no previous copy to compare, and none in the cluster.
        ChartCRD(CRD_FILE, "sprockets.shop.example.com", CRDLifecycle.NOT_ON_UPGRADE, None, None, None),
    ]
    assert [(w.facts, w.resource, w.fails) for w in by_code(p, Code.CRD_NOT_UPGRADED)] == [(
        CrdNotUpgraded(name=f"{name}.shop.example.com", source=CRD_FILE), None, False) for name in ("widgets", "gadgets")]
    assert p.changes == ()  # crds/ are not release objects


SPROCKET = "# Source: shop/templates/s.yaml\napiVersion: shop.example.com/v1\nkind: Sprocket\nmetadata:\n  name: s1\nspec:\n  size: 2\n"


def test_a_crd_new_in_crds_on_upgrade_is_not_created_and_its_custom_resources_fail() -> None:
    """Helm creates crds/ only on install: a CRD the previous revision did not have is left out
    by the upgrade, and a custom resource of its kind fails where the cluster does not serve it."""
    old = [crd("widgets", WIDGETS_V1, CRD_FILE)]
    new = [*old, crd("sprockets", WIDGETS_V1, CRD_FILE)]
    offline = plan([CONFIGMAP, *old], [CONFIGMAP, *new, SPROCKET], None, target=TARGET)
    assert [w.facts for w in by_code(offline, Code.CRD_NOT_CREATED)] == [
        CrdNotCreated(name="sprockets.shop.example.com", source=CRD_FILE, live=CrdLive.NOT_READ, custom_resources=1)]
    # Without discovery the chart's copy is taken as the CRD: the custom resource is checked against it.
    assert not by_code(offline, Code.CRD_MISSING)
    # Read: the cluster serves widgets (created by the install) and not sprockets.
    served = Target("1.34", VersionSource.CLUSTER_DISCOVERY, table(), served=frozenset(
        {"v1 ConfigMap", "shop.example.com/v1 Widget", "apiextensions.k8s.io/v1 CustomResourceDefinition"}))
    live = [live_crd(old[0].split("\n", 1)[1], ["v1"]), live_of(CONFIGMAP)]
    read = plan([CONFIGMAP, *old], [CONFIGMAP, *new, SPROCKET, "# Source: shop/templates/w.yaml\n" + WIDGET], live,
                target=served)
    assert [w.facts for w in by_code(read, Code.CRD_NOT_CREATED)] == [
        CrdNotCreated(name="sprockets.shop.example.com", source=CRD_FILE, live=CrdLive.MISSING, custom_resources=1)]
    assert [(w.resource, w.facts, w.fails) for w in by_code(read, Code.CRD_MISSING)] == [
        (ref("shop.example.com/v1", "Sprocket", "s1"), CrdMissing(role=Role.RELEASE, api_version="shop.example.com/v1",
                                                                  kind="Sprocket", chart_crd=CRD_FILE), True)]
    # The same CRD on install is created first: nothing fails.
    install = plan(None, [CONFIGMAP, *new, SPROCKET], [], target=served)
    assert not by_code(install, Code.CRD_NOT_CREATED) and not by_code(install, Code.CRD_MISSING)
    # ... unless --skip-crds leaves it out.
    skipped = plan(None, [CONFIGMAP, *new, SPROCKET], [], target=served, skip_crds=True)
    assert [w.facts.chart_crd for w in by_code(skipped, Code.CRD_MISSING)] == [CRD_FILE]  # type: ignore[union-attr]
    # In the cluster as the chart has it: nothing to say.
    there = [*live, live_crd(new[1].split("\n", 1)[1], ["v1"])]
    assert not by_code(plan([CONFIGMAP, *old], [CONFIGMAP, *new], there), Code.CRD_NOT_CREATED)
    # A hook that runs on this upgrade and applies CRDs is named.
    hook = ("# Source: shop/templates/hook.yaml\napiVersion: batch/v1\nkind: Job\nmetadata:\n"
            "  name: shop-update-crds-hook\n  annotations:\n"
            "    helm.sh/hook: pre-upgrade\nspec:\n  template:\n    spec:\n      containers: []\n")
    (hooked,) = by_code(plan([CONFIGMAP, *old], [CONFIGMAP, *new, hook]), Code.CRD_NOT_CREATED)
    assert hooked.facts.hook is not None and "update-crds-hook" in hooked.facts.hook  # type: ignore[union-attr]


def test_a_dependency_crd_the_record_does_not_keep_is_judged_by_the_live_copy() -> None:
    """A release record keeps only the top chart's crds/: a dependency's CRDs have no previous
    copy, so the plan says so, or what the live copy says of them."""
    dep = "shop/charts/sub/crds/crds.yaml"
    new = [crd("widgets", {"v1": {"size": "string"}}, dep), crd("gadgets", WIDGETS_V1, dep),
           crd("doodads", WIDGETS_V1, "shop/charts/sub/charts/inner/crds/d.yaml"), crd("sprockets", WIDGETS_V1, CRD_FILE)]
    offline = plan([CONFIGMAP], [CONFIGMAP, *new], previous_dependency_crds=False)
    assert [w.facts for w in by_code(offline, Code.CRD_CHANGE_UNKNOWN)] == [
        CrdChangeUnknown(dependency="sub", names=("widgets.shop.example.com", "gadgets.shop.example.com"),
                         live=CrdLive.NOT_READ),
        CrdChangeUnknown(dependency="sub/charts/inner", names=("doodads.shop.example.com",), live=CrdLive.NOT_READ)]
    assert all(c.chart_changed is None for c in offline.chart_crds)
    # Read live: the old widgets differ, gadgets are the chart's (nothing to say), doodads are missing.
    live = [live_crd(crd("widgets", WIDGETS_V1), ["v1"]), live_crd(crd("gadgets", WIDGETS_V1), ["v1"]),
            live_of(CONFIGMAP)]
    read = plan([CONFIGMAP], [CONFIGMAP, *new], live, previous_dependency_crds=False)
    assert [w.facts for w in by_code(read, Code.CRD_CHANGE_UNKNOWN)] == [
        CrdChangeUnknown(dependency="sub", names=("widgets.shop.example.com",), live=CrdLive.DIFFERS),
        CrdChangeUnknown(dependency="sub/charts/inner", names=("doodads.shop.example.com",), live=CrdLive.MISSING)]
    # Two renders (helm plan diff) both hold the dependencies' crds/: compared, never unknown.
    assert not by_code(plan([CONFIGMAP], [CONFIGMAP, *new]), Code.CRD_CHANGE_UNKNOWN)
    assert not by_code(plan(None, [CONFIGMAP, *new], previous_dependency_crds=False), Code.CRD_CHANGE_UNKNOWN)


def test_an_empty_render_over_a_release_with_objects_warns() -> None:
    hook = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n"
            "    helm.sh/hook: pre-upgrade\nspec:\n  template:\n    spec:\n      containers: []\n")
    p = plan([CONFIGMAP, DEPLOYMENT], [hook])
    assert [(w.facts, w.fails) for w in by_code(p, Code.EMPTY_RENDER)] == [
        (EmptyRender(previous_resources=2, desired_hooks=1), False)]
    assert not by_code(plan([CONFIGMAP, DEPLOYMENT], [CONFIGMAP]), Code.EMPTY_RENDER)
    assert not by_code(plan([], []), Code.EMPTY_RENDER)
    assert not by_code(plan(None, []), Code.EMPTY_RENDER)



# gatekeeper's shape: a pre-install,pre-upgrade Job that runs the CRDs image's `apply -f crds/`.
CRD_HOOK = """\
# Source: shop/templates/upgrade-crds-hook.yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  labels: {{app: shop, release: shop}}
  annotations: {{"helm.sh/hook": "{events}", "helm.sh/hook-weight": "1"}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: {container}
        image: {image}
        args: [{args}]
"""


def _crd_hook(name: str = "shop-update-crds-hook", events: str = "pre-install,pre-upgrade", container: str = "crds-upgrade",
              image: str = "example/shop-crds:v2", args: str = "apply, -f, crds/") -> str:
    return CRD_HOOK.format(name=name, events=events, container=container, image=image, args=args)


def _hook_of(p: Any) -> list[tuple[str | None, Any]]:
    return [(w.facts.hook, w.facts.hook_resource) for w in by_code(p, Code.CRD_NOT_UPGRADED)]


def test_a_hook_that_runs_on_this_upgrade_and_applies_crds_is_named_instead_of_manual_steps() -> None:
    old, new = crd("widgets", WIDGETS_V1, CRD_FILE), crd("widgets", {"v1": {"size": "string"}}, CRD_FILE)
    job = ResourceRef("batch/v1", "Job", "shop", "shop-update-crds-hook")
    assert _hook_of(plan([old, _crd_hook()], [new, _crd_hook()])) == [("Job shop/shop-update-crds-hook", job)]
    # Each sign alone is enough: the name, a label, the image, the command.
    plain = dict(name="shop-migrate", container="main", image="example/tool:v2", args="run")
    for sign in ({"name": "shop-update-crds-hook"}, {"image": "example/gatekeeper-crds:v3"},
                 {"args": "kubectl, apply, --server-side, -f, /crds"}):
        hook = _crd_hook(**{**plain, **sign})
        assert [h for h, _ in _hook_of(plan([old, hook], [new, hook]))] != [None], sign
    labelled = _crd_hook(**plain).replace("app: shop,", "app.kubernetes.io/component: crds,")
    assert [h for h, _ in _hook_of(plan([old, labelled], [new, labelled]))] == ["Job shop/shop-migrate"]
    # A hook that does not say crds, one that does not run on an upgrade, --no-hooks: manual steps.
    hook = _crd_hook(**plain)
    assert _hook_of(plan([old, hook], [new, hook])) == [(None, None)]
    install_only = _crd_hook(events="pre-install")
    assert _hook_of(plan([old, install_only], [new, install_only])) == [(None, None)]
    assert _hook_of(plan([old, _crd_hook()], [new, _crd_hook()], hooks_disabled=True)) == [(None, None)]

def summary_of(what: str, version: str, path: str, before: Any, after: Any) -> CRDSummary:
    return CRDSummary(0, (CRDSchemaChange(what, version, path, before, after),))


def test_the_live_crd_is_compared_only_when_crds_were_read() -> None:
    old, new = crd("widgets", WIDGETS_V1, CRD_FILE), crd("widgets", {"v1": {"size": "string"}}, CRD_FILE)
    # The CRD kind was not readable: whether the cluster's copy differs is unknown.
    gap = LiveGap("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "forbidden")
    (found,) = plan([old], [new], LiveSnapshot(True, (live_crd(old.split("\n", 1)[1], ["v1"]),), (gap,))).chart_crds
    assert found == ChartCRD(CRD_FILE, "widgets.shop.example.com", CRDLifecycle.NOT_ON_UPGRADE, None, True,
                             summary_of("type-changed", "v1", "spec.size", "integer", "string"))


def test_a_fresh_install_processes_the_charts_crds_unless_skipped() -> None:
    text = crd("widgets", WIDGETS_V1, CRD_FILE)
    (found,) = plan(None, [text], [live_crd(text.split("\n", 1)[1], ["v1"])]).chart_crds
    assert found == ChartCRD(CRD_FILE, "widgets.shop.example.com", CRDLifecycle.PROCESS, False, None, None)
    (skipped,) = plan(None, [text], [], skip_crds=True).chart_crds
    assert skipped == ChartCRD(CRD_FILE, "widgets.shop.example.com", CRDLifecycle.SKIP, None, None, None)


# -- stored versions (apiextensions ValidateCustomResourceDefinitionStoredVersions) ----------------

TWO_VERSIONS = {"v1alpha1": {"size": "integer"}, "v1beta1": {"size": "integer"}, "v1": {"size": "integer"}}


def test_an_upgrade_dropping_a_version_the_cluster_stores_objects_in_fails() -> None:
    old, new = crd("widgets", TWO_VERSIONS), crd("widgets", WIDGETS_V1)
    p = plan([old], [new], [live_crd(old, ["v1alpha1", "v1beta1", "v1"])])
    assert [(w.facts, w.resource, w.fails) for w in by_code(p, Code.CRD_VERSION_REMOVED)] == [(
        CrdVersionRemoved(versions=("v1alpha1", "v1beta1"), stored_versions=StoredVersions.LIVE), crd_ref("widgets"), True)]
    # Only the stored versions dropped are named.
    (warning,) = by_code(plan([old], [new], [live_crd(old, ["v1beta1", "v1"])]), Code.CRD_VERSION_REMOVED)
    assert warning.facts == CrdVersionRemoved(versions=("v1beta1",), stored_versions=StoredVersions.LIVE)
    # Nothing stored in the dropped versions: the API server accepts the update.
    assert by_code(plan([old], [new], [live_crd(old, ["v1"])]), Code.CRD_VERSION_REMOVED) == []


def test_an_install_adopting_a_crd_checks_its_stored_versions_too() -> None:
    old, new = crd("widgets", TWO_VERSIONS), crd("widgets", WIDGETS_V1)
    (warning,) = by_code(plan(None, [new], [live_crd(old, ["v1beta1"]) | {"metadata": {
        "name": "widgets.shop.example.com", "labels": HELM, "annotations": OWNED}}]), Code.CRD_VERSION_REMOVED)
    assert warning.fails and warning.resource == crd_ref("widgets")
    assert warning.facts == CrdVersionRemoved(versions=("v1beta1",), stored_versions=StoredVersions.LIVE)


def test_without_the_live_crd_a_removed_version_is_a_warning() -> None:
    old, new = crd("widgets", TWO_VERSIONS), crd("widgets", WIDGETS_V1)
    p = plan([old], [new], None)
    assert [(w.facts, w.resource, w.fails) for w in by_code(p, Code.CRD_VERSION_REMOVED)] == [(
        CrdVersionRemoved(versions=("v1alpha1", "v1beta1"), stored_versions=StoredVersions.NOT_READ), crd_ref("widgets"),
        False)]
    (one,) = by_code(plan([crd("widgets", {"v1beta1": {}, "v1": {}})], [crd("widgets", {"v1": {}})]),
                     Code.CRD_VERSION_REMOVED)
    assert one.facts == CrdVersionRemoved(versions=("v1beta1",), stored_versions=StoredVersions.NOT_READ)
    # A version added, or a CRD left unchanged or removed from the release, removes nothing.
    assert by_code(plan([new], [old]), Code.CRD_VERSION_REMOVED) == []
    assert by_code(plan([old, CONFIGMAP], [CONFIGMAP], [live_of(CONFIGMAP), live_crd(old, ["v1alpha1"])]),
                   Code.CRD_VERSION_REMOVED) == []


def test_a_crd_of_a_kind_not_fully_read_is_judged_as_not_read() -> None:
    old, new = crd("widgets", TWO_VERSIONS), crd("widgets", WIDGETS_V1)
    gap = LiveGap("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "too many objects")
    p = plan([old], [new], LiveSnapshot(True, (live_crd(old, ["v1alpha1"]),), (gap,)))
    assert [(w.fails, w.facts) for w in by_code(p, Code.CRD_VERSION_REMOVED)] == [
        (False, CrdVersionRemoved(versions=("v1alpha1", "v1beta1"), stored_versions=StoredVersions.NOT_READ))]


def test_each_crd_of_the_plan_is_checked() -> None:
    old = [crd("gadgets", TWO_VERSIONS), crd("widgets", TWO_VERSIONS)]
    new = [crd("gadgets", WIDGETS_V1), crd("widgets", WIDGETS_V1)]
    p = plan(old, new, [live_crd(old[0], ["v1alpha1"]), live_crd(old[1], ["v1beta1"])])
    assert [(w.resource, w.fails) for w in by_code(p, Code.CRD_VERSION_REMOVED)] == [
        (crd_ref("gadgets"), True), (crd_ref("widgets"), True)]


# -- failures the API server is predicted to return (core/validate.py) ------------------------------

TARGET = Target("1.34", VersionSource.FLAG, table())
JUDGED = Judged("1.34", VersionSource.FLAG)
PDB = "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: pdb\nspec:\n  minAvailable: 1\n"


def bad_cm(name: str, **annotations: str) -> str:
    """A ConfigMap whose data holds an integer: the API server decodes data as map[string]string."""
    meta = f"\n  annotations: {{{', '.join(f'{k}: {v}' for k, v in annotations.items())}}}" if annotations else ""
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}{meta}\ndata:\n  count: 1\n"


def rejected(role: Role = Role.RELEASE) -> SchemaInvalid:
    return SchemaInvalid(role=role, judged=JUDGED, problems=(
        SchemaProblem(path=("data", "count"), problem=ProblemKind.TYPE, found="integer", wants=SchemaType.STRING),))


def failures(p: Plan) -> list[tuple[Code, ResourceRef | None, Any]]:
    return [(w.code, w.resource, w.facts) for w in p.warnings if w.fails]


def test_only_what_is_sent_is_validated_and_the_previous_release_is_mapped() -> None:
    # Helm builds the previous release's objects too (a REST mapping for each): a kind the
    # target no longer serves fails the upgrade. Schemas are judged only for what is sent.
    p = plan([PDB, bad_cm("same"), cm("x")], [bad_cm("same"), bad_cm("x")], None, target=TARGET)
    assert failures(p) == [
        (Code.SCHEMA_INVALID, ref("v1", "ConfigMap", "x"), rejected()),
        (Code.API_NOT_SERVED, ref("policy/v1beta1", "PodDisruptionBudget", "pdb"), ApiNotServed(
            role=Role.PREVIOUS_RELEASE, api_version="policy/v1beta1", kind="PodDisruptionBudget",
            rule=NotServedRule.TARGET, judged=JUDGED, removed_in="1.25", replacement="policy/v1", served=())),
    ]
    # Without a target, nothing is predicted.
    assert failures(plan([PDB, cm("x")], [bad_cm("x")], None)) == []


def test_the_hooks_that_run_on_this_action_are_validated() -> None:
    hooks = [bad_cm("before", **{"helm.sh/hook": "pre-upgrade"}), bad_cm("after", **{"helm.sh/hook": "post-upgrade"}),
             bad_cm("first", **{"helm.sh/hook": "post-install"})]
    p = plan([CONFIGMAP], [CONFIGMAP, *hooks], [live_of(CONFIGMAP)], target=TARGET)
    assert failures(p) == [(Code.SCHEMA_INVALID, ref("v1", "ConfigMap", "before"), rejected(Role.HOOK)),
                           (Code.SCHEMA_INVALID, ref("v1", "ConfigMap", "after"), rejected(Role.HOOK))]
    # An install runs the install hooks; --no-hooks runs none.
    assert failures(plan(None, hooks, [], target=TARGET)) == [
        (Code.SCHEMA_INVALID, ref("v1", "ConfigMap", "first"), rejected(Role.HOOK))]
    assert failures(plan([CONFIGMAP], [CONFIGMAP, *hooks], [live_of(CONFIGMAP)], target=TARGET, hooks_disabled=True)) == []
    # A hook leaving the release is deleted, not run.
    gone = plan([CONFIGMAP, hooks[0]], [CONFIGMAP], [live_of(CONFIGMAP)], target=TARGET)
    assert failures(gone) == []


def test_a_fresh_install_validates_the_charts_crds() -> None:
    text = crd("widgets", WIDGETS_V1, CRD_FILE).replace("scope: Namespaced", "scope: 7")
    (found,) = failures(plan(None, [text], [], target=TARGET))
    assert found[:2] == (Code.SCHEMA_INVALID, crd_ref("widgets"))
    assert isinstance(found[2], SchemaInvalid) and found[2].role is Role.CHART_CRD
    assert found[2].problems[0] == SchemaProblem(path=("spec", "scope"), problem=ProblemKind.TYPE, found="integer",
                                                 wants=SchemaType.STRING)
    # --skip-crds leaves them out; an upgrade never applies them.
    assert failures(plan(None, [text], [], target=TARGET, skip_crds=True)) == []
    assert failures(plan([text], [text], [], target=TARGET)) == []


def test_custom_resources_are_judged_against_a_crd_anywhere_in_the_chart() -> None:
    widget = WIDGET.replace("size: 2", "size: two")
    judged = [(Code.SCHEMA_INVALID, ref("shop.example.com/v1", "Widget", "blue"), SchemaInvalid(
        role=Role.RELEASE, judged=None, problems=(
            SchemaProblem(path=("spec", "size"), problem=ProblemKind.TYPE, found="string", wants=SchemaType.INTEGER),)))]
    definition = crd("widgets", WIDGETS_V1)
    hook = definition.replace("name: widgets.shop.example.com", "name: widgets.shop.example.com\n  annotations: "
                              "{helm.sh/hook: pre-install}")
    for desired in ([crd("widgets", WIDGETS_V1, CRD_FILE), "# Source: shop/templates/w.yaml\n" + widget],
                    [definition, widget], [hook, widget]):
        p = plan(None, desired, [], target=TARGET)
        assert failures(p) == judged, desired
        assert by_code(p, Code.KINDS_NOT_CHECKED) == []


def test_an_install_into_a_missing_namespace_fails() -> None:
    missing = Target("1.34", VersionSource.CLUSTER_DISCOVERY, table(), namespace_exists=False)
    assert failures(plan(None, [CONFIGMAP], [], target=missing)) == [(
        Code.NAMESPACE_MISSING, None, NamespaceMissing(namespace="shop"))]
    # An upgrade's release is already there: its namespace is not in question.
    assert failures(plan([CONFIGMAP], [CONFIGMAP], [], target=missing)) == []


HOOK = cm("job").replace("name: job", "name: job\n  annotations: {helm.sh/hook: pre-upgrade, "
                                      "helm.sh/hook-delete-policy: hook-succeeded}")


def test_a_hook_left_in_the_cluster_without_before_hook_creation_collides() -> None:
    # Helm deletes the previous run's object first only with before-hook-creation (the default
    # when no policy is set): else its create fails with "already exists".
    p = plan([CONFIGMAP, HOOK], [CONFIGMAP, HOOK], [live_of(CONFIGMAP), live_of(HOOK)], target=TARGET)
    assert failures(p) == [(
        Code.HOOK_COLLISION, ref("v1", "ConfigMap", "job"),
        HookCollision(rule=HookCollisionRule.EXISTS, delete_policies=("hook-succeeded",)))]
    # Read and gone: nothing collides.
    assert failures(plan([CONFIGMAP, HOOK], [CONFIGMAP, HOOK], [live_of(CONFIGMAP)], target=TARGET)) == []


def test_a_hook_of_the_previous_release_may_collide_when_the_cluster_was_not_read() -> None:
    p = plan([CONFIGMAP, HOOK], [CONFIGMAP, HOOK], None, target=TARGET)
    assert [(w.code, w.resource, w.fails) for w in by_code(p, Code.HOOK_COLLISION)] == [
        (Code.HOOK_COLLISION, ref("v1", "ConfigMap", "job"), False)]
    # A hook new in this release has left nothing behind.
    assert by_code(plan([CONFIGMAP], [CONFIGMAP, HOOK], None, target=TARGET), Code.HOOK_COLLISION) == []
    # Read, but not its kind: unknown, so no guess either way.
    gap = LiveSnapshot(True, (), (LiveGap("v1", "ConfigMap", "shop", "forbidden"),))
    assert by_code(plan([CONFIGMAP, HOOK], [CONFIGMAP, HOOK], gap, target=TARGET), Code.HOOK_COLLISION) == []


# -- the warnings at the end of a plan --------------------------------------------------------------

def test_keep_is_read_from_the_manifest_only_where_the_live_object_was_not_read() -> None:
    # helm upgrade reads helm.sh/resource-policy from the live object of each object leaving
    # the release (pkg/kube Client.Update): unread, the previous manifest's annotation stands in.
    kept = cm("d").replace("name: d", "name: d\n  annotations: {helm.sh/resource-policy: keep}")
    gone = [cm("a"), cm("b"), cm("c"), kept]
    p = plan([DEPLOYMENT, *gone], [DEPLOYMENT], None)
    assert {c.resource.name: c.action for c in p.changes} == {
        "a": Action.DELETE, "b": Action.DELETE, "c": Action.DELETE, "d": Action.RETAIN}
    # Every object not read is in the facts (the words name three).
    assert [(w.facts, w.resource) for w in by_code(p, Code.KEEP_FROM_MANIFEST)] == [
        (KeepFromManifest(objects=tuple(ref("v1", "ConfigMap", n) for n in "abcd")), None)]
    # Read: the live annotation decides (a ConfigMap read and not found is gone already).
    assert by_code(plan([DEPLOYMENT, *gone], [DEPLOYMENT], [live_of(DEPLOYMENT)]), Code.KEEP_FROM_MANIFEST) == []
    # Only the kinds not read are named.
    partial = LiveSnapshot(True, (), (LiveGap("apps/v1", "Deployment", "shop", "forbidden"),))
    (warning,) = by_code(plan([DEPLOYMENT, cm("a")], [], partial), Code.KEEP_FROM_MANIFEST)
    assert warning.facts == KeepFromManifest(objects=(ref("apps/v1", "Deployment", "web"),))


def test_documents_helm_skips_are_named_previous_first() -> None:
    def bogus(name: str) -> str:
        return f"# Source: shop/templates/{name}.yaml\n" + cm(name).replace(
            f"name: {name}", f"name: {name}\n  annotations: {{helm.sh/hook: 'pre-upgrade,bogus'}}")
    p = plan([CONFIGMAP, bogus("old")], [CONFIGMAP, bogus("new")], None)
    assert [(w.facts, w.resource, w.fails) for w in by_code(p, Code.DROPPED_DOCUMENT)] == [
        (DroppedDocument(source=f"shop/templates/{n}.yaml", kind="ConfigMap", name=n, event="bogus"), None, False)
        for n in ("old", "new")]


JOB_HOOK = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: a-job
  annotations: {helm.sh/hook: pre-delete}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: x, image: x}]
"""


def test_an_uninstall_deletes_the_release_runs_its_delete_hooks_and_never_deletes_its_chart_crds() -> None:
    hook = cm("z-cm").replace("name: z-cm", "name: z-cm\n  annotations: {helm.sh/hook: pre-delete}")
    previous = stream(CONFIGMAP, DEPLOYMENT, JOB_HOOK, hook, HOOK)
    p = make_plan(PlanRequest(Header("shop", "shop"), previous, Rendered(), action=HelmAction.UNINSTALL))
    assert p.helm_action is HelmAction.UNINSTALL and not p.hooks_disabled
    # Helm's uninstall order: the Deployment before the ConfigMap it may read.
    assert [(c.resource.kind, c.action) for c in p.changes] == [("Deployment", Action.DELETE), ("ConfigMap", Action.DELETE)]
    # Hooks run by weight, then name; Helm stores them sorted by kind in install order (ConfigMap
    # before Job, stable), which is each one's helm_order. The pre-upgrade hook does not run.
    assert [(t.name, t.events, t.helm_order, t.will_run) for t in p.tasks] == [
        ("Job shop/a-job", ("pre-delete",), 2, True), ("ConfigMap shop/z-cm", ("pre-delete",), 0, True),
        ("ConfigMap shop/job", ("pre-upgrade",), 1, False)]
    assert [(w.facts, w.resource, w.fails) for w in by_code(p, Code.CRDS_UNTOUCHED)] == [(CrdsUntouched(), None, False)]
    quiet = make_plan(PlanRequest(Header("shop", "shop"), previous, Rendered(), action=HelmAction.UNINSTALL,
                                  hooks_disabled=True))
    assert quiet.hooks_disabled and not any(t.will_run for t in quiet.tasks)


def test_the_requests_own_warnings_stay_beside_the_predicted_failures() -> None:
    note = Warning(Code.DROPPED_DOCUMENT, DroppedDocument(source="s.yaml", kind="ConfigMap", name="n", event="bogus"))
    p = plan([cm("x")], [bad_cm("x")], None, target=TARGET, warnings=(note,))
    assert [w.code for w in p.warnings] == [Code.DROPPED_DOCUMENT, Code.SCHEMA_INVALID]


# -- what the deploy does to running things (core/impact/) ----------------------------------------

def _scaled() -> list[dict[str, Any]]:
    """The Deployment scaled to 5 by an HPA that is not part of the release."""
    live = live_of(DEPLOYMENT)
    live["spec"]["replicas"] = 5
    hpa = obj(HPA)
    hpa["metadata"]["namespace"] = "shop"
    return [live, hpa]


HPA_REF = ResourceRef("autoscaling/v2", "HorizontalPodAutoscaler", "shop", "web")


def _reset(rule: ResetRule, live: int | None, managers: tuple[str, ...] = ()) -> ReplicasReset:
    """The reset of the Deployment's 2 replicas the live HPA (2 to 9, not in the release) scales."""
    return ReplicasReset(rule=rule, chart_replicas=2, live_replicas=live, hpa=HPA_REF, hpa_live=True, hpa_min=2,
                         hpa_max=9, ssa=SsaReason.CONFLICT if managers else None, managers=managers)


def test_replicas_an_hpa_scales_are_reset_by_each_deploy() -> None:
    # Client-side apply (Helm 3): the three-way merge sets the chart's count back.
    (impact,) = plan([DEPLOYMENT], [DEPLOYMENT], _scaled()).impact
    assert impact.facts == _reset(ResetRule.CLIENT_SIDE, 5)
    # Server-side apply with --force-conflicts takes the field from the HPA's controller.
    (impact,) = plan([DEPLOYMENT], [DEPLOYMENT], _scaled(), apply_method=ApplyMethod.SSA, force_conflicts=True).impact
    assert impact.facts == _reset(ResetRule.SSA_FORCED, 5)
    # Not read: no HPA is known, so nothing is said.
    assert plan([DEPLOYMENT], [DEPLOYMENT], None).impact == ()


def test_replicas_owned_by_the_hpas_controller_conflict_under_server_side_apply() -> None:
    live, hpa = _scaled()
    live["metadata"]["managedFields"] = [{"manager": "kube-controller-manager", "operation": "Update",
                                          "subresource": "scale", "fieldsV1": {"f:spec": {"f:replicas": {}}}}]
    p = plan([DEPLOYMENT], [DEPLOYMENT], [live, hpa], apply_method=ApplyMethod.SSA)
    (impact,) = p.impact
    assert impact.facts == _reset(ResetRule.SSA_CONFLICT, 5, ("kube-controller-manager",))


def test_a_claim_grows_only_if_its_live_storage_class_allows_expansion() -> None:
    grown = PVC.replace("storage: 1Gi", "storage: 2Gi")
    live = live_of(PVC)
    live["spec"]["storageClassName"] = "slow"  # set by the cluster's default class at creation
    slow = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "slow"},
            "provisioner": "x", "allowVolumeExpansion": False}
    p = plan([PVC], [grown], [live, slow])
    assert [(w.code, w.facts, w.resource) for w in p.warnings] == [
        (Code.PVC_EXPAND_REFUSED, PvcExpandRefused(storage_before="1Gi", storage_after="2Gi", storage_class="slow"),
         ref("v1", "PersistentVolumeClaim", "data"))]
    assert [i.facts for i in p.impact] == [
        PvcExpand(storage_before="1Gi", storage_after="2Gi", storage_class="slow", expansion=Expansion.REFUSED)]
    # Not read: the class is not known.
    assert [i.facts for i in plan([PVC], [grown], None).impact] == [
        PvcExpand(storage_before="1Gi", storage_after="2Gi", storage_class=None, expansion=Expansion.NOT_READ)]


def test_a_chart_crd_named_by_generate_name_is_still_compared_with_its_previous_copy() -> None:
    def unnamed(size: str) -> str:
        return crd("widgets", {"v1": {"size": size}}, CRD_FILE).replace(
            "name: widgets.shop.example.com", "generateName: widgets-")
    (found,) = plan([unnamed("integer")], [unnamed("integer")], None).chart_crds
    assert found == ChartCRD(CRD_FILE, "", CRDLifecycle.NOT_ON_UPGRADE, None, False, None)
    (found,) = plan([unnamed("integer")], [unnamed("string")], None).chart_crds
    assert (found.name, found.chart_changed) == ("", True)


def test_stored_versions_are_read_only_from_crds() -> None:
    # A custom resource's status is its own business, even when it has a storedVersions field.
    live = live_of(WIDGET)
    live["status"] = {"storedVersions": ["v0"]}
    p = plan([WIDGET], [WIDGET.replace("size: 2", "size: 3")], [live])
    assert [c.action for c in p.changes] == [Action.UPDATE]
    assert by_code(p, Code.CRD_VERSION_REMOVED) == []


def test_crds_after_other_changes_are_checked() -> None:
    # Helm applies ConfigMaps before CRDs (its install order): a CRD after an updated ConfigMap.
    old, new = crd("widgets", TWO_VERSIONS), crd("widgets", WIDGETS_V1)
    p = plan([cm("a", x="1"), old], [cm("a", x="2"), new], [live_of(cm("a", x="1")), live_crd(old, ["v1alpha1"])])
    assert [c.resource.kind for c in p.changes] == ["ConfigMap", "CustomResourceDefinition"]
    assert [(w.resource, w.fails) for w in by_code(p, Code.CRD_VERSION_REMOVED)] == [(crd_ref("widgets"), True)]


# -- an object read but in a kind the read did not complete is not trusted ----------------------------

def test_an_object_of_a_kind_not_fully_read_is_not_used() -> None:
    live, hpa = _scaled()
    gap = LiveGap("apps/v1", "Deployment", "shop", "too many objects")
    (impact,) = plan([DEPLOYMENT], [DEPLOYMENT], LiveSnapshot(True, (live, hpa), (gap,))).impact
    assert impact.facts == _reset(ResetRule.CLIENT_SIDE, None)
    # Likewise a hook: whether the previous run's object is there is unknown.
    hooks = LiveSnapshot(True, (live_of(CONFIGMAP), live_of(HOOK)), (LiveGap("v1", "ConfigMap", "shop", "too many"),))
    assert by_code(plan([CONFIGMAP, HOOK], [CONFIGMAP, HOOK], hooks, target=TARGET), Code.HOOK_COLLISION) == []
