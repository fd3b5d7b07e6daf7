"""The plugin installed into real helm with `helm plugin install`, run as a user runs it, and its
life cycle: where its Python environment lives, what update and uninstall do to it, and what a
failed build leaves."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLE, ROOT, Store, clean_env

pytestmark = pytest.mark.e2e  # each test starts helm-plan or helm as a process


def _helm_env(home: Path, cache: Path | None = None, **extra: str) -> dict[str, str]:
    env = clean_env(HELM_DATA_HOME=str(home / "data"), HELM_CONFIG_HOME=str(home / "config"),
                    HELM_CACHE_HOME=str(cache or home / "cache"), PATH=os.environ["PATH"], **extra)
    env.pop("PYTHONPATH")
    return env


def _run(*args: str | Path, env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], env=env, capture_output=True, text=True, cwd=cwd)


def _verify_off(helm: Path) -> list[str]:
    """Helm 4 verifies plugin sources and refuses one it cannot verify (a git repository)."""
    return ["--verify=false"] if helm.parent.name.startswith("4.") else []


def _checkout(tmp_path: Path) -> Path:
    """A git checkout of this project (its files as they are now, ignored ones left out), as a
    user has one."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split("\0")
    checkout = tmp_path / "helm-plan"
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (checkout / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, checkout / name)
    _git(checkout, "init", "-q")
    _commit(checkout, "the project")
    return checkout


def _git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid", *args], cwd=folder, check=True,
                   capture_output=True)


def _commit(folder: Path, message: str) -> None:
    _git(folder, "add", "-A")
    _git(folder, "commit", "-qm", message)


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if ".git" not in p.parts)


def _assert_version(helm: Path, env: dict[str, str]) -> None:
    """`helm plan --version` and `helm plan version` say plugin.yaml's version, and the latter
    the helm and the Python the plugin runs with."""
    stated = re.search(r'^version: "([^"]+)"$', (ROOT / "plugin.yaml").read_text(), re.MULTILINE)
    assert stated
    short = _run(helm, "plan", "--version", env=env)
    assert (short.returncode, short.stdout, short.stderr) == (0, f"helm plan, version {stated[1]}\n", ""), short.stderr
    full = _run(helm, "plan", "version", env=env)
    assert full.returncode == 0 and full.stderr == "", full.stderr
    lines = full.stdout.splitlines()
    assert lines[0] == f"helm plan {stated[1]}"
    assert lines[1].startswith(f"helm: {helm.parent.name} (") and lines[2].startswith("python: 3.")
    assert lines[3].startswith("environment: ") and "helm-plan" in lines[3]


