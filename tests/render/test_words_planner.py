"""The words of the planner's codes (core/planner.py, core/ownership.py, manifests.py): each
code's facts, in every variant, give the sentence the plan has always said."""
from __future__ import annotations

from typing import Any, Mapping

import pytest

from deployah_plan.codes import Facts
from deployah_plan.facts import CrdChangeUnknown, CrdLive, CrdNotCreated, EmptyRender
from deployah_plan.facts import (
    Collision, CrdNotUpgraded, CrdsUntouched, CrdVersionRemoved, DroppedDocument, EquivalentOnly, Field, KeepFromManifest,
    Metadata, OwnershipCheck, OwnershipProblem, Quantity, StoredVersions,
)
from deployah_plan.model import HelmAction, Ownership, ResourceRef, warn
from deployah_plan.render.words.warning import message

WEB = ResourceRef("apps/v1", "Deployment", "default", "web")
CFG = ResourceRef("v1", "ConfigMap", "shop", "cfg")
CRD = ResourceRef("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "widgets.shop.example.com")
CONTAINER: dict[str, Mapping[str, Any]] = {"/spec/template/spec/containers/0": {"name": "web"}}
LIMITS = "/spec/template/spec/containers/0/resources/limits"
MISSING = (OwnershipProblem(Metadata.LABEL, "app.kubernetes.io/managed-by", "Helm"),
           OwnershipProblem(Metadata.ANNOTATION, "meta.helm.sh/release-name", "release"),
           OwnershipProblem(Metadata.ANNOTATION, "meta.helm.sh/release-namespace", "default"))
KEEP = ("whether Helm keeps an object that leaves the release depends on the live object's helm.sh/resource-policy "
        "annotation; where the live object was not read ({}), the previous manifest's was used")


def said(facts: Facts, resource: ResourceRef | None = None, fails: bool = False) -> str:
    return message(warn(facts, resource, fails=fails))


@pytest.mark.parametrize("fields, text", [
    ((Quantity(Field(f"{LIMITS}/cpu", CONTAINER), "1000m", 1), Quantity(Field(f"{LIMITS}/memory", CONTAINER), "1Gi", "1024Mi"),
      Quantity(Field(f"{LIMITS}/cpu", CONTAINER), 0.5, "500m")),
     "cpu 1000m = 1, memory 1Gi = 1024Mi, cpu 0.5 = 500m"),
    ((Quantity(Field("/spec/resources/requests/storage"), "1Gi", "1024Mi"),), "storage 1Gi = 1024Mi"),
])
def test_equivalent_only(fields: tuple[Quantity, ...], text: str) -> None:
    assert said(EquivalentOnly(fields=fields), WEB) == (
        f"Deployment default/web: only equal quantities written differently ({text}); not a change")


def test_ownership_adopts_an_object_carrying_this_releases_metadata() -> None:
    facts = OwnershipCheck(ownership=Ownership.ADOPT, release="shop", action=HelmAction.INSTALL)
    assert said(facts, CFG) == "ConfigMap shop/cfg already exists in the cluster: helm adopts it into release shop"


def test_ownership_takes_over_another_releases_object() -> None:
    facts = OwnershipCheck(ownership=Ownership.ADOPT, release="shop", owner_release="shop/billing",
                           action=HelmAction.UPGRADE)
    assert said(facts, CFG) == "ConfigMap shop/cfg belongs to release shop/billing: --take-ownership adopts it into shop"


def test_ownership_fails_on_an_object_without_helm_metadata() -> None:
    facts = OwnershipCheck(ownership=Ownership.UNOWNED, release="release", action=HelmAction.UPGRADE, problems=MISSING)
    assert said(facts, ResourceRef("v1", "ConfigMap", "default", "extra"), fails=True) == (
        'ConfigMap default/extra exists in the cluster without Helm ownership metadata: this upgrade fails (invalid '
        'ownership metadata; label validation error: missing key "app.kubernetes.io/managed-by": must be set to "Helm"; '
        'annotation validation error: missing key "meta.helm.sh/release-name": must be set to "release"; annotation '
        'validation error: missing key "meta.helm.sh/release-namespace": must be set to "default"); add '
        '--take-ownership to adopt it, or delete it first')
    wrong = (OwnershipProblem(Metadata.LABEL, "app.kubernetes.io/managed-by", "Helm", "helm"),)
    facts = OwnershipCheck(ownership=Ownership.UNOWNED, release="shop", action=HelmAction.INSTALL, problems=wrong)
    assert said(facts, CFG, fails=True) == (
        'ConfigMap shop/cfg exists in the cluster without Helm ownership metadata: this install fails (invalid '
        'ownership metadata; label validation error: key "app.kubernetes.io/managed-by" must equal "Helm": current '
        'value is "helm"); add --take-ownership to adopt it, or delete it first')


def test_ownership_fails_on_another_releases_object() -> None:
    facts = OwnershipCheck(
        ownership=Ownership.OTHER_RELEASE, release="shop", owner_release="shop/billing", action=HelmAction.INSTALL,
        problems=(OwnershipProblem(Metadata.ANNOTATION, "meta.helm.sh/release-name", "shop", "billing"),))
    assert said(facts, CFG, fails=True) == (
        'ConfigMap shop/cfg belongs to release shop/billing: this install fails (invalid ownership metadata; '
        'annotation validation error: key "meta.helm.sh/release-name" must equal "shop": current value is "billing"); '
        'add --take-ownership to take it over')


def test_collision() -> None:
    assert said(Collision(), CFG) == (
        "ConfigMap shop/cfg is being deleted in the cluster (deletionTimestamp set): creating it collides with the "
        "deletion; wait for it to finish, then deploy")


@pytest.mark.parametrize("versions, text", [(("v1alpha1", "v1beta1"), "versions v1alpha1, v1beta1"),
                                            (("v1beta1",), "version v1beta1")])
def test_crd_version_removed_against_the_live_stored_versions(versions: tuple[str, ...], text: str) -> None:
    facts = CrdVersionRemoved(versions=versions, stored_versions=StoredVersions.LIVE)
    assert said(facts, CRD, fails=True) == (
        f"CustomResourceDefinition widgets.shop.example.com: this upgrade will fail: it removes {text}, which the "
        "cluster's status.storedVersions still lists (objects are stored in it), and the API server refuses that; "
        "migrate the stored objects to a kept version and remove it from status.storedVersions first")


@pytest.mark.parametrize("versions, text", [(("v1alpha1", "v1beta1"), "versions v1alpha1, v1beta1"),
                                            (("v1beta1",), "version v1beta1")])
def test_crd_version_removed_without_the_live_crd(versions: tuple[str, ...], text: str) -> None:
    facts = CrdVersionRemoved(versions=versions, stored_versions=StoredVersions.NOT_READ)
    assert said(facts, CRD) == (
        f"CustomResourceDefinition widgets.shop.example.com: removes {text}; if the cluster's status.storedVersions "
        "still lists it, the API server refuses the update (the live CRD was not read): migrate the stored objects to "
        "a kept version first")


def test_crds_untouched() -> None:
    assert said(CrdsUntouched()) == "CRDs installed from the chart's crds/ directory are never deleted by helm uninstall"


def test_crd_not_upgraded() -> None:
    assert said(CrdNotUpgraded(name="widgets.example.com", source="app/crds/widgets.yaml")) == (
        "chart CRD widgets.example.com (app/crds/widgets.yaml) changed in the chart, but Helm never upgrades the chart's "
        "crds/: apply it yourself (kubectl apply -f) before this upgrade if the new chart needs it")
    job = ResourceRef("batch/v1", "Job", "shop", "shop-update-crds-hook")
    assert said(CrdNotUpgraded(name="widgets.example.com", source="app/crds/widgets.yaml", hook="Job shop/shop-update-crds-hook",
                               hook_resource=job)) == (
        "chart CRD widgets.example.com (app/crds/widgets.yaml) changed in the chart, but Helm never upgrades the chart's "
        "crds/: the chart's hook Job shop/shop-update-crds-hook, which runs on this upgrade, likely applies it (its "
        "name, labels, image or command say so); check that it does before relying on it")


def test_crd_not_created() -> None:
    name, source = "widgets.example.com", "app/crds/widgets.yaml"
    assert said(CrdNotCreated(name=name, source=source, live=CrdLive.NOT_READ, custom_resources=2)) == (
        "chart CRD widgets.example.com (app/crds/widgets.yaml) is new in the chart, and Helm creates crds/ only on "
        "install: this upgrade does not create it, so the chart's 2 custom resources of its kind fail unless the "
        "cluster already has it; apply it yourself (kubectl apply -f) before this upgrade if the new chart needs it")
    assert said(CrdNotCreated(name=name, source=source, live=CrdLive.NOT_READ)) == (
        "chart CRD widgets.example.com (app/crds/widgets.yaml) is new in the chart, and Helm creates crds/ only on "
        "install: this upgrade does not create it; apply it yourself (kubectl apply -f) before this upgrade if the new "
        "chart needs it")
    assert said(CrdNotCreated(name=name, source=source, live=CrdLive.MISSING, custom_resources=1)) == (
        "chart CRD widgets.example.com (app/crds/widgets.yaml) is new in the chart, and Helm creates crds/ only on "
        "install: it is not in the cluster, and this upgrade does not create it; apply it yourself (kubectl apply -f) "
        "before this upgrade if the new chart needs it")
    job = ResourceRef("batch/v1", "Job", "shop", "shop-update-crds-hook")
    assert said(CrdNotCreated(name=name, source=source, live=CrdLive.DIFFERS, hook="shop-update-crds-hook",
                              hook_resource=job)) == (
        "chart CRD widgets.example.com (app/crds/widgets.yaml) is new in the chart, and Helm creates crds/ only on "
        "install: the cluster already has it, and this upgrade leaves the cluster's copy, which differs from the "
        "chart's; the chart's hook Job shop/shop-update-crds-hook, which runs on this upgrade, likely applies it (its "
        "name, labels, image or command say so): check that it does before relying on it")


def test_crd_change_unknown() -> None:
    names = ("gadgets.example.com", "parts.example.com")
    assert said(CrdChangeUnknown(dependency="sub", names=names, live=CrdLive.NOT_READ)) == (
        "dependency chart sub brings CRDs in its crds/ (gadgets.example.com, parts.example.com); the release record "
        "keeps no dependency charts and the live CRDs were not read, so whether they changed cannot be told, and Helm "
        "never upgrades crds/: compare them with the cluster's (kubectl diff -f) before this upgrade")
    assert said(CrdChangeUnknown(dependency="sub", names=names[:1], live=CrdLive.DIFFERS)) == (
        "dependency chart sub's CRDs differ in the cluster from the new chart's (gadgets.example.com), and Helm never "
        "upgrades crds/: apply them yourself (kubectl apply -f) before this upgrade if the new chart needs them")
    assert said(CrdChangeUnknown(dependency="sub", names=names[:1], live=CrdLive.MISSING)) == (
        "dependency chart sub's CRDs are not in the cluster (gadgets.example.com), and Helm creates crds/ only on "
        "install: apply them yourself (kubectl apply -f) before this upgrade if the new chart needs them")


def test_empty_render() -> None:
    assert said(EmptyRender(previous_resources=12, desired_hooks=0)) == (
        "the desired render has no resources while the previous release has 12 resources: this deletes all 12; a "
        "failed render (a template that printed nothing) or a wrong values file is the likely cause: check the "
        "render before deploying")
    assert said(EmptyRender(previous_resources=1, desired_hooks=1)).startswith(
        "the desired render has no resources (only 1 hook) while the previous release has 1 resource: this deletes it;")


@pytest.mark.parametrize("names, text", [
    ("a", "ConfigMap shop/a"),
    ("abc", "ConfigMap shop/a, ConfigMap shop/b, ConfigMap shop/c"),
    ("abcd", "ConfigMap shop/a, ConfigMap shop/b, ConfigMap shop/c, ..."),
])
def test_keep_from_manifest_names_three_objects(names: str, text: str) -> None:
    facts = KeepFromManifest(objects=tuple(ResourceRef("v1", "ConfigMap", "shop", n) for n in names))
    assert said(facts) == KEEP.format(text)


def test_keep_from_manifest_names_a_cluster_scoped_object_without_a_namespace() -> None:
    facts = KeepFromManifest(objects=(ResourceRef("v1", "Namespace", "", "scratch"), CFG))
    assert said(facts) == KEEP.format("Namespace scratch, ConfigMap shop/cfg")


@pytest.mark.parametrize("facts, text", [
    (DroppedDocument(source="app/templates/hook.yaml", kind="ConfigMap", name="old", event="crd-install"),
     "app/templates/hook.yaml: unknown hook event 'crd-install'; Helm skips this document"),
    (DroppedDocument(source="", kind="ConfigMap", name="new", event="bogus"),
     "ConfigMap/new: unknown hook event 'bogus'; Helm skips this document"),
    # Named by generateName only, and no `# Source:` line: as it was always said.
    (DroppedDocument(source="", kind="Job", name="", event="bogus"),
     "Job (no name): unknown hook event 'bogus'; Helm skips this document"),
])
def test_dropped_document(facts: DroppedDocument, text: str) -> None:
    assert said(facts) == text
