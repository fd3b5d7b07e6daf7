"""Shell completion: completion.yaml and the tables in plugin.complete are the commands' flags
(scripts/gen-completion), and real helm completes through them (`helm __complete plan ...`,
which is what the completion scripts helm writes call) after `helm plugin install`, on Helm 3
and Helm 4, reading releases and revisions from a loopback API server and never writing."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from conftest import EXAMPLE, ROOT, Store, clean_env
from kubeapi import FakeKube


@pytest.fixture
def kube() -> Iterator[FakeKube]:
    with FakeKube(namespace="shop", context="fake-ctx") as server:
        yield server


@pytest.mark.e2e
def test_helm_completes_commands_flags_releases_and_revisions(helm: Path, store: Store, kube: FakeKube,
                                                            tmp_path: Path, shared_cache: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    store.add("shop", EXAMPLE / "chart-v2", "shop", revision=2)
    store.add("stage", EXAMPLE / "chart-v1", "shop")
    store.add("other", EXAMPLE / "chart-v1", "elsewhere")
    # Records whose names helm never writes: a newline that would make two names, an escape
    # sequence a terminal acts on, a name longer than helm allows. None is completed.
    for n, name in enumerate(["stale\nshadow", "osc\x1b]52;c;aGk=\x07", "s" * 54]):
        store.add(f"odd{n}", EXAMPLE / "chart-v1", "shop")
        records = json.loads(store.path.read_text())
        for record in records:
            if record["name"] == f"odd{n}":
                record["name"] = name
        store.path.write_text(json.dumps(records))
    kube.load_releases(store.path)
    home = tmp_path / "home"
    env = clean_env(HELM_DATA_HOME=str(home / "data"), HELM_CONFIG_HOME=str(home / "config"),
                    HELM_CACHE_HOME=str(shared_cache), PATH=os.environ["PATH"],
                    KUBECONFIG=str(kube.write_kubeconfig(tmp_path / "kubeconfig")))
    env.pop("PYTHONPATH")
    installed = subprocess.run([str(helm), "plugin", "install", str(ROOT)], env=env, capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
    kube.requests.clear()

    def complete(*words: str) -> tuple[list[str], str]:
        done = subprocess.run([str(helm), "__complete", "plan", *words], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        *lines, directive = done.stdout.splitlines()
        return lines, directive

    commands, directive = complete("")
    assert {"upgrade", "rollback", "uninstall", "revision", "releases", "diff", "show", "verify", "schema",
            "version"} <= set(commands) and directive == ":4"
    assert complete("up") == (["upgrade"], ":4")
    flags, _ = complete("upgrade", "--reuse")
    assert flags == ["--reuse-values"]  # from completion.yaml
    assert "--detailed-exitcode" in complete("rollback", "--")[0]

    # Releases of the namespace the kubeconfig names, or -n's (helm reads -n and passes it on).
    assert complete("upgrade", "") == (["shop", "stage"], ":4")
    assert complete("upgrade", "st") == (["stage"], ":4")
    assert complete("uninstall", "-n", "elsewhere", "") == (["other"], ":4")
    assert complete("upgrade", "--set", "a=1", "-f", "values.yaml", "sh") == (["shop"], ":4")
    assert complete("upgrade", "shop", "") == ([], ":0")  # the chart: files
    # Revisions of the release named, newest first, with their status and chart.
    assert complete("rollback", "shop", "") == (["2\tdeployed shop-0.2.0", "1\tdeployed shop-0.1.0"], ":4")
    assert complete("revision", "shop", "2", "") == (["2\tdeployed shop-0.2.0", "1\tdeployed shop-0.1.0"], ":4")
    assert complete("releases", "shop", "") == (["shop", "stage"], ":4")
    # Flag values: one of a few, or a file.
    assert complete("upgrade", "shop", "-o", "j") == (["json"], ":4")
    assert complete("diff", "--action", "") == (["auto", "install", "upgrade"], ":4")
    assert complete("upgrade", "-f", "") == ([], ":0")
    assert complete("show", "") == ([], ":0") and complete("schema", "") == ([], ":4")
    assert complete("verify", "plan.json", "--", "helm", "") == ([], ":0")

    assert kube.requests, "the releases were read from the cluster"
    assert kube.writes() == [] and {r.method for r in kube.requests} == {"GET"}
