"""`helm plan upgrade` through the installed plugin ÷ `helm template`, side by side; see scripts/bench.

For each helm (3 and 4) the plugin is installed (`helm plugin install` of this checkout) into
a helm home of its own; for each real public chart (tests/charts/README.md) the previous version is
stored as a deployed release in helm's memory driver (Helm 4's `helm install --dry-run=client`
record, as scripts/release-fixture makes it), and then, alternately, `helm template` of the
next version and `helm plan upgrade` of it with the same values are run to completion (text
output to /dev/null), each process timed on its own, on the wall clock and in CPU time. One
untimed run of each goes first (the plugin's Python environment, its bytecode and what it
remembers about helm are made then). Printed: the medians and their ratios.

The corpus charts (tests/corpus/README.md: `<chart>/<version>.tgz`, two or more, and an
optional `values.yaml`) are timed beside the real ones when the corpus folder exists
(`HELM_PLAN_CORPUS`, `.cache/corpus` by default, or `--corpus DIR`): the release is named after
the folder, in namespace `corpus`, stored from the older of the two newest packages with the
corpus `values.yaml` (if any), and planned to the newer. "flags" gives the corpus `values.yaml`
as `-f`; a chart with none gets `-f` of the newer package's own default `values.yaml`
(extracted to the work folder): the values are the chart's defaults, but the command line has
a values flag, which is the path being timed (helm plan starts `helm template` before it has
read the release). "reused" gives no values flag, as for the real charts.

Also: the Python imports of `helm plan --help` and of a whole plan (`python -X importtime`,
the top-level imports added up).
"""
from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import re
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from types import ModuleType
from typing import NamedTuple

import yaml

ROOT = Path(__file__).resolve().parent.parent


def _fetch_charts() -> ModuleType:
    """scripts/fetch-charts as a module: the real charts' names and where they are read."""
    loader = importlib.machinery.SourceFileLoader("fetch_charts", str(ROOT / "scripts" / "fetch-charts"))
    spec = importlib.util.spec_from_loader("fetch_charts", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


fetch_charts = _fetch_charts()
CHARTS: Path = fetch_charts.charts_root()
HELM_VERSIONS = ("3.19.0", "4.3.1")
# argo-cd stamps its admin password's mtime with `now`; fixing it makes the chart deterministic.
EXTRA = {"argo-cd": ["--set", "configs.secret.argocdServerAdminPasswordMtime=2025-01-01T00:00:00Z"]}


def fetch_helm(version: str) -> Path:
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "fetch-helm"), version],
                         check=True, capture_output=True, text=True).stdout
    return Path(out.strip())


CORPUS_NAMESPACE = "corpus"


def default_corpus() -> Path:
    return Path(os.environ.get("HELM_PLAN_CORPUS") or ROOT / ".cache" / "corpus")


def _values(name: str, side: str) -> list[str]:
    spec = yaml.safe_load((CHARTS / name / "case.yaml").read_text())
    files = [*spec.get("values", []), *spec.get(f"values_{side}", [])]
    return [arg for file in files for arg in ("-f", str(CHARTS / name / file))] + EXTRA.get(name, [])


def _case(name: str) -> tuple[str, str]:
    spec = yaml.safe_load((CHARTS / name / "case.yaml").read_text())
    return str(spec["release"]), str(spec["namespace"])


class Case(NamedTuple):
    """One chart planned from one version to the next: where it came from and the arguments of
    each run (values flags included)."""

    name: str
    source: str  # "real" (scripts/fetch-charts: where they are) or "corpus"
    release: str
    namespace: str
    prev: Path  # a chart folder or package
    next: Path
    prev_values: list[str]  # the release is stored with these
    next_values: list[str]  # "flags": given to helm template and helm plan upgrade
    reused_values: list[str]  # "reused": given to helm plan upgrade (helm reuses the release's values)

    @property
    def versions(self) -> str:
        return f"{_version_text(self.prev)} → {_version_text(self.next)}"


def _version_text(chart: Path) -> str:
    if chart.is_dir():
        return str(yaml.safe_load((chart / "Chart.yaml").read_text())["version"])
    return chart.name.removesuffix(".tgz")


def _version_key(package: Path) -> tuple[int, ...]:
    """The corpus tier's order (tests/e2e/test_corpus.py): the numbers of the file name."""
    return tuple(int(n) for n in re.findall(r"\d+", package.name.removesuffix(".tgz")))


