"""Release selectors (release/inventory.py `parse_selector`) match as Kubernetes reads label
selectors. `helm plan kube-upgrade` end to end is tests/e2e/test_kube_upgrade.py."""
from __future__ import annotations


import pytest

from deployah_plan.errors import UsageError
from deployah_plan.release.inventory import parse_selector


# -- the fast tier ------------------------------------------------------------------------------


def test_selectors_match_as_kubernetes_reads_them() -> None:
    labels = {"name": "shop", "status": "deployed", "team": "a"}
    assert parse_selector("")(labels)
    assert parse_selector("name=shop,status==deployed")(labels)
    assert not parse_selector("name!=shop")(labels)
    assert parse_selector("team in (a,b),tier notin (x)")(labels)
    assert not parse_selector("team notin (a)")(labels)
    assert parse_selector("team,!tier")(labels) and not parse_selector("!team")(labels)
    with pytest.raises(UsageError):
        parse_selector("name=(x")
