"""The text helm prints, cut and read where the plan needs it: a server render's crds/ files,
`helm template --dependency-update`'s progress lines, a stream cut into its documents, `helm
show crds` as `helm template` prints CRDs."""
from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from deployah_plan.startup import lazy
from deployah_plan.sources.helm import crds_stream


def record_crds_stream(record: dict[str, Any]) -> str:
    """The chart's crds/ files of a `helm upgrade --dry-run=server -o json` record: its chart keeps
    them in `files`, base64-encoded (Go []byte)."""
    chart = record.get("chart") or {}
    files = []
    for entry in chart.get("files") or []:
        try:
            text = base64.b64decode(entry.get("data") or "").decode(errors="replace")
        except (binascii.Error, ValueError):
            continue
        files.append((str(entry.get("name", "")), text))
    return crds_stream(str((chart.get("metadata") or {}).get("name", "")), files)


# What `helm template --dependency-update` prints on standard output before the manifests
# (pkg/downloader: repository updates, "Saving 1 charts", "Downloading x from repo y", ...).
PROGRESS = lazy(r"(?:Hang tight while|\.\.\.Successfully got an update|\.\.\.Unable to get an update|"
                       r"Update Complete\.|Saving \d+ charts?|Downloading \S+ from repo|Deleting outdated charts)")


def after_progress(text: str) -> str:
    """The manifests without helm's progress lines in front. Only those lines go: a
    post-renderer's output need not start with `---`."""
    lines = text.split("\n")
    start = 0
    while start < len(lines) and PROGRESS.match(lines[start]):
        start += 1
    return "\n".join(lines[start:])


SEPARATOR = lazy(r"^---[ \t]*(?:#.*)?$", re.M)


def documents(text: str) -> list[str]:
    """`text` cut at its `---` lines (`SEPARATOR.split`). Each `---` at a line's start is found
    with str.find and the pattern tried there only: `re` tries a pattern that starts at a line's
    start at every character, 27 ms for each of kube-prometheus-stack's renders."""
    pieces: list[str] = []
    last = position = 0
    while True:
        found = SEPARATOR.match(text, position) if text.startswith("---", position) else None
        if found is not None:
            pieces.append(text[last:found.start()])
            last = found.end()
        position = text.find("\n---", position) + 1
        if not position:
            break
    pieces.append(text[last:])
    return pieces


def crds_as_sources(text: str, chart_name: str) -> str:
    """`helm show crds` output as `helm template --include-crds` prints the CRDs: each document
    under a `# Source: <chart>/crds/...` line, which is how chart CRDs are told apart."""
    docs = [doc.strip("\n") for doc in documents(text) if doc.strip()]
    return "".join(f"---\n# Source: {chart_name}/crds/(helm show crds)\n{doc}\n" for doc in docs)
