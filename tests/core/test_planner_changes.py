"""What the planner decides about each object and hook, from parsed manifests only (no helm).

The expected values are Helm's rules (pkg/release/util/kind_sorter.go, pkg/action/upgrade.go,
pkg/action/uninstall.go, pkg/action/hooks.go): identity is group + kind + namespace + name;
objects are applied in install kind order, then what left the release is deleted in
previous-release order; `helm uninstall` deletes in uninstall kind order and reads
`helm.sh/resource-policy: keep` from the manifest, `helm upgrade` from the live object; hooks
belong to the events they name, run by weight then name, and default to the
`before-hook-creation` delete policy.
"""
from __future__ import annotations

import base64
from typing import Any

import pytest

from deployah_plan.codes import Code
from deployah_plan.core import renames
from deployah_plan.core.planner import PlanRequest, make_plan
from deployah_plan.core.tasks import hook_phase
from deployah_plan.errors import ManifestError
from deployah_plan.facts import CrdsUntouched, DroppedDocument, EquivalentOnly, Field, KeepFromManifest, Quantity
from deployah_plan.manifests import Rendered, split_stream
from deployah_plan.model import (
    Action, CRDLifecycle, FieldOp, Header, HelmAction, Ownership, Plan, ResourceChange, ResourceRef, TaskAction, TaskPhase,
    TaskPlan, DriftEffect, DriftKind, DriftReason,
)
from deployah_plan.live_snapshot import LiveSnapshot
from deployah_plan.yamlkube import load_all

RELEASE = NS = "shop"


def doc(kind: str, name: str, api: str = "v1", body: str = "", meta: str = "", source: str = "") -> str:
    """One rendered document, as `helm template` prints it (with its `# Source:` line)."""
    head = f"# Source: app/templates/{source}\n" if source else ""
    return f"{head}apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: {name}\n{meta}{body}"


def cm(name: str, data: str = "  colour: teal\n", meta: str = "") -> str:
    return doc("ConfigMap", name, body=f"data:\n{data}", meta=meta)


def hook(kind: str, name: str, events: str, weight: str | None = None, policy: str | None = None, body: str = "",
         api: str = "v1", labels: str = "") -> str:
    notes = f"    helm.sh/hook: {events}\n"
    if weight is not None:
        notes += f"    helm.sh/hook-weight: \"{weight}\"\n"
    if policy is not None:
        notes += f"    helm.sh/hook-delete-policy: {policy}\n"
    return doc(kind, name, api, body, meta=f"  annotations:\n{notes}{labels}")


def rendered(docs: list[str] | None, origin: str = "desired") -> Rendered | None:
    return None if docs is None else split_stream("---\n".join(docs), origin)


def plan(previous: list[str] | None, desired: list[str], **request: Any) -> Plan:
    header = Header(RELEASE, NS, fresh_install=previous is None)
    want = rendered(desired)
    assert want is not None
    return make_plan(PlanRequest(header, rendered(previous, "previous"), want, **request))


def uninstall(previous: list[str], **request: Any) -> Plan:
    prev = rendered(previous, "previous")
    return make_plan(PlanRequest(Header(RELEASE, NS), prev, Rendered(), action=HelmAction.UNINSTALL, **request))


def rows(p: Plan) -> list[tuple[str, str, int]]:
    """(object, action, helm order) of each change, in the plan's order."""
    return [(str(c.resource), c.action.value, c.helm_order) for c in p.changes]


def change(p: Plan, name: str) -> ResourceChange:
    (found,) = [c for c in p.changes if (c.resource.name or c.resource.generate_name) == name]
    return found


def task(p: Plan, name: str) -> TaskPlan:
    (found,) = [t for t in p.tasks if t.resources[0].name == name]
    return found


def live(*objects: str, **meta: Any) -> LiveSnapshot:
    """A live snapshot read from the cluster: each object as the API server returns it."""
    out = []
    for text in objects:
        (loaded,) = load_all(text)
        obj: dict[str, Any] = loaded.value
        obj["metadata"].setdefault("namespace", NS)
        obj["metadata"].update(uid="u-1", resourceVersion="7")
        obj["metadata"].setdefault("labels", {})["app.kubernetes.io/managed-by"] = "Helm"
        obj["metadata"].setdefault("annotations", {}).update({"meta.helm.sh/release-name": RELEASE,
                                                              "meta.helm.sh/release-namespace": NS})
        obj["metadata"].update(meta)
        out.append(obj)
    return LiveSnapshot(True, tuple(out), requests=1)


# -- which Helm action ---------------------------------------------------------------------------

def test_an_upgrade_skips_an_object_leaving_the_release_that_is_already_gone() -> None:
    """Helm's upgrade gets each object that left the release before deleting it, and goes on when
    the get fails (pkg/kube/client.go, Helm 3.19 and 4): read and missing, it is neither deleted
    nor kept, only missing-live drift, and not counted. Unread (offline), it is a delete."""
    on_live = live(cm("cfg"), cm("stays"))
    p = plan([cm("cfg"), cm("stays"), cm("gone"), cm("kept", meta=KEEP)], [cm("cfg"), cm("stays", data="  a: b\n")],
             live=on_live, live_source="cluster")
    assert [(c.resource.name, c.action) for c in p.changes] == [("stays", Action.UPDATE)]
    assert sorted((d.resource.name, d.kind, d.effect, d.why) for d in p.drift) == [
        ("gone", DriftKind.MISSING, DriftEffect.LEFT, DriftReason.LEAVES_RELEASE),
        ("kept", DriftKind.MISSING, DriftEffect.LEFT, DriftReason.LEAVES_RELEASE)]
    assert (p.summary.delete, p.summary.retain) == (0, 0)
    only = plan([cm("cfg"), cm("gone")], [cm("cfg")], live=live(cm("cfg")), live_source="cluster")
    assert only.changes == () and only.helm_action is HelmAction.NONE
    offline = plan([cm("cfg"), cm("gone")], [cm("cfg")])
    assert [(c.resource.name, c.action) for c in offline.changes] == [("gone", Action.DELETE)]


def test_no_previous_release_is_an_install_that_creates_everything() -> None:
    p = plan(None, [cm("cfg")])
    assert p.helm_action is HelmAction.INSTALL
    assert rows(p) == [("ConfigMap shop/cfg", "create", 0)]


def test_an_upgrade_that_changes_nothing_has_no_helm_action() -> None:
    p = plan([cm("cfg"), hook("Job", "migrate", "pre-upgrade")], [cm("cfg"), hook("Job", "migrate", "pre-upgrade")])
    assert p.helm_action is HelmAction.NONE
    assert p.changes == ()
    assert [(t.name, t.action) for t in p.tasks] == [("Job shop/migrate", TaskAction.UNCHANGED)]


def test_a_changed_hook_alone_makes_an_upgrade() -> None:
    p = plan([cm("cfg"), hook("Job", "migrate", "pre-upgrade", body="spec: {backoffLimit: 1}\n")],
             [cm("cfg"), hook("Job", "migrate", "pre-upgrade", body="spec: {backoffLimit: 2}\n")])
    assert p.helm_action is HelmAction.UPGRADE
    assert p.changes == ()
    assert task(p, "migrate").action is TaskAction.UPDATE


@pytest.mark.parametrize("previous, desired", [
    ([cm("cfg")], [cm("cfg", "  colour: red\n")]),
    ([cm("cfg")], [cm("cfg"), cm("new")]),
    ([cm("cfg"), cm("old")], [cm("cfg")]),
])
def test_a_changed_resource_makes_an_upgrade(previous: list[str], desired: list[str]) -> None:
    assert plan(previous, desired).helm_action is HelmAction.UPGRADE


