"""Rollouts judged by what the pods read (core/impact/rollouts.py, core/impact/config.py): which
inputs a checksum annotation hashes and what moved it, the keys a pod reads, a workload with no
replica, and a count an HPA decides. Minimal charts of our own, in the shapes real charts have
(issue 45 points 1, 4, 5, 6 and 7): a Secret holding both a values file and generated tokens, a
checksum of a template hashed whole with its chart label, a proxy reading one key of a Secret,
a placeholder StatefulSet at 0 replicas, a Deployment an HPA scales."""
from __future__ import annotations

import base64
from typing import TypeVar

from builders import plan
from deployah_plan.core.gates import check_gates, parse_gate
from deployah_plan.impact_facts import ConfigUnreached, DeferredRestart, Restart
from deployah_plan.impacts import ImpactKind
from deployah_plan.manifests import split_stream
from deployah_plan.model import Impact, Plan
from deployah_plan.render.words import impact as words

_F = TypeVar("_F")


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def only(p: Plan, kind: ImpactKind) -> Impact:
    found = [i for i in p.impact if i.kind is kind]
    assert len(found) == 1, [(i.kind, str(i.resource)) for i in p.impact]
    return found[0]


def facts_of(item: Impact, cls: type[_F]) -> _F:
    assert isinstance(item.facts, cls), item.facts
    return item.facts


def source(path: str, doc: str) -> str:
    return f"# Source: {path}\n{doc}"


# -- point 1: a checksum of a Secret that holds real config and generated tokens ------------------

HUB_SECRET = """\
apiVersion: v1
kind: Secret
metadata:
  name: hub
data:
  token: {token}
  values.yaml: {values}
"""
HUB = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: hub
spec:
  strategy: {{type: Recreate}}
  selector: {{matchLabels: {{app: hub}}}}
  template:
    metadata:
      labels: {{app: hub}}
      annotations: {{checksum/secret: {checksum}}}
    spec:
      containers:
      - name: hub
        image: hub:1
        volumeMounts: [{{name: config, mountPath: /usr/local/etc/hub}}]
      volumes:
      - name: config
        secret: {{secretName: hub}}
"""
PROXY = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: proxy
spec:
  selector: {{matchLabels: {{app: proxy}}}}
  template:
    metadata:
      labels: {{app: proxy}}
    spec:
      containers:
      - name: proxy
        image: proxy:{tag}
        env: [{{name: AUTH_TOKEN, valueFrom: {{secretKeyRef: {{name: hub, key: token}}}}}}]
"""


def _hub_plan(values_before: str, values_after: str, proxy_tag: str = "1", values_again: str | None = None) -> Plan:
    """The hub Secret's token is generated anew on every render, so is the checksum of the whole
    Secret; its values file changes only as the inputs say (and as `values_again` renders it again)."""
    def render(token: str, values: str, checksum: str, tag: str) -> list[str]:
        return [HUB_SECRET.format(token=b64(token), values=b64(values)), HUB.format(checksum=checksum),
                PROXY.format(tag=tag)]
    again = split_stream("---\n".join(render("token-c", values_again or values_after, "ccc", proxy_tag)), "desired")
    return plan(render("token-a", values_before, "aaa", "1"), render("token-b", values_after, "bbb", proxy_tag),
                desired_again=again, render_window=(0.0, 1.0))


def test_a_checksum_is_regenerated_only_when_every_input_it_hashes_changes_only_so() -> None:
    # Issue 45 point 1: the values file really changes, the token only regenerates; the checksum
    # of the whole Secret moves for both, so the hub restarts for real (Recreate).
    p = _hub_plan("team: a\n", "team: data\n")
    item = only(p, ImpactKind.RESTART)
    assert item.resource.name == "hub"
    rolled = facts_of(item, Restart)
    assert (rolled.regenerated, rolled.checksums, rolled.regenerated_checksums) == (False, ("checksum/secret",), ())
    assert [str(r) for r in rolled.reads] == ["Secret shop/hub"] and rolled.regenerated_reads == ()
    assert check_gates(p, [parse_gate("restart")])
    assert words.message(item) == "Deployment shop/hub: pod template changes: 1 pod restarts"
    assert "its checksum annotation changed (checksum/secret): the rollout is how the new config reaches the pods" \
        in words.details(item)
    # The same chart with the same values: only the token moves the checksum.
    same = facts_of(only(_hub_plan("team: a\n", "team: a\n"), ImpactKind.RESTART), Restart)
    assert (same.regenerated, same.checksums, same.regenerated_checksums) == (True, (), ("checksum/secret",))


