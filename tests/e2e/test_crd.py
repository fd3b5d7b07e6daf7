"""A CustomResourceDefinition's change by meaning (core/crd.py), through `helm plan diff`.

What is expected comes from the fixtures and from Kubernetes' rules, not from the planner:
- a CRD's `spec.versions` entries have unique names (apiextensions validation), so a version
  is matched by its name, wherever it sits in the list;
- `description` is JSON Schema prose: an edit changes no custom resource (a property that is
  called `description` is a field, not prose);
- the API server refuses an update that leaves out a version the CRD's
  `status.storedVersions` still lists (ValidateCustomResourceDefinitionStoredVersions).
The real chart (argo-cd 9 to 10, whose CRDs are templates) is checked against a count of
prose edits made here from the two renders.
"""
from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import clean_env, run_plan
from realcharts import real_chart

pytestmark = pytest.mark.e2e  # each test starts helm-plan or helm as a process

# The Widget CRD up to its versions, the same in both renders.
CRD_HEAD = """\
# Source: shop/templates/crd.yaml
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.shop.example.com
spec:
  group: shop.example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
"""
PREVIOUS = CRD_HEAD + """\
  - name: v1alpha1
    served: true
    storage: false
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
  - name: v1beta1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
  - name: v1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        description: A widget.
        properties:
          spec:
            type: object
            description: What the widget should be.
            required: [size]
            properties:
              size: {type: integer, description: How big.}
              colour: {type: string, description: Which colour.}
              legacy: {type: string, description: Unused.}
              description: {type: string, description: "A free text property, called description."}
"""
# v1 moves to the front (matched by name, it is no change), v1alpha1 goes, v1beta1 stops being
# served and stored, v1 becomes the storage version; five prose edits, one of them to the
# property called `description`, whose own schema does not change otherwise.
DESIRED = CRD_HEAD + """\
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: A widget, made by the shop.
        properties:
          spec:
            type: object
            description: What the widget should be, as the user wants it.
            required: [size, colour]
            properties:
              size: {type: string, description: "How big, as a quantity."}
              colour: {type: string, description: Which colour the widget has.}
              shape: {type: string, description: Its shape.}
              description: {type: string, description: A free text.}
  - name: v1beta1
    served: false
    storage: false
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
"""
# Only the flags that change are listed (v1 stays served).
EXPECTED = [
    {"what": "version-removed", "version": "v1alpha1", "path": "", "before": None, "after": None},
    {"what": "storage-changed", "version": "v1", "path": "", "before": False, "after": True},
    {"what": "required-added", "version": "v1", "path": "spec.colour", "before": None, "after": None},
    {"what": "type-changed", "version": "v1", "path": "spec.size", "before": "integer", "after": "string"},
    {"what": "field-added", "version": "v1", "path": "spec.shape", "before": None, "after": "string"},
    {"what": "field-removed", "version": "v1", "path": "spec.legacy", "before": "string", "after": None},
    {"what": "served-changed", "version": "v1beta1", "path": "", "before": True, "after": False},
    {"what": "storage-changed", "version": "v1beta1", "path": "", "before": True, "after": False},
]


def _files(tmp_path: Path, previous: str = PREVIOUS, desired: str = DESIRED) -> tuple[str, str]:
    (tmp_path / "previous.yaml").write_text(previous)
    (tmp_path / "desired.yaml").write_text(desired)
    return "previous.yaml", "desired.yaml"


def test_a_crd_change_is_summarised_by_meaning(tmp_path: Path) -> None:
    files = _files(tmp_path)
    doc = run_plan("diff", *files, "--kube-version", "1.34", "-o", "json", cwd=tmp_path).json()
    (change,) = doc["changes"]
    summary = change["crd_schema"]
    # In the order core/crd.py gives: versions added, then removed, then each version of the new
    # CRD with its served and storage flags, then its schema in document order.
    assert summary["changes"] == EXPECTED
    assert summary["descriptions"] == 5
    prose = [f["path"] for f in change["fields"] if f.get("crd_description")]
    assert len(prose) == 5 and all(p.endswith("/description") for p in prose)
    assert "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/description/description" in prose
    # Versions are matched by name: v1 moved to the front (a reorder) and is compared with the
    # old v1, field by field; the list is never replaced whole.
    whole = [f["op"] for f in change["fields"] if f["path"] == "/spec/versions"]
    assert whole == ["reorder"]
    named = {f["path"]: f["keys"] for f in change["fields"] if f["path"].startswith("/spec/versions/")}
    assert named["/spec/versions/0/storage"] == {"/spec/versions/0": {"name": "v1"}}
    assert named["/spec/versions/1/served"] == {"/spec/versions/1": {"name": "v1beta1"}}
    (gone,) = [f for f in change["fields"] if f["op"] == "remove" and f["path"].count("/") == 3]
    assert gone["keys"] == {gone["path"]: {"name": "v1alpha1"}}


