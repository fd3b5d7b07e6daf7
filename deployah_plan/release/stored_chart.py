"""A release's stored chart, written back to a folder `helm template` can render.

Helm stores the top chart with every revision: its metadata, templates, files (crds/ among
them) and values schema, and its values.yaml only as parsed values. Its subcharts are not
stored (pkg/chart: `Chart.dependencies` is unexported, so not serialised). The folder written
here is that chart with an empty values.yaml: the values come from `helm get values --all`
(the stored chart's values with the release's own over them), as `helm upgrade --reuse-values`
computes them from the same two (pkg/action/upgrade.go reuseValues). A chart that had
subcharts is written without its dependencies; the objects its subcharts made are carried
from the stored manifest (`subchart_documents`).
"""
from __future__ import annotations

import base64
import binascii
import json
import re
from pathlib import Path, PurePosixPath
from typing import Any, Mapping

from msgspec import Struct

from deployah_plan.startup import lazy
from deployah_plan.errors import ReleaseError
from deployah_plan.sources.helm_commands import MAX_CHART_FILE

_METADATA_TEXT = ("apiVersion", "name", "version", "appVersion", "kubeVersion", "description", "type", "home", "icon")
_SEPARATOR = lazy(r"^---[ \t]*(?:#.*)?$", re.M)
_SOURCE = lazy(r"^# Source: (.*)$", re.M)


class StoredChart(Struct, frozen=True):
    """What was written: the chart's folder, its name and version, and the subcharts Helm did
    not store with the release (their names, or aliases)."""

    path: str
    name: str
    version: str
    subcharts: tuple[str, ...]


def _items(value: Any) -> list[Any]:
    """A list printed by the chart template, without its closing `null`."""
    return [item for item in value if item is not None] if isinstance(value, list) else []


# A chart file's name as helm's loader makes it (relative, `/`-separated), within what a file
# system holds: a name of 255 bytes per part at most, 4096 in all.
_NAME_PART_BYTES = 255
_NAME_BYTES = 4096
# What write_chart writes itself: a file of the record may not stand where they are, or under them.
_OWN = ("Chart.yaml", "values.yaml", "values.schema.json")


def _refused(name: str, release: str, why: str) -> ReleaseError:
    return ReleaseError(f"the stored chart of release {release} holds a file named {name!r}: {why}",
                        "the release record was not written by helm; check it with `helm get all`")


def _relative(name: str, release: str) -> PurePosixPath:
    path = PurePosixPath(name)
    if not name or path.is_absolute() or ".." in path.parts or "\\" in name:
        raise _refused(name, release, "outside the chart")
    if "\x00" in name or not path.parts or any(part in (".", "") for part in name.split("/")):
        raise _refused(name, release, "not a file name helm writes")
    if len(name.encode("utf-8", "surrogatepass")) > _NAME_BYTES or any(
            len(part.encode("utf-8", "surrogatepass")) > _NAME_PART_BYTES for part in path.parts):
        raise _refused(name, release, "longer than a file system holds")
    if str(path) == "templates" or path.parts[0] in _OWN and len(path.parts) > 1:
        raise _refused(name, release, "where the chart's own files go")
    return path


