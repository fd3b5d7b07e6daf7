"""What the deploy does to running things (core/impact/), through the planner.

The objects are the examples of the Kubernetes documentation (kubernetes.io/docs): the
nginx-deployment of "Deployments", the web StatefulSet of "StatefulSet Basics", the
fluentd-elasticsearch DaemonSet, the game-demo ConfigMap of "ConfigMaps", the php-apache HPA of
"HorizontalPodAutoscaler Walkthrough", my-service of "Service", minimal-ingress of "Ingress",
the Gateway API's HTTPRoute, the CronTab CRD of "Extend the Kubernetes API with
CustomResourceDefinitions" and myclaim of "Persistent Volumes". Expected values are what that
documentation says the controllers do.
"""
from __future__ import annotations

import json
from typing import TypeVar

import pytest

from builders import live_of, obj, plan
from deployah_plan.facts import PvcExpandRefused
from deployah_plan.core.gates import check_gates, parse_gate
from deployah_plan.core.ignore import apply_ignore, parse_flag
from deployah_plan.core.planner import PlanRequest, live_scope, make_plan
from deployah_plan.impact_facts import (
    ConfigUnreached, DataCrd, DeferredRestart, Expansion, NoRestart, Port, PortRule, PvcExpand, PvcLeft, PvcShrink,
    Read, Reads, ReplicasReset, ResetRule, Restart, Route, RouteKind, Strategy, TrafficMoved, TrafficPort,
    TrafficRoute, TrafficUnmatched,
)
from deployah_plan.manifests import split_stream
from deployah_plan.impacts import ImpactKind
from deployah_plan.build import build_plan
from deployah_plan.model import (
    ApplyMethod, Header, HelmAction, Impact, LiveGap, LiveStatus, Plan, ResourceRef, SsaReason,
)
from deployah_plan.render.words import impact as impact_words
from deployah_plan.planfile.write import render as render_json
from deployah_plan.render.words import impact as words_impact
from deployah_plan.planfile.read import plan_of
from deployah_plan.live_snapshot import LiveSnapshot

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
  labels:
    app: nginx
spec:
  replicas: 3
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.14.2
        ports:
        - containerPort: 80
"""
STATEFULSET = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: "nginx"
  replicas: 2
  selector:
    matchLabels:
      app: nginx-sts
  template:
    metadata:
      labels:
        app: nginx-sts
    spec:
      containers:
      - name: nginx
        image: registry.k8s.io/nginx-slim:0.21
        ports:
        - containerPort: 80
          name: web
        volumeMounts:
        - name: www
          mountPath: /usr/share/nginx/html
  volumeClaimTemplates:
  - metadata:
      name: www
    spec:
      accessModes: [ "ReadWriteOnce" ]
      resources:
        requests:
          storage: 1Gi
"""
DAEMONSET = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: fluentd-elasticsearch
  namespace: kube-system
spec:
  selector:
    matchLabels:
      name: fluentd-elasticsearch
  template:
    metadata:
      labels:
        name: fluentd-elasticsearch
    spec:
      containers:
      - name: fluentd-elasticsearch
        image: quay.io/fluentd_elasticsearch/fluentd:v2.5.2
"""
CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: game-demo
data:
  player_initial_lives: "3"
  ui_properties_file_name: "user-interface.properties"
  game.properties: |
    enemy.types=aliens,monsters
    player.maximum-lives=5
"""
# The ConfigMaps page's Pod, as a Deployment's template: env from a key, and a volume.
CONSUMER = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: configmap-demo
spec:
  replicas: 2
  selector:
    matchLabels: {app: demo}
  template:
    metadata:
      labels: {app: demo}
    spec:
      containers:
        - name: demo
          image: alpine
          command: ["sleep", "3600"]
          env:
            - name: PLAYER_INITIAL_LIVES
              valueFrom:
                configMapKeyRef:
                  name: game-demo
                  key: player_initial_lives
          volumeMounts:
          - name: config
            mountPath: "/config"
            readOnly: true
      volumes:
      - name: config
        configMap:
          name: game-demo
          items:
          - key: "game.properties"
            path: "game.properties"
"""
PHP_APACHE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: php-apache
spec:
  selector:
    matchLabels:
      run: php-apache
  replicas: 1
  template:
    metadata:
      labels:
        run: php-apache
    spec:
      containers:
      - name: php-apache
        image: registry.k8s.io/hpa-example
        ports:
        - containerPort: 80
"""
HPA = """\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: php-apache
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: php-apache
  minReplicas: 1
  maxReplicas: 10
  metrics:
  - type: Resource
    resource:
      name: cpu
      target:
        type: Utilization
        averageUtilization: 50
"""
SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: my-service
spec:
  selector:
    app: nginx
  ports:
    - protocol: TCP
      port: 80
      targetPort: 9376
"""
INGRESS = """\
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: minimal-ingress
spec:
  ingressClassName: nginx-example
  rules:
  - http:
      paths:
      - path: /testpath
        pathType: Prefix
        backend:
          service:
            name: test
            port:
              number: 80
