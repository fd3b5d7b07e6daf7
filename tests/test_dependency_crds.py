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
