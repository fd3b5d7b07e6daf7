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
           "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "hub"},
                    "maxReplicas": 5}}
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


# --- the other claims: no restart, replicas an HPA scales, ports, routes, data -------------------

def _changed(objs: Objects, ident: Identity, *path: str, value: Any) -> Objects:
    out = copy.deepcopy(objs)
    target = out[ident]
    for key in path[:-1]:
        target = target.setdefault(key, {})
    if value is None:
        target.pop(path[-1], None)
    else:
        target[path[-1]] = value
    return out


def test_a_workload_updated_outside_its_pod_template_restarts_nothing() -> None:
    # loki's gateway and caches: only their labels change.
    before = _objects(deployment("hub", replicas=2))
    after = _objects(deployment("hub", replicas=3))
    after[W]["metadata"]["labels"] = {"chart": "2"}
    work = judge(before, after, after, {}).workloads[W]
    assert work.no_restart and not work.restarts and work.replicas == (2, 3)
    # A workload that does not change at all is not an update, and one whose template changes
    # restarts instead.
    assert not judge(before, before, before, {}).workloads[W].no_restart
    after = _changed(before, W, "spec", "template", "metadata", "annotations", value={"new": "1"})
    work = judge(before, after, after, {}).workloads[W]
    assert work.restarts and not work.no_restart


def test_an_update_the_api_server_refuses_restarts_nothing() -> None:
    before = _objects(deployment("hub"))
    after = _changed(before, W, "spec", "selector", value={"matchLabels": {"app": "hub", "tier": "web"}})
    after[W]["spec"]["template"]["spec"]["containers"][0]["image"] = "app:2"
    work = judge(before, after, after, {}).workloads[W]
    assert work.refused == ("selector",) and not work.restarts and not work.no_restart
    sts = ("apps", "StatefulSet", NS, "hub")
    before = _objects(deployment("hub", kind="StatefulSet"))
    after = _changed(before, sts, "spec", "serviceName", value="other")
    assert judge(before, after, after, {}).workloads[sts].refused == ("serviceName",)
    # What a StatefulSet's update may change is no refusal.
    after = _changed(before, sts, "spec", "updateStrategy", value={"type": "OnDelete"})
    assert not judge(before, after, after, {}).workloads[sts].refused


def hpa(target: str, kind: str = "Deployment", api: str | None = "apps/v1", **spec: int) -> dict[str, Any]:
    ref = {"kind": kind, "name": target, **({"apiVersion": api} if api else {})}
    return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": f"{target}-hpa"},
            "spec": {"scaleTargetRef": ref, **spec}}


HPA = ("autoscaling", "HorizontalPodAutoscaler", NS, "hub-hpa")


def test_the_chart_setting_replicas_an_hpa_scales_resets_them_on_every_deploy() -> None:
    objs = _objects(deployment("hub", replicas=2), hpa("hub", minReplicas=2, maxReplicas=6))
    # Unchanged, as in a no-op upgrade: client-side apply still sets the live count back.
    reset = judge(objs, objs, objs, {}).resets[W]
    assert (reset.chart_replicas, reset.hpa, reset.hpa_min, reset.hpa_max, reset.rule) == (2, HPA, 2, 6, "client-side")
    # Server-side apply conflicts once the HPA has written the count: only a cluster knows when.
    assert judge(objs, objs, objs, {}, server_side=True).resets[W].rule == "ssa-later"
    # An HPA created by this upgrade scales it from now on: the chart's count is set back the same.
    before = _objects(deployment("hub", replicas=2))
    assert judge(before, objs, objs, {}).resets[W].hpa_min == 2


def test_no_replicas_reset_without_the_charts_count_or_an_hpa_that_scales_it() -> None:
    for objs in [
        _objects(deployment("hub", replicas=None), hpa("hub", maxReplicas=5)),  # istiod: replicas unset
        _objects(deployment("hub", replicas=2)),  # no HPA
        _objects(deployment("hub", replicas=2), hpa("other", maxReplicas=5)),  # another workload's
        _objects(deployment("hub", replicas=2), hpa("hub", api=None, maxReplicas=5)),  # no group: scales nothing
        _objects(deployment("hub", replicas=2), hpa("hub", kind="StatefulSet", maxReplicas=5)),
    ]:
        assert not judge(objs, objs, objs, {}).resets
    # A workload the upgrade creates is not reset: Helm creates it with the chart's count.
    objs = _objects(deployment("hub", replicas=2), hpa("hub", maxReplicas=5))
    assert not judge({}, objs, objs, {}).resets
    # A custom resource's merge patch sets the count only when the chart's changes.
    rollout = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout", "metadata": {"name": "hub"},
               "spec": {"replicas": 2}}
    objs = _objects(rollout, hpa("hub", kind="Rollout", api="argoproj.io/v1alpha1", maxReplicas=5))
    assert not judge(objs, objs, objs, {}).resets
    after = _changed(objs, ("argoproj.io", "Rollout", NS, "hub"), "spec", "replicas", value=3)
    assert judge(objs, after, after, {}).resets[("argoproj.io", "Rollout", NS, "hub")].chart_replicas == 3