def test_a_file_holding_a_generated_line_and_a_changed_one_really_changes() -> None:
    # One key holds both: the generated line differs between two renders of the same inputs, the
    # team line only as the inputs say. Its other lines tell the real change apart.
    def values(token: str, team: str) -> str:
        return f"proxy:\n  token: {token}\ncustom:\n  team: {team}\n"
    p = _hub_plan(values("t-a", "a"), values("t-b", "data"), values_again=values("t-c", "data"))
    secret = next(c for c in p.changes if c.resource.kind == "Secret")
    assert [(f.path, f.regenerated) for f in secret.fields] == [("/data/token", True), ("/data/values.yaml", False)]
    rolled = facts_of(only(p, ImpactKind.RESTART), Restart)
    assert (rolled.checksums, rolled.regenerated) == (("checksum/secret",), False)
    # The same inputs: only the generated line moves, and the file changes only by regeneration.
    p = _hub_plan(values("t-a", "a"), values("t-b", "a"), values_again=values("t-c", "a"))
    secret = next(c for c in p.changes if c.resource.kind == "Secret")
    assert all(f.regenerated for f in secret.fields)
    assert facts_of(only(p, ImpactKind.RESTART), Restart).regenerated


def test_a_pod_is_judged_by_the_keys_it_reads() -> None:
    # Issue 45 point 6: the proxy reads the token only, which regenerates; the values file it
    # does not read really changes. Its own image changes, so it restarts.
    p = _hub_plan("team: a\n", "team: data\n", proxy_tag="2")
    proxy = next(i for i in p.impact if i.resource.name == "proxy")
    rolled = facts_of(proxy, Restart)
    assert rolled.reads == () and [str(r) for r in rolled.regenerated_reads] == ["Secret shop/hub"]
    # Without a rollout of its own, the proxy is not told a real change it does not read.
    p = _hub_plan("team: a\n", "team: data\n")
    assert not [i for i in p.impact if i.kind is ImpactKind.CONFIG_UNREACHED]
    assert [i.resource.name for i in p.impact] == ["hub"]


CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: "{mode}"
  level: "{level}"
  extra: "{extra}"
"""
READER = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: reader
spec:
  selector: {matchLabels: {app: reader}}
  template:
    metadata:
      labels: {app: reader}
    spec:
      containers:
      - name: reader
        image: reader:1
        env: [{name: MODE, valueFrom: {configMapKeyRef: {name: settings, key: mode}}}]
        volumeMounts: [{name: files, mountPath: /etc/reader}]
      volumes:
      - name: files
        projected:
          sources:
          - configMap: {name: settings, items: [{key: level, path: level}]}
"""


def test_config_unreached_names_only_readers_of_the_keys_that_change() -> None:
    def settings(mode: str = "a", level: str = "1", extra: str = "x") -> str:
        return CONFIGMAP.format(mode=mode, level=level, extra=extra)
    # Only a key no container reads changes: nobody is told of it.
    assert not plan([settings(), READER], [settings(extra="y"), READER]).impact
    # The key of the projected volume's items: read as files, after the kubelet's sync.
    item = only(plan([settings(), READER], [settings(level="2"), READER]), ImpactKind.CONFIG_UNREACHED)
    assert [r.name for r in facts_of(item, ConfigUnreached).consumers[0].reads] == ["/etc/reader"]
    assert item.count("never_updated") == 0
    # The env variable's key: read once, when the container starts.
    item = only(plan([settings(), READER], [settings(mode="b"), READER]), ImpactKind.CONFIG_UNREACHED)
    assert [r.name for r in facts_of(item, ConfigUnreached).consumers[0].reads] == ["MODE"]
    assert item.count("never_updated") == 1


# -- point 5: a checksum moved by what is not data ------------------------------------------------

LABELLED = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: db-configuration
  labels: {{helm.sh/chart: db-{version}}}
data:
  my.cnf: "[mysqld]\\nport=3306\\n"
"""
DB = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  replicas: 1
  serviceName: db
  selector: {{matchLabels: {{app: db}}}}
  template:
    metadata:
      labels: {{app: db}}
      annotations: {{checksum/configuration: {checksum}}}
    spec:
      containers:
      - name: db
        image: db:{version}
        volumeMounts: [{{name: config, mountPath: /opt/my.cnf, subPath: my.cnf}}]
      volumes:
      - name: config
        configMap: {{name: db-configuration}}
"""


def test_a_checksum_moved_only_by_the_chart_label_says_so() -> None:
    # Issue 45 point 5: the template hashed whole carries the chart's label; its data is the same.
    p = plan([LABELLED.format(version="1"), DB.format(checksum="aaa", version="1")],
             [LABELLED.format(version="2"), DB.format(checksum="bbb", version="2")])
    item = only(p, ImpactKind.RESTART)
    rolled = facts_of(item, Restart)
    assert (rolled.checksums, rolled.regenerated_checksums, rolled.other_checksums) == (
        (), (), ("checksum/configuration",))
    assert [str(r) for r in rolled.hashed_metadata] == ["ConfigMap shop/db-configuration"] and rolled.reads == ()
    assert not rolled.regenerated  # the restart is real: the template changes
    assert words.details(item)[1:] == (
        "its checksum annotation changed (checksum/configuration) while the data its pods read of what it hashes "
        "did not: only the metadata of ConfigMap shop/db-configuration changes (labels such as the chart's "
        "version, hashed with the data)",)
    assert not any("new config reaches" in line for line in words.details(item))


OPERATOR = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: operator
spec:
  selector: {{matchLabels: {{app: operator}}}}
  template:
    metadata:
      labels: {{app: operator}}
      annotations: {{checksum/config: {checksum}}}
    spec:
      containers: [{{name: operator, image: operator:1}}]
