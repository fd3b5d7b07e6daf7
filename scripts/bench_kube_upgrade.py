#!/usr/bin/env python3
"""Time and peak memory of `helm plan kube-upgrade` over many releases (a memory-driver file).

The releases are copies of three small charts' records (tests/charts/kube-upgrade: budget,
scaled, plain), made once with real Helm 4 (`helm install --dry-run=client`) and renamed. Each
measured run is `helm plan kube-upgrade -A --kube-version 1.32 -o json` in its own Python
process; printed: the wall time, the Python process's peak resident memory (its own, not
helm's processes), and the same for one release, so that the peak over N releases can be
read against one plan's.

Usage: .venv/bin/python scripts/bench_kube_upgrade.py [--releases 500] [--parallel 2] [--helm PATH]
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

ROOT = Path(__file__).resolve().parent.parent
CHARTS = ROOT / "tests" / "charts" / "kube-upgrade"
_MEASURE = """
import resource, sys
from deployah_plan.startup import collector_off
collector_off()  # as the entry point runs a command (entry.run)
from deployah_plan.cli import main
code = main(sys.argv[1:])
sys.stderr.write(f"peak-kib {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}\\n")
sys.exit(code)
"""


def _record(helm: str, name: str, chart: str) -> str:
    done = subprocess.run([helm, "install", name, str(CHARTS / chart), "-n", "bench", "--dry-run=client", "-o", "json"],
                          capture_output=True, text=True, check=True)
    record = json.loads(done.stdout)
    record["info"]["status"] = "deployed"
    return json.dumps(record)


def _store(helm: str, count: int, path: Path) -> None:
    templates = [(f"tpl{i}", _record(helm, f"tpl{i}", chart)) for i, chart in enumerate(("budget", "scaled", "plain"))]
    records = [json.loads(text.replace(name, f"{name}-{n:04d}")) for n in range(count)
               for name, text in [templates[n % 3]]]
    path.write_text(json.dumps(records))


def _run(helm: str, store: Path, parallel: int, out: Path) -> tuple[float, int, int]:
    env = {**os.environ, "HELM_BIN": helm, "HELM_DRIVER": "memory", "HELM_MEMORY_DRIVER_DATA": str(store),
           "PYTHONPATH": str(ROOT)}
    start = time.monotonic()
    with out.open("w") as stdout:
        done = subprocess.run([sys.executable, "-c", _MEASURE, "kube-upgrade", "-A", "--kube-version", "1.32", "-o", "json",
                               "--parallel", str(parallel)], stdout=stdout, stderr=subprocess.PIPE, text=True, env=env)
    elapsed = time.monotonic() - start
    peak = [int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("peak-kib ")]
    if not peak:
        sys.exit(f"bench_kube_upgrade: the run failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    return elapsed, peak[0], done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--releases", type=int, default=500)
    parser.add_argument("--parallel", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--helm", default=str(ROOT / ".cache" / "helm" / "4.3.1" / "helm"))
    parser.add_argument("--write", action="store_true", help="also write the figures into docs/performance.md")
    args = parser.parse_args()
    lines = []
    with tempfile.TemporaryDirectory(prefix="bench-kube-upgrade-") as folder:
        work = Path(folder)
        for count in (1, args.releases):
            store = work / f"releases-{count}.json"
            _store(args.helm, count, store)
            elapsed, peak, code = _run(args.helm, store, args.parallel, work / "report.json")
            report = json.loads((work / "report.json").read_text())
            verdicts: dict[str, int] = {}
            for row in report["releases"]:
                verdicts[row["verdict"]] = verdicts.get(row["verdict"], 0) + 1
            lines.append(f"{count} release(s), --parallel {args.parallel}: {elapsed:.1f} s wall, peak {peak / 1024:.0f} "
                         f"MiB (Python process), exit {code}, report "
                         f"{(work / 'report.json').stat().st_size / 1e6:.1f} MB, verdicts {verdicts}")
            print(lines[-1], flush=True)
    if args.write:
        subprocess.run([sys.executable, str(ROOT / "scripts" / "docs-figures"), "kube-upgrade"],
                       input="\n".join(lines), text=True, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
