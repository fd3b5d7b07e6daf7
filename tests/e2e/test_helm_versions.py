"""What helm-plan remembers about a helm binary (sources/helm_versions.py), and how many helm
processes a plan starts: counted by a HELM_BIN script that logs each call and runs real helm."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import EXAMPLE, Store, run_plan, write_chart

VALUES = str(EXAMPLE / "chart-v2" / "values.yaml")


def _logging_helm(tmp_path: Path, helm: Path, pause: float = 0.0) -> tuple[Path, Path]:
    """A helm that logs `start CALL` and `end CALL` around each real helm call."""
    log = tmp_path / "calls.log"
    script = tmp_path / "bin" / "helm"
    script.parent.mkdir()
    script.write_text(
        "#!/bin/sh\n"
        f'echo "start $1 $2" >> "{log}"\n'
        f"sleep {pause}\n"
        f'"{helm}" "$@"\n'
        "code=$?\n"
        f'echo "end $1 $2" >> "{log}"\n'
        "exit $code\n"
    )
    script.chmod(0o755)
    return script, log


def _calls(log: Path) -> list[str]:
    calls = [line.removeprefix("start ") for line in log.read_text().splitlines() if line.startswith("start ")]
    log.write_text("")
    return calls


def _plan(wrapper: Path, store: Store, cache: Path, *extra: str) -> dict[str, object]:
    result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "-f", VALUES, "-o", "json",
                      *extra, helm=wrapper, store=store, HELM_CACHE_HOME=str(cache))
    assert result.code == 0, result.err
    doc: dict[str, object] = result.json()
    return doc


def test_a_plan_starts_one_helm_process_once_helm_is_known(helm: Path, store: Store, tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop", flags=("-f", VALUES))  # the same values: no render for causes
    wrapper, log = _logging_helm(tmp_path, helm)
    cache = tmp_path / "cache"
    first = _plan(wrapper, store, cache)
    assert sorted(_calls(log)) == ["template probe", "template shop", "version --template"]
    second = _plan(wrapper, store, cache)
    # The render; the release is read from the memory driver's file by helm plan (issue 50
    # point 2), helm's version and default Kubernetes version are remembered.
    assert sorted(_calls(log)) == ["template shop"]
    assert second == first
    assert first["header"]["helm_version"] == helm.parent.name  # type: ignore[index]


def test_a_changed_binary_is_asked_again(helm: Path, store: Store, tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop", flags=("-f", VALUES))  # the same values: no render for causes
    wrapper, log = _logging_helm(tmp_path, helm)
    cache = tmp_path / "cache"
    _plan(wrapper, store, cache)
    _calls(log)
    wrapper.write_text(wrapper.read_text() + "# upgraded\n")  # another size and modification time
    _plan(wrapper, store, cache)
    assert "version --template" in _calls(log)


@pytest.mark.parametrize("content", [
    b"not json", b"[]", b'{"version": 3}', b"{" * 100_000, b" " * 10_000 + b"{}",
    b'{"version": "$(touch /tmp/x)", "kube_version": "1.2.3\\n# injected"}',
])
def test_a_corrupt_or_forged_cache_file_is_ignored(helm: Path, store: Store, tmp_path: Path, content: bytes) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop", flags=("-f", VALUES))  # the same values: no render for causes
    wrapper, log = _logging_helm(tmp_path, helm)
    cache = tmp_path / "cache"
    _plan(wrapper, store, cache)
    _calls(log)
    (facts,) = (cache / "helm-plan" / "helm-facts").iterdir()
    if content.startswith(b"{\"version\": \"$"):
        real = json.loads(facts.read_text())
        content = json.dumps({**real, **json.loads(content)}).encode()  # the right binary, forged values
    facts.write_bytes(content)
    doc = _plan(wrapper, store, cache)
    assert doc["header"]["helm_version"] == helm.parent.name  # type: ignore[index]
    assert sorted(_calls(log)) == ["template probe", "template shop", "version --template"]
    _plan(wrapper, store, cache)  # the file was rewritten whole
    assert sorted(_calls(log)) == ["template shop"]


def test_a_fifo_in_place_of_the_cache_file_does_not_hang(helm: Path, store: Store, tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop", flags=("-f", VALUES))  # the same values: no render for causes
    wrapper, log = _logging_helm(tmp_path, helm)
    cache = tmp_path / "cache"
    _plan(wrapper, store, cache)
    (facts,) = (cache / "helm-plan" / "helm-facts").iterdir()
    facts.unlink()
    os.mkfifo(facts)
    doc = _plan(wrapper, store, cache)
    assert doc["header"]["helm_version"] == helm.parent.name  # type: ignore[index]


def test_an_unwritable_cache_is_not_an_error(helm: Path, store: Store, tmp_path: Path) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop", flags=("-f", VALUES))  # the same values: no render for causes
    wrapper, log = _logging_helm(tmp_path, helm)
    cache = tmp_path / "cache"
    cache.write_text("a file where helm's cache folder should be")
    doc = _plan(wrapper, store, cache)
    assert doc["header"]["helm_version"] == helm.parent.name  # type: ignore[index]


def test_the_release_is_read_while_the_render_runs(helm: Path, store: Store, tmp_path: Path) -> None:
    """The render takes at least a second here; the release is read by helm plan meanwhile, and
    no helm process reads it."""
    store.add("shop", EXAMPLE / "chart-v1", "shop", flags=("-f", VALUES))  # the same values: no render for causes
    wrapper, log = _logging_helm(tmp_path, helm, pause=1.0)
    cache = tmp_path / "cache"
    _plan(wrapper, store, cache)
    log.write_text("")
    _plan(wrapper, store, cache)
    assert log.read_text().splitlines() == ["start template shop", "end template shop"]


def test_an_install_is_rendered_as_an_install_though_the_render_started_as_an_upgrade(
        helm: Path, store: Store, tmp_path: Path) -> None:
    """The render starts before the release is read, as an upgrade's (`--is-upgrade`); a
    release that does not exist is rendered again without it, as helm install renders it."""
    chart = write_chart(tmp_path, "phase", {"cm.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: phase\ndata:\n"
        "  install: {{ .Release.IsInstall | quote }}\n  upgrade: {{ .Release.IsUpgrade | quote }}\n")})
    log = tmp_path / "args.log"
    wrapper = tmp_path / "helm"
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{helm}" "$@"\n')
    wrapper.chmod(0o755)
    values = ("--set", "x=1")

    fresh = run_plan("upgrade", "phase", str(chart), *values, "-o", "json", helm=wrapper, store=store)
    assert fresh.code == 0, fresh.err
    assert fresh.json()["helm_action"] == "install"
    renders = [line for line in log.read_text().splitlines() if line.startswith("template phase ")]
    assert sorted("--is-upgrade" in line for line in renders) == [False, True]

    store.add("phase", chart, flags=values)  # installed by helm itself: install "true", upgrade "false"
    log.write_text("")
    again = run_plan("upgrade", "phase", str(chart), *values, "-o", "json", helm=wrapper, store=store)
    assert again.code == 0, again.err
    renders = [line for line in log.read_text().splitlines() if line.startswith("template phase ")]
    assert len(renders) == 1 and "--is-upgrade" in renders[0]
    (update,) = again.json()["changes"]
    fields = {f["path"]: (f["before"], f["after"]) for f in update["fields"]}
    assert fields == {"/data/install": ("true", "false"), "/data/upgrade": ("false", "true")}
