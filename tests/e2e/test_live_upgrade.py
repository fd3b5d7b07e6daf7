"""`helm plan upgrade` end to end with the live state: real helm 3 and 4, the release read from
helm's own Secret storage on a loopback Kubernetes API (tests/kubeapi.py), drift and ownership
from the live objects that server holds, and its request log showing no write."""
from __future__ import annotations

import base64
import copy
import json
import socket
from pathlib import Path
from typing import Any, Iterator

import pytest

from conftest import EXAMPLE, Store, assert_example_upgrade, run_plan, write_chart
from deployah_plan.yamlkube import load_all
from kubeapi import FakeKube
from e2e.test_cases import validate

OWNED = {"meta.helm.sh/release-name": "shop", "meta.helm.sh/release-namespace": "shop"}


@pytest.fixture
def kube() -> Iterator[FakeKube]:
    with FakeKube(namespace="shop", context="fake-ctx") as server:
        yield server


def _deployed(store: Store) -> list[dict[str, Any]]:
    """The previous release's objects as the API server would hold them after helm installed
    them: namespace, Helm's ownership metadata, Secret stringData folded, server defaults."""
    (record,) = json.loads(store.path.read_text())
    objects = []
    for doc in load_all(record["manifest"]):
        obj: dict[str, Any] = copy.deepcopy(doc.value)
        meta = obj["metadata"]
        meta["namespace"] = "shop"
        meta["annotations"] = {**meta.get("annotations", {}), **OWNED}
        if obj["kind"] == "Secret":
            obj["data"] = {k: base64.b64encode(v.encode()).decode() for k, v in obj.pop("stringData").items()}
        if obj["kind"] == "Service":
            obj["spec"]["clusterIP"] = "10.0.0.7"
            for port in obj["spec"]["ports"]:
                port.setdefault("protocol", "TCP")
                port.setdefault("targetPort", port["port"])
        if obj["kind"] == "Deployment":
            obj["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] = "IfNotPresent"
            obj["status"] = {"replicas": 2}
        objects.append(obj)
    return objects


def _by_name(objects: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    return next(o for o in objects if (o["kind"], o["metadata"]["name"]) == (kind, name))


def _reads_only(kube: FakeKube) -> None:
    assert kube.requests and {r.method for r in kube.requests} == {"GET"}
    assert kube.writes() == []


def _ours(kube: FakeKube) -> list[str]:
    """The requests helm plan's live reader sent (helm's own carry its user agent)."""
    return [r.path for r in kube.requests if "helm-plan" in " ".join(r.header("User-Agent"))]


def _setup(store: Store, kube: FakeKube) -> list[dict[str, Any]]:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    kube.load_releases(store.path)
    live = _deployed(store)
    _by_name(live, "ConfigMap", "shop-config")["data"]["app.properties"] += "debug=true\n"
    _by_name(live, "Secret", "shop-db")["data"]["password"] = base64.b64encode(b"typed-by-hand").decode()
    deployment = _by_name(live, "Deployment", "shop-web")
    deployment["spec"]["replicas"] = 5
    deployment["metadata"]["managedFields"] = [
        {"manager": "helm", "operation": "Apply", "fieldsV1": {"f:spec": {"f:template": {}}}},
        {"manager": "kubectl-scale", "operation": "Update", "subresource": "scale",
         "fieldsV1": {"f:spec": {"f:replicas": {}}}},
    ]
    for obj in live:
        if (obj["kind"], obj["metadata"]["name"]) != ("Service", "shop-legacy"):  # deleted by hand
            kube.put(obj)
    kube.put({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "b"},
              "metadata": {"name": "shop-stray", "namespace": "shop", "annotations": dict(OWNED),
                           "labels": {"app.kubernetes.io/managed-by": "Helm"}}})
    kube.put({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",  # made by hand, unowned
              "metadata": {"name": "shop-web", "namespace": "shop"}, "spec": {"maxReplicas": 3}})
    return live


def test_drift_and_ownership_from_the_live_cluster(helm: Path, store: Store, kube: FakeKube, tmp_path: Path) -> None:
    _setup(store, kube)
    kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
    result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "-o", "json", "--render", "template",
                      helm=helm, KUBECONFIG=kubeconfig)
    assert result.code == 0, result.err
    doc = result.json()
    validate(doc)
    # Drift changes neither the changes nor their counts, but the Service deleted by hand is no
    # delete: Helm gets each object before deleting it, and goes on when the get fails.
    assert_example_upgrade(doc, helm, gone=("shop-legacy",))
    helm4 = helm.parent.name.startswith("4.")
    live = doc["live"]
    assert live["status"] == "checked" and live["complete"] and live["source"] == "cluster"
    assert live["apply_method"] == ("ssa" if helm4 else "")
    assert live["requests"] == len(_ours(kube)) and live["unreadable"] == []

    drift = {(d["resource"]["kind"], d["resource"]["name"]): d for d in doc["drift"]}
    assert sorted(drift) == [("ConfigMap", "shop-config"), ("ConfigMap", "shop-stray"), ("Deployment", "shop-web"),
                             ("Secret", "shop-db"), ("Service", "shop-legacy")]
    assert (drift["Service", "shop-legacy"]["kind"], drift["Service", "shop-legacy"]["effect"]) == ("missing", "left")
    assert (drift["ConfigMap", "shop-stray"]["kind"], drift["ConfigMap", "shop-stray"]["effect"]) == ("unexpected", "left")
    (replicas,) = drift["Deployment", "shop-web"]["fields"]
    assert (replicas["path"], replicas["before"], replicas["after"]) == ("/spec/replicas", 2, 5)
    if helm4:  # server-side apply: kubectl-scale owns replicas, and the chart sets it
        assert replicas["effect"] == "conflict" and "kubectl-scale" in replicas["ssa"]
        assert any(w["code"] == "ssa-conflict" for w in doc["warnings"])
    else:
        assert replicas["effect"] == "reverted" and replicas["ssa"] == ""
    (password,) = drift["Secret", "shop-db"]["fields"]
    assert password["path"] == "/data/password" and password["after"]["sensitive"] is True
    # What the deploy sets back counts as a change: objects with a field reverted.
    reverted = [key for key, d in drift.items() if d["effect"] == "reverted" or any(
        f["effect"] == "reverted" for f in d["fields"])]
    assert doc["summary"]["drift_reverted"] == len(reverted) > 0

    # The unowned HPA fails Helm's ownership check before it applies anything: nothing rolls out.
    assert doc["impact"] == []
    assert "typed-by-hand" not in result.out and base64.b64encode(b"typed-by-hand").decode() not in result.out

    ownership = {c["resource"]["name"] + "/" + c["resource"]["kind"]: c["ownership"] for c in doc["changes"]
                 if c["action"] == "create"}
    assert ownership == {"shop-web/HorizontalPodAutoscaler": "unowned", "shop-cleanup/CronJob": "absent"}
    (failure,) = [w for w in doc["warnings"] if w["code"] == "ownership"]
    assert "invalid ownership metadata" in failure["message"] and failure["severity"] == "warning"

    # One discovery per group version, one LIST per kind and namespace (the hooks' kinds too, for
    # hook collisions), one GET of the release namespace, and one LIST of the release's own
    # Secrets (Helm's storage, read by helm plan): GET only, no dry run.
    _reads_only(kube)
    lists = sorted(p for p in _ours(kube) if "/namespaces/" in p)
    assert [r.query for r in kube.requests if r.path.endswith("/secrets") and "labelSelector" in r.query] == [
        {"labelSelector": ["owner=helm,name=shop"]}]
    assert lists == ["/api/v1/namespaces/shop", "/api/v1/namespaces/shop/configmaps", "/api/v1/namespaces/shop/pods",
                     "/api/v1/namespaces/shop/secrets", "/api/v1/namespaces/shop/secrets", "/api/v1/namespaces/shop/services",
                     "/apis/apps/v1/namespaces/shop/deployments",
                     "/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers",
                     "/apis/batch/v1/namespaces/shop/cronjobs", "/apis/batch/v1/namespaces/shop/jobs"]

    # What the deploy does to running things: the chart's replicas (2) on the Deployment its new
    # HPA scales, 5 live. Client-side apply (Helm 3) resets the count; under server-side apply
    # (Helm 4) another field manager (kubectl-scale) owns it, so the apply conflicts.
    # With --take-ownership the HPA is adopted and the upgrade goes ahead.
    adopted = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "-o", "json", "--render", "template",
                       "--take-ownership", helm=helm, KUBECONFIG=kubeconfig)
    assert adopted.code == 0, adopted.err
    impact = {i["kind"]: i for i in adopted.json()["impact"]}
    reset = impact["replicas-reset"]
    assert reset["resource"]["name"] == "shop-web" and reset["counts"] == {"replicas": 2, "live_replicas": 5}
    assert [o["kind"] for o in reset["objects"]] == ["HorizontalPodAutoscaler"]
    if helm4:
        assert "server-side apply conflicts and the upgrade fails" in reset["message"]
        assert any("kubectl-scale" in d for d in reset["details"])
    else:
        assert "the count jumps from 5 to 2" in reset["message"]
    # The image changes: the pods roll, and the Secret they read as env rides along. Under
    # server-side apply the Deployment's apply fails on the conflict: nothing of it rolls out.
    # The Secret's own apply succeeds, so its new data reaches no running pod then.
    if helm4:
        assert "restart" not in impact
        assert impact["config-unreached"]["resource"]["name"] == "shop-db"
    else:
        restart = impact["restart"]
        assert restart["resource"]["name"] == "shop-web" and restart["counts"]["live_replicas"] == 5
        assert restart["counts"]["pods"] == 2
        assert "it reads Secret shop/shop-db, whose data changes: the new pods see it" in restart["details"]
        assert "config-unreached" not in impact


