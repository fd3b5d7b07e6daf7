"""Splitting a rendered stream as Helm does (deployah_plan/manifests.py)."""
from __future__ import annotations

from deployah_plan.manifests import split_stream

# What `helm template --include-crds` prints for a chart whose crds/ file starts with `---` and
# holds two CRDs (Helm prints a CRD file whole under one `# Source:` line), then a template.
STREAM = """---
# Source: web/crds/widgets.yaml
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
---
# Source: web/templates/config.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: config
"""


def names(docs: tuple) -> list[tuple[str, str]]:  # type: ignore[type-arg]
    return [(d.source, d.obj["metadata"]["name"]) for d in docs]


def test_a_crd_file_starting_with_a_separator_is_all_chart_crds() -> None:
    rendered = split_stream(STREAM, "helm template")
    assert names(rendered.crds) == [("web/crds/widgets.yaml", "widgets.example.com"),
                                    ("web/crds/widgets.yaml", "gadgets.example.com")]
    assert names(rendered.resources) == [("web/templates/config.yaml", "config")]


def test_a_separator_right_after_the_source_comment_starts_that_document() -> None:
    stream = "# Source: web/templates/a.yaml\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
    assert names(split_stream(stream, "s").resources) == [("web/templates/a.yaml", "a")]


def test_a_template_source_names_one_document_only() -> None:
    stream = ("# Source: web/templates/a.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
              "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n")
    assert names(split_stream(stream, "s").resources) == [("web/templates/a.yaml", "a"), ("", "b")]


def test_a_subchart_crd_is_a_chart_crd() -> None:
    stream = STREAM.replace("web/crds/", "web/charts/sub/crds/")
    assert len(split_stream(stream, "s").crds) == 2