def chart_yaml(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """Chart.yaml from the stored metadata, without dependencies (their charts are not stored)."""
    out: dict[str, Any] = {key: metadata[key] for key in _METADATA_TEXT if metadata.get(key)}
    out.setdefault("apiVersion", "v2")
    if metadata.get("deprecated"):
        out["deprecated"] = True
    for key in ("keywords", "sources"):
        if _items(metadata.get(key)):
            out[key] = _items(metadata.get(key))
    annotations = {str(k): str(v) for k, v in _items(metadata.get("annotations"))}
    if annotations:
        out["annotations"] = annotations
    maintainers = [{k: v for k, v in m.items() if v} for m in _items(metadata.get("maintainers"))]
    if maintainers:
        out["maintainers"] = maintainers
    return out


def write_chart(record: Mapping[str, Any], release: str, folder: str) -> StoredChart:
    """Write the stored chart of `record` (Helm.stored_chart) into `folder`/chart."""
    chart = record.get("chart") or {}
    metadata = chart.get("metadata") or {}
    if not metadata.get("name"):
        raise ReleaseError(f"the stored chart of release {release} has no name",
                           "check the release with `helm get all`")
    root = Path(folder) / "chart"
    root.mkdir(mode=0o700)
    (root / "Chart.yaml").write_text(json.dumps(chart_yaml(metadata), indent=1) + "\n", encoding="utf-8")  # JSON is YAML
    (root / "values.yaml").write_text("{}\n", encoding="utf-8")
    written: set[str] = {"Chart.yaml", "values.yaml"}
    schema = str(chart.get("schema") or "")
    if schema:
        (root / "values.schema.json").write_bytes(bytes.fromhex(schema))
        written.add("values.schema.json")
    for entry in (*_items(chart.get("templates")), *_items(chart.get("files"))):
        name = str(entry.get("name", ""))
        path = _relative(name, release)
        if entry.get("size") is not None:  # its content was left out: larger than helm loads
            raise _refused(name, release, f"{entry['size']:,} bytes, more than helm loads of a chart file "
                                          f"({MAX_CHART_FILE // (1024 * 1024)} MiB)")
        if str(path) in written:
            continue
        written.add(str(path))
        target = root / path
        try:
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            target.write_bytes(bytes.fromhex(str(entry.get("data") or "")))
        except (OSError, ValueError) as err:  # a file where a folder must be, or the reverse; data not hex
            raise _refused(name, release, getattr(err, "strerror", None) or str(err)) from None
    (root / "templates").mkdir(exist_ok=True, mode=0o700)
    subcharts = tuple(str(d.get("alias") or d.get("name")) for d in _items(metadata.get("dependencies")))
    return StoredChart(str(root), str(metadata["name"]), str(metadata.get("version", "")), subcharts)


def subchart_documents(manifest: str, hooks: str, chart_name: str) -> str:
    """The documents of a stored manifest and its hooks that the chart's subcharts made (their
    `# Source:` under `<chart>/charts/`), as one stream."""
    prefix = f"{chart_name}/charts/"
    kept: list[str] = []
    for stream in (manifest, hooks):
        for document in _SEPARATOR.split(stream):
            source = _SOURCE.search(document)
            if source is not None and source.group(1).startswith(prefix):
                kept.append(document.strip("\n"))
    return "".join(f"---\n{document}\n" for document in kept)


def _bytes(data: Any) -> bytes:
    """A Go []byte as encoding/json writes it (base64)."""
    try:
        return base64.b64decode(str(data or ""), validate=True)
    except (binascii.Error, ValueError):
        return b""


def _entries(entries: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, dict):
            continue
        data = _bytes(entry.get("data"))
        name = str(entry.get("name", ""))
        out.append({"name": name, "size": len(data)} if len(data) > MAX_CHART_FILE else {"name": name, "data": data.hex()})
    return out


def chart_record(chart: Mapping[str, Any]) -> dict[str, Any]:
    """A decoded release's chart in the shape `Helm.stored_chart` reads it (sources/helm_commands.py
    `_CHART_TEMPLATE`, for release/stored_chart.py `write_chart`): file contents as hex (a file
    larger than helm loads as its size alone), annotations as pairs, the values schema as hex."""
    metadata = chart.get("metadata")
    if isinstance(metadata, dict):
        annotations = metadata.get("annotations")
        metadata = {**metadata, "annotations": [[str(k), str(v)] for k, v in annotations.items()]
                    if isinstance(annotations, dict) else []}
    return {"chart": {"metadata": metadata if isinstance(metadata, dict) else None,
                      "templates": _entries(chart.get("templates")), "files": _entries(chart.get("files")),
                      "schema": _bytes(chart.get("schema")).hex()}}


__all__ = ["StoredChart", "chart_record", "chart_yaml", "subchart_documents", "write_chart"]
