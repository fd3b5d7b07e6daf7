"""`helm plan upgrade` end to end: real helm 3 and 4, releases in helm's memory driver."""
from __future__ import annotations

import json
from pathlib import Path

from conftest import EXAMPLE, Store, assert_example_upgrade, changes_of, run_plan, write_chart
from deployah_plan.render.writers import FORMATS



def test_install_when_the_release_does_not_exist(helm: Path, store: Store) -> None:
    result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v1"), "-n", "shop", "-o", "json",
                      "--detailed-exitcode", helm=helm, store=store)
    assert result.code == 2, result.err
    doc = result.json()
    assert doc["helm_action"] == "install"
    assert doc["header"]["fresh_install"] is True and doc["header"]["revision"] == 1
    assert doc["header"]["chart"] == {"name": "shop", "version": "0.1.0"}
    assert doc["header"]["rendered_by"] == "template"
    # Helm's install order: Secret, ConfigMap, Service, Deployment; template files by path.
    assert changes_of(doc) == [
        ("create", "Secret", "shop-db"), ("create", "ConfigMap", "shop-config"),
        ("create", "Service", "shop-legacy"), ("create", "Service", "shop-web"),
        ("create", "Deployment", "shop-web"),
    ]
    assert doc["summary"].items() >= {"create": 5, "update": 0, "delete": 0, "retain": 0, "ignored": 0, "has_changes": True}.items()
    runs = {t["name"]: t["will_run"] for t in doc["tasks"]}
    assert runs == {"Job shop/shop-migrate": True, "Job shop/shop-seed": True, "Pod shop/shop-smoke-test": False}
    assert doc["chart_crds"] == [{"source": "shop/crds/widgets.yaml", "name": "widgets.shop.example.com",
                                  "lifecycle": "process", "will_process": True, "live_differs": None,
                                  "chart_changed": None}]


def test_upgrade_plans_creates_updates_deletes_in_helm_order(helm: Path, store: Store) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "-o", "json",
                      helm=helm, store=store)
    assert result.code == 0, result.err
    assert_example_upgrade(result.json(), helm)


def test_upgrade_text_output(helm: Path, store: Store) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", helm=helm, store=store)
    assert result.code == 0, result.err
    assert "Plan: 2 to create, 3 to update, 1 to delete. 1 hook runs (1 changed)." in result.out
    assert "~ Deployment shop/shop-web" in result.out
    assert "spec.template.spec.containers[name=web].image: \"nginx:1.25\" -> \"nginx:1.27\"" in result.out
    assert "\x1b[" not in result.out  # not a terminal: no colour
    assert "s3cret" not in result.out


def test_no_change_exits_zero_with_detailed_exitcode(helm: Path, store: Store) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v1"), "-n", "shop", "--detailed-exitcode",
                      helm=helm, store=store)
    assert result.code == 0, result.err
    assert "No changes." in result.out
    assert "would still record revision 2 and run 1 upgrade hook" in result.out
    doc = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v1"), "-n", "shop", "-o", "json",
                   helm=helm, store=store).json()
    assert doc["helm_action"] == "none" and doc["changes"] == []


def test_hook_only_change_is_an_upgrade(helm: Path, store: Store, tmp_path: Path) -> None:
    chart = write_chart(tmp_path, "app", {
        "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  a: '1'\n",
        "hook.yaml": (
            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: app-migrate\n  annotations:\n"
            "    helm.sh/hook: pre-upgrade\nspec:\n  template:\n    spec:\n      containers:\n"
            "        - name: m\n          image: {{ .Values.migrateImage }}\n"
        ),
    }, values="migrateImage: migrate:1\n")
    store.add("app", chart)
    result = run_plan("upgrade", "app", str(chart), "--set", "migrateImage=migrate:2", "-o", "json",
                      "--detailed-exitcode", helm=helm, store=store)
    assert result.code == 2, result.err
    doc = result.json()
    assert doc["helm_action"] == "upgrade"
    assert doc["changes"] == [] and doc["summary"].items() >= {"create": 0, "update": 0, "delete": 0, "retain": 0, "ignored": 0, "has_changes": True}.items()
    (task,) = doc["tasks"]
    assert task["action"] == "update" and task["will_run"] is True
    assert task["definitions"][0]["fields"] == [{
        "path": "/spec/template/spec/containers/0/image", "op": "replace",
        "before": "migrate:1", "after": "migrate:2",
        "keys": {"/spec/template/spec/containers/0": {"name": "m"}}}]


