"""`helm plan kube-upgrade`: every release's stored chart re-planned under another Kubernetes
version, with real Helm 3 and Helm 4, from memory-driver files and from release Secrets served
by the loopback API server (tests/kubeapi.py)."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
from referencing import Registry, Resource

from tests.conftest import ROOT, Store, run_plan
from tests.kubeapi import FakeKube

CHARTS = ROOT / "tests" / "charts" / "kube-upgrade"
SCHEMA = json.loads((ROOT / "deployah_plan" / "schema" / "plan.schema.json").read_text())


def _edit(store: Store, name: str, change: Any) -> None:
    """Change a stored record as a release installed on an older cluster would hold it."""
    records = json.loads(store.path.read_text())
    for record in records:
        if record["name"] == name:
            change(record)
    store.path.write_text(json.dumps(records, indent=1) + "\n")


def _stored_on_1_22(record: dict[str, Any]) -> None:
    # Installed on Kubernetes 1.22, where autoscaling/v2 was not served: the chart picked v2beta2.
    record["manifest"] = record["manifest"].replace("apiVersion: autoscaling/v2\n", "apiVersion: autoscaling/v2beta2\n")


def _fleet(store: Store) -> None:
    store.add("budget", CHARTS / "budget", namespace="apps")
    store.add("scaled", CHARTS / "scaled", namespace="apps")
    store.add("plain", CHARTS / "plain", namespace="web")
    _edit(store, "scaled", _stored_on_1_22)


def _rows(doc: dict[str, Any]) -> dict[str, str]:
    return {f"{row['namespace']}/{row['release']}": row["verdict"] for row in doc["releases"]}


def _check_report(doc: dict[str, Any]) -> None:
    """Against the published schema's `$defs/kube-upgrade-report`, whose plans are plan documents."""
    registry: Registry[Any] = Registry().with_resource(SCHEMA["$id"], Resource.from_contents(SCHEMA))
    jsonschema.validate(doc, {"$ref": f"{SCHEMA['$id']}#/$defs/kube-upgrade-report"}, registry=registry)


# -- with real helm -----------------------------------------------------------------------------

def test_a_fleet_under_kubernetes_1_32(helm: Path, store: Store) -> None:
    _fleet(store)
    result = run_plan("kube-upgrade", "--kube-version", "1.32", "-A", "-o", "json", helm=helm, store=store)
    assert result.code == 0, result.err
    doc = result.json()
    _check_report(doc)
    assert doc["format_version"] == "1.0" and doc["kube_version"] == "1.32" and doc["namespace"] is None
    # The PDB: rendered and stored in policy/v1beta1, which 1.32 does not serve (nor does a rewrite help).
    # The HPA: stored in v2beta2, rendered in v2 under 1.32: only the stored manifest needs rewriting.
    assert _rows(doc) == {"apps/budget": "will-fail", "apps/scaled": "needs-manifest-rewrite", "web/plain": "ready"}
    plans = {plan["header"]["release"]: plan for plan in doc["plans"]}
    assert set(plans) == {"budget", "scaled", "plain"}
    stored = [w for w in plans["scaled"]["warnings"] if w["code"] == "api-not-served"]
    assert [(w["facts"]["role"], w["facts"]["api_version"], w["resource"]["name"]) for w in stored] == [
        ("previous-release", "autoscaling/v2beta2", "scaled")]
    assert "helm-mapkubeapis" in stored[0]["message"]
    budget = {(w["facts"]["role"], w["facts"]["api_version"]) for w in plans["budget"]["warnings"] if w["code"] == "api-not-served"}
    assert budget == {("release", "policy/v1beta1"), ("previous-release", "policy/v1beta1")}
    # the hook that runs on the upgrade is planned (and judged) with it
    assert [t["name"] for t in plans["budget"]["tasks"] if t["will_run"]] == ["Job apps/budget-check"]
    assert plans["plain"]["summary"]["has_changes"] is False and plans["plain"]["warnings"] == []
    # the text report: the table, then each plan
    text = run_plan("kube-upgrade", "--kube-version", "1.32", "-A", helm=helm, store=store)
    assert text.code == 0, text.err
    table = text.out.split("\n\n")[1].splitlines()
    assert table == ["RELEASE  NAMESPACE  CHART         VERDICT",
                     "budget   apps       budget-1.0.0  will fail",
                     "scaled   apps       scaled-2.0.0  needs a manifest rewrite",
                     "plain    web        plain-0.3.0   ready"]
    assert text.out.startswith("Kubernetes 1.32: 3 releases in every namespace (1 will fail, 1 needs a manifest "
                               "rewrite, 1 ready)\n")
    assert "=== apps/scaled: needs a manifest rewrite ===\nhelm plan: upgrade release scaled in namespace apps" in text.out
    markdown = run_plan("kube-upgrade", "--kube-version", "1.32", "-A", "-o", "markdown", helm=helm, store=store)
    assert markdown.code == 0, markdown.err
    assert ("| Release | Namespace | Chart | Verdict |\n| --- | --- | --- | --- |\n"
            "| budget | apps | budget-1.0.0 | will fail |\n") in markdown.out
    assert "\n### apps/scaled: needs a manifest rewrite\n" in markdown.out


