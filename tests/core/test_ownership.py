"""Unit tests of deployah_plan/core/ownership.py against Helm's rules.

Expected problems are what Helm refuses, in its order (pkg/action/validate.go `checkOwnership`,
`requireValue`; tests/render/test_words_planner.py holds Helm's wording of them); the resource policy is
pkg/action/resource_policy.go (trimmed, lower-cased, only "keep")."""
from __future__ import annotations

from typing import Any

import pytest

from deployah_plan.core.ownership import (
    Verdict, check_ownership, kept_by_policy, kept_on_delete, release_of, terminating,
)
from deployah_plan.facts import Metadata, OwnershipProblem
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


MISSING_LABEL = OwnershipProblem(Metadata.LABEL, "app.kubernetes.io/managed-by", "Helm")
MISSING_NAME = OwnershipProblem(Metadata.ANNOTATION, "meta.helm.sh/release-name", "web")
MISSING_NS = OwnershipProblem(Metadata.ANNOTATION, "meta.helm.sh/release-namespace", "shop")
MISSING_ALL = (MISSING_LABEL, MISSING_NAME, MISSING_NS)


@pytest.mark.parametrize("live, verdict", [
    (None, Verdict(Ownership.ABSENT)),
    (_obj(HELM, OURS), Verdict(Ownership.ADOPT)),
    (_obj(), Verdict(Ownership.UNOWNED, MISSING_ALL)),
    (_obj({"app.kubernetes.io/managed-by": "helm"}, OURS), Verdict(
        Ownership.UNOWNED, (OwnershipProblem(Metadata.LABEL, "app.kubernetes.io/managed-by", "Helm", "helm"),))),
    (_obj(HELM, {**OURS, "meta.helm.sh/release-name": "api"}), Verdict(
        Ownership.OTHER_RELEASE, (OwnershipProblem(Metadata.ANNOTATION, "meta.helm.sh/release-name", "web", "api"),),
        "shop/api")),
    (_obj(HELM, {**OURS, "meta.helm.sh/release-namespace": "pay"}), Verdict(
        Ownership.OTHER_RELEASE, (OwnershipProblem(Metadata.ANNOTATION, "meta.helm.sh/release-namespace", "shop", "pay"),),
        "pay/web")),
    (_obj(None, {"meta.helm.sh/release-name": "api"}), Verdict(
        Ownership.OTHER_RELEASE,
        (MISSING_LABEL, OwnershipProblem(Metadata.ANNOTATION, "meta.helm.sh/release-name", "web", "api"), MISSING_NS),
        "/api")),
    (_obj(HELM, OURS, deletionTimestamp="2025-01-01T00:00:00Z"), Verdict(Ownership.TERMINATING)),
    (_obj(HELM, OURS, deletionTimestamp=""), Verdict(Ownership.ADOPT)),
    ({"metadata": "not a map"}, Verdict(Ownership.UNOWNED, MISSING_ALL)),
    (_obj(["not", "a", "map"], "nor this"), Verdict(Ownership.UNOWNED, MISSING_ALL)),
    # A value of another type is refused, and named as written.
    (_obj({"app.kubernetes.io/managed-by": 7}, OURS), Verdict(
        Ownership.UNOWNED, (OwnershipProblem(Metadata.LABEL, "app.kubernetes.io/managed-by", "Helm", "7"),))),
])
def test_helms_ownership_check(live: dict[str, Any] | None, verdict: Verdict) -> None:
    assert check_ownership(live, "web", "shop") == verdict


def test_a_missing_namespace_annotation_fails_the_check() -> None:
    verdict = check_ownership(_obj(HELM, {"meta.helm.sh/release-name": "web"}), "web", "shop")
    # Named for this release, its namespace annotation missing: not another release's.
    assert verdict == Verdict(Ownership.UNOWNED, (MISSING_NS,))


@pytest.mark.parametrize("live, verdict", [
    (None, Verdict(Ownership.ABSENT)),
    (_obj(), Verdict(Ownership.ADOPT)),
    (_obj(HELM, OURS), Verdict(Ownership.ADOPT)),
    (_obj(HELM, {**OURS, "meta.helm.sh/release-name": "api"}), Verdict(Ownership.ADOPT, owner_release="shop/api")),
    (_obj(HELM, OURS, deletionTimestamp="2025-01-01T00:00:00Z"), Verdict(Ownership.TERMINATING)),
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
