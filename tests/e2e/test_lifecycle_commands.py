"""`helm plan rollback` and `helm plan uninstall` against releases stored by real helm."""
from __future__ import annotations

import subprocess
from pathlib import Path

import yaml

from conftest import EXAMPLE, Store, changes_of, clean_env, run_plan, write_chart
from kubeapi import FakeKube
from e2e.test_bad_input import _one_line_error
from e2e.test_cases import validate

HOOKS = {
    "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  size: {{ .Values.size | quote }}\n",
    "keep.yaml": "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\n  annotations:\n"
                 "    helm.sh/resource-policy: keep\nspec:\n  accessModes: [ReadWriteOnce]\n"
                 "  resources: {requests: {storage: 1Gi}}\n",
    "scratch.yaml": "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: scratch\nspec:\n"
                    "  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n",
    "svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: app\nspec:\n  ports: [{port: 80}]\n",
    "hooks.yaml": "".join(
        f"---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {name}\n  annotations:\n"
        f"    helm.sh/hook: {events}\n    helm.sh/hook-weight: \"{weight}\"\nspec:\n  template:\n    spec:\n"
        "      restartPolicy: Never\n      containers: [{name: j, image: busybox}]\n"
        for name, events, weight in (("backup", "pre-rollback,pre-delete", 0), ("notify", "post-rollback", 5),
                                     ("goodbye", "post-delete", 0), ("migrate", "pre-upgrade", 0))
    ),
}


def _hook_chart(tmp_path: Path) -> Path:
    return write_chart(tmp_path, "app", HOOKS, values="size: small\n")


def test_rollback_goes_back_to_the_previous_revision(helm: Path, store: Store) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop", revision=1, status="superseded")
    store.add("shop", EXAMPLE / "chart-v2", "shop", revision=2)
    result = run_plan("rollback", "shop", "-n", "shop", "-o", "json", "--detailed-exitcode", helm=helm, store=store)
    assert result.code == 2, result.err
    doc = result.json()
    validate(doc)
    assert doc["helm_action"] == "rollback"
    assert doc["header"]["previous_revision"] == 2 and doc["header"]["rollback_to"] == 1
    assert doc["header"]["revision"] == 3
    assert changes_of(doc) == [
        ("update", "Secret", "shop-db"), ("update", "ConfigMap", "shop-config"), ("create", "Service", "shop-legacy"),
        ("update", "Deployment", "shop-web"),
        ("delete", "HorizontalPodAutoscaler", "shop-web"), ("delete", "CronJob", "shop-cleanup"),
    ]
    # The example's hooks are install/upgrade hooks: none runs on a rollback.
    assert all(not t["will_run"] for t in doc["tasks"])
    text = run_plan("rollback", "shop", "1", "-n", "shop", helm=helm, store=store).out
    assert "helm plan: rollback release shop in namespace shop" in text
    assert "from revision 2 (shop-0.2.0) back to revision 1 (shop-0.1.0); this would create revision 3" in text


def test_rollback_runs_the_target_revisions_rollback_hooks(helm: Path, store: Store, tmp_path: Path) -> None:
    chart = _hook_chart(tmp_path)
    store.add("app", chart, revision=1, status="superseded")
    store.add("app", chart, revision=2, flags=("--set", "size=large"))
    doc = run_plan("rollback", "app", "-o", "json", helm=helm, store=store).json()
    assert changes_of(doc) == [("update", "ConfigMap", "app")]
    tasks = {t["name"]: (t["phase"], t["will_run"]) for t in doc["tasks"]}
    assert tasks == {"Job default/backup": ("preDeploy", True), "Job default/notify": ("postDeploy", True),
                     "Job default/goodbye": ("other", False), "Job default/migrate": ("other", False)}
    quiet = run_plan("rollback", "app", "--no-hooks", "-o", "json", helm=helm, store=store).json()
    assert not any(t["will_run"] for t in quiet["tasks"]) and quiet["hooks_disabled"] is True