"""
HTTPROUTE = """\
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: example-httproute
spec:
  parentRefs:
  - name: example-gateway
  hostnames:
  - "www.example.com"
  - "www.example.net"
  rules:
  - matches:
    - path:
        type: PathPrefix
        value: /login
    backendRefs:
    - name: example-svc
      port: 8080
"""
CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: {type: object}
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames:
    - ct
"""
PVC = """\
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: myclaim
spec:
  accessModes:
    - ReadWriteOnce
  volumeMode: Filesystem
  resources:
    requests:
      storage: 8Gi
  storageClassName: slow
"""
STORAGECLASS = """\
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: slow
provisioner: kubernetes.io/aws-ebs
allowVolumeExpansion: {allow}
"""


def impacts(p: Plan, kind: ImpactKind | None = None) -> list[Impact]:
    return [i for i in p.impact if kind is None or i.kind is kind]


def one(p: Plan, kind: ImpactKind) -> Impact:
    found = impacts(p, kind)
    assert len(found) == 1, [i.kind for i in p.impact]
    return found[0]


_F = TypeVar("_F")


def facts_of(item: Impact, cls: type[_F]) -> _F:
    assert isinstance(item.facts, cls), item.facts
    return item.facts


def bump(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new)


# -- 1. rollouts ----------------------------------------------------------------------------------------

def test_deployment_image_change_rolls_its_pods_with_the_default_strategy() -> None:
    # "A Deployment's rollout is triggered if and only if the Deployment's Pod template is
    # changed"; maxUnavailable and maxSurge default to 25%: of 3 pods, 1 extra (rounded up) and
    # 0 unavailable (rounded down).
    p = plan([DEPLOYMENT], [bump(DEPLOYMENT, "nginx:1.14.2", "nginx:1.16.1")])
    item = one(p, ImpactKind.RESTART)
    assert item.resource.name == "nginx-deployment"
    assert item.count("pods") == 3 and item.count("replicas") == 3
    assert facts_of(item, Restart) == Restart(
        strategy=Strategy.ROLLING_UPDATE, max_surge="25%", max_unavailable="25%", surge_pods=1, unavailable_pods=0,
        replicas=3, chart_replicas=3, pods=3)


def test_deployment_recreate_and_explicit_rolling_numbers() -> None:
    recreate = bump(DEPLOYMENT, "  replicas: 3\n", "  replicas: 3\n  strategy:\n    type: Recreate\n")
    p = plan([recreate], [bump(recreate, "nginx:1.14.2", "nginx:1.16.1")])
    assert facts_of(one(p, ImpactKind.RESTART), Restart).strategy is Strategy.RECREATE
    rolling = bump(DEPLOYMENT, "  replicas: 3\n",
                   "  replicas: 10\n  strategy:\n    rollingUpdate: {maxSurge: 2, maxUnavailable: 30%}\n")
    p = plan([rolling], [bump(rolling, "nginx:1.14.2", "nginx:1.16.1")])
    rolled = facts_of(one(p, ImpactKind.RESTART), Restart)
    assert (rolled.max_surge, rolled.max_unavailable, rolled.surge_pods, rolled.unavailable_pods, rolled.replicas) == (
        2, "30%", 2, 3, 10)


def test_paused_deployment_rolls_nothing() -> None:
    paused = bump(DEPLOYMENT, "  replicas: 3\n", "  replicas: 3\n  paused: true\n")
    p = plan([paused], [bump(paused, "nginx:1.14.2", "nginx:1.16.1")])
    item = one(p, ImpactKind.DEFERRED_RESTART)
    assert item.count("pods") == 0 and facts_of(item, DeferredRestart).paused
    assert not impacts(p, ImpactKind.RESTART)


def test_metadata_or_replicas_only_restarts_nothing() -> None:
    # "Other updates, such as scaling the Deployment, do not trigger a rollout."
    changed = bump(bump(DEPLOYMENT, "  replicas: 3\n", "  replicas: 5\n"), "  labels:\n    app: nginx\n",
                   "  labels:\n    app: nginx\n    tier: web\n")
    p = plan([DEPLOYMENT], [changed])
    item = one(p, ImpactKind.NO_RESTART)
    assert item.facts == NoRestart(replicas_before=3, replicas_after=5)
    assert not impacts(p, ImpactKind.RESTART)


def test_statefulset_rolls_highest_ordinal_first_and_partition_limits_it() -> None:
    new = bump(STATEFULSET, "nginx-slim:0.21", "nginx-slim:0.24")
    item = one(plan([STATEFULSET], [new]), ImpactKind.RESTART)
    rolled = facts_of(item, Restart)
    assert item.count("pods") == 2 and (rolled.strategy, rolled.partition, rolled.max_unavailable) == (
        Strategy.ROLLING_UPDATE, 0, None)
    # "All Pods with an ordinal that is greater than or equal to the partition will be updated"
    staged = bump(STATEFULSET, "  replicas: 2\n", "  replicas: 5\n  updateStrategy:\n    type: RollingUpdate\n"
                  "    rollingUpdate:\n      partition: 3\n")
    item = one(plan([staged], [bump(staged, "nginx-slim:0.21", "nginx-slim:0.24")]), ImpactKind.RESTART)
    rolled = facts_of(item, Restart)
    assert item.count("pods") == 2 and (rolled.partition, rolled.pods, rolled.replicas) == (3, 2, 5)
    # A partition at or above the replica count restarts nothing.
    held = bump(staged, "partition: 3", "partition: 5")
    item = one(plan([held], [bump(held, "nginx-slim:0.21", "nginx-slim:0.24")]), ImpactKind.DEFERRED_RESTART)
    assert item.count("pods") == 0


