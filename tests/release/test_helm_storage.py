"""Helm's release storage read directly (release/helm_storage.py): records decoded as Helm's
decodeRelease does, the list asked in one GET, and the revision `helm upgrade` starts from.
That the decoded releases equal what real helm prints is tests/e2e/test_helm_storage.py."""
from __future__ import annotations

import base64
import gzip
import json
from typing import Any, Mapping, cast
from urllib.parse import urlencode

import pytest

from deployah_plan import deepjson
from deployah_plan.release import helm_storage
from deployah_plan.release.helm_storage import (
    Record, StorageError, choose_for_upgrade, driver_from_env, list_records, release, upgrade_state,
)
from deployah_plan.sources.kubeclient import KubeClient, Response


def _release(name: str = "web", version: int = 1, status: str = "deployed", namespace: str = "shop") -> dict[str, Any]:
    return {"name": name, "namespace": namespace, "version": version, "info": {"status": status},
            "manifest": "---\n# Source: c/templates/cm.yaml\nkind: ConfigMap\n", "config": {"replicas": 2},
            "chart": {"metadata": {"name": "c", "version": "1.0.0"}, "values": {"replicas": 1}}}


def _helm_value(record: dict[str, Any], compress: bool = True) -> str:
    """What Helm writes in the `release` key (pkg/storage/driver/util.go encodeRelease)."""
    raw = deepjson.dumps(record).encode()
    return base64.b64encode(gzip.compress(raw) if compress else raw).decode()


def _object(record: dict[str, Any], driver: str = "secret", compress: bool = True,
            labels: dict[str, Any] | None = None) -> dict[str, Any]:
    value = _helm_value(record, compress)
    return {"metadata": {"name": f"sh.helm.release.v1.{record['name']}.v{record['version']}",
                         "namespace": record["namespace"],
                         "labels": labels if labels is not None else {
                             "name": record["name"], "owner": "helm", "status": record["info"]["status"],
                             "version": str(record["version"])}},
            "data": {"release": base64.b64encode(value.encode()).decode() if driver == "secret" else value}}


class _Client:
    """KubeClient's get, over a fixed answer; keeps the URLs asked."""

    host = "https://kube.test"

    def __init__(self, items: list[Any], status: int = 200, body: bytes | None = None) -> None:
        self.body = body if body is not None else json.dumps({"items": items}).encode()
        self.status = status
        self.asked: list[str] = []

    def get(self, path: str, query: Mapping[str, str] | None = None) -> Response:
        self.asked.append(path + (f"?{urlencode(query)}" if query else ""))
        return Response(self.status, "OK", self.body)


def _list(client: _Client, namespace: str | None = "shop", driver: str = "secret", name: str | None = "web",
          refused: list[str] | None = None) -> list[Record]:
    return list_records(cast(KubeClient, client), namespace, driver, name, refused)


# -- decoding -----------------------------------------------------------------------------------

@pytest.mark.parametrize("driver", ["secret", "configmap"])
@pytest.mark.parametrize("compress", [True, False])  # a record written before Helm compressed them
def test_a_record_decodes_to_the_release_helm_wrote(driver: str, compress: bool) -> None:
    stored = _release()
    record, = _list(_Client([_object(stored, driver, compress)]), driver=driver)
    assert record == Record("web", "shop", 1, "deployed", driver, record.data)
    assert release(record) == stored


def test_one_get_per_list_with_helms_label_selector() -> None:
    client = _Client([])
    _list(client)
    _list(client, namespace=None, driver="configmap", name=None)
    assert client.asked == ["/api/v1/namespaces/shop/secrets?labelSelector=owner%3Dhelm%2Cname%3Dweb",
                            "/api/v1/configmaps?labelSelector=owner%3Dhelm"]


@pytest.mark.parametrize("labels, why", [
    ({"name": "web", "owner": "helm", "status": "deployed"}, "no version label"),
    ({"name": "web", "owner": "helm", "status": "deployed", "version": "x1"}, "no version label"),
    ({"name": "web", "owner": "helm", "version": "1"}, "no status label"),
    ({"owner": "helm", "status": "deployed", "version": "1"}, "no name label"),
    ({"name": "other", "owner": "helm", "status": "deployed", "version": "1"}, "labelled for release 'other'"),
    ({"name": "web", "owner": "me", "status": "deployed", "version": "1"}, "not labelled owner=helm"),
    ({"name": ["web"], "owner": "helm", "status": "deployed", "version": "1"}, "no name label"),
])
def test_a_record_with_malformed_labels_is_left_out_with_a_line(labels: dict[str, Any], why: str) -> None:
    refused: list[str] = []
    good = _object(_release(version=2))
    assert [r.version for r in _list(_Client([_object(_release(), labels=labels), good, "junk"]), refused=refused)] == [2]
    assert len(refused) == 2 and why in refused[0] and "not an object" in refused[1]
    assert all("\n" not in line for line in refused)


