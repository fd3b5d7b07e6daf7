"""`helm plan diff PREVIOUS DESIRED`: offline planning from rendered files."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from builders import live_of
from conftest import EXAMPLE, run_plan
from core.test_drift import CONFIGMAP, DEPLOYMENT

pytestmark = pytest.mark.e2e  # each test starts helm-plan or helm as a process

PREVIOUS = """---
# Source: app/templates/cm.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: app
  labels: {tier: web}
data:
  greeting: hello
  port: "8080"
---
# Source: app/templates/gone.yaml
apiVersion: v1
kind: Service
metadata:
  name: gone
---
# Source: app/templates/webhook.yaml
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: app-check
---
# Source: app/templates/hook.yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: app-migrate
  annotations:
    helm.sh/hook: pre-upgrade
"""

# The same objects written differently: key order, quoting, flow style, comments, blank lines.
SAME_CONTENT = """
# Source: app/templates/hook.yaml
kind: Job
apiVersion: batch/v1
metadata: {name: app-migrate, annotations: {"helm.sh/hook": "pre-upgrade"}}

---
# Source: app/templates/webhook.yaml
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: app-check}


---
# Source: app/templates/gone.yaml
apiVersion: 'v1'
kind: Service
metadata:
  name: "gone"   # a comment

---
# Source: app/templates/cm.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  labels:
    tier: "web"
  name: app
data:
  port: '8080'
  greeting: "hello"


"""


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_encoding_differences_are_not_changes(tmp_path: Path) -> None:
    result = run_plan("diff", _write(tmp_path, "p.yaml", PREVIOUS), _write(tmp_path, "d.yaml", SAME_CONTENT),
                      "--detailed-exitcode", "-o", "json")
    assert result.code == 0, result.err
    assert result.json()["helm_action"] == "none"


def test_changes_and_order_from_files(tmp_path: Path) -> None:
    desired = SAME_CONTENT.replace('greeting: "hello"', 'greeting: "hi"').replace(
        "# Source: app/templates/gone.yaml\napiVersion: 'v1'\nkind: Service", "# Source: app/templates/svc.yaml\napiVersion: v1\nkind: Service"
    ).replace('name: "gone"', "name: web")
    result = run_plan("diff", _write(tmp_path, "p.yaml", PREVIOUS), "-", "--release", "app", "-n", "prod",
                      "-o", "json", "--kind-order", "helm4", stdin=desired)
    assert result.code == 0, result.err
    doc = result.json()
    assert doc["header"]["release"] == "app" and doc["header"]["namespace"] == "prod"
    assert [(c["action"], c["resource"]["kind"], c["resource"]["name"], c["resource"]["namespace"]) for c in doc["changes"]] == [
        ("update", "ConfigMap", "app", "prod"),
        ("create", "Service", "web", "prod"),
        ("delete", "Service", "gone", "prod"),
    ]
    assert doc["changes"][0]["fields"] == [{"path": "/data/greeting", "op": "replace", "before": "hello", "after": "hi"}]


def test_without_release_the_release_is_named_as_helm_template_names_it(tmp_path: Path) -> None:
    """Issue 48 point 7: no --release used to print "upgrade release release"; the release is
    called release-name, the name `helm template` gives one it is not told."""
    previous = _write(tmp_path, "p.yaml", PREVIOUS)
    for output in ("text", "markdown"):
        result = run_plan("diff", previous, previous, "-o", output, "--kind-order", "helm3")
        assert result.code == 0, result.err
        assert "release release " not in result.out and "upgrade release release-name in namespace default" in result.out
    assert run_plan("diff", previous, previous, "-o", "json", "--kind-order", "helm3").json()["header"]["release"] == "release-name"


def test_helm3_and_helm4_kind_orders_differ_on_webhooks(tmp_path: Path) -> None:
    desired = """---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: check}
---
apiVersion: example.com/v1
kind: Alpha
metadata: {name: a}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
"""
    path = _write(tmp_path, "d.yaml", desired)
    order = {}
    for flavour in ("helm3", "helm4"):
        doc = run_plan("diff", "-", path, "--kind-order", flavour, "-o", "json", stdin="").json()
        order[flavour] = [c["resource"]["kind"] for c in doc["changes"]]
    # Helm 3 does not know webhooks: they sort with unknown kinds, alphabetically.
    assert order["helm3"] == ["ConfigMap", "Alpha", "ValidatingWebhookConfiguration"]
    assert order["helm4"] == ["ConfigMap", "ValidatingWebhookConfiguration", "Alpha"]


def test_identity_ignores_api_version_and_defaults_namespace(tmp_path: Path) -> None:
    previous = "apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata: {name: web}\n"
    desired = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: prod}\n"
    doc = run_plan("diff", _write(tmp_path, "p.yaml", previous), _write(tmp_path, "d.yaml", desired),
                   "-n", "prod", "-o", "json").json()
    # Same group? No: extensions vs apps are different groups, so this is a delete and a create.
    assert [c["action"] for c in doc["changes"]] == ["create", "delete"]
    previous = "apiVersion: apps/v1beta2\nkind: Deployment\nmetadata: {name: web}\n"
    doc = run_plan("diff", _write(tmp_path, "p.yaml", previous), _write(tmp_path, "d.yaml", desired),
                   "-n", "prod", "-o", "json").json()
    assert [c["action"] for c in doc["changes"]] == ["update"]
    # The namespace Helm gives an object that names none (-n prod) is no change.
    assert doc["changes"][0]["fields"] == [
        {"path": "/apiVersion", "op": "replace", "before": "apps/v1beta2", "after": "apps/v1"},
    ]


def test_cluster_scoped_kinds_have_no_namespace(tmp_path: Path) -> None:
    desired = """---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gizmos.example.com}
