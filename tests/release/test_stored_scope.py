"""A decoded release (encoding/json's shape: []byte as base64, maps as objects) read as the
`helm get all` templates print it (release/stored_scope.py), for `helm plan kube-upgrade`. The
whole command over the loopback API server: tests/e2e/test_kube_upgrade_fleet.py."""
from __future__ import annotations

import base64

from deployah_plan.model import ApplyMethod
from deployah_plan.release.stored_scope import chart_of, chart_record, stored_release
from deployah_plan.sources.helm_commands import MAX_CHART_FILE


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


RELEASE = {
    "name": "web", "namespace": "apps", "version": 3, "info": {"status": "deployed"},
    "manifest": "---\n# Source: web/templates/cm.yaml\nkind: ConfigMap\n", "apply_method": "ssa",
    "config": {"replicas": 2},
    "hooks": [{"name": "check", "kind": "Job", "path": "web/templates/hook.yaml", "manifest": "kind: Job"}],
    "chart": {
        "metadata": {"name": "web", "version": "1.2.0", "annotations": {"a": "1"}, "keywords": ["x"]},
        "templates": [{"name": "templates/cm.yaml", "data": _b64(b"kind: ConfigMap\n")}],
        "files": [{"name": "crds/thing.yaml", "data": _b64(b"kind: CustomResourceDefinition\n")},
                  {"name": "big.bin", "data": _b64(b"\0" * (MAX_CHART_FILE + 1))}],
        "schema": _b64(b'{"type": "object"}'),
        "values": {"replicas": 1},
    },
}


def test_the_stored_chart_reads_as_the_chart_template_prints_it() -> None:
    record = chart_record(RELEASE["chart"], "web")  # type: ignore[arg-type]
    chart = record["chart"]
    assert chart["metadata"]["annotations"] == [["a", "1"]] and chart["metadata"]["keywords"] == ["x"]
    assert chart["templates"] == [{"name": "templates/cm.yaml", "data": b"kind: ConfigMap\n".hex()}]
    assert chart["files"][0] == {"name": "crds/thing.yaml", "data": b"kind: CustomResourceDefinition\n".hex()}
    assert chart["files"][1] == {"name": "big.bin", "size": MAX_CHART_FILE + 1}  # refused by write_chart, unread
    assert bytes.fromhex(chart["schema"]) == b'{"type": "object"}'
    assert chart_of(RELEASE) == "web-1.2.0"


def test_the_release_reads_as_helm_get_all_prints_it() -> None:
    stored = stored_release(RELEASE)
    assert (stored.name, stored.namespace, stored.revision, stored.status) == ("web", "apps", 3, "deployed")
    assert (stored.chart_name, stored.chart_version, stored.apply_method) == ("web", "1.2.0", ApplyMethod.SSA)
    assert stored.hooks_stream == "---\n# Source: web/templates/hook.yaml\nkind: Job\n"
    assert stored.crds_stream == "---\n# Source: web/crds/thing.yaml\nkind: CustomResourceDefinition\n\n"
    assert stored.values == {"replicas": 2} and stored.manifest == RELEASE["manifest"]
    helm3 = stored_release({**RELEASE, "apply_method": None})
    assert helm3.apply_method is None