@pytest.mark.parametrize("status, body, message", [
    (403, b'{"message": "secrets is forbidden"}', "forbidden (secrets is forbidden)"),
    (500, b"oops", "answered 500"),
    (200, b"not json", "not JSON"),
    (200, b'{"kind": "List"}', "has no items"),
])
def test_a_list_the_server_refuses_is_one_line(status: int, body: bytes, message: str) -> None:
    with pytest.raises(StorageError) as caught:
        _list(_Client([], status, body))
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_the_list_and_each_record_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(helm_storage, "MAX_RECORDS", 1)
    with pytest.raises(StorageError, match="more than the 1 helm plan reads"):
        _list(_Client([_object(_release()), _object(_release(version=2))]))
    monkeypatch.setattr(helm_storage, "MAX_RECORDS", 10)
    monkeypatch.setattr(helm_storage, "MAX_ENCODED", 10)
    refused: list[str] = []
    assert _list(_Client([_object(_release())]), refused=refused) == []
    assert "more than the 10 helm plan reads" in refused[0]


def test_a_gzip_bomb_is_refused() -> None:
    bomb = gzip.compress(b'{"a":"' + b"x" * (300 * 2**20) + b'"}')
    record = Record("web", "shop", 1, "deployed", "configmap", base64.b64encode(bomb).decode())
    with pytest.raises(StorageError, match="inflates past"):
        release(record)


@pytest.mark.parametrize("data, message", [
    ("not base64!", "is not base64"),
    (base64.b64encode(b"\x1f\x8b\x08broken").decode(), "is not gzip"),
    (base64.b64encode(b"{not json").decode(), "is not JSON"),
    (base64.b64encode(b"[1]").decode(), "is not a release object"),
])
def test_a_record_that_does_not_decode_is_one_line(data: str, message: str) -> None:
    with pytest.raises(StorageError, match=message) as caught:
        release(Record("web", "shop", 1, "deployed", "configmap", data))
    assert "\n" not in str(caught.value)


def test_a_record_as_deep_as_go_writes_it_decodes() -> None:
    deep: Any = 1
    for _ in range(3_000):
        deep = {"a": deep}
    stored = {**_release(), "config": deep}
    record = Record("web", "shop", 1, "deployed", "configmap", _helm_value(stored))
    assert release(record)["config"]["a"]["a"]["a"] is not None


def test_a_record_whose_labels_disagree_with_it_is_refused() -> None:
    record, = _list(_Client([_object(_release(status="failed"), labels={
        "name": "web", "owner": "helm", "status": "deployed", "version": "1"})]))
    with pytest.raises(StorageError, match="not what its labels say"):
        helm_storage.checked(record)


# -- which revision -------------------------------------------------------------------------------

def _history(*statuses: str) -> list[Record]:
    return [Record("web", "shop", n, status, "secret", "") for n, status in enumerate(statuses, 1)]


@pytest.mark.parametrize("statuses, chosen", [
    (("superseded", "deployed"), 2),
    (("superseded", "deployed", "failed"), 2),  # a failed newest falls back to the deployed one
    (("deployed", "failed", "failed"), 1),
    (("failed",), 1),  # no deployed revision: the failed newest itself
    (("failed", "superseded"), 2),
    (("superseded", "superseded"), 2),
    (("deployed", "deployed"), 2),  # two deployed (concurrent upgrades): the newest
    ((), None),
])
def test_the_revision_upgrade_diffs_against(statuses: tuple[str, ...], chosen: int | None) -> None:
    found = choose_for_upgrade(_history(*statuses))
    assert (found.version if found else None) == chosen


@pytest.mark.parametrize("statuses, message", [
    (("deployed", "pending-upgrade"), "another operation (install/upgrade/rollback) is in progress"),
    (("pending-install",), "another operation (install/upgrade/rollback) is in progress"),
    (("deployed", "pending-rollback"), "in progress"),
    (("superseded", "uninstalling"), '"web" has no deployed releases'),
    (("uninstalled",), '"web" has no deployed releases'),
])
def test_upgrade_refuses_as_helm_does(statuses: tuple[str, ...], message: str) -> None:
    with pytest.raises(StorageError) as caught:
        choose_for_upgrade(_history(*statuses))
    assert message in str(caught.value)


def test_the_store_order_does_not_change_the_choice() -> None:
    records = _history("superseded", "deployed", "failed")
    assert choose_for_upgrade(list(reversed(records))) == records[1]


def test_upgrade_install_over_an_uninstalled_release_replaces_it() -> None:
    state = upgrade_state(_history("superseded", "uninstalled"))
    assert state == helm_storage.Upgrade(None, 2, True)
    assert upgrade_state([]) == helm_storage.Upgrade(None, 0, False)
    assert upgrade_state(_history("deployed", "failed")).current == _history("deployed")[0]


