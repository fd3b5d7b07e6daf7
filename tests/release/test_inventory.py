"""`helm plan kube-upgrade`: every release's stored chart re-planned under another Kubernetes
version, with real Helm 3 and Helm 4, from memory-driver files and from release Secrets served
by the loopback API server (tests/kubeapi.py)."""
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