def test_drift_the_upgrade_sets_back_makes_an_upgrade() -> None:
    """Client-side apply is a three-way merge: a declared field changed live is set back, so
    `helm upgrade` does real work although the manifests are equal."""
    deployment = doc("Deployment", "web", "apps/v1", "spec:\n  replicas: 2\n")
    drifted = doc("Deployment", "web", "apps/v1", "spec:\n  replicas: 5\n")
    p = plan([deployment], [deployment], live=live(drifted), live_source="cluster")
    assert p.changes == ()
    assert [d.reverts for d in p.drift] == [True]
    assert p.helm_action is HelmAction.UPGRADE
    same = plan([deployment], [deployment], live=live(deployment), live_source="cluster")
    assert same.helm_action is HelmAction.NONE


def test_a_rollback_is_a_rollback_even_when_the_manifests_are_equal() -> None:
    """`helm rollback` always records a new revision and runs the rollback hooks."""
    p = plan([cm("cfg"), hook("Job", "undo", "pre-rollback")], [cm("cfg"), hook("Job", "undo", "pre-rollback")],
             action=HelmAction.ROLLBACK)
    assert p.helm_action is HelmAction.ROLLBACK
    undo = task(p, "undo")
    assert (undo.phase, undo.will_run) == (TaskPhase.PRE_DEPLOY, True)


def test_the_request_defaults_are_helm_3_hooks_on_crds_installed_no_take_ownership() -> None:
    request = PlanRequest(Header(RELEASE, NS, fresh_install=True), None, Rendered())
    assert (request.helm_major, request.skip_crds, request.hooks_disabled, request.take_ownership,
            request.force_conflicts, request.action, request.line_context) == (3, False, False, False, False, None, 2)
    desired = rendered([hook("Job", "setup", "pre-install"), "# Source: app/crds/widget.yaml\n" + WIDGET_CRD])
    assert desired is not None
    p = make_plan(PlanRequest(Header(RELEASE, NS, fresh_install=True), None, desired))
    assert [c.lifecycle for c in p.chart_crds] == [CRDLifecycle.PROCESS]
    assert task(p, "setup").will_run


def test_no_hooks_runs_no_hook() -> None:
    p = plan(None, [cm("cfg"), hook("Job", "setup", "pre-install")], hooks_disabled=True)
    assert p.hooks_disabled
    assert [t.will_run for t in p.tasks] == [False]


# -- identity ------------------------------------------------------------------------------------

WIDGET_CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.shop.example.com
spec:
  group: shop.example.com
  scope: Cluster
  names: {kind: Widget, plural: widgets}
  versions: [{name: v1, served: true, storage: true}]
