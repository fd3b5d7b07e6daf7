"""The words of the lifecycle codes (immutable, data-loss, ssa-conflict): each variant's facts
to the exact sentence."""
from __future__ import annotations

import pytest

from deployah_plan.facts import DataLoss, Field, Immutable, Loss, OwnedField, SsaConflict
from deployah_plan.model import ResourceRef, warn
from deployah_plan.render.words.warning import message

STS = ResourceRef("apps/v1", "StatefulSet", "shop", "x")
JOB = ResourceRef("batch/v1", "Job", "shop", "x")


def test_immutable_names_each_field_once_and_says_one_or_several() -> None:
    three = Immutable(fields=(Field("/spec/selector/x"), Field("/spec/selector/y"), Field("/spec/serviceName"),
                              Field("/spec/serviceName")))
    assert message(warn(three, STS)) == (
        "StatefulSet shop/x: this upgrade will fail: it changes immutable fields spec.selector.x, spec.selector.y, "
        "spec.serviceName; the object must be deleted and created again (or given a new name)")
    one = Immutable(fields=(Field("/spec/selector/matchLabels/app"),))
    assert message(warn(one, STS)) == (
        "StatefulSet shop/x: this upgrade will fail: it changes immutable field spec.selector.matchLabels.app; the "
        "object must be deleted and created again (or given a new name)")


def test_immutable_names_a_keyed_entry_by_its_key() -> None:
    keyed = Immutable(fields=(Field("/spec/template/spec/containers/1/image",
                                    {"/spec/template/spec/containers/1": {"name": "app"}}),))
    assert "it changes immutable field spec.template.spec.containers[name=app].image; " in message(warn(keyed, JOB))


@pytest.mark.parametrize("api_version, kind, namespace, loss, said", [
    ("v1", "PersistentVolumeClaim", "shop", Loss.VOLUME,
     "its volume, and the data on it, goes too when the reclaim policy is Delete"),
    ("v1", "Namespace", "", Loss.NAMESPACE_OBJECTS,
     "every object in the namespace is deleted with it, whether Helm manages it or not"),
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", Loss.CUSTOM_RESOURCES,
     "every custom resource of that kind, in every namespace, is deleted with it"),
])
def test_data_loss_says_what_goes_with_the_object(api_version: str, kind: str, namespace: str, loss: Loss,
                                                  said: str) -> None:
    ref = ResourceRef(api_version, kind, namespace, "x")
    assert message(warn(DataLoss(loses=loss), ref)) == f"{ref} is deleted: {said}"


def test_ssa_conflict_names_the_fields_and_their_managers() -> None:
    facts = SsaConflict(fields=(
        OwnedField("/data/password", managers=("kubectl-edit",)),
        OwnedField("/spec/containers/0/image", {"/spec/containers/0": {"name": "web"}}, ("kubectl-edit",)),
        OwnedField("/spec/replicas", managers=("ops", "scaler"))))
    assert message(warn(facts, STS)) == (
        "StatefulSet shop/x: server-side apply conflicts on data.password, spec.containers[name=web].image (owned by "
        "field manager kubectl-edit); spec.replicas (owned by field managers ops, scaler): the upgrade fails unless "
        "conflicts are forced (--force-conflicts takes the fields from those managers); the object is left as it is "
        "live, Helm still applies the release's other objects, then stops before deleting any object that leaves the "
        "release")