def test_values_of_the_previous_release_are_reused_when_none_are_given(helm: Path, store: Store, tmp_path: Path) -> None:
    chart = write_chart(tmp_path, "app", {
        "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  size: {{ .Values.size | quote }}\n",
    }, values="size: small\n")
    store.add("app", chart, flags=("--set", "size=large"))
    # Like helm upgrade: no values flags, so the release's own values (size=large) are used again.
    same = run_plan("upgrade", "app", str(chart), "-o", "json", helm=helm, store=store).json()
    assert same["helm_action"] == "none"
    # Any values flag replaces them: size falls back to the chart default.
    other = run_plan("upgrade", "app", str(chart), "--set", "unrelated=1", "-o", "json", helm=helm, store=store).json()
    assert other["changes"][0]["fields"] == [{"path": "/data/size", "op": "replace", "before": "large", "after": "small"}]
    reuse = run_plan("upgrade", "app", str(chart), "--reuse-values", "--set", "unrelated=1", "-o", "json",
                     helm=helm, store=store).json()
    assert reuse["helm_action"] == "none"


def test_previous_is_the_revision_upgrade_diffs_against(helm: Path, store: Store, tmp_path: Path) -> None:
    v1 = write_chart(tmp_path / "a", "app", {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n"})
    v2 = write_chart(tmp_path / "b", "app", {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two\n"},
                     version="0.2.0")
    store.add("app", v1, revision=1, status="deployed")
    store.add("app", v2, revision=2, status="failed")
    doc = run_plan("upgrade", "app", str(v1), "-o", "json", helm=helm, store=store).json()
    # The newest revision failed: helm upgrade diffs against the deployed revision 1 ...
    assert doc["header"]["previous_revision"] == 1 and doc["helm_action"] == "none"
    # ... and still numbers the new one after the newest.
    assert doc["header"]["revision"] == 3


def test_only_failed_revisions_plan_against_the_newest(helm: Path, store: Store, tmp_path: Path) -> None:
    v1 = write_chart(tmp_path, "app", {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n"})
    store.add("app", v1, revision=1, status="failed")
    result = run_plan("upgrade", "app", str(v1), "-o", "json", helm=helm, store=store)
    doc = result.json()
    assert doc["header"]["previous_revision"] == 1 and doc["helm_action"] == "none"
    assert any(w["code"] == "previous-not-deployed" for w in doc["warnings"])


def test_uninstalled_release_is_installed_again(helm: Path, store: Store, tmp_path: Path) -> None:
    v1 = write_chart(tmp_path, "app", {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n"})
    store.add("app", v1, revision=1, status="superseded")
    store.add("app", v1, revision=2, status="uninstalled")
    doc = run_plan("upgrade", "app", str(v1), "-o", "json", helm=helm, store=store).json()
    assert doc["helm_action"] == "install" and doc["header"]["revision"] == 3
    assert [c["action"] for c in doc["changes"]] == ["create"]


def test_namespace_from_helm_environment(helm: Path, store: Store) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    doc = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v1"), "-o", "json", helm=helm, store=store,
                   HELM_NAMESPACE="shop", HELM_KUBECONTEXT="prod-eu").json()
    assert doc["header"]["namespace"] == "shop" and doc["header"]["kube_context"] == "prod-eu"
    assert doc["helm_action"] == "none"


def test_debug_shows_each_helm_call_and_the_count_is_small(helm: Path, store: Store) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "--debug", helm=helm, store=store)
    calls = [line for line in result.err.splitlines() if line.startswith("helm plan: running ")]
    # version, template, and the Kubernetes version helm template assumes (read from a one-line
    # chart, alongside the others); the release and its values are read by helm plan from the
    # memory driver's file, not by `helm get` (issue 50 point 2). The template runs once: the
    # example chart calls no function that makes a new value on every render, so there is
    # nothing a second render could find.
    assert len(calls) == 3, calls
    assert not any(" get " in call for call in calls), calls
    assert sum(" template shop " in call for call in calls) == 1, calls
    assert sum("kube-version" in call for call in calls) == 1, calls
    # Values given on the command line may be secrets: --debug names their keys only.
    shown = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "--set", "dbPassword=hunter2",
                     "--debug", helm=helm, store=store, HELM_DEBUG="true")
    assert "dbPassword=(value hidden)" in shown.err and "hunter2" not in shown.err + shown.out


def test_kube_version_reaches_capabilities(helm: Path, store: Store, tmp_path: Path) -> None:
    chart = write_chart(tmp_path, "caps", {"cm.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caps\ndata:\n"
        "  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n"
        "  hpa: {{ .Capabilities.APIVersions.Has \"example.com/v9\" | quote }}\n")})
    store.add("caps", chart)  # installed with helm's default capabilities
    doc = run_plan("upgrade", "caps", str(chart), "--kube-version", "1.31.0", "--api-versions", "example.com/v9",
                   "--render", "template", "-o", "json", helm=helm, store=store).json()
    [change] = doc["changes"]
    # The chart read .Capabilities: the version and API versions given, as helm template sets them.
    assert change["action"] == "update"
    assert {f["path"]: f["after"] for f in change["fields"]} == {"/data/kube": "v1.31.0", "/data/hpa": "true"}
    assert {f["path"]: f["before"] for f in change["fields"]}["/data/hpa"] == "false"
    plain = run_plan("upgrade", "caps", str(chart), "-o", "json", helm=helm, store=store).json()
    # Without the flags: helm's default capabilities, which do not have example.com/v9.
    assert "/data/hpa" not in {f["path"] for c in plain["changes"] for f in c["fields"]}


def test_lookup_rendered_offline_is_warned(helm: Path, store: Store, tmp_path: Path) -> None:
    chart = write_chart(tmp_path, "look", {"cm.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: look\ndata:\n"
        "  found: {{ (lookup \"v1\" \"Secret\" .Release.Namespace \"x\") | len | quote }}\n")})
    doc = run_plan("upgrade", "look", str(chart), "-o", "json", helm=helm, store=store).json()
    assert any(w["code"] == "lookup-offline" for w in doc["warnings"])


def test_a_saved_upgrade_plan_shows_again_byte_for_byte(helm: Path, store: Store, tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    saved = tmp_path / "plan.json"
    for output in FORMATS:
        original = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "-o", output, "--out", str(saved),
                            helm=helm, store=store)
        assert original.code == 0, original.err
        shown = run_plan("show", str(saved), "-o", output)  # no helm, no release store
        assert shown.code == 0, shown.err
        assert shown.out == original.out


def test_impact_of_the_example_upgrade_on_each_apply_method(helm: Path, store: Store) -> None:
    # chart-v2 adds an HPA for shop-web, whose spec.replicas the chart keeps setting (2), changes
    # its image (a rollout) and the password of the Secret it reads as env (covered by it).
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    helm4 = helm.parent.name.startswith("4.")
    runs = [((), "ssa" if helm4 else "")] + ([(("--server-side=false",), "csa")] if helm4 else [])
    for flags, method in runs:
        result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "-o", "json", *flags,
                          helm=helm, store=store)
        assert result.code == 0, result.err
        impact = {i["kind"]: i for i in result.json()["impact"]}
        assert sorted(impact) == ["replicas-reset", "restart"]
        restart = impact["restart"]
        assert restart["counts"] == {"replicas": 2, "pods": 2}
        assert restart["details"][0] == ("RollingUpdate, maxSurge 25%, maxUnavailable 25% "
                                         "(at most 1 extra and 0 unavailable of 2 at a time)")
        assert "it reads Secret shop/shop-db, whose data changes: the new pods see it" in restart["details"]
        reset = impact["replicas-reset"]["message"]
        if method == "ssa":  # the HPA controller will own spec.replicas once it scales
            assert "server-side apply conflicts: the upgrade fails unless --force-conflicts" in reset
        else:  # client-side apply: Helm 3, and Helm 4 with --server-side=false
            assert "each deploy resets it: the count jumps to 2 from whatever the HPA chose" in reset
    text = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", helm=helm, store=store).out
    plan_line = "Plan: 2 to create, 3 to update, 1 to delete. 1 hook runs (1 changed).\n"
    assert plan_line + "Impact: 1 workload restarts (2 pods), 1 HPA-scaled replica count set by the chart.\n" in text
    gated = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "--fail-on", "restart:deploy",
                     "--fail-on", "restart:statefulset", "--fail-on", "config-unreached", helm=helm, store=store)
    assert gated.code == 3
    assert "--fail-on restart:deploy matched: restart: Deployment shop/shop-web" in gated.err + gated.out
    assert "restart:statefulset matched" not in gated.err + gated.out and "config-unreached matched" not in gated.err + gated.out