def real_cases() -> list[Case]:
    cases = []
    for name in sorted(fetch_charts.NAMES):
        if not all((CHARTS / name / side / "Chart.yaml").is_file() for side in ("prev", "next")):
            sys.exit(f"bench: no chart {name} in {CHARTS}: run scripts/fetch-charts (tests/charts/README.md)")
        release, namespace = _case(name)
        cases.append(Case(name, "real", release, namespace, CHARTS / name / "prev", CHARTS / name / "next",
                          _values(name, "prev"), _values(name, "next"), EXTRA.get(name, [])))
    return cases


def _default_values(package: Path, into: Path) -> Path:
    """The chart's own values.yaml out of a package, written into the folder `into`."""
    with tarfile.open(package) as archive:
        for member in archive.getmembers():
            parts = member.name.split("/")
            if len(parts) == 2 and parts[1] == "values.yaml" and member.isfile():
                source = archive.extractfile(member)
                assert source is not None
                into.mkdir(parents=True, exist_ok=True)
                target = into / f"{parts[0]}-{package.name.removesuffix('.tgz')}-values.yaml"
                target.write_bytes(source.read())
                return target
    sys.exit(f"bench: {package} holds no values.yaml: package the chart with helm package")


def corpus_cases(corpus: Path, work: Path) -> list[Case]:
    """The charts of a corpus folder (tests/corpus/README.md), each from the older to the newer
    of its two newest packages; a folder with fewer than two packages is left out."""
    if not corpus.is_dir():
        return []
    cases = []
    for folder in sorted(p for p in corpus.iterdir() if p.is_dir()):
        packages = sorted(folder.glob("*.tgz"), key=_version_key)
        if len(packages) < 2:
            continue
        prev, next_ = packages[-2], packages[-1]
        given = folder / "values.yaml"
        stored = ["-f", str(given)] if given.is_file() else []
        flags = stored or ["-f", str(_default_values(next_, work / "corpus-values"))]
        cases.append(Case(folder.name, "corpus", folder.name, CORPUS_NAMESPACE, prev, next_, stored, flags, []))
    return cases


def cases(work: Path, corpus: Path | None, names: set[str] | None = None) -> list[Case]:
    """The real charts, then the corpus's (`corpus` None: none); `names` keeps only those
    charts (a name of both keeps both), and a name that is neither is an error."""
    found = real_cases() + (corpus_cases(corpus, work) if corpus is not None else [])
    if names is None:
        return found
    unknown = names - {c.name for c in found}
    if unknown:
        where = f" or in {corpus}" if corpus is not None else ""
        sys.exit(f"bench: no chart {', '.join(sorted(unknown))} in {CHARTS}{where}: "
                 f"choose among {', '.join(sorted({c.name for c in found}))}")
    return [c for c in found if c.name in names]


def store(case: Case, work: Path, helm4: Path) -> Path:
    """The case's previous version as a deployed release in a memory-driver file, made once."""
    path = work / f"store-{case.source}-{case.name}.json"
    if not path.exists():
        done = subprocess.run([sys.executable, str(ROOT / "scripts" / "release-fixture"), "--helm", str(helm4),
                               "--out", str(path), case.release, str(case.prev), "-n", case.namespace,
                               *case.prev_values], capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"bench: {case.name}: {done.stderr.strip()}")
    return path


def user_env(work: Path, version: str) -> dict[str, str]:
    """A user's environment with a helm home of its own (nothing of this shell's helm settings;
    Python allowed to keep bytecode, as by default)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HELM_", "KUBECONFIG", "PYTHON"))}
    home = work / f"helm-{version}"
    env.update(HELM_DATA_HOME=str(home / "data"), HELM_CONFIG_HOME=str(home / "config"),
               HELM_CACHE_HOME=str(home / "cache"))
    return env


def _timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds (user and system, of the process and all it waited for) of a
    command run to completion."""
    start = time.perf_counter()
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert child.stderr is not None
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode not in (0, 2):
        sys.exit(f"bench: {' '.join(command[:3])} failed: {err.strip()[-500:]}")
    return elapsed, usage.ru_utime + usage.ru_stime