def test_rollback_refuses_a_revision_that_is_not_there(helm: Path, store: Store) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    _one_line_error(run_plan("rollback", "shop", "-n", "shop", helm=helm, store=store),
                    "release shop has no revision 0 to roll back to", "helm history shop -n shop")
    _one_line_error(run_plan("rollback", "shop", "7", "-n", "shop", helm=helm, store=store), "has no revision 7")
    _one_line_error(run_plan("rollback", "nope", "-n", "shop", helm=helm, store=store),
                    "release nope not found in namespace shop", "helm list -n shop")


def test_uninstall_deletes_everything_in_helms_uninstall_order(helm: Path, store: Store, tmp_path: Path) -> None:
    store.add("app", _hook_chart(tmp_path))
    result = run_plan("uninstall", "app", "-o", "json", "--detailed-exitcode", helm=helm, store=store)
    assert result.code == 2, result.err
    doc = result.json()
    validate(doc)
    assert doc["helm_action"] == "uninstall"
    # Uninstall order: Service before PersistentVolumeClaim before ConfigMap; keep read from the manifest.
    assert changes_of(doc) == [("delete", "Service", "app"), ("retain", "PersistentVolumeClaim", "data"),
                               ("delete", "PersistentVolumeClaim", "scratch"), ("delete", "ConfigMap", "app")]
    assert doc["summary"]["delete"] == 3 and doc["summary"]["retain"] == 1
    tasks = {t["name"]: (t["phase"], t["will_run"], t["action"]) for t in doc["tasks"]}
    assert tasks["Job default/backup"] == ("preDeploy", True, "unchanged")
    assert tasks["Job default/goodbye"] == ("postDeploy", True, "unchanged")
    assert tasks["Job default/notify"][1] is False and tasks["Job default/migrate"][1] is False
    codes = {w["code"] for w in doc["warnings"]}
    assert {"data-loss", "crds-untouched", "history-deleted"} <= codes
    assert "keep-from-manifest" not in codes  # uninstall reads keep from the manifest, as Helm does
    text = run_plan("uninstall", "app", "--keep-history", helm=helm, store=store).out
    assert "Resources, in the order Helm deletes them:" in text
    assert "= PersistentVolumeClaim default/data  (retain)  kept in the cluster by helm.sh/resource-policy: keep" in text
    assert "Before the uninstall (pre-delete hooks):" in text
    assert "--keep-history: revision 1 is kept, marked uninstalled" in text


# Helm 4 deletes only what carries the release's ownership metadata (it reads each object first).
_OWNED = ("metadata:\n  name: {name}\n  labels: {{app.kubernetes.io/managed-by: Helm}}\n"
          "  annotations: {{meta.helm.sh/release-name: app, meta.helm.sh/release-namespace: default}}\n")
WORKLOADS = {
    "deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\n" + _OWNED.format(name="web")
                   + "spec: {selector: {matchLabels: {a: web}}, template: {metadata: {labels: {a: web}}, "
                     "spec: {containers: [{name: c, image: x}]}}}\n",
    "svc.yaml": "apiVersion: v1\nkind: Service\n" + _OWNED.format(name="web") + "spec: {ports: [{port: 80}]}\n",
    "cm.yaml": "apiVersion: v1\nkind: ConfigMap\n" + _OWNED.format(name="cfg"),
    "cron.yaml": "apiVersion: batch/v1\nkind: CronJob\n" + _OWNED.format(name="tick")
                 + "spec: {schedule: '* * * * *', jobTemplate: {spec: {template: {spec: {restartPolicy: Never, "
                   "containers: [{name: c, image: x}]}}}}}\n",
    "ds.yaml": "apiVersion: apps/v1\nkind: DaemonSet\n" + _OWNED.format(name="agent")
               + "spec: {selector: {matchLabels: {a: agent}}, template: {metadata: {labels: {a: agent}}, "
                 "spec: {containers: [{name: c, image: x}]}}}\n",
}


