"""A decoded release's stored chart (encoding/json's shape: []byte as base64, maps as objects)
read as the `helm get all` chart template prints it (release/stored_scope.py), for `helm plan
kube-upgrade`. The whole command over the loopback API server: tests/e2e/test_kube_upgrade_fleet.py."""
from __future__ import annotations

import base64

from deployah_plan.release.stored_chart import chart_record
from deployah_plan.release.stored_scope import chart_of
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
    record = chart_record(RELEASE["chart"])  # type: ignore[arg-type]
    chart = record["chart"]
    assert chart["metadata"]["annotations"] == [["a", "1"]] and chart["metadata"]["keywords"] == ["x"]
    assert chart["templates"] == [{"name": "templates/cm.yaml", "data": b"kind: ConfigMap\n".hex()}]
    assert chart["files"][0] == {"name": "crds/thing.yaml", "data": b"kind: CustomResourceDefinition\n".hex()}
    assert chart["files"][1] == {"name": "big.bin", "size": MAX_CHART_FILE + 1}  # refused by write_chart, unread
    assert bytes.fromhex(chart["schema"]) == b'{"type": "object"}'
    assert chart_of(RELEASE) == "web-1.2.0"