def _side_by_side(commands: list[tuple[list[str], dict[str, str]]]) -> float:
    """Wall-clock seconds until every command (with its environment), all started at once, has
    finished."""
    start = time.perf_counter()
    children = [subprocess.Popen(c, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for c, env in commands]
    for child in children:
        child.wait()
    return time.perf_counter() - start


def _floor_plugin(work: Path, helm: Path, env: dict[str, str]) -> None:
    """A plugin `plan-floor` that starts the plugin's Python and does nothing: what helm's
    plugin dispatch and Python's start cost before helm plan does anything."""
    where = subprocess.run([str(ROOT / "scripts" / "helm-plan"), "--env-path"], env=env, capture_output=True, text=True)
    python = Path(where.stdout.strip()) / "bin" / "python"
    folder = work / "plan-floor"
    (folder / "scripts").mkdir(parents=True, exist_ok=True)
    (folder / "plugin.yaml").write_text('name: "plan-floor"\nversion: "0.1.0"\nusage: "bench"\ndescription: "bench"\n'
                                        'platformCommand:\n  - os: linux\n    command: "$HELM_PLUGIN_DIR/scripts/run"\n'
                                        '  - os: darwin\n    command: "$HELM_PLUGIN_DIR/scripts/run"\n')
    script = folder / "scripts" / "run"
    # As the launcher starts it (scripts/helm-plan `run`): without the site module.
    script.write_text(f'#!/usr/bin/env bash\nexec "{python}" -S -c pass\n')
    script.chmod(0o755)
    subprocess.run([str(helm), "plugin", "uninstall", "plan-floor"], env=env, capture_output=True)
    done = subprocess.run([str(helm), "plugin", "install", str(folder)], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"bench: installing the floor plugin failed: {done.stderr.strip()}")


class Figures(NamedTuple):
    """One chart and helm, one way of giving the values: medians of the alternating runs."""

    version: str
    chart: str
    source: str  # "real" or "corpus"
    values: str  # "flags": the next values given as -f; "reused": none given (helm reuses the release's)
    plan: float  # wall-clock seconds
    template: float
    plan_cpu: float  # CPU seconds, the plan's helm processes included
    template_cpu: float
    floor: float
    # The least a plan that renders once can take, in the same runs: the floor's plugin start and
    # `helm template` alone (no `helm get`, no work of the plan's own).
    one_render: float
    baseline: float | None  # the baseline checkout's plan (--baseline), wall-clock seconds


def _install(helm: Path, env: dict[str, str], folder: Path) -> None:
    subprocess.run([str(helm), "plugin", "uninstall", "plan"], env=env, capture_output=True)
    installed = subprocess.run([str(helm), "plugin", "install", str(folder)], env=env, capture_output=True, text=True)
    if installed.returncode != 0:
        sys.exit(f"bench: helm plugin install of {folder} failed: {installed.stderr.strip()}")


def plugin_ratios(work: Path, runs: int, baseline: Path | None = None,
                  charts: list[Case] | None = None) -> list[Figures]:
    """The figures per helm, chart and way of giving the values: wall-clock seconds, then CPU
    seconds (what a machine shared with other work still measures faithfully; the plan's
    includes its helm processes). Values given as flags: `helm template` and `helm plan
    upgrade` with the next version's values files. Reused: `helm plan upgrade` with no values
    flag (helm upgrade reuses the release's values, which the plan reads from the release), and
    `helm template` with the values the release was made with. The floor: helm starting a
    plugin that starts the plugin's Python and ends, plus `helm get all` and `helm template`
    run side by side (what any plan made by helm and Python costs; `helm template` without the
    memory driver's file, as a plan runs it, since it reads no release); reused, the two run one
    after the other, as the render needs the release's values (offline, `helm upgrade
    --dry-run` needs a server: the values come from the release read). `baseline`: another
    checkout of helm plan, installed into a helm home of its own and timed in the same
    alternation (template, plan, baseline plan, floor), so a change is measured against what
    it changes under the same load. `charts`: the cases to time (all the real ones when
    None)."""
    helm4 = fetch_helm("4.3.1")
    charts = real_cases() if charts is None else charts
    figures = []
    for version in HELM_VERSIONS:
        helm = fetch_helm(version)
        env = user_env(work, version)
        _install(helm, env, ROOT)
        _floor_plugin(work, helm, env)
        base_env = user_env(work, f"{version}-baseline") if baseline is not None else None
        if baseline is not None and base_env is not None:
            _install(helm, base_env, baseline)
        for case in charts:
            data = store(case, work, helm4)
            run_env = {**env, "HELM_DRIVER": "memory", "HELM_MEMORY_DRIVER_DATA": str(data)}
            run_base = {**base_env, "HELM_DRIVER": "memory", "HELM_MEMORY_DRIVER_DATA": str(data)} if base_env else None
            release, namespace = case.release, case.namespace
            target = [release, str(case.next), "-n", namespace]
            for values, template_values, plan_values in (("flags", case.next_values, case.next_values),
                                                         ("reused", case.prev_values, case.reused_values)):
                template = [str(helm), "template", *target, *template_values]
                plan = [str(helm), "plan", "upgrade", *target, *plan_values]
                if values == "reused" and subprocess.run(template, env=run_env, capture_output=True).returncode != 0:
                    continue  # the release's values do not fit the next chart (its schema): helm upgrade fails too
                floor = [str(helm), "plan-floor"]
                get = [str(helm), "get", "all", release, "-n", namespace]
                # The floor's render as a plan runs it: helm template reads no release, so it is
                # not given the memory driver's file, which every helm process loads as it starts.
                render_env = {**run_env, "HELM_MEMORY_DRIVER_DATA": os.devnull}
                _timed(template, run_env)
                _timed(plan, run_env)
                _timed(floor, run_env)
                if run_base is not None:
                    _timed(plan, run_base)
                plans, templates, floors, bases, one_renders = [], [], [], [], []
                for _ in range(runs):
                    templates.append(_timed(template, run_env))
                    plans.append(_timed(plan, run_env))
                    if run_base is not None:
                        bases.append(_timed(plan, run_base)[0])
                    helm_calls = (_side_by_side([(get, run_env), (template, render_env)]) if values == "flags"
                                  else _timed(get, run_env)[0] + _timed(template, render_env)[0])
                    started = _timed(floor, run_env)[0]
                    floors.append(started + helm_calls)
                    one_renders.append(started + _timed(template, render_env)[0])
                figures.append(Figures(version, case.name, case.source, values, statistics.median(t for t, _ in plans),
                                       statistics.median(t for t, _ in templates),
                                       statistics.median(c for _, c in plans),
                                       statistics.median(c for _, c in templates), statistics.median(floors),
                                       statistics.median(one_renders), statistics.median(bases) if bases else None))
    return figures


# Runs helm plan with every top-level import timed in CPU seconds (what a loaded machine still
# measures faithfully), printed last on stderr.
_COUNTED = """
import builtins, sys, time
spent, depth, real = 0.0, 0, builtins.__import__
def counted(*args, **kwargs):
    global spent, depth
    if depth:
        return real(*args, **kwargs)
    depth, start = 1, time.process_time()
    try:
        return real(*args, **kwargs)
    finally:
        spent, depth = spent + time.process_time() - start, 0
builtins.__import__ = counted
sys.argv = ["helm-plan", *sys.argv[1:]]
try:
    # As the entry point runs it (a plan command line without click), but without ending the
    # process at once, as entry.run does.
    from deployah_plan.entry import command
    from deployah_plan.sources.early import HelmCalls
    calls = HelmCalls()
    try:
        command(sys.argv[1:], calls)
    finally:
        calls.end()
finally:
    sys.stderr.write(f"\\nimport-cpu {spent}\\n")
"""


_LOADED = """
import sys
sys.argv = ["helm-plan", *sys.argv[1:]]
before = set(sys.modules)
try:
    from deployah_plan.entry import command
    from deployah_plan.sources.early import HelmCalls
    calls = HelmCalls()
    try:
        command(sys.argv[1:], calls)
    finally:
        calls.end()
finally:
    sys.stderr.write("\\nloaded " + " ".join(m for m in sys.modules if m not in before) + "\\n")
"""

_ALONE = """
import importlib, sys, time
names = sys.argv[1:]
wall, cpu = time.perf_counter(), time.process_time()
for name in names:
    if name not in sys.modules:
        if name.split(".")[0] == "yaml":  # as a plan imports PyYAML: its own patterns compiled when used
            importlib.import_module("deployah_plan.yamlkube").pyyaml()
        try:
            importlib.import_module(name)
        except ImportError:
            pass
sys.stderr.write(f"alone {time.perf_counter() - wall} {time.process_time() - cpu}\\n")
"""


_BEFORE_HELM = """
import sys, time
wall, cpu = time.perf_counter(), time.process_time()
from deployah_plan.sources import early
found = early.commands(sys.argv[1:])
sys.stderr.write(f"before-helm {len(found)} {time.perf_counter() - wall} {time.process_time() - cpu}\\n")
"""


def import_ms(work: Path) -> dict[str, tuple[float, float]]:
    """Milliseconds of imports of `helm plan --help` and of a whole plan of the kube-state-metrics
    upgrade (Helm 4), run as the plugin runs it (its environment's Python, its bytecode folder),
    median of 5 after one run that makes the bytecode: (the top-level entries of
    `python -X importtime` after Python's own start (`site`) added up, on the wall clock; the
    same imports in CPU time). "alone": the modules a whole plan loads, imported in the order it
    loads them by a Python that does nothing else (during a plan, helm's processes and the
    plan's own threads run beside the imports and stretch both clocks), PyYAML as a plan
    imports it (yamlkube.pyyaml: its module-level patterns compiled when used); median of 15, as
    one run in five or so takes half as long again on a shared machine. "before helm": the
    imports and the reading of the command line before the plan starts its helm calls
    (sources/early.py; the helm's version already remembered), median of 15, or absent if it
    starts none."""
    helm = fetch_helm("4.3.1")
    env = user_env(work, "4.3.1")
    where = subprocess.run([str(ROOT / "scripts" / "helm-plan"), "--env-path"], env=env, capture_output=True, text=True)
    python_env = Path(where.stdout.strip())
    if not (python_env / "bin" / "python").exists():
        sys.exit("bench: the plugin's environment is not made (run the plugin figures first)")
    case = next(c for c in real_cases() if c.name == "kube-state-metrics")
    env.update(PYTHONPATH=str(ROOT), PYTHONPYCACHEPREFIX=str(python_env / "pycache"), HELM_BIN=str(helm),
               HELM_DRIVER="memory", HELM_MEMORY_DRIVER_DATA=str(store(case, work, helm)))
    python = [str(python_env / "bin" / "python"), "-s"]
    plan = ["upgrade", case.release, str(case.next), "-n", case.namespace, *case.next_values]
    results = {}
    for what, args in (("help", ["--help"]), ("plan", plan)):
        # From the work folder: `-m` and `-c` put the current folder first on the module path.
        subprocess.run([*python, "-m", "deployah_plan", *args], env=env, capture_output=True, cwd=work)
        walls, cpus = [], []
        for _ in range(5):
            err = subprocess.run([*python, "-X", "importtime", "-m", "deployah_plan", *args], env=env,
                                 capture_output=True, text=True, cwd=work).stderr
            total, started = 0, False
            for line in err.splitlines():
                if not line.startswith("import time:") or line.count("|") != 2:
                    continue
                _, cumulative, module = line.split("|")
                if module.startswith("  ") or not cumulative.strip().isdigit():
                    continue
                if started:
                    total += int(cumulative)
                started = started or module.strip() == "site"
            walls.append(total / 1000)
            err = subprocess.run([*python, "-c", _COUNTED, *args], env=env, capture_output=True, text=True,
                                 cwd=work).stderr
            cpus.append(float(err.rsplit("import-cpu ", 1)[1]) * 1000)
        results[what] = (statistics.median(walls), statistics.median(cpus))
    err = subprocess.run([*python, "-c", _LOADED, *plan], env=env, capture_output=True, text=True, cwd=work).stderr
    loaded = err.rsplit("loaded ", 1)[1].split()
    walls, cpus = [], []
    for _ in range(15):
        err = subprocess.run([*python, "-c", _ALONE, *loaded], env=env, capture_output=True, text=True,
                             cwd=work).stderr
        wall, cpu = err.rsplit("alone ", 1)[1].split()
        walls.append(float(wall) * 1000)
        cpus.append(float(cpu) * 1000)
    results["alone"] = (statistics.median(walls), statistics.median(cpus))
    walls, cpus = [], []
    for _ in range(15):
        err = subprocess.run([*python, "-c", _BEFORE_HELM, *plan], env=env, capture_output=True, text=True,
                             cwd=work).stderr
        started, wall, cpu = err.rsplit("before-helm ", 1)[1].split()
        if started == "0":
            return results
        walls.append(float(wall) * 1000)
        cpus.append(float(cpu) * 1000)
    results["before helm"] = (statistics.median(walls), statistics.median(cpus))
    return results



# Runs helm plan as the launcher runs it (entry.run), with one of the start-up tricks
# (deployah_plan/startup.py) undone before anything else is imported. argv: the mode, the trick
# ("none" or "again": all kept), then the command line, or for "alone" the modules a plan loads.
# Modes: "plan", the whole command, which also says the CPU time spent before its first helm
# process was started; "alone", the modules a plan loads imported in its order by a Python
# doing nothing else, as the entry point prepares for them (the collector off, msgspec's extra
# modules put aside; PyYAML as yamlkube imports it). Undoing a trick is done in this process and
# counted with it (the typing that `records` brings, the patterns that `lazy` compiles).
_TRICK = r"""
import sys, time
mode, trick, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
sys.argv = ["helm-plan", *rest]
clock = time.process_time()
from deployah_plan import startup
if trick == "lazy":  # each module's patterns compiled when it is imported
    import re
    startup.lazy = lambda source, flags=0: re.compile(source, flags)
elif trick == "deferred":  # PyYAML's patterns compiled when it is imported
    class _Plain:
        def __init__(self, package):
            pass
        def __enter__(self):
            pass
        def __exit__(self, *exc):
            pass
    startup.deferred = _Plain
elif trick == "later":  # msgspec's json, msgpack, toml, yaml and inspect imported with msgspec
    startup.msgspec_extras = lambda: None
elif trick == "records":  # the flag table made of typing's NamedTuple
    import typing
    startup.NamedTuple = typing.NamedTuple
elif trick == "collector":  # the cyclic collector left on
    import gc
    startup.collector_off = lambda: None
    gc.disable = lambda: None
elif trick == "yaml-bind":  # PyYAML imported with yamlkube rather than by its first load
    class _BindAtImport:
        @staticmethod
        def find_spec(name, path=None, target=None):
            if name != "deployah_plan.yamlkube":
                return None
            sys.meta_path.remove(_BindAtImport)
            for finder in sys.meta_path:
                spec = finder.find_spec(name, path, target)
                if spec is not None:
                    break
            execute = spec.loader.exec_module
            def exec_and_bind(module):
                execute(module)
                module._bind()
            spec.loader.exec_module = exec_and_bind
            return spec
    sys.meta_path.insert(0, _BindAtImport)
elif trick not in ("none", "again", "end"):
    sys.exit("unknown trick " + trick)
if mode == "alone":
    import importlib
    startup.collector_off()
    startup.msgspec_extras()
    for name in rest:
        if name not in sys.modules:
            if name.split(".")[0] == "yaml":
                importlib.import_module("deployah_plan.yamlkube").pyyaml()
            try:
                importlib.import_module(name)
            except ImportError:
                pass
    sys.stderr.write(f"\ntrick-alone {time.process_time() - clock}\n")
    sys.exit(0)
import os, resource
first_helm = []
for _name in ("posix_spawn", "posix_spawnp"):  # how sources/process.py starts helm
    def _spawn(*args, _real=getattr(os, _name), **kwargs):
        if not first_helm:
            first_helm.append(time.process_time() - clock)
        return _real(*args, **kwargs)
    setattr(os, _name, _spawn)
end_now = startup.end_now
def end(code):
    # What the helm processes took, all ended and waited for by now: the caller takes it from
    # the whole process's to leave Python's own.
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    sys.stderr.write(f"\ntrick-first-helm {first_helm[0] if first_helm else -1}\n")
    sys.stderr.write(f"\ntrick-children {children.ru_utime + children.ru_stime}\n")
    sys.stderr.flush()
    if trick == "end":  # Python's teardown runs
        sys.exit(code)
    end_now(code)
startup.end_now = end
from deployah_plan.entry import run
run()
"""

TRICKS = {
    "lazy": "each module's patterns compiled at import",
    "deferred": "PyYAML's own patterns compiled at its import",
    "later": "msgspec's json, msgpack, toml, yaml, inspect run at its import",
    "records": "the flag table made of typing's NamedTuple",
    "yaml-bind": "PyYAML imported with yamlkube, not on the first load",
    "collector": "the cyclic garbage collector left on",
    "end": "Python's teardown run at the end",
}


class TrickFigures(NamedTuple):
    """One way of running the plan (a trick undone, or "again": all kept, run a second time),
    against all kept: the median of the differences of each alternating round, in milliseconds."""

    plan: float  # the Python process's own CPU time, the helm processes' taken out
    first_helm: float  # its CPU time until its first helm process was started
    wall: float  # the whole command's wall-clock time, helm's processes included
    alone: float  # CPU time of the plan's modules imported alone
    late_plan: float  # `plan` and `first_helm` of a plan whose helm calls start after the imports
    late_first_helm: float


def tricks(work: Path, runs: int) -> tuple[TrickFigures, dict[str, TrickFigures]]:
    """The plan of the kube-state-metrics upgrade (Helm 4, values flags, text output), run as
    the launcher runs it, with all the start-up tricks (deployah_plan/startup.py), with each
    undone in turn (TRICKS), and with all kept once more (the noise: "again"), the ways
    alternating, `runs` rounds after one unmeasured; also with `--disable-openapi-validation`,
    which the early start does not take (sources/early.py), so its helm calls start after the
    imports, as for a chart from a repository. Returns the medians with all kept, and for each other way the median of
    its differences from all kept, round by round."""
    helm = fetch_helm("4.3.1")
    env = user_env(work, "4.3.1")
    _install(helm, env, ROOT)
    case = next(c for c in real_cases() if c.name == "kube-state-metrics")
    data = store(case, work, helm)
    plan = ["upgrade", case.release, str(case.next), "-n", case.namespace, *case.next_values]
    run_env = {**env, "HELM_DRIVER": "memory", "HELM_MEMORY_DRIVER_DATA": str(data)}
    _timed([str(helm), "plan", *plan], run_env)  # makes the plugin's environment and its bytecode
    where = subprocess.run([str(ROOT / "scripts" / "helm-plan"), "--env-path"], env=env, capture_output=True, text=True)
    python_env = Path(where.stdout.strip())
    packages = next((python_env / "lib").glob("python3*/site-packages"))
    run_env.update(PYTHONPATH=f"{ROOT}{os.pathsep}{packages}", PYTHONPYCACHEPREFIX=str(python_env / "pycache"),
                   HELM_BIN=str(helm))
    python = [str(python_env / "bin" / "python"), "-S"]  # as the launcher starts it
    err = subprocess.run([*python, "-c", _LOADED, *plan], env=run_env, capture_output=True, text=True, cwd=work).stderr
    loaded = err.rsplit("loaded ", 1)[1].split()

    def planned(way: str, args: list[str]) -> tuple[float, float, float]:
        """Seconds: the plan's own CPU time, that before its first helm process, its wall-clock time."""
        start = time.perf_counter()
        child = subprocess.Popen([*python, "-c", _TRICK, "plan", way, *args], env=run_env, cwd=work,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        assert child.stderr is not None
        err = child.stderr.read()
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0 or "trick-children " not in err:
            sys.exit(f"bench: the plan without {way} failed: {err.strip()[-500:]}")
        first = float(err.rsplit("trick-first-helm ", 1)[1].split()[0])
        if first < 0:
            sys.exit(f"bench: the plan without {way} started no helm process")
        return usage.ru_utime + usage.ru_stime - float(err.rsplit("trick-children ", 1)[1].split()[0]), first, wall

    def alone(way: str) -> float:
        done = subprocess.run([*python, "-c", _TRICK, "alone", way, *loaded], env=run_env, cwd=work,
                              capture_output=True, text=True)
        if done.returncode != 0 or "trick-alone " not in done.stderr:
            sys.exit(f"bench: the imports without {way} failed: {done.stderr.strip()[-500:]}")
        return float(done.stderr.rsplit("trick-alone ", 1)[1].split()[0])

    ways = ["none", *TRICKS, "again"]
    rounds: list[dict[str, TrickFigures]] = []
    for round_ in range(runs + 1):  # the first round unmeasured: bytecode made, caches warm
        measured = {}
        for way in ways:
            own, first, wall = planned(way, plan)
            late_own, late_first, _ = planned(way, [*plan, "--disable-openapi-validation"])
            measured[way] = TrickFigures(*(seconds * 1000 for seconds in (own, first, wall, alone(way), late_own,
                                                                           late_first)))
        if round_:
            rounds.append(measured)
    fields = range(len(TrickFigures._fields))
    kept = TrickFigures(*(statistics.median(r["none"][i] for r in rounds) for i in fields))
    return kept, {way: TrickFigures(*(statistics.median(r[way][i] - r["none"][i] for r in rounds) for i in fields))
                  for way in ways[1:]}