def test_helm_plugin_install_then_helm_plan(helm: Path, store: Store, tmp_path: Path, shared_cache: Path) -> None:
    env = _helm_env(tmp_path / "helm-home", shared_cache, HELM_DRIVER="memory", HELM_MEMORY_DRIVER_DATA=str(store.path))
    installed = _run(helm, "plugin", "install", ROOT, env=env)
    assert installed.returncode == 0, installed.stderr
    listed = _run(helm, "plugin", "list", env=env)
    assert "plan" in listed.stdout

    store.add("shop", EXAMPLE / "chart-v1", "shop")
    # helm consumes its global -n and hands it to the plugin as HELM_NAMESPACE.
    result = _run(helm, "plan", "upgrade", "shop", EXAMPLE / "chart-v2", "-n", "shop", "--detailed-exitcode",
                  env=env, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "helm plan: upgrade release shop in namespace shop" in result.stdout
    assert f"Helm {helm.parent.name}" in result.stdout  # the plugin used the helm that ran it (HELM_BIN)
    assert "Plan: 2 to create, 3 to update, 1 to delete." in result.stdout

    same = _run(helm, "plan", "upgrade", "shop", EXAMPLE / "chart-v1", "--namespace", "shop",
                "--detailed-exitcode", "-o", "json", env=env)
    assert same.returncode == 0, same.stderr
    assert '"helm_action": "none"' in same.stdout

    _assert_version(helm, env)

    bad = _run(helm, "plan", "upgrade", "shop", tmp_path / "missing", env=env)
    assert bad.returncode == 1
    assert "helm plan: error: chart" in bad.stderr and "Traceback" not in bad.stderr


def test_install_update_uninstall(helm: Path, tmp_path: Path) -> None:
    """From git: the environment is made once under helm's cache, kept by an update with the same
    dependencies, replaced when they change, and removed by uninstall."""
    checkout = _checkout(tmp_path)
    home, cache = tmp_path / "home", tmp_path / "home" / "cache"
    env = _helm_env(home)
    installed = _run(helm, "plugin", "install", f"file://{checkout}", *_verify_off(helm), env=env)
    assert installed.returncode == 0, installed.stderr
    plugin = home / "data" / "plugins" / "helm-plan"
    assert plugin.is_dir() and not plugin.is_symlink()
    (first,) = (cache / "helm-plan").glob("env-*")
    assert (first / "bin" / "python").exists()
    assert not list(first.glob("lib/python*/site-packages/pip"))  # made without a pip of its own
    assert _files(plugin) == _files(checkout)  # nothing made in the plugin folder
    python_bin = first / "bin" / "python"
    made = python_bin.lstat().st_mtime_ns

    ran = _run(helm, "plan", "schema", env=env)
    assert ran.returncode == 0 and '"$id"' in ran.stdout and ran.stderr == ""
    _assert_version(helm, env)  # the environment holds no helm plan distribution: the package's __version__ says it
    assert _files(plugin) == _files(checkout)  # its bytecode is kept under the environment
    assert list((first / "pycache").rglob("cli*.pyc"))

    # A new commit with the same dependencies: the update hook finds the environment.
    (checkout / "NOTES.md").write_text("a change that is not a dependency\n")
    _commit(checkout, "notes")
    updated = _run(helm, "plugin", "update", "plan", env=env)
    assert updated.returncode == 0, updated.stderr
    assert (plugin / "NOTES.md").is_file()
    assert [p.name for p in (cache / "helm-plan").glob("env-*")] == [first.name]
    assert python_bin.lstat().st_mtime_ns == made  # not rebuilt
    ran = _run(helm, "plan", "schema", env=env)
    assert ran.returncode == 0 and "making its Python environment" not in ran.stderr

    # New dependencies: a new environment, and the old one goes.
    pyproject = checkout / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('    "click>=8.1",\n', '    "click>=8.1.3",\n'))
    _commit(checkout, "a new dependency range")
    updated = _run(helm, "plugin", "update", "plan", env=env)
    assert updated.returncode == 0, updated.stderr
    (second,) = (cache / "helm-plan").glob("env-*")
    assert second.name != first.name and "click>=8.1.3" in (second / "requirements.txt").read_text()

    removed = _run(helm, "plugin", "uninstall", "plan", env=env)
    assert removed.returncode == 0, removed.stderr
    assert not plugin.exists() and not (cache / "helm-plan").exists()


def test_local_install_leaves_the_checkout_as_it_was(helm: Path, tmp_path: Path) -> None:
    """helm links a local folder: running the plugin writes nothing there, not even Python's
    bytecode (which goes under the environment, in helm's cache)."""
    checkout = _checkout(tmp_path)
    before = _files(checkout)
    env = _helm_env(tmp_path / "home")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # Python's default: write bytecode
    assert _run(helm, "plugin", "install", checkout, env=env).returncode == 0
    ran = _run(helm, "plan", "schema", env=env, cwd=checkout)
    assert ran.returncode == 0, ran.stderr
    assert not list(checkout.rglob("__pycache__"))
    (environment,) = (tmp_path / "home" / "cache" / "helm-plan").glob("env-*")
    assert list((environment / "pycache").rglob("cli.*.pyc"))
    # helm updates only a plugin installed from a repository; a linked folder is updated by hand.
    update = _run(helm, "plugin", "update", "plan", env=env)
    assert update.returncode != 0 and "failed to update plugin plan" in update.stderr.lower(), update.stderr
    assert _run(helm, "plugin", "uninstall", "plan", env=env).returncode == 0
    assert _files(checkout) == before  # no build/, *.egg-info, environment or lock in the user's folder
    assert not (tmp_path / "home" / "cache" / "helm-plan").exists()


def test_the_current_folder_cannot_hide_a_module(helm: Path, tmp_path: Path, shared_cache: Path) -> None:
    """Run from a repository being planned (a pull request's checkout in CI), the plugin imports
    only its own code and its environment's packages: a `yaml.py` or `deployah_plan/` there is
    never run."""
    env = _helm_env(tmp_path / "home", cache=shared_cache)
    assert _run(helm, "plugin", "install", ROOT, env=env).returncode == 0
    repo = tmp_path / "repo"
    (repo / "deployah_plan").mkdir(parents=True)
    planted = "import pathlib; pathlib.Path(__file__).with_name('ran').write_text('ran')\n"
    (repo / "yaml.py").write_text(planted)
    (repo / "click.py").write_text(planted)
    (repo / "deployah_plan" / "__init__.py").write_text(planted)
    (repo / "deployah_plan" / "__main__.py").write_text(planted)
    ran = _run(helm, "plan", "schema", env=env, cwd=repo)
    assert ran.returncode == 0 and '"$id"' in ran.stdout, ran.stderr
    assert not (repo / "ran").exists() and not (repo / "deployah_plan" / "ran").exists()
    usage = _run(helm, "plan", "upgrade", "--help", env=env, cwd=repo)
    assert usage.returncode == 0 and "Usage: helm plan upgrade" in usage.stdout, usage.stderr