def test_a_single_replica_statefulset_has_no_pod_while_it_restarts() -> None:
    # StatefulSet RollingUpdate has no surge: "The StatefulSet controller will delete and recreate
    # each Pod in the StatefulSet", so its only pod is gone until the new one is ready.
    assert not facts_of(one(plan([STATEFULSET], [bump(STATEFULSET, "nginx-slim:0.21", "nginx-slim:0.24")]),
                            ImpactKind.RESTART), Restart).only_pod_down
    single = bump(STATEFULSET, "  replicas: 2\n", "  replicas: 1\n")
    rolled = facts_of(one(plan([single], [bump(single, "nginx-slim:0.21", "nginx-slim:0.24")]), ImpactKind.RESTART),
                      Restart)
    assert (rolled.only_pod_down, rolled.pods, rolled.replicas) == (True, 1, 1)
    # A Deployment of one replica surges (25% rounds up to 1): its pod is replaced, not gone.
    deployment = bump(DEPLOYMENT, "  replicas: 3\n", "  replicas: 1\n")
    rolled = facts_of(one(plan([deployment], [bump(deployment, "nginx:1.14.2", "nginx:1.16.1")]), ImpactKind.RESTART),
                      Restart)
    assert not rolled.only_pod_down and (rolled.surge_pods, rolled.unavailable_pods) == (1, 0)


def test_on_delete_restarts_nothing_until_pods_are_deleted() -> None:
    # "the StatefulSet controller will not automatically update the Pods ... Users must
    # manually delete Pods"
    for text in (STATEFULSET, DAEMONSET):
        spec = "spec:\n  updateStrategy:\n    type: OnDelete\n"
        on_delete = text.replace("spec:\n", spec, 1)
        new = on_delete.replace("nginx-slim:0.21", "nginx-slim:0.24").replace("fluentd:v2.5.2", "fluentd:v2.6.0")
        p = plan([on_delete], [new])
        item = one(p, ImpactKind.DEFERRED_RESTART)
        assert facts_of(item, DeferredRestart).strategy is Strategy.ON_DELETE
        assert not impacts(p, ImpactKind.RESTART)


def test_daemonset_rolls_one_pod_per_node() -> None:
    new = bump(DAEMONSET, "fluentd:v2.5.2", "fluentd:v2.6.0")
    p = plan([DAEMONSET], [new])
    item = one(p, ImpactKind.RESTART)
    rolled = facts_of(item, Restart)
    assert (rolled.strategy, rolled.max_unavailable, rolled.max_surge, rolled.replicas) == (
        Strategy.ROLLING_UPDATE, 1, 0, None)
    assert item.count("pods") is None and rolled.pods is None
    assert p.impact and impact_words.impact_summary(p.impact) == "Impact: 1 workload restarts (one pod per node)."
    both = plan([DAEMONSET, DEPLOYMENT], [new, bump(DEPLOYMENT, "nginx:1.14.2", "nginx:1.16.1")])
    assert impact_words.impact_summary(both.impact) == "Impact: 2 workloads restart (3 pods, and one per node of 1 DaemonSet)."


def test_live_count_and_hpa_count() -> None:
    new = bump(DEPLOYMENT, "nginx:1.14.2", "nginx:1.16.1")
    item = one(plan([DEPLOYMENT], [new], [live_of(DEPLOYMENT, spec={"replicas": 3})]), ImpactKind.RESTART)
    assert item.count("live_replicas") == 3
    # With an HPA, the pods that restart are the live count the HPA chose.
    app = bump(PHP_APACHE, "  replicas: 1\n", "")
    p = plan([app, HPA], [bump(app, "hpa-example", "hpa-example:2"), HPA], [live_of(app, spec={"replicas": 7})])
    item = one(p, ImpactKind.RESTART)
    assert item.count("pods") == 7 and item.count("live_replicas") == 7
    rolled = facts_of(item, Restart)
    assert rolled.hpa is not None and str(rolled.hpa) == "HorizontalPodAutoscaler shop/php-apache"
    assert (rolled.hpa_min, rolled.hpa_max, rolled.live_replicas, rolled.replicas) == (1, 10, 7, 7)
    assert not impacts(p, ImpactKind.REPLICAS_RESET)  # the chart does not set replicas


# -- 2. config that reaches nobody ------------------------------------------------------------------

def test_configmap_change_without_rollout_reaches_no_running_pod() -> None:
    # Both keys it reads change: the one of the env variable, and the one of the volume's items.
    new = bump(bump(CONFIGMAP, 'player_initial_lives: "3"', 'player_initial_lives: "5"'),
               "player.maximum-lives=5", "player.maximum-lives=6")
    p = plan([CONFIGMAP, CONSUMER], [new, CONSUMER])
    item = one(p, ImpactKind.CONFIG_UNREACHED)
    assert item.resource.name == "game-demo" and [r.name for r in item.objects] == ["configmap-demo"]
    assert item.count("consumers") == 1 and item.count("never_updated") == 1
    consumer = facts_of(item, ConfigUnreached).consumers
    assert [c.workload for c in consumer] == list(item.objects)
    assert consumer[0].reads == (Read(container="demo", how=Reads.ENV, name="PLAYER_INITIAL_LIVES"),
                                 Read(container="demo", how=Reads.VOLUME, name="/config"))
    assert check_gates(p, [parse_gate("config-unreached")])