def test_take_ownership_and_the_text_output(helm4: Path, store: Store, kube: FakeKube, tmp_path: Path) -> None:
    _setup(store, kube)
    kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
    result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "--render", "template",
                      "--take-ownership", "--no-color", helm=helm4, KUBECONFIG=kubeconfig)
    assert result.code == 0, result.err
    out = result.out
    assert "+ HorizontalPodAutoscaler shop/shop-web  (create)  [adopts the live object]" in out
    assert "Drift (live vs the previous release):" in out
    assert "- Service shop/shop-legacy  (missing live: it leaves the release, nothing to do)" in out
    assert "shop-legacy  (delete)" not in out and " 0 to delete" in out  # gone already: Helm skips it
    assert "~ /data/password" not in out and "data.password: (sensitive #" in out
    assert "typed-by-hand" not in out
    _reads_only(kube)


def test_render_server_reads_live_state_alongside_helm(helm: Path, store: Store, kube: FakeKube, tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    kube.load_releases(store.path)
    for obj in _deployed(store):
        kube.put(obj)
    result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "-o", "json", "--render", "server",
                      helm=helm, KUBECONFIG=str(kube.write_kubeconfig(tmp_path / "kubeconfig")))
    assert result.code == 0, result.err
    doc = result.json()
    assert doc["live"]["status"] == "checked" and doc["drift"] == []
    assert {c["ownership"] for c in doc["changes"] if c["action"] == "create"} == {"absent"}
    _reads_only(kube)