"""
WIDGET = doc("Widget", "blue", "shop.example.com/v1", "spec:\n  size: 2\n", meta="  namespace: elsewhere\n")


@pytest.mark.parametrize("where", ["crds", "templates", "hook"])
def test_a_custom_kind_is_cluster_scoped_when_its_crd_in_the_render_says_so(where: str) -> None:
    if where == "crds":
        crd = "# Source: app/crds/widget.yaml\n" + WIDGET_CRD
    elif where == "templates":
        crd = "# Source: app/templates/crd.yaml\n" + WIDGET_CRD
    else:
        crd = WIDGET_CRD.replace("metadata:\n", "metadata:\n  annotations: {helm.sh/hook: pre-install}\n", 1)
    p = plan(None, [WIDGET, crd])  # a crds/ file runs to the next `# Source:` line: it goes last
    widget = change(p, "blue")
    assert str(widget.resource) == "Widget blue"
    assert widget.after is not None and "namespace" not in widget.after["metadata"]


def test_a_crd_in_the_previous_release_only_still_scopes_its_kind() -> None:
    """The Widget declared with a namespace before and without one now is one cluster-scoped object."""
    p = plan([WIDGET_CRD, WIDGET], [WIDGET.replace("  namespace: elsewhere\n", "")])
    assert [str(c.resource) for c in p.changes] == ["CustomResourceDefinition widgets.shop.example.com"]


@pytest.mark.parametrize("crd", [
    WIDGET_CRD.replace("scope: Cluster", "scope: Namespaced"),
    WIDGET_CRD.replace("apiextensions.k8s.io/v1", "example.com/v1"),  # not the API server's CRD kind
    WIDGET_CRD.replace("kind: Widget,", "kind: Gadget,"),
    WIDGET_CRD.replace("group: shop.example.com", "group: other.example.com"),
    WIDGET_CRD.replace("  names: {kind: Widget, plural: widgets}\n", "  names: widgets\n"),
    WIDGET_CRD.replace("spec:\n  group: shop.example.com\n  scope: Cluster\n  names: {kind: Widget, plural: widgets}\n"
                       "  versions: [{name: v1, served: true, storage: true}]\n", "spec: cluster\n"),
])
def test_a_custom_kind_is_namespaced_unless_a_crd_of_its_group_and_kind_says_cluster(crd: str) -> None:
    p = plan(None, ["# Source: app/templates/crd.yaml\n" + crd, WIDGET])
    assert str(change(p, "blue").resource) == "Widget elsewhere/blue"


@pytest.mark.parametrize("spec", ["  names: {kind: Widget, plural: widgets}\n",  # no group: the API server refuses it
                                  "  group: {name: shop.example.com}\n  names: {kind: Widget}\n",
                                  "  group: shop.example.com\n  names: {kind: [Widget]}\n",
                                  "  group: shop.example.com\n  names: {plural: widgets}\n"])
def test_a_crd_without_a_group_and_kind_scopes_nothing(spec: str) -> None:
    crd = ("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets\n"
           f"spec:\n  scope: Cluster\n{spec}")
    p = plan(None, ["# Source: app/templates/crd.yaml\n" + crd, doc("Widget", "w", "v1", meta="  namespace: x\n"),
                    doc("Widget", "blue", "shop.example.com/v1")])
    assert str(change(p, "w").resource) == "Widget x/w"
    assert str(change(p, "blue").resource) == "Widget shop/blue"


def test_a_namespaced_object_without_a_namespace_is_in_the_release_namespace() -> None:
    p = plan([cm("cfg", meta="  namespace: shop\n")], [cm("cfg"), cm("other", meta="  namespace: team\n")])
    assert rows(p) == [("ConfigMap team/other", "create", 1)]
    p = plan(None, [cm("cfg")])
    after = change(p, "cfg").after
    assert after is not None and after["metadata"]["namespace"] == "shop"  # as Helm sends it


def test_a_cluster_scoped_object_has_no_namespace_whatever_it_declares() -> None:
    role = doc("ClusterRole", "reader", "rbac.authorization.k8s.io/v1", "rules: []\n")
    p = plan([role], [role.replace("metadata:\n", "metadata:\n  namespace: team\n")])
    assert p.changes == ()
    p = plan(None, [role.replace("metadata:\n", "metadata:\n  namespace: team\n")])
    created = change(p, "reader")
    assert str(created.resource) == "ClusterRole reader"
    assert created.after is not None and "namespace" not in created.after["metadata"]


def test_an_empty_namespace_is_the_release_namespace() -> None:
    p = plan([cm("cfg", meta="  namespace: \"\"\n")], [cm("cfg", meta="  namespace: shop\n")])
    assert p.changes == ()
    created = change(plan(None, [cm("cfg", meta="  namespace: \"\"\n")]), "cfg")
    assert created.after is not None and created.after["metadata"]["namespace"] == "shop"


def test_the_api_version_is_not_part_of_identity_but_the_group_is() -> None:
    old = doc("Deployment", "web", "apps/v1beta1", "spec: {replicas: 1}\n")
    new = doc("Deployment", "web", "apps/v1", "spec: {replicas: 1}\n")
    p = plan([old], [new])
    assert [(str(c.resource), c.action) for c in p.changes] == [("Deployment shop/web", Action.UPDATE)]
    assert [f.path for f in p.changes[0].fields] == ["/apiVersion"]
    ingress_old = doc("Ingress", "web", "extensions/v1beta1", "spec: {}\n")
    ingress_new = doc("Ingress", "web", "networking.k8s.io/v1", "spec: {}\n")
    p = plan([ingress_old], [ingress_new])
    assert sorted((c.resource.api_version, c.action.value) for c in p.changes) == [
        ("extensions/v1beta1", "delete"), ("networking.k8s.io/v1", "create")]


def test_two_objects_with_one_identity_are_refused_naming_both() -> None:
    first = "# Source: app/templates/a.yaml\n" + cm("cfg")
    second = "# Source: app/templates/b.yaml\n" + cm("cfg", meta="  namespace: shop\n")
    with pytest.raises(ManifestError, match=r"two desired objects have the same identity ConfigMap shop/cfg "
                                            r"\(app/templates/a.yaml and app/templates/b.yaml\)") as raised:
        plan(None, [first, second])
    assert raised.value.hint == "Helm cannot install both; rename one or remove the duplicate"
    with pytest.raises(ManifestError, match=r"two previous objects .* \(document 1 and document 2\)"):
        plan([cm("cfg"), cm("cfg")], [])
    with pytest.raises(ManifestError, match="two desired hook objects"):
        plan(None, [hook("Job", "a", "pre-install"), hook("Job", "a", "post-install")])
    with pytest.raises(ManifestError, match="two previous hook objects"):
        plan([hook("Job", "a", "pre-install"), hook("Job", "a", "post-install")], [])


def test_objects_differing_in_namespace_or_group_are_two_objects() -> None:
    p = plan(None, [cm("cfg"), cm("cfg", meta="  namespace: team\n"),
                    doc("Ingress", "web", "extensions/v1beta1"), doc("Ingress", "web", "networking.k8s.io/v1")])
    assert len(p.changes) == 4


def test_generate_name_objects_have_no_identity() -> None:
    """Each one is a new object: never equal to a previous one, never deleted as leaving."""
    job = doc("Job", "", "batch/v1", "spec: {}\n").replace("  name: \n", "  generateName: check-\n")
    p = plan([job], [job, job])
    assert [(str(c.resource), c.action) for c in p.changes] == [("Job shop/check-*", Action.CREATE)] * 2
    assert all(c.resource.name == "" and c.resource.generate_name == "check-" for c in p.changes)


def test_a_name_wins_over_generate_name() -> None:
    both = cm("cfg", meta="  generateName: cfg-\n")
    p = plan([both], [both])
    assert p.changes == ()
    created = change(plan(None, [both]), "cfg")
    assert (created.resource.name, created.resource.generate_name) == ("cfg", "")


# -- Secrets: stringData is data ------------------------------------------------------------------

def secret(body: str, api: str = "v1") -> str:
    return doc("Secret", "db", api, body)


def test_string_data_is_the_same_secret_as_its_base64_data() -> None:
    encoded = base64.b64encode(b"hunter2").decode()
    p = plan([secret(f"data:\n  password: {encoded}\n")], [secret("stringData:\n  password: hunter2\n")])
    assert p.changes == ()
    p = plan([secret(f"data:\n  password: {encoded}\n")], [secret("stringData:\n  password: hunter3\n")])
    assert [f.path for f in change(p, "db").fields] == ["/data/password"]


def test_string_data_with_data_that_is_not_a_map_is_refused() -> None:
    with pytest.raises(ManifestError, match=r"document 1: Secret db has data that is a string, not a map "
                                            r"of keys to base64 values") as raised:
        plan(None, [secret("data: abc\nstringData:\n  password: x\n")])
    assert raised.value.hint == "the API server refuses it; fix the template"
    assert plan(None, [secret("data: null\nstringData:\n  password: x\n")]).changes[0].action is Action.CREATE


def test_string_data_of_a_kind_named_secret_in_another_group_is_not_folded() -> None:
    p = plan(None, [secret("stringData:\n  password: x\n", api="example.com/v1")])
    after = change(p, "db").after
    assert after is not None and after["stringData"] == {"password": "x"} and "data" not in after


# -- the order Helm applies and deletes in ------------------------------------------------------

KINDS = [
    doc("Job", "job", "batch/v1"),
    doc("Alpha", "alpha", "example.com/v1"),
    doc("MutatingWebhookConfiguration", "mutate", "admissionregistration.k8s.io/v1"),
    doc("Deployment", "web", "apps/v1"),
    doc("ValidatingWebhookConfiguration", "validate", "admissionregistration.k8s.io/v1"),
    doc("Service", "web", "v1"),
    cm("b-first"),
    cm("a-second"),
    doc("Namespace", "team"),
]


@pytest.mark.parametrize("major, order", [
    (3, ["team", "b-first", "a-second", "web", "web", "job", "alpha", "mutate", "validate"]),
    (4, ["team", "b-first", "a-second", "web", "web", "job", "mutate", "validate", "alpha"]),
])
def test_helm_installs_in_kind_order_then_manifest_order(major: int, order: list[str]) -> None:
    """Unknown kinds go last, by kind name; Helm 4 knows the webhooks and puts them last."""
    p = plan(None, KINDS, helm_major=major)
    assert [c.resource.name for c in p.changes] == order
    assert [c.helm_order for c in p.changes] == list(range(len(KINDS)))
    assert [c.resource.kind for c in p.changes][3:5] == ["Service", "Deployment"]


@pytest.mark.parametrize("major, order", [
    (3, ["web", "job", "web", "b-first", "a-second", "team", "alpha", "mutate", "validate"]),
    (4, ["validate", "mutate", "web", "job", "web", "b-first", "a-second", "team", "alpha"]),
])
def test_helm_uninstalls_in_reverse_kind_order(major: int, order: list[str]) -> None:
    """Uninstall order is install order reversed (kind by kind; manifest order within a kind
    stays) but for Service, deleted before the workloads (kind_sorter.go's UninstallOrder):
    Helm 4 deletes the webhooks first; unknown kinds still go last."""
    p = uninstall(KINDS, helm_major=major)
    assert p.helm_action is HelmAction.UNINSTALL
    assert [c.resource.name for c in p.changes] == order
    assert [c.action for c in p.changes] == [Action.DELETE] * len(KINDS)
    assert [c.helm_order for c in p.changes] == list(range(len(KINDS)))
    assert [c.resource.kind for c in p.changes if c.resource.name == "web"] == ["Service", "Deployment"]


def test_an_upgrade_applies_the_target_then_deletes_what_left_in_previous_order() -> None:
    previous = [doc("Service", "gone-svc"), cm("kept"), doc("Deployment", "gone-web", "apps/v1"), cm("gone-cfg"),
                doc("Namespace", "gone-ns")]
    desired = [doc("Deployment", "new", "apps/v1"), cm("kept"), cm("added")]
    p = plan(previous, desired)
    assert rows(p) == [
        ("ConfigMap shop/added", "create", 1),  # the unchanged "kept" is number 0: it is applied too
        ("Deployment shop/new", "create", 2),
        ("Service shop/gone-svc", "delete", 3),
        ("Deployment shop/gone-web", "delete", 4),
        ("ConfigMap shop/gone-cfg", "delete", 5),
        ("Namespace gone-ns", "delete", 6),
    ]
    gone = change(p, "gone-svc")
    assert gone.before is not None and gone.after is None and gone.fields == ()
    assert gone.before["metadata"]["name"] == "gone-svc"


def test_each_change_keeps_the_template_it_came_from() -> None:
    p = plan(["# Source: app/templates/old.yaml\n" + cm("old"), "# Source: app/templates/cfg.yaml\n" + cm("cfg")],
             ["# Source: app/templates/cfg2.yaml\n" + cm("cfg", "  colour: red\n"),
              "# Source: app/templates/new.yaml\n" + cm("new", "  other: 1\n  more: 2\n")])
    assert [(c.resource.name, c.source) for c in p.changes] == [
        ("cfg", "app/templates/cfg2.yaml"), ("new", "app/templates/new.yaml"), ("old", "app/templates/old.yaml")]


# -- updates ------------------------------------------------------------------------------------

def deployment(memory: str, image: str = "nginx:1") -> str:
    return doc("Deployment", "web", "apps/v1", "spec:\n  template:\n    spec:\n      containers:\n"
               f"      - name: web\n        image: {image}\n        resources: {{limits: {{memory: {memory}}}}}\n")


def test_an_update_carries_its_field_changes() -> None:
    p = plan([cm("cfg")], [cm("cfg", "  colour: red\n")])
    updated = change(p, "cfg")
    assert updated.action is Action.UPDATE and updated.helm_order == 0
    assert [(f.path, f.op, f.before, f.after) for f in updated.fields] == [("/data/colour", FieldOp.REPLACE, "teal", "red")]
    assert updated.before is not None and updated.before["data"] == {"colour": "teal"}
    assert updated.after is not None and updated.after["data"] == {"colour": "red"}
    assert updated.crd_schema is None


def test_equal_quantities_written_differently_are_no_change_but_a_note() -> None:
    p = plan([deployment("1Gi")], [deployment("1024Mi")])
    assert p.changes == ()
    assert p.helm_action is HelmAction.NONE
    notes = [w for w in p.warnings if w.code is Code.EQUIVALENT_ONLY]
    memory = Field("/spec/template/spec/containers/0/resources/limits/memory",
                   {"/spec/template/spec/containers/0": {"name": "web"}})
    assert [(w.facts, str(w.resource)) for w in notes] == [(
        EquivalentOnly(fields=(Quantity(memory, "1Gi", "1024Mi"),)), "Deployment shop/web")]


def test_equal_quantities_beside_a_real_change_are_part_of_the_update() -> None:
    p = plan([deployment("1Gi")], [deployment("1024Mi", image="nginx:2")])
    fields = change(p, "web").fields
    assert sorted((f.path.rsplit("/", 1)[-1], f.equivalent) for f in fields) == [("image", False), ("memory", True)]
    assert not [w for w in p.warnings if w.code is Code.EQUIVALENT_ONLY]


@pytest.mark.parametrize("before, after, listed", [
    ("{memory: 1Gi, cpu: 1}", "{memory: 1024Mi, cpu: 1000m}", [("memory", "1Gi", "1024Mi"), ("cpu", 1, "1000m")]),
    ("{cpu: 1, memory: 1Gi}", "{cpu: 1000m, memory: 1024Mi}", [("cpu", 1, "1000m"), ("memory", "1Gi", "1024Mi")]),
])
def test_several_equal_quantities_are_listed_in_one_note_in_document_order(
        before: str, after: str, listed: list[tuple[str, Any, Any]]) -> None:
    """The diff gives its changes in document order (core/diff.py), and the note lists them so."""
    limits = "spec:\n  template:\n    spec:\n      containers:\n      - name: web\n        resources: {limits: %s}\n"
    p = plan([doc("Deployment", "web", "apps/v1", limits % before)], [doc("Deployment", "web", "apps/v1", limits % after)])
    (note,) = [w.facts for w in p.warnings if w.code is Code.EQUIVALENT_ONLY]
    assert isinstance(note, EquivalentOnly)
    assert [(q.field.path.rsplit("/", 1)[1], q.before, q.after) for q in note.fields] == listed


def test_an_updated_crd_is_summarized_by_meaning() -> None:
    crd = WIDGET_CRD.replace("versions: [{name: v1, served: true, storage: true}]",
                             "versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: "
                             "{type: object, description: %s}}}]")
    p = plan([crd % "old"], [crd % "new"])
    updated = change(p, "widgets.shop.example.com")
    assert [f.crd_description for f in updated.fields] == [True]
    assert updated.crd_schema is not None and updated.crd_schema.descriptions == 1


def test_line_context_is_the_unchanged_lines_around_a_change() -> None:
    before = cm("cfg", "  text: |\n    1\n    2\n    3\n    4\n    5\n    6\n    7\n")
    after = cm("cfg", "  text: |\n    1\n    2\n    3\n    X\n    5\n    6\n    7\n")
    hook_before = hook("ConfigMap", "h", "pre-upgrade", body="data:\n  text: |\n    1\n    2\n    3\n    4\n    5\n")
    hook_after = hook("ConfigMap", "h", "pre-upgrade", body="data:\n  text: |\n    1\n    2\n    X\n    4\n    5\n")
    p = plan([before, hook_before], [after, hook_after], line_context=0)
    assert change(p, "cfg").fields[0].lines == ("@@ -4 +4 @@", "-4", "+X")
    assert task(p, "h").definitions[0].fields[0].lines == ("@@ -3 +3 @@", "-3", "+X")
    p = plan([before, hook_before], [after, hook_after])
    assert change(p, "cfg").fields[0].lines == ("@@ -2,5 +2,5 @@", " 2", " 3", "-4", "+X", " 5", " 6")
    assert len(task(p, "h").definitions[0].fields[0].lines) == 7


# -- helm.sh/resource-policy: keep ---------------------------------------------------------------

KEEP = "  annotations: {helm.sh/resource-policy: keep}\n"


def test_an_object_leaving_with_keep_in_its_manifest_is_retained_when_live_was_not_read() -> None:
    p = plan([cm("cfg", meta=KEEP), cm("gone")], [])
    assert [(c.resource.name, c.action) for c in p.changes] == [("cfg", Action.RETAIN), ("gone", Action.DELETE)]
    retained = change(p, "cfg")
    assert retained.before is not None and retained.after is None


def test_an_upgrade_reads_keep_from_the_live_object() -> None:
    """pkg/action/upgrade.go deletes what left the release unless the live object says keep."""
    on_live = live(cm("cfg", meta=KEEP), cm("plain"))
    p = plan([cm("cfg"), cm("plain", meta=KEEP)], [], live=on_live, live_source="cluster")
    assert [(c.resource.name, c.action) for c in p.changes] == [("cfg", Action.RETAIN), ("plain", Action.DELETE)]
    assert not [w for w in p.warnings if w.code is Code.KEEP_FROM_MANIFEST]


def test_uninstall_reads_keep_from_the_manifest_even_with_a_live_object() -> None:
    """pkg/action/uninstall.go filters the release manifest's objects by their annotation."""
    on_live = live(cm("cfg"), cm("plain", meta=KEEP))
    p = uninstall([cm("cfg", meta=KEEP), cm("plain")], live=on_live, live_source="cluster")
    assert [(c.resource.name, c.action) for c in p.changes] == [("cfg", Action.RETAIN), ("plain", Action.DELETE)]


def test_uninstall_skips_an_object_already_gone_from_the_cluster() -> None:
    """Helm skips an object it does not find (Helm 4.3's ownership check before deleting:
    "Resource already deleted; nothing to do"; any Helm's Delete ignores a NotFound): read and
    missing, it is drift, not a delete. Unread (offline, or a kind not read), it is a delete."""
    for major in (3, 4):
        p = uninstall([cm("cfg"), cm("gone"), cm("kept", meta=KEEP)], live=live(cm("cfg")), live_source="cluster",
                      helm_major=major)
        assert [(c.resource.name, c.action) for c in p.changes] == [("cfg", Action.DELETE), ("kept", Action.RETAIN)]
        assert [(d.resource.name, d.kind, d.effect, d.why) for d in p.drift] == [
            ("gone", DriftKind.MISSING, DriftEffect.LEFT, DriftReason.LEAVES_RELEASE)]
        assert (p.summary.delete, p.summary.retain, p.summary.drift_reverted) == (1, 1, 0)
    offline = uninstall([cm("cfg"), cm("gone")])
    assert [(c.resource.name, c.action) for c in offline.changes] == [("cfg", Action.DELETE), ("gone", Action.DELETE)]
    assert offline.drift == ()


def test_uninstall_deletes_every_named_object_and_skips_generate_name_ones() -> None:
    job = doc("Job", "", "batch/v1").replace("  name: \n", "  generateName: check-\n")
    p = uninstall([job, cm("cfg")])
    assert [(str(c.resource), c.action) for c in p.changes] == [("ConfigMap shop/cfg", Action.DELETE)]
    assert p.changes[0].before is not None and p.changes[0].after is None


def test_uninstall_runs_the_delete_hooks_and_notes_chart_crds_stay() -> None:
    p = uninstall([cm("cfg"), hook("Job", "drain", "pre-delete", weight="2"), hook("Job", "bye", "post-delete"),
                   hook("Job", "migrate", "pre-upgrade")])
    phases = {t.resources[0].name: (t.phase, t.action, t.will_run) for t in p.tasks}
    assert phases == {"drain": (TaskPhase.PRE_DEPLOY, TaskAction.UNCHANGED, True),
                      "bye": (TaskPhase.POST_DEPLOY, TaskAction.UNCHANGED, True),
                      "migrate": (TaskPhase.OTHER, TaskAction.UNCHANGED, False)}
    assert task(p, "drain").weight == 2
    assert [w.facts for w in p.warnings if w.code is Code.CRDS_UNTOUCHED] == [CrdsUntouched()]
    assert p.chart_crds == ()


def test_uninstall_orders_hooks_as_helm_stores_them_in_install_kind_order() -> None:
    p = uninstall([hook("Job", "a", "pre-delete"), hook("ServiceAccount", "a", "pre-delete"),
                   hook("MutatingWebhookConfiguration", "a", "pre-delete", api="admissionregistration.k8s.io/v1"),
                   hook("Alpha", "a", "pre-delete", api="example.com/v1")], helm_major=4)
    assert [t.resources[0].kind for t in p.tasks] == ["ServiceAccount", "Job", "MutatingWebhookConfiguration", "Alpha"]
    assert [t.helm_order for t in p.tasks] == [0, 1, 2, 3]


def test_a_plain_upgrade_notes_keep_guessed_from_the_manifest() -> None:
    def note(p: Plan) -> object:
        (found,) = [w.facts for w in p.warnings if w.code is Code.KEEP_FROM_MANIFEST]
        return found

    def cms(*names: str) -> KeepFromManifest:
        return KeepFromManifest(objects=tuple(ResourceRef("v1", "ConfigMap", "shop", n) for n in names))
    assert note(plan([cm("a"), cm("b"), cm("c"), cm("d")], [])) == cms("a", "b", "c", "d")
    assert note(plan([cm("a"), cm("b"), cm("c")], [])) == cms("a", "b", "c")
    assert note(plan([cm("a")], [])) == cms("a")


def test_a_document_helm_drops_is_noted() -> None:
    """A hook with an unknown event (Helm 2's crd-install) is neither hook nor resource."""
    old = hook("ConfigMap", "old", "crd-install")
    new = hook("ConfigMap", "new", "pre-install,bogus")
    p = plan([cm("cfg"), old], [cm("cfg"), new])
    assert [w.facts for w in p.warnings if w.code is Code.DROPPED_DOCUMENT] == [
        DroppedDocument(source="", kind="ConfigMap", name="old", event="crd-install"),
        DroppedDocument(source="", kind="ConfigMap", name="new", event="bogus")]
    assert p.changes == () and p.tasks == ()


# -- likely renames ------------------------------------------------------------------------------

def data(n: int, prefix: str = "k", start: int = 0) -> str:
    return "".join(f"  {prefix}{i}: v{i}\n" for i in range(start, start + n))


def links(p: Plan) -> dict[str, str]:
    return {c.resource.name: c.likely_rename.name for c in p.changes if c.likely_rename is not None}


def test_a_delete_and_a_create_with_the_same_body_are_a_likely_rename() -> None:
    p = plan([cm("cfg-v1", data(3)), cm("other")], [cm("cfg-v2", data(3)), cm("other")])
    assert links(p) == {"cfg-v1": "cfg-v2", "cfg-v2": "cfg-v1"}
    renamed = change(p, "cfg-v2")
    assert renamed.likely_rename is not None and str(renamed.likely_rename) == "ConfigMap shop/cfg-v1"


def test_metadata_and_status_move_with_a_rename() -> None:
    old = doc("Deployment", "web-v1", "apps/v1", "spec: {replicas: 2}\nstatus: {ready: 1}\n", meta="  labels: {v: one}\n")
    new = doc("Deployment", "web-v2", "apps/v1", "spec: {replicas: 2}\n", meta="  labels: {v: two}\n")
    assert links(plan([old], [new])) == {"web-v1": "web-v2", "web-v2": "web-v1"}


def test_an_object_without_a_body_is_compared_by_its_labels_and_annotations() -> None:
    def account(name: str, meta: str) -> str:
        return doc("ServiceAccount", name, meta=meta)
    assert links(plan([account("a", "  labels: {}\n")], [account("b", "")])) == {"a": "b", "b": "a"}
    assert links(plan([account("a", "  labels: {x: '1'}\n")], [account("b", "  labels: {x: '1'}\n")])) == {"a": "b", "b": "a"}
    assert links(plan([account("a", "  labels: {x: '1'}\n")], [account("b", "  labels: {x: '2'}\n")])) == {}
    assert links(plan([account("a", "  annotations: {x: '1'}\n")], [account("b", "  annotations: {x: '2'}\n")])) == {}
    assert links(plan([account("a", "  annotations: {x: '1'}\n")], [account("b", "  annotations: {x: '1'}\n")])) == {
        "a": "b", "b": "a"}
    assert links(plan([account("a", "  labels: {x: '1'}\n")], [account("b", "  annotations: {x: '1'}\n")])) == {}


def test_a_rename_stays_within_one_group_and_kind() -> None:
    assert links(plan([cm("a", data(3))], [doc("Secret", "b", body="data:\n" + data(3))])) == {}
    old = doc("Widget", "a", "one.example.com/v1", "spec:\n" + data(3))
    new = doc("Widget", "b", "two.example.com/v1", "spec:\n" + data(3))
    assert links(plan([old], [new])) == {}
    assert links(plan([old], [new.replace("two.example.com", "one.example.com")])) == {"a": "b", "b": "a"}


def test_a_retained_object_is_no_rename_nor_is_a_generate_name_create() -> None:
    assert links(plan([cm("a", data(3), meta=KEEP)], [cm("b", data(3))])) == {}
    generated = cm("", data(3)).replace("  name: \n", "  generateName: b-\n")
    assert links(plan([cm("a", data(3))], [generated])) == {}
    assert links(plan([cm("a", data(3))], [generated, cm("c", data(3))])) == {"a": "c", "c": "a"}


def test_equal_bodies_pair_in_helm_order() -> None:
    p = plan([cm("old-1", data(2)), cm("old-2", data(2)), cm("keep")],
             [cm("keep"), cm("new-1", data(2)), cm("new-2", data(2))])
    assert links(p) == {"old-1": "new-1", "new-1": "old-1", "old-2": "new-2", "new-2": "old-2"}


def test_a_rename_needs_four_fifths_of_the_leaves_equal() -> None:
    """Similarity is twice the shared leaves over both counts (the Dice coefficient): 0.8 links,
    less does not."""
    # 8 of 10 leaves shared on each side: 16/20 = 0.8.
    assert links(plan([cm("a", data(8) + data(2, "x"))], [cm("b", data(8) + data(2, "y"))])) == {"a": "b", "b": "a"}
    # 7 of 10: 0.7.
    assert links(plan([cm("a", data(7) + data(3, "x"))], [cm("b", data(7) + data(3, "y"))])) == {}
    # Sizes 12 and 8, the 8 all shared: 16/20 = 0.8, at the smallest size ratio that can reach it.
    assert links(plan([cm("a", data(8) + data(4, "x"))], [cm("b", data(8))])) == {"a": "b", "b": "a"}
    assert links(plan([cm("a", data(8))], [cm("b", data(8) + data(4, "x"))])) == {"a": "b", "b": "a"}
    # Sizes 13 and 8: 16/21 < 0.8.
    assert links(plan([cm("a", data(8) + data(5, "x"))], [cm("b", data(8))])) == {}
    # A leaf is its path and its value: a changed value is not shared.
    assert links(plan([cm("a", data(5))], [cm("b", data(3) + "  k3: other\n  k4: other\n")])) == {}


def test_the_best_pair_is_taken_first() -> None:
    base = data(18)
    p = plan([cm("gone", base + data(2, "x"))],
             [cm("close", base + data(2, "y")),  # 18 of 20 shared: 0.9
              cm("closer", base + data(1, "x") + data(1, "z"))])  # 19 of 20: 0.95
    assert links(p) == {"gone": "closer", "closer": "gone"}
    p = plan([cm("gone", base + data(2, "x"))],
             [cm("closer", base + data(1, "x") + data(1, "z")), cm("close", base + data(2, "y"))])
    assert links(p) == {"gone": "closer", "closer": "gone"}


def test_each_object_is_linked_once_best_pairs_first() -> None:
    base = data(16)
    # gone-a: 0.95 to new-b, 0.85 to new-c; gone-d: 0.9 to new-b, 0.85 to new-c.
    olds = [cm("gone-a", base + data(4, "a")), cm("gone-d", base + data(2, "a") + data(2, "d"))]
    news = [cm("new-b", base + data(3, "a") + data(1, "b")), cm("new-c", base + data(1, "a") + data(3, "c"))]
    p = plan(olds, news)
    assert links(p) == {"gone-a": "new-b", "new-b": "gone-a", "gone-d": "new-c", "new-c": "gone-d"}


def test_equal_scores_go_to_the_first_in_helm_order() -> None:
    base = data(18)
    p = plan([cm("one", base + data(2, "x")), cm("two", base + data(2, "y"))], [cm("new", base + data(2, "z"))])
    assert links(p) == {"one": "new", "new": "one"}
    p = plan([cm("old", base + data(2, "x"))], [cm("one", base + data(2, "y")), cm("two", base + data(2, "z"))])
    assert links(p) == {"old": "one", "one": "old"}


def test_rarely_shared_leaves_still_find_their_pair() -> None:
    """Many objects share most leaves; the pair is found though its shared leaves are common."""
    common = data(8)
    olds = [cm("gone", common + data(4, "g"))] + [cm(f"other-{i}", data(1, f"o{i}-") + data(10, "z")) for i in range(3)]
    news = [cm("new", common)] + [cm(f"else-{i}", common.replace("v", f"w{i}")) for i in range(3)]
    assert links(plan(olds, news)) == {"gone": "new", "new": "gone"}


# -- hooks ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("action, events, phase", [
    (HelmAction.INSTALL, ("pre-install",), TaskPhase.PRE_DEPLOY),
    (HelmAction.INSTALL, ("post-install",), TaskPhase.POST_DEPLOY),
    (HelmAction.INSTALL, ("pre-upgrade",), TaskPhase.PRE_DEPLOY),
    (HelmAction.INSTALL, ("post-upgrade",), TaskPhase.POST_DEPLOY),
    (HelmAction.INSTALL, ("post-install", "pre-upgrade"), TaskPhase.POST_DEPLOY),
    (HelmAction.INSTALL, ("pre-rollback",), TaskPhase.OTHER),
    (HelmAction.INSTALL, ("test",), TaskPhase.OTHER),
    (HelmAction.UPGRADE, ("pre-upgrade",), TaskPhase.PRE_DEPLOY),
    (HelmAction.UPGRADE, ("post-upgrade",), TaskPhase.POST_DEPLOY),
    (HelmAction.UPGRADE, ("pre-install",), TaskPhase.PRE_DEPLOY),
    (HelmAction.UPGRADE, ("post-install",), TaskPhase.POST_DEPLOY),
    (HelmAction.UPGRADE, ("pre-install", "post-upgrade"), TaskPhase.POST_DEPLOY),
    (HelmAction.UPGRADE, ("pre-delete", "post-delete"), TaskPhase.OTHER),
    (HelmAction.ROLLBACK, ("pre-rollback",), TaskPhase.PRE_DEPLOY),
    (HelmAction.ROLLBACK, ("post-rollback",), TaskPhase.POST_DEPLOY),
    (HelmAction.ROLLBACK, ("pre-upgrade",), TaskPhase.OTHER),
    (HelmAction.ROLLBACK, ("post-install",), TaskPhase.OTHER),
    (HelmAction.UNINSTALL, ("pre-delete",), TaskPhase.PRE_DEPLOY),
    (HelmAction.UNINSTALL, ("post-delete",), TaskPhase.POST_DEPLOY),
    (HelmAction.UNINSTALL, ("pre-install",), TaskPhase.OTHER),
    (HelmAction.UNINSTALL, ("post-upgrade",), TaskPhase.OTHER),
])
def test_a_hook_sits_in_the_phase_its_events_name(action: HelmAction, events: tuple[str, ...], phase: TaskPhase) -> None:
    """The action's own pre- and post- events first; an install or upgrade also shows the
    other deploy's hooks where they would run."""
    assert hook_phase(events, action) is phase


