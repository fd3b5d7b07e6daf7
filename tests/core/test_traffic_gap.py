"""A Service whose new selector meets none of the running pods (issue 45 point 2).

Helm applies a release's objects in its install order, Services before DaemonSets, Deployments
and StatefulSets: a Service whose selector names a label the chart bumps on every release
(`helm.sh/chart`, as kong's metrics and webhook Services do) is updated while the pods of the
previous template still run, carrying the old value, so it has no endpoints until a new pod is
ready. A Service whose selector does not change keeps the running pods until they are replaced.
The objects are minimal ones of our own, in the shape of that chart.
"""
from __future__ import annotations

import json

from builders import live_of, plan
from deployah_plan.core.gates import check_gates, parse_gate
from deployah_plan.impact_facts import SelectorLabel, TrafficGap
from deployah_plan.impacts import ImpactKind
from deployah_plan.model import Impact, Plan
from deployah_plan.planfile.read import plan_of
from deployah_plan.planfile.write import render as render_json
from deployah_plan.render import markdown, text
from deployah_plan.render.words import impact as impact_words

SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: gw-metrics
  labels:
    helm.sh/chart: gw-1.0.0
spec:
  selector:
    app.kubernetes.io/name: gw
    helm.sh/chart: gw-1.0.0
  ports:
  - name: metrics
    port: 10255
"""
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: gw
  labels:
    helm.sh/chart: gw-1.0.0
spec:
  replicas: 2
  selector:
    matchLabels:
      app.kubernetes.io/name: gw
  template:
    metadata:
      labels:
        app.kubernetes.io/name: gw
        helm.sh/chart: gw-1.0.0
    spec:
      containers:
      - name: proxy
        image: gw:1.0.0
"""
STATEFULSET = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: gw
spec:
  replicas: 1
  serviceName: gw
  updateStrategy:
    type: OnDelete
  selector:
    matchLabels:
      app.kubernetes.io/name: gw
  template:
    metadata:
      labels:
        app.kubernetes.io/name: gw
        helm.sh/chart: gw-1.0.0
    spec:
      containers:
      - name: proxy
        image: gw:1.0.0
