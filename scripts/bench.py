"""Benchmark helm plan: the planning core on synthetic releases, and the whole plugin against
`helm template` on the real public charts (and the chart corpus's, when there is one); see
scripts/bench.

The release: Deployments with two containers and a dozen env vars, ConfigMaps with 40-line
property files, and Services, in equal numbers. The upgrade bumps the image of 10% of the
Deployments, changes one config line in 10% of the ConfigMaps and deletes 2% of the objects.

Printed, each measured in this one run. In-process figures are the best of --repeat in CPU
time (time.process_time: the planning core runs in one thread, and CPU time is what a machine
shared with other work measures faithfully); whole processes are timed on the wall clock.
- plan ÷ parse: the whole `helm plan diff -o json` command, run in this process as the entry
  point runs it (`entry.command`: parse, pair, diff, order, JSON out) ÷ PyYAML's C loader parsing the same two
  files;
- DeepDiff ÷ diff: DeepDiff over the paired objects ÷ the plan's own field diff of them (with
  the kinds' list keys, as the plan runs it); left out when deepdiff is not installed;
- 6,000 ÷ 600: plan time at 6,000 objects ÷ plan time at 600 (10 would be linear);
- validating plan ÷ parse: the same command with `--kube-version 1.34 --apply-method ssa`
  (every created or changed object checked against the schema: core/validate.py);
- markdown: `helm plan show PLAN.json -o markdown` of the 6,000-object plan, in this process;
- peak memory of `helm-plan diff` at 6,000 objects, in its own process;
- rapidyaml (when its `ryml` module is installed): its parse of the two files alone, and with
  the Python values built from its tree by go-yaml v2's rules, against this loader's;
- plugin ÷ template: scripts/bench_plugin.py (`--runs` alternating runs per chart and helm;
  `--runs 0` leaves it out), Helm 3 and Helm 4 side by side, with the values given as flags
  and with none (helm reuses the release's), with the floor any plan made by helm and Python has (helm starting
  a plugin that starts Python and ends, plus `helm get` and `helm template` (given no memory
  driver's file, as a plan runs it: it reads no release), side by side with
  values flags, one after the other without: the render then needs the release's values) ÷
  template, and plan ÷ that floor in a row of its own (target ≤ 0.85: the plan reads the release
  itself, so its one helm process is the render), beside the least any plan that renders once
  can take ÷ the same floor (the plugin's Python started, then `helm template` alone: with
  values flags the floor's `helm get` runs beside its render, so that ratio is near 1 and no
  such plan meets the target there), and with `--baseline DIR` the same ratio of another checkout timed in the same
  alternation (before and after a change, under the same load); and the imports of
  `helm plan --help` and of a whole plan. `--no-core` leaves the synthetic releases out.
  The charts: the real public ones (tests/charts/README.md: ../shared/charts, or what
  scripts/fetch-charts fetched), and those of the chart corpus when its folder exists (`--corpus DIR`, or `HELM_PLAN_CORPUS`, `.cache/corpus` by default; `--corpus ''`:
  none), their rows marked "corpus"; `--charts NAME,NAME` times only those. A row of the
  output names each chart's versions and where it came from.
- kube-upgrade (`--kube-upgrade N`, default 500; 0 leaves it out): `helm plan kube-upgrade -A`
  over N releases served by the loopback API server as Helm's secret driver stores them, with
  `--parallel 2` (scripts/bench_kube_upgrade.py): its wall time, the peak memory of its Python
  process and of its largest helm process, its API requests; with `--baseline DIR`, the other
  checkout's figures beside (`--kube-upgrade-baseline M` releases: a slow one on fewer);
- tricks (`--tricks`, alone): each start-up trick of deployah_plan/startup.py undone in turn,
  against all kept, on the kube-state-metrics plan (Helm 4, values flags) run as the launcher
  runs it, the ways alternating for `--runs` rounds, and all kept once more (the noise): each
  the median of its differences from all kept, round by round, in the plan's own CPU time
  (Python's, helm's processes taken out), in that before its first helm process, on the wall
  clock (which a shared machine stretches), in the CPU time of the plan's modules imported
  alone, and in the first two for the same plan with `--disable-openapi-validation`, which the
  early start does not take (its helm calls start after the imports, as for a chart from a
  repository). A trick stays while undoing it costs a plan time a user sees
  (docs/performance.md, "Tricks").
"""
from __future__ import annotations