def test_subpath_and_projected_and_secret_consumers() -> None:
    consumer = bump(CONSUMER, '            mountPath: "/config"\n',
                    '            mountPath: "/etc/game.properties"\n            subPath: game.properties\n')
    consumer = bump(consumer, "        configMap:\n          name: game-demo\n",
                    "        projected:\n          sources:\n          - configMap:\n              name: game-demo\n"
                    "          - secret:\n              name: game-secret\n")
    consumer = bump(consumer, "          items:\n          - key: \"game.properties\"\n            path: \"game.properties\"\n", "")
    secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: game-secret\nstringData:\n  token: first-s3cret\n"
    p = plan([CONFIGMAP, secret, consumer], [CONFIGMAP, secret.replace("first-s3cret", "second-s3cret"), consumer])
    item = one(p, ImpactKind.CONFIG_UNREACHED)
    assert item.resource.kind == "Secret"
    assert facts_of(item, ConfigUnreached).consumers[0].reads == (
        Read(container="demo", how=Reads.SUB_PATH, name="/etc/game.properties"),)
    said = impact_words.message(item) + "".join(impact_words.details(item))
    assert said == ("Secret shop/game-secret: data changes, but no pod template that reads it does: "
                    "Deployment shop/configmap-demo keeps the old values until its pods restart"
                    "Deployment shop/configmap-demo (demo: /etc/game.properties): a subPath mount never "
                    "receives updates")
    # Neither the Secret's key nor its values reach the facts or the words.
    assert not [word for word in ("token", "s3cret") if word in said + str(item.facts)]


def test_volume_only_consumer_sees_files_after_sync() -> None:
    consumer = bump(CONSUMER, "          env:\n            - name: PLAYER_INITIAL_LIVES\n              valueFrom:\n"
                    "                configMapKeyRef:\n                  name: game-demo\n"
                    "                  key: player_initial_lives\n", "")
    new = bump(CONFIGMAP, "player.maximum-lives=5", "player.maximum-lives=7")
    item = one(plan([CONFIGMAP, consumer], [new, consumer]), ImpactKind.CONFIG_UNREACHED)
    assert item.count("never_updated") == 0
    assert [r.how for r in facts_of(item, ConfigUnreached).consumers[0].reads] == [Reads.VOLUME]


def test_checksum_annotation_makes_the_rollout_cover_the_config() -> None:
    def with_checksum(value: str) -> str:
        return bump(CONSUMER, "      labels: {app: demo}\n",
                    f"      labels: {{app: demo}}\n      annotations:\n        checksum/config: {value}\n")
    new = bump(CONFIGMAP, 'player_initial_lives: "3"', 'player_initial_lives: "5"')
    p = plan([CONFIGMAP, with_checksum("aaa")], [new, with_checksum("bbb")])
    assert not impacts(p, ImpactKind.CONFIG_UNREACHED)
    item = one(p, ImpactKind.RESTART)
    rolled = facts_of(item, Restart)
    assert rolled.checksums == ("checksum/config",)
    assert [str(r) for r in rolled.reads] == ["ConfigMap shop/game-demo"]
    # The checksum unchanged (a chart that forgot a file): the config still reaches nobody.
    p = plan([CONFIGMAP, with_checksum("aaa")], [new, with_checksum("aaa")])
    assert one(p, ImpactKind.CONFIG_UNREACHED)


# -- 3. replicas fought over ----------------------------------------------------------------------

def test_client_side_apply_resets_hpa_count_every_deploy() -> None:
    # HPA docs: "any time a change to that object is applied ... this will instruct Kubernetes
    # to scale the current number of Pods to the value of the spec.replicas key".
    for method in (None, ApplyMethod.CSA):  # Helm 3, and Helm 4 with --server-side=false
        p = plan([PHP_APACHE, HPA], [PHP_APACHE, HPA], apply_method=method)
        item = one(p, ImpactKind.REPLICAS_RESET)
        reset = facts_of(item, ReplicasReset)
        assert (reset.rule, reset.chart_replicas, reset.live_replicas) == (ResetRule.CLIENT_SIDE, 1, None)
        assert item.count("replicas") == 1
        p = plan([PHP_APACHE, HPA], [PHP_APACHE, HPA], [live_of(PHP_APACHE, spec={"replicas": 6}), live_of(HPA)],
                 apply_method=method)
        item = one(p, ImpactKind.REPLICAS_RESET)
        reset = facts_of(item, ReplicasReset)
        assert (reset.rule, reset.chart_replicas, reset.live_replicas) == (ResetRule.CLIENT_SIDE, 1, 6)
        assert item.count("live_replicas") == 6


