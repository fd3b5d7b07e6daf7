"""What runs on this action decides what the plan says of hooks, planned with real helm: the
"what matters" head names only the images of hooks that run (not jenkins' `helm test` Pod, not
gatekeeper's post-install Job on an upgrade), and a changed chart CRD that a running hook likely
applies (gatekeeper's pre-upgrade `update-crds-hook`) names that hook instead of manual steps."""
from __future__ import annotations

from pathlib import Path

from conftest import Store, run_plan, write_chart

# jenkins' shape: a `helm test` Pod; gatekeeper's: a post-install Job.
TEST_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: {{ .Release.Name }}-ui-test
  annotations: {"helm.sh/hook": test}
spec:
  restartPolicy: Never
  containers:
  - {name: test, image: "tester:{{ .Values.tag }}"}
"""
POST_INSTALL = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-probe-webhook
  annotations: {"helm.sh/hook": post-install, "helm.sh/hook-delete-policy": hook-succeeded}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: probe, image: "curl:{{ .Values.tag }}"}
"""
WEB = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: "nginx:{{ .Values.tag }}"}
"""
# gatekeeper's upgrade-crds-hook.yaml: the CRDs image applies the chart's crds/ before the upgrade.
CRDS_HOOK = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-update-crds-hook
  labels: {app: {{ .Release.Name }}, release: {{ .Release.Name }}}
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
    helm.sh/hook-weight: "1"
    helm.sh/hook-delete-policy: hook-succeeded,before-hook-creation
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: crds-upgrade
        image: "example/shop-crds:{{ .Values.tag }}"
        args: [apply, -f, crds/]
"""
CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.shop.example.com
spec:
  group: shop.example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {%s}}
"""


def _chart(root: Path, tag: str, templates: dict[str, str], crd: str | None = None) -> Path:
    extra = {"crds/widgets.yaml": CRD % crd} if crd is not None else None
    return write_chart(root / tag, "shop", templates, values=f"tag: \"{tag}\"\n", extra_files=extra)


def test_what_matters_names_the_images_of_the_hooks_this_upgrade_runs_only(helm: Path, store: Store,
                                                                          tmp_path: Path) -> None:
    templates = {"test-pod.yaml": TEST_POD, "post-install.yaml": POST_INSTALL, "web.yaml": WEB}
    store.add("shop", _chart(tmp_path, "1", templates), "shop")
    args = ("upgrade", "shop", str(_chart(tmp_path, "2", templates)), "-n", "shop")
    doc = run_plan(*args, "-o", "json", helm=helm, store=store).json()
    images = [(h["before"], h["after"]) for h in doc["highlights"] if h["what"] == "image"]
    assert images == [("nginx:1", "nginx:2")]
    # The hooks still change (their definitions are stored), and are shown as not running.
    assert sorted((t["name"], t["will_run"]) for t in doc["tasks"]) == [
        ("Job shop/shop-probe-webhook", False), ("Pod shop/shop-ui-test", False)]
    for output in ("text", "markdown"):
        shown = run_plan(*args, "-o", output, "--no-color", helm=helm, store=store).out
        head = shown.split("Resources")[0] if output == "text" else shown.split("<details>")[0]
        assert "nginx:2" in head and "tester:2" not in head and "curl:2" not in head, (output, head)


def test_a_changed_chart_crd_that_a_running_hook_applies_names_the_hook(helm: Path, store: Store,
                                                                       tmp_path: Path) -> None:
    store.add("shop", _chart(tmp_path, "1", {"crds-hook.yaml": CRDS_HOOK}, "size: {type: integer}"), "shop")
    args = ("upgrade", "shop", str(_chart(tmp_path, "2", {"crds-hook.yaml": CRDS_HOOK}, "size: {type: string}")),
            "-n", "shop")
    doc = run_plan(*args, "-o", "json", helm=helm, store=store).json()
    (warning,) = [w for w in doc["warnings"] if w["code"] == "crd-not-upgraded"]
    assert warning["facts"]["hook"] == "Job shop/shop-update-crds-hook"
    assert warning["facts"]["hook_resource"]["name"] == "shop-update-crds-hook"
    assert "likely applies it" in warning["message"] and "apply it yourself" not in warning["message"]
    for output in ("text", "markdown"):
        shown = run_plan(*args, "-o", output, "--no-color", helm=helm, store=store).out
        assert "apply it yourself" not in shown, output
        assert "likely applies it" in shown, output
        # The text's CRD section says it again on the CRD's line; the comment says it once, in the warning.
        assert ("likely does" in shown) is (output == "text"), output
    # Without the hook, the manual steps.
    store.path.write_text("[]\n")
    store.add("shop", _chart(tmp_path / "bare", "1", {"web.yaml": WEB}, "size: {type: integer}"), "shop")
    bare = run_plan("upgrade", "shop", str(_chart(tmp_path / "bare", "2", {"web.yaml": WEB}, "size: {type: string}")),
                    "-n", "shop", "-o", "json", helm=helm, store=store).json()
    (warning,) = [w for w in bare["warnings"] if w["code"] == "crd-not-upgraded"]
    assert warning["facts"].get("hook") is None and "apply it yourself" in warning["message"]
