"""A stored release's chart (release/stored_chart.py): its Chart.yaml keeps the metadata and drops
the dependencies, and a subchart's documents are those under its charts/ folder.
`helm plan kube-upgrade` end to end is tests/e2e/test_kube_upgrade.py."""
from __future__ import annotations


from deployah_plan.release.stored_chart import chart_yaml, subchart_documents


# -- the fast tier ------------------------------------------------------------------------------


def test_chart_yaml_keeps_the_metadata_and_drops_the_dependencies() -> None:
    metadata = {"apiVersion": "v2", "name": "x", "version": "1.0.0", "kubeVersion": ">=1.20.0-0", "appVersion": "",
                "deprecated": False, "keywords": ["a", None], "annotations": [["k", "v"], None],
                "maintainers": [{"name": "me", "email": "", "url": ""}, None],
                "dependencies": [{"name": "child", "alias": ""}, None]}
    assert chart_yaml(metadata) == {"apiVersion": "v2", "name": "x", "version": "1.0.0", "kubeVersion": ">=1.20.0-0",
                                    "keywords": ["a"], "annotations": {"k": "v"}, "maintainers": [{"name": "me"}]}


def test_subchart_documents_are_those_under_the_charts_folder() -> None:
    manifest = ("---\n# Source: parent/templates/a.yaml\nkind: ConfigMap\n"
                "---\n# Source: parent/charts/child/templates/b.yaml\nkind: Secret\n")
    hooks = "---\n# Source: parent/charts/child/templates/hook.yaml\nkind: Job\n"
    assert subchart_documents(manifest, hooks, "parent") == (
        "---\n# Source: parent/charts/child/templates/b.yaml\nkind: Secret\n"
        "---\n# Source: parent/charts/child/templates/hook.yaml\nkind: Job\n")