def test_hook_tasks_carry_the_hook_annotations() -> None:
    p = plan(None, [hook("Job", "migrate", "pre-install,pre-upgrade", weight="-5", policy="hook-succeeded,hook-failed"),
                    hook("Job", "seed", "post-install")])
    migrate = task(p, "migrate")
    assert (migrate.name, migrate.events, migrate.weight, migrate.delete_policies) == (
        "Job shop/migrate", ("pre-install", "pre-upgrade"), -5, ("hook-succeeded", "hook-failed"))
    assert (migrate.phase, migrate.action, migrate.will_run) == (TaskPhase.PRE_DEPLOY, TaskAction.CREATE, True)
    assert [str(r) for r in migrate.resources] == ["Job shop/migrate"]
    seed = task(p, "seed")
    assert (seed.weight, seed.delete_policies, seed.phase) == (0, ("before-hook-creation",), TaskPhase.POST_DEPLOY)
    (definition,) = migrate.definitions
    assert (str(definition.resource), definition.action, definition.before, definition.fields) == (
        "Job shop/migrate", TaskAction.CREATE, None, ())
    assert definition.after is not None and definition.after["metadata"]["name"] == "migrate"


def test_a_hook_task_is_named_by_its_task_label() -> None:
    p = plan(None, [hook("Job", "migrate", "pre-install", labels="  labels: {deployah.dev/task: schema}\n")])
    assert [t.name for t in p.tasks] == ["schema"]


