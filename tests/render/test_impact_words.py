"""Each impact kind in words (deployah_plan/render/words/impact.py): for each kind and each
variant, the facts and the exact line and lines under it, as helm plan has always said them."""
from __future__ import annotations

from typing import Any

import pytest

from deployah_plan.impact_facts import (
    ConfigUnreached, Consumer, DataCrd, DeferredRestart, Expansion, NoRestart, Port, PortRule, PvcExpand, PvcLeft,
    PvcShrink, Read, Reads, ReplicasReset, ResetRule, Restart, Route, RouteKind, Strategy, TrafficMoved, TrafficPort,
    TrafficRoute, TrafficUnmatched,
)
from deployah_plan.impacts import ImpactFacts, ImpactKind
from deployah_plan.model import Impact, ResourceRef, SsaReason
from deployah_plan.render.words import impact as words

WEB = ResourceRef("apps/v1", "Deployment", "shop", "web")
STS = ResourceRef("apps/v1", "StatefulSet", "shop", "db")
DS = ResourceRef("apps/v1", "DaemonSet", "kube-system", "agent")
HPA = ResourceRef("autoscaling/v2", "HorizontalPodAutoscaler", "shop", "web")
CM = ResourceRef("v1", "ConfigMap", "shop", "settings")
SVC = ResourceRef("v1", "Service", "shop", "web")
ING = ResourceRef("networking.k8s.io/v1", "Ingress", "shop", "web")
ROUTE = ResourceRef("gateway.networking.k8s.io/v1", "HTTPRoute", "shop", "web")
CRD = ResourceRef("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "crontabs.stable.example.com")
PVC = ResourceRef("v1", "PersistentVolumeClaim", "shop", "data")


def said(facts: ImpactFacts, resource: ResourceRef, objects: tuple[ResourceRef, ...] = ()) -> tuple[str, tuple[str, ...]]:
    item = Impact(facts.kind, resource, objects, (), facts)
    return words.message(item), words.details(item)


def restart(**given: Any) -> Restart:
    return Restart(**{"strategy": Strategy.ROLLING_UPDATE, **given})


def test_every_kind_is_worded() -> None:
    assert words.worded() == frozenset(ImpactKind)


def test_an_impact_read_back_without_facts_keeps_its_words() -> None:
    item = Impact(ImpactKind.RESTART, WEB, said="as written", said_details=("under it",))
    assert (words.message(item), words.details(item)) == ("as written", ("under it",))


# -- rollouts ---------------------------------------------------------------------------------------

def test_deployment_rolling_update() -> None:
    assert said(restart(max_surge="25%", max_unavailable="25%", surge_pods=1, unavailable_pods=0, replicas=3,
                        chart_replicas=3, pods=3), WEB) == (
        "Deployment shop/web: pod template changes: 3 pods restart",
        ("RollingUpdate, maxSurge 25%, maxUnavailable 25% (at most 1 extra and 0 unavailable of 3 at a time)",))
    assert said(restart(max_surge="[1]", max_unavailable="1.5", replicas=1, pods=1), WEB) == (
        "Deployment shop/web: pod template changes: 1 pod restarts",
        ("RollingUpdate, maxSurge [1], maxUnavailable 1.5",))


def test_deployment_recreate_with_live_count() -> None:
    assert said(restart(strategy=Strategy.RECREATE, replicas=2, chart_replicas=2, live_replicas=4, pods=2), WEB) == (
        "Deployment shop/web: pod template changes: 2 pods restart (2 replicas, 4 live)",
        ("Recreate: every old pod stops before the new ones start (no pod serves in between)",))


def test_deployment_paused() -> None:
    facts = DeferredRestart(strategy=Strategy.ROLLING_UPDATE, paused=True, replicas=3, chart_replicas=3, pods=0)
    assert said(facts, WEB) == ("Deployment shop/web: pod template changes, but no pod restarts now (3 replicas)",
                                ("paused: nothing rolls until the Deployment is resumed",))


def test_deployment_scaled_by_an_hpa_with_checksum_and_config() -> None:
    facts = restart(max_surge="25%", max_unavailable="25%", surge_pods=2, unavailable_pods=1, replicas=7,
                    live_replicas=7, pods=7, hpa=HPA, hpa_min=None, hpa_max=10, checksums=("checksum/config",),
                    reads=(CM,))
    assert said(facts, WEB, (HPA,)) == (
        "Deployment shop/web: pod template changes: 7 pods restart (7 replicas, scaled by "
        "HorizontalPodAutoscaler shop/web (1 to 10): 7 live)",
        ("RollingUpdate, maxSurge 25%, maxUnavailable 25% (at most 2 extra and 1 unavailable of 7 at a time)",
         "its checksum annotation changed (checksum/config): the rollout is how the new config reaches the pods",
         "it reads ConfigMap shop/settings, whose data changes: the new pods see it"))
    # No count at all (an HPA, neither the chart nor the live state gives one), no range.
    assert said(restart(max_surge="25%", max_unavailable="25%", hpa=HPA), WEB, (HPA,))[0] == (
        "Deployment shop/web: pod template changes: its pods restart (scaled by HorizontalPodAutoscaler shop/web)")



SECRET = ResourceRef("v1", "Secret", "shop", "db")


def test_a_rollout_only_of_regenerated_values_says_it_may_not_happen() -> None:
    facts = restart(max_surge="25%", max_unavailable="25%", surge_pods=1, unavailable_pods=0, replicas=1,
                    chart_replicas=1, pods=1, regenerated=True, regenerated_checksums=("checksum/secret",),
                    regenerated_reads=(SECRET,))
    assert said(facts, WEB) == (
        "Deployment shop/web: pod template changes only by values the chart regenerates on every render: 1 pod "
        "restarts if the upgrade makes them anew too; where the chart keeps the stored values (lookup), nothing "
        "restarts",
        ("RollingUpdate, maxSurge 25%, maxUnavailable 25% (at most 1 extra and 0 unavailable of 1 at a time)",
         "its checksum annotation changes only by values the chart regenerates on every render (checksum/secret): "
         "no config the values changed",
         "it reads Secret shop/db, whose data changes only by values the chart regenerates on every render: the new "
         "pods see them if they change"))
    # A real rollout keeps its words; only the regenerated reasons carry the caveat.
    real = restart(replicas=1, pods=1, checksums=("checksum/config",), reads=(CM,),
                   regenerated_checksums=("checksum/secret",))
    assert said(real, WEB)[0] == "Deployment shop/web: pod template changes: 1 pod restarts"
    assert said(real, WEB)[1][1:] == (
        "its checksum annotation changed (checksum/config): the rollout is how the new config reaches the pods",
        "its checksum annotation changes only by values the chart regenerates on every render (checksum/secret): "
        "no config the values changed",
        "it reads ConfigMap shop/settings, whose data changes: the new pods see it")

def test_statefulset_variants() -> None:
    assert said(restart(replicas=2, chart_replicas=2, pods=2), STS) == (
        "StatefulSet shop/db: pod template changes: 2 pods restart",
        ("RollingUpdate, highest ordinal first, one pod at a time",))
    assert said(restart(max_unavailable=2, partition=3, replicas=5, chart_replicas=5, pods=2), STS) == (
        "StatefulSet shop/db: pod template changes: 2 pods restart (5 replicas)",
        ("RollingUpdate with partition 3: only pods with an ordinal of 3 or more restart (2 of 5), highest ordinal "
         "first, at most 2 unavailable at a time",))
    held = DeferredRestart(strategy=Strategy.ROLLING_UPDATE, partition=5, replicas=5, chart_replicas=5, pods=0)
    assert said(held, STS) == (
        "StatefulSet shop/db: pod template changes, but no pod restarts now (5 replicas)",
        ("RollingUpdate with partition 5: only pods with an ordinal of 5 or more restart (0 of 5), highest ordinal "
         "first, one pod at a time",))
    assert said(restart(partition=2, hpa=HPA), STS, (HPA,))[1] == (
        "RollingUpdate with partition 2: only pods with an ordinal of 2 or more restart, highest ordinal first, "
        "one pod at a time",)
    on_delete = DeferredRestart(strategy=Strategy.ON_DELETE, replicas=2, chart_replicas=2, pods=0)
    assert said(on_delete, STS) == (
        "StatefulSet shop/db: pod template changes, but no pod restarts now (2 replicas)",
        ("OnDelete: no pod restarts until it is deleted; each pod deleted comes back with the new template",))


def test_a_single_replica_statefulset_says_its_only_pod_goes_down() -> None:
    assert said(restart(replicas=1, chart_replicas=1, pods=1, only_pod_down=True), STS) == (
        "StatefulSet shop/db: pod template changes: its only pod goes down while it restarts",
        ("RollingUpdate, no surge: the pod is deleted, then created with the new template "
         "(0 available of 1 until it is ready)",))
    assert said(restart(replicas=1, chart_replicas=1, live_replicas=2, pods=1, only_pod_down=True), STS)[0] == (
        "StatefulSet shop/db: pod template changes: its only pod goes down while it restarts (1 replica, 2 live)")


def test_daemonset_variants() -> None:
    assert said(restart(max_unavailable=1, max_surge=0), DS) == (
        "DaemonSet kube-system/agent: pod template changes: its pods restart (one pod per node)",
        ("RollingUpdate, maxUnavailable 1, maxSurge 0, one pod per node",))
    on_delete = DeferredRestart(strategy=Strategy.ON_DELETE, pods=0)
    assert said(on_delete, DS) == (
        "DaemonSet kube-system/agent: pod template changes, but no pod restarts now (one pod per node)",
        ("OnDelete: no pod restarts until it is deleted; each pod deleted comes back with the new template",))


def test_zero_replicas_restart_no_pod() -> None:
    # Issue 45 point 7: a Deployment or StatefulSet at 0 replicas runs no pod to restart.
    idle = DeferredRestart(strategy=Strategy.ROLLING_UPDATE, replicas=0, chart_replicas=0, pods=0)
    for resource in (STS, WEB):
        assert said(idle, resource) == (
            f"{resource}: pod template changes, but no pod restarts now (0 replicas)",
            ("no pod runs at 0 replicas: the pods it is scaled up to start with the new template",))


def test_a_checksum_moved_by_what_is_not_data_says_what_moved_it() -> None:
    # Issue 45 point 5: never "the rollout is how the new config reaches the pods".
    other = restart(replicas=1, pods=1, other_checksums=("checksum/config",), hashed=(CM, SECRET),
                    hashed_metadata=(CM,), hashed_unread=(SECRET,))
    assert said(other, WEB)[1][1:] == (
        "its checksum annotation changed (checksum/config) while the data its pods read of what it hashes did "
        "not: only the metadata of ConfigMap shop/settings changes (labels such as the chart's version, hashed "
        "with the data); only keys its pods do not read change in Secret shop/db",)
    unmoved = restart(replicas=1, pods=1, other_checksums=("checksum/config",), hashed=(CM,))
    assert said(unmoved, WEB)[1][1:] == (
        "its checksum annotation changed (checksum/config), but nothing it hashes changes (ConfigMap "
        "shop/settings): what moved it (a value or a file of the chart) is not in the release's objects",)
    unknown = restart(replicas=1, pods=1, other_checksums=("checksum/a", "hash-b"))
    assert said(unknown, WEB)[1][1:] == (
        "its checksum annotation changed (checksum/a, hash-b), and it reads no ConfigMap or Secret its chart "
        "holds: what moved it (a value or a file of the chart) is not in the release's objects",)


def test_the_impact_line_counts_the_pods_of_an_hpa_as_its_range() -> None:
    # Issue 45 point 4: an HPA's unknown count is not a DaemonSet's.
    def rollout(resource: ResourceRef, pods: int | None, **given: Any) -> Impact:
        return Impact(ImpactKind.RESTART, resource, (), (("pods", pods),) if pods is not None else (),
                      restart(pods=pods, **given))
    scaled = rollout(WEB, None, hpa=HPA, hpa_min=2, hpa_max=6)
    assert words.impact_summary([scaled]) == "Impact: 1 workload restarts (as many pods as its HPA runs, 2 to 6)."
    assert words.impact_summary([scaled, rollout(STS, 3), rollout(DS, None)]) == (
        "Impact: 3 workloads restart (3 pods, one per node of 1 DaemonSet, and as many as 1 HPA runs (2 to 6)).")
    two = [scaled, rollout(STS, None, hpa=HPA, hpa_max=4)]
    assert words.impact_summary(two) == "Impact: 2 workloads restart (as many pods as their HPAs run, 3 to 10)."
    unread = Impact(ImpactKind.RESTART, WEB, said="as written")  # read back without facts: no range
    assert words.impact_summary([unread, rollout(STS, 2)]) == (
        "Impact: 2 workloads restart (2 pods, and as many as 1 HPA runs)."
    )


@pytest.mark.parametrize("before, after, line", [
    (3, 5, "Deployment shop/web: changes outside the pod template only: no pod restarts; it scales from 3 to 5 "
           "replicas (pods are added or removed, none replaced)"),
    (3, 3, "Deployment shop/web: changes outside the pod template only: no pod restarts"),
    (None, 5, "Deployment shop/web: changes outside the pod template only: no pod restarts"),
])
def test_no_restart(before: int | None, after: int | None, line: str) -> None:
    assert said(NoRestart(replicas_before=before, replicas_after=after), WEB) == (line, ())


# -- config -----------------------------------------------------------------------------------------

def test_config_read_as_env_and_volume_by_one_workload() -> None:
    facts = ConfigUnreached(consumers=(Consumer(workload=WEB, reads=(
        Read(container="app", how=Reads.ENV, name="LIVES"), Read(container="app", how=Reads.ENV_FROM),
        Read(container="app", how=Reads.VOLUME, name="/config"),
        Read(container="side", how=Reads.PROJECTED, name="/etc/all"))),))
    assert said(facts, CM, (WEB,)) == (
        "ConfigMap shop/settings: data changes, but no pod template that reads it does: Deployment shop/web keeps "
        "the old values until its pods restart",
        ("Deployment shop/web (app: env LIVES; app: envFrom): environment variables never change in a running pod",
         "Deployment shop/web (app: /config; side: /etc/all): the mounted files update after the kubelet's next sync "
         "(about a minute); the process must re-read them"))



def test_config_changed_only_by_regenerated_values_carries_the_caveat() -> None:
    facts = ConfigUnreached(consumers=(Consumer(workload=WEB, reads=(
        Read(container="app", how=Reads.ENV, name="PASSWORD"),)),), regenerated=True)
    assert said(facts, SECRET, (WEB,))[0] == (
        "Secret shop/db: data changes only by values the chart regenerates on every render (where the chart keeps "
        "the stored values, lookup, nothing changes); if they change, no pod template that reads it does: "
        "Deployment shop/web keeps the old values until its pods restart")

def test_config_read_through_a_subpath() -> None:
    facts = ConfigUnreached(consumers=(Consumer(workload=WEB, reads=(
        Read(container="app", how=Reads.SUB_PATH, name="/etc/game.properties"),)),))
    assert said(facts, CM)[1] == (
        "Deployment shop/web (app: /etc/game.properties): a subPath mount never receives updates",)


def test_config_read_only_as_files_by_several() -> None:
    others = [ResourceRef("apps/v1", "Deployment", "shop", f"w{n}") for n in range(4)]
    facts = ConfigUnreached(consumers=tuple(
        Consumer(workload=w, reads=(Read(container="c", how=Reads.VOLUME, name="/c"),)) for w in others))
    assert said(facts, CM)[0] == (
        "ConfigMap shop/settings: data changes, but no pod template that reads it does: Deployment shop/w0, "
        "Deployment shop/w1, Deployment shop/w2 and 1 more see it only as mounted files, after the kubelet's sync")
    one = ConfigUnreached(consumers=facts.consumers[:1])
    assert said(one, CM)[0] == ("ConfigMap shop/settings: data changes, but no pod template that reads it does: "
                                "Deployment shop/w0 sees it only as mounted files, after the kubelet's sync")
    never = ConfigUnreached(consumers=(*facts.consumers[:1], Consumer(workload=WEB, reads=(
        Read(container="c", how=Reads.ENV_FROM),))))
    assert said(never, CM)[0] == ("ConfigMap shop/settings: data changes, but no pod template that reads it does: "
                                  "Deployment shop/w0, Deployment shop/web keep the old values until their pods restart")


# -- replicas an HPA scales -------------------------------------------------------------------------

def reset(rule: ResetRule, live: int | None, **given: Any) -> ReplicasReset:
    return ReplicasReset(**{"rule": rule, "chart_replicas": 2, "live_replicas": live, "hpa": HPA,
                         "hpa_live": False, "hpa_min": 2, "hpa_max": 5, **given})


CSA = "client-side apply patches every declared field that differs live, spec.replicas included"
SSA = "server-side apply: a field another manager owns with another value is a conflict"
REMOVE = "remove spec.replicas from the chart when an HPA scales the workload"
SETS = "Deployment shop/web: the chart sets spec.replicas to 2, but HorizontalPodAutoscaler shop/web (2 to 5 replicas)"


@pytest.mark.parametrize("facts, line, under", [
    (reset(ResetRule.CLIENT_SIDE, 5),
     f"{SETS} scales it: each deploy resets it: the count jumps from 5 to 2, then the HPA scales it again", (CSA, REMOVE)),
    (reset(ResetRule.CLIENT_SIDE, 2),
     f"{SETS} scales it: each deploy resets it: the live count is 2 now, so this deploy does not move it", (CSA, REMOVE)),
    (reset(ResetRule.CLIENT_SIDE, None),
     f"{SETS} scales it: each deploy resets it: the count jumps to 2 from whatever the HPA chose, then the HPA "
     "scales it again", (CSA, REMOVE)),
    (reset(ResetRule.SSA_CONFLICT, 5, ssa=SsaReason.CONFLICT, managers=("kube-controller-manager",)),
     f"{SETS} scales it and another field manager owns it (5 live): server-side apply conflicts and the upgrade "
     "fails; remove replicas from the chart, or pass --force-conflicts to reset it to 2",
     ("server-side apply conflict: field manager kube-controller-manager owns it; the upgrade fails unless "
      "conflicts are forced (--force-conflicts)", SSA, REMOVE)),
    (reset(ResetRule.SSA_FORCED, 5), f"{SETS} scales it: --force-conflicts resets it from 5 to 2", (SSA, REMOVE)),
    (reset(ResetRule.SSA_SAME, 2),
     f"{SETS} scales it: the live count is 2, so this deploy changes nothing; once the HPA moves it, server-side "
     "apply conflicts on spec.replicas", (SSA, REMOVE)),
    (reset(ResetRule.SSA_LATER, None),
     f"{SETS} scales it: once the HPA has moved it, its controller owns spec.replicas and server-side apply "
     "conflicts: the upgrade fails unless --force-conflicts, which resets it to 2", (SSA, REMOVE)),
])
def test_replicas_reset(facts: ReplicasReset, line: str, under: tuple[str, ...]) -> None:
    assert said(facts, WEB, (HPA,)) == (line, under)


def test_replicas_reset_names_a_live_hpa_and_its_range() -> None:
    def scaler(**given: Any) -> str:
        return said(reset(ResetRule.CLIENT_SIDE, 4, **given), WEB)[0].split(" scales it")[0]
    assert scaler(hpa_live=True, hpa_min=None, hpa_max=10) == (
        "Deployment shop/web: the chart sets spec.replicas to 2, but HorizontalPodAutoscaler shop/web (live, not in "
        "the release; 1 to 10 replicas)")
    assert scaler(hpa_live=True, hpa_max=None) == (
        "Deployment shop/web: the chart sets spec.replicas to 2, but HorizontalPodAutoscaler shop/web (live, not in "
        "the release)")
    assert scaler(hpa_max=None) == "Deployment shop/web: the chart sets spec.replicas to 2, but HorizontalPodAutoscaler shop/web"


# -- traffic ----------------------------------------------------------------------------------------

def test_traffic_unmatched_and_moved() -> None:
    assert said(TrafficUnmatched(matched_before=(WEB,)), SVC) == (
        "Service shop/web: its selector no longer matches the pods of any workload in the release (it matched "
        "Deployment shop/web): traffic to it has no endpoints", ())
    assert said(TrafficMoved(matched_before=(WEB,), matched_after=(STS, DS)), SVC) == (
        "Service shop/web: its selector matches other pods: Deployment shop/web before, StatefulSet shop/db, "
        "DaemonSet kube-system/agent after", ())


def test_traffic_port() -> None:
    target = Port(port=80, protocol="TCP", rule=PortRule.TARGET_PORT, target_before=9376, target_after="http")
    removed = Port(port="443", protocol="UDP", rule=PortRule.REMOVED)
    assert said(TrafficPort(ports=(target,)), SVC) == (
        "Service shop/web: port 80/TCP: targetPort 9376 -> http: connections go to the new container port, which "
        "pods not yet updated may not listen on", ())
    assert said(TrafficPort(ports=(target, removed)), SVC) == (
        "Service shop/web: 2 ports change for clients",
        ("port 80/TCP: targetPort 9376 -> http: connections go to the new container port, which pods not yet "
         "updated may not listen on", "port 443/UDP removed: clients of it lose the connection"))


def test_traffic_route() -> None:
    assert said(TrafficRoute(deleted=False, routes=(Route(route=RouteKind.INGRESS_PATH, host="foo.bar.com", path="/"),)),
                ING) == ("Ingress shop/web no longer serves: host foo.bar.com path /: requests to it stop reaching the "
                         "release", ())
    routes = (Route(route=RouteKind.DEFAULT_BACKEND), Route(route=RouteKind.INGRESS_PATH, path="/testpath"),
              Route(route=RouteKind.HOSTNAME, host="www.example.net"),
              Route(route=RouteKind.RULE, path="/login", method="POST", headers=("x-a", "x-b")))
    assert said(TrafficRoute(deleted=True, routes=routes), ROUTE) == (
        "HTTPRoute shop/web is deleted: the default backend, path /testpath (any host), hostname www.example.net and "
        "1 more: requests to them stop reaching the release",
        ("the default backend", "path /testpath (any host)", "hostname www.example.net",
         "rule POST /login (headers x-a,x-b)"))
    assert said(TrafficRoute(deleted=False, routes=(Route(route=RouteKind.RULE, path="/"),)), ROUTE)[0] == (
        "HTTPRoute shop/web no longer serves: rule /: requests to it stop reaching the release")


# -- data -------------------------------------------------------------------------------------------

def test_data_crd() -> None:
    assert said(DataCrd(resource_kind="CronTab", group="stable.example.com"), CRD) == (
        "CustomResourceDefinition crontabs.stable.example.com is deleted: every CronTab.stable.example.com, in every "
        "namespace, is deleted with it", ())
    assert said(DataCrd(resource_kind=None, group=None), CRD)[0] == (
        "CustomResourceDefinition crontabs.stable.example.com is deleted: every custom resource of its kind, in "
        "every namespace, is deleted with it")


def test_pvc_shrink_and_expand() -> None:
    assert said(PvcShrink(storage_before="8Gi", storage_after="4Gi"), PVC) == (
        "PersistentVolumeClaim shop/data: storage 8Gi -> 4Gi: the API server refuses to shrink a claim, so this "
        "upgrade fails", ())

    def expand(name: str | None, expansion: Expansion) -> str:
        return said(PvcExpand(storage_before="8Gi", storage_after="16Gi", storage_class=name, expansion=expansion),
                    PVC)[0]
    assert expand("slow", Expansion.NOT_READ) == (
        "PersistentVolumeClaim shop/data: storage 8Gi -> 16Gi: the claim grows only if StorageClass slow has "
        "allowVolumeExpansion: true (not read here); otherwise the API server refuses it and this upgrade fails")
    assert expand(None, Expansion.NOT_READ) == (
        "PersistentVolumeClaim shop/data: storage 8Gi -> 16Gi: the claim grows only if its StorageClass has "
        "allowVolumeExpansion: true (not read here); otherwise the API server refuses it and this upgrade fails")
    assert expand("fast", Expansion.ALLOWED) == (
        "PersistentVolumeClaim shop/data: storage 8Gi -> 16Gi: StorageClass fast allows volume expansion; the volume "
        "grows when its driver resizes it")
    assert expand("slow", Expansion.REFUSED) == (
        "PersistentVolumeClaim shop/data: storage 8Gi -> 16Gi: StorageClass slow does not allow volume expansion: the "
        "API server refuses it and this upgrade fails")


def test_pvc_left() -> None:
    sts = ResourceRef("apps/v1", "StatefulSet", "shop", "web")
    assert said(PvcLeft(templates=("www",), replicas=2, claims_deleted=False), sts) == (
        "StatefulSet shop/web is deleted, but its 2 claims (www-web-0, www-web-1) stay: they keep their data and "
        "keep costing until deleted (a new StatefulSet of that name adopts them)", ())
    assert said(PvcLeft(templates=("www",), replicas=1_000_000_000, claims_deleted=False), sts)[0] == (
        "StatefulSet shop/web is deleted, but its 1000000000 claims (www-web-0, www-web-1, www-web-2 and 999999997 "
        "more) stay: they keep their data and keep costing until deleted (a new StatefulSet of that name adopts them)")
    assert said(PvcLeft(templates=("www", "logs"), replicas=1, claims_deleted=True), sts)[0] == (
        "StatefulSet shop/web is deleted with persistentVolumeClaimRetentionPolicy whenDeleted: Delete: its 2 claims "
        "(www-web-0, logs-web-0) are deleted too, and their data with them when the reclaim policy is Delete")