@pytest.mark.parametrize("value, driver", [
    (None, "secret"), ("", "secret"), ("secret", "secret"), ("secrets", "secret"),
    ("configmap", "configmap"), ("configmaps", "configmap"), ("memory", "memory"), ("sql", "sql"),
    ("Secret", "Secret"), ("etcd", "etcd"),
])
def test_helm_driver_read_as_helm_reads_it(value: str | None, driver: str) -> None:
    assert driver_from_env({} if value is None else {"HELM_DRIVER": value}) == driver


def test_memory_records_take_their_labels_from_the_release() -> None:
    refused: list[str] = []
    records = helm_storage.parse_records([_release(namespace=""), {"name": "x"}, 3], refused)
    assert [(r.name, r.namespace, r.version, r.status, r.driver) for r in records] == [
        ("web", "default", 1, "deployed", "memory")]
    assert release(records[0])["config"] == {"replicas": 2}
    assert len(refused) == 2


# -- where the release is read (release/store.py) ----------------------------------------------------

def test_a_store_helm_plan_does_not_read_is_left_to_helm_and_said(capsys: pytest.CaptureFixture[str]) -> None:
    from deployah_plan.release.store import Releases
    from deployah_plan.sources.helm import Helm
    from deployah_plan.sources.kubeconfig import ClusterSettings

    helm = Helm("helm", debug=True)
    cluster = ClusterSettings(kubeconfig=("kc",), context="c", namespace="shop")
    for environ, why in (({"HELM_DRIVER": "sql"}, "HELM_DRIVER=sql: helm reads that store"),
                         ({"HELM_DRIVER": "etcd"}, "HELM_DRIVER=etcd"),
                         ({}, "no kubeconfig or API server")):
        releases = Releases(helm, cluster if environ else ClusterSettings(kubeconfig=(), context="", namespace="shop"),
                            environ)
        assert not releases.direct and releases.records("web", "shop") is None
        assert why in capsys.readouterr().err
    assert Releases(helm, cluster, {"HELM_DRIVER": "configmaps"}).direct
    assert Releases(helm, None, {"HELM_DRIVER": "memory"}).direct  # its files, no cluster


def test_the_memory_drivers_files_are_read_as_helm_loads_them(tmp_path: Any) -> None:
    from deployah_plan.release.store import Releases
    from deployah_plan.sources.helm import Helm

    first, second = tmp_path / "a.json", tmp_path / "b.yaml"
    first.write_text(json.dumps([_release(version=2, status="failed"), _release(name="other")]))
    second.write_text("- name: web\n  namespace: shop\n  version: 1\n  info: {status: deployed}\n  config: {x: 1}\n")
    releases = Releases(Helm("helm"), None, {"HELM_DRIVER": "memory", "HELM_MEMORY_DRIVER_DATA": f"{first}:{second}"})
    assert [(r.version, r.status) for r in releases.records("web", "shop") or []] == [(1, "deployed"), (2, "failed")]
    state = releases.release_state("web", "shop")
    assert state.current is not None and (state.current.revision, state.newest_revision) == (1, 2)
    assert releases.values("web", "shop", 1) == {"x": 1}
    second.write_text(json.dumps([_release(version=2)]))
    with pytest.raises(StorageError, match="one revision of a release twice"):
        helm_storage.memory_records({"HELM_MEMORY_DRIVER_DATA": f"{first}:{second}"})


def test_computed_values_follow_each_helms_rules() -> None:
    """What `helm get values --all -o json` printed for this record, Helm 3.19.0 and 4.3.1."""
    from deployah_plan.release.stored_values import computed_values, user_values

    record = {"chart": {"values": {"a": {"x": 1, "z": None, "w": {"q": 1}}, "top": None, "keep": 2, "t": {"k": 1},
                                   "s": "str"}},
              "config": {"a": {"x": None, "y": None, "z": None, "w": None}, "b": None, "keep": None, "t": 5,
                         "s": {"m": 1}, "big": 12345678901234567890, "f": 1e21, "i": 1000000}}
    common = {"b": None, "big": 12345678901234567000, "f": 1e21, "i": 1000000, "s": {"m": 1}, "t": 5}
    assert computed_values(record, 3) == {**common, "a": {"y": None}, "top": None}
    assert computed_values(record, 4) == {**common, "a": {"y": None, "z": None}}
    assert user_values(record) == {**common, "a": {"x": None, "y": None, "z": None, "w": None}, "keep": None}
    assert record["config"]["big"] == 12345678901234567890  # the record itself is left as it was


def test_values_as_deep_as_go_writes_them_are_read() -> None:
    from deployah_plan.release.stored_values import computed_values, user_values

    deep: Any = {"bottom": 12345678901234567890}
    for _ in range(3_000):
        deep = {"a": deep}
    record = {"config": {"deep": deep}, "chart": {"values": {"deep": {"a": {"b": 1}}, "other": 2}}}
    assert user_values(record)["deep"]["a"]["a"] is not None
    computed = computed_values(record, 4)
    assert computed["other"] == 2 and computed["deep"]["a"]["b"] == 1