def test_a_hook_that_leaves_is_deleted_and_one_that_changes_is_updated() -> None:
    previous = [hook("Job", "gone", "pre-upgrade", weight="1"), hook("Job", "same", "pre-upgrade"),
                hook("Job", "changed", "pre-upgrade", weight="1", body="spec: {backoffLimit: 1}\n")]
    desired = [hook("Job", "same", "pre-upgrade"),
               hook("Job", "changed", "post-upgrade", weight="3", body="spec: {backoffLimit: 2}\n"),
               hook("Job", "new", "pre-upgrade")]
    p = plan(previous, desired)
    assert {t.resources[0].name: t.action for t in p.tasks} == {
        "gone": TaskAction.DELETE, "same": TaskAction.UNCHANGED, "changed": TaskAction.UPDATE, "new": TaskAction.CREATE}
    changed = task(p, "changed")
    assert (changed.weight, changed.events, changed.phase) == (3, ("post-upgrade",), TaskPhase.POST_DEPLOY)
    (definition,) = changed.definitions
    assert definition.before is not None and definition.before["spec"] == {"backoffLimit": 1}
    assert definition.after is not None and definition.after["spec"] == {"backoffLimit": 2}
    assert sorted(f.path for f in definition.fields) == [
        "/metadata/annotations/helm.sh~1hook", "/metadata/annotations/helm.sh~1hook-weight", "/spec/backoffLimit"]
    gone = task(p, "gone")
    assert (gone.weight, gone.will_run) == (1, False)
    assert gone.definitions[0].after is None and gone.definitions[0].before is not None
    assert task(p, "same").definitions[0].fields == ()