def test_a_forbidden_kind_makes_a_partial_check(helm4: Path, store: Store, kube: FakeKube, tmp_path: Path) -> None:
    _setup(store, kube)
    kube.forbid("configmaps")
    result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "-o", "json", "--render", "template",
                      helm=helm4, KUBECONFIG=str(kube.write_kubeconfig(tmp_path / "kubeconfig")))
    assert result.code == 0, result.err
    live = result.json()["live"]
    assert live["status"] == "partial" and live["complete"] is False
    assert [(u["kind"], u["namespace"]) for u in live["unreadable"]] == [("ConfigMap", "shop")]
    assert live["unreadable"][0]["reason"].startswith("forbidden: ")
    assert not any(d["resource"]["kind"] == "ConfigMap" for d in result.json()["drift"])
    text = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "--render", "template", "--no-color",
                    helm=helm4, KUBECONFIG=str(tmp_path / "kubeconfig")).out
    assert "PARTIAL: some kinds could not be read" in text
    assert "\n  ? drift and ownership of ConfigMap (v1) in shop: not read (forbidden: " in text  # under the header


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_unreachable_cluster_still_plans_unless_required(helm: Path, store: Store, kube: FakeKube, tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")  # the release comes from the offline store
    closed = str(kube.write_kubeconfig(tmp_path / "closed", url=f"http://127.0.0.1:{_closed_port()}"))
    result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "-o", "json",
                      helm=helm, store=store, KUBECONFIG=closed)
    assert result.code == 0, result.err
    doc = result.json()
    assert_example_upgrade(doc, helm)
    assert doc["live"]["status"] == "unreachable" and "cannot reach the cluster" in doc["live"]["reason"]
    assert doc["drift"] == [] and {c["ownership"] for c in doc["changes"]} == {"not-checked"}

    required = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "--require-cluster",
                        helm=helm, store=store, KUBECONFIG=closed)
    assert required.code == 1 and required.out == ""
    (line,) = required.err.strip().splitlines()
    assert line.startswith("helm plan: error: --require-cluster: cannot reach the cluster") and "; " in line


