"""`helm plan verify`: a plan saved with --out is made again with the inputs it records, on real
helm 3 and 4, with the release in helm's memory driver or on the loopback Kubernetes API
(tests/kubeapi.py). Each kind of move is made for real (a new revision, an edited chart, an
edited values file, a live object changed) and must be caught and named."""
from __future__ import annotations


from deployah_plan.commands.verify import plan_difference


# -- with a cluster: drift, and the deploy command run by helm ------------------------------


def test_the_plan_difference_names_impacts_that_moved() -> None:
    then = {"impact": [{"kind": "restart", "message": "Deployment shop/web: pod template changes: 2 pods restart"}]}
    now = {"impact": [{"kind": "restart", "message": "Deployment shop/web: pod template changes: 5 pods restart"}]}
    assert plan_difference(then, now) == [
        "  - impact restart: Deployment shop/web: pod template changes: 2 pods restart",
        "  + impact restart: Deployment shop/web: pod template changes: 5 pods restart",
    ]
