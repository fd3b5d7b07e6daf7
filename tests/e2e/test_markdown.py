"""Markdown for pull requests: escaping, and the size cap on a big plan."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import run_plan
from deployah_plan.render.markdown import CAP


def _objects(count: int, image: str) -> str:
    """ConfigMaps whose image changes differ from one another (so none is a common change)."""
    docs = []
    for i in range(count):
        docs.append(f"---\n# Source: big/templates/cm-{i:04d}.yaml\napiVersion: v1\nkind: ConfigMap\n"
                    f"metadata: {{name: cm-{i:04d}}}\ndata: {{image: \"{image}-{i}\", index: \"{i}\"}}\n")
    return "".join(docs)


@pytest.mark.e2e
def test_a_5000_object_plan_fits_a_comment_and_says_what_was_cut(tmp_path: Path) -> None:
    previous = _objects(5000, "app:1") + "---\napiVersion: v1\nkind: Service\nmetadata: {name: gone}\n"
    hook = ("---\n# Source: big/templates/old.yaml\napiVersion: batch/v1\nkind: Job\n"
            "metadata: {name: old, annotations: {helm.sh/hook: crd-install}}\n")
    (tmp_path / "p.yaml").write_text(previous)
    (tmp_path / "d.yaml").write_text(_objects(5000, "app:2") + hook)
    result = run_plan("diff", "p.yaml", "d.yaml", "-o", "markdown", "--kind-order", "helm3", cwd=tmp_path)
    assert result.code == 0, result.err
    out = result.out
    assert len(out) < CAP
    # The summary table and the warnings come first and survive the cut.
    assert "| 0 | 5,000 | 1 | 0 | 0 | 0 |" in out
    assert "**Plan: 0 to create, 5000 to update, 1 to delete.**" in out
    assert "unknown hook event 'crd-install'" in out
    # The cut is stated, at the top, with what was cut.
    note = next(line for line in out.splitlines() if line.startswith("> **Cut to fit a comment"))
    # The cut is stated, at the top, naming the objects whose details or lines were left out.
    assert "Not shown: the details of " in note and "(ConfigMap default/cm-0000, ConfigMap default/cm-0001," in note
    assert re.search(r"; [0-9,]+ objects \(ConfigMap default/cm-", note)
    assert out.index(note) < out.index("#### Resources")
    assert "more objects, not shown here (see the JSON plan)" in out
    # Field changes go before whole lines: the objects shown keep one line each, in Helm's order,
    # marked as cut; the delete matters more than any of them and keeps its line.
    # Cut to its line, an entry keeps the shape of the others (an empty <details>).
    assert "</summary>\n\n" not in out.split("#### Resources", 1)[1].split("\n#### ", 1)[0]
    assert ("<details><summary><code>~ update</code> ConfigMap default/cm-0000 (1 field change) <i>(details cut to "
            "fit)</i></summary></details>\n\n<details><summary><code>~ update</code> ConfigMap default/cm-0001") in out
    assert "<details><summary><code>- delete</code> Service default/gone <i>(details cut to fit)</i></summary></details>" in out


@pytest.mark.e2e
def test_a_small_plan_is_not_cut(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(_objects(3, "app:1"))
    (tmp_path / "d.yaml").write_text(_objects(3, "app:2"))
    out = run_plan("diff", "p.yaml", "d.yaml", "-o", "markdown", cwd=tmp_path).out
    assert "Cut to fit" not in out and out.count("<details>") == 3


def _crd(prose: str) -> str:
    """A CRD whose schema carries 2,000 described fields with defaults (about 480,000
    characters): the prose edits are counted in one line, the defaults are details."""
    properties = "\n".join(f"              field{i:04d}:\n                type: string\n"
                           f"                description: \"{prose} {i} " + "x" * 80 + "\"\n"
                           f"                default: \"{prose} {i} " + "y" * 80 + "\"" for i in range(2000))
    return ("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
            "metadata: {name: widgets.example.com}\nspec:\n  group: example.com\n  scope: Namespaced\n"
            "  names: {kind: Widget, plural: widgets}\n  versions:\n    - name: v1\n      served: true\n"
            "      storage: true\n      schema:\n        openAPIV3Schema:\n          type: object\n"
            f"          properties:\n{properties}\n")


def _release(image: str, verbs: str, issuer: str, prose: str, legacy: bool) -> str:
    docs = [_crd(prose),
            f"apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {{name: app, namespace: shop}}\n"
            f"rules:\n  - apiGroups: ['']\n    resources: [secrets]\n    verbs: {verbs}\n",
            f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: app, namespace: shop}}\nspec:\n"
            f"  selector: {{matchLabels: {{app: a}}}}\n  template:\n    metadata: {{labels: {{app: a}}}}\n"
            f"    spec:\n      containers: [{{name: app, image: \"{image}\"}}]\n",
            f"apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {{name: app, namespace: shop}}\n"
            f"spec:\n  secretName: app-tls\n  issuerRef: {{name: {issuer}, kind: ClusterIssuer}}\n"]
    if legacy:
        docs.append("apiVersion: v1\nkind: Service\nmetadata: {name: legacy, namespace: shop}\n")
    return "---\n".join(docs)


@pytest.mark.e2e
def test_the_cut_keeps_what_matters_and_drops_crd_prose_first(tmp_path: Path) -> None:
    """A chart bump whose CRD schema changes alone are several comments long: the image, the
    widened Role, the values-driven issuer and the delete stay; the CRD's details go, and the
    note names it."""
    (tmp_path / "p.yaml").write_text(_release("app:1", "[get]", "staging", "Old words for", True))
    (tmp_path / "d.yaml").write_text(_release("app:2", "[get, delete]", "production", "New words for", False))
    out = run_plan("diff", "p.yaml", "d.yaml", "-o", "markdown", cwd=tmp_path).out
    assert len(out) < CAP
    head, details = out.split("#### Resources", 1)
    assert 'image "app:1" -\\> "app:2" in Deployment shop/app (app)' in head
    assert "RBAC: Role shop/app: rules changed" in head and "deleted: Service shop/legacy" in head
    for change in ('- spec.template.spec.containers[name=app].image: "app:1"', '+         [1]: "delete"',
                   '- spec.issuerRef.name: "staging"', '+ spec.issuerRef.name: "production"'):
        assert change in details, change
    note = next(line for line in head.splitlines() if line.startswith("> **Cut to fit a comment"))
    assert "CustomResourceDefinition widgets.example.com" in note
    assert "Deployment" not in note and "Role" not in note and "Certificate" not in note
    # The CRD's own block keeps its first rows and says how many more were cut.
    crd = details[details.index("CustomResourceDefinition widgets.example.com"):]
    crd = crd[:crd.index("</details>")]
    assert re.search(r"\n  … [0-9,]+ more rows cut to fit the comment\n", crd), crd[-300:]


@pytest.mark.e2e
def test_thousands_of_rollouts_fit_a_comment(tmp_path: Path) -> None:
    def deployments(image: str) -> str:
        return "".join(f"---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web-{n:04}}}\nspec:\n"
                       f"  replicas: 2\n  selector: {{matchLabels: {{app: web-{n:04}}}}}\n  template:\n"
                       f"    metadata: {{labels: {{app: web-{n:04}}}}}\n"
                       f"    spec: {{containers: [{{name: web, image: '{image}'}}]}}\n" for n in range(3000))
    (tmp_path / "p.yaml").write_text(deployments("app:1"))
    (tmp_path / "d.yaml").write_text(deployments("app:2"))
    out = run_plan("diff", "p.yaml", "d.yaml", "-o", "markdown", cwd=tmp_path).out
    assert len(out) < CAP
    assert "**Plan: 0 to create, 3000 to update, 0 to delete.**<br>\n**Impact: 3000 workloads restart (6000 pods).**" in out
    note = next(line for line in out.splitlines() if line.startswith("> **Cut to fit a comment"))
    assert "impacts" in note and "#### What the deploy does to running things" in out
    assert "- `~ restart` Deployment default/web-0000: pod template changes: 2 pods restart" in out
