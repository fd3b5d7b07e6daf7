"""Benchmark `helm plan diff` on synthetic releases; see scripts/bench.

The release: Deployments with two containers and a dozen env vars, ConfigMaps with 40-line
property files, and Services, in equal numbers. The upgrade bumps the image of 10% of the
Deployments, changes one config line in 10% of the ConfigMaps and deletes 2% of the objects.

Printed, each measured in this one run (best of --repeat):
- plan ÷ parse: the whole `helm plan diff -o json` command, run in this process through
  `cli.main` (parse, pair, diff, order, JSON out) ÷ PyYAML's C loader parsing the same two
  files;
- DeepDiff ÷ diff: DeepDiff over the paired objects ÷ the plan's own field diff of them (with
  the kinds' list keys, as the plan runs it);
- 6,000 ÷ 600: plan time at 6,000 objects ÷ plan time at 600 (10 would be linear);
- validating plan ÷ parse: the same command with `--kube-version 1.34 --apply-method ssa`
  (every created or changed object checked against the schema: core/validate.py);
- peak memory of `helm-plan diff` at 6,000 objects, in its own process.
"""
from __future__ import annotations

import argparse
import contextlib
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

from deployah_plan import cli  # noqa: E402
from deployah_plan.core.diff import diff_objects  # noqa: E402
from deployah_plan.manifests import split_stream  # noqa: E402
from deployah_plan.saved import load  # noqa: E402


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


def best(repeat: int, run: Callable[[], Any]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
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
        """The command as users run it (cli.main), minus interpreter start-up; JSON to a file."""
        with open(out, "w") as sink, contextlib.redirect_stdout(sink):
            if cli.main(command) != 0:
                sys.exit("bench: helm-plan diff failed")

    def validating_plan() -> None:
        """The same, judged against Kubernetes 1.34 with strict field validation (core.validate)."""
        with open(out.with_suffix(".v.json"), "w") as sink, contextlib.redirect_stdout(sink):
            if cli.main([*command, "--kube-version", "1.34", "--apply-method", "ssa"]) != 0:
                sys.exit("bench: helm-plan diff --kube-version failed")

    figures = {"parse": best(repeat, parse), "plan": best(repeat, plan), "vplan": best(repeat, validating_plan)}
    if load(out.with_suffix(".v.json").read_text(), "v").summary.failures:
        sys.exit("bench: the synthetic release should not be predicted to fail")
    summary = load(out.read_text(), str(out)).summary
    figures["updates"] = summary.update
    figures["deletes"] = summary.delete
    if deep:
        old = {(d.obj["kind"], d.obj["metadata"]["name"]): d.obj for d in split_stream(previous.read_text(), "p").resources}
        new = {(d.obj["kind"], d.obj["metadata"]["name"]): d.obj for d in split_stream(desired.read_text(), "d").resources}
        pairs = [(old[k], new[k]) for k in new if k in old]
        from deepdiff import DeepDiff

        figures["diff"] = best(repeat, lambda: [diff_objects(a, b) for a, b in pairs])
        figures["deepdiff"] = best(1, lambda: [DeepDiff(a, b) for a, b in pairs])
    return figures


def peak_memory_mb(objects: int, work: Path) -> float:
    command = [sys.executable, "-m", "deployah_plan", "diff", str(work / f"previous-{objects}.yaml"),
               str(work / f"desired-{objects}.yaml"), "--kind-order", "helm3", "-o", "json"]
    with open(os.devnull, "w") as sink:
        child = subprocess.Popen(command, stdout=sink, env={**os.environ, "PYTHONPATH": str(ROOT)})
        _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("bench: helm-plan diff failed")
    return usage.ru_maxrss / 1024  # kilobytes on Linux


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="helm-plan-bench-") as tmp:
        work = Path(tmp)
        small = measure(600, work, args.repeat, deep=False)
        large = measure(6000, work, args.repeat, deep=True)
        memory = peak_memory_mb(6000, work)
    rows = [
        ("objects 6,000: updates, deletes", f"{large['updates']:.0f}, {large['deletes']:.0f}", ""),
        ("parse (PyYAML CSafeLoader), 6,000", f"{large['parse']:.3f} s", ""),
        ("plan, 6,000", f"{large['plan']:.3f} s", ""),
        ("plan ÷ parse at 6,000", f"{large['plan'] / large['parse']:.2f}", "target ≤ 1.3"),
        ("validating plan (--kube-version), 6,000", f"{large['vplan']:.3f} s", ""),
        ("validating plan ÷ parse at 6,000", f"{large['vplan'] / large['parse']:.2f}", "target ≤ 1.3"),
        ("validating plan 6,000 ÷ 600", f"{large['vplan'] / small['vplan']:.1f}", "target ≤ 11"),
        ("DeepDiff ÷ plan's diff at 6,000", f"{large['deepdiff'] / large['diff']:.0f}",
         f"target ≥ 50 ({large['deepdiff']:.2f} s vs {large['diff']:.3f} s)"),
        ("plan 6,000 ÷ plan 600", f"{large['plan'] / small['plan']:.1f}", f"target ≤ 11 (600: {small['plan']:.3f} s)"),
        ("peak memory, helm-plan diff at 6,000", f"{memory:.0f} MB", "target ≤ 400 MB"),
    ]
    width = max(len(r[0]) for r in rows)
    for name, value, note in rows:
        print(f"{name:<{width}}  {value:>10}  {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