def test_server_side_apply_conflicts_with_the_hpa_instead() -> None:
    p = plan([PHP_APACHE, HPA], [PHP_APACHE, HPA], apply_method=ApplyMethod.SSA)
    item = one(p, ImpactKind.REPLICAS_RESET)
    assert facts_of(item, ReplicasReset).rule is ResetRule.SSA_LATER
    # Live: the HPA controller's scale writes own spec.replicas (managedFields); Helm's apply conflicts.
    live = live_of(PHP_APACHE, spec={"replicas": 6})
    live["metadata"]["managedFields"] = [
        {"manager": "helm", "operation": "Apply", "apiVersion": "apps/v1",
         "fieldsV1": {"f:spec": {"f:selector": {}, "f:template": {}}}},
        {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "apps/v1", "subresource": "scale",
         "fieldsV1": {"f:spec": {"f:replicas": {}}}},
    ]
    p = plan([PHP_APACHE, HPA], [PHP_APACHE, HPA], [live, live_of(HPA)], apply_method=ApplyMethod.SSA)
    item = one(p, ImpactKind.REPLICAS_RESET)
    reset = facts_of(item, ReplicasReset)
    assert (reset.rule, reset.live_replicas) == (ResetRule.SSA_CONFLICT, 6)
    assert (reset.ssa, reset.managers) == (SsaReason.CONFLICT, ("kube-controller-manager",))
    p = plan([PHP_APACHE, HPA], [PHP_APACHE, HPA], [live, live_of(HPA)], apply_method=ApplyMethod.SSA, force_conflicts=True)
    reset = facts_of(one(p, ImpactKind.REPLICAS_RESET), ReplicasReset)
    assert (reset.rule, reset.live_replicas, reset.chart_replicas) == (ResetRule.SSA_FORCED, 6, 1)


def test_live_hpa_outside_the_release_counts() -> None:
    hpa = live_of(HPA)
    del hpa["metadata"]["annotations"]
    p = plan([PHP_APACHE], [PHP_APACHE], [live_of(PHP_APACHE, spec={"replicas": 4}), hpa])
    item = one(p, ImpactKind.REPLICAS_RESET)
    reset = facts_of(item, ReplicasReset)
    assert (reset.hpa_live, reset.hpa_min, reset.hpa_max, reset.live_replicas, reset.chart_replicas) == (
        True, 1, 10, 4, 1)


def test_no_reset_on_install_or_without_replicas() -> None:
    assert not impacts(plan(None, [PHP_APACHE, HPA]))
    app = bump(PHP_APACHE, "  replicas: 1\n", "")
    assert not impacts(plan([app, HPA], [app, HPA]), ImpactKind.REPLICAS_RESET)


# -- 4. traffic -------------------------------------------------------------------------------------------

def test_service_selector_that_matches_nothing_any_more() -> None:
    p = plan([SERVICE, DEPLOYMENT], [bump(SERVICE, "    app: nginx\n", "    app: nginx2\n"), DEPLOYMENT])
    item = one(p, ImpactKind.TRAFFIC_UNMATCHED)
    assert [r.name for r in facts_of(item, TrafficUnmatched).matched_before] == ["nginx-deployment"]
    assert [r.name for r in item.objects] == ["nginx-deployment"]
    # The pods' labels change instead: the same.
    relabelled = DEPLOYMENT.replace("app: nginx", "app: web")
    assert one(plan([SERVICE, DEPLOYMENT], [SERVICE, relabelled]), ImpactKind.TRAFFIC_UNMATCHED)
    assert check_gates(p, [parse_gate("traffic")])


def test_service_selector_that_matches_other_pods() -> None:
    p = plan([SERVICE, DEPLOYMENT, STATEFULSET],
             [bump(SERVICE, "    app: nginx\n", "    app: nginx-sts\n"), DEPLOYMENT, STATEFULSET])
    item = one(p, ImpactKind.TRAFFIC_MOVED)
    moved = facts_of(item, TrafficMoved)
    assert ([str(r) for r in moved.matched_before], [str(r) for r in moved.matched_after]) == (
        ["Deployment shop/nginx-deployment"], ["StatefulSet shop/web"])


def test_service_selector_of_pods_outside_the_release_is_not_judged() -> None:
    assert not impacts(plan([SERVICE], [bump(SERVICE, "    app: nginx\n", "    app: other\n")]))


def test_service_port_and_target_port() -> None:
    p = plan([SERVICE], [bump(SERVICE, "targetPort: 9376", "targetPort: 9377")])
    assert one(p, ImpactKind.TRAFFIC_PORT).facts == TrafficPort(ports=(
        Port(port=80, protocol="TCP", rule=PortRule.TARGET_PORT, target_before=9376, target_after=9377),))
    p = plan([SERVICE], [bump(SERVICE, "port: 80", "port: 8080")])
    assert one(p, ImpactKind.TRAFFIC_PORT).facts == TrafficPort(ports=(
        Port(port=80, protocol="TCP", rule=PortRule.REMOVED),))


