"""`helm plan upgrade` with helm upgrade's own flags, end to end on real Helm 3 and Helm 4.

The command lines are the ones public charts' install docs and CI jobs use, with local charts
(no internet): each is run through the plugin installed into real helm, as a user pastes it.
What each flag must do is Helm's rule, read from Helm's source (named in each test)."""
from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

from conftest import EXAMPLE, ROOT, Result, Store, assert_example_upgrade, changes_of, clean_env, run_plan, write_chart
from kubeapi import FakeKube
from realcharts import real_chart


# A post-renderer as kustomize's commonLabels overlay is used: every object gets a label, and
# comments (helm's `# Source:` lines) are lost, as kustomize loses them.
POST_RENDERER = '''#!{python}
import sys
import yaml

key, _, value = (sys.argv[1] if len(sys.argv) > 1 else "post-rendered=yes").partition("=")
docs = [d for d in yaml.safe_load_all(sys.stdin) if d]
for doc in docs:
    doc.setdefault("metadata", {{}}).setdefault("labels", {{}})[key] = value
sys.stdout.write(yaml.safe_dump_all(docs, sort_keys=False))
'''

# Helm 4 post-renderers are plugins of type postrenderer/v1 (pkg/postrenderer/postrenderer.go
# NewPostRendererPlugin: --post-renderer names the plugin).
POST_RENDERER_PLUGIN = """apiVersion: v1
name: add-label
type: postrenderer/v1
version: 0.1.0
runtime: subprocess
runtimeConfig:
  platformCommand:
    - command: "${HELM_PLUGIN_DIR}/add-label"
"""


def _helm_home(tmp: Path) -> dict[str, str]:
    home = tmp / "helm-home"
    return {"HELM_DATA_HOME": str(home / "data"), "HELM_CONFIG_HOME": str(home / "config"),
            "HELM_CACHE_HOME": str(home / "cache")}


