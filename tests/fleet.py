"""A cluster's worth of Helm releases for `helm plan kube-upgrade`: records made by real Helm 4
(`helm install --dry-run=client -o json`) from the small charts of tests/charts/kube-upgrade,
each at several chart versions, then copied under N release names across namespaces with the
histories a cluster holds: some releases upgraded once or twice (older revisions
`superseded`), some whose last upgrade failed over a deployed revision. Served by the loopback
API server (tests/kubeapi.py `FakeKube.add_release`) as Helm's secret driver stores them, or
written as a memory-driver file.

Used by tests/e2e/test_kube_upgrade_fleet.py and scripts/bench_kube_upgrade.py; stdlib only.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CHARTS = ROOT / "tests" / "charts" / "kube-upgrade"
# (chart, versions): each version a copy of the chart with that version in its Chart.yaml, installed
# with those values flags (the release's own values, which a plan reuses over the chart's).
KINDS: tuple[tuple[str, tuple[tuple[str, tuple[str, ...]], ...]], ...] = (
    ("budget", (("1.0.0", ()), ("1.1.0", ("--set", "minAvailable=2")))),
    ("scaled", (("2.0.0", ()), ("2.1.0", ("--set-string", "note=fleet")), ("2.2.0", ()))),
    ("plain", (("0.3.0", ("--set", "greeting=hello from the fleet")), ("0.4.0", ()))),
)
PLACEHOLDER = "fleetrelease"  # the name each template record is made under, replaced per release
NAMESPACE = "fleetnamespace"  # and its namespace, likewise


def _record(helm: str, chart: Path, namespace: str, flags: tuple[str, ...]) -> dict[str, Any]:
    done = subprocess.run([helm, "install", PLACEHOLDER, str(chart), "-n", namespace, "--dry-run=client", "-o", "json",
                           *flags],
                          capture_output=True, text=True, check=True)
    record: dict[str, Any] = json.loads(done.stdout)
    return record


def templates(helm: str) -> list[list[str]]:
    """Per chart, its record at each version as JSON text, made once by real Helm 4 (the name
    `PLACEHOLDER`, the namespace `NAMESPACE`)."""
    out: list[list[str]] = []
    with tempfile.TemporaryDirectory(prefix="fleet-charts-") as folder:
        for chart, versions in KINDS:
            texts = []
            for version, flags in versions:
                copy = Path(folder) / f"{chart}-{version}"
                shutil.copytree(CHARTS / chart, copy)
                meta = copy / "Chart.yaml"
                meta.write_text("".join(f"version: {version}\n" if line.startswith("version:") else line
                                        for line in meta.read_text().splitlines(keepends=True)))
                texts.append(json.dumps(_record(helm, copy, NAMESPACE, flags)))
            out.append(texts)
    return out


def fleet(helm: str, count: int, namespaces: int = 10) -> list[dict[str, Any]]:
    """Every revision of `count` releases spread over `namespaces` namespaces (`ns-00`...). Release
    n uses chart n % 3; it has n % 3 + 1 revisions, each at the chart's next version, the older
    `superseded` and the newest `deployed`; every 25th release's newest revision `failed` over a
    deployed one (what `helm upgrade` then diffs against)."""
    made = templates(helm)
    records: list[dict[str, Any]] = []
    for n in range(count):
        versions = made[n % len(made)]
        name, namespace = f"app-{n:04d}", f"ns-{n % namespaces:02d}"
        revisions = n % 3 + 1
        failed = n % 25 == 24 and revisions > 1
        for revision in range(1, revisions + 1):
            text = versions[min(revision - 1, len(versions) - 1)]
            record = json.loads(text.replace(PLACEHOLDER, name).replace(NAMESPACE, namespace))
            record["version"] = revision
            newest = revision == revisions
            status = "deployed" if newest else "superseded"
            if failed and newest:
                status = "failed"
            elif failed and revision == revisions - 1:
                status = "deployed"
            record["info"]["status"] = status
            record["info"]["description"] = "Upgrade complete" if revision > 1 else "Install complete"
            records.append(record)
    return records


def write_memory_file(records: list[dict[str, Any]], path: Path) -> Path:
    path.write_text(json.dumps(records, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