def test_ingress_and_httproute_rules_removed() -> None:
    more = bump(INGRESS, "  - http:\n", "  - host: foo.bar.com\n    http:\n      paths:\n      - path: /\n"
                "        pathType: Prefix\n        backend:\n          service: {name: foo, port: {number: 80}}\n"
                "  - http:\n")
    item = one(plan([more], [INGRESS]), ImpactKind.TRAFFIC_ROUTE)
    assert item.facts == TrafficRoute(deleted=False, routes=(
        Route(route=RouteKind.INGRESS_PATH, host="foo.bar.com", path="/"),))
    item = one(plan([INGRESS], []), ImpactKind.TRAFFIC_ROUTE)
    assert item.facts == TrafficRoute(deleted=True, routes=(Route(route=RouteKind.INGRESS_PATH, path="/testpath"),))
    fewer = bump(HTTPROUTE, '  - "www.example.net"\n', "")
    fewer = bump(fewer, "value: /login", "value: /signin")
    item = one(plan([HTTPROUTE], [fewer]), ImpactKind.TRAFFIC_ROUTE)
    assert facts_of(item, TrafficRoute).routes == (
        Route(route=RouteKind.HOSTNAME, host="www.example.net"), Route(route=RouteKind.RULE, path="/login"))
    assert item.count("routes") == 2


# -- 5. data ------------------------------------------------------------------------------------------------

def test_crd_leaving_the_release_deletes_its_custom_resources() -> None:
    item = one(plan([CRD], []), ImpactKind.DATA_CRD)
    assert item.facts == DataCrd(resource_kind="CronTab", group="stable.example.com")
    kept = bump(CRD, "  name: crontabs.stable.example.com\n",
                "  name: crontabs.stable.example.com\n  annotations:\n    helm.sh/resource-policy: keep\n")
    assert not impacts(plan([kept], []))


def test_pvc_shrink_fails_and_growth_needs_expansion() -> None:
    p = plan([PVC], [bump(PVC, "storage: 8Gi", "storage: 4Gi")])
    assert one(p, ImpactKind.DATA_PVC_SHRINK).facts == PvcShrink(storage_before="8Gi", storage_after="4Gi")
    assert any(w.fails for w in p.warnings)
    grown = bump(PVC, "storage: 8Gi", "storage: 16Gi")
    item = one(plan([PVC], [grown]), ImpactKind.DATA_PVC_EXPAND)
    assert item.facts == PvcExpand(storage_before="8Gi", storage_after="16Gi", storage_class="slow",
                                   expansion=Expansion.NOT_READ)
    live_pvc = live_of(PVC)
    refused = plan([PVC], [grown], [live_pvc, obj(STORAGECLASS.format(allow="false"))])
    assert facts_of(one(refused, ImpactKind.DATA_PVC_EXPAND), PvcExpand).expansion is Expansion.REFUSED
    assert [w.code for w in refused.warnings if w.fails] == ["pvc-expand-refused"]
    assert [w.facts for w in refused.warnings if w.fails] == [
        PvcExpandRefused(storage_before="8Gi", storage_after="16Gi", storage_class="slow")]
    allowed = plan([PVC], [grown], [live_pvc, obj(STORAGECLASS.format(allow="true"))])
    assert facts_of(one(allowed, ImpactKind.DATA_PVC_EXPAND), PvcExpand).expansion is Expansion.ALLOWED
    assert not any(w.fails for w in allowed.warnings)


def test_deleted_statefulset_leaves_its_claims() -> None:
    # "Deleting and/or scaling a StatefulSet down will not delete the volumes associated with
    # the StatefulSet."
    item = one(plan([STATEFULSET], []), ImpactKind.DATA_PVC_LEFT)
    assert item.facts == PvcLeft(templates=("www",), replicas=2, claims_deleted=False)
    assert item.count("claims") == 2
    deleting = bump(STATEFULSET, "  replicas: 2\n",
                    "  replicas: 2\n  persistentVolumeClaimRetentionPolicy:\n    whenDeleted: Delete\n")
    assert facts_of(one(plan([deleting], []), ImpactKind.DATA_PVC_LEFT), PvcLeft).claims_deleted
    uninstall = make_plan(PlanRequest(Header("shop", "shop"), split_stream(STATEFULSET, "previous"),
                                      split_stream("", "desired"), action=HelmAction.UNINSTALL))
    assert one(uninstall, ImpactKind.DATA_PVC_LEFT)


# -- gates --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("gate, matches", [
    ("restart", True), ("restart:deployment", True), ("restart:deploy", True), ("restart:statefulset", False),
    ("restart:sts", False), ("no-restart", False), ("config-unreached", False), ("traffic", False),
])
def test_impact_gates(gate: str, matches: bool) -> None:
    p = plan([DEPLOYMENT], [bump(DEPLOYMENT, "nginx:1.14.2", "nginx:1.16.1")])
    assert bool(check_gates(p, [parse_gate(gate)])) is matches


# -- what is read for the impact ------------------------------------------------------------------------