def _post_renderer(helm: Path, tmp: Path, home: dict[str, str]) -> str:
    """What to give --post-renderer on this helm: Helm 3 a path to the script, Helm 4 the name
    of a postrenderer plugin installed into `home` that runs the same script."""
    script = tmp / "add-label"
    script.write_text(POST_RENDERER.format(python=sys.executable))
    script.chmod(0o755)
    if helm.parent.name.startswith("3."):
        return str(script)
    plugin = tmp / "add-label-plugin"
    plugin.mkdir()
    (plugin / "plugin.yaml").write_text(POST_RENDERER_PLUGIN)
    (plugin / "add-label").write_text(script.read_text())
    (plugin / "add-label").chmod(0o755)
    env = clean_env(**home, PATH=os.environ["PATH"])
    done = subprocess.run([str(helm), "plugin", "install", str(plugin)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return "add-label"


@pytest.fixture(scope="module")
def installed(helm: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """helm with this checkout installed as its `plan` plugin (`helm plugin install`): the
    environment to run it in (a helm home of its own)."""
    tmp = tmp_path_factory.mktemp(f"plugin-{helm.parent.name}")
    env = clean_env(**_helm_home(tmp), PATH=os.environ["PATH"])
    env.pop("PYTHONPATH")
    done = subprocess.run([str(helm), "plugin", "install", str(ROOT)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    yield env


def helm_plan(helm: Path, env: dict[str, str], line: str, store: Store | None = None, cwd: Path | None = None) -> Result:
    """Run a pasted command line `helm plan ...` with the real helm (split as a shell would)."""
    import shlex

    argv = shlex.split(line)
    assert argv[:2] == ["helm", "plan"]
    run_env = dict(env)
    if store is not None:
        run_env.update(HELM_DRIVER="memory", HELM_MEMORY_DRIVER_DATA=str(store.path))
    done = subprocess.run([str(helm), *argv[1:]], env=run_env, capture_output=True, text=True, cwd=cwd or ROOT)
    return Result(done.returncode, done.stdout, done.stderr)


def _codes(doc: dict[str, Any]) -> dict[str, str]:
    return {w["code"]: w["message"] for w in doc["warnings"]}


def _helm4(helm: Path) -> bool:
    return not helm.parent.name.startswith("3.")


# -- real-world command lines, through the installed plugin ------------------------------------

def test_install_docs_line_with_create_namespace(helm: Path, installed: dict[str, str], store: Store) -> None:
    # As kube-state-metrics' and ingress-nginx's docs give it: upgrade --install ... --create-namespace.
    ksm = real_chart("kube-state-metrics")
    result = helm_plan(helm, installed, f"helm plan upgrade --install ksm {ksm / 'next'} --namespace monitoring "
                       f"--create-namespace -f {ksm / 'values.yaml'} -o json", store)
    assert result.code == 0, result.err
    doc = result.json()
    assert doc["helm_action"] == "install" and doc["header"]["namespace"] == "monitoring"
    # pkg/action/install.go: with CreateNamespace, a v1 Namespace labelled name=<ns> is created
    # before the release's objects; it never enters the release manifest.
    first = doc["changes"][0]
    assert (first["action"], first["resource"]["kind"], first["resource"]["name"]) == ("create", "Namespace", "monitoring")
    namespace = [c for c in doc["changes"] if c["resource"]["kind"] == "Namespace"]
    assert len(namespace) == 1
    assert "it is not part of the release" in _codes(doc)["create-namespace"]
    assert "not checked" in _codes(doc)["create-namespace"]  # no cluster here
    kinds = [c["resource"]["kind"] for c in doc["changes"]]
    assert kinds == ["Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Service", "Deployment",
                     "ServiceMonitor"]
    assert "install-flag" not in _codes(doc)  # --install was given


def test_ci_deploy_line_with_atomic_wait_and_timeout(helm: Path, installed: dict[str, str], store: Store) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    rollback = "--rollback-on-failure --wait=watcher" if _helm4(helm) else "--atomic --wait"
    result = helm_plan(helm, installed, f"helm plan upgrade --install shop {EXAMPLE / 'chart-v2'} -n shop {rollback} "
                       "--timeout 10m0s --cleanup-on-fail --history-max 5 -o json", store)
    assert result.code == 0, result.err
    doc = result.json()
    assert_example_upgrade(doc, helm)
    flag = "--rollback-on-failure" if _helm4(helm) else "--atomic"
    assert _codes(doc)["atomic"].startswith(f"{flag}: if this upgrade fails, helm rolls back to revision 1")
    assert "deprecated-flag" not in _codes(doc)


def test_upgrade_line_with_reuse_values_labels_and_description(helm: Path, installed: dict[str, str],
                                                               store: Store) -> None:
    ksm = real_chart("kube-state-metrics")
    store.add("ksm", ksm / "prev", "monitoring", flags=("-f", str(ksm / "values.yaml")))
    result = helm_plan(helm, installed, f"helm plan upgrade -i ksm {ksm / 'next'} -n monitoring --reuse-values "
                       "--description 'chart 8.4.0' -l team=observability,tier=metrics --dry-run=server "
                       "--hide-notes --render-subchart-notes -o json", store)
    assert result.code == 0, result.err
    doc = result.json()
    assert doc["helm_action"] == "upgrade" and doc["header"]["chart"]["version"] == "8.4.0"
    assert doc["header"]["previous_chart"] == "kube-state-metrics-7.0.0"
    codes = _codes(doc)
    assert codes["release-labels"].startswith("--labels: the new revision's release labels: team=observability, "
                                              "tier=metrics (merged into revision 1's labels")
    assert codes["description"] == "--description: the new revision is recorded as 'chart 8.4.0'"
    # --reuse-values: the previous release's replicas (2, from values.yaml) are kept.
    deployment = next(c for c in doc["changes"] if c["resource"]["kind"] == "Deployment")
    assert not [f for f in deployment["fields"] if f["path"] == "/spec/replicas"]


def test_no_hooks_line_and_helm_output_name(helm: Path, installed: dict[str, str], store: Store) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    line = f"helm plan upgrade shop {EXAMPLE / 'chart-v2'} --namespace shop --no-hooks --wait --timeout 5m"
    result = helm_plan(helm, installed, line + " -o json", store)
    assert result.code == 0, result.err
    doc = result.json()
    assert doc["hooks_disabled"] is True
    # pkg/action/upgrade.go: DisableHooks skips every hook; the changed migrate hook does not run.
    hooks = [t for t in doc["tasks"] if t["phase"] != "schedule"]
    assert hooks and all(t["will_run"] is False for t in hooks)
    assert changes_of(doc)[0] == ("update", "Secret", "shop-db")
    # `-o table` is helm's default output: the plan's text.
    table = helm_plan(helm, installed, line + " -o table --no-color", store)
    assert table.code == 0, table.err
    assert table.out.startswith("helm plan: upgrade release shop in namespace shop")


def test_kustomize_post_renderer_line(helm: Path, installed: dict[str, str], store: Store,
                                      tmp_path_factory: pytest.TempPathFactory) -> None:
    # As a kustomize post-renderer is used: a script next to the chart, given by a relative path
    # (Helm 3), or a postrenderer plugin installed into the same helm (Helm 4).
    work = tmp_path_factory.mktemp("kustomize")
    home = {k: installed[k] for k in ("HELM_DATA_HOME", "HELM_CONFIG_HOME", "HELM_CACHE_HOME")}
    renderer = _post_renderer(helm, work, home)
    if not _helm4(helm):
        renderer = "./" + Path(renderer).name
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    result = helm_plan(helm, installed, f"helm plan upgrade --install shop {EXAMPLE / 'chart-v2'} -n shop "
                       f"--post-renderer {renderer} --post-renderer-args team=shop -o json", store, cwd=work)
    assert result.code == 0, result.err
    doc = result.json()
    web = next(c for c in doc["changes"] if c["resource"]["name"] == "shop-web" and c["resource"]["kind"] == "Deployment")
    assert ("/metadata/labels/team", "add", "shop") in [(f["path"], f["op"], f.get("after")) for f in web["fields"]]
    hpa = next(c for c in doc["changes"] if c["resource"]["kind"] == "HorizontalPodAutoscaler")
    assert hpa["action"] == "create"


def test_a_flag_of_the_other_helm_is_refused_in_one_line(helm: Path, installed: dict[str, str], store: Store) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    other = "--atomic" if _helm4(helm) else "--force-replace"
    result = helm_plan(helm, installed, f"helm plan upgrade shop {EXAMPLE / 'chart-v2'} -n shop {other}", store)
    if _helm4(helm):
        # Helm 4 keeps --atomic as a deprecated spelling of --rollback-on-failure.
        assert result.code == 0, result.err
        assert "--atomic is deprecated in Helm 4" in result.out
    else:
        assert result.code == 1
        plan_lines = [line for line in result.err.splitlines() if line.startswith("helm plan:")]
        assert plan_lines == [f"helm plan: error: --force-replace is a Helm 4 flag, and helm {helm.parent.name} does "
                              "not have it; Helm 3 spells it --force"]
        assert "Traceback" not in result.err


def test_help_as_a_plugin(helm: Path, installed: dict[str, str]) -> None:
    top = helm_plan(helm, installed, "helm plan --help")
    assert top.code == 0, top.err
    assert top.out.startswith("Usage: helm plan [OPTIONS] COMMAND")
    assert "..." not in top.out.split("Commands:")[1].split("Examples:")[0]  # summaries are whole
    assert "\n  upgrade       Plan helm upgrade --install RELEASE CHART.\n" in top.out
    assert "\n  kube-upgrade  Plan every release for a Kubernetes upgrade.\n" in top.out
    upgrade = helm_plan(helm, installed, "helm plan upgrade --help")
    assert upgrade.out.startswith("Usage: helm plan upgrade [OPTIONS] RELEASE CHART")
    headings = [line for line in upgrade.out.splitlines() if line.endswith(":") and not line.startswith(" ")]
    assert headings == ["Values:", "Chart source:", "Rendering:", "What helm does:", "Cluster:", "Output:", "Gates:",
                        "Accepted, no effect on the plan:", "Other options:", "Examples:"]
    assert "helm plan upgrade --install ingress-nginx" in upgrade.out
    for command in ("rollback", "uninstall", "diff", "kube-upgrade", "show", "verify", "schema"):
        assert "Examples:" in helm_plan(helm, installed, f"helm plan {command} --help").out
    # `helm help plan` prints plugin.yaml's description: it lists the commands.
    described = subprocess.run([str(helm), "help", "plan"], env=installed, capture_output=True, text=True).stdout
    for command in ("upgrade", "rollback", "uninstall", "diff", "kube-upgrade", "show", "verify", "schema"):
        assert f"helm plan {command}" in described


# -- flags that change the plan --------------------------------------------------------------

@pytest.mark.parametrize("render", ["template", "server"])
def test_post_renderer_runs_as_helm_runs_it(helm: Path, store: Store, tmp_path: Path, render: str) -> None:
    home = _helm_home(tmp_path)
    renderer = _post_renderer(helm, tmp_path, home)
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    extra: dict[str, str] = dict(home)
    kube = None
    if render == "server":
        kube = FakeKube(namespace="shop", context="fake-ctx").__enter__()
        kube.load_releases(store.path)
        extra["KUBECONFIG"] = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
    try:
        result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v1"), "-n", "shop", "--render", render,
                          "--post-renderer", renderer, "--post-renderer-args", "team=shop", "-o", "json",
                          helm=helm, store=store if render == "template" else None, **extra)
    finally:
        if kube is not None:
            kube.__exit__(None, None, None)
    assert result.code == 0, result.err
    doc = result.json()
    # The same chart: the only change is the label the post-renderer adds, on every object.
    assert changes_of(doc) == [("update", "Secret", "shop-db"), ("update", "ConfigMap", "shop-config"),
                               ("update", "Service", "shop-legacy"), ("update", "Service", "shop-web"),
                               ("update", "Deployment", "shop-web")]
    for change in doc["changes"]:
        assert [(f["path"], f["op"], f["after"]) for f in change["fields"]] == [("/metadata/labels/team", "add", "shop")]
    # Hooks: Helm 3 never post-renders them (pkg/action/action.go renderResources runs it on the
    # manifests only); Helm 4 does, in a run of their own (helm/helm#13154).
    hooks = {t["name"]: t["action"] for t in doc["tasks"]}
    expected = "update" if _helm4(helm) else "unchanged"
    assert hooks == {"Job shop/shop-migrate": expected, "Job shop/shop-seed": expected, "Pod shop/shop-smoke-test": expected}
    # Chart CRDs never go through it, and are still told apart from templates.
    assert [(c["name"], c["lifecycle"]) for c in doc["chart_crds"]] == [("widgets.shop.example.com", "not-on-upgrade")]


def test_create_namespace_with_a_cluster(helm: Path, tmp_path: Path) -> None:
    chart = EXAMPLE / "chart-v1"
    with FakeKube(namespace="default", context="fake-ctx") as kube:
        kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
        args = ("upgrade", "shop", str(chart), "-n", "shop", "--render", "template", "-o", "json")
        # Missing, and asked to create it: planned as a create.
        missing = run_plan(*args, "--create-namespace", helm=helm, KUBECONFIG=kubeconfig)
        assert missing.code == 0, missing.err
        doc = missing.json()
        assert changes_of(doc)[0] == ("create", "Namespace", "shop")
        assert doc["changes"][0]["ownership"] == "absent"
        assert "not checked" not in _codes(doc)["create-namespace"]
        # Missing, without the flag: helm install fails (core/validate.py namespace_warning).
        failing = run_plan(*args, helm=helm, KUBECONFIG=kubeconfig).json()
        assert "Namespace" not in [c["resource"]["kind"] for c in failing["changes"]]
        assert _codes(failing)["namespace-missing"].startswith("namespace shop does not exist in the cluster: Helm fails")
        assert [w["predicted_failure"] for w in failing["warnings"] if w["code"] == "namespace-missing"] == [True]
        # Present: helm leaves it (install.go ignores AlreadyExists), so no create.
        kube.put({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}})
        present = run_plan(*args, "--create-namespace", helm=helm, KUBECONFIG=kubeconfig).json()
        assert "Namespace" not in [c["resource"]["kind"] for c in present["changes"]]
        assert "already exists" in _codes(present)["namespace-exists"]
        assert "namespace-missing" not in _codes(run_plan(*args, helm=helm, KUBECONFIG=kubeconfig).json())
        # Namespaces that cannot be listed: nothing is predicted, and the release's own live
        # check stays complete (the namespace is not one of its objects).
        kube.forbid("namespaces")
        unknown = run_plan(*args, helm=helm, KUBECONFIG=kubeconfig).json()
        assert "namespace-missing" not in _codes(unknown) and unknown["live"]["complete"] is True
        assert {r.method for r in kube.requests} == {"GET"}


def test_create_namespace_on_an_upgrade_does_nothing(helm: Path, store: Store) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    doc = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "--create-namespace", "-o", "json",
                   helm=helm, store=store).json()
    assert "Namespace" not in [c["resource"]["kind"] for c in doc["changes"]]
    assert "only applies to an install" in _codes(doc)["create-namespace-ignored"]


def test_history_max_names_the_revisions_helm_prunes(helm: Path, store: Store) -> None:
    for revision, status in ((1, "superseded"), (2, "deployed"), (3, "failed"), (4, "failed")):
        store.add("shop", EXAMPLE / "chart-v1", "shop", revision=revision, status=status)
    args = ("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "-o", "json")
    # pkg/storage/storage.go Create -> removeLeastRecent(max - 1): keep 1 of the 4 records,
    # oldest first, never the newest deployed one (2): 1, 3 and 4 go.
    doc = run_plan(*args, "--history-max", "2", helm=helm, store=store).json()
    assert doc["header"]["previous_revision"] == 2 and doc["header"]["revision"] == 5
    assert _codes(doc)["history-pruned"].startswith("--history-max 2: helm deletes the record of revisions 1, 3, 4")
    # keep 3 of 4: only the oldest goes.
    assert "revision 1 (its oldest)" in _codes(run_plan(*args, "--history-max", "4", helm=helm, store=store).json())[
        "history-pruned"]
    # The default (10) and 0 (no limit) prune nothing here.
    assert "history-pruned" not in _codes(run_plan(*args, helm=helm, store=store).json())
    assert "history-pruned" not in _codes(run_plan(*args, "--history-max", "0", helm=helm, store=store).json())


def test_values_schema_is_enforced_unless_skipped(helm: Path, store: Store, tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"replicas": {"type": "integer"}}}
    chart = write_chart(tmp_path, "app", {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n"
                                          "data:\n  replicas: {{ .Values.replicas | quote }}\n"},
                        values="replicas: 1\n", extra_files={"values.schema.json": json.dumps(schema)})
    store.add("app", chart)
    args = ("upgrade", "app", str(chart), "--set-string", "replicas=many", "-o", "json")
    # helm template and helm upgrade both check values.schema.json (pkg/chart/util ValidateAgainstSchema).
    refused = run_plan(*args, helm=helm, store=store)
    assert refused.code == 1
    assert refused.err.count("\n") == 1 and "schema" in refused.err and "replicas" in refused.err
    skipped = run_plan(*args, "--skip-schema-validation", helm=helm, store=store)
    assert skipped.code == 0, skipped.err
    (change,) = skipped.json()["changes"]
    assert [(f["path"], f["before"], f["after"]) for f in change["fields"]] == [("/data/replicas", "1", "many")]


def test_dependency_update_fetches_a_missing_subchart(helm: Path, store: Store, tmp_path: Path) -> None:
    write_chart(tmp_path, "sub", {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-sub\n"})
    chart = write_chart(tmp_path, "app", {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-app\n"})
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n"
                                      "  - name: sub\n    version: 0.1.0\n    repository: file://../sub\n")
    env = _helm_home(tmp_path)
    missing = run_plan("upgrade", "app", str(chart), "-o", "json", helm=helm, store=store, **env)
    assert missing.code == 1 and "missing in charts/" in missing.err
    updated = run_plan("upgrade", "app", str(chart), "--dependency-update", "-o", "json", helm=helm, store=store, **env)
    assert updated.code == 0, updated.err
    assert sorted(c["resource"]["name"] for c in updated.json()["changes"]) == ["from-app", "from-sub"]


def test_enable_dns_reaches_the_templates(helm: Path, store: Store, tmp_path: Path) -> None:
    # Helm's getHostByName returns "" unless --enable-dns (pkg/engine/engine.go).
    chart = write_chart(tmp_path, "app", {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n"
                                          "data:\n  ip: {{ getHostByName \"localhost\" | quote }}\n"})
    store.add("app", chart)  # installed without --enable-dns: ip is ""
    off = run_plan("upgrade", "app", str(chart), "-o", "json", helm=helm, store=store).json()
    assert off["helm_action"] == "none"
    on = run_plan("upgrade", "app", str(chart), "--enable-dns", "-o", "json", helm=helm, store=store).json()
    (field,) = on["changes"][0]["fields"]
    assert (field["path"], field["before"]) == ("/data/ip", "") and field["after"] in ("127.0.0.1", "::1")


def test_force_labels_and_wait_for_jobs_notes(helm: Path, store: Store, tmp_path: Path) -> None:
    job = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate-{{ .Values.v }}\nspec:\n  template:\n"
           "    spec:\n      restartPolicy: Never\n      containers:\n        - name: m\n          image: m\n")
    chart = write_chart(tmp_path, "app", {"job.yaml": job}, values="v: 1\n")
    store.add("app", chart)
    force = "--force-replace" if _helm4(helm) else "--force"
    doc = run_plan("upgrade", "app", str(chart), "--set", "v=2", force, "--wait", "--wait-for-jobs", "--timeout", "3m",
                   "-o", "json", helm=helm, store=store).json()
    codes = _codes(doc)
    if _helm4(helm):  # stored server-side (Helm 4's install default): Helm 4 refuses --force-replace with it
        assert "cannot use server-side apply and force replace together" in codes["force-replace"]
    else:
        assert codes["force-replace"].startswith(f"{force}: each updated object is replaced")
    assert codes["wait-for-jobs"] == "--wait-for-jobs: helm waits up to 3m for Job migrate-2 to complete"
    unwaited = run_plan("upgrade", "app", str(chart), "--wait-for-jobs", "-o", "json", helm=helm, store=store).json()
    assert "has no effect without --wait" in _codes(unwaited)["wait-for-jobs"]
    reserved = run_plan("upgrade", "app", str(chart), "--labels", "status=x", helm=helm, store=store)
    assert reserved.code == 1 and "status is a label Helm keeps for itself" in reserved.err


def test_a_bare_optional_value_flag_never_takes_the_next_argument(helm: Path, store: Store) -> None:
    # pflag's --wait and --dry-run take a value only as --flag=VALUE; `--wait shop` is a flag and a release.
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    result = run_plan("upgrade", "--wait", "shop", "--dry-run", str(EXAMPLE / "chart-v2"), "-n", "shop", "-o", "json",
                      helm=helm, store=store)
    assert result.code == 0, result.err
    assert_example_upgrade(result.json(), helm)


# -- chart sources: a repository with credentials, an OCI registry -----------------------------

class _Served:
    """A chart repository (index.yaml + .tgz, HTTP basic auth) and an OCI registry (the pull
    side of the distribution API, as helm pull uses it), on loopback, for one packaged chart."""

    def __init__(self, package: Path, chart: str, version: str, user: str, password: str) -> None:
        self.package = package.read_bytes()
        self.chart, self.version = chart, version
        self.auth = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
        self.requests: list[tuple[str, str]] = []
        digest = "sha256:" + hashlib.sha256(self.package).hexdigest()
        config = json.dumps({"name": chart, "version": version, "apiVersion": "v2"}).encode()
        config_digest = "sha256:" + hashlib.sha256(config).hexdigest()
        self.blobs = {digest: self.package, config_digest: config}
        self.manifest = json.dumps({
            "schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {"mediaType": "application/vnd.cncf.helm.config.v1+json", "digest": config_digest,
                       "size": len(config)},
            "layers": [{"mediaType": "application/vnd.cncf.helm.chart.content.v1.tar+gzip", "digest": digest,
                        "size": len(self.package)}],
        }).encode()
        served = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                served.answer(self)

            def do_HEAD(self) -> None:
                served.answer(self, head=True)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"127.0.0.1:{self.server.server_address[1]}"

    def answer(self, handler: BaseHTTPRequestHandler, head: bool = False) -> None:
        path = handler.path.split("?")[0]
        self.requests.append((handler.command, path))
        body: bytes | None = None
        kind = "application/octet-stream"
        if path.startswith("/repo/"):
            if handler.headers.get("Authorization") != self.auth:
                handler.send_response(401)
                handler.send_header("WWW-Authenticate", 'Basic realm="charts"')
                handler.end_headers()
                return
            name = f"{self.chart}-{self.version}.tgz"
            if path == "/repo/index.yaml":
                body = (f"apiVersion: v1\nentries:\n  {self.chart}:\n    - name: {self.chart}\n      version: "
                        f"{self.version}\n      apiVersion: v2\n      urls: [{name}]\n").encode()
                kind = "text/yaml"
            elif path == f"/repo/{name}":
                body = self.package
        elif path == "/v2/":
            body = b"{}"
            kind = "application/json"
        elif path == f"/v2/charts/{self.chart}/manifests/{self.version}" or path.endswith(
                "/manifests/" + "sha256:" + hashlib.sha256(self.manifest).hexdigest()):
            body = self.manifest
            kind = "application/vnd.oci.image.manifest.v1+json"
        elif path.startswith(f"/v2/charts/{self.chart}/blobs/"):
            body = self.blobs.get(path.rsplit("/", 1)[1])
        if body is None:
            handler.send_response(404)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        handler.send_response(200)
        handler.send_header("Content-Type", kind)
        handler.send_header("Content-Length", str(len(body)))
        if kind.startswith("application/vnd.oci"):
            handler.send_header("Docker-Content-Digest", "sha256:" + hashlib.sha256(body).hexdigest())
        handler.end_headers()
        if not head:
            handler.wfile.write(body)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def served(helm4: Path, tmp_path: Path) -> Iterator[_Served]:
    done = subprocess.run([str(helm4), "package", str(EXAMPLE / "chart-v2"), "-d", str(tmp_path)],
                          capture_output=True, text=True, env=clean_env(**_helm_home(tmp_path)))
    assert done.returncode == 0, done.stderr
    (package,) = tmp_path.glob("shop-*.tgz")
    with tarfile.open(package) as archive:
        assert "shop/Chart.yaml" in archive.getnames()
    server = _Served(package, "shop", "0.2.0", "ci", "s3cr3t-pa55")
    yield server
    server.close()


def test_repository_credentials_reach_the_pull_and_are_never_printed(helm: Path, store: Store, served: _Served,
                                                                      tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    args = ("upgrade", "shop", "shop", "--repo", f"http://{served.url}/repo", "--version", "0.2.0", "-n", "shop",
            "--username", "ci", "--pass-credentials")
    home = _helm_home(tmp_path)
    good = run_plan(*args, "--password", "s3cr3t-pa55", "-o", "json", "--debug", helm=helm, store=store, **home)
    assert good.code == 0, good.err
    assert_example_upgrade(good.json(), helm)
    assert "--password (hidden)" in good.err  # the --debug line of the pull
    bad = run_plan(*args, "--password=wr0ng-pa55", "--debug", helm=helm, store=store, **home)
    assert bad.code == 1 and "fetching chart shop failed" in bad.err and "401" in bad.err
    assert "--password (hidden)" in bad.err and bad.err.rstrip().endswith("--plain-http)")
    for result in (good, bad):
        assert "s3cr3t-pa55" not in result.out + result.err and "wr0ng-pa55" not in result.out + result.err


def test_an_oci_chart_is_pulled_with_the_registry_flags(helm: Path, store: Store, served: _Served,
                                                        tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    result = run_plan("upgrade", "shop", f"oci://{served.url}/charts/shop", "--version", "0.2.0", "--plain-http",
                      "-n", "shop", "-o", "json", helm=helm, store=store, **_helm_home(tmp_path))
    assert result.code == 0, result.err
    assert_example_upgrade(result.json(), helm)
    assert ("GET", "/v2/charts/shop/manifests/0.2.0") in served.requests
    # Without --plain-http helm speaks TLS to the plain-HTTP registry, and says so in one line.
    tls = run_plan("upgrade", "shop", f"oci://{served.url}/charts/shop", "--version", "0.2.0", "-n", "shop",
                   helm=helm, store=store, **_helm_home(tmp_path))
    assert tls.code == 1 and tls.err.startswith("helm plan: error: fetching chart oci://")