"""
OWN_CONFIG = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  setting: \"{value}\"\n"


def test_a_checksum_of_a_workload_that_reads_no_config_hashes_its_own_charts() -> None:
    # An operator reads its ConfigMap through the API: its checksum hashes its chart's ConfigMaps,
    # not those of a subchart.
    def render(own: str, sub: str, checksum: str) -> list[str]:
        return [source("shop/templates/config.yaml", OWN_CONFIG.format(name="operator-config", value=own)),
                source("shop/charts/cache/templates/config.yaml", OWN_CONFIG.format(name="cache", value=sub)),
                source("shop/templates/operator.yaml", OPERATOR.format(checksum=checksum))]
    rolled = facts_of(only(plan(render("a", "a", "1"), render("b", "a", "2")), ImpactKind.RESTART), Restart)
    assert (rolled.checksums, rolled.other_checksums) == (("checksum/config",), ())
    item = only(plan(render("a", "a", "1"), render("a", "b", "2")), ImpactKind.RESTART)
    rolled = facts_of(item, Restart)
    assert (rolled.checksums, rolled.other_checksums) == ((), ("checksum/config",))
    assert [str(r) for r in rolled.hashed] == ["ConfigMap shop/operator-config"] and not rolled.hashed_metadata
    assert words.details(item)[1] == (
        "its checksum annotation changed (checksum/config), but nothing it hashes changes (ConfigMap "
        "shop/operator-config): what moved it (a value or a file of the chart) is not in the release's objects")


# -- point 7: no replica, no restart --------------------------------------------------------------

PLACEHOLDER = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: user-placeholder
spec:
  replicas: 0
  serviceName: user-placeholder
  selector: {{matchLabels: {{app: placeholder}}}}
  template:
    metadata:
      labels: {{app: placeholder}}
    spec:
      containers: [{{name: pause, image: "pause:{tag}"}}]
"""


def test_a_workload_at_zero_replicas_restarts_no_pod() -> None:
    p = plan([PLACEHOLDER.format(tag="3.9")], [PLACEHOLDER.format(tag="3.10")])
    item = only(p, ImpactKind.DEFERRED_RESTART)
    rolled = facts_of(item, DeferredRestart)
    assert (rolled.pods, rolled.replicas, item.count("pods")) == (0, 0, 0)
    assert words.message(item) == (
        "StatefulSet shop/user-placeholder: pod template changes, but no pod restarts now (0 replicas)")
    assert words.details(item) == ("no pod runs at 0 replicas: the pods it is scaled up to start with the new template",)
    assert not check_gates(p, [parse_gate("restart")])
    assert words.impact_summary(p.impact) == "Impact: 1 pod-template change waits for pods to be deleted or resumed."


# -- point 4: a count an HPA decides ----------------------------------------------------------------

SCALED = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: istiod
spec:
  selector: {{matchLabels: {{app: istiod}}}}
  template:
    metadata:
      labels: {{app: istiod}}
    spec:
      containers: [{{name: discovery, image: "pilot:{tag}"}}]
"""
SCALER = """\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: istiod
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: istiod}
  maxReplicas: 5
"""


def test_an_hpa_scaled_workload_of_unknown_count_is_not_said_per_node() -> None:
    p = plan([SCALED.format(tag="1.29"), SCALER], [SCALED.format(tag="1.30"), SCALER])
    item = only(p, ImpactKind.RESTART)
    rolled = facts_of(item, Restart)
    assert (rolled.pods, rolled.hpa_min, rolled.hpa_max) == (None, 1, 5)  # minReplicas defaults to 1
    summary = words.impact_summary(p.impact)
    assert summary == "Impact: 1 workload restarts (as many pods as its HPA runs, 1 to 5)."
    assert "per node" not in summary + words.message(item) + "".join(words.details(item))
    assert words.message(item) == (
        "Deployment shop/istiod: pod template changes: its pods restart (scaled by HorizontalPodAutoscaler "
        "shop/istiod (1 to 5))")


def _in(namespace: str, doc: str) -> str:
    return doc.replace("metadata:\n", f"metadata:\n  namespace: {namespace}\n", 1)


def test_a_workload_is_judged_by_the_config_of_its_own_namespace() -> None:
    """The changed ConfigMaps and Secrets are found by namespace once for every workload judged
    (a scan of all of them per workload grew with their product): a ConfigMap of the same name
    in another namespace is not what the pod reads."""
    def objects(mode: str, tag: str) -> list[str]:
        return [_in("a", CONFIGMAP.format(mode=mode, level="1", extra="x")),
                _in("b", CONFIGMAP.format(mode="same", level="1", extra="x")),
                *(_in(ns, READER.replace("reader:1", f"reader:{tag}")) for ns in ("a", "b"))]

    p = plan(objects("old", "1"), objects("new", "2"))
    reads = {str(i.resource): [str(r) for r in facts_of(i, Restart).reads] for i in p.impact if i.kind is ImpactKind.RESTART}
    assert reads == {"Deployment a/reader": ["ConfigMap a/settings"], "Deployment b/reader": []}
