"""What `helm plan verify` says moved between a saved plan and the plan made again
(commands/verify.py `plan_difference`). The command end to end is tests/e2e/test_verify.py."""
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