def ported(name: str, *ports: dict[str, Any]) -> dict[str, Any]:
    obj = service(name, {"app": name})
    obj["spec"]["ports"] = list(ports)
    return obj


S = ("", "Service", NS, "web")


def test_a_service_port_removed_or_sent_elsewhere_is_judged_by_port_and_protocol() -> None:
    from judgments import Port
    before = _objects(ported("web", {"port": 80, "targetPort": 8080}, {"port": 53, "protocol": "UDP"},
                             {"port": 9090}))
    after = _objects(ported("web", {"port": 80, "targetPort": "http"}, {"port": 53, "protocol": "TCP"},
                            {"port": 9090, "targetPort": 9090, "name": "metrics"}))
    assert judge(before, after, after, {}).ports[S] == (
        Port("53", "UDP", "removed"), Port("80", "TCP", "target-port", "8080", "http"))


def test_ports_kept_or_added_are_no_traffic_risk() -> None:
    before = _objects(ported("web", {"port": 80}))
    for after in [_objects(ported("web", {"port": 80, "targetPort": 80, "protocol": "TCP"})),  # the defaults
                  _objects(ported("web", {"port": 80}, {"port": 443}))]:
        assert not judge(before, after, after, {}).ports
    assert not judge(before, {}, {}, {}).ports  # a Service deleted is a delete, not a port change


def ingress(name: str, *rules: dict[str, Any], backend: bool = False) -> dict[str, Any]:
    spec: dict[str, Any] = {"rules": list(rules)}
    if backend:
        spec["defaultBackend"] = {"service": {"name": "web", "port": {"number": 80}}}
    return {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": name}, "spec": spec}


def rule(host: str, *paths: str) -> dict[str, Any]:
    return {"host": host, "http": {"paths": [{"path": p, "pathType": "Prefix"} for p in paths]}}


ING = ("networking.k8s.io", "Ingress", NS, "web")


def test_ingress_routes_removed_or_deleted_are_judged_by_host_and_path() -> None:
    from judgments import Route
    before = _objects(ingress("web", rule("a.example", "/", "/api"), rule("b.example", "/"), backend=True))
    after = _objects(ingress("web", rule("a.example", "/"), rule("c.example", "/")))
    routes = judge(before, after, after, {}).routes[ING]
    assert not routes.deleted and routes.gone == (
        Route("default-backend"), Route("ingress-path", "a.example", "/api"), Route("ingress-path", "b.example", "/"))
    deleted = judge(before, {}, {}, {}).routes[ING]
    assert deleted.deleted and len(deleted.gone) == 4
    # Kept by its resource policy, Helm leaves it: nothing goes.
    kept = copy.deepcopy(before)
    kept[ING]["metadata"]["annotations"] = {"helm.sh/resource-policy": "keep"}
    assert not judge(kept, {}, {}, {}).routes


def test_routes_kept_or_added_are_no_traffic_risk() -> None:
    before = _objects(ingress("web", rule("a.example", "/")))
    after = _objects(ingress("web", rule("a.example", "/", "/new"), rule("b.example", "/")))
    assert not judge(before, after, after, {}).routes


def httproute(name: str, hosts: list[str], *matches: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = {"rules": [{"matches": list(matches)}]}
    if hosts:
        spec["hostnames"] = hosts
    return {"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute", "metadata": {"name": name}, "spec": spec}


R = ("gateway.networking.k8s.io", "HTTPRoute", NS, "web")


def test_httproute_hostnames_and_matches_removed_are_judged() -> None:
    from judgments import Route
    api = {"path": {"type": "PathPrefix", "value": "/api"}, "method": "GET", "headers": [{"name": "x-v", "value": "1"}]}
    before = _objects(httproute("web", ["a.example", "b.example"], api, {}))
    after = _objects(httproute("web", ["a.example"], {}))
    assert judge(before, after, after, {}).routes[R].gone == (
        Route("hostname", "b.example"), Route("rule", path="/api", method="GET", headers=("x-v",)))
    # No hostnames any more: it serves every host, so none is lost.
    after = _objects(httproute("web", [], api, {}))
    assert not judge(before, after, after, {}).routes
    # From every host to some: the others are lost.
    before = _objects(httproute("web", [], {}))
    after = _objects(httproute("web", ["a.example"], {}))
    assert judge(before, after, after, {}).routes[R].gone == (Route("hostname"),)


def crd(name: str, keep: bool = False) -> dict[str, Any]:
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": name, **({"annotations": {"helm.sh/resource-policy": "keep"}} if keep else {})},
            "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"}}}