import argparse
import contextlib
import gc
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import bench_plugin  # noqa: E402
from deployah_plan.entry import command as run_command  # noqa: E402
from deployah_plan.sources.early import HelmCalls  # noqa: E402
from deployah_plan.core.diff import diff_objects  # noqa: E402
from deployah_plan.manifests import split_stream  # noqa: E402
from deployah_plan.planfile.read import load  # noqa: E402


def _deployment(i: int, image: str) -> str:
    env = "".join(f"            - name: VAR_{k}\n              value: \"value-{k}\"\n" for k in range(12))
    return (
        f"---\n# Source: big/templates/deploy-{i}.yaml\napiVersion: apps/v1\nkind: Deployment\n"
        f"metadata:\n  name: web-{i}\n  labels: {{app: web-{i}}}\nspec:\n  replicas: 2\n"
        f"  selector: {{matchLabels: {{app: web-{i}}}}}\n  template:\n    metadata: {{labels: {{app: web-{i}}}}}\n"
        f"    spec:\n      containers:\n        - name: app\n          image: {image}\n          env:\n{env}"
        f"        - name: sidecar\n          image: proxy:1.0\n          args: [\"--port=9000\"]\n"
    )


def _configmap(i: int, changed: bool) -> str:
    lines = "".join(f"    key{k}=value{k}{'-new' if changed and k == 7 else ''}\n" for k in range(40))
    return (f"---\n# Source: big/templates/cm-{i}.yaml\napiVersion: v1\nkind: ConfigMap\n"
            f"metadata:\n  name: config-{i}\ndata:\n  app.properties: |\n{lines}")


def _service(i: int) -> str:
    return (f"---\n# Source: big/templates/svc-{i}.yaml\napiVersion: v1\nkind: Service\nmetadata:\n"
            f"  name: web-{i}\nspec:\n  selector: {{app: web-{i}}}\n  ports: [{{port: 80, targetPort: 8080}}]\n")


