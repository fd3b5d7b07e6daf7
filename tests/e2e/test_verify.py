"""`helm plan verify`: a plan saved with --out is made again with the inputs it records, on real
helm 3 and 4, with the release in helm's memory driver or on the loopback Kubernetes API
(tests/kubeapi.py). Each kind of move is made for real (a new revision, an edited chart, an
edited values file, a live object changed) and must be caught and named."""
from __future__ import annotations

import base64
import copy
import hashlib
import http.server
import json
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from conftest import EXAMPLE, ROOT, Result, Store, clean_env, run_plan, write_chart
from deployah_plan.planfile.seal import Digester, seal
from deployah_plan.yamlkube import load_all
from kubeapi import FakeKube
from e2e.test_cases import validate

OWNED = {"meta.helm.sh/release-name": "shop", "meta.helm.sh/release-namespace": "shop"}


def _moved(result: Result) -> list[str]:
    """The names of what moved, from verify's report."""
    lines = result.out.split("What moved:\n", 1)[-1].split("Plan difference", 1)[0] if "What moved" in result.out \
        else result.out.split("Moved, without changing the plan:\n", 1)[-1] if "Moved," in result.out else ""
    return [line.strip().split(":", 1)[0] for line in lines.splitlines() if line.startswith("  ")]


def _holds(result: Result) -> None:
    assert result.code == 0, result.out + result.err
    assert "holds: the plan of release shop in namespace shop is the same now" in result.out


def _no_longer_holds(result: Result, *moved: str) -> None:
    assert result.code == 4, result.out + result.err
    assert "no longer holds" in result.out and "no longer holds" in result.err
    assert result.err.count("\n") == 1 and "Traceback" not in result.err
    for what in moved:
        assert what in _moved(result), result.out


@pytest.fixture
def chart(tmp_path: Path) -> Path:
    """A chart folder of our own, to edit."""
    return Path(shutil.copytree(EXAMPLE / "chart-v2", tmp_path / "shop"))


def _plan(tmp_path: Path, helm: Path, store: Store, *args: str) -> Path:
    saved = tmp_path / "plan.json"
    result = run_plan("upgrade", "shop", "shop", "-n", "shop", *args, "--out", str(saved), helm=helm, store=store,
                      cwd=tmp_path)
    assert result.code == 0, result.err
    validate(json.loads(saved.read_text()))
    return saved