def test_a_crd_the_upgrade_drops_takes_its_custom_resources() -> None:
    from judgments import Crd
    before = _objects(crd("widgets.example.com"))
    ident = ("apiextensions.k8s.io", "CustomResourceDefinition", NS, "widgets.example.com")
    assert judge(before, {}, {}, {}).crds == {ident: Crd("Widget", "example.com")}
    # Kept, or still in the upgrade: nothing goes.
    assert not judge(_objects(crd("widgets.example.com", keep=True)), {}, {}, {}).crds
    assert not judge(before, before, before, {}).crds


def claim(name: str, storage: Any, klass: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": storage}}}
    if klass is not None:
        spec["storageClassName"] = klass
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name}, "spec": spec}


def storage_class(name: str, expands: bool | None) -> dict[str, Any]:
    obj: dict[str, Any] = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
                           "provisioner": "example.com/disk"}
    if expands is not None:
        obj["allowVolumeExpansion"] = expands
    return obj


C = ("", "PersistentVolumeClaim", NS, "data")


def test_a_claim_that_shrinks_or_grows_is_judged_by_quantity() -> None:
    def judged(old: Any, new: Any, *objs: dict[str, Any], klass: str | None = None) -> Any:
        before = _objects(claim("data", old, klass))
        after = {**_objects(claim("data", new, klass)), **{_cluster(o): o for o in objs}}
        return judge(before, after, after, {}).claims.get(C)
    shrink = judged("10Gi", "5Gi")
    assert shrink.shrinks and (shrink.storage_before, shrink.storage_after) == ("10Gi", "5Gi")
    grow = judged("1G", "1Gi")  # 10^9 < 2^30 bytes
    assert not grow.shrinks and (grow.storage_class, grow.expansion) == (None, "not-read")
    assert judged("1Gi", "2Gi", storage_class("fast", True), klass="fast").expansion == "allowed"
    assert judged("1Gi", "2Gi", storage_class("fast", None), klass="fast").expansion == "refused"
    assert judged("1Gi", "2Gi", klass="fast").expansion == "not-read"  # the cluster's class: not read offline


def test_a_claim_whose_request_is_the_same_quantity_does_not_change() -> None:
    for old, new in [("1Gi", "1024Mi"), ("1000M", "1G"), (1073741824, "1Gi"), ("1e3", "1k")]:
        before, after = _objects(claim("data", old)), _objects(claim("data", new))
        assert not judge(before, after, after, {}).claims, (old, new)


def _cluster(obj: dict[str, Any]) -> Identity:
    return str(obj["apiVersion"]).rpartition("/")[0], obj["kind"], "", obj["metadata"]["name"]


def test_a_statefulset_deleted_leaves_its_claims_unless_its_policy_deletes_them() -> None:
    from judgments import Left
    sts = deployment("db", kind="StatefulSet", replicas=3)
    sts["spec"]["volumeClaimTemplates"] = [{"metadata": {"name": "data"}}, {"metadata": {"name": "logs"}}]
    ident = ("apps", "StatefulSet", NS, "db")
    assert judge(_objects(sts), {}, {}, {}).left == {ident: Left(("data", "logs"), 3, False)}
    sts["spec"]["persistentVolumeClaimRetentionPolicy"] = {"whenDeleted": "Delete"}
    assert judge(_objects(sts), {}, {}, {}).left[ident].claims_deleted
    # No templates, kept, or still there: no claim is left by the upgrade.
    assert not judge(_objects(deployment("db", kind="StatefulSet")), {}, {}, {}).left
    assert not judge(_objects(sts), _objects(sts), _objects(sts), {}).left
    sts["metadata"]["annotations"] = {"helm.sh/resource-policy": "keep"}
    assert not judge(_objects(sts), {}, {}, {}).left


def test_a_no_op_upgrade_is_judged_to_change_nothing_but_the_replicas_an_hpa_scales() -> None:
    sts = deployment("db", kind="StatefulSet", replicas=2)
    sts["spec"]["volumeClaimTemplates"] = [{"metadata": {"name": "data"}}]
    objs = _objects(deployment("hub", replicas=2), hpa("hub", maxReplicas=4), sts, ported("web", {"port": 80}),
                    ingress("web", rule("a.example", "/")), httproute("web", ["a.example"], {}),
                    crd("widgets.example.com"), claim("data", "1Gi"), secret("s", a="1"), configmap("c", b="2"))
    judged = judge(objs, objs, objs, {})
    assert not any(w.restarts or w.no_restart or w.real for w in judged.workloads.values())
    assert not (judged.ports or judged.routes or judged.crds or judged.claims or judged.left)
    assert not any(c.real_keys for c in judged.configs.values()) and not any(s.drops for s in judged.services.values())
    assert set(judged.resets) == {W}