def test_the_chart_picks_its_api_by_capabilities(helm: Path, store: Store) -> None:
    """Stored in v2 (installed on a new cluster), planned for 1.22: the chart renders v2beta2 by
    itself, an apiVersion change the next upgrade makes; 1.22 still serves the PDB (deprecated)."""
    store.add("scaled", CHARTS / "scaled", namespace="apps")
    store.add("budget", CHARTS / "budget", namespace="apps")
    result = run_plan("kube-upgrade", "--kube-version", "1.22.0", "-n", "apps", "-o", "json", helm=helm, store=store)
    assert result.code == 0, result.err
    doc = result.json()
    assert doc["namespace"] == "apps"
    assert _rows(doc) == {"apps/budget": "ready", "apps/scaled": "changes"}
    scaled = next(p for p in doc["plans"] if p["header"]["release"] == "scaled")
    fields = [f for c in scaled["changes"] for f in c["fields"] if f["path"] == "/apiVersion"]
    assert fields == [{"path": "/apiVersion", "op": "replace", "before": "autoscaling/v2", "after": "autoscaling/v2beta2"}]
    budget = next(p for p in doc["plans"] if p["header"]["release"] == "budget")
    assert [w["code"] for w in budget["warnings"]] == ["api-deprecated"]


def test_one_release_gates_and_exit_codes(helm: Path, store: Store) -> None:
    _fleet(store)
    one = run_plan("kube-upgrade", "budget", "--kube-version", "1.32", "-n", "apps", "-o", "json", helm=helm, store=store)
    assert one.code == 0, one.err
    assert _rows(one.json()) == {"apps/budget": "will-fail"}
    gated = run_plan("kube-upgrade", "--kube-version", "1.32", "-A", "--fail-on", "warning:api-not-served", helm=helm,
                     store=store)
    assert gated.code == 3
    assert "helm plan: apps/budget: " in gated.err and "helm plan: apps/scaled: " in gated.err
    assert "web/plain" not in gated.err
    clean = run_plan("kube-upgrade", "--kube-version", "1.32", "-n", "web", "--detailed-exitcode", helm=helm, store=store)
    assert clean.code == 0, clean.err
    changed = run_plan("kube-upgrade", "--kube-version", "1.32", "-A", "--detailed-exitcode", helm=helm, store=store)
    assert changed.code == 2, changed.err
    missing = run_plan("kube-upgrade", "nope", "--kube-version", "1.32", "-n", "web", helm=helm, store=store)
    assert missing.code == 1 and missing.err.startswith("helm plan: error: release nope not found in namespace web")
    assert run_plan("kube-upgrade", "-A", helm=helm, store=store).err.startswith("helm plan: error: --kube-version is required")
    selected = run_plan("kube-upgrade", "--kube-version", "1.32", "-A", "-l", "name in (plain,scaled)", "-o", "json",
                        helm=helm, store=store)
    assert set(_rows(selected.json())) == {"apps/scaled", "web/plain"}


def test_each_release_is_read_once(helm: Path, store: Store) -> None:
    """The release's record is read once: the plan's previous state is the state the stored chart
    was read by (one `helm get all` for the record, one for the chart's files)."""
    _fleet(store)
    one = run_plan("kube-upgrade", "plain", "--kube-version", "1.32", "-n", "web", "--debug", helm=helm, store=store)
    assert one.code == 0, one.err
    gets = [line for line in one.err.splitlines() if line.startswith("helm plan: running ") and " get all " in line]
    assert len(gets) == 2, gets
    assert len({line.split("--template", 1)[-1] for line in gets}) == 2  # two different reads, not one twice


def test_a_failing_release_does_not_stop_the_others(helm: Path, store: Store) -> None:
    _fleet(store)
    store.add("busy", CHARTS / "plain", namespace="web", status="pending-upgrade")
    store.add("old", CHARTS / "plain", namespace="web")
    _edit(store, "old", lambda r: r["chart"]["metadata"].update(kubeVersion="<1.25.0-0"))  # the chart refuses 1.32
    result = run_plan("kube-upgrade", "--kube-version", "1.32", "-A", "-o", "json", helm=helm, store=store)
    assert result.code == 1
    doc = result.json()
    _check_report(doc)
    assert _rows(doc) == {"apps/budget": "will-fail", "apps/scaled": "needs-manifest-rewrite", "web/busy": "error",
                          "web/old": "will-fail", "web/plain": "ready"}
    rows = {row["release"]: row for row in doc["releases"]}
    assert "operation in progress" in rows["busy"]["error"] and rows["busy"]["planned"] is False
    assert "incompatible with Kubernetes" in rows["old"]["error"]
    assert len(doc["plans"]) == 3
    assert "helm plan: error: web/busy: release busy has an operation in progress" in result.err


