"""The planner under Helm 4's server-side apply and on adoption: what an apply predicted to fail
leaves undone, and an existing object the chart now renders, shown as the change Helm makes to
it. Pure: parsed manifests and an in-memory live snapshot, no helm, no API server."""
from __future__ import annotations

import copy
from typing import Any

from builders import live_of, obj, plan

from deployah_plan.codes import Code
from deployah_plan.impacts import ImpactKind
from deployah_plan.facts import SsaConflict
from deployah_plan.model import Action, ApplyMethod, Ownership, Plan, Warning

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

INGRESS = """\
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
spec:
  rules:
  - host: shop.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
"""
EDITED = [{"manager": "kubectl-edit", "operation": "Update", "fieldsV1": {"f:spec": {"f:template": {"f:spec": {
    "f:containers": {'k:{"name":"web"}': {"f:image": {}}}}}}}}]


def by_code(p: Plan, code: Code) -> list[Warning]:
    return [w for w in p.warnings if w.code is code]


def _hand_edited(text: str = DEPLOYMENT) -> dict[str, Any]:
    live = live_of(text)
    live["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:hotfix"
    live["metadata"]["managedFields"] = copy.deepcopy(EDITED)
    return live


def test_an_object_whose_apply_fails_rolls_nothing_out_and_nothing_is_deleted() -> None:
    # Issue 46 point 2: the image the chart changes was edited by hand; without --force-conflicts
    # the apply fails, so no pod restarts, and Helm stops before deleting the Ingress that leaves
    # the release: the route it served is not lost by this upgrade.
    new = DEPLOYMENT.replace("nginx:1.25", "nginx:1.26")
    live = [_hand_edited(), live_of(INGRESS)]
    failed = plan([DEPLOYMENT, INGRESS], [new], live, apply_method=ApplyMethod.SSA)
    assert [w.resource.name for w in by_code(failed, Code.SSA_CONFLICT) if w.resource] == ["web"]
    assert [i.kind for i in failed.impact] == []
    # Forced, the same upgrade restarts the pods and drops the route.
    forced = plan([DEPLOYMENT, INGRESS], [new], live, apply_method=ApplyMethod.SSA, force_conflicts=True)
    assert by_code(forced, Code.SSA_CONFLICT) == []
    assert {(i.kind, i.resource.kind) for i in forced.impact} >= {(ImpactKind.RESTART, "Deployment")}
    assert any(i.resource.kind == "Ingress" for i in forced.impact)


def test_an_apply_that_fails_leaves_the_other_objects_rolling_out() -> None:
    # Helm 4 applies every object (a failed update does not stop the others): another
    # Deployment's pod-template change still rolls out.
    other_text = DEPLOYMENT.replace("name: web\n", "name: api\n", 1)
    new = DEPLOYMENT.replace("nginx:1.25", "nginx:1.26")
    p = plan([DEPLOYMENT, other_text], [new, other_text.replace("nginx:1.25", "nginx:1.26")],
             [_hand_edited(), live_of(other_text)], apply_method=ApplyMethod.SSA)
    assert [(i.kind, i.resource.name) for i in p.impact] == [(ImpactKind.RESTART, "api")]


def test_a_failure_before_helm_applies_anything_predicts_no_impact() -> None:
    """--force-replace on a server-side upgrade, an ownership check that fails: Helm stops before it
    applies any object (pkg/kube/client.go Update; pkg/action/upgrade.go "Unable to continue"), so
    no pod restarts and the Ingress leaving the release is not deleted. The same plan without the
    failure predicts both."""
    from deployah_plan.core.adoption import force_replace_note
    new = DEPLOYMENT.replace("nginx:1.25", "nginx:1.26")
    live = [live_of(DEPLOYMENT), live_of(INGRESS)]
    ok = plan([DEPLOYMENT, INGRESS], [new], live, apply_method=ApplyMethod.SSA)
    assert {i.resource.kind for i in ok.impact} == {"Deployment", "Ingress"}
    for flag, ssa in (("--force-replace", True), ("--force", False)):
        note = force_replace_note(flag, ssa)
        replaced = plan([DEPLOYMENT, INGRESS], [new], live, apply_method=ApplyMethod.SSA, warnings=(note,))
        assert [w.fails for w in by_code(replaced, Code.FORCE_REPLACE)] == [ssa]
        assert bool(replaced.impact) is not ssa  # a client-side replace does happen: it rolls out
    unowned = live_of(CONFIGMAP)
    unowned["metadata"].pop("labels", None), unowned["metadata"].pop("annotations", None)
    refused = plan([DEPLOYMENT, INGRESS], [new, CONFIGMAP], [*live, unowned])
    assert [w.fails for w in by_code(refused, Code.OWNERSHIP)] == [True]
    assert refused.impact == ()
    adopted = plan([DEPLOYMENT, INGRESS], [new, CONFIGMAP], [*live, unowned], take_ownership=True)
    assert {i.resource.kind for i in adopted.impact} >= {"Deployment", "Ingress"}


# -- adoption (issue 46 point 3) ----------------------------------------------------------------------

CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  colour: teal\n"
WIDGET = "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata:\n  name: blue\nspec:\n  size: 2\n"


def _unowned(text: str, **managed: Any) -> dict[str, Any]:
    """A live object made outside Helm: no ownership metadata, a team label, an older image."""
    live = obj(text.replace("nginx:1.25", "nginx:1.24"))
    live["metadata"].update(namespace="shop", labels={"team": "a"}, uid="u-2", resourceVersion="7")
    if managed:
        live["metadata"]["managedFields"] = [{"manager": name, "operation": "Update", "fieldsV1": fields}
                                             for name, fields in managed.items()]
    return live


def _fields(p: Plan, name: str) -> dict[str, tuple[str, Any, Any]]:
    (change,) = [c for c in p.changes if c.resource.name == name]
    assert change.action is Action.CREATE and change.ownership is Ownership.ADOPT
    return {f.path: (f.op.value, f.before, f.after) for f in change.fields}


OWNERSHIP = {
    "/metadata/labels/app.kubernetes.io~1managed-by": ("add", None, "Helm"),
    "/metadata/annotations": ("add", None, {"meta.helm.sh/release-name": "shop", "meta.helm.sh/release-namespace": "shop"}),
}


def test_an_adopted_object_client_side_shows_what_the_merge_sets_and_deletes_nothing() -> None:
    # Helm 3 (and a client-side Helm 4 release): a three-way merge whose original is the chart's
    # own object: every declared field set, nothing deleted (the team label stays).
    p = plan([CONFIGMAP], [CONFIGMAP, DEPLOYMENT], [live_of(CONFIGMAP), _unowned(DEPLOYMENT)], take_ownership=True)
    assert _fields(p, "web") == {**OWNERSHIP,
                                 "/spec/template/spec/containers/0/image": ("replace", "nginx:1.24", "nginx:1.25")}


def test_an_adopted_custom_resource_client_side_is_left_as_it_is_on_upgrade() -> None:
    # A JSON merge patch from the chart's object to itself is empty; only an install with
    # --take-ownership merges it three ways.
    live = _unowned(WIDGET.replace("size: 2", "size: 5"))
    upgrade = plan([CONFIGMAP], [CONFIGMAP, WIDGET], [live_of(CONFIGMAP), live], take_ownership=True)
    assert _fields(upgrade, "blue") == {}
    install = plan(None, [WIDGET], [live], take_ownership=True)
    assert _fields(install, "blue") == {**OWNERSHIP, "/spec/size": ("replace", 5, 2)}


KUBECTL_APPLIED = {"f:metadata": {"f:labels": {"f:team": {}}}, "f:spec": {"f:replicas": {}, "f:template": {"f:spec": {
    "f:containers": {'k:{"name":"web"}': {".": {}, "f:image": {}, "f:name": {}}}}}}}


def test_an_adopted_object_server_side_conflicts_with_the_fields_other_managers_own() -> None:
    live = [live_of(CONFIGMAP), _unowned(DEPLOYMENT, **{"kubectl-client-side-apply": KUBECTL_APPLIED})]
    p = plan([CONFIGMAP], [CONFIGMAP, DEPLOYMENT], live, take_ownership=True, apply_method=ApplyMethod.SSA)
    assert _fields(p, "web") == {**OWNERSHIP,
                                 "/spec/template/spec/containers/0/image": ("replace", "nginx:1.24", "nginx:1.25")}
    (warning,) = by_code(p, Code.SSA_CONFLICT)
    assert warning.fails and warning.resource is not None and warning.resource.name == "web"
    assert isinstance(warning.facts, SsaConflict)
    assert [(f.path, f.managers) for f in warning.facts.fields] == [
        ("/spec/template/spec/containers/0/image", ("kubectl-client-side-apply",))]
    # The apply fails: nothing of the adoption rolls out.
    assert p.impact == ()
    forced = plan([CONFIGMAP], [CONFIGMAP, DEPLOYMENT], live, take_ownership=True, apply_method=ApplyMethod.SSA,
                  force_conflicts=True)
    (change,) = [c for c in forced.changes if c.resource.name == "web"]
    assert [f.taken_from for f in change.fields if f.path.endswith("/image")] == [("kubectl-client-side-apply",)]
    assert [i.kind for i in forced.impact] == [ImpactKind.RESTART]


def test_an_install_that_adopts_a_running_deployment_restarts_its_pods() -> None:
    p = plan(None, [DEPLOYMENT], [_unowned(DEPLOYMENT)], take_ownership=True)
    assert [(i.kind, i.resource.name) for i in p.impact] == [(ImpactKind.RESTART, "web")]
    assert plan(None, [DEPLOYMENT], [], take_ownership=True).impact == ()


def test_force_replace_fails_a_server_side_install_only_when_it_adopts() -> None:
    """An install updates only what it adopts, with --force-replace and server-side apply both
    passed to Update, which refuses them together (pkg/action/install.go performInstall,
    pkg/kube/client.go Update); with nothing to adopt it creates, and nothing is refused.
    End to end, against real Helm 4's own failure: tests/e2e/test_apply_method.py."""
    from deployah_plan.core.adoption import force_replace_note
    from deployah_plan.facts import ForceReplace
    from deployah_plan.render.words.warning import message

    note = force_replace_note("--force-replace", False)
    assert not note.fails
    ssa = dict(apply_method=ApplyMethod.SSA, warnings=(note,))
    adopting = plan(None, [CONFIGMAP, DEPLOYMENT], [_unowned(DEPLOYMENT)], take_ownership=True, **ssa)
    (failing,) = by_code(adopting, Code.FORCE_REPLACE)
    assert failing.fails and failing.facts == ForceReplace(flag="--force-replace", server_side=True, adopted=1)
    assert message(failing).startswith(
        '--force-replace on an install that adopts 1 existing object (updated, server-side): Helm 4 fails with '
        '"invalid operation: cannot use server-side apply and force replace together"')
    assert adopting.summary.failures == 1
    # Nothing to adopt (or no cluster read), or client-side: no failure.
    for quiet in (plan(None, [CONFIGMAP, DEPLOYMENT], [], take_ownership=True, **ssa),
                  plan(None, [CONFIGMAP, DEPLOYMENT], None, take_ownership=True, **ssa),
                  plan(None, [CONFIGMAP, DEPLOYMENT], [_unowned(DEPLOYMENT)], take_ownership=True,
                       apply_method=ApplyMethod.CSA, warnings=(note,))):
        assert [w.fails for w in by_code(quiet, Code.FORCE_REPLACE)] == [False]


def test_the_summary_counts_an_adopted_object_apart_from_what_is_created() -> None:
    """An adopted object is applied over the live one, an update of it (core/adoption.py): every
    summary says so, and JSON's `create` still counts every create, as before."""
    import json

    from deployah_plan.planfile.write import summary_doc
    from deployah_plan.render import gitlab, markdown
    from deployah_plan.render.words.plan import summary_text

    p = plan(None, [CONFIGMAP, DEPLOYMENT], [_unowned(DEPLOYMENT)], take_ownership=True)
    assert (p.summary.create, p.summary.adopted) == (2, 1)
    assert {k: summary_doc(p.summary, p)[k] for k in ("create", "adopted", "update")} == {
        "create": 2, "adopted": 1, "update": 0}
    assert summary_text(p) == "Plan: 1 to create, 1 to adopt, 0 to update, 0 to delete."
    table = markdown.render(p)
    assert "| Create | Adopt | Update | Delete |" in table and "| 1 | 1 | 0 | 0 |" in table
    counts = json.loads(gitlab.render(p))
    assert {k: counts[k] for k in ("create", "update", "delete")} == {"create": 1, "update": 1, "delete": 0}
    nothing_live = plan(None, [CONFIGMAP, DEPLOYMENT], [], take_ownership=True)
    assert nothing_live.summary.adopted == 0 and summary_text(nothing_live).startswith("Plan: 2 to create, 0 to update")
    assert "| Create | Update |" in markdown.render(nothing_live)
