"""Unit tests of deployah_plan/core/ownership.py against Helm's rules.

Expected reasons are Helm's wording (pkg/action/validate.go `checkOwnership`, `requireValue`:
"invalid ownership metadata; " then each error joined by "; "); the resource policy is
pkg/action/resource_policy.go (trimmed, lower-cased, only "keep")."""
from __future__ import annotations

from typing import Any

import pytest

from deployah_plan.core.ownership import (
    Verdict, check_ownership, kept_by_policy, kept_on_delete, release_of, terminating,
)
from deployah_plan.model import Ownership

HELM = {"app.kubernetes.io/managed-by": "Helm"}
OURS = {"meta.helm.sh/release-name": "web", "meta.helm.sh/release-namespace": "shop"}


def _obj(labels: Any = None, annotations: Any = None, **metadata: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "cfg", **metadata}
    if labels is not None:
        meta["labels"] = labels
    if annotations is not None:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}


MISSING_LABEL = 'label validation error: missing key "app.kubernetes.io/managed-by": must be set to "Helm"'
MISSING_NAME = 'annotation validation error: missing key "meta.helm.sh/release-name": must be set to "web"'
MISSING_NS = 'annotation validation error: missing key "meta.helm.sh/release-namespace": must be set to "shop"'


@pytest.mark.parametrize("live, verdict", [
    (None, Verdict(Ownership.ABSENT)),
    (_obj(HELM, OURS), Verdict(Ownership.ADOPT)),
    (_obj(), Verdict(Ownership.UNOWNED, f"invalid ownership metadata; {MISSING_LABEL}; {MISSING_NAME}; {MISSING_NS}")),
    (_obj({"app.kubernetes.io/managed-by": "helm"}, OURS), Verdict(
        Ownership.UNOWNED, 'invalid ownership metadata; label validation error: key "app.kubernetes.io/managed-by" '
                           'must equal "Helm": current value is "helm"')),
    (_obj(HELM, {**OURS, "meta.helm.sh/release-name": "api"}), Verdict(
        Ownership.OTHER_RELEASE, 'invalid ownership metadata; annotation validation error: key '
                                 '"meta.helm.sh/release-name" must equal "web": current value is "api"', "shop/api")),
    (_obj(HELM, {**OURS, "meta.helm.sh/release-namespace": "pay"}), Verdict(
        Ownership.OTHER_RELEASE, 'invalid ownership metadata; annotation validation error: key '
                                 '"meta.helm.sh/release-namespace" must equal "shop": current value is "pay"', "pay/web")),
    (_obj(None, {"meta.helm.sh/release-name": "api"}), Verdict(
        Ownership.OTHER_RELEASE, f'invalid ownership metadata; {MISSING_LABEL}; annotation validation error: key '
                                 f'"meta.helm.sh/release-name" must equal "web": current value is "api"; {MISSING_NS}',
        "/api")),
    (_obj(HELM, OURS, deletionTimestamp="2025-01-01T00:00:00Z"),
     Verdict(Ownership.TERMINATING, "it is being deleted (deletionTimestamp is set)")),
    (_obj(HELM, OURS, deletionTimestamp=""), Verdict(Ownership.ADOPT)),
    ({"metadata": "not a map"}, Verdict(Ownership.UNOWNED, f"invalid ownership metadata; {MISSING_LABEL}; {MISSING_NAME}; {MISSING_NS}")),
    (_obj(["not", "a", "map"], "nor this"), Verdict(Ownership.UNOWNED, f"invalid ownership metadata; {MISSING_LABEL}; {MISSING_NAME}; {MISSING_NS}")),
])
def test_helms_ownership_check(live: dict[str, Any] | None, verdict: Verdict) -> None:
    assert check_ownership(live, "web", "shop") == verdict


def test_a_missing_namespace_annotation_fails_the_check() -> None:
    verdict = check_ownership(_obj(HELM, {"meta.helm.sh/release-name": "web"}), "web", "shop")
    assert verdict.ownership in (Ownership.UNOWNED, Ownership.OTHER_RELEASE)
    assert verdict.reason == f"invalid ownership metadata; {MISSING_NS}"


@pytest.mark.parametrize("live, verdict", [
    (None, Verdict(Ownership.ABSENT)),
    (_obj(), Verdict(Ownership.ADOPT)),
    (_obj(HELM, OURS), Verdict(Ownership.ADOPT)),
    (_obj(HELM, {**OURS, "meta.helm.sh/release-name": "api"}), Verdict(Ownership.ADOPT, owner_release="shop/api")),
    (_obj(HELM, OURS, deletionTimestamp="2025-01-01T00:00:00Z"),
     Verdict(Ownership.TERMINATING, "it is being deleted (deletionTimestamp is set)")),
])
def test_take_ownership_adopts_whoever_owns_it_but_not_an_object_being_deleted(
        live: dict[str, Any] | None, verdict: Verdict) -> None:
    assert check_ownership(live, "web", "shop", take_ownership=True) == verdict


@pytest.mark.parametrize("annotations, owner", [
    (OURS, ("shop", "web")), ({"meta.helm.sh/release-name": "api"}, ("", "api")),
    ({"meta.helm.sh/release-name": "api", "meta.helm.sh/release-namespace": 3}, ("", "api")),
    ({"meta.helm.sh/release-name": ""}, None), ({"meta.helm.sh/release-name": 7}, None), ({}, None), (None, None),
])
def test_release_of(annotations: Any, owner: tuple[str, str] | None) -> None:
    assert release_of(_obj(annotations=annotations)) == owner


def test_terminating() -> None:
    assert terminating(_obj(deletionTimestamp="2025-01-01T00:00:00Z"))
    assert not terminating(_obj(deletionTimestamp=None))
    assert not terminating(_obj())
    assert not terminating({"metadata": ["deletionTimestamp"]})
    assert not terminating({})


@pytest.mark.parametrize("value, kept", [
    ("keep", True), ("  KEEP\n", True), ("Keep", True), ("keep-please", False), ("delete", False), ("", False),
    (True, False), (None, False),
])
def test_resource_policy_keep(value: Any, kept: bool) -> None:
    assert kept_by_policy(_obj(annotations={"helm.sh/resource-policy": value})) is kept


def test_resource_policy_is_read_from_the_live_object_when_there_is_one() -> None:
    keep, plain = _obj(annotations={"helm.sh/resource-policy": "keep"}), _obj()
    assert kept_by_policy(None) is False
    assert kept_on_delete(keep, None) is True
    assert kept_on_delete(keep, plain) is False
    assert kept_on_delete(plain, keep) is True
    assert kept_on_delete(plain, None) is False
