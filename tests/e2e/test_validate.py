"""Predicted failures from the API server (core/validate.py): kinds a Kubernetes version does
not serve, objects its schemas reject, a missing namespace, hooks that collide. The pure rules
first, then the command line with real helm 3 and 4, offline (--kube-version) and against the
loopback API (discovery, /openapi/v3, namespaces, live hooks); then real public charts, for
which no failure may be predicted at a current Kubernetes version."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from conftest import Store, run_plan, write_chart
from deployah_plan.core.kube_api import table
from deployah_plan.yamlkube import load_all
from kubeapi import FakeKube
from core.test_validate_rules import DEPLOYMENT, _with
from realcharts import NAMES, real_chart


# -- the command line, offline ------------------------------------------------------------------

HPA_CHART = {
    "hpa.yaml": ("apiVersion: autoscaling/v2beta2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n"
                 "spec:\n  maxReplicas: 3\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n"),
    # a template that picks its apiVersion by capability, as real charts do
    "pdb.yaml": ('{{- if .Capabilities.APIVersions.Has "policy/v1/PodDisruptionBudget" }}\napiVersion: policy/v1\n'
                 "{{- else }}\napiVersion: policy/v1beta1\n{{- end }}\nkind: PodDisruptionBudget\nmetadata:\n  name: web\n"
                 "spec:\n  minAvailable: 1\n  selector: {matchLabels: {app: web}}\n"),
}


def test_upgrade_offline_removed_api_fails_at_a_newer_version(helm: Path, store: Store, tmp_path: Path) -> None:
    chart = write_chart(tmp_path, "old", HPA_CHART)
    new = run_plan("upgrade", "old", str(chart), "-n", "apps", "--kube-version", "1.30", "-o", "json",
                   "--fail-on", "failure", helm=helm, store=store)
    assert new.code == 3, new.err
    doc = new.json()
    (failure,) = [w for w in doc["warnings"] if w.get("predicted_failure")]
    assert failure["code"] == "api-not-served" and failure["resource"]["kind"] == "HorizontalPodAutoscaler"
    assert "Kubernetes 1.30 (from --kube-version)" in failure["message"]
    assert doc["summary"]["predicted_failures"] == 1
    assert "--fail-on failure matched" in new.err
    old = run_plan("upgrade", "old", str(chart), "-n", "apps", "--kube-version", "1.25", "-o", "json",
                   helm=helm, store=store).json()
    assert old["summary"]["predicted_failures"] == 0
    assert [w["code"] for w in old["warnings"] if w["code"].startswith("api-")] == ["api-deprecated"]
    text = run_plan("upgrade", "old", str(chart), "-n", "apps", "--kube-version", "1.30", "--no-color",
                    helm=helm, store=store).out
    assert "FAILS" in text and "autoscaling/v2beta2" in text


def test_upgrade_offline_judges_against_helm_template_default(helm: Path, store: Store, tmp_path: Path) -> None:
    chart = write_chart(tmp_path, "typo", {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
                                                      "  annotations: {replicas: 3}\ndata: {a: b}\n"})
    doc = run_plan("upgrade", "typo", str(chart), "-n", "apps", "-o", "json", helm=helm, store=store).json()
    (failure,) = [w for w in doc["warnings"] if w.get("predicted_failure")]
    default = "1.37" if helm.parent.name.startswith("4.") else "1.34"
    assert failure["code"] == "schema-invalid" and f"Kubernetes {default}.0 (helm template's default" in failure["message"]
    assert "metadata.annotations.replicas is an integer where the schema wants a string" in failure["message"]


def test_unknown_field_follows_the_apply_method(helm: Path, store: Store, tmp_path: Path) -> None:
    chart = write_chart(tmp_path, "typo", {"svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n"
                                                       "spec:\n  ports: [{port: 80}]\n  selectr: {app: web}\n"})
    doc = run_plan("upgrade", "typo", str(chart), "-n", "apps", "-o", "json", "--kube-version", "1.33",
                   helm=helm, store=store).json()
    (warning,) = [w for w in doc["warnings"] if w["code"] == "unknown-field"]
    helm4 = helm.parent.name.startswith("4.")  # an install is server-side on Helm 4: strict
    assert warning.get("predicted_failure", False) is helm4
    assert "spec.selectr is unknown (did you mean spec.selector?)" in warning["message"]
    off = run_plan("upgrade", "typo", str(chart), "-n", "apps", "-o", "json", "--kube-version", "1.33",
                   "--disable-openapi-validation", helm=helm, store=store).json()
    assert off["summary"]["predicted_failures"] == 0


@pytest.mark.e2e
def test_diff_with_kube_version(tmp_path: Path) -> None:
    desired = tmp_path / "desired.yaml"
    desired.write_text("apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: c\nspec: {}\n")
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    result = run_plan("diff", str(empty), str(desired), "--kube-version", "1.29", "-o", "json", "--fail-on", "failure")
    assert result.code == 3
    (failure,) = [w for w in result.json()["warnings"] if w.get("predicted_failure")]
    assert "(removed in 1.25)" in failure["message"] and "use batch/v1" in failure["message"]
    assert run_plan("diff", str(empty), str(desired), "--kube-version", "one").code == 1
    # Without --kube-version the cluster's version is unknown: a kind the newest version no
    # longer serves is a warning, not a predicted failure.
    unknown = run_plan("diff", str(empty), str(desired), "-o", "json").json()
    assert unknown["summary"]["predicted_failures"] == 0
    (removed,) = [w for w in unknown["warnings"] if w["code"] == "api-not-served"]
    assert removed["severity"] == "warning" and "pass --kube-version" in removed["message"]


@pytest.mark.e2e
def test_diff_without_kube_version_judges_against_the_newest_known(tmp_path: Path) -> None:
    """`spec.replica` is not a field of apps/v1 Deployment in any Kubernetes version: strict
    field validation (server-side apply) rejects it, client-side apply drops it with a warning."""
    previous, desired = tmp_path / "previous.yaml", tmp_path / "desired.yaml"
    previous.write_text(json.dumps(DEPLOYMENT))
    desired.write_text(json.dumps(_with(DEPLOYMENT, "spec.replica", 3)))
    newest = f"1.{table().newest}"
    csa = run_plan("diff", str(previous), str(desired), "-o", "json")
    assert csa.code == 0, csa.err
    doc = csa.json()
    (note,) = [w for w in doc["warnings"] if w["code"] == "kube-version-assumed"]
    assert f"Kubernetes {newest}, the newest version helm plan knows" in note["message"]
    (typo,) = [w for w in doc["warnings"] if w["code"] == "unknown-field"]
    assert "spec.replica is unknown" in typo["message"] and not typo["predicted_failure"]
    ssa = run_plan("diff", str(previous), str(desired), "--apply-method", "ssa", "-o", "json").json()
    (typo,) = [w for w in ssa["warnings"] if w["code"] == "unknown-field"]
    assert typo["predicted_failure"] and f"Kubernetes {newest}" in typo["message"]
    assert ssa["summary"]["predicted_failures"] == 1
    text = run_plan("diff", str(previous), str(desired), "--no-color").out
    assert f"objects judged against Kubernetes {newest}" in text


# -- against the loopback API -------------------------------------------------------------------

def _openapi() -> dict[str, dict[str, Any]]:
    """A small /openapi/v3: ConfigMap as the real server describes it (allOf-wrapped $refs)."""
    ref = {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}], "default": {}}
    return {"api/v1": {
        "io.k8s.api.core.v1.ConfigMap": {
            "type": "object", "x-kubernetes-group-version-kind": [{"group": "", "kind": "ConfigMap", "version": "v1"}],
            "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": ref,
                           "data": {"type": "object", "additionalProperties": {"type": "string", "default": ""}},
                           "immutable": {"type": "boolean"}}},
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {"type": "object", "properties": {
            "name": {"type": "string"}, "namespace": {"type": "string"},
            "labels": {"type": "object", "additionalProperties": {"type": "string", "default": ""}},
            "annotations": {"type": "object", "additionalProperties": {"type": "string", "default": ""}}}},
    }}


@pytest.fixture
def kube() -> Iterator[FakeKube]:
    with FakeKube(namespace="shop", context="fake-ctx", openapi=_openapi()) as server:
        yield server


LIVE_CHART = {
    "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  count: {{ .Values.count }}\n",
    "mon.yaml": "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: m\nspec: {}\n",
    "hook.yaml": ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n"
                  "    helm.sh/hook: pre-install,pre-upgrade\n    helm.sh/hook-delete-policy: hook-succeeded\n"
                  "spec:\n  template:\n    spec:\n      restartPolicy: Never\n"
                  "      containers: [{name: m, image: busybox}]\n"),
}


def test_against_the_cluster(helm: Path, store: Store, kube: FakeKube, tmp_path: Path) -> None:
    chart = write_chart(tmp_path, "live", LIVE_CHART, values="count: 1\n")
    kube.put({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "migrate", "namespace": "shop"},
              "spec": {"template": {"spec": {"containers": [{"name": "m", "image": "busybox"}]}}}})
    kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
    result = run_plan("upgrade", "live", str(chart), "-n", "shop", "-o", "json", "--render", "template",
                      helm=helm, store=store, KUBECONFIG=kubeconfig)
    assert result.code == 0, result.err
    failures = {w["code"]: w["message"] for w in result.json()["warnings"] if w.get("predicted_failure")}
    helm4 = helm.parent.name.startswith("4.")
    expected = {"schema-invalid", "crd-missing", "namespace-missing"} | (set() if helm4 else {"hook-collision"})
    assert set(failures) == expected, failures
    # the cluster's own OpenAPI (1.31), not the table: data.count is an integer
    assert "data.count is an integer where the schema wants a string" in failures["schema-invalid"]
    assert "Kubernetes 1.31 (the cluster's OpenAPI)" in failures["schema-invalid"]
    assert "ServiceMonitor" in failures["crd-missing"]
    assert 'namespaces "shop" not found' in failures["namespace-missing"]
    if not helm4:
        assert "already exists" in failures["hook-collision"]
    paths = {r.path for r in kube.requests}
    assert {"/openapi/v3", "/openapi/v3/api/v1", "/api/v1/namespaces/shop", "/version"} <= paths
    assert kube.writes() == []
    # with the namespace, valid values and the CRD served, nothing is predicted to fail
    kube.put({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}})
    kube.resources.append(("monitoring.coreos.com/v1", "servicemonitors", "ServiceMonitor", True))
    kube.objects = {k: v for k, v in kube.objects.items() if k[1] != "jobs"}
    fine = run_plan("upgrade", "live", str(chart), "-n", "shop", "-o", "json", "--render", "template",
                    "--set", "count=one", helm=helm, store=store, KUBECONFIG=kubeconfig)
    assert fine.code == 0, fine.err
    assert fine.json()["summary"]["predicted_failures"] == 0, fine.json()["warnings"]


# -- real public charts -------------------------------------------------------------------------

def _cases() -> list[tuple[str, str]]:
    return [(name, side) for name in NAMES for side in ("prev", "next")]


@pytest.mark.parametrize(("name", "side"), _cases())
def test_real_charts_predict_no_failure_at_a_current_version(helm: Path, store: Store, name: str, side: str) -> None:
    folder = real_chart(name)
    case = next(iter(load_all((folder / "case.yaml").read_text()))).value
    values = ["-f", str(folder / "values.yaml")]
    if (folder / f"values-{side}.yaml").exists():
        values += ["-f", str(folder / f"values-{side}.yaml")]
    for version in ("1.31", "1.34"):
        result = run_plan("upgrade", case["release"], str(folder / side), "-n", case["namespace"], *values,
                          "--kube-version", version, "-o", "json", helm=helm, store=store)
        assert result.code == 0, result.err
        doc = result.json()
        assert doc["summary"]["predicted_failures"] == 0, [w for w in doc["warnings"] if w.get("predicted_failure")]
        assert not [w for w in doc["warnings"] if w["code"] == "unknown-field"]
