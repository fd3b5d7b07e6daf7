"""Every impact kind, declared once with everything that varies with it, beside the warning
codes' table (codes.py): what a deploy does to running things beyond the objects it writes
(core/impact.py finds them, render/words/impact.py words them, model.Impact carries one).

Each member carries the published schema's text, the sign the writers put before it, how the
impact line counts it, the `--fail-on` family it also answers to, and what docs/plan.md's table
says of it with the Kubernetes behaviour it rests on (`scripts/gen-schema-codes` writes that
table and the schema's list of kinds; a test keeps them in step). `ImpactFacts` is the base of
each kind's facts (deployah_plan/impact_facts.py), as `codes.Facts` is of each code's.
"""
from __future__ import annotations

import enum
from typing import ClassVar

from msgspec import Struct


class _Kind(Struct, frozen=True):
    value: str
    description: str  # the published schema's text
    sign: str  # the mark the writers put before it: `~` a rollout, `=` nothing restarts, `!` at risk
    one: str = ""  # how the impact line counts one of them, and several ("" : a count of its own)
    many: str = ""
    family: str = ""  # the --fail-on family it also answers to (`traffic`, `data`)
    says: str = ""  # docs/plan.md's "what the plan says" (markdown)
    rests_on: str = ""  # the Kubernetes behaviour it rests on, quoted with its documentation's link (markdown)


_TRAFFIC = ("traffic risk", "traffic risks")
_DATA = ("data risk", "data risks")