spec: {group: example.com, scope: Cluster, names: {kind: Gizmo, plural: gizmos}}
---
apiVersion: example.com/v1
kind: Gizmo
metadata: {name: g1}
"""
    doc = run_plan("diff", "-", _write(tmp_path, "d.yaml", desired), "-n", "prod", "-o", "json", stdin="").json()
    assert {c["resource"]["kind"]: c["resource"]["namespace"] for c in doc["changes"]} == {
        "ClusterRole": "", "CustomResourceDefinition": "", "Gizmo": ""}


def test_hooks_and_chart_crds_are_recognised_like_helm(tmp_path: Path) -> None:
    desired = """---
# Source: app/crds/crd.yaml
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
---
# Source: app/charts/sub/crds/crd.yaml
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: parts.example.com}
---
# Source: app/templates/crd.yaml
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: templated.example.com}
---
# Source: app/templates/old-hook.yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: legacy
  annotations: {helm.sh/hook: crd-install}
---
# Source: app/templates/test.yaml
apiVersion: v1
kind: Pod
metadata:
  name: t
  annotations: {helm.sh/hook: test-success}
"""
    doc = run_plan("diff", "-", _write(tmp_path, "d.yaml", desired), "-o", "json", stdin="").json()
    assert doc["helm_action"] == "install"
    assert [c["name"] for c in doc["chart_crds"]] == ["widgets.example.com", "parts.example.com"]
    assert [c["resource"]["name"] for c in doc["changes"]] == ["templated.example.com"]
    assert [(t["name"], t["events"], t["will_run"]) for t in doc["tasks"]] == [("Pod default/t", ["test"], False)]
    assert any("crd-install" in w["message"] for w in doc["warnings"])


def test_secret_values_never_printed(tmp_path: Path) -> None:
    previous = "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {password: c2VjcmV0LW9uZQ==}\n"
    desired = ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  annotations:\n"
               "    kubectl.kubernetes.io/last-applied-configuration: '{\"data\":{\"password\":\"c2VjcmV0LXR3bw==\"}}'\n"
               "data: {password: c2VjcmV0LXR3bw==, token: dG9rZW4tdmFsdWU=}\n")
    p, d = _write(tmp_path, "p.yaml", previous), _write(tmp_path, "d.yaml", desired)
    for output in ("text", "json"):
        result = run_plan("diff", p, d, "-o", output)
        assert result.code == 0, result.err
        for secret in ("c2VjcmV0LW9uZQ==", "c2VjcmV0LXR3bw==", "dG9rZW4tdmFsdWU="):
            assert secret not in result.out
    shown = run_plan("diff", p, d, "-o", "json", "--show-secrets")
    assert "c2VjcmV0LXR3bw==" in shown.out


def test_example_rendered_by_helm_template(helm: Path, tmp_path: Path) -> None:
    import subprocess
    rendered = subprocess.run([str(helm), "template", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "--include-crds"],
                              check=True, capture_output=True, text=True).stdout
    doc = run_plan("diff", "-", _write(tmp_path, "d.yaml", rendered), "-n", "shop", "-o", "json", stdin="").json()
    assert doc["summary"]["create"] == 6
    assert {t["name"] for t in doc["tasks"]} >= {"Job shop/shop-migrate", "Job shop/shop-seed", "Pod shop/shop-smoke-test"}


def test_a_missing_object_created_again_is_a_change(tmp_path: Path) -> None:
    """End to end: a scaled Deployment and a deleted ConfigMap, the chart unchanged. Helm's
    upgrade patches the Deployment back to 2 replicas and creates the ConfigMap again
    (pkg/kube Client.Update creates a target object it cannot find)."""
    manifest = "---\n".join([DEPLOYMENT, CONFIGMAP])
    (tmp_path / "release.yaml").write_text(manifest)
    live = live_of(DEPLOYMENT)
    live["spec"]["replicas"] = 5
    # A saved live file covers a kind only where it holds one of its objects: another release's.
    other = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other", "namespace": "shop"}}
    (tmp_path / "live.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [live, other]}))
    args = ["diff", "release.yaml", "release.yaml", "--release", "shop", "-n", "shop", "--live", "live.yaml",
            "--kind-order", "helm3", "--detailed-exitcode"]
    result = run_plan(*args, "--no-color", cwd=tmp_path)
    assert result.code == 2, result.err
    assert "No changes" not in result.out
    assert "2 drifted objects set back to the chart." in result.out.splitlines()[-1]
    json_out = run_plan(*args, "-o", "json", cwd=tmp_path)
    summary = json.loads(json_out.out)["summary"]
    assert summary["drift_reverted"] == 2 and summary["has_changes"] is True