def release(objects: int, upgraded: bool) -> str:
    """Triples of Deployment, ConfigMap, Service. The upgraded release drops one object of each
    kind in every 50 triples (3 of 150 objects: 2%)."""
    parts = []
    for i in range(objects // 3):
        if not (upgraded and i % 50 == 29):
            parts.append(_deployment(i, "app:2.0" if upgraded and i % 10 == 0 else "app:1.0"))
        if not (upgraded and i % 50 == 13):
            parts.append(_configmap(i, upgraded and i % 10 == 3))
        if not (upgraded and i % 50 == 7):
            parts.append(_service(i))
    return "".join(parts)


def main_command(args: list[str]) -> int:
    """A command line as the entry point runs it (a plan without click, the cyclic collector
    off: entry.run), in this process."""
    calls = HelmCalls()
    collecting = gc.isenabled()
    gc.disable()
    try:
        return run_command(args, calls)
    finally:
        calls.end()
        if collecting:
            gc.enable()


def best(repeat: int, run: Callable[[], Any]) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return min(times)


def measure(objects: int, work: Path, repeat: int, deep: bool) -> dict[str, float]:
    previous, desired = work / f"previous-{objects}.yaml", work / f"desired-{objects}.yaml"
    previous.write_text(release(objects, False))
    desired.write_text(release(objects, True))
    out = work / f"plan-{objects}.json"
    command = ["diff", str(previous), str(desired), "--release", "big", "-n", "bench", "--kind-order", "helm3",
               "-o", "json"]

    def parse() -> None:
        for path in (previous, desired):
            list(yaml.load_all(path.read_text(), Loader=yaml.CSafeLoader))

    def plan() -> None:
        """The command as users run it (entry.command), minus interpreter start-up; JSON to a file."""
        with open(out, "w") as sink, contextlib.redirect_stdout(sink):
            if main_command(command) != 0:
                sys.exit("bench: helm-plan diff failed")

    def validating_plan() -> None:
        """The same, judged against Kubernetes 1.34 with strict field validation (core.validate)."""
        with open(out.with_suffix(".v.json"), "w") as sink, contextlib.redirect_stdout(sink):
            if main_command([*command, "--kube-version", "1.34", "--apply-method", "ssa"]) != 0:
                sys.exit("bench: helm-plan diff --kube-version failed")

    def markdown() -> None:
        """The plan was written by -o json, so it has no seal: show's note about that is dropped."""
        with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            if main_command(["show", str(out), "-o", "markdown"]) != 0:
                sys.exit("bench: helm-plan show -o markdown failed")

    figures = {"parse": best(repeat, parse), "plan": best(repeat, plan), "vplan": best(repeat, validating_plan)}
    figures["markdown"] = best(repeat, markdown)
    if load(out.with_suffix(".v.json").read_text(), "v").summary.failures:
        sys.exit("bench: the synthetic release should not be predicted to fail")
    summary = load(out.read_text(), str(out)).summary
    figures["updates"] = summary.update
    figures["deletes"] = summary.delete
    if deep:
        old = {(d.obj["kind"], d.obj["metadata"]["name"]): d.obj for d in split_stream(previous.read_text(), "p").resources}
        new = {(d.obj["kind"], d.obj["metadata"]["name"]): d.obj for d in split_stream(desired.read_text(), "d").resources}
        pairs = [(old[k], new[k]) for k in new if k in old]
        figures["diff"] = best(repeat, lambda: [diff_objects(a, b) for a, b in pairs])
        try:
            from deepdiff import DeepDiff
        except ImportError:
            pass
        else:
            figures["deepdiff"] = best(1, lambda: [DeepDiff(a, b) for a, b in pairs])
    return figures


def rapidyaml(work: Path, objects: int, repeat: int) -> dict[str, float] | None:
    """rapidyaml's parse of the release, alone and with Python values built from its tree (plain
    scalars by go-yaml v2's rules, as yamlkube resolves them), against yamlkube's load; None
    when rapidyaml is not installed. Its values must equal yamlkube's."""
    try:
        import ryml  # type: ignore[import-not-found]
    except ImportError:
        return None
    from deployah_plan.yamlkube import load_all, resolve_plain

    texts = [(work / f"{side}-{objects}.yaml").read_text() for side in ("previous", "desired")]
    blobs = [text.encode() for text in texts]

    def value(tree: Any, node: int) -> Any:
        if tree.is_map(node):
            mapping, child = {}, tree.first_child(node)
            while child != ryml.NONE:
                mapping[bytes(tree.key(child)).decode()] = value(tree, child)
                child = tree.next_sibling(child)
            return mapping
        if tree.is_seq(node):
            items, child = [], tree.first_child(node)
            while child != ryml.NONE:
                items.append(value(tree, child))
                child = tree.next_sibling(child)
            return items
        text = bytes(tree.val(node)).decode()
        if tree.is_val_plain(node):
            return resolve_plain(text) if text else None
        return text

    def documents(blob: bytes) -> list[Any]:
        tree = ryml.parse_in_arena(blob)
        docs, child = [], tree.first_child(tree.root_id())
        while child != ryml.NONE:
            docs.append(value(tree, child))
            child = tree.next_sibling(child)
        return docs

    if [documents(b) for b in blobs] != [[d.value for d in load_all(t)] for t in texts]:
        sys.exit("bench: rapidyaml's values differ from yamlkube's")
    return {"ryml_parse": best(repeat, lambda: [ryml.parse_in_arena(b) for b in blobs]),
            "ryml_values": best(repeat, lambda: [documents(b) for b in blobs]),
            "yamlkube": best(repeat, lambda: [list(load_all(t)) for t in texts])}


def peak_memory_mb(objects: int, work: Path) -> float:
    command = [sys.executable, "-m", "deployah_plan", "diff", str(work / f"previous-{objects}.yaml"),
               str(work / f"desired-{objects}.yaml"), "--kind-order", "helm3", "-o", "json"]
    with open(os.devnull, "w") as sink:
        child = subprocess.Popen(command, stdout=sink, env={**os.environ, "PYTHONPATH": str(ROOT)})
        _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("bench: helm-plan diff failed")
    return usage.ru_maxrss / 1024  # kilobytes on Linux


def tricks(runs: int) -> int:
    """The rows of `--tricks`: each trick undone against all kept (bench_plugin.tricks)."""
    rounds = max(runs, 1)
    with tempfile.TemporaryDirectory(prefix="helm-plan-bench-") as tmp:
        kept, undone = bench_plugin.tricks(Path(tmp), rounds)
    rows = [("tricks: all kept", f"{kept.plan:.1f} ms",
             f"CPU of the plan's Python, helm's processes left out ({rounds} alternating rounds; before its first "
             f"helm process {kept.first_helm:.1f} ms; its modules alone {kept.alone:.1f} ms; wall {kept.wall:.0f} ms; "
             f"helm started late (--disable-openapi-validation): {kept.late_plan:.1f} ms, before helm "
             f"{kept.late_first_helm:.1f} ms)")]
    for way, what in [*bench_plugin.TRICKS.items(), ("again", "all kept, run again: the noise")]:
        figures = undone[way]
        rows.append((f"tricks: without {way}" if way != "again" else "tricks: all kept, again",
                     f"{figures.plan:+.1f} ms",
                     f"{what} (before helm {figures.first_helm:+.1f} ms; modules alone {figures.alone:+.1f} ms; "
                     f"wall {figures.wall:+.0f} ms; late {figures.late_plan:+.1f} ms, "
                     f"before helm {figures.late_first_helm:+.1f} ms)"))
    width = max(len(r[0]) for r in rows)
    for name, value, note in rows:
        print(f"{name:<{width}}  {value:>10}  {note}")
    return 0


def kube_upgrade_rows(work: Path, releases: int, baseline: Path | None,
                      baseline_releases: int | None) -> list[tuple[str, str, str]]:
    """`helm plan kube-upgrade -A` over `releases` releases on the loopback API server, --parallel 2."""
    if releases <= 0:
        return []
    import bench_kube_upgrade

    helm = str(ROOT / ".cache" / "helm" / "4.3.1" / "helm")
    rows = []
    for label, code_root, count in [("", ROOT, releases)] + (
            [("baseline ", baseline.resolve(), baseline_releases or releases)] if baseline is not None else []):
        folder = work / f"kube-upgrade-{label.strip() or 'this'}"
        folder.mkdir()
        figures = bench_kube_upgrade.measure(code_root, helm, bench_kube_upgrade.fleet(helm, count), "secrets", 2, folder)
        rows.append((f"{label}kube-upgrade -A, {count} releases (loopback API), --parallel 2", f"{figures.elapsed:.1f} s",
                     f"target ≤ 60 s at 500; CPU {figures.cpu:.1f} s (Python) + {figures.helm_cpu:.1f} s (helm); "
                     f"peak {figures.peak_kib / 1024:.0f} MiB (Python), largest helm process "
                     f"{figures.child_kib / 1024:.0f} MiB, target ≤ 200 MB; {figures.requests} API requests, "
                     f"exit {figures.code}"))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--runs", type=int, default=7, help="alternating runs per chart and helm (0: none)")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="another checkout of helm plan, timed in the same alternation (before/after a change)")
    parser.add_argument("--no-core", action="store_true", help="leave out the synthetic releases (the plugin only)")
    parser.add_argument("--corpus", default=None,
                        help="a chart corpus folder (tests/corpus/README.md) whose charts are timed too "
                             "(default: HELM_PLAN_CORPUS, or .cache/corpus when it exists; '': none)")
    parser.add_argument("--charts", default=None, help="time only these charts (NAME,NAME: real or corpus)")
    parser.add_argument("--kube-upgrade", type=int, default=500,
                        help="releases for the kube-upgrade row (0: none)")
    parser.add_argument("--kube-upgrade-baseline", type=int, default=None,
                        help="releases for the baseline's kube-upgrade row (default --kube-upgrade)")
    parser.add_argument("--tricks", action="store_true",
                        help="only the start-up tricks, each undone against all kept (--runs rounds)")
    args = parser.parse_args()
    if args.tricks:
        return tricks(args.runs)
    if args.corpus is None:
        corpus: Path | None = bench_plugin.default_corpus()
    else:
        corpus = Path(args.corpus) if args.corpus else None
    if args.corpus and corpus is not None and not corpus.is_dir():
        sys.exit(f"bench: --corpus {args.corpus} is not a folder: give a corpus folder (tests/corpus/README.md)")
    names = {n.strip() for n in args.charts.split(",") if n.strip()} if args.charts else None
    with tempfile.TemporaryDirectory(prefix="helm-plan-bench-") as tmp:
        work = Path(tmp)
        charts = bench_plugin.cases(work, corpus, names) if args.runs > 0 else []
        if not args.no_core:
            small = measure(600, work, args.repeat, deep=False)
            large = measure(6000, work, args.repeat, deep=True)
            memory = peak_memory_mb(6000, work)
            ryml = rapidyaml(work, 6000, args.repeat)
        plugin = bench_plugin.plugin_ratios(work, args.runs, args.baseline, charts) if args.runs > 0 else []
        imports = bench_plugin.import_ms(work) if args.runs > 0 else None
        fleet_rows = kube_upgrade_rows(work, args.kube_upgrade, args.baseline, args.kube_upgrade_baseline)
    rows: list[tuple[str, str, str]] = [] if args.no_core else [
        ("objects 6,000: updates, deletes", f"{large['updates']:.0f}, {large['deletes']:.0f}", ""),
        ("parse (PyYAML CSafeLoader), 6,000", f"{large['parse']:.3f} s", ""),
        ("plan, 6,000", f"{large['plan']:.3f} s", ""),
        ("plan ÷ parse at 6,000", f"{large['plan'] / large['parse']:.2f}", "target ≤ 0.6"),
        ("validating plan (--kube-version), 6,000", f"{large['vplan']:.3f} s", ""),
        ("validating plan ÷ parse at 6,000", f"{large['vplan'] / large['parse']:.2f}", "target ≤ 1.3"),
        ("validating plan 6,000 ÷ 600", f"{large['vplan'] / small['vplan']:.1f}", "target ≤ 11"),
        ("DeepDiff ÷ plan's diff at 6,000",
         f"{large['deepdiff'] / large['diff']:.0f}" if "deepdiff" in large else "-",
         f"target ≥ 50 ({large['deepdiff']:.2f} s vs {large['diff']:.3f} s)" if "deepdiff" in large
         else "deepdiff not installed (pip install -e '.[bench]')"),
        ("plan 6,000 ÷ plan 600", f"{large['plan'] / small['plan']:.1f}", f"target ≤ 11 (600: {small['plan']:.3f} s)"),
        ("peak memory, helm-plan diff at 6,000", f"{memory:.0f} MB", "target ≤ 150 MB"),
        ("markdown of the 6,000 plan (show -o markdown)", f"{large['markdown']:.3f} s", "target ≤ 2 s"),
    ]
    if args.no_core:
        pass
    elif ryml is None:
        rows.append(("rapidyaml", "-", "not installed (pip install rapidyaml)"))
    else:
        rows += [
            ("rapidyaml parse ÷ yamlkube load, 6,000", f"{ryml['ryml_parse'] / ryml['yamlkube']:.2f}",
             f"{ryml['ryml_parse']:.3f} s vs {ryml['yamlkube']:.3f} s (tree only)"),
            ("rapidyaml values ÷ yamlkube load, 6,000", f"{ryml['ryml_values'] / ryml['yamlkube']:.2f}",
             f"adopt at ≤ 0.5 ({ryml['ryml_values']:.3f} s, the same values)"),
        ]
    # Which charts, of which versions, from where.
    shown_corpus = str(corpus)
    if corpus is not None and corpus.resolve().is_relative_to(ROOT):
        shown_corpus = str(corpus.resolve().relative_to(ROOT))
    for source, where in (("real", os.path.relpath(bench_plugin.CHARTS, ROOT)), ("corpus", f"{shown_corpus} (tests/corpus/README.md)")):
        chosen = [f"{c.name} {c.versions}" for c in charts if c.source == source]
        if chosen:
            rows.append((f"charts: {source}", f"{len(chosen)}", f"from {where}: {', '.join(chosen)}"))
    # Helm 3 and Helm 4 side by side: one row per chart and way of giving the values.
    by_case: dict[tuple[str, str, str], list[bench_plugin.Figures]] = {}
    for figure in plugin:
        by_case.setdefault((figure.chart, figure.source, figure.values), []).append(figure)
    for (chart, source, values), figures in by_case.items():
        shown = " / ".join(f"{f.plan / f.template:.2f}" for f in figures)
        notes = "; ".join(
            f"helm {f.version}: {f.plan:.3f} s vs {f.template:.3f} s, CPU {f.plan_cpu / f.template_cpu:.2f}, "
            f"floor {f.floor / f.template:.2f}"
            + (f", baseline {f.baseline / f.template:.2f}" if f.baseline is not None else "") for f in figures)
        how = "values flags" if values == "flags" else "no values flag"
        if source == "corpus":
            how = f"corpus, {how}"
        rows.append((f"plan upgrade ÷ template, {chart} ({how}), helm "
                     + " / ".join(f.version.split(".")[0] for f in figures), shown, f"target ≤ 3 ({notes})"))
        # Against what any plan made by helm and Python costs (the floor: Python's start, `helm get`
        # and `helm template`), timed in the same alternation.
        # Beside it, the least any plan that renders once can take (Python's start and `helm
        # template` alone) ÷ the same floor: with values flags the floor runs `helm get` beside
        # the render, so no such plan comes under it.
        rows.append((f"plan upgrade ÷ floor (helm get + template), {chart} ({how}), helm "
                     + " / ".join(f.version.split(".")[0] for f in figures),
                     " / ".join(f"{f.plan / f.floor:.2f}" for f in figures),
                     "target ≤ 0.85 (one render and nothing else ÷ floor: "
                     + " / ".join(f"{f.one_render / f.floor:.2f}" for f in figures) + ")"))
    if imports is not None:
        # The targets are of CPU time: a plan's imports alone ≤ 60 ms, before the first helm call ≤ 30 ms.
        for what, label, how, target in (
                ("help", "helm plan --help", "-X importtime", "well under 100 ms"),
                ("plan", "a whole plan (upgrade)", "-X importtime, beside helm and the plan's threads", "-"),
                ("alone", "a whole plan's modules, alone", "imported by a Python doing nothing else", "≤ 60 ms of CPU"),
                ("before helm", "a plan, before it starts helm", "the early start's", "≤ 30 ms of CPU")):
            if what not in imports:
                rows.append((f"imports, {label}", "-", "no helm call was started early"))
                continue
            wall, cpu = imports[what]
            said = f"target {target} " if target != "-" else ""
            rows.append((f"imports, {label}", f"{wall:.0f} ms", f"{said}({how}; {cpu:.0f} ms of CPU)"))
    rows += fleet_rows
    width = max(len(r[0]) for r in rows)
    for name, value, note in rows:
        print(f"{name:<{width}}  {value:>10}  {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
