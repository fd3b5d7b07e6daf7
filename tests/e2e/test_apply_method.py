"""Issue 46 points 4 and 5 end to end, through real Helm 3 and Helm 4: the apply method each plan
assumes and says (head line, JSON `header.apply_method`), from the newest revision of any status
on an upgrade and from the target on a rollback; --force-replace on a server-side apply as a
predicted failure; the flags helm refuses together, refused with helm's words; `helm plan
uninstall --cascade`, and the objects Helm 4.3's uninstall skips because the release does not
own them, read from a loopback API server (tests/kubeapi.py). The rules one by one:
tests/commands/test_apply_method.py."""
from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from typing import Any

from conftest import EXAMPLE, Store, clean_env, run_plan, write_chart
from deployah_plan.yamlkube import load_all
from e2e.test_cases import validate
from kubeapi import FakeKube

HELM4_ONLY = "is a Helm 4 flag, and helm 3.19.0 does not have it"


def _history(store: Store, newest: str) -> None:
    """Revision 1 deployed client-side, revision 2 a failed upgrade applied `newest`."""
    store.add("shop", EXAMPLE / "chart-v1", "shop", revision=1, flags=("--server-side=false",))
    store.add("shop", EXAMPLE / "chart-v2", "shop", revision=2, status="failed",
              flags=("--server-side=true",) if newest == "ssa" else ("--server-side=false",))


def _upgrade(store: Store, helm: Path, *flags: str) -> Any:
    return run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", *flags, helm=helm, store=store)


def test_an_upgrade_applies_as_the_newest_revision_of_any_status_was_applied(helm4: Path, store: Store) -> None:
    """Planned against revision 1 (the deployed one), applied as revision 2 (failed, server-side)."""
    _history(store, "ssa")
    result = _upgrade(store, helm4, "-o", "json")
    assert result.code == 0, result.err
    doc = result.json()
    validate(doc)
    assert doc["header"]["previous_revision"] == 1
    assert doc["header"]["apply_method"] == {"method": "ssa", "reason": "newest", "revision": 2}
    text = _upgrade(store, helm4, "--no-color")
    assert "\n  apply: server-side (revision 2, the newest, was applied server-side; --server-side=auto)\n" in text.out
    markdown = _upgrade(store, helm4, "-o", "markdown")
    assert "\n- apply: server-side (revision 2, the newest, was applied server-side; --server-side=auto)\n" in markdown.out
    forced = _upgrade(store, helm4, "-o", "json", "--server-side", "false").json()
    assert forced["header"]["apply_method"] == {"method": "csa", "reason": "flag", "revision": 0}


def test_a_client_side_newest_revision_keeps_the_three_way_merge(helm: Path, store: Store) -> None:
    """Point 5: a release whose newest revision was applied client-side stays client-side on Helm 4
    (no server-side apply note, no conflict check); Helm 3 is client-side whatever was stored."""
    _history(store, "csa")
    doc = _upgrade(store, helm, "-o", "json").json()
    want = ({"method": "csa", "reason": "helm3", "revision": 0} if helm.parent.name.startswith("3.")
            else {"method": "csa", "reason": "newest", "revision": 2})
    assert doc["header"]["apply_method"] == want
    assert not any("server-side apply" in line for line in doc["not_checked"])


def test_force_replace_on_a_server_side_upgrade_is_a_predicted_failure(helm: Path, store: Store) -> None:
    _history(store, "ssa")
    flag = "--force" if helm.parent.name.startswith("3.") else "--force-replace"
    result = _upgrade(store, helm, "-o", "json", flag)
    assert result.code == 0, result.err
    (note,) = [w for w in result.json()["warnings"] if w["code"] == "force-replace"]
    if helm.parent.name.startswith("3."):  # Helm 3 replaces, client-side: no failure
        assert not note["predicted_failure"]
        return
    assert note["predicted_failure"] and note["facts"] == {"flag": "--force-replace", "server_side": True, "adopted": 0}
    assert "cannot use server-side apply and force replace together" in note["message"]
    # Helm stops before it applies anything: no pod restarts, nothing said to roll out.
    assert result.json()["impact"] == []
    text = _upgrade(store, helm, "--no-color", flag)
    assert "What the deploy does to running things:" not in text.out and "pods restart" not in text.out
    client = _upgrade(store, helm, "-o", "json", flag, "--server-side=false").json()
    (note,) = [w for w in client["warnings"] if w["code"] == "force-replace"]
    assert not note["predicted_failure"]
    assert "restart" in [i["kind"] for i in client["impact"]]  # replaced client-side, the pods roll


