"""A dependency chart's crds/ (charts/sub/crds/): Helm installs them with the chart's own
(chart.CRDObjects walks the dependencies) and never upgrades them; its release record keeps no
dependency charts, so an upgrade cannot compare them with the previous revision's."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from conftest import Store, clean_env, run_plan, write_chart
from kubeapi import FakeKube

pytestmark = pytest.mark.e2e  # each test starts helm-plan or helm as a process

_CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: {plural}.{group}
spec:
  group: {group}
  names:
    kind: {kind}
    plural: {plural}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          {field}:
            type: string
"""


def _chart(root: Path, field: str, version: str) -> Path:
    """A top chart with a CRD of its own and a vendored dependency `sub` with one in its crds/
    (the shape of kube-prometheus-stack's charts/crds/crds/); `field` is the dependency CRD's."""
    chart = write_chart(root, "top", {"cm.yaml": f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: top\n"
                                                 f"data:\n  v: \"{version}\"\n"}, version=version, extra_files={
        "crds/widgets.yaml": _CRD.format(plural="widgets", group="top.example.com", kind="Widget", field="size"),
        "charts/sub/Chart.yaml": f"apiVersion: v2\nname: sub\nversion: {version}\n",
        "charts/sub/crds/gadgets.yaml": _CRD.format(plural="gadgets", group="sub.example.com", kind="Gadget",
                                                    field=field),
    })
    chart_yaml = chart / "Chart.yaml"
    chart_yaml.write_text(chart_yaml.read_text() + f"dependencies:\n- name: sub\n  version: {version}\n")
    return chart


def _render(helm: Path, chart: Path, out: Path) -> Path:
    done = subprocess.run([str(helm), "template", "top", str(chart), "--include-crds"], capture_output=True,
                          text=True, env=clean_env(), check=True)
    out.write_text(done.stdout)
    return out


def test_diff_reports_a_changed_dependency_crd(helm: Path, tmp_path: Path) -> None:
    before = _render(helm, _chart(tmp_path / "v1", "size", "0.1.0"), tmp_path / "v1.yaml")
    after = _render(helm, _chart(tmp_path / "v2", "colour", "0.2.0"), tmp_path / "v2.yaml")
    doc = run_plan("diff", str(before), str(after), "-o", "json").json()
    changed = {c["name"]: (c["source"], c["chart_changed"]) for c in doc["chart_crds"]}
    assert changed == {"widgets.top.example.com": ("top/crds/widgets.yaml", False),
                       "gadgets.sub.example.com": ("top/charts/sub/crds/gadgets.yaml", True)}
    assert [w["facts"]["name"] for w in doc["warnings"] if w["code"] == "crd-not-upgraded"] == [
        "gadgets.sub.example.com"]
    # A render holds the dependency's previous copy: nothing is left unknown.
    assert not [w for w in doc["warnings"] if w["code"] == "crd-change-unknown"]


def test_an_upgrade_says_a_dependency_crd_cannot_be_compared_with_the_record(
        helm: Path, store: Store, tmp_path: Path) -> None:
    store.add("top", _chart(tmp_path / "v1", "size", "0.1.0"))
    chart = _chart(tmp_path / "v2", "colour", "0.2.0")
    doc = run_plan("upgrade", "top", str(chart), "-o", "json", helm=helm, store=store).json()
    crds = {c["name"]: (c["lifecycle"], c["chart_changed"]) for c in doc["chart_crds"]}
    # The top chart's own crds/ are in the record: compared. The dependency's are not.
    assert crds == {"widgets.top.example.com": ("not-on-upgrade", False),
                    "gadgets.sub.example.com": ("not-on-upgrade", None)}
    unknown = [w for w in doc["warnings"] if w["code"] == "crd-change-unknown"]
    assert [w["facts"] for w in unknown] == [{"dependency": "sub", "names": ["gadgets.sub.example.com"],
                                              "live": "not-read"}]
    assert unknown[0]["severity"] == "warning"
    text = run_plan("upgrade", "top", str(chart), helm=helm, store=store).out
    assert ("dependency chart sub brings CRDs in its crds/ (gadgets.sub.example.com); the release record keeps no "
            "dependency charts and the live CRDs were not read, so whether they changed cannot be told") in text
    markdown = run_plan("upgrade", "top", str(chart), "-o", "markdown", helm=helm, store=store).out
    assert "gadgets.sub.example.com" in markdown and "cannot be told" in markdown