class ImpactKind(enum.Enum):
    """What a deploy does to running things, beyond the objects it writes (core/impact.py),
    declared once with what varies with it: the schema's text, the writers' sign, how the line
    under the plan line counts it, its `--fail-on` family, and what docs/plan.md's table says of
    it (`says`) with the documented Kubernetes controller behaviour it rests on (`rests_on`,
    quoted with its link; scripts/gen-schema-codes writes that table). The order is the one
    impacts are listed in.
    """

    RESTART = _Kind(
        "restart", "A pod-template change on a Deployment, StatefulSet or DaemonSet: its controller replaces the "
        "pods now (counts: replicas, live_replicas, pods).", "~",
        says=(
            "a Deployment, StatefulSet or DaemonSet whose pod template changes: how many pods restart (the "
            "chart's replicas, the live count with a cluster, the live count an HPA chose, or the HPA's range when "
            "that count is not known) and how: a "
            "Deployment's RollingUpdate with `maxSurge`/`maxUnavailable` (25% each by default, resolved to "
            "pods: surge rounded up, unavailable down) or Recreate; a StatefulSet's highest ordinal first, "
            "one at a time, down to its `partition`; a DaemonSet's one pod per node (`maxUnavailable` 1)"),
        rests_on=(
            "\"A Deployment's rollout is triggered if and only if the Deployment's Pod template (that is, "
            "`.spec.template`) is changed\" "
            "([Deployments](https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#updating-a-deployment));"
            " \"all Pods with an ordinal that is greater than or equal to the partition will be updated\" "
            "([StatefulSets](https://kubernetes.io/docs/concepts/workloads/controllers/statefulset/#partitions))"))
    DEFERRED_RESTART = _Kind(
        "deferred-restart", "A pod-template change that restarts no pod now: OnDelete (until pods are deleted), a "
        "paused Deployment, a StatefulSet partition at or above the replica count, or 0 replicas.", "=",
        "pod-template change waits for pods to be deleted or resumed",
        "pod-template changes wait for pods to be deleted or resumed",
        says=(
            "the pod template changes but nothing restarts now: `OnDelete` (a StatefulSet's or DaemonSet's "
            "pods take the new template only when deleted), a paused Deployment, a partition at or above the "
            "replica count, a Deployment or StatefulSet at 0 replicas (no HPA scales it): no pod runs, and "
            "those it is scaled up to start with the new template"),
        rests_on=(
            "\"the StatefulSet controller will not automatically update the Pods ... Users must manually "
            "delete Pods\" ([StatefulSets, update "
            "strategies](https://kubernetes.io/docs/concepts/workloads/controllers/statefulset/#update-strategies))"))
    NO_RESTART = _Kind(
        "no-restart", "A workload updated only outside its pod template (metadata, replicas): no pod restarts.",
        "=", "workload changes without a restart", "workloads change without a restart",
        says=(
            "a workload updated only outside its template (its labels, `replicas`): no pod restarts; a scale "
            "adds or removes pods"),
        rests_on=(
            "\"Other updates, such as scaling the Deployment, do not trigger a rollout\" "
            "([Deployments](https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#updating-a-deployment))"))
    CONFIG_UNREACHED = _Kind(
        "config-unreached", "A ConfigMap's or Secret's data changes and no pod template that reads it does: the "
        "objects are its consumers (counts: consumers, never_updated: those reading it as env or a subPath mount).",
        "!", "config change reaches no running pod", "config changes reach no running pod",
        says=(
            "a ConfigMap's or Secret's data changes while no pod template that reads it does: each reader "
            "named with what it sees: environment variables (`env` `valueFrom`, `envFrom`) never change in a "
            "running pod, mounted volumes (also `projected`) update after the kubelet's sync, `subPath` "
            "mounts never do. A reader whose template changes too is covered by its rollout; a `checksum/...`"
            " annotation on the template (the common chart fix) is recognised and named there"),
        rests_on=(
            "\"ConfigMaps consumed as environment variables are not updated automatically and require a pod "
            "restart\"; \"A container using a ConfigMap as a subPath volume mount will not receive ConfigMap "
            "updates\" "
            "([ConfigMaps](https://kubernetes.io/docs/concepts/configuration/configmap/#mounted-configmaps-are-updated-automatically))"))
    REPLICAS_RESET = _Kind(
        "replicas-reset", "The chart sets spec.replicas on a workload an HPA scales (objects: the HPA): client-side "
        "apply resets the count on each deploy; server-side apply conflicts with the HPA controller (counts: "
        "replicas, live_replicas).", "!",
        "HPA-scaled replica count set by the chart", "HPA-scaled replica counts set by the chart",
        says=(
            "the chart sets `spec.replicas` on a workload an HPA scales (one in the release, or with a "
            "cluster a live one): with client-side apply (Helm 3; Helm 4 with `--server-side=false`) every "
            "deploy patches the count back to the chart's, and the plan says from what (the live count) to "
            "what; with server-side apply (Helm 4's default) the HPA controller owns `spec.replicas` once it "
            "has scaled, so applying another value is a conflict: the upgrade fails unless "
            "`--force-conflicts`, which resets it"),
        rests_on=(
            "\"any time a change to that object is applied ... this will instruct Kubernetes to scale the "
            "current number of Pods to the value of the spec.replicas key\" ([HPA, migrating "
            "Deployments](https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#migrating-deployments-and-statefulsets-to-horizontal-autoscaling));"
            " \"fields that have a different value and are owned by another manager will result in a conflict\""
            " ([Server-Side "
            "Apply](https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts))"))
    TRAFFIC_UNMATCHED = _Kind(
        "traffic-unmatched", "A Service's selector no longer matches the pods of any workload of the release "
        "(objects: the workloads it matched).", "!", *_TRAFFIC, family="traffic",
        says=(
            "a Service whose selector matched pods of workloads in the release and now matches none (no "
            "endpoints), or other ones"),
        rests_on=(
            "\"The set of Pods targeted by a Service is usually determined by a selector\" "
            "([Service](https://kubernetes.io/docs/concepts/services-networking/service/#services-in-kubernetes))"))
    TRAFFIC_MOVED = _Kind(
        "traffic-moved", "A Service's selector matches other workloads than before (objects: before and after).",
        "!", *_TRAFFIC, family="traffic",
        says=(
            "a Service whose selector matched pods of workloads in the release and now matches none (no "
            "endpoints), or other ones"),
        rests_on=(
            "\"The set of Pods targeted by a Service is usually determined by a selector\" "
            "([Service](https://kubernetes.io/docs/concepts/services-networking/service/#services-in-kubernetes))"))
    TRAFFIC_GAP = _Kind(
        "traffic-gap", "A Service's new selector matches none of the pods running before the upgrade (they carry "
        "other values of its labels): Helm applies Services before workloads, so it has no endpoints until new pods "
        "it matches are ready (objects: the workloads whose running pods stop matching, then those whose new pods "
        "it matches).", "!", *_TRAFFIC, family="traffic",
        says=(
            "a Service whose new selector matches none of the pods running before the upgrade (the previous "
            "release's pod templates, the live ones with a cluster), though it matched some: it selects a label "
            "they carry with another value (`helm.sh/chart`, a version) or lack. Helm applies Services before "
            "DaemonSets, Deployments and StatefulSets, so from then until a new pod it matches is ready the "
            "Service has no endpoints, and during the rollout only the new pods serve it"),
        rests_on=(
            "\"The controller for that Service continuously scans for Pods that match its selector, and then "
            "makes any necessary updates to the set of EndpointSlices for the Service\" ([Service, defining a "
            "Service](https://kubernetes.io/docs/concepts/services-networking/service/#defining-a-service)); "
            "Helm applies a release's objects in its install order, Service before DaemonSet, Deployment and "
            "StatefulSet ([kind_sorter.go](https://github.com/helm/helm/blob/main/pkg/release/v1/util/kind_sorter.go))"))
    TRAFFIC_PORT = _Kind(
        "traffic-port", "A Service port removed, or its targetPort changed (counts: ports).", "!", *_TRAFFIC,
        family="traffic",
        says=(
            "a Service port removed, or its `targetPort` changed"),
        rests_on=(
            "a Service forwards its `port` to the pods' `targetPort` ([Service, defining a "
            "Service](https://kubernetes.io/docs/concepts/services-networking/service/#defining-a-service))"))
    TRAFFIC_ROUTE = _Kind(
        "traffic-route", "An Ingress or HTTPRoute host or rule removed, or the object deleted (counts: routes).",
        "!", *_TRAFFIC, family="traffic",
        says=(
            "an Ingress rule (host and path) or HTTPRoute hostname or match removed, or the object deleted"),
        rests_on=(
            "requests are routed by the rules the Ingress or route declares ([Ingress "
            "rules](https://kubernetes.io/docs/concepts/services-networking/ingress/#ingress-rules), "
            "[HTTPRoute](https://gateway-api.sigs.k8s.io/api-types/httproute/))"))
    DATA_CRD = _Kind(
        "data-crd", "A CustomResourceDefinition is deleted: every custom resource of its kind goes with it.", "!",
        *_DATA, family="data",
        says=(
            "a CustomResourceDefinition leaving the release (not kept by `helm.sh/resource-policy: keep`): "
            "every custom resource of its kind goes"),
        rests_on=(
            "\"When you delete a CustomResourceDefinition, the server will uninstall the RESTful API endpoint "
            "and delete all custom objects stored in it\" "
            "([CRDs](https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#delete-a-customresourcedefinition))"))
    DATA_PVC_SHRINK = _Kind(
        "data-pvc-shrink", "A PersistentVolumeClaim asks for less storage: the API server refuses it.", "!", *_DATA,
        family="data",
        says=(
            "a PersistentVolumeClaim asking for less storage: the API server refuses it (also an `immutable` "
            "predicted failure)"),
        rests_on=(
            "a claim's storage request may only grow ([Expanding Persistent Volumes "
            "Claims](https://kubernetes.io/docs/concepts/storage/persistent-volumes/#expanding-persistent-volumes-claims))"))
    DATA_PVC_EXPAND = _Kind(
        "data-pvc-expand", "A PersistentVolumeClaim asks for more storage: only a StorageClass with "
        "allowVolumeExpansion grows it (judged when the StorageClass was read).", "!", *_DATA, family="data",
        says=(
            "a claim asking for more: offline, a warning that its StorageClass must allow it; with a cluster "
            "(or the class in the release), judged: a class without `allowVolumeExpansion: true` is a "
            "predicted failure (`pvc-expand-refused`)"),
        rests_on=(
            "\"You can only expand a PVC if its storage class's allowVolumeExpansion field is set to true\" "
            "([same "
            "page](https://kubernetes.io/docs/concepts/storage/persistent-volumes/#expanding-persistent-volumes-claims))"))
    DATA_PVC_LEFT = _Kind(
        "data-pvc-left", "A StatefulSet is deleted: the claims of its volumeClaimTemplates stay, or are deleted by "
        "its persistentVolumeClaimRetentionPolicy (counts: claims).", "!", *_DATA, family="data",
        says=(
            "a StatefulSet deleted: the claims of its `volumeClaimTemplates` (named `TEMPLATE-STS-N`) stay, "
            "keeping their data and their cost, unless its `persistentVolumeClaimRetentionPolicy.whenDeleted`"
            " is `Delete`"),
        rests_on=(
            "\"Deleting and/or scaling a StatefulSet down will not delete the volumes associated with the "
            "StatefulSet\" ([StatefulSets, "
            "limitations](https://kubernetes.io/docs/concepts/workloads/controllers/statefulset/#limitations))"))

    _value_: str
    description: str
    sign: str
    one: str
    many: str
    family: str
    says: str
    rests_on: str

    def __new__(cls, entry: _Kind) -> ImpactKind:
        member = object.__new__(cls)
        member._value_ = entry.value
        member.description, member.sign, member.one, member.many = entry.description, entry.sign, entry.one, entry.many
        member.family, member.says, member.rests_on = entry.family, entry.says, entry.rests_on
        return member

    @classmethod
    def _missing_(cls, value: object) -> ImpactKind | None:
        """A kind this version does not know (a saved plan from a newer one): a stand-in that
        keeps the value, marked at risk, counted as "N KIND impacts", in the family its name
        starts with (`traffic-...`)."""
        if not isinstance(value, str):
            return None
        member = object.__new__(cls)
        member._name_, member._value_ = "UNKNOWN", value
        member.description, member.sign, member.one, member.many = "", "!", f"{value} impact", f"{value} impacts"
        member.family = next((k.family for k in cls if k.family and value.startswith(k.family + "-")), "")
        return member

    def answers_to(self, gate: str) -> bool:
        """`--fail-on GATE` names this kind, or its family."""
        return gate in (self._value_, self.family)


# The --fail-on names impacts answer to: each kind, then the families.
IMPACT_GATES: tuple[str, ...] = (*(k.value for k in ImpactKind), *dict.fromkeys(k.family for k in ImpactKind if k.family))


class ImpactFacts(Struct, frozen=True, kw_only=True):
    """What an impact rule found, as typed values: one subclass per impact kind (`kind`), in
    deployah_plan/impact_facts.py; render/words/impact.py says it."""

    kind: ClassVar[ImpactKind]


__all__ = ["IMPACT_GATES", "ImpactFacts", "ImpactKind"]
