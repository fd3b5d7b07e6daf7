"""`helm plan kube-upgrade` of a cluster's worth of releases (tests/fleet.py) served by the
loopback API server as Helm's secret and configmap drivers store them: the scope is read with
one list request (per namespace, or one for -A), and each release's only helm process is its
render (issue 50 point 3); the report equals the one made through helm itself, release by
release (the same records as a memory-driver file, each release read with `helm get`).

Counted without patching anything: the API requests in the loopback server's request log, the
helm processes by a helm on HELM_BIN that logs its arguments, then runs the real one.
"""
from __future__ import annotations

import json
import sys
from typing import Any
from pathlib import Path
import pytest

from tests.conftest import run_plan
from tests.fleet import fleet, write_memory_file
from tests.kubeapi import FakeKube

pytestmark = pytest.mark.e2e


def _logging_helm(tmp_path: Path, helm: Path) -> tuple[Path, Path]:
    """A helm that writes its arguments (one JSON list a line) to a log, then runs helm."""
    log = tmp_path / "helm-calls.log"
    wrapper = tmp_path / "helm"
    wrapper.write_text(f"""#!{sys.executable}
import json, os, sys
with open({str(log)!r}, "a") as f:
    f.write(json.dumps(sys.argv[1:]) + "\\n")
os.execv({str(helm)!r}, [{str(helm)!r}, *sys.argv[1:]])
""")
    wrapper.chmod(0o755)
    return wrapper, log