def test_the_live_read_adds_hpas_and_storage_classes_without_making_them_drift_gaps() -> None:
    stream = split_stream("---\n".join([DEPLOYMENT, PVC]), "desired")
    assert live_scope([stream], "shop") == [
        ("apps/v1", "Deployment", "shop"), ("v1", "PersistentVolumeClaim", "shop"),
        ("autoscaling/v2", "HorizontalPodAutoscaler", "shop"), ("storage.k8s.io/v1", "StorageClass", "")]
    # An HPA or StorageClass that cannot be read leaves the impact unjudged, never the check partial.
    gaps = (LiveGap("autoscaling/v2", "HorizontalPodAutoscaler", "shop", "forbidden"),
            LiveGap("storage.k8s.io/v1", "StorageClass", "", "forbidden"))
    snapshot = LiveSnapshot(True, (live_of(DEPLOYMENT), live_of(PVC)), gaps, requests=4)
    grown = bump(PVC, "storage: 8Gi", "storage: 16Gi")
    p = make_plan(PlanRequest(Header("shop", "shop"), split_stream("---\n".join([DEPLOYMENT, PVC]), "previous"),
                              split_stream("---\n".join([DEPLOYMENT, grown]), "desired"), live=snapshot,
                              live_source="cluster"))
    assert p.live.status is LiveStatus.CHECKED and p.live.unreadable == ()
    assert facts_of(one(p, ImpactKind.DATA_PVC_EXPAND), PvcExpand).expansion is Expansion.NOT_READ
    # A release that declares the kind itself still reports its gap.
    with_hpa = split_stream("---\n".join([PHP_APACHE, HPA]), "desired")
    p = make_plan(PlanRequest(Header("shop", "shop"), with_hpa, with_hpa, live=snapshot, live_source="cluster"))
    assert p.live.status is LiveStatus.PARTIAL


def test_default_storage_class_judges_a_claim_without_one() -> None:
    claim = bump(PVC, "  storageClassName: slow\n", "")
    default = obj(STORAGECLASS.format(allow="false"))
    default["metadata"]["annotations"] = {"storageclass.kubernetes.io/is-default-class": "true"}
    p = plan([claim], [bump(claim, "storage: 8Gi", "storage: 16Gi")], [live_of(claim), default])
    assert one(p, ImpactKind.DATA_PVC_EXPAND).facts == PvcExpand(
        storage_before="8Gi", storage_after="16Gi", storage_class="slow", expansion=Expansion.REFUSED)


def test_odd_shapes_are_judged_not_crashed_on() -> None:
    # Whatever a template renders, the impact is derived or left out: never an internal error.
    odd_service = bump(SERVICE, "    - protocol: TCP\n      port: 80\n", "    - protocol: TCP\n      port: [80]\n")
    assert plan([SERVICE], [odd_service]).impact
    huge = bump(STATEFULSET, "  replicas: 2\n", "  replicas: 1000000000\n")
    item = one(plan([huge], []), ImpactKind.DATA_PVC_LEFT)
    assert item.count("claims") == 1_000_000_000
    assert item.facts == PvcLeft(templates=("www",), replicas=1_000_000_000, claims_deleted=False)
    odd_pod = bump(CONSUMER, "          env:\n", "          env: [7, {valueFrom: 3}, {name: X, valueFrom: {configMapKeyRef: 5}}]\n"
                   "          unused:\n")
    odd_pod = bump(odd_pod, "      volumes:\n", "      volumes: [1, {name: v, projected: {sources: [2]}}]\n      unusedVolumes:\n")
    new = bump(CONFIGMAP, 'player_initial_lives: "3"', 'player_initial_lives: "5"')
    assert plan([CONFIGMAP, odd_pod], [new, odd_pod]) is not None
    strategy = bump(DEPLOYMENT, "  replicas: 3\n", "  replicas: 3\n  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: [1], maxUnavailable: 1.5}}\n")
    item = one(plan([strategy], [bump(strategy, "nginx:1.14.2", "nginx:1.16.1")]), ImpactKind.RESTART)
    rolled = facts_of(item, Restart)
    assert (rolled.max_surge, rolled.max_unavailable, rolled.surge_pods, rolled.unavailable_pods) == (
        "[1]", "1.5", None, None)


def test_an_ignored_change_takes_its_impact_with_it() -> None:
    p = plan([DEPLOYMENT], [bump(DEPLOYMENT, "nginx:1.14.2", "nginx:1.16.1")])
    assert one(p, ImpactKind.RESTART)
    ignored = apply_ignore(p, [parse_flag("{paths: [/spec/template], target: {kind: Deployment}}", 1)])
    assert ignored.summary.ignored == 1 and ignored.impact == ()


# -- the JSON plan ------------------------------------------------------------------------------------------

def test_impacts_are_saved_with_their_facts_and_read_back() -> None:
    new = bump(CONFIGMAP, 'player_initial_lives: "3"', 'player_initial_lives: "5"')
    p = plan([CONFIGMAP, CONSUMER, PHP_APACHE, HPA, STATEFULSET], [new, CONSUMER, PHP_APACHE, HPA])
    assert {i.kind for i in p.impact} == {ImpactKind.CONFIG_UNREACHED, ImpactKind.REPLICAS_RESET, ImpactKind.DATA_PVC_LEFT}
    text = render_json(p)
    doc = json.loads(text)
    read = plan_of(doc)
    assert read.impact == p.impact and render_json(read) == text
    item = doc["impact"][0]
    assert item["facts"]["consumers"][0]["reads"][0] == {"container": "demo", "how": "env", "name": "PLAYER_INITIAL_LIVES"}
    # A plan without facts (an older one, or a kind this version does not know) keeps the words as written.
    for impact in doc["impact"]:
        del impact["facts"]
    doc["impact"][1]["kind"] = "traffic-stolen"
    older = plan_of(doc)
    assert [(i.facts, words_impact.message(i), words_impact.details(i)) for i in older.impact] == [
        (None, i["message"], tuple(i["details"])) for i in doc["impact"]]
    assert older.impact[1].kind.family == "traffic"