def test_replacing_with_forced_conflicts_is_refused_as_helm_refuses_it(helm: Path, store: Store) -> None:
    _history(store, "ssa")
    for flags in (("--force-replace", "--force-conflicts"), ("--force", "--force-conflicts")):
        result = _upgrade(store, helm, *flags)
        assert result.code == 1
        if helm.parent.name.startswith("3."):
            assert HELM4_ONLY in result.err
            continue
        # What helm itself prints for the same flags (before it reads anything).
        helm_says = subprocess.run([str(helm), "upgrade", "shop", str(EXAMPLE / "chart-v2"), *flags],
                                   capture_output=True, text=True).stderr
        message = helm_says.strip().splitlines()[-1].removeprefix("Error: ")
        assert message.startswith("if any flags in the group [")
        assert f"helm plan: error: {message}" in result.err, (result.err, message)


def test_a_rollback_applies_as_its_target_was_applied(helm: Path, store: Store) -> None:
    """Revision 1 server-side, revision 2 (the current one) client-side: rolling back to 1 applies
    server-side on Helm 4, and --force-replace fails there as on an upgrade."""
    store.add("shop", EXAMPLE / "chart-v1", "shop", revision=1, status="superseded")
    store.add("shop", EXAMPLE / "chart-v2", "shop", revision=2, flags=("--server-side=false",))
    helm3 = helm.parent.name.startswith("3.")
    doc = run_plan("rollback", "shop", "1", "-n", "shop", "-o", "json", helm=helm, store=store).json()
    validate(doc)
    assert doc["header"]["apply_method"] == ({"method": "csa", "reason": "helm3", "revision": 0} if helm3
                                             else {"method": "ssa", "reason": "target", "revision": 1})
    flag = "--force" if helm3 else "--force-replace"
    forced = run_plan("rollback", "shop", "1", "-n", "shop", "-o", "json", flag, helm=helm, store=store)
    assert forced.code == 0, forced.err
    (note,) = [w for w in forced.json()["warnings"] if w["code"] == "force-replace"]
    assert note["predicted_failure"] is (not helm3)
    if helm3:
        for given in (("--server-side", "true"), ("--force-conflicts",), ("--force-replace",)):
            refused = run_plan("rollback", "shop", "1", "-n", "shop", *given, helm=helm, store=store)
            assert refused.code == 1 and f"{given[0]} {HELM4_ONLY}" in refused.err, refused.err
        return
    client = run_plan("rollback", "shop", "1", "-n", "shop", "-o", "json", "--server-side", "false",
                      helm=helm, store=store).json()
    assert client["header"]["apply_method"] == {"method": "csa", "reason": "flag", "revision": 0}
    both = run_plan("rollback", "shop", "1", "-n", "shop", "--force-replace", "--force-conflicts", helm=helm,
                    store=store)
    assert both.code == 1 and "if any flags in the group [force-replace force-conflicts] are set none of the " \
        "others can be; [force-conflicts force-replace] were all set" in both.err


def _installed(kube: FakeKube, store: Store) -> list[dict[str, Any]]:
    """Revision 1 of the example as helm installed it: every object labelled and annotated."""
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    kube.load_releases(store.path)
    (record,) = json.loads(store.path.read_text())
    objects = []
    for doc in load_all(record["manifest"]):
        obj: dict[str, Any] = copy.deepcopy(doc.value)
        meta = obj["metadata"]
        meta["namespace"] = "shop"
        meta["labels"] = {**meta.get("labels", {}), "app.kubernetes.io/managed-by": "Helm"}
        meta["annotations"] = {**meta.get("annotations", {}), "meta.helm.sh/release-name": "shop",
                               "meta.helm.sh/release-namespace": "shop"}
        objects.append(obj)
    return objects