def _calls(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _lists(kube: FakeKube) -> list[str]:
    """The requests that list release objects (the discovery and the rest are not lists)."""
    return [f"{r.path}?{r.query.get('labelSelector', [''])[0]}" for r in kube.requests
            if r.path.endswith(("/secrets", "/configmaps"))]


def test_a_fleet_is_read_with_one_list_and_rendered_with_one_helm_process_each(
        helm: Path, helm4: Path, tmp_path: Path) -> None:
    records = fleet(str(helm4), 30, namespaces=3)
    wrapper, log = _logging_helm(tmp_path, helm)
    with FakeKube(namespace="ns-00") as kube:
        for record in records:
            kube.add_release(record)
        config = kube.write_kubeconfig(tmp_path / "kubeconfig")
        result = run_plan("kube-upgrade", "--kube-version", "1.32", "-A", "-o", "json", "--parallel", "2",
                          helm=wrapper, KUBECONFIG=str(config))
        assert result.code == 0, result.err
        assert _lists(kube) == ["/api/v1/secrets?owner=helm"]
        assert kube.writes() == []
        calls = _calls(log)
        renders = [call for call in calls if call[:1] == ["template"]]
        assert sorted(call[1] for call in renders) == [f"app-{n:04d}" for n in range(30)]
        assert [call for call in calls if call[:1] != ["template"]] in ([], [["version", "--template", "{{.Version}}"]])
        one_namespace = run_plan("kube-upgrade", "--kube-version", "1.32", "-n", "ns-01", "-o", "json",
                                 helm=helm, KUBECONFIG=str(config))
        assert one_namespace.code == 0, one_namespace.err
        assert _lists(kube)[1:] == ["/api/v1/namespaces/ns-01/secrets?owner=helm"]
        assert {row["namespace"] for row in one_namespace.json()["releases"]} == {"ns-01"}
    doc = result.json()
    verdicts = {row["release"]: row["verdict"] for row in doc["releases"]}
    assert len(verdicts) == 30 and set(verdicts.values()) == {"will-fail", "ready"}
    # the same records, read through helm (the memory driver): the same report
    store = write_memory_file(records, tmp_path / "releases.json")
    through_helm = run_plan("kube-upgrade", "--kube-version", "1.32", "-A", "-o", "json", "--parallel", "2", helm=helm,
                            KUBECONFIG=str(config), HELM_DRIVER="memory", HELM_MEMORY_DRIVER_DATA=str(store))
    assert through_helm.code == 0, through_helm.err
    assert through_helm.json() == doc


def _long_history(records: list[dict[str, Any]], name: str, revisions: int) -> list[dict[str, Any]]:
    """`name` upgraded until it has `revisions` revisions, the older ones superseded."""
    last = next(r for r in records if r["name"] == name and r["info"]["status"] == "deployed")
    more = []
    for revision in range(last["version"] + 1, revisions + 1):
        record = json.loads(json.dumps(last))
        record["version"] = revision
        more.append(record)
    last["info"]["status"] = "superseded"
    for record in more[:-1]:
        record["info"]["status"] = "superseded"
    return records + more


def test_what_helm_would_find_is_taken_from_the_records(helm: Path, helm4: Path, tmp_path: Path) -> None:
    """A release helm prunes on the next upgrade (its history as long as --history-max), one
    whose newest revision failed, one in a pending operation, one selected by its own label:
    each planned as when helm reads it, in one list request."""
    records = _long_history(fleet(str(helm4), 6, namespaces=1), "app-0001", 10)
    records[0]["info"]["status"] = "pending-upgrade"  # app-0000: an operation in progress
    with FakeKube(namespace="ns-00") as kube:
        for record in records:
            kube.add_release(record)
        # The release's own label (helm upgrade --labels), which only the storage object holds.
        for (_, _, _, name), obj in kube.objects.items():
            if name.startswith("sh.helm.release.v1.app-0002."):
                obj["metadata"]["labels"]["team"] = "blue"
        config = kube.write_kubeconfig(tmp_path / "kubeconfig")
        result = run_plan("kube-upgrade", "--kube-version", "1.32", "-o", "json", helm=helm, KUBECONFIG=str(config))
        assert result.code == 1
        assert _lists(kube) == ["/api/v1/namespaces/ns-00/secrets?owner=helm"]
        doc = result.json()
        rows = {row["release"]: row for row in doc["releases"]}
        assert rows["app-0000"]["verdict"] == "error" and "in progress" in rows["app-0000"]["error"]
        assert rows["app-0000"]["chart"] == "budget-1.0.0"
        pruned = next(p for p in doc["plans"] if p["header"]["release"] == "app-0001")
        assert pruned["header"]["revision"] == 11
        selected = run_plan("kube-upgrade", "--kube-version", "1.32", "-l", "status=deployed,version!=1", "-o", "json",
                            helm=helm, KUBECONFIG=str(config))
        assert selected.code == 0, selected.err
        assert [row["release"] for row in selected.json()["releases"]] == ["app-0001", "app-0002", "app-0004", "app-0005"]
        assert len(_lists(kube)) == 2
        wrapper, log = _logging_helm(tmp_path, helm)
        own = run_plan("kube-upgrade", "--kube-version", "1.32", "-l", "team=blue", "-o", "json", helm=wrapper,
                       KUBECONFIG=str(config))
        assert own.code == 0, own.err
        assert [row["release"] for row in own.json()["releases"]] == ["app-0002"]
        assert [call[:1] for call in _calls(log)][:1] == [["list"]]  # helm lists by the release's own labels
        assert kube.writes() == []
    store = write_memory_file(records, tmp_path / "releases.json")
    through_helm = run_plan("kube-upgrade", "--kube-version", "1.32", "-n", "ns-00", "-o", "json", helm=helm,
                            KUBECONFIG=str(config), HELM_DRIVER="memory", HELM_MEMORY_DRIVER_DATA=str(store))
    assert through_helm.code == 1
    assert {k: v for k, v in through_helm.json().items()} == {**doc, "releases": through_helm.json()["releases"]}
    assert [r["verdict"] for r in through_helm.json()["releases"]] == [r["verdict"] for r in doc["releases"]]


def test_the_configmap_driver_is_listed_the_same_way(helm: Path, helm4: Path, tmp_path: Path) -> None:
    """HELM_DRIVER=configmap: the ConfigMaps listed once, and the report the Secrets' one."""
    records = fleet(str(helm4), 9, namespaces=2)
    reports = {}
    for driver in ("secret", "configmap"):
        (tmp_path / driver).mkdir()
        wrapper, log = _logging_helm(tmp_path / driver, helm)
        with FakeKube(namespace="ns-00") as kube:
            for record in records:
                kube.add_release(record, driver=driver)
            config = kube.write_kubeconfig(tmp_path / driver / "kubeconfig")
            result = run_plan("kube-upgrade", "--kube-version", "1.32", "-A", "-o", "json", helm=wrapper,
                              KUBECONFIG=str(config), HELM_DRIVER=driver)
            assert result.code == 0, result.err
            assert _lists(kube) == [f"/api/v1/{driver}s?owner=helm"]
            assert {call[0] for call in _calls(log)} <= {"template", "version"}
        reports[driver] = result.json()
    assert reports["configmap"] == reports["secret"] and len(reports["secret"]["releases"]) == 9