def test_offline_store_without_a_cluster_says_drift_was_not_checked(helm4: Path, store: Store, tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "--no-color",
                      helm=helm4, store=store, KUBECONFIG=str(tmp_path / "none"))
    assert result.code == 0, result.err
    assert ("? drift, ownership, resource-policy and server-side apply conflicts from the live objects: not checked "
            "(the release store is offline (HELM_DRIVER=memory)") in result.out
    skipped = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "-o", "json", "--no-drift",
                       helm=helm4, store=store, KUBECONFIG=str(tmp_path / "none"))
    assert skipped.json()["live"] == {"status": "skipped", "complete": False, "reason": "--no-drift", "source": "",
                                      "requests": 0, "apply_method": "ssa", "unreadable": []}
    both = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "--no-drift", "--require-cluster",
                    helm=helm4, store=store)
    assert both.code == 1 and both.err.count("\n") == 1 and "contradict" in both.err


def test_diff_with_a_saved_live_file(tmp_path: Path, store: Store) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    live = _deployed(store)
    _by_name(live, "ConfigMap", "shop-config")["data"]["app.properties"] = "changed=yes\n"
    (tmp_path / "live.yaml").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": live}))
    (record,) = json.loads(store.path.read_text())
    (tmp_path / "previous.yaml").write_text(record["manifest"])
    (tmp_path / "desired.yaml").write_text(record["manifest"])
    result = run_plan("diff", "previous.yaml", "desired.yaml", "-n", "shop", "--kind-order", "helm3", "-o", "json",
                      "--live", "live.yaml", cwd=tmp_path)
    assert result.code == 0, result.err
    doc = result.json()
    assert doc["live"]["status"] == "checked" and doc["live"]["source"] == "live.yaml" and doc["live"]["requests"] == 0
    (item,) = doc["drift"]
    assert item["resource"]["name"] == "shop-config" and item["effect"] == "reverted"
    bad = run_plan("diff", "previous.yaml", "desired.yaml", "--live", "nope.yaml", cwd=tmp_path)
    assert bad.code == 1 and bad.err.count("\n") == 1 and "cannot read the live state file nope.yaml" in bad.err


