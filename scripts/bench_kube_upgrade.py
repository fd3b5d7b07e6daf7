#!/usr/bin/env python3
"""Time and peak memory of `helm plan kube-upgrade -A` over many releases.

The releases (tests/fleet.py): records of three small charts at several versions, made once
with real Helm 4 (`helm install --dry-run=client`), copied under N names across 10
namespaces, with one to three revisions each (older ones superseded, every 25th release's
newest failed over a deployed one). They are served by the loopback API server
(tests/kubeapi.py) as Helm's secret driver stores them (`--store secrets`, the default) or
written as a memory-driver file (`--store memory`). Each measured run is `helm plan
kube-upgrade -A --kube-version 1.32 -o json --parallel P` in its own Python process; printed:
the wall time, the Python process's peak resident memory (its own) and its largest helm
process's, the API requests it made, and the same for one release, so that the peak over N
releases can be read against one plan's. `--baseline DIR` runs another checkout's code the
same way in the same run (before and after a change, under the same load).

Usage: .venv/bin/python scripts/bench_kube_upgrade.py [--releases 500] [--parallel 2] [--helm PATH]
       [--store secrets|memory] [--baseline DIR] [--write]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

from fleet import fleet, write_memory_file  # noqa: E402  (tests/fleet.py)
from kubeapi import FakeKube  # noqa: E402  (tests/kubeapi.py)

_MEASURE = """
import resource, sys
from deployah_plan.startup import collector_off
collector_off()  # as the entry point runs a command (entry.run)
from deployah_plan.cli import main
code = main(sys.argv[1:])
me, helm = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stderr.write(f"peak-kib {me.ru_maxrss} {helm.ru_maxrss} {me.ru_utime + me.ru_stime} {helm.ru_utime + helm.ru_stime}\\n")
sys.exit(code)
"""


class Figures:
    def __init__(self, elapsed: float, peak_kib: int, child_kib: int, code: int, requests: int, cpu: float,
                 helm_cpu: float) -> None:
        self.elapsed, self.peak_kib, self.child_kib, self.code, self.requests = elapsed, peak_kib, child_kib, code, requests
        self.cpu, self.helm_cpu = cpu, helm_cpu  # seconds of CPU: the Python process's own, its helm processes'


def _run(code_root: Path, helm: str, env: dict[str, str], parallel: int, out: Path) -> tuple[float, int, int, int, float, float]:
    env = {**os.environ, **env, "HELM_BIN": helm, "PYTHONPATH": str(code_root)}
    start = time.monotonic()
    with out.open("w") as stdout:
        done = subprocess.run([sys.executable, "-c", _MEASURE, "kube-upgrade", "-A", "--kube-version", "1.32", "-o", "json",
                               "--parallel", str(parallel)], stdout=stdout, stderr=subprocess.PIPE, text=True, env=env,
                              cwd=code_root)
    elapsed = time.monotonic() - start
    peak = [line.split()[1:] for line in done.stderr.splitlines() if line.startswith("peak-kib ")]
    if not peak:
        sys.exit(f"bench_kube_upgrade: the run failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    return elapsed, int(peak[0][0]), int(peak[0][1]), done.returncode, float(peak[0][2]), float(peak[0][3])


def measure(code_root: Path, helm: str, records: list[dict[str, Any]], store: str, parallel: int,
            work: Path) -> Figures:
    if store == "memory":
        path = write_memory_file(records, work / "releases.json")
        elapsed, peak, child, code, cpu, helm_cpu = _run(
            code_root, helm, {"HELM_DRIVER": "memory", "HELM_MEMORY_DRIVER_DATA": str(path)}, parallel, work / "report.json")
        return Figures(elapsed, peak, child, code, 0, cpu, helm_cpu)
    with FakeKube(namespace="ns-00") as kube:
        for record in records:
            kube.add_release(record)
        config = kube.write_kubeconfig(work / "kubeconfig")
        env = {"KUBECONFIG": str(config), "HELM_DRIVER": "", "HELM_MEMORY_DRIVER_DATA": ""}
        elapsed, peak, child, code, cpu, helm_cpu = _run(code_root, helm, env, parallel, work / "report.json")
        return Figures(elapsed, peak, child, code, len(kube.requests), cpu, helm_cpu)


def line(label: str, count: int, parallel: int, figures: Figures, report: Path) -> str:
    doc = json.loads(report.read_text())
    verdicts: dict[str, int] = {}
    for row in doc["releases"]:
        verdicts[row["verdict"]] = verdicts.get(row["verdict"], 0) + 1
    requests = f", {figures.requests} API requests" if figures.requests else ""
    return (f"{label}{count} release(s), --parallel {parallel}: {figures.elapsed:.1f} s wall, CPU {figures.cpu:.1f} s "
            f"(Python) + {figures.helm_cpu:.1f} s (helm), peak "
            f"{figures.peak_kib / 1024:.0f} MiB (Python process), largest helm process {figures.child_kib / 1024:.0f} MiB"
            f"{requests}, exit {figures.code}, report {report.stat().st_size / 1e6:.1f} MB, verdicts {verdicts}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--releases", type=int, default=500)
    parser.add_argument("--parallel", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--helm", default=str(ROOT / ".cache" / "helm" / "4.3.1" / "helm"))
    parser.add_argument("--store", choices=("secrets", "memory"), default="secrets")
    parser.add_argument("--baseline", type=Path, default=None, help="another checkout, measured the same way")
    parser.add_argument("--baseline-releases", type=int, default=None,
                        help="releases for the baseline (default --releases): a slow baseline may be measured on fewer")
    parser.add_argument("--write", action="store_true", help="also write the figures into docs/performance.md")
    args = parser.parse_args()
    lines = [f"store: {'release Secrets on the loopback API server' if args.store == 'secrets' else 'a memory-driver file'}"]
    print(lines[-1], flush=True)
    runs = [("", ROOT, count) for count in (1, args.releases)]
    if args.baseline is not None:
        runs.append(("baseline: ", args.baseline.resolve(), args.baseline_releases or args.releases))
    with tempfile.TemporaryDirectory(prefix="bench-kube-upgrade-") as folder:
        work = Path(folder)
        for label, code_root, count in runs:
            records = fleet(args.helm, count)
            figures = measure(code_root, args.helm, records, args.store, args.parallel, work)
            lines.append(line(label, count, args.parallel, figures, work / "report.json"))
            print(lines[-1], flush=True)
    if args.write:
        subprocess.run([sys.executable, str(ROOT / "scripts" / "docs-figures"), "kube-upgrade"],
                       input="\n".join(lines), text=True, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
