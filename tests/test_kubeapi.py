"""The loopback API server's label selectors (tests/kubeapi.py `matches`), as Kubernetes reads
them."""
from __future__ import annotations


from kubeapi import matches


def test_label_selectors() -> None:
    labels = {"owner": "helm", "name": "shop", "status": "deployed"}
    assert matches(labels, "name=shop,owner=helm")
    assert matches(labels, "owner==helm, status in (deployed,superseded)")
    assert not matches(labels, "status notin (deployed)")
    assert matches(labels, "owner,!missing,name!=other")
    assert not matches(labels, "name=other")
    assert not matches(labels, "missing")