def test_a_hook_with_only_equal_quantities_changed_is_unchanged() -> None:
    def job(memory: str) -> str:
        return hook("Job", "migrate", "pre-upgrade", api="batch/v1",
                    body="spec:\n  template:\n    spec:\n      containers:\n      - name: m\n"
                         f"        resources: {{limits: {{memory: {memory}}}}}\n")
    p = plan([job("1Gi")], [job("1024Mi")])
    assert task(p, "migrate").action is TaskAction.UNCHANGED
    assert p.helm_action is HelmAction.NONE


def test_hooks_keep_helms_stored_order_kind_first_then_leaving_ones() -> None:
    """Helm stores a release's hooks sorted by kind in install order (stable); that order is the
    last tie-breaker when hooks of equal weight and name run."""
    desired = [hook("Job", "a", "pre-install"), hook("ConfigMap", "b", "pre-install"),
               hook("ServiceAccount", "c", "pre-install"), hook("ConfigMap", "a", "pre-install")]
    p = plan(None, desired)
    assert {(t.resources[0].kind, t.resources[0].name): t.helm_order for t in p.tasks} == {
        ("ServiceAccount", "c"): 0, ("ConfigMap", "b"): 1, ("ConfigMap", "a"): 2, ("Job", "a"): 3}
    # Equal weights run by name, then by that order: both "a" hooks, the ConfigMap first.
    assert [(t.resources[0].kind, t.resources[0].name) for t in p.tasks] == [
        ("ConfigMap", "a"), ("Job", "a"), ("ConfigMap", "b"), ("ServiceAccount", "c")]
    previous = [hook("Job", "x", "pre-upgrade"), hook("ServiceAccount", "sa", "pre-upgrade"), hook("Job", "kept", "pre-upgrade")]
    p = plan(previous, [hook("Job", "kept", "pre-upgrade"), hook("Job", "new", "pre-upgrade")])
    assert {t.resources[0].name: t.helm_order for t in p.tasks} == {"kept": 0, "new": 1, "sa": 2, "x": 3}