def test_chart_crds_compared_with_the_cluster(helm4: Path, store: Store, kube: FakeKube, tmp_path: Path) -> None:
    _setup(store, kube)
    crd = next(load_all((EXAMPLE / "chart-v2" / "crds" / "widgets.yaml").read_text())).value
    installed = copy.deepcopy(crd)  # as installed by an older chart: one version fewer served
    installed["spec"]["versions"][0]["served"] = False
    installed["status"] = {"acceptedNames": {"kind": "Widget"}}
    kube.put(installed)
    kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
    args = ("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "--render", "template")
    doc = run_plan(*args, "-o", "json", helm=helm4, KUBECONFIG=kubeconfig).json()
    assert [(c["name"], c["lifecycle"], c["live_differs"]) for c in doc["chart_crds"]] == [
        ("widgets.shop.example.com", "not-on-upgrade", True)]
    text = run_plan(*args, "--no-color", helm=helm4, KUBECONFIG=kubeconfig).out
    assert "the cluster's copy differs from the chart's, and this upgrade will not update it" in text
    kube.put(crd)  # the same as the chart's (status and server fields are not a difference)
    doc = run_plan(*args, "-o", "json", helm=helm4, KUBECONFIG=kubeconfig).json()
    assert doc["chart_crds"][0]["live_differs"] is False
    _reads_only(kube)


def test_rollback_reads_the_live_state_too(helm: Path, store: Store, kube: FakeKube, tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop", revision=1, status="superseded")
    store.add("shop", EXAMPLE / "chart-v2", "shop", revision=2)
    kube.load_releases(store.path)
    (_, current) = json.loads(store.path.read_text())
    for doc in load_all(current["manifest"]):
        obj: dict[str, Any] = copy.deepcopy(doc.value)
        obj["metadata"]["namespace"] = "shop"
        obj["metadata"]["annotations"] = {**obj["metadata"].get("annotations", {}), **OWNED}
        if obj["kind"] == "HorizontalPodAutoscaler":  # someone marked it keep in the cluster
            obj["metadata"]["annotations"]["helm.sh/resource-policy"] = "keep"
        if obj["kind"] == "Secret":
            obj["data"] = {k: base64.b64encode(v.encode()).decode() for k, v in obj.pop("stringData").items()}
        kube.put(obj)
    kube.put({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "shop-legacy", "namespace": "shop"},
              "spec": {"ports": [{"port": 80}]}})  # made by hand since revision 2 deleted it
    result = run_plan("rollback", "shop", "-n", "shop", "-o", "json", helm=helm,
                      KUBECONFIG=str(kube.write_kubeconfig(tmp_path / "kubeconfig")))
    assert result.code == 0, result.err
    doc = result.json()
    validate(doc)
    assert doc["helm_action"] == "rollback" and doc["live"]["status"] == "checked"
    actions = {(c["resource"]["kind"], c["resource"]["name"]): (c["action"], c["ownership"]) for c in doc["changes"]}
    assert actions[("HorizontalPodAutoscaler", "shop-web")] == ("retain", "not-checked")  # keep read from live
    assert actions[("CronJob", "shop-cleanup")] == ("delete", "not-checked")
    assert actions[("Service", "shop-legacy")] == ("create", "unowned")
    assert any(w["code"] == "ownership" and "shop-legacy" in w["message"] for w in doc["warnings"])
    assert not any(w["code"] == "keep-from-manifest" for w in doc["warnings"])
    _reads_only(kube)


def test_server_side_flags_decide_what_drift_does(helm4: Path, helm: Path, store: Store, kube: FakeKube,
                                                 tmp_path: Path) -> None:
    _setup(store, kube)
    kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
    args = ("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "--render", "template", "-o", "json")

    def replicas(*flags: str) -> dict[str, Any]:
        result = run_plan(*args, *flags, helm=helm4, KUBECONFIG=kubeconfig)
        assert result.code == 0, result.err
        (drift,) = [d for d in result.json()["drift"] if d["resource"]["kind"] == "Deployment"]
        (field,) = drift["fields"]
        return {"effect": field["effect"], "apply_method": result.json()["live"]["apply_method"]}

    assert replicas() == {"effect": "conflict", "apply_method": "ssa"}  # auto: the release's own method
    assert replicas("--force-conflicts") == {"effect": "reverted", "apply_method": "ssa"}
    assert replicas("--server-side", "false") == {"effect": "reverted", "apply_method": "csa"}
    if helm.parent.name.startswith("3."):
        result = run_plan(*args, "--server-side", "true", helm=helm, KUBECONFIG=kubeconfig)
        assert result.code == 1 and "--server-side is a Helm 4 flag, and helm 3.19.0 does not have it" in result.err
    _reads_only(kube)


def test_server_render_stops_where_helm_would_on_an_unowned_object(helm: Path, store: Store, kube: FakeKube,
                                                                   tmp_path: Path) -> None:
    """helm upgrade --dry-run=server runs Helm's own ownership check and fails on the unowned
    HorizontalPodAutoscaler, as the upgrade would: one line, with what to do next."""
    _setup(store, kube)
    kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
    result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "--render", "server",
                      helm=helm, KUBECONFIG=kubeconfig)
    assert result.code == 1 and result.out == "" and len(result.err.strip().splitlines()) == 1
    assert "invalid ownership metadata" in result.err and "--render template" in result.err
    _reads_only(kube)


def test_server_render_with_take_ownership_adopts_the_unowned_object(helm: Path, store: Store, kube: FakeKube,
                                                                     tmp_path: Path) -> None:
    """--take-ownership reaches helm upgrade --dry-run=server (both helms take it there, and check
    ownership before a dry run returns): the render adopts the unowned HorizontalPodAutoscaler
    instead of failing with a hint to add the flag the user gave."""
    _setup(store, kube)
    kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
    args = ("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "--render", "server", "--take-ownership")
    result = run_plan(*args, "-o", "json", helm=helm, KUBECONFIG=kubeconfig)
    assert result.code == 0, result.err
    doc = result.json()
    assert doc["header"]["rendered_by"] == "server"
    (hpa,) = [c for c in doc["changes"] if c["resource"]["kind"] == "HorizontalPodAutoscaler"]
    assert hpa["action"] == "create" and hpa["ownership"] == "adopt"
    assert doc["summary"]["adopted"] == 1
    assert not [w for w in doc["warnings"] if w["code"] == "ownership" and w["predicted_failure"]]
    text = run_plan(*args, "--no-color", helm=helm, KUBECONFIG=kubeconfig)
    assert "+ HorizontalPodAutoscaler shop/shop-web  (create)  [adopts the live object]" in text.out
    _reads_only(kube)


def test_a_custom_kind_the_cluster_serves_cluster_scoped_is_no_namespace_drift(helm: Path, store: Store,
                                                                                tmp_path: Path) -> None:
    """The chart writes a Widget without a namespace, and no CRD: the plan cannot know its scope
    until discovery says it is cluster-scoped. Helm's resource builder then gives it no
    namespace and the API server keeps none, so the live Widget is the release's, unchanged."""
    template = ("apiVersion: shop.example.com/v1\nkind: Widget\nmetadata:\n  name: blue\nspec:\n"
                "  size: {{ .Values.size }}\n")
    v1 = write_chart(tmp_path / "v1", "shop", {"widget.yaml": template}, values="size: 2\n")
    v2 = write_chart(tmp_path / "v2", "shop", {"widget.yaml": template}, values="size: 3\n")
    store.add("shop", v1, "shop")
    with FakeKube(namespace="shop", custom=[("shop.example.com/v1", "widgets", "Widget", False)]) as kube:
        kube.put({"apiVersion": "shop.example.com/v1", "kind": "Widget", "spec": {"size": 2},
                  "metadata": {"name": "blue", "labels": {"app.kubernetes.io/managed-by": "Helm"}, "annotations": dict(OWNED)}})
        result = run_plan("upgrade", "shop", str(v2), "-n", "shop", "-o", "json", helm=helm, store=store,
                          KUBECONFIG=str(kube.write_kubeconfig(tmp_path / "kubeconfig")))
        _reads_only(kube)
    assert result.code == 0, result.err
    doc = result.json()
    validate(doc)
    assert doc["live"]["status"] == "checked" and doc["drift"] == []
    (change,) = doc["changes"]
    assert (change["action"], change["resource"]["namespace"], [f["path"] for f in change["fields"]]) == (
        "update", "", ["/spec/size"])
