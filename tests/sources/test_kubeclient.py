"""A kubeconfig that cannot be used is one line (sources/kubeconfig.py, through read_live). Each
kubeconfig auth shape against the loopback API server is tests/e2e/test_kubeclient.py."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from deployah_plan.live_snapshot import KindRef, LiveSnapshot
from deployah_plan.sources.cluster import read_live
from deployah_plan.sources.kubeconfig import resolve_settings

CONFIGMAP = KindRef("v1", "ConfigMap")


def _read(config: Path, **env: str) -> LiveSnapshot:
    return read_live(resolve_settings({"KUBECONFIG": str(config), **env}), [(CONFIGMAP, "shop")])


# -- the kubeconfig itself ------------------------------------------------------------------------

@pytest.mark.parametrize("config, message", [
    ({"current-context": "nope", "contexts": []}, 'the kubeconfig has no context "nope"'),
    ({"current-context": "ctx", "contexts": [{"name": "ctx", "context": {"cluster": "gone"}}]},
     'the kubeconfig context "ctx" names no known cluster ("gone")'),
    ({"current-context": "ctx", "contexts": [{"name": "ctx", "context": {"cluster": "c"}}],
      "clusters": [{"name": "c", "cluster": {}}]}, 'the kubeconfig context "ctx" has no server'),
    ({"current-context": "ctx", "contexts": [{"name": "ctx", "context": {"cluster": "c", "user": "u"}}],
      "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:1"}}],
      "users": [{"name": "u", "user": {"client-certificate": "missing.crt", "client-key": "missing.key"}}]},
     "cannot read the kubeconfig's client-certificate"),
])
def test_bad_kubeconfigs_are_one_line(tmp_path: Path, config: dict[str, Any], message: str) -> None:
    path = tmp_path / "kc"
    path.write_text(json.dumps(config))
    snapshot = _read(path)
    assert not snapshot.reachable and message in snapshot.error and "\n" not in snapshot.error