# -- CronJobs: scheduled work --------------------------------------------------------------------

def cronjob(name: str, schedule: str = "0 * * * *", labels: str = "", api: str = "batch/v1") -> str:
    return doc("CronJob", name, api, f"spec:\n  schedule: '{schedule}'\n", meta=labels)


def test_each_cronjob_is_a_scheduled_task_with_its_change() -> None:
    previous = [cronjob("same"), cronjob("changed"), cronjob("gone"), cronjob("kept", labels=KEEP)]
    desired = [cronjob("same"), cronjob("changed", "5 * * * *"), cronjob("new")]
    p = plan(previous, desired)
    scheduled = [t for t in p.tasks if t.phase is TaskPhase.SCHEDULE]
    assert {t.name: t.action for t in scheduled} == {
        "CronJob shop/same": TaskAction.UNCHANGED, "CronJob shop/changed": TaskAction.UPDATE,
        "CronJob shop/new": TaskAction.CREATE, "CronJob shop/gone": TaskAction.DELETE,
        "CronJob shop/kept": TaskAction.DELETE}
    assert len(scheduled) == 5
    new = task(p, "new")
    assert (new.events, new.weight, new.delete_policies, new.definitions, new.will_run) == ((), 0, (), (), False)
    assert [str(r) for r in new.resources] == ["CronJob shop/new"]
    assert p.helm_action is HelmAction.UPGRADE


def test_a_cronjob_task_is_named_by_its_task_label_as_declared_now() -> None:
    label = "  labels: {deployah.dev/task: %s}\n"
    p = plan([cronjob("report", labels=label % "old"), cronjob("still", labels=label % "still"),
              cronjob("gone", labels=label % "gone")],
             [cronjob("report", "5 * * * *", labels=label % "new"), cronjob("still", labels=label % "still")])
    assert sorted(t.name for t in p.tasks) == ["gone", "new", "still"]


def test_only_batch_cronjobs_are_scheduled_work() -> None:
    p = plan(None, [cronjob("mine", api="example.com/v1"), doc("Job", "once", "batch/v1"), cronjob("real")])
    assert [t.name for t in p.tasks] == ["CronJob shop/real"]


def test_unchanged_cronjobs_alone_leave_nothing_to_do() -> None:
    p = plan([cronjob("same")], [cronjob("same")])
    assert p.helm_action is HelmAction.NONE
    assert [(t.name, t.action) for t in p.tasks] == [("CronJob shop/same", TaskAction.UNCHANGED)]


# -- values the chart makes anew on every render --------------------------------------------------

def test_fields_that_differ_between_two_renders_are_marked_regenerated() -> None:
    first = [cm("cfg", "  password: aaa\n  colour: red\n"), hook("ConfigMap", "h", "pre-upgrade", body="data: {token: x1}\n")]
    again = [cm("cfg", "  password: bbb\n  colour: red\n"), hook("ConfigMap", "h", "pre-upgrade", body="data: {token: x2}\n")]
    previous = [cm("cfg", "  password: zzz\n  colour: teal\n"), hook("ConfigMap", "h", "pre-upgrade", body="data: {token: x0}\n")]
    p = plan(previous, first, desired_again=rendered(again), render_window=(1.0, 2.0))
    assert {f.path: f.regenerated for f in change(p, "cfg").fields} == {"/data/password": True, "/data/colour": False}
    assert [f.regenerated for f in task(p, "h").definitions[0].fields] == [True]
    assert p.summary.regenerated == 0  # the colour is a real change
    p = plan(previous, first, desired_again=rendered(again))  # no render window: nothing is known
    assert [f.regenerated for f in change(p, "cfg").fields] == [False, False]
    assert [f.regenerated for f in task(p, "h").definitions[0].fields] == [False]


