"""Helm's ownership rules, read from live objects. Pure: the caller hands in what it read.

Ownership check (pkg/action/validate.go `existingResourceConflict`, `checkOwnership`): before an
install or upgrade creates an object that is not in the previous release, Helm GETs it. Absent:
fine. Present: it must carry label `app.kubernetes.io/managed-by: Helm` and annotations
`meta.helm.sh/release-name` / `meta.helm.sh/release-namespace` naming this release, or the
action fails with "invalid ownership metadata"; with `--take-ownership` (Helm 3.17+) the check
is skipped and the object is adopted whoever owns it. Objects already in the previous release
are not checked. A live object with a deletionTimestamp is being deleted: creating over it
collides (Helm would patch an object that is about to disappear).

`helm.sh/resource-policy: keep` (pkg/action/resource_policy.go): the value is trimmed and
lower-cased; only "keep" counts. On upgrade Helm reads it from the live object.
"""
from __future__ import annotations

from typing import Any, Mapping

from msgspec import Struct

from deployah_plan.facts import Metadata, OwnershipProblem
from deployah_plan.model import Ownership

MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"
MANAGED_BY_HELM = "Helm"
RELEASE_NAME_ANNOTATION = "meta.helm.sh/release-name"
RELEASE_NAMESPACE_ANNOTATION = "meta.helm.sh/release-namespace"
RESOURCE_POLICY_ANNOTATION = "helm.sh/resource-policy"


def _metadata_map(obj: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    metadata = obj.get("metadata")
    value = metadata.get(key) if isinstance(metadata, dict) else None
    return value if isinstance(value, dict) else {}


def kept_by_policy(obj: Mapping[str, Any] | None) -> bool:
    """True when the object carries `helm.sh/resource-policy: keep` (trimmed, any case)."""
    if obj is None:
        return False
    value = _metadata_map(obj, "annotations").get(RESOURCE_POLICY_ANNOTATION)
    return isinstance(value, str) and value.strip().lower() == "keep"


def kept_on_delete(manifest_obj: Mapping[str, Any], live_obj: Mapping[str, Any] | None) -> bool:
    """Whether an upgrade leaves an object that leaves the release in the cluster: Helm reads
    the policy from the live object; without one (not read), the manifest is the best guess."""
    return kept_by_policy(live_obj if live_obj is not None else manifest_obj)


def release_of(obj: Mapping[str, Any]) -> tuple[str, str] | None:
    """(namespace, name) of the release named by the object's Helm annotations, if any."""
    annotations = _metadata_map(obj, "annotations")
    name = annotations.get(RELEASE_NAME_ANNOTATION)
    if not isinstance(name, str) or not name:
        return None
    namespace = annotations.get(RELEASE_NAMESPACE_ANNOTATION)
    return (namespace if isinstance(namespace, str) else "", name)


def stamped(obj: Mapping[str, Any], release: str, namespace: str) -> dict[str, Any]:
    """The object as Helm applies it: with its ownership label and annotations set, whatever
    the chart says (pkg/action `setMetadataVisitor`, forced on every object it renders)."""
    out = dict(obj)
    metadata = dict(obj.get("metadata") or {})
    metadata["labels"] = {**_metadata_map(obj, "labels"), MANAGED_BY_LABEL: MANAGED_BY_HELM}
    metadata["annotations"] = {**_metadata_map(obj, "annotations"), RELEASE_NAME_ANNOTATION: release,
                               RELEASE_NAMESPACE_ANNOTATION: namespace}
    out["metadata"] = metadata
    return out


def terminating(obj: Mapping[str, Any]) -> bool:
    metadata = obj.get("metadata")
    return isinstance(metadata, dict) and bool(metadata.get("deletionTimestamp"))


class Verdict(Struct, frozen=True):
    """The ownership check for one object to be created. `problems` are the labels and
    annotations Helm's check refuses, in its order (none when nothing is wrong); `owner_release`
    is "namespace/name" of another owner."""

    ownership: Ownership
    problems: tuple[OwnershipProblem, ...] = ()
    owner_release: str = ""


def _require(values: Mapping[str, Any], metadata: Metadata, key: str, want: str) -> list[OwnershipProblem]:
    """What Helm's requireValue refuses: a missing key, or another value (none when right)."""
    if key not in values:
        return [OwnershipProblem(metadata, key, want)]
    if values[key] != want:
        return [OwnershipProblem(metadata, key, want, str(values[key]))]
    return []


def skipped_on_uninstall(live: Mapping[str, Any] | None, release: str, namespace: str) -> Verdict | None:
    """Whether Helm's uninstall skips deleting an object of the release, from its live state
    (None: not found). Not found, it is gone already: ABSENT (Helm 4.3's ownership check passes
    it by, `// Resource already deleted; nothing to do.`, and every Helm's kube client Delete
    ignores a NotFound). Helm 4.3 also skips it when its ownership check fails on it
    (pkg/action/validate.go verifyOwnershipBeforeDelete:

        if err := checkOwnership(existing, releaseName, releaseNamespace); err != nil {
            // Resource not owned by this release, cannot delete
            unowned.Append(&infoCopy)

    the same labels and annotations as adoption's check; a deletionTimestamp does not count):
    the verdict names the problems (UNOWNED, or OTHER_RELEASE with its owner). None: deleted."""
    if live is None:
        return Verdict(Ownership.ABSENT)
    verdict = check_ownership({**live, "metadata": {k: v for k, v in (live.get("metadata") or {}).items()
                                                    if k != "deletionTimestamp"}}, release, namespace)
    return verdict if verdict.problems else None


def check_ownership(live: Mapping[str, Any] | None, release: str, namespace: str,
                    take_ownership: bool = False) -> Verdict:
    """What Helm's ownership check says about creating an object whose live state is `live`
    (None: absent)."""
    if live is None:
        return Verdict(Ownership.ABSENT)
    if terminating(live):
        return Verdict(Ownership.TERMINATING)
    owner = release_of(live)
    # Another release's only where the annotations name one: our name with no namespace
    # annotation is our own object with that annotation missing.
    other = f"{owner[0]}/{owner[1]}" if owner and owner not in ((namespace, release), ("", release)) else ""
    labels, annotations = _metadata_map(live, "labels"), _metadata_map(live, "annotations")
    problems = (_require(labels, Metadata.LABEL, MANAGED_BY_LABEL, MANAGED_BY_HELM)
                + _require(annotations, Metadata.ANNOTATION, RELEASE_NAME_ANNOTATION, release)
                + _require(annotations, Metadata.ANNOTATION, RELEASE_NAMESPACE_ANNOTATION, namespace))
    if not problems:
        return Verdict(Ownership.ADOPT)
    if take_ownership:
        return Verdict(Ownership.ADOPT, owner_release=other)
    if other:
        return Verdict(Ownership.OTHER_RELEASE, tuple(problems), other)
    return Verdict(Ownership.UNOWNED, tuple(problems))