def test_the_release_values_never_reach_a_file(helm: Path, store: Store, tmp_path: Path) -> None:
    """helm template gets the previous release's values (which may hold secrets) on its standard
    input, not from a file: nothing is written to the temporary folder during the plan, nor left
    when SIGTERM (a cancelled CI job) stops it while it reads the cluster."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from conftest import ROOT, clean_env
    from kubeapi import FakeKube

    chart = write_chart(tmp_path, "app", {
        "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  size: {{ .Values.size | quote }}\n",
    }, values="size: small\n")
    store.add("app", chart, flags=("--set", "size=large"))
    temp = tmp_path / "tmp"
    temp.mkdir()

    def stall(handler: object, request: object) -> None:
        time.sleep(4)  # the live read hangs once the plan has rendered with the release's values

    with FakeKube(namespace="default") as kube:
        kube.script("/api/v1/namespaces/default/configmaps", stall)  # type: ignore[arg-type]
        env = clean_env(HELM_BIN=str(helm), HELM_DRIVER="memory", HELM_MEMORY_DRIVER_DATA=str(store.path),
                        KUBECONFIG=str(kube.write_kubeconfig(tmp_path / "kc")), TMPDIR=str(temp))
        done = subprocess.run([sys.executable, "-m", "deployah_plan", "upgrade", "app", str(chart), "-o", "json"],
                              env={**env, "HELM_PLAN_REQUEST_TIMEOUT": "10"}, cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["changes"] == []  # rendered with size=large, the release's own value
        process = subprocess.Popen([sys.executable, "-m", "deployah_plan", "upgrade", "app", str(chart)], env=env,
                                   cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        seen: set[str] = set()
        try:
            deadline, asked = time.monotonic() + 30, 0.0
            # Watched until the live read has hung for a while: the render is done by then.
            while not asked or time.monotonic() < asked + 1.5:
                assert time.monotonic() < deadline and process.poll() is None, process.communicate()
                seen |= {str(p) for p in temp.rglob("*")}
                if not asked and any(r.path.endswith("/configmaps") for r in kube.requests):
                    asked = time.monotonic()
                time.sleep(0.01)
            os.kill(process.pid, signal.SIGTERM)
            _, err = process.communicate(timeout=20)
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode != 0 and "Traceback" not in err
    assert seen == set() and list(temp.iterdir()) == []


def test_release_values_go_to_a_private_file_when_the_user_s_own_come_on_standard_input(
        helm: Path, store: Store, tmp_path: Path) -> None:
    """`-f -` reads the user's values from standard input: the release's (--reuse-values) are
    then given in a file of the plan's private folder, removed when the plan ends."""
    chart = write_chart(tmp_path, "app", {
        "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n"
                   "  size: {{ .Values.size | quote }}\n  colour: {{ .Values.colour | quote }}\n",
    }, values="size: small\ncolour: red\n")
    store.add("app", chart, flags=("--set", "size=large"))
    temp = tmp_path / "tmp"
    temp.mkdir()
    done = run_plan("upgrade", "app", str(chart), "--reuse-values", "-f", "-", "-o", "json", "--debug",
                    helm=helm, store=store, stdin="colour: blue\n", TMPDIR=str(temp))
    assert done.code == 0, done.err
    (change,) = done.json()["changes"]
    assert [(f["path"], f["after"]) for f in change["fields"]] == [("/data/colour", "blue")]  # size stays large
    assert f"--values {temp}/helm-plan-" in done.err and list(temp.iterdir()) == []


