"""The live-state source (deployah_plan/sources/cluster.py) without a server: settings from helm's
environment, nothing to connect to, and live files (kubectl lists, API lists, documents, bad or
missing files). Against a real HTTP API server on loopback: tests/e2e/test_cluster_source.py."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from deployah_plan.errors import LiveStateError
from deployah_plan.live_snapshot import KindRef, LiveSnapshot
from deployah_plan.sources.cluster import load_live_file, read_live
from deployah_plan.sources.kubeconfig import ClusterSettings, resolve_settings

CONFIGMAP, SECRET = KindRef("v1", "ConfigMap"), KindRef("v1", "Secret")


def _ids(snapshot: LiveSnapshot) -> list[tuple[str, str, str, str]]:
    return [(o["apiVersion"], o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"])
            for o in snapshot.objects]


def test_nothing_to_connect_to(tmp_path: Path) -> None:
    snapshot = read_live(resolve_settings({"KUBECONFIG": str(tmp_path / "none")}), [(CONFIGMAP, "shop")])
    assert not snapshot.reachable and snapshot.requests == 0
    assert snapshot.error == "no kubeconfig found and no API server given"


def test_settings_follow_helms_environment(tmp_path: Path) -> None:
    settings = resolve_settings({
        "KUBECONFIG": str(tmp_path / "missing"), "HELM_NAMESPACE": "shop", "HELM_KUBECONTEXT": "prod",
        "HELM_KUBETOKEN": "tok", "HELM_KUBEAPISERVER": "https://k8s.example:6443", "HELM_KUBECAFILE": "/ca.pem",
        "HELM_KUBEINSECURE_SKIP_TLS_VERIFY": "true", "HELM_KUBETLS_SERVER_NAME": "k8s.internal",
        "HELM_KUBEASUSER": "alice", "HELM_KUBEASGROUPS": " ,dev,ops, ",
    })
    assert settings == ClusterSettings(
        kubeconfig=(), context="prod", namespace="shop", token="tok", api_server="https://k8s.example:6443",
        ca_file="/ca.pem", insecure_skip_tls_verify=True, tls_server_name="k8s.internal", as_user="alice",
        as_groups=("dev", "ops"))
    # Go's strconv.ParseBool; anything it rejects is false, as in helm.
    for text, value in (("1", True), ("T", True), ("yes", False), ("", False), ("0", False)):
        assert resolve_settings({"HELM_KUBEINSECURE_SKIP_TLS_VERIFY": text}).insecure_skip_tls_verify is value
    # The flags given to the plugin directly win over the environment.
    flagged = resolve_settings({"HELM_NAMESPACE": "shop", "HELM_KUBECONTEXT": "prod"}, namespace="web", context="dev")
    assert (flagged.namespace, flagged.context) == ("web", "dev")


# -- saved live state -----------------------------------------------------------------------------

KUBECTL_LIST = """\
apiVersion: v1
kind: List
metadata:
  resourceVersion: ""
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: shop-config
    namespace: shop
    annotations:
      meta.helm.sh/release-name: shop
  data:
    enabled: yes
    mode: "0777"
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: shop-web
    namespace: shop
  spec:
    replicas: 3
"""


def test_live_file_kubectl_list(tmp_path: Path) -> None:
    path = tmp_path / "live.yaml"
    path.write_text(KUBECTL_LIST)
    snapshot = load_live_file(path)
    assert snapshot.reachable and snapshot.requests == 0 and snapshot.unreadable == ()
    assert _ids(snapshot) == [("v1", "ConfigMap", "shop", "shop-config"), ("apps/v1", "Deployment", "shop", "shop-web")]
    # Read as Kubernetes reads YAML: `yes` is a boolean, a quoted number a string.
    assert snapshot.objects[0]["data"] == {"enabled": True, "mode": "0777"}


def test_live_file_api_list_and_documents(tmp_path: Path) -> None:
    api_list = {"apiVersion": "v1", "kind": "ConfigMapList", "metadata": {},
                "items": [{"metadata": {"name": "a", "namespace": "shop"}}]}
    path = tmp_path / "live.yaml"
    path.write_text(json.dumps(api_list) + "\n---\n# a comment\n---\n"
                    "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n")
    snapshot = load_live_file(path)
    assert _ids(snapshot) == [("v1", "ConfigMap", "shop", "a"), ("v1", "Namespace", "", "shop")]


@pytest.mark.parametrize("text, message", [
    ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [unclosed\n", "is not valid YAML at line"),
    ("apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n", "the document at line 1 (ConfigMap) has no metadata.name"),
    ("---\nkind: ConfigMap\nmetadata: {name: a}\n", "the document at line 2 has no apiVersion"),
    ("- a\n- b\n", "the document at line 1 is not a Kubernetes object"),
    ("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  metadata: {name: a}\n",
     "item 0 of the List at line 1 has no kind"),
    ("apiVersion: v1\nkind: List\nitems: {}\n", "the List at line 1 has items that are not a list"),
    ("apiVersion: v1\nkind: ConfigMap\nmetadata: [a]\n", "the document at line 1 (ConfigMap) has metadata that is a list, not a mapping"),
    ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: 5}\n",
     "the document at line 1 (ConfigMap) has metadata.namespace that is a number, not a string"),
    ("apiVersion: v1\nkind: ConfigMapList\nitems:\n- metadata: {name: a, labels: x}\n",
     "item 0 of the ConfigMapList at line 1 (ConfigMap) has metadata.labels that is a string, not a mapping"),
    ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, annotations: {meta.helm.sh/release-name: [shop]}}\n",
     "the document at line 1 (ConfigMap) has a value in metadata.annotations that is a list, not a string"),
])
def test_bad_live_files(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "live.yaml"
    path.write_text(text)
    with pytest.raises(LiveStateError) as caught:
        load_live_file(path)
    assert message in caught.value.message
    assert caught.value.hint and "\n" not in str(caught.value)


def test_missing_live_file(tmp_path: Path) -> None:
    with pytest.raises(LiveStateError, match="cannot read the live state file .*: No such file"):
        load_live_file(tmp_path / "nope.yaml")