def test_a_helm_call_that_takes_too_long_stops_its_release_only(helm: Path, store: Store, tmp_path: Path) -> None:
    store.add("slow", CHARTS / "plain", namespace="web")
    store.add("plain", CHARTS / "plain", namespace="web")
    wrapper = tmp_path / "helm"
    wrapper.write_text(f"""#!{sys.executable}
import os, sys, time
if sys.argv[1:3] == ["template", "slow"]:
    time.sleep(30)
os.execv({str(helm)!r}, [{str(helm)!r}, *sys.argv[1:]])
""")
    wrapper.chmod(0o755)
    result = run_plan("kube-upgrade", "--kube-version", "1.32", "-n", "web", "--timeout", "3s", "-o", "json",
                      helm=wrapper, store=store)
    assert result.code == 1
    rows = {row["release"]: row for row in result.json()["releases"]}
    assert rows["plain"]["verdict"] == "ready"
    assert rows["slow"]["verdict"] == "error" and rows["slow"]["error"] == "helm template took longer than 3s and was stopped"
    one = run_plan("kube-upgrade", "plain", "--kube-version", "1.32", "-A", "-o", "json", helm=helm, store=store)
    assert one.code == 0 and [row["namespace"] for row in one.json()["releases"]] == ["web"]


def test_subcharts_are_carried_from_the_stored_manifest(helm: Path, store: Store) -> None:
    store.add("family", CHARTS / "parent", namespace="apps")
    result = run_plan("kube-upgrade", "--kube-version", "1.32", "-n", "apps", "-o", "json", helm=helm, store=store)
    assert result.code == 0, result.err
    doc = result.json()
    assert _rows(doc) == {"apps/family": "will-fail"}
    plan = doc["plans"][0]
    assert plan["changes"] == []  # the child's PDB is carried, not deleted
    codes = [(w["code"], w["resource"]["name"] if w["resource"] else "") for w in plan["warnings"]]
    assert ("subcharts-carried", "") in codes and ("api-not-served", "family-child") in codes


def test_release_secrets_on_the_loopback_server(helm: Path, store: Store, tmp_path: Path) -> None:
    _fleet(store)
    with FakeKube(namespace="apps") as kube:
        kube.load_releases(store.path)
        config = kube.write_kubeconfig(tmp_path / "kubeconfig")
        result = run_plan("kube-upgrade", "--kube-version", "1.32", "-A", "-o", "json", helm=helm, KUBECONFIG=str(config))
        assert result.code == 0, result.err
        assert _rows(result.json()) == {"apps/budget": "will-fail", "apps/scaled": "needs-manifest-rewrite",
                                        "web/plain": "ready"}
        one = run_plan("kube-upgrade", "--kube-version", "1.32", "-o", "json", helm=helm, KUBECONFIG=str(config))
        assert set(_rows(one.json())) == {"apps/budget", "apps/scaled"}  # the kubeconfig's namespace
        assert kube.writes() == []


def _concurrency_wrapper(tmp_path: Path, helm: Path) -> tuple[Path, Path]:
    """A helm that logs which release each call is for, when it starts and ends, then runs helm."""
    log = tmp_path / "calls.log"
    wrapper = tmp_path / "helm"
    wrapper.write_text(f"""#!{sys.executable}
import os, subprocess, sys, time
args = sys.argv[1:]
release = args[2] if args[:2] == ["get", "all"] else args[1] if args[:1] in (["template"], ["history"]) else ""
if args[:2] == ["get", "values"]:
    release = args[2]
with open({str(log)!r}, "a") as f:
    f.write(f"start {{os.getpid()}} {{release}} {{time.time_ns()}}\\n")
done = subprocess.run([{str(helm)!r}, *args])
with open({str(log)!r}, "a") as f:
    f.write(f"end {{os.getpid()}} {{release}} {{time.time_ns()}}\\n")
sys.exit(done.returncode)
""")
    wrapper.chmod(0o755)
    return wrapper, log


def test_fifty_releases_planned_at_most_parallel_at_once(helm: Path, store: Store, tmp_path: Path) -> None:
    store.add("plain-0", CHARTS / "plain", namespace="fleet")
    records = json.loads(store.path.read_text())
    text = json.dumps(records[0])
    store.path.write_text(json.dumps([json.loads(text.replace("plain-0", f"plain-{i}")) for i in range(50)]))
    wrapper, log = _concurrency_wrapper(tmp_path, helm)
    result = run_plan("kube-upgrade", "--kube-version", "1.32", "-n", "fleet", "--parallel", "3", "-o", "json",
                      helm=wrapper, store=store)
    assert result.code == 0, result.err
    doc = result.json()
    assert len(doc["releases"]) == 50 and {row["verdict"] for row in doc["releases"]} == {"ready"}
    assert [row["release"] for row in doc["releases"]] == sorted(f"plain-{i}" for i in range(50))
    # Which releases had a helm call running at each moment: never more than --parallel.
    events = sorted((int(t), kind, pid, release) for kind, pid, release, t in
                    (line.split() for line in log.read_text().splitlines() if len(line.split()) == 4))
    running: dict[str, str] = {}
    widest = 0
    for _, kind, pid, release in events:
        if kind == "start":
            running[pid] = release
        else:
            running.pop(pid, None)
        widest = max(widest, len(set(running.values())))
    assert 1 <= widest <= 3
    assert len({release for _, _, _, release in events if release}) == 50