"""


def bumped(*docs: str) -> list[str]:
    return [d.replace("gw-1.0.0", "gw-1.0.1") for d in docs]


def traffic(p: Plan) -> list[Impact]:
    return [i for i in p.impact if i.kind.family == "traffic"]


def gap(p: Plan) -> TrafficGap:
    found = traffic(p)
    assert [i.kind for i in found] == [ImpactKind.TRAFFIC_GAP], [i.kind for i in found]
    assert isinstance(found[0].facts, TrafficGap)
    return found[0].facts


def test_a_selector_on_the_chart_label_loses_the_running_pods_until_new_ones_are_ready() -> None:
    p = plan([SERVICE, DEPLOYMENT], bumped(SERVICE, DEPLOYMENT))
    facts = gap(p)
    assert [str(r) for r in facts.running] == ["Deployment shop/gw"]
    assert [str(r) for r in facts.serving] == ["Deployment shop/gw"]
    assert facts.labels == (SelectorLabel(key="helm.sh/chart", running="gw-1.0.0", selected="gw-1.0.1"),)
    assert (facts.waiting, facts.live) == ((), False)
    # Not the kinds that say which workloads it matches: the same one, before and after.
    assert not [i for i in p.impact if i.kind in (ImpactKind.TRAFFIC_UNMATCHED, ImpactKind.TRAFFIC_MOVED)]
    assert check_gates(p, [parse_gate("traffic")])
    assert check_gates(p, [parse_gate("traffic-gap")])


def test_it_is_said_plainly_in_every_writer() -> None:
    p = plan([SERVICE, DEPLOYMENT], bumped(SERVICE, DEPLOYMENT))
    item = traffic(p)[0]
    line = ("Service shop/gw-metrics: its new selector matches none of the running pods of Deployment shop/gw "
            "(they carry helm.sh/chart=gw-1.0.0, it selects helm.sh/chart=gw-1.0.1): Helm applies Services before "
            "workloads, so it has no endpoints until a new pod of Deployment shop/gw is ready")
    assert impact_words.message(item) == line
    assert impact_words.details(item) == (
        "the running pods: those of the previous release's pod templates; they keep their labels until they are "
        "replaced", "during the rollout only the new pods serve it")
    assert "1 traffic risk" in impact_words.impact_summary(p.impact)
    assert line in text.render(p)
    assert "its new selector matches none of the running pods" in markdown.render(p)
    doc = json.loads(render_json(p))
    [said] = [i for i in doc["impact"] if i["kind"] == "traffic-gap"]
    assert said["message"] == line
    assert said["facts"]["labels"] == [{"key": "helm.sh/chart", "running": "gw-1.0.0", "selected": "gw-1.0.1"}]
    assert plan_of(doc).impact == p.impact


def test_a_label_the_running_pods_lack() -> None:
    service = SERVICE.replace("    helm.sh/chart: gw-1.0.0\n  ports", "  ports")
    new_service = service.replace("  ports", "    app.kubernetes.io/version: \"2\"\n  ports")
    new_deployment = DEPLOYMENT.replace("        helm.sh/chart", "        app.kubernetes.io/version: \"2\"\n        helm.sh/chart")
    facts = gap(plan([service, DEPLOYMENT], [new_service, new_deployment]))
    assert facts.labels == (SelectorLabel(key="app.kubernetes.io/version", running=None, selected="2"),)
    item = traffic(plan([service, DEPLOYMENT], [new_service, new_deployment]))[0]
    assert "(they lack app.kubernetes.io/version, it selects app.kubernetes.io/version=2)" in impact_words.message(item)


def test_the_same_selector_keeps_the_running_pods_until_they_are_replaced() -> None:
    # Only the pods' labels change (a version the selector does not name): old pods serve until
    # the new ones do; nothing is at risk.
    service = SERVICE.replace("    helm.sh/chart: gw-1.0.0\n  ports", "  ports")
    assert not traffic(plan([service, DEPLOYMENT], [service, *bumped(DEPLOYMENT)]))


def test_a_new_selector_that_keeps_matching_the_running_pods() -> None:
    # The selector drops the chart label: the running pods still match.
    service = SERVICE.replace("    helm.sh/chart: gw-1.0.0\n  ports", "  ports")
    assert not traffic(plan([SERVICE, DEPLOYMENT], [service, *bumped(DEPLOYMENT)]))


def test_no_running_pods_no_gap() -> None:
    idle = DEPLOYMENT.replace("replicas: 2", "replicas: 0")
    assert not traffic(plan([SERVICE, idle], bumped(SERVICE, idle)))


def test_the_live_pod_templates_are_the_running_pods() -> None:
    # The live template already carries the new value (it was changed by hand): no gap.
    ahead = live_of(DEPLOYMENT.replace("gw-1.0.0", "gw-1.0.1"))
    assert not traffic(plan([SERVICE, DEPLOYMENT], bumped(SERVICE, DEPLOYMENT), [live_of(SERVICE), ahead]))
    # As the release says: the gap, judged on the live pods.
    facts = gap(plan([SERVICE, DEPLOYMENT], bumped(SERVICE, DEPLOYMENT), [live_of(SERVICE), live_of(DEPLOYMENT)]))
    assert facts.live
    # Scaled to 0 live: nothing ran, nothing is lost.
    idle = live_of(DEPLOYMENT, spec={"replicas": 0})
    assert not traffic(plan([SERVICE, DEPLOYMENT], bumped(SERVICE, DEPLOYMENT), [live_of(SERVICE), idle]))


def test_a_workload_whose_pods_wait_keeps_the_service_without_endpoints() -> None:
    p = plan([SERVICE, STATEFULSET], bumped(SERVICE, STATEFULSET))
    facts = gap(p)
    assert [str(r) for r in facts.waiting] == ["StatefulSet shop/gw"]
    assert impact_words.details(traffic(p)[0])[-1] == (
        "StatefulSet shop/gw does not replace its pods now (OnDelete, paused or a partition): the Service has no "
        "endpoints until they are replaced (its line above says how)")


def test_a_selector_that_matches_no_workload_after_is_unmatched_not_a_gap() -> None:
    p = plan([SERVICE, DEPLOYMENT], [*bumped(SERVICE), DEPLOYMENT])
    assert [i.kind for i in traffic(p)] == [ImpactKind.TRAFFIC_UNMATCHED]


def test_a_selector_moved_to_a_new_workload_is_moved_and_a_gap() -> None:
    # The Service now selects the pods of a workload this upgrade creates: none of them runs
    # when Helm applies the Service, so it serves nothing until they are ready.
    service = SERVICE.replace("    helm.sh/chart: gw-1.0.0\n  ports", "  ports")
    moved = service.replace("app.kubernetes.io/name: gw\n  ports", "app.kubernetes.io/name: gw2\n  ports")
    p = plan([service, DEPLOYMENT], [moved, DEPLOYMENT, STATEFULSET.replace("name: gw", "name: gw2")])
    assert [i.kind for i in traffic(p)] == [ImpactKind.TRAFFIC_MOVED, ImpactKind.TRAFFIC_GAP]
    facts = traffic(p)[1].facts
    assert isinstance(facts, TrafficGap)
    assert ([str(r) for r in facts.running], [str(r) for r in facts.serving]) == (
        ["Deployment shop/gw"], ["StatefulSet shop/gw2"])
    assert facts.labels == (SelectorLabel(key="app.kubernetes.io/name", running="gw", selected="gw2"),)


def test_a_service_selects_pods_of_its_own_namespace_only() -> None:
    # The running pods of another namespace that carry the new value are not its endpoints.
    elsewhere = DEPLOYMENT.replace("  name: gw\n", "  name: gw\n  namespace: other\n").replace("gw-1.0.0", "gw-1.0.1")
    p = plan([SERVICE, DEPLOYMENT, elsewhere], [*bumped(SERVICE, DEPLOYMENT), elsewhere])
    assert [str(r) for r in gap(p).running] == ["Deployment shop/gw"]