def test_with_the_cluster_a_dependency_crd_is_judged_by_its_live_copy(helm: Path, store: Store,
                                                                       tmp_path: Path) -> None:
    store.add("top", _chart(tmp_path / "v1", "size", "0.1.0"), "shop")
    chart = _chart(tmp_path / "v2", "colour", "0.2.0")
    with FakeKube(namespace="shop", context="fake-ctx") as kube:
        kube.load_releases(store.path)
        kube.put(yaml.safe_load(_CRD.format(plural="widgets", group="top.example.com", kind="Widget", field="size")))
        # The cluster holds the dependency's old CRD, the one the previous chart installed.
        kube.put(yaml.safe_load(_CRD.format(plural="gadgets", group="sub.example.com", kind="Gadget", field="size")))
        kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
        result = run_plan("upgrade", "top", str(chart), "-n", "shop", "-o", "json", "--render", "template",
                          helm=helm, KUBECONFIG=kubeconfig)
        assert result.code == 0, result.err
        doc = result.json()
        assert doc["live"]["status"] == "checked"
        assert [w["facts"] for w in doc["warnings"] if w["code"] == "crd-change-unknown"] == [
            {"dependency": "sub", "names": ["gadgets.sub.example.com"], "live": "differs"}]
        live = {c["name"]: c["live_differs"] for c in doc["chart_crds"]}
        assert live == {"widgets.top.example.com": False, "gadgets.sub.example.com": True}
        # The cluster's copy is the new chart's: nothing to say of it.
        kube.put(yaml.safe_load(_CRD.format(plural="gadgets", group="sub.example.com", kind="Gadget",
                                            field="colour")))
        doc = run_plan("upgrade", "top", str(chart), "-n", "shop", "-o", "json", "--render", "template",
                       helm=helm, KUBECONFIG=kubeconfig).json()
        assert not [w for w in doc["warnings"] if w["code"] == "crd-change-unknown"]


def _new_crd_chart(root: Path, with_gizmos: bool) -> Path:
    """A chart whose second version adds a CRD to crds/ and a custom resource of its kind."""
    templates = {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: top\n"}
    files = {"crds/widgets.yaml": _CRD.format(plural="widgets", group="top.example.com", kind="Widget", field="size")}
    if with_gizmos:
        templates["gizmo.yaml"] = "apiVersion: top.example.com/v1\nkind: Gizmo\nmetadata:\n  name: g1\n"
        files["crds/gizmos.yaml"] = _CRD.format(plural="gizmos", group="top.example.com", kind="Gizmo", field="size")
    return write_chart(root, "top", templates, version="0.2.0" if with_gizmos else "0.1.0", extra_files=files)


def test_a_crd_new_in_crds_on_upgrade_is_not_created(helm: Path, store: Store, tmp_path: Path) -> None:
    """Helm creates crds/ only on install: an upgrade that adds one leaves it out, and the chart's
    custom resource of its kind fails where the cluster does not serve it."""
    store.add("top", _new_crd_chart(tmp_path / "v1", False), "shop")
    chart = _new_crd_chart(tmp_path / "v2", True)
    doc = run_plan("upgrade", "top", str(chart), "-n", "shop", "-o", "json", helm=helm, store=store).json()
    assert [w["facts"] for w in doc["warnings"] if w["code"] == "crd-not-created"] == [
        {"name": "gizmos.top.example.com", "source": "top/crds/gizmos.yaml", "live": "not-read", "custom_resources": 1,
         "hook": None, "hook_resource": None}]
    text = run_plan("upgrade", "top", str(chart), "-n", "shop", helm=helm, store=store).out
    assert "gizmos.top.example.com (top/crds/gizmos.yaml): not processed" in text
    assert "NEW in the chart, and this upgrade will not create it: apply it yourself" in text
    with FakeKube(namespace="shop", context="fake-ctx",
                  custom=[("top.example.com/v1", "widgets", "Widget", True)]) as kube:
        kube.load_releases(store.path)
        kube.put(yaml.safe_load(_CRD.format(plural="widgets", group="top.example.com", kind="Widget", field="size")))
        kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
        result = run_plan("upgrade", "top", str(chart), "-n", "shop", "-o", "json", "--render", "template",
                          helm=helm, KUBECONFIG=kubeconfig)
        assert result.code == 0, result.err
        doc = result.json()
        assert [w["facts"]["live"] for w in doc["warnings"] if w["code"] == "crd-not-created"] == ["missing"]
        (missing,) = [w for w in doc["warnings"] if w["code"] == "crd-missing"]
        assert missing["predicted_failure"] and missing["facts"]["chart_crd"] == "top/crds/gizmos.yaml"
        assert doc["summary"]["predicted_failures"] == 1
