"""The corpus tier's reference for restarts, traffic and config (tests/judgments.py), on objects
made here in the shapes the corpus charts have: each judgment it makes, and the rules it rests on."""
from __future__ import annotations

import base64
import copy
from typing import Any

from judgments import Identity, Objects, judge, reads

NS = "corpus"


def _ident(obj: dict[str, Any]) -> Identity:
    return str(obj["apiVersion"]).rpartition("/")[0], obj["kind"], NS, obj["metadata"]["name"]


def _objects(*objs: dict[str, Any]) -> Objects:
    return {_ident(o): copy.deepcopy(o) for o in objs}


def deployment(name: str, labels: dict[str, str] | None = None, annotations: dict[str, str] | None = None,
               replicas: int | None = 1, kind: str = "Deployment", **pod: Any) -> dict[str, Any]:
    labels = labels or {"app": name}
    spec: dict[str, Any] = {"selector": {"matchLabels": labels}, "template": {
        "metadata": {"labels": labels, "annotations": annotations or {}},
        "spec": {"containers": [{"name": "main", "image": "app:1"}], **pod}}}
    if replicas is not None:
        spec["replicas"] = replicas
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": name}, "spec": spec}


def secret(name: str, **data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name},
            "data": {k: base64.b64encode(v.encode()).decode() for k, v in data.items()}}


