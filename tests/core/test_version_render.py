"""Which objects render differently for another Kubernetes version (core/version_render.py),
and the note the plan makes of it (commands/upgrade_flags.py `kube_version_note`): issue 45
point 3, a template that reads the version warns only when the version changes what it
renders. Planned with real helm: tests/e2e/test_kube_version.py."""
from __future__ import annotations

from typing import Any

from deployah_plan.codes import Severity
from deployah_plan.commands.upgrade_flags import kube_version_note
from deployah_plan.sources.helm_versions import older_version
from deployah_plan.core.version_render import differing
from deployah_plan.facts import KubeVersionDefault
from deployah_plan.manifests import Document, Rendered
from deployah_plan.model import ResourceRef

WINDOW = (1_700_000_000.0, 1_700_000_002.0)


def _doc(kind: str, name: str, position: int, source: str = "", **fields: Any) -> Document:
    api = {"Deployment": "apps/v1", "PodDisruptionBudget": "policy/v1", "ClusterRole": "rbac.authorization.k8s.io/v1"}
    obj = {"apiVersion": fields.pop("api", api.get(kind, "v1")), "kind": kind, "metadata": {"name": name}, **fields}
    return Document(obj, source or f"shop/templates/{name}.yaml", position)


def _deploy(image: str, position: int = 0) -> Document:
    return _doc("Deployment", "web", position, spec={"template": {"spec": {"containers": [{"name": "w", "image": image}]}}})


def test_the_same_objects_for_both_versions_differ_in_nothing() -> None:
    first = Rendered((_deploy("web:1"), _doc("PodDisruptionBudget", "web", 1, spec={"maxUnavailable": 1})))
    assert differing(first, first, None, WINDOW, "shop") == ()


def test_a_field_that_the_version_moves_names_its_object() -> None:
    first = Rendered((_doc("ConfigMap", "plain", 0, data={"a": "b"}), _deploy("kubectl:v1.37.0", 1)))
    other = Rendered((_doc("ConfigMap", "plain", 0, data={"a": "b"}), _deploy("kubectl:v1.34.0", 1)))
    assert differing(first, other, None, WINDOW, "shop") == (ResourceRef("apps/v1", "Deployment", "shop", "web"),)


def test_an_object_in_one_render_only_differs_cluster_scoped_without_a_namespace() -> None:
    """An apiVersion chosen by the version that changes the group is another object; an object
    one version renders and the other does not differs too."""
    first = Rendered((_doc("Ingress", "web", 0, api="networking.k8s.io/v1"), _doc("ClusterRole", "psp", 1)))
    other = Rendered((_doc("Ingress", "web", 0, api="extensions/v1beta1"),))
    assert differing(first, other, None, WINDOW, "shop") == (
        ResourceRef("networking.k8s.io/v1", "Ingress", "shop", "web"),
        ResourceRef("rbac.authorization.k8s.io/v1", "ClusterRole", "", "psp"),
        ResourceRef("extensions/v1beta1", "Ingress", "shop", "web"))


def test_what_the_chart_makes_anew_is_not_the_versions() -> None:
    """A field that differs between two renders of the same inputs (the second render), a
    value that is the time of the render, and an object named anew: none is the version's."""
    secret = _doc("Secret", "db", 0, data={"password": "QUJD", "when": "MjAyMy0xMS0xNFQyMjoxMzoyMFo="})
    first = Rendered((secret, _doc("Pod", "test-abcde", 1, source="shop/templates/test.yaml")))
    other = Rendered((_doc("Secret", "db", 0, data={"password": "WFla", "when": "MjAyMy0xMS0xNFQyMjoxMzoyMVo="}),
                      _doc("Pod", "test-fghij", 1, source="shop/templates/test.yaml")))
    again = Rendered((_doc("Secret", "db", 0, data={"password": "R0hJ", "when": "MjAyMy0xMS0xNFQyMjoxMzoyMFo="}),
                      _doc("Pod", "test-klmno", 1, source="shop/templates/test.yaml")))
    assert differing(first, other, again, WINDOW, "shop") == ()
    # Without the second render, the password and the Pods are differences.
    assert [r.name for r in differing(first, other, None, WINDOW, "shop")] == ["db", "test-abcde", "test-fghij"]
    # What the second render does not move, the version does.
    moved = Rendered((_doc("Secret", "db", 0, data={"password": "QUJD", "when": "MjAyMy0xMS0xNFQyMjoxMzoyMFo=",
                                                    "version": "MS4zNA=="}),))
    assert [r.name for r in differing(Rendered((secret,)), moved, again, WINDOW, "shop")] == ["db"]


def test_the_older_version_is_three_minors_below_helms_default() -> None:
    assert older_version("v1.37.0") == "1.34.0" and older_version("1.34.0") == "1.31.0"
    assert older_version("") == "" and older_version("v1.2.0") == "" and older_version("garbage") == ""


def test_the_note_warns_only_when_the_versions_render_differently() -> None:
    web = ResourceRef("apps/v1", "Deployment", "shop", "web")
    refs = tuple(ResourceRef("v1", "ConfigMap", "shop", f"c{n}") for n in range(4))
    differs = kube_version_note("shop", "v1.37.0", "", "1.34.0", (web, *refs))
    assert differs.severity is Severity.WARNING
    assert differs.facts == KubeVersionDefault(chart="shop", kube_version="1.37.0", compared_version="1.34.0",
                                               differing=(web, refs[0], refs[1]), differing_count=5)
    assert kube_version_note("shop", "v1.37.0", "", "1.34.0", ()).severity is Severity.INFO
    # Not compared (helm's default unknown, or the older render failed): a warning, as before.
    assert kube_version_note("shop", "", "", "", ()).severity is Severity.WARNING