def test_uninstall_is_planned_in_the_order_real_helm_deletes(helm: Path, store: Store, tmp_path: Path) -> None:
    """Real `helm uninstall` against the loopback API server (which refuses every write, and
    records it): the DELETEs it sends come in the order the plan lists. Helm deletes a Service
    before the workloads behind it, not where the reversed install order would put it."""
    store.add("app", write_chart(tmp_path, "app", WORKLOADS))
    with FakeKube(namespace="default") as kube:
        kube.load_releases(store.path)
        for body in WORKLOADS.values():
            kube.put(yaml.safe_load(body))
        kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
        plan = run_plan("uninstall", "app", "-o", "json", helm=helm, KUBECONFIG=kubeconfig)
        assert plan.code == 0, plan.err
        before = len(kube.requests)
        subprocess.run([str(helm), "uninstall", "app", "--timeout", "10s"], capture_output=True, text=True,
                       timeout=120, env=clean_env(KUBECONFIG=kubeconfig))
        deleted = [r.path.rsplit("/", 2)[1:] for r in kube.requests[before:]
                   if r.method == "DELETE" and "/secrets/" not in r.path]
    planned = [(kind, name) for action, kind, name in changes_of(plan.json())]
    assert planned == [("Service", "web"), ("CronJob", "tick"), ("Deployment", "web"), ("DaemonSet", "agent"),
                       ("ConfigMap", "cfg")]
    plural = {"Service": "services", "CronJob": "cronjobs", "Deployment": "deployments", "DaemonSet": "daemonsets",
              "ConfigMap": "configmaps"}
    assert deleted == [[plural[kind], name] for kind, name in planned]


def test_uninstall_of_a_release_whose_objects_are_all_gone_still_removes_its_record(helm4: Path, store: Store,
                                                                                    tmp_path: Path) -> None:
    """Every object of the release deleted by hand, and no hook: Helm 4 deletes no object (it
    finds none) but still deletes the release's record, its Secret. The plan says so: a change
    (--detailed-exitcode 2), the record going in text and markdown; --keep-history keeps it."""
    store.add("app", write_chart(tmp_path, "app", {"cm.yaml": WORKLOADS["cm.yaml"]}))
    with FakeKube(namespace="default") as kube:
        kube.load_releases(store.path)
        kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
        doc = run_plan("uninstall", "app", "-o", "json", helm=helm4, KUBECONFIG=kubeconfig).json()
        text = run_plan("uninstall", "app", "--no-color", "--detailed-exitcode", helm=helm4, KUBECONFIG=kubeconfig)
        markdown = run_plan("uninstall", "app", "-o", "markdown", helm=helm4, KUBECONFIG=kubeconfig).out
        kept = run_plan("uninstall", "app", "--no-color", "--keep-history", helm=helm4, KUBECONFIG=kubeconfig).out
        before = len(kube.requests)
        subprocess.run([str(helm4), "uninstall", "app", "--timeout", "10s"], capture_output=True, text=True,
                       timeout=120, env=clean_env(KUBECONFIG=kubeconfig))
        deleted = [r.path for r in kube.requests[before:] if r.method == "DELETE"]
    validate(doc)
    assert doc["changes"] == [] and doc["summary"]["has_changes"] is True
    assert [d["kind"] for d in doc["drift"]] == ["missing"]
    assert deleted and all("/secrets/sh.helm.release.v1.app." in path for path in deleted)  # the record only
    assert text.code == 2, text.err
    line = "Plan: 0 to create, 0 to update, 0 to delete. Only the release's record goes, its history with it."
    assert line in text.out and f"**{line}**" in markdown
    assert "Only the release's record changes: it is kept, marked uninstalled (--keep-history)." in kept


def test_uninstall_refuses_a_release_already_uninstalled(helm: Path, store: Store) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop", status="uninstalled")
    _one_line_error(run_plan("uninstall", "shop", "-n", "shop", helm=helm, store=store),
                    "release shop is already uninstalled", "helm history")