def test_uninstall_skips_what_the_release_does_not_own_on_helm_4(helm: Path, store: Store, tmp_path: Path) -> None:
    """Helm 4.3 deletes only the objects whose labels and annotations name the release
    (pkg/action/validate.go verifyOwnershipBeforeDelete); Helm 3 deletes every one."""
    with FakeKube(namespace="shop") as kube:
        objects = _installed(kube, store)
        for obj in objects:
            if obj["kind"] == "ConfigMap":  # taken over by another release since
                obj["metadata"]["annotations"]["meta.helm.sh/release-name"] = "blog"
            if (obj["kind"], obj["metadata"]["name"]) == ("Service", "shop-legacy"):  # its label removed by hand
                obj["metadata"]["labels"].pop("app.kubernetes.io/managed-by")
            kube.put(obj)
        kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
        result = run_plan("uninstall", "shop", "-n", "shop", "-o", "json", helm=helm, KUBECONFIG=kubeconfig)
        text = run_plan("uninstall", "shop", "-n", "shop", "--no-color", helm=helm, KUBECONFIG=kubeconfig)
        assert kube.writes() == []
    assert result.code == 0, result.err
    doc = result.json()
    validate(doc)
    assert doc["header"]["apply_method"] is None  # an uninstall applies nothing
    actions = {(c["resource"]["kind"], c["resource"]["name"]): c["action"] for c in doc["changes"]}
    skipped = {w["resource"]["kind"]: w for w in doc["warnings"] if w["code"] == "uninstall-not-owned"}
    if helm.parent.name.startswith("3."):
        assert set(actions.values()) == {"delete"} and not skipped
        assert doc["live"]["status"] == "skipped"
        return
    assert doc["live"]["status"] == "checked"
    config, service = ("ConfigMap", "shop-config"), ("Service", "shop-legacy")
    assert actions[config] == "retain" and actions[service] == "retain"
    assert {a for k, a in actions.items() if k not in (config, service)} == {"delete"}
    assert skipped["ConfigMap"]["facts"]["owner_release"] == "shop/blog"
    assert "belongs to release shop/blog" in skipped["ConfigMap"]["message"]
    assert "Helm 4 skips it" in skipped["Service"]["message"]
    assert "= ConfigMap shop/shop-config" in text.out and "Helm 4 deletes only what the release owns" in text.out


def test_uninstall_shows_an_object_already_gone_as_gone_not_deleted(helm: Path, store: Store, tmp_path: Path) -> None:
    """An object of the release that the cluster no longer has: Helm 4.3 finds it missing and
    skips it ("Resource already deleted; nothing to do": real helm sends it no DELETE), and the
    plan, having read the cluster, shows it missing live, not as a delete. Helm 3's uninstall
    reads no live object: the plan lists it as a delete, as before."""
    with FakeKube(namespace="shop") as kube:
        for obj in _installed(kube, store):
            if (obj["kind"], obj["metadata"]["name"]) != ("Service", "shop-legacy"):  # deleted by hand since
                kube.put(obj)
        kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
        result = run_plan("uninstall", "shop", "-n", "shop", "-o", "json", helm=helm, KUBECONFIG=kubeconfig)
        text = run_plan("uninstall", "shop", "-n", "shop", "--no-color", helm=helm, KUBECONFIG=kubeconfig)
        assert kube.writes() == []
        if not helm.parent.name.startswith("3."):
            # What Helm 4 itself deletes (the read-only server refuses each DELETE, so none happens).
            subprocess.run([str(helm), "uninstall", "shop", "-n", "shop"], capture_output=True, text=True,
                           env=clean_env(KUBECONFIG=kubeconfig))
            deleted = sorted(r.path.rpartition("/")[2] for r in kube.writes()
                             if r.method == "DELETE" and "/secrets/sh.helm.release" not in r.path)
    assert result.code == 0, result.err
    doc = result.json()
    validate(doc)
    actions = {(c["resource"]["kind"], c["resource"]["name"]): c["action"] for c in doc["changes"]}
    legacy = ("Service", "shop-legacy")
    if helm.parent.name.startswith("3."):
        assert actions[legacy] == "delete" and doc["live"]["status"] == "skipped"
        return
    assert legacy not in actions and set(actions.values()) == {"delete"}
    assert "shop-legacy" not in deleted and sorted(name for _, name in actions) == deleted
    assert doc["summary"]["delete"] == len(actions)
    assert [(d["resource"]["name"], d["kind"], d["effect"]) for d in doc["drift"]] == [("shop-legacy", "missing", "left")]
    assert "- Service shop/shop-legacy  (missing live: it leaves the release, nothing to do)" in text.out
    assert "(delete)" not in text.out.split("Service shop/shop-legacy")[1].split("\n")[0]
    assert f"Plan: 0 to create, 0 to update, {len(actions)} to delete." in text.out


