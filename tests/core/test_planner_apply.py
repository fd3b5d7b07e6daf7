"""The planner under Helm 4's server-side apply and on adoption: what an apply predicted to fail
leaves undone, and an existing object the chart now renders, shown as the change Helm makes to
it. Pure: parsed manifests and an in-memory live snapshot, no helm, no API server."""
from __future__ import annotations

import copy
from typing import Any

from builders import live_of, plan

from deployah_plan.codes import Code
from deployah_plan.impacts import ImpactKind
from deployah_plan.model import ApplyMethod, Plan, Warning

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