def test_a_second_render_with_one_identity_twice_is_refused() -> None:
    with pytest.raises(ManifestError, match=r"two desired objects have the same identity ConfigMap shop/cfg"):
        plan([cm("cfg")], [cm("cfg")], desired_again=rendered([cm("cfg"), cm("cfg")]), render_window=(1.0, 2.0))
    with pytest.raises(ManifestError, match=r"two desired hook objects have the same identity Job shop/h"):
        plan(None, [hook("Job", "h", "pre-install")], desired_again=rendered([hook("Job", "h", "pre-install")] * 2),
             render_window=(1.0, 2.0))


def test_a_render_time_is_regenerated_even_without_a_second_render() -> None:
    p = plan([cm("cfg", "  at: '1000000000'\n")], [cm("cfg", "  at: '1700000000'\n")], render_window=(1700000000.0, 1700000001.0))
    assert [f.regenerated for f in change(p, "cfg").fields] == [True]
    assert p.summary.regenerated == 1


def test_only_ownership_of_creates_is_judged() -> None:
    """An object the release already holds is not created, so Helm checks no ownership."""
    on_live = live(cm("cfg"), cm("new"))
    p = plan([cm("cfg")], [cm("cfg", "  colour: red\n"), cm("new")], live=on_live, live_source="cluster")
    assert change(p, "cfg").ownership is Ownership.NOT_CHECKED
    assert change(p, "new").ownership is not Ownership.NOT_CHECKED


# -- the bounds that keep rename pairing linear --------------------------------------------------

def keys(name: str, *names: str) -> str:
    """A ConfigMap whose leaves are the keys named (each with the same value)."""
    return cm(name, "".join(f"  {key}: v\n" for key in names))


def test_scoring_stops_when_the_leaf_budget_is_spent(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each delete scored costs the leaves compared (the smaller side, plus one); the deletes
    still to score once the budget is spent stay unlinked."""
    olds = [keys(f"gone-{k}", f"{k}a", f"{k}b", f"{k}c", f"{k}d", f"{k}x") for k in "pqr"]
    news = [keys(f"new-{k}", f"{k}a", f"{k}b", f"{k}c", f"{k}d", f"{k}y") for k in "pqr"]  # 4 of 5 shared: 0.8
    everything = {f"{w}-{k}" for k in "pqr" for w in ("gone", "new")}
    assert set(links(plan(olds, news))) == everything
    monkeypatch.setattr(renames, "_RENAME_BUDGET", 12)  # two pairs of 5 leaves: 6 + 6
    assert set(links(plan(olds, news))) == everything - {"gone-r", "new-r"}
    monkeypatch.setattr(renames, "_RENAME_BUDGET", 13)
    assert set(links(plan(olds, news))) == everything


def test_one_delete_is_scored_against_a_bounded_number_of_creates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Candidates come rarest shared leaf first, then in Helm's order; past the bound, a better
    create is not looked at."""
    shared = [f"s{i}" for i in range(1, 9)]
    gone = keys("gone", "a1", "a2", *shared)
    creates = [keys("c0", "a1", "a2", *shared[:6], "x1", "x2"),  # 8 of 10 shared: 0.8
               keys("c1", "a1", "a2", *shared[:7], "x3"),  # 0.9
               keys("c2", "a1", "a2", *shared, "x4")]  # 10 of 10 and 11: 0.95
    # Deletes that cannot pair (too large) make s7 and s8 common, so a1 is the rarest shared leaf.
    decoys = [keys(f"decoy-{d}", "s7", "s8", *(f"d{d}-{i}" for i in range(40))) for d in range(3)]
    assert links(plan([gone, *decoys], creates))["gone"] == "c2"
    monkeypatch.setattr(renames, "_RENAME_CANDIDATES", 2)
    assert links(plan([gone, *decoys], creates))["gone"] == "c1"


def test_a_create_paired_by_equal_content_takes_no_candidate_place(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(renames, "_RENAME_CANDIDATES", 1)
    olds = [keys("same", "a", "b", "c", "d", "e"), keys("gone", "a", "b", "c", "d", "x")]
    news = [keys("same-new", "a", "b", "c", "d", "e"), keys("close", "a", "b", "c", "d", "y")]  # 0.8 to gone
    assert links(plan(olds, news)) == {"same": "same-new", "same-new": "same", "gone": "close", "close": "gone"}


@pytest.mark.parametrize("misfits, linked", [(7, True), (8, False)])
def test_the_postings_looked_at_for_one_delete_are_bounded(monkeypatch: pytest.MonkeyPatch, misfits: int,
                                                           linked: bool) -> None:
    """Creates of a size that cannot reach the threshold are skipped, but counted: at most eight
    times the candidate bound. The rarest shared leaf comes first, whatever its name."""
    monkeypatch.setattr(renames, "_RENAME_CANDIDATES", 1)
    gone = keys("gone", "s1", "s2", "s3", "s4", "z1")
    match = keys("match", "s1", "s2", "s3", "s4", "g1")  # 0.8
    small = [keys(f"small-{k}", "z1", f"u{k}", f"w{k}") for k in range(misfits)]  # 3 against 5: too small
    # Deletes too large to pair make the shared s1..s4 commoner than z1, so z1's postings come first.
    decoys = [keys(f"decoy-{d}", "s1", "s2", "s3", "s4", *(f"d{d}-{i}" for i in range(30))) for d in range(10)]
    assert ("gone" in links(plan([gone, *decoys], [*small, match]))) is linked


def test_a_pair_sharing_only_common_leaves_is_never_scored(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two sets of 10 leaves with Dice >= 0.8 share at least 0.8 * 10 / 1.2, so 6, leaves: in
    one order of rarity, their 10 - 6 + 1 = 5 rarest leaves meet (6 are indexed, one more for
    rounding). A delete and a create that share only 4 leaves, all commoner than their own
    ones, are never compared: the leaf budget is left whole for the pair that can match."""
    unlike = [keys("gone-a", *(f"u{i}" for i in range(6)), "c1", "c2", "c3", "c4"),
              keys("new-a", *(f"w{i}" for i in range(6)), "c1", "c2", "c3", "c4")]  # 4 of 10: 0.4
    alike = [keys("gone-b", "g0", *(f"r{i}" for i in range(9))),
             keys("new-b", "h0", *(f"r{i}" for i in range(9)))]  # 9 of 10: 0.9
    monkeypatch.setattr(renames, "_RENAME_BUDGET", 11)  # one pair of 10 leaves: 10 + 1
    assert links(plan([unlike[0], alike[0]], [unlike[1], alike[1]])) == {"gone-b": "new-b", "new-b": "gone-b"}


def test_a_null_namespace_is_no_namespace() -> None:
    role = doc("ClusterRole", "reader", "rbac.authorization.k8s.io/v1", "rules: []\n")
    assert plan([role.replace("metadata:\n", "metadata:\n  namespace: null\n")], [role]).changes == ()
    assert plan([cm("cfg", meta="  namespace: null\n")], [cm("cfg")]).changes == ()