def test_text_counts_the_prose_and_names_what_matters(tmp_path: Path) -> None:
    files = _files(tmp_path)
    text = run_plan("diff", *files, "--kube-version", "1.34", "--no-color", cwd=tmp_path).out
    assert "* 5 description changes (schema prose; each one is in the JSON plan)" in text
    for line in ("* version v1alpha1 removed", "* v1: storage False -> True", "* v1: spec.colour now required",
                 "* v1: type of spec.size integer -> string", "* v1: new field spec.shape (string)",
                 "* v1: field spec.legacy removed (was string)", "* v1beta1: served True -> False"):
        assert line in text
    assert "Which colour the widget has" not in text and "made by the shop" not in text
    markdown = run_plan("diff", *files, "--kube-version", "1.34", "-o", "markdown", cwd=tmp_path).out
    assert "5 description changes" in markdown and "made by the shop" not in markdown


def _live_crd(stored: list[str]) -> str:
    live = yaml.safe_load(PREVIOUS)
    live["metadata"].update(uid="u-1", resourceVersion="7")
    live["status"] = {"storedVersions": stored, "acceptedNames": {"kind": "Widget", "plural": "widgets"}}
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [live]})


def test_removing_a_version_the_cluster_still_stores_fails(tmp_path: Path) -> None:
    files = _files(tmp_path)
    (tmp_path / "live.yaml").write_text(_live_crd(["v1alpha1", "v1beta1"]))
    doc = run_plan("diff", *files, "--kube-version", "1.34", "--live", "live.yaml", "-o", "json", cwd=tmp_path).json()
    (failure,) = [w for w in doc["warnings"] if w["code"] == "crd-version-removed"]
    assert failure["predicted_failure"] and "removes version v1alpha1" in failure["message"]
    assert doc["summary"]["predicted_failures"] == 1
    # Stored objects migrated, and v1alpha1 taken out of status.storedVersions: the update is accepted.
    (tmp_path / "live.yaml").write_text(_live_crd(["v1beta1"]))
    doc = run_plan("diff", *files, "--kube-version", "1.34", "--live", "live.yaml", "-o", "json", cwd=tmp_path).json()
    assert not [w for w in doc["warnings"] if w["code"] == "crd-version-removed"]


def test_removing_a_version_without_the_live_crd_is_a_warning(tmp_path: Path) -> None:
    files = _files(tmp_path)
    doc = run_plan("diff", *files, "--kube-version", "1.34", "-o", "json", cwd=tmp_path).json()
    (warning,) = [w for w in doc["warnings"] if w["code"] == "crd-version-removed"]
    assert warning["severity"] == "warning" and not warning["predicted_failure"]
    assert doc["summary"]["predicted_failures"] == 0


# -- a real chart ------------------------------------------------------------------------------

def _render(helm4: Path, side: str, out: Path) -> dict[str, Any]:
    argo = real_chart("argo-cd")
    values = ["-f", str(argo / "values.yaml")] + (["-f", str(argo / "values-next.yaml")] if side == "next" else [])
    done = subprocess.run([str(helm4), "template", "argocd", str(argo / side), "-n", "argocd", *values,
                           "--set", "configs.secret.argocdServerAdminPasswordMtime=2025-01-01T00:00:00Z"],
                          capture_output=True, text=True, env=clean_env())
    assert done.returncode == 0, done.stderr
    out.write_text(done.stdout)
    return {d["metadata"]["name"]: d for d in yaml.safe_load_all(done.stdout)
            if d and d["kind"] == "CustomResourceDefinition"}


def _prose_edits(old: Any, new: Any) -> int:
    """Prose edits between two schemas: a `description` keyword that differs in a schema node
    present on both sides (one added with a whole new property is part of that property)."""
    count = 0
    if isinstance(old, dict) and isinstance(new, dict):
        if old.get("description") != new.get("description"):
            count += 1
        for key in set(old) & set(new):
            if key == "properties":  # names of properties, each a schema
                count += sum(_prose_edits(old[key][n], new[key][n]) for n in set(old[key]) & set(new[key]))
            elif key != "description":
                count += _prose_edits(old[key], new[key])
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        count += sum(_prose_edits(a, b) for a, b in zip(old, new))
    return count


def test_argo_cd_crds_count_their_prose(helm4: Path, tmp_path: Path) -> None:
    before = _render(helm4, "prev", tmp_path / "previous.yaml")
    after = _render(helm4, "next", tmp_path / "desired.yaml")
    doc = run_plan("diff", "previous.yaml", "desired.yaml", "--release", "argocd", "-n", "argocd",
                   "--kube-version", "1.34", "-o", "json", cwd=tmp_path).json()
    crds = {c["resource"]["name"]: c for c in doc["changes"] if c["resource"]["kind"] == "CustomResourceDefinition"}
    assert crds and set(crds) <= set(after)
    for name, change in crds.items():
        old = {v["name"]: v["schema"]["openAPIV3Schema"] for v in before[name]["spec"]["versions"]}
        new = {v["name"]: v["schema"]["openAPIV3Schema"] for v in after[name]["spec"]["versions"]}
        want = sum(_prose_edits(old[v], new[v]) for v in set(old) & set(new))
        assert change["crd_schema"]["descriptions"] == want, name
    added = [c["path"] for c in crds["appprojects.argoproj.io"]["crd_schema"]["changes"] if c["what"] == "field-added"]
    assert added == ["spec.clusterResourceBlacklist[].name", "spec.clusterResourceWhitelist[].name"]
    assert doc["summary"]["predicted_failures"] == 0