def test_a_set_file_value_comes_on_standard_input_as_helm_reads_it(helm: Path, store: Store, tmp_path: Path) -> None:
    """`--set-file key=-` reads the value from standard input (helm's readFile); with
    --reuse-values the release's values then go to the private folder's file."""
    chart = write_chart(tmp_path, "app", {
        "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n"
                   "  size: {{ .Values.size | quote }}\n  colour: {{ .Values.colour | quote }}\n",
    }, values="size: small\ncolour: red\n")
    store.add("app", chart, flags=("--set", "size=large"))
    done = run_plan("upgrade", "app", str(chart), "--reuse-values", "--set-file", "colour=-", "-o", "json",
                    helm=helm, store=store, stdin="blue")
    assert done.code == 0, done.err
    (change,) = done.json()["changes"]
    assert [(f["path"], f["after"]) for f in change["fields"]] == [("/data/colour", "blue")]  # size stays large
    missing = run_plan("upgrade", "app", str(chart), "--set-file", f"colour={tmp_path / 'none'}", helm=helm, store=store)
    assert missing.code == 1 and "given to --set-file not found" in missing.err and "Traceback" not in missing.err


def test_characters_go_escapes_its_own_way_are_read_back(helm: Path, store: Store, tmp_path: Path) -> None:
    """helm's record of a release quotes strings with Go's %q, which writes a character it does
    not print (a tag character, a private-use one) as \\U00XXXXXX: not JSON, read all the same."""
    unusual = "tag\U000E0001 private\U000F0000 next\u0085 bom\ufeff"
    chart = write_chart(tmp_path, "odd", {"cm.yaml": f'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: odd\n'
                                                      f'data:\n  text: "{unusual}"\n'})
    store.add("odd", chart, "shop")
    same = run_plan("upgrade", "odd", str(chart), "-n", "shop", "-o", "json", helm=helm, store=store)
    assert same.code == 0, same.err
    assert same.json()["helm_action"] == "none"
    (chart / "templates" / "cm.yaml").write_text((chart / "templates" / "cm.yaml").read_text() + "  more: x\n")
    changed = run_plan("upgrade", "odd", str(chart), "-n", "shop", "-o", "json", helm=helm, store=store).json()
    (change,) = changed["changes"]
    assert [f["path"] for f in change["fields"]] == ["/data/more"]