def test_a_failed_build_fails_once_with_the_fix_and_leaves_nothing(helm: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    offline = _helm_env(home, PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1", PIP_FIND_LINKS="")  # no package source
    installed = _run(helm, "plugin", "install", _checkout(tmp_path), env=offline)
    assert installed.returncode != 0
    assert "helm plan: error: could not install helm plan's Python packages: click>=8.1 msgspec>=0.18 PyYAML>=6.0" in installed.stderr
    assert "then run: helm plan --prepare" in installed.stderr
    envs = home / "cache" / "helm-plan"
    assert [p.name for p in envs.iterdir()] == [next(envs.glob("failed-*")).name]  # no half-made environment

    # Later runs say so at once, without trying again.
    again = _run(helm, "plan", "schema", env=offline)
    assert again.returncode == 1 and "making its Python environment" not in again.stderr
    assert "its Python environment could not be made: pip could not install" in again.stderr
    assert "then run: helm plan --prepare" in again.stderr and "Traceback" not in again.stderr

    # The fix, then the command the message names.
    online = _helm_env(home)
    prepared = _run(helm, "plan", "--prepare", env=online)
    assert prepared.returncode == 0, prepared.stderr
    assert [p.name.split("-")[0] for p in envs.iterdir()] == ["env"]
    assert _run(helm, "plan", "schema", env=online).returncode == 0


def test_python_too_old_is_one_line(tmp_path: Path) -> None:
    old = tmp_path / "python3.9"
    old.write_text("#!/bin/sh\ncase \"$*\" in *print*) echo /usr/bin/python3.9 3.9 ;; *) exit 1 ;; esac\n")
    old.chmod(0o755)
    env = _helm_env(tmp_path / "home", HELM_PLAN_PYTHON=str(old))
    done = _run(ROOT / "scripts" / "helm-plan", "schema", env=env)
    assert done.returncode == 1
    assert done.stderr.endswith("is Python 3.9, and helm plan needs 3.10 or newer; set HELM_PLAN_PYTHON to a newer one\n")
    missing = _run(ROOT / "scripts" / "helm-plan", "schema", env={**env, "HELM_PLAN_PYTHON": "no-such-python"})
    assert missing.returncode == 1 and "no-such-python not found; install Python 3.10 or newer" in missing.stderr


def test_the_plugin_reads_the_dependencies_of_pyproject(tmp_path: Path) -> None:
    tomllib = pytest.importorskip("tomllib", reason="tomllib comes with Python 3.11+")  # the plugin uses sed
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    env = _helm_env(tmp_path / "home")
    path = _run(ROOT / "scripts" / "helm-plan", "--env-path", env=env).stdout.strip()
    assert path.startswith(str(tmp_path / "home" / "cache" / "helm-plan" / "env-"))
    assert not Path(path).exists()  # --env-path makes nothing
    listed = _run("bash", "-c", f'source <(sed -n "/^dependencies()/,/^}}/p" {ROOT}/scripts/helm-plan); '
                  f'here={ROOT}; dependencies', env=env).stdout.split()
    assert listed == declared


def test_the_docs_state_what_measure_install_measures(tmp_path: Path) -> None:
    """docs/performance.md's install figures are scripts/measure-install's (its --write puts them
    there): the sizes within a fifth (the packages pip picks move a little); times depend on the
    machine and are not checked."""
    import re

    helm = ROOT / ".cache" / "helm" / "3.19.0" / "helm"
    done = _run(ROOT / "scripts" / "measure-install", helm, env=_helm_env(tmp_path / "home"))
    assert done.returncode == 0, done.stderr
    line = done.stdout.splitlines()[0]
    measured = re.search(r"environment ([0-9.]+) MB; a git install keeps ([0-9.]+) MB more", line)
    assert measured, line
    page = (ROOT / "docs" / "performance.md").read_text()
    block = page.split("<!-- install figures: written by scripts/measure-install --write -->\n", 1)[1]
    block = block.split("<!-- end of install figures -->", 1)[0]
    assert re.match(r"Measured \d{4}-\d\d-\d\d \d\d:\d\d UTC on .+ cores", block), "the date and the machine"
    stated = re.search(r"environment ([0-9.]+) MB; a git install keeps ([0-9.]+) MB more", block)
    assert stated, "docs/performance.md states the environment's size and a git install's"
    for said, found in zip(stated.groups(), measured.groups()):
        assert abs(float(said) - float(found)) <= 0.2 * float(found), (said, found, line)
    # Only that page states them: the README and the install page point at it.
    for other in (ROOT / "README.md", ROOT / "docs" / "install.md"):
        assert not re.search(r"\d MB|\d s\b", other.read_text()), other.name


def test_the_launcher_runs_the_last_environment_without_starting_python(tmp_path: Path, shared_cache: Path) -> None:
    env = _helm_env(tmp_path / "home", shared_cache)
    launcher = ROOT / "scripts" / "helm-plan"
    assert _run(launcher, "schema", env=env).returncode == 0
    record = shared_cache / "helm-plan" / "launch"
    here, python, environment = record.read_text().splitlines()
    assert (here, python) == (str(ROOT.resolve()), "python3") and (Path(environment) / "bin" / "python").exists()

    # A python3 that cannot run: only the quick way (no Python started to find the key) works.
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "python3").write_text("#!/bin/sh\nexit 1\n")
    (fake / "python3").chmod(0o755)
    broken = {**env, "PATH": f"{fake}:{env['PATH']}"}
    quick = _run(launcher, "schema", env=broken)
    assert quick.returncode == 0 and '"$id"' in quick.stdout, quick.stderr

    # pyproject.toml newer than the record (an update): the long way, which starts python3.
    os.utime(record, (0, 0))
    slow = _run(launcher, "schema", env=broken)
    assert slow.returncode == 1 and "python3 does not run" in slow.stderr
    # A record naming an environment that is gone: the long way too.
    record.write_text(f"{here}\npython3\n{tmp_path / 'gone'}\n")
    assert _run(launcher, "schema", env=broken).returncode == 1
    assert _run(launcher, "schema", env=env).returncode == 0  # and the record is written again
    assert record.read_text().splitlines()[2] == environment


def test_a_deployah_plan_folder_where_it_runs_is_not_imported(tmp_path: Path, shared_cache: Path) -> None:
    hostile = tmp_path / "repo" / "deployah_plan"
    hostile.mkdir(parents=True)
    (hostile / "__init__.py").write_text("raise SystemExit('imported from the current folder')\n")
    (hostile / "cli.py").write_text("raise SystemExit('imported from the current folder')\n")
    done = _run(ROOT / "scripts" / "helm-plan", "schema", env=_helm_env(tmp_path / "home", shared_cache),
                cwd=hostile.parent)
    assert done.returncode == 0 and '"$id"' in done.stdout, done.stderr


def test_the_launcher_starts_python_without_site_and_the_packages_after_the_standard_library(tmp_path: Path) -> None:
    """The environment's Python is started with -S (the site module took 2-3 ms of every plan):
    its one packages folder is put on the module path by the launcher's own code, last, where
    site puts it, so no package can hide a module of the standard library."""
    cache = tmp_path / "cache"
    environment = tmp_path / "env"
    packages = environment / "lib" / "python3.11" / "site-packages"
    packages.mkdir(parents=True)
    (environment / "bin").mkdir()
    seen = tmp_path / "seen"
    # A Python in the environment's place that writes down how it was started.
    (environment / "bin" / "python").write_text(f'#!/bin/sh\nprintf "%s\\n" "$PYTHONPATH" "$@" > "{seen}"\n')
    (environment / "bin" / "python").chmod(0o755)
    (cache / "helm-plan").mkdir(parents=True)
    (cache / "helm-plan" / "launch").write_text(f"{ROOT.resolve()}\npython3\n{environment}\n")
    env = _helm_env(tmp_path / "home", cache)
    assert _run(ROOT / "scripts" / "helm-plan", "schema", "--x", env=env).returncode == 0
    pythonpath, flag, dash_c, code, *argv = seen.read_text().splitlines()
    assert (pythonpath, flag, dash_c, argv) == (str(ROOT.resolve()), "-S", "-c", [str(packages), "schema", "--x"])
    # The launcher's code, with what it then imports left out, run by a real Python as it was started.
    probe = code.replace("from deployah_plan.entry import run; run()",
                         "import json; print(json.dumps([sys.path, sys.argv, 'site' in sys.modules]))")
    assert probe != code
    done = subprocess.run([sys.executable, "-S", "-c", probe, *argv], capture_output=True, text=True,
                          env={**clean_env(), "PYTHONPATH": pythonpath}, cwd=tmp_path)
    path, args, site = json.loads(done.stdout)
    assert path[0] == str(ROOT.resolve()) and path[-1] == str(packages) and not site
    assert any(os.path.isfile(os.path.join(entry, "os.py")) for entry in path[1:-1])  # the standard library between
    assert args == ["-c", "schema", "--x"]