def test_each_move_is_caught_and_named(helm: Path, store: Store, chart: Path, tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    values = tmp_path / "values.yaml"
    values.write_text("logLevel: WARN\n")
    saved = _plan(tmp_path, helm, store, "-f", "values.yaml")
    record = json.loads(saved.read_text())["inputs"]
    assert record["command"] == "upgrade" and record["argv"][:3] == ["upgrade", "shop", "shop"]
    assert record["previous"]["revision"] == 1 and record["helm_version"] == helm.parent.name
    assert record["namespace"] == "shop" and record["live"] == {"read": False}
    assert [(f["flag"], f["path"]) for f in record["files"]] == [("--values", "values.yaml")]

    def verify(*args: str) -> Result:
        return run_plan("verify", "plan.json", *args, helm=helm, store=store, cwd=tmp_path)

    _holds(verify())  # nothing moved

    # values: a change the render sees, then one it does not (a comment)
    values.write_text("logLevel: ERROR\n")
    moved = verify()
    _no_longer_holds(moved, "values", "render")
    assert "--values values.yaml: its content changed" in moved.out
    assert "~ change update ConfigMap shop/shop-config: fields at /data/app.properties differ" in moved.out
    values.write_text("logLevel: WARN\n# reviewed\n")
    same = verify()
    _holds(same)
    assert _moved(same) == ["values"]
    _no_longer_holds(verify("--strict"), "values")
    values.write_text("logLevel: WARN\n")

    # chart: a template edited
    template = chart / "templates" / "configmap.yaml"
    reviewed = template.read_text()
    template.write_text(reviewed.replace("cache.enabled=true", "cache.enabled=false"))
    _no_longer_holds(verify(), "chart", "render")
    template.write_text(reviewed)
    _holds(verify())

    # a new revision: someone deployed meanwhile (the same chart again)
    releases = json.loads(store.path.read_text())
    releases[0]["info"]["status"] = "superseded"
    store.path.write_text(json.dumps(releases))
    store.add("shop", EXAMPLE / "chart-v1", "shop", revision=2)
    moved = verify()
    _no_longer_holds(moved, "revision")
    assert "planned against revision 1 (newest 1); now revision 2 (newest 2)" in moved.out
    assert '~ header revision: 2 then, 3 now' in moved.out


def test_a_secret_value_that_moved_is_caught_though_the_plan_masks_it(helm: Path, store: Store, chart: Path,
                                                                      tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    (tmp_path / "values.yaml").write_text("dbPassword: hunter22\n")
    _plan(tmp_path, helm, store, "-f", "values.yaml")
    (tmp_path / "values.yaml").write_text("dbPassword: hunter33\n")  # same length: the masked plan is the same
    moved = run_plan("verify", "plan.json", helm=helm, store=store, cwd=tmp_path)
    _no_longer_holds(moved, "values", "render")
    assert "the desired render differs (a Secret value, which the plan masks)" in moved.out
    assert "hunter" not in moved.out + moved.err + (tmp_path / "plan.json").read_text()


def test_a_tampered_plan_is_refused(helm: Path, store: Store, chart: Path, tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    saved = _plan(tmp_path, helm, store)
    doc = json.loads(saved.read_text())

    def refused(changed: dict[str, Any], *words: str) -> None:
        saved.write_text(json.dumps(changed, indent=2))
        result = run_plan("verify", "plan.json", helm=helm, store=store, cwd=tmp_path)
        assert result.code == 1 and result.out == "", result.out + result.err
        assert result.err.startswith("helm plan: error: ") and result.err.count("\n") == 1
        for word in words:
            assert word in result.err

    body = copy.deepcopy(doc)
    body["changes"] = [c for c in body["changes"] if c["resource"]["kind"] != "Service"]  # hide the delete
    body["summary"]["delete"] = 0
    refused(body, "was changed after it was written")
    record = copy.deepcopy(doc)
    record["inputs"]["render"] = "hmac-sha256:" + "0" * 64
    refused(record, "was changed after it was written")
    refused({k: v for k, v in doc.items() if k != "inputs"}, "has no inputs record", "--out")
    saved.write_text(json.dumps(doc))  # re-indented, not changed: still holds
    _holds(run_plan("verify", "plan.json", helm=helm, store=store, cwd=tmp_path))

    files = tmp_path / "files"
    files.mkdir()
    (files / "a.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    made = run_plan("diff", "a.yaml", "a.yaml", "--out", str(saved), cwd=files)
    assert made.code == 0, made.err
    refused(json.loads(saved.read_text()), "plan from `helm plan diff`", "helm plan upgrade")


def test_a_plan_sealed_with_a_key_needs_it(helm: Path, store: Store, chart: Path, tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    saved = tmp_path / "plan.json"
    made = run_plan("upgrade", "shop", "shop", "-n", "shop", "--out", str(saved), helm=helm, store=store, cwd=tmp_path,
                    HELM_PLAN_KEY="ci-secret")
    assert made.code == 0, made.err
    assert json.loads(saved.read_text())["inputs"]["digest"]["keyed"] is True
    without = run_plan("verify", "plan.json", helm=helm, store=store, cwd=tmp_path)
    assert without.code == 1 and "HELM_PLAN_KEY, which is not set" in without.err
    wrong = run_plan("verify", "plan.json", helm=helm, store=store, cwd=tmp_path, HELM_PLAN_KEY="guess")
    assert wrong.code == 1 and "was changed after it was written" in wrong.err
    _holds(run_plan("verify", "plan.json", helm=helm, store=store, cwd=tmp_path, HELM_PLAN_KEY="ci-secret"))


def test_set_values_are_digests_and_the_command_must_carry_them(helm: Path, store: Store, chart: Path,
                                                                tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    saved = _plan(tmp_path, helm, store, "--set", "dbPassword=hunter22,logLevel=WARN")
    argv = json.loads(saved.read_text())["inputs"]["argv"]
    assert [a for a in argv if a.startswith("--set=")][0].startswith("--set=dbPassword,logLevel=(hmac-sha256:")
    assert "hunter22" not in saved.read_text()
    alone = run_plan("verify", "plan.json", helm=helm, store=store, cwd=tmp_path)
    assert alone.code == 1 and "keeps only their digests" in alone.err and "-- helm upgrade" in alone.err

    def verify(*command: str) -> Result:
        return run_plan("verify", "plan.json", "--check-only", "--", "helm", *command, helm=helm, store=store,
                        cwd=tmp_path)

    _holds(verify("upgrade", "--install", "shop", "shop", "-n", "shop", "--set", "dbPassword=hunter22,logLevel=WARN"))
    other = verify("upgrade", "shop", "shop", "--set", "dbPassword=hunter33,logLevel=WARN")
    assert other.code == 1 and other.out == ""
    assert "--set differs from the reviewed plan: the plan has dbPassword,logLevel=..." in other.err
    assert "hunter" not in other.err
    flags = verify("upgrade", "shop", "shop", "--set", "dbPassword=hunter22,logLevel=WARN", "--skip-crds")
    assert flags.code == 1 and "--skip-crds differs from the reviewed plan: the plan has False, the command True" in flags.err
    rollback = verify("rollback", "shop")
    assert rollback.code == 1 and "the plan is of `helm upgrade`, and the command is `helm rollback`" in rollback.err


# -- with a cluster: drift, and the deploy command run by helm ------------------------------

@pytest.fixture
def kube() -> Iterator[FakeKube]:
    with FakeKube(namespace="shop", context="fake-ctx") as server:
        yield server


def _live(store: Store) -> list[dict[str, Any]]:
    """The release's objects as the API server holds them after helm installed them."""
    objects = []
    for record in json.loads(store.path.read_text()):
        for doc in load_all(record["manifest"]):
            obj: dict[str, Any] = copy.deepcopy(doc.value)
            obj["metadata"]["annotations"] = {**obj["metadata"].get("annotations", {}), **OWNED}
            if obj["kind"] == "Secret":
                obj["data"] = {k: base64.b64encode(v.encode()).decode() for k, v in obj.pop("stringData").items()}
            objects.append(obj)
    return objects


def test_drift_moves_are_caught_and_the_command_runs_only_when_the_plan_holds(
        helm: Path, store: Store, chart: Path, kube: FakeKube, tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    kube.load_releases(store.path)
    live = _live(store)
    for obj in live:
        kube.put(obj)
    kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
    saved = tmp_path / "plan.json"
    made = run_plan("upgrade", "shop", "shop", "-n", "shop", "--render", "template", "--out", str(saved), helm=helm,
                    cwd=tmp_path, KUBECONFIG=kubeconfig)
    assert made.code == 0, made.err
    record = json.loads(saved.read_text())["inputs"]
    assert record["live"]["read"] is True and record["live"]["objects"] == len(live)
    assert record["kube_context"] == "fake-ctx"
    deploy = [str(helm), "upgrade", "--install", "shop", "shop", "-n", "shop"]

    def verify(*args: str) -> Result:
        return run_plan("verify", "plan.json", *args, helm=helm, cwd=tmp_path, KUBECONFIG=kubeconfig)

    # The bookkeeping the API server changes on its own does not move anything.
    for obj in live:
        obj["metadata"]["resourceVersion"] = "99"
        obj["status"] = {"observedGeneration": 7}
        kube.put(obj)
    churned = verify()
    _holds(churned)
    assert "Moved" not in churned.out and _moved(churned) == [], churned.out  # the live digest did not move either
    _holds(verify("--strict"))  # --strict fails on any moved input: none did

    # Someone edits a live object: the drift section moves, and the command is not run.
    config = next(o for o in live if o["kind"] == "ConfigMap")
    config["data"]["app.properties"] += "debug=true\n"
    kube.put(config)
    before = len(kube.requests)
    moved = verify("--", *deploy)
    _no_longer_holds(moved, "live")
    assert "+ drift modified ConfigMap shop/shop-config: only in the plan now" in moved.out
    assert kube.writes() == [] and all(r.method == "GET" for r in kube.requests[before:])

    # Put back as reviewed: the plan holds, and helm itself runs the command (this fake cluster
    # refuses writes, so helm fails, and verify passes helm's own exit code and message on).
    config["data"]["app.properties"] = config["data"]["app.properties"].replace("debug=true\n", "")
    kube.put(config)
    direct = subprocess.run(deploy, capture_output=True, text=True, env=clean_env(KUBECONFIG=kubeconfig), cwd=tmp_path)
    attempted = len(kube.writes())
    assert direct.returncode != 0 and attempted > 0  # what helm does with this command on its own
    ran = verify("--", *deploy)
    assert ran.code == direct.returncode, ran.out + ran.err
    assert "holds" in ran.out and "running helm upgrade" in ran.err
    assert "UPGRADE FAILED" in ran.err or "INSTALLATION FAILED" in ran.err or "read-only" in ran.err
    assert len(kube.writes()) == 2 * attempted  # helm ran the command: its writes reached the server


def test_through_helm_as_a_plugin(helm: Path, store: Store, chart: Path, tmp_path: Path) -> None:
    """As a deploy job runs it: helm takes its global flags (-n) out of the plugin's arguments,
    after `--` too, and hands them over as HELM_NAMESPACE; the record holds the namespace as
    resolved, so the command without -n is still the reviewed one."""
    home = tmp_path / "helm-home"
    env = clean_env(HELM_DATA_HOME=str(home / "data"), HELM_CONFIG_HOME=str(home / "config"),
                    HELM_CACHE_HOME=str(home / "cache"), HELM_DRIVER="memory", HELM_MEMORY_DRIVER_DATA=str(store.path))
    env.pop("PYTHONPATH")
    installed = subprocess.run([str(helm), "plugin", "install", str(ROOT)], env=env, capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
    store.add("shop", EXAMPLE / "chart-v1", "shop")

    def helm_plan(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(helm), "plan", *args], env=env, capture_output=True, text=True, cwd=tmp_path)

    made = helm_plan("upgrade", "shop", "shop", "-n", "shop", "--set", "logLevel=WARN", "--out", "plan.json")
    assert made.returncode == 0, made.stderr
    record = json.loads((tmp_path / "plan.json").read_text())["inputs"]
    assert record["namespace"] == "shop" and "-n" not in record["argv"]  # helm took it
    ok = helm_plan("verify", "plan.json", "--check-only", "--", "helm", "upgrade", "shop", "shop", "-n", "shop",
                   "--set", "logLevel=WARN")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "holds" in ok.stdout
    elsewhere = helm_plan("verify", "plan.json", "--check-only", "--", "helm", "upgrade", "shop", "shop", "-n", "other",
                          "--set", "logLevel=WARN")
    assert elsewhere.returncode != 0 and "no longer holds" in elsewhere.stdout
    assert "namespace: shop then, other now" in elsewhere.stdout

    # Without a command: helm hands every plugin HELM_NAMESPACE, "default" (or the kube
    # context's namespace) when there was no -n. That is not a namespace given: the plan's is used.
    made = helm_plan("upgrade", "shop", "shop", "-n", "shop", "--out", "plain.json")
    assert made.returncode == 0, made.stderr
    plain = helm_plan("verify", "plain.json")
    assert plain.returncode == 0 and "the plan of release shop in namespace shop is the same now" in plain.stdout, \
        plain.stdout + plain.stderr
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text("apiVersion: v1\nkind: Config\ncurrent-context: a\ncontexts:\n- name: a\n"
                          "  context: {cluster: c, user: u, namespace: team}\nclusters:\n- name: c\n"
                          "  cluster: {server: 'https://127.0.0.1:9'}\nusers:\n- name: u\n  user: {}\n")
    in_context = subprocess.run([str(helm), "plan", "verify", "plain.json"], capture_output=True,
                                text=True, cwd=tmp_path, env={**env, "KUBECONFIG": str(kubeconfig)})
    assert "namespace: shop then" not in in_context.stdout, in_context.stdout + in_context.stderr
    other = helm_plan("verify", "plain.json", "-n", "other")  # an explicit -n is the namespace to check
    assert other.returncode == 4 and "namespace: shop then, other now" in other.stdout, other.stdout + other.stderr


def test_a_rollback_plan_verifies_and_catches_a_new_revision(helm: Path, store: Store, tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop", status="superseded")
    store.add("shop", EXAMPLE / "chart-v2", "shop", revision=2)
    made = run_plan("rollback", "shop", "1", "-n", "shop", "--out", str(tmp_path / "plan.json"), helm=helm, store=store)
    assert made.code == 0, made.err
    record = json.loads((tmp_path / "plan.json").read_text())["inputs"]
    assert record["command"] == "rollback" and record["previous"]["revision"] == 2 and record["chart"] is None

    def verify(*args: str) -> Result:
        return run_plan("verify", "plan.json", *args, helm=helm, store=store, cwd=tmp_path)

    _holds(verify())
    _holds(verify("--check-only", "--", "helm", "rollback", "shop", "1", "-n", "shop"))
    other = verify("--check-only", "--", "helm", "rollback", "shop", "-n", "shop")
    assert other.code == 1 and "REVISION differs from the reviewed plan: the plan has 1, the command 0" in other.err
    releases = json.loads(store.path.read_text())
    releases[1]["info"]["status"] = "superseded"
    store.path.write_text(json.dumps(releases))
    store.add("shop", EXAMPLE / "chart-v1", "shop", revision=3)  # rolled back by someone else meanwhile
    moved = verify()
    _no_longer_holds(moved, "revision")
    assert "planned against revision 2 (newest 2); now revision 3 (newest 3)" in moved.out


# -- the command line means what helm makes it mean ------------------------------------------

WEB = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: {{ .Values.image }}
"""


def test_the_plan_and_the_deploy_read_one_command_line_alike(helm: Path, store: Store, tmp_path: Path) -> None:
    """helm reads `-if=vals.yaml` as --install and the file vals.yaml, and `-n=shop` as the
    namespace shop (pflag's parseShortArg). The plan, verify and the deploy helm runs must all
    read the same words so: the image planned is the image helm deploys. (With the memory
    driver helm keeps the release it deploys in memory and prints it with --debug.)"""
    store.add("web", write_chart(tmp_path, "web", {"deployment.yaml": WEB}, values="image: nginx:1.25\n"), "shop")
    (tmp_path / "vals.yaml").write_text("image: nginx:1.27\n")
    (tmp_path / "=vals.yaml").write_text("image: nginx:1.26\n")  # what the words name if `=` is kept
    words = ["web", "./web", "-if=vals.yaml", "-n=shop", "--set-string", "team=a,tier=b", "-l", "tier=web,team=shop"]
    with FakeKube(namespace="shop", context="fake-ctx") as kube:  # helm asks a cluster for its version
        kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
        made = run_plan("upgrade", *words, "--render", "template", "--out", "plan.json", "-o", "json", helm=helm,
                        store=store, cwd=tmp_path, KUBECONFIG=kubeconfig)
        assert made.code == 0, made.err
        planned = made.json()
        assert planned["header"]["namespace"] == "shop"
        image = [(f["before"], f["after"]) for c in planned["changes"] for f in c["fields"]
                 if f["path"] == "/spec/template/spec/containers/0/image"]
        assert image == [("nginx:1.25", "nginx:1.27")], planned["changes"]
        ran = run_plan("verify", "plan.json", "--", str(helm), "upgrade", *words, "--debug", helm=helm, store=store,
                       cwd=tmp_path, KUBECONFIG=kubeconfig)
    assert ran.code == 0 and "holds" in ran.out and "running helm upgrade" in ran.err, ran.out + ran.err
    deployed = ran.out.split("MANIFEST:", 1)[-1]
    assert "NAMESPACE: shop" in ran.out and "image: nginx:1.27" in deployed and "nginx:1.26" not in ran.out


def test_a_spelling_helm_may_read_otherwise_is_refused(helm: Path, store: Store, tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    quoted = run_plan("upgrade", "shop", "shop", "-n", "shop", "-f", '"a.yaml,b.yaml"', helm=helm, store=store,
                      cwd=tmp_path)
    assert quoted.code == 1 and quoted.err.count("\n") == 1 and "as CSV" in quoted.err, quoted.err
    octal = run_plan("upgrade", "shop", "shop", "--history-max=010", helm=helm, store=store, cwd=tmp_path)
    assert octal.code == 1 and "decimal number" in octal.err, octal.err
    unknown = run_plan("upgrade", "shop", "shop", "-x", helm=helm, store=store, cwd=tmp_path)
    assert unknown.code == 1 and "unknown shorthand flag: 'x' in -x" in unknown.err, unknown.err


def test_the_deploy_runs_the_helm_the_plan_was_checked_with(helm: Path, store: Store, chart: Path,
                                                             tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    _plan(tmp_path, helm, store)
    other = tmp_path / "bin" / "helm-other"
    other.parent.mkdir()
    other.write_text("#!/bin/sh\ntouch ran\n")
    other.chmod(0o755)
    command = ("upgrade", "--install", "shop", "shop", "-n", "shop")
    refused = run_plan("verify", "plan.json", "--", str(other), *command, helm=helm, store=store, cwd=tmp_path)
    assert refused.code == 1 and f"the command runs {other}, but the plan is checked with {helm}" in refused.err
    assert refused.err.count("\n") == 1 and not (tmp_path / "ran").exists()
    # Another name of the same helm is the same helm.
    alias = tmp_path / "bin" / "helm-same"
    alias.symlink_to(helm)
    same = run_plan("verify", "plan.json", "--check-only", "--", str(alias), *command, helm=helm, store=store,
                    cwd=tmp_path)
    assert same.code == 0, same.err


# -- what a plan file alone can make verify do -------------------------------------------------

def _reseal(saved: Path, edit: Any) -> None:
    """Edit a saved plan's record as a forger can: then seal it again without a key."""
    doc = json.loads(saved.read_text())
    edit(doc["inputs"])
    doc["inputs"]["digest"]["keyed"] = False
    doc["inputs"]["seal"] = seal(Digester.of(doc["inputs"]["digest"]["salt"], False), doc)
    saved.write_text(json.dumps(doc))


def test_verify_runs_no_program_that_only_the_plan_file_names(helm: Path, store: Store, chart: Path,
                                                              tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    marker = tmp_path / "ran"
    program = tmp_path / "program.sh"
    program.write_text(f"#!/bin/sh\necho ran >> {marker}\ncat\n")  # as a post-renderer: passes the manifests on
    program.chmod(0o755)
    kubeconfig = tmp_path / "exec-kubeconfig"
    kubeconfig.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "c",
        "clusters": [{"name": "c", "cluster": {"server": "http://127.0.0.1:9"}}],
        "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u", "namespace": "shop"}}],
        "users": [{"name": "u", "user": {"exec": {"apiVersion": "client.authentication.k8s.io/v1",
                                                  "command": str(program), "interactiveMode": "Never"}}}]}))
    saved = _plan(tmp_path, helm, store)
    reviewed = saved.read_text()
    command = ("--check-only", "--", "helm", "upgrade", "shop", "shop", "-n", "shop")
    for added in (f"--post-renderer={program}", f"--kubeconfig={kubeconfig}"):
        saved.write_text(reviewed)
        _reseal(saved, lambda inputs: inputs["argv"].append(added))
        alone = run_plan("verify", "plan.json", helm=helm, store=store, cwd=tmp_path)
        assert alone.code == 1 and alone.err.count("\n") == 1, alone.out + alone.err
        assert "names a program to run or a kubeconfig" in alone.err and "-- helm upgrade" in alone.err
        given = run_plan("verify", "plan.json", *command, helm=helm, store=store, cwd=tmp_path)
        if added.startswith("--post-renderer"):  # the command has none: it is not the reviewed one
            assert given.code == 1 and "--post-renderer differs from the reviewed plan" in given.err, given.err
        else:  # the command's kubeconfig (none) is the one used
            _holds(given)
        assert not marker.exists(), added

    # Sealed with the key, the plan is the reviewer's word: its post-renderer runs (Helm 3: an executable).
    if helm.parent.name.startswith("3."):
        keyed = run_plan("upgrade", "shop", "shop", "-n", "shop", "--post-renderer", str(program), "--out", "plan.json",
                         helm=helm, store=store, cwd=tmp_path, HELM_PLAN_KEY="ci-secret")
        assert keyed.code == 0, keyed.err
        marker.unlink()
        _holds(run_plan("verify", "plan.json", helm=helm, store=store, cwd=tmp_path, HELM_PLAN_KEY="ci-secret"))
        assert marker.exists()


def test_with_the_key_set_a_plan_sealed_without_it_is_refused(helm: Path, store: Store, chart: Path,
                                                              tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    _plan(tmp_path, helm, store)  # no key in the plan job

    def refused() -> None:
        result = run_plan("verify", "plan.json", helm=helm, store=store, cwd=tmp_path, HELM_PLAN_KEY="ci-secret")
        assert result.code == 1 and result.out == "" and result.err.count("\n") == 1, result.out + result.err
        assert "was sealed without HELM_PLAN_KEY, which is set here" in result.err

    refused()
    made = run_plan("upgrade", "shop", "shop", "-n", "shop", "--out", "plan.json", helm=helm, store=store,
                    cwd=tmp_path, HELM_PLAN_KEY="ci-secret")
    assert made.code == 0, made.err
    _reseal(tmp_path / "plan.json", lambda inputs: None)  # the keyed plan rewritten as unkeyed
    refused()


# -- a chart from a repository: what is checked is what is deployed ---------------------------

class _ChangingRepo:
    """A chart repository on loopback (index.yaml and one .tgz) that serves the reviewed archive
    for the first `honest` downloads and another chart, of the same name and version, after: one
    with another image, or (`readme`) one that differs only in its README, which no render shows."""

    def __init__(self, tmp_path: Path, helm4: Path, honest: int, readme: bool = False) -> None:
        evil = Path(shutil.copytree(EXAMPLE / "chart-v2", tmp_path / "evil" / "shop"))
        values = evil / "values.yaml"
        if readme:
            (evil / "README.md").write_text("Another archive.\n")
        else:
            values.write_text(values.read_text().replace("image: nginx:1.27", "image: evil.example/backdoor"))
        for source, folder in ((EXAMPLE / "chart-v2", "good"), (evil, "evil")):
            subprocess.run([str(helm4), "package", str(source), "-d", str(tmp_path / folder)], check=True,
                           capture_output=True)
        self.good = (tmp_path / "good" / "shop-0.2.0.tgz").read_bytes()
        self.evil = (tmp_path / "evil" / "shop-0.2.0.tgz").read_bytes()
        self.honest, self.downloads = honest, 0
        served = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                body = served.answer(self.path)
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Length", str(len(body or b"")))
                self.end_headers()
                self.wfile.write(body or b"")

            def log_message(self, *_: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def answer(self, path: str) -> bytes | None:
        if path == "/index.yaml":
            return (f"apiVersion: v1\nentries:\n  shop:\n    - name: shop\n      version: 0.2.0\n      apiVersion: v2\n"
                    f"      urls: [{self.url}/shop-0.2.0.tgz]\n").encode()
        if path == "/shop-0.2.0.tgz":
            self.downloads += 1
            return self.good if self.downloads <= self.honest else self.evil
        if path == "/values.yaml":
            return b"logLevel: WARN\n"
        return None

    def __enter__(self) -> "_ChangingRepo":
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


def _recorder(tmp_path: Path, helm: Path) -> tuple[Path, Path]:
    """A helm that deploys nothing: `helm upgrade` without --dry-run records its argv and the
    SHA-256 of its chart argument (the file helm would deploy); every other call is real helm's.
    The plan is checked and deployed with it, as verify asks (one helm for both)."""
    log = tmp_path / "deployed.json"
    script = tmp_path / "deploy-bin" / "helm"
    script.parent.mkdir()
    script.write_text(f"#!{sys.executable}\nimport hashlib, json, os, sys\n"
                      "if sys.argv[1] != 'upgrade' or any(a.startswith('--dry-run') for a in sys.argv):\n"
                      f"    os.execv({str(helm)!r}, [{str(helm)!r}, *sys.argv[1:]])\n"
                      "chart = sys.argv[3]\n"
                      "digest = hashlib.sha256(open(chart, 'rb').read()).hexdigest() if os.path.isfile(chart) else None\n"
                      f"open({str(log)!r}, 'w').write(json.dumps({{'argv': sys.argv[1:], 'sha256': digest}}))\n")
    script.chmod(0o755)
    return script, log


def test_verify_deploys_the_archive_it_checked(helm: Path, helm4: Path, store: Store, tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    home = {"HELM_CACHE_HOME": str(tmp_path / "cache"), "HELM_CONFIG_HOME": str(tmp_path / "config")}
    deploy, log = _recorder(tmp_path, helm)
    with _ChangingRepo(tmp_path, helm4, honest=2) as repo:  # the plan's download and verify's are honest
        chart = ("shop", "shop", "--repo", repo.url, "--version", "0.2.0", "-n", "shop")
        made = run_plan("upgrade", *chart, "--out", "plan.json", helm=helm, store=store, cwd=tmp_path, **home)
        assert made.code == 0, made.err
        assert "nginx:1.27" in (tmp_path / "plan.json").read_text()
        done = run_plan("verify", "plan.json", "--", str(deploy), "upgrade", *chart, helm=deploy, store=store,
                        cwd=tmp_path, **home)
        _holds(done)
        assert repo.downloads == 2  # the deploy downloaded nothing
    deployed = json.loads(log.read_text())
    assert deployed["sha256"] == hashlib.sha256(repo.good).hexdigest(), deployed
    assert deployed["argv"][:2] == ["upgrade", "shop"] and "--namespace=shop" in deployed["argv"]
    assert not any(a.startswith(("--repo", "--version")) for a in deployed["argv"]), deployed


def test_verify_refuses_a_repository_that_answers_the_check_differently(helm: Path, helm4: Path, store: Store,
                                                                       tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    home = {"HELM_CACHE_HOME": str(tmp_path / "cache"), "HELM_CONFIG_HOME": str(tmp_path / "config")}
    deploy, log = _recorder(tmp_path, helm)
    for readme in (False, True):  # the other archive renders another plan, or the same one
        with _ChangingRepo(tmp_path / str(readme), helm4, honest=1, readme=readme) as repo:
            chart = ("shop", "shop", "--repo", repo.url, "--version", "0.2.0", "-n", "shop")
            assert run_plan("upgrade", *chart, "--out", "plan.json", helm=helm, store=store, cwd=tmp_path,
                            **home).code == 0
            moved = run_plan("verify", "plan.json", "--", str(deploy), "upgrade", *chart, helm=deploy, store=store,
                             cwd=tmp_path, **home)
        _no_longer_holds(moved, "chart", *(() if readme else ("render",)))
        if readme:
            assert "the chart pulled now is not the archive it was made from" in moved.out
        assert not log.exists()


def test_verify_will_not_vouch_for_values_it_cannot_read(helm: Path, store: Store, tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    deploy, log = _recorder(tmp_path, helm)
    with _ChangingRepo(tmp_path, helm, honest=0) as repo:
        values = ("-f", f"{repo.url}/values.yaml")
        chart = ("shop", str(EXAMPLE / "chart-v2"), "-n", "shop", *values)
        assert run_plan("upgrade", *chart, "--out", "plan.json", helm=helm, store=store, cwd=tmp_path).code == 0
        for check in ((), ("--", str(deploy), "upgrade", *chart)):
            refused = run_plan("verify", "plan.json", *check, helm=deploy, store=store, cwd=tmp_path)
            assert refused.code == 1 and refused.err.count("\n") == 1, refused.out + refused.err
            assert "cannot be checked" in refused.err and "--accept-unchecked" in refused.err
            assert not log.exists()
        accepted = run_plan("verify", "plan.json", "--accept-unchecked", "--", str(deploy), "upgrade", *chart,
                            helm=deploy, store=store, cwd=tmp_path)
        _holds(accepted)
        assert json.loads(log.read_text())["argv"][-1].endswith("/values.yaml")


# -- charts that regenerate values on every render ---------------------------------------------

SHARED = ROOT.parent / "shared"


def _regenerating() -> list[Any]:
    """Real charts whose every render makes new values: argo-cd's `admin.passwordMtime` (the
    render's time), grafana's random admin password and its checksum, jenkins' test Pod named
    with a random suffix. Each: the older and newer chart, the values both get, and a value of
    our own that renders in a plain field, then and after the reviewed plan was changed."""
    charts, corpus = SHARED / "charts" / "argo-cd", SHARED / "corpus"
    cases = [
        ("argo-cd", charts / "prev", charts / "next", [charts / "values.yaml", charts / "values-next.yaml"],
         "configs:\n  cm:\n    timeout.reconciliation: {}s\n", (180, 300)),
        ("grafana", corpus / "grafana" / "10.4.3.tgz", corpus / "grafana" / "10.5.15.tgz", [], "replicas: {}\n", (1, 2)),
        ("jenkins", corpus / "jenkins" / "5.8.142.tgz", corpus / "jenkins" / "5.9.53.tgz", [],
         "controller:\n  numExecutors: {}\n", (0, 1)),
    ]
    return [pytest.param(*case, id=case[0], marks=pytest.mark.skipif(not case[2].exists(),
                                                                     reason=f"{case[2]} is absent (../shared)"))
            for case in cases]


@pytest.mark.parametrize("name,prev,next_chart,values,ours,settings", _regenerating())
def test_verify_holds_right_after_the_plan_on_a_chart_that_regenerates_values(
        helm: Path, store: Store, tmp_path: Path, name: str, prev: Path, next_chart: Path, values: list[Path],
        ours: str, settings: tuple[int, int]) -> None:
    """Issue 48 point 1: a field the plan marks regenerated may differ by being made anew; the
    rest of the plan and of the render may not."""
    mine = tmp_path / "mine.yaml"
    mine.write_text(ours.format(settings[0]))
    given = [arg for path in (*values, mine) for arg in ("-f", str(path))]
    store.add("shop", prev, "shop", flags=tuple(given[:2 * len(values)]))
    time.sleep(1.1)  # the release's time-valued fields are of another second than the plan's renders
    made = run_plan("upgrade", "shop", str(next_chart), "-n", "shop", *given, "--out", "plan.json", helm=helm,
                    store=store, cwd=tmp_path)
    assert made.code == 0, made.err
    doc = json.loads((tmp_path / "plan.json").read_text())
    validate(doc)
    marked = [f for c in doc["changes"] for f in c["fields"] if f.get("regenerated")] + [
        f for t in doc["tasks"] for d in t["definitions"] for f in d["fields"] if f.get("regenerated")]
    assert marked, f"{name}: the plan marks no value regenerated"
    assert "render_stable" in doc["inputs"]
    time.sleep(1.1)  # a value of the render's time is another now

    def verify() -> Result:
        return run_plan("verify", "plan.json", helm=helm, store=store, cwd=tmp_path)

    held = verify()
    _holds(held)
    assert "Moved" not in held.out, held.out
    mine.write_text(ours.format(settings[1]))  # a real change
    _no_longer_holds(verify(), "values", "render")


@pytest.mark.parametrize("name,prev,next_chart,values,ours,settings", _regenerating())
def test_verify_holds_right_after_the_plan_of_an_install_that_regenerates_values(
        helm: Path, store: Store, tmp_path: Path, name: str, prev: Path, next_chart: Path, values: list[Path],
        ours: str, settings: tuple[int, int]) -> None:
    """The same on a first install: every object is created, and a created object's values the
    chart regenerates are the plan's `regenerated_paths`."""
    mine = tmp_path / "mine.yaml"
    mine.write_text(ours.format(settings[0]))
    given = [arg for path in (*values, mine) for arg in ("-f", str(path))]
    made = run_plan("upgrade", "--install", "shop", str(next_chart), "-n", "shop", *given, "--out", "plan.json",
                    helm=helm, store=store, cwd=tmp_path)
    assert made.code == 0, made.err
    doc = json.loads((tmp_path / "plan.json").read_text())
    validate(doc)
    assert doc["helm_action"] == "install"
    assert [c for c in doc["changes"] if c.get("regenerated_paths")] or \
        [d for t in doc["tasks"] for d in t["definitions"] if d.get("regenerated_paths")], name
    time.sleep(1.1)

    def verify() -> Result:
        return run_plan("verify", "plan.json", helm=helm, store=store, cwd=tmp_path)

    _holds(verify())
    mine.write_text(ours.format(settings[1]))
    _no_longer_holds(verify(), "values", "render")