def test_a_plan_refuses_an_impact_holding_the_facts_of_another_kind() -> None:
    claim = ResourceRef("v1", "PersistentVolumeClaim", "shop", "data")
    wrong = Impact(ImpactKind.DATA_PVC_EXPAND, claim, facts=PvcShrink(storage_before="2Gi", storage_after="1Gi"))
    with pytest.raises(ValueError, match="impact data-pvc-expand on PersistentVolumeClaim shop/data holds the facts of "
                                         "data-pvc-shrink"):
        build_plan(Header("shop", "shop", revision=2, previous_revision=1), HelmAction.UPGRADE, impact=[wrong])


# -- values the chart regenerates on every render (core/regenerated.py) --------------------------------

# A bitnami-style Secret with a password made by randAlphaNum, a Deployment whose template
# carries its checksum (rolling whenever it changes), and one that reads it without one.
REGEN_SECRET = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: {password}\n  user: YWRtaW4=\n"
REGEN_WEB = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata:
      labels: {{app: web}}
      annotations: {{checksum/secret: {checksum}}}
    spec:
      containers:
      - name: web
        image: nginx:{tag}
        env: [{{name: PASSWORD, valueFrom: {{secretKeyRef: {{name: db, key: password}}}}}}]
"""
REGEN_WORKER = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: worker
spec:
  selector: {matchLabels: {app: worker}}
  template:
    metadata:
      labels: {app: worker}
    spec:
      containers:
      - name: worker
        image: busybox
        env: [{name: PASSWORD, valueFrom: {secretKeyRef: {name: db, key: password}}}]
"""


def _regenerated_plan(tag_before: str, tag_after: str) -> Plan:
    """Previous render, desired render and a second desired render of the same inputs: the
    password and its checksum differ in each."""
    def render(password: str, checksum: str, tag: str) -> list[str]:
        return [REGEN_SECRET.format(password=password), REGEN_WEB.format(checksum=checksum, tag=tag), REGEN_WORKER]
    again = split_stream("---\n".join(render("Y2NjYw==", "ccc", tag_after)), "desired")
    return plan(render("YWFhYQ==", "aaa", tag_before), render("YmJiYg==", "bbb", tag_after),
                desired_again=again, render_window=(0.0, 1.0))


def test_a_change_only_of_regenerated_values_is_said_with_its_caveat_and_matches_no_gate() -> None:
    p = _regenerated_plan("1", "1")
    rolled = facts_of(one(p, ImpactKind.RESTART), Restart)
    # The template changes only by the checksum of a regenerated password: no real rollout.
    assert rolled.regenerated is True
    assert (rolled.checksums, rolled.regenerated_checksums) == ((), ("checksum/secret",))
    assert (rolled.reads, [str(r) for r in rolled.regenerated_reads]) == ((), ["Secret shop/db"])
    unreached = facts_of(one(p, ImpactKind.CONFIG_UNREACHED), ConfigUnreached)
    assert unreached.regenerated is True and [str(c.workload) for c in unreached.consumers] == ["Deployment shop/worker"]
    assert all(i.regenerated for i in p.impact)
    for gate in ("restart", "restart:deployment", "config-unreached"):
        assert not check_gates(p, [parse_gate(gate)]), gate
    assert impact_words.impact_summary(p.impact) == (
        "Impact: 2 impacts only by values the chart regenerates on every render, if the upgrade makes them anew.")


def test_a_real_change_still_rolls_and_keeps_the_regenerated_reasons_apart() -> None:
    p = _regenerated_plan("1", "2")
    item = one(p, ImpactKind.RESTART)
    rolled = facts_of(item, Restart)
    assert rolled.regenerated is False and not item.regenerated
    assert (rolled.checksums, rolled.regenerated_checksums) == ((), ("checksum/secret",))
    assert [str(r) for r in rolled.regenerated_reads] == ["Secret shop/db"] and rolled.reads == ()
    assert check_gates(p, [parse_gate("restart")])
    assert not check_gates(p, [parse_gate("config-unreached")])
    assert impact_words.impact_summary(p.impact) == (
        "Impact: 1 workload restarts (1 pod), and 1 more only by values the chart regenerates on every render, "
        "if the upgrade makes them anew.")
    # Without the second render nothing is known to be regenerated: every claim is a real one.
    plain = plan([REGEN_SECRET.format(password="YWFhYQ=="), REGEN_WEB.format(checksum="aaa", tag="1"), REGEN_WORKER],
                 [REGEN_SECRET.format(password="YmJiYg=="), REGEN_WEB.format(checksum="bbb", tag="1"), REGEN_WORKER])
    assert not any(i.regenerated for i in plain.impact) and len(plain.impact) == 2
    assert facts_of(one(plain, ImpactKind.RESTART), Restart).checksums == ("checksum/secret",)