def test_uninstall_cascade_is_helms(helm: Path, store: Store) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    bad = run_plan("uninstall", "shop", "-n", "shop", "--cascade", "later", helm=helm, store=store)
    helm_says = subprocess.run([str(helm), "uninstall", "shop", "--cascade", "later"],
                               capture_output=True, text=True).stderr.strip().removeprefix("Error: ")
    assert bad.code == 1 and f"helm plan: error: {helm_says}" in bad.err, (bad.err, helm_says)
    orphan = run_plan("uninstall", "shop", "-n", "shop", "-o", "json", "--cascade", "orphan", helm=helm, store=store)
    assert orphan.code == 0, orphan.err
    (note,) = [w for w in orphan.json()["warnings"] if w["code"] == "cascade"]
    assert note["facts"] == {"mode": "orphan"} and "left running" in note["message"]
    plain = run_plan("uninstall", "shop", "-n", "shop", "-o", "json", helm=helm, store=store).json()
    assert not [w for w in plain["warnings"] if w["code"] == "cascade"]  # background, helm's default


_SETTINGS = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: fast\n"


def _records_releases(kube: FakeKube) -> None:
    """Helm's secret driver may create the release record (POST answered as created, nothing
    kept); everything else on that path is the read-only server's, so real helm gets as far
    as applying the chart's objects, which the server refuses (405)."""
    def respond(handler: Any, request: Any) -> None:
        code, body = ((201, {"kind": "Secret", "apiVersion": "v1", "metadata": {"name": "record", "namespace": "shop"}})
                      if request.method == "POST" else kube.answer(request.method, request.path, request.query))
        data = json.dumps(body).encode()
        handler.send_response(code)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
    kube.script("/api/v1/namespaces/shop/secrets", respond)


def test_force_replace_fails_a_server_side_install_exactly_when_it_adopts(helm4: Path, tmp_path: Path) -> None:
    """Helm 4's install updates only the live objects it adopts (--take-ownership, or already
    this release's), passing --force-replace and server-side apply to Update, which refuses them
    together; with nothing to adopt it creates. The plan predicts Helm's own failure, in its
    words, exactly then (the rule: tests/core/test_planner_apply.py)."""
    chart = write_chart(tmp_path / "chart", "shop", {"settings.yaml": _SETTINGS})
    existing = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": "shop"},
                "data": {"mode": "slow"}}
    labelled = copy.deepcopy(existing)
    labelled["metadata"].update(labels={"app.kubernetes.io/managed-by": "Helm"},
                                annotations={"meta.helm.sh/release-name": "shop", "meta.helm.sh/release-namespace": "shop"})
    refusal = "invalid operation: cannot use server-side apply and force replace together"
    for live, flags in (([existing], ("--take-ownership",)), ([labelled], ()), ([], ("--take-ownership",))):
        with FakeKube(namespace="shop") as kube:
            _records_releases(kube)
            for obj in [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}, *live]:
                kube.put(obj)
            kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
            args = ("upgrade", "--install", "shop", str(chart), "-n", "shop", "--force-replace", *flags)
            planned = run_plan(*args, "--render", "template", "-o", "json", helm=helm4, KUBECONFIG=kubeconfig)
            text = run_plan(*args, "--render", "template", "--no-color", helm=helm4, KUBECONFIG=kubeconfig)
            helm_says = subprocess.run([str(helm4), *args], capture_output=True, text=True,
                                       env=clean_env(KUBECONFIG=kubeconfig)).stderr.strip().splitlines()[-1]
        assert planned.code == 0, planned.err
        doc = planned.json()
        validate(doc)
        (note,) = [w for w in doc["warnings"] if w["code"] == "force-replace"]
        if not live:  # created, not updated: helm gets past Update to its first write
            assert helm_says.startswith("Error: server-side apply failed for object shop/settings"), helm_says
            assert not note["predicted_failure"] and note["facts"]["adopted"] == 0
            assert doc["summary"]["predicted_failures"] == 0
            assert doc["summary"]["adopted"] == 0 and "Plan: 1 to create, 0 to update" in text.out
            continue
        assert helm_says == f"Error: {refusal}", helm_says
        assert note["predicted_failure"] and note["facts"] == {"flag": "--force-replace", "server_side": True,
                                                               "adopted": 1}
        assert f'"{refusal}"' in note["message"]
        assert "--force-replace on an install that adopts 1 existing object (updated, server-side)" in text.out
        # The adopted object is applied over the live one: not counted as created.
        assert (doc["summary"]["create"], doc["summary"]["adopted"]) == (1, 1)
        assert "Plan: 0 to create, 1 to adopt, 0 to update, 0 to delete." in text.out