def configmap(name: str, labels: dict[str, str] | None = None, **data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": labels or {}}, "data": data}


def service(name: str, selector: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": {"selector": selector}}


W = ("apps", "Deployment", NS, "hub")


def test_a_checksum_that_regenerates_is_real_when_a_key_it_plausibly_hashes_really_changes() -> None:
    # jupyterhub's hub: `checksum/secret` hashes the whole Secret, whose values.yaml changes and
    # whose token regenerates.
    volume = [{"name": "config", "secret": {"secretName": "hub"}}]
    before = _objects(secret("hub", **{"values.yaml": "a: 1", "token": "x1"}),
                      deployment("hub", annotations={"checksum/secret": "h1"}, volumes=volume))
    after = _objects(secret("hub", **{"values.yaml": "a: 2", "token": "x2"}),
                     deployment("hub", annotations={"checksum/secret": "h2"}, volumes=volume))
    again = _objects(secret("hub", **{"values.yaml": "a: 2", "token": "x3"}),
                     deployment("hub", annotations={"checksum/secret": "h3"}, volumes=volume))
    work = judge(before, after, again, {}).workloads[W]
    assert work.restarts and work.config_checksums == {"checksum/secret"}
    assert work.reads_changed == {("", "Secret", NS, "hub")}
    # The same Secret with only its token new: the checksum changes only by regeneration.
    after = _objects(secret("hub", **{"values.yaml": "a: 1", "token": "x2"}),
                     deployment("hub", annotations={"checksum/secret": "h2"}, volumes=volume))
    work = judge(before, after, again, {}).workloads[W]
    assert work.changed and not work.real and work.regenerated_checksums == {"checksum/secret"}
    assert work.reads_regenerated == {("", "Secret", NS, "hub")} and not work.reads_changed


def test_a_pod_is_judged_by_the_keys_it_reads() -> None:
    # jupyterhub's proxy reads only the token of Secret hub, which regenerates.
    env = [{"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "hub", "key": "token"}}}]
    pod = deployment("proxy")
    pod["spec"]["template"]["spec"]["containers"][0]["env"] = env
    before = _objects(secret("hub", **{"values.yaml": "a: 1", "token": "x1"}), pod)
    after = _objects(secret("hub", **{"values.yaml": "a: 2", "token": "x2"}), pod)
    again = _objects(secret("hub", **{"values.yaml": "a: 2", "token": "x3"}), pod)
    judged = judge(before, after, again, {})
    work = judged.workloads[("apps", "Deployment", NS, "proxy")]
    assert not work.changed and not work.reads_changed and work.reads_regenerated == {("", "Secret", NS, "hub")}
    config = judged.configs[("", "Secret", NS, "hub")]
    assert config.real_keys == {"values.yaml"} and config.regenerated_keys == {"token"}
    assert config.readers_of(config.real_keys) == set()


def test_every_way_a_pod_reads_config_is_found() -> None:
    container = {"name": "c", "envFrom": [{"configMapRef": {"name": "env"}}],
                 "env": [{"name": "A", "valueFrom": {"configMapKeyRef": {"name": "one", "key": "a"}}}]}
    volumes = [{"name": "v", "configMap": {"name": "files", "items": [{"key": "x.conf", "path": "x.conf"}]}},
               {"name": "p", "projected": {"sources": [{"secret": {"name": "certs", "items": [{"key": "ca"}]}},
                                                       {"configMap": {"name": "all"}}]}}]
    pod = deployment("w", initContainers=[container], volumes=volumes)
    assert sorted(reads(_ident(pod), pod)) == [
        (("", "ConfigMap", NS, "all"), "*"), (("", "ConfigMap", NS, "env"), "*"),
        (("", "ConfigMap", NS, "files"), "x.conf"), (("", "ConfigMap", NS, "one"), "a"),
        (("", "Secret", NS, "certs"), "ca")]


def test_a_checksum_moved_by_labels_alone_restarts_but_carries_no_config() -> None:
    # zitadel, alertmanager: the checksum hashes the ConfigMap's file, labels included.
    volume = [{"name": "c", "configMap": {"name": "conf"}}]
    before = _objects(configmap("conf", {"chart": "1"}, x="1"), deployment("hub", annotations={"checksum/config": "a"},
                                                                           volumes=volume))
    after = _objects(configmap("conf", {"chart": "2"}, x="1"), deployment("hub", annotations={"checksum/config": "b"},
                                                                          volumes=volume))
    work = judge(before, after, after, {}).workloads[W]
    assert work.restarts and not work.config_checksums and work.other_checksums == {"checksum/config"}


def test_a_workload_reading_no_config_is_taken_to_hash_its_own_charts() -> None:
    # an operator reading its ConfigMap through the API (argo-rollouts `checksum/cm`).
    sources = {("", "ConfigMap", NS, "conf"): "op/templates/cm.yaml", W: "op/templates/deploy.yaml",
               ("", "ConfigMap", NS, "other"): "op/charts/sub/templates/cm.yaml"}
    before = _objects(configmap("conf", x="1"), configmap("other", y="1"),
                      deployment("hub", annotations={"checksum/cm": "a"}))
    after = _objects(configmap("conf", x="2"), configmap("other", y="1"),
                     deployment("hub", annotations={"checksum/cm": "b"}))
    assert judge(before, after, after, sources).workloads[W].config_checksums == {"checksum/cm"}
    after = _objects(configmap("conf", x="1"), configmap("other", y="2"),
                     deployment("hub", annotations={"checksum/cm": "b"}))
    assert judge(before, after, after, sources).workloads[W].other_checksums == {"checksum/cm"}


def test_a_multi_line_value_changes_line_by_line_and_a_certificate_as_a_whole() -> None:
    pem = "-----BEGIN CERTIFICATE-----\n{}\nVALIDITY\n-----END CERTIFICATE-----"
    before = _objects(secret("s", conf="token: a\nlevel: 1", crt=pem.format("k1")))
    after = _objects(secret("s", conf="token: b\nlevel: 2", crt=pem.format("k2")))
    again = _objects(secret("s", conf="token: c\nlevel: 2", crt=pem.format("k3")))
    config = judge(before, after, again, {}).configs[("", "Secret", NS, "s")]
    assert config.real_keys == {"conf"} and config.regenerated_keys == {"crt"}


def test_how_many_pods_restart() -> None:
    hpa = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"},
           "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "hub"}, "maxReplicas": 5}}
    for objs, pods, restarts in [
        ((deployment("hub", replicas=None),), (1, None, False), True),
        ((deployment("hub", replicas=3),), (3, None, False), True),
        ((deployment("hub", replicas=0),), (0, None, False), False),  # jupyterhub's user-placeholder
        ((deployment("hub"), hpa), (None, (1, 5), False), True),  # istiod
        ((deployment("hub", kind="DaemonSet", replicas=None),), (None, None, True), True),
    ]:
        before = _objects(*objs)
        after = copy.deepcopy(before)
        ident = next(i for i in after if i[1] != "HorizontalPodAutoscaler")
        after[ident]["spec"]["template"]["spec"]["containers"][0]["image"] = "app:2"
        work = judge(before, after, after, {}).workloads[ident]
        assert (work.pods.replicas, work.pods.hpa_range, work.pods.per_node) == pods
        assert work.real and work.restarts is restarts


def test_a_change_that_waits_for_its_pods_is_deferred() -> None:
    for kind, spec in [("StatefulSet", {"updateStrategy": {"type": "OnDelete"}}),
                       ("StatefulSet", {"updateStrategy": {"rollingUpdate": {"partition": 3}}}),
                       ("Deployment", {"paused": True})]:
        before = _objects(deployment("hub", kind=kind, replicas=3))
        before[next(iter(before))]["spec"].update(spec)
        after = copy.deepcopy(before)
        after[next(iter(after))]["spec"]["template"]["spec"]["containers"][0]["image"] = "app:2"
        work = judge(before, after, after, {}).workloads[next(iter(after))]
        assert work.real and work.deferred and not work.restarts


def test_a_service_whose_new_selector_matches_no_running_pod_drops_its_endpoints_for_the_rollout() -> None:
    # kong: the Services select by helm.sh/chart, which the pods get only when they are replaced.
    old, new = {"app": "kong", "chart": "3.4.0"}, {"app": "kong", "chart": "3.4.1"}
    before = _objects(service("kong", old), deployment("kong", old))
    after = _objects(service("kong", new), deployment("kong", new))
    judged = judge(before, after, after, {}).services[("", "Service", NS, "kong")]
    assert judged.drops and not judged.unmatched and not judged.moved
    # A selector that the running pods still match keeps them serving while they are replaced.
    after = _objects(service("kong", {"app": "kong"}), deployment("kong", new))
    assert not judge(before, after, after, {}).services[("", "Service", NS, "kong")].drops
    # No workload's new pods match: the Service is left with no endpoints after the rollout.
    after = _objects(service("kong", {"app": "other"}), deployment("kong", new))
    assert judge(before, after, after, {}).services[("", "Service", NS, "kong")].unmatched
    # Zero replicas run no pod to lose.
    before = _objects(service("kong", old), deployment("kong", old, replicas=0))
    after = _objects(service("kong", new), deployment("kong", new, replicas=0))
    assert not judge(before, after, after, {}).services[("", "Service", NS, "kong")].drops


def test_a_field_that_regenerates_in_the_pod_template_is_no_restart() -> None:
    before = _objects(deployment("hub", annotations={"rollme": "a"}))
    after, again = _objects(deployment("hub", annotations={"rollme": "b"})), _objects(
        deployment("hub", annotations={"rollme": "c"}))
    work = judge(before, after, again, {}).workloads[W]
    assert work.changed and not work.real and not work.restarts
