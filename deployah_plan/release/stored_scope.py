"""Every release in a scope, read from Helm's storage at once (`helm plan kube-upgrade`).

With the `secret` and `configmap` drivers, the release objects of the scope are listed with one
request per namespace, or one for every namespace (release/helm_storage.py, the project's
GET-only client and the kubeconfig helm uses), and each release's revisions are kept as they
came. A release is in scope as `helm list --deployed --failed --pending -l SELECTOR` finds it
(pkg/action/list.go): its newest revision, by that revision's status, matched by the selector
against its storage labels. What its plan needs is then taken from the records already held,
in the worker that plans it: the revision `helm upgrade` diffs against (`choose_for_upgrade`),
its stored chart and values, and the revisions helm would prune. No helm process reads a
release; the render is the only one.

Only the newest revision (for its chart's name) and the one chosen are decoded, in that worker,
so memory holds the listed objects' text and a decoded release or two per worker.

A selector naming a label other than Helm's own four (a release's own labels, which only the
storage object holds) is left to helm: `releases` returns None, and helm lists the scope. A
record whose content disagrees with its labels, which Helm never writes, is that release's
error (helm_storage.checked), naming what the record says.
"""
from __future__ import annotations

import base64
import binascii
import os
import time
from typing import Any, Mapping

from msgspec import Struct, structs

from deployah_plan import deepjson
from deployah_plan.errors import ReleaseError
from deployah_plan.model import ApplyMethod
from deployah_plan.release import helm_storage
from deployah_plan.release.helm_storage import Record, StorageError
from deployah_plan.release.inventory import LISTED, Listed, parse_selector, selector_keys
from deployah_plan.sources.helm import ReleaseState, StoredRelease, crds_stream, hooks_stream
from deployah_plan.sources.helm_commands import MAX_CHART_FILE
from deployah_plan.sources.kubeconfig import ClusterSettings, ReadBudget

DRIVERS = ("secret", "configmap")  # the drivers read here; any other is read by helm
_STORAGE_LABELS = {"name", "owner", "status", "version"}  # what Helm labels every record with


class Held(Struct, frozen=True):
    """One release in scope, as `helm list` lists it (its chart not yet known: the records are
    decoded by the worker that plans it), and every stored revision of it, as listed."""

    listed: Listed
    records: tuple[Record, ...]


class FromStorage(Struct, frozen=True):
    """What a release's plan takes from its records: what `helm upgrade` would find, the stored
    chart of the revision it diffs against (as release/stored_chart.py writes it: file contents
    as hex), that chart's values and the release's own, and the revisions helm keeps (revision,
    status), which decide what it prunes."""

    state: ReleaseState
    chart: dict[str, Any]
    chart_values: dict[str, Any]
    values: dict[str, Any]
    history: tuple[dict[str, Any], ...]


def reads_storage(driver: str) -> bool:
    return driver in DRIVERS


def releases(settings: ClusterSettings, driver: str, namespace: str | None, selector: str | None,
             name: str | None = None, refused: list[str] | None = None, timeout: float | None = None,
             connect_timeout: float = 10.0) -> list[Held] | None:
    """The releases in `namespace` (None: every namespace) whose newest revision is deployed,
    failed or pending and whose storage labels `selector` matches (`name`: that release only),
    sorted by namespace, then name: one list request, within `timeout` seconds (kube-upgrade's
    --timeout, as for helm's list) as well as the settings' own budget. None when the selector
    names a label other than Helm's own (see the module docstring). `refused`: the records left
    out, and why."""
    from deployah_plan.sources.kube_auth import KubeUnreachable
    from deployah_plan.sources.kubeclient import KubeClient

    match = parse_selector(selector or "")  # a selector it cannot read is refused first
    if selector_keys(selector or "") - _STORAGE_LABELS:
        return None
    if timeout is not None:
        budget = settings.budget
        settings = structs.replace(settings, budget=ReadBudget(min(budget.request, timeout), min(budget.total, timeout)))
    started = time.monotonic()
    try:
        client = KubeClient(settings, connect_timeout)
    except KubeUnreachable as err:
        raise StorageError(str(err), "check your kube context and that the cluster is reachable") from None
    try:
        records = helm_storage.list_records(client, namespace, driver, name, refused)
    except StorageError:
        if timeout is not None and time.monotonic() - started >= timeout - 0.05:  # cut by --timeout
            raise ReleaseError(f"listing the releases took longer than {timeout:g}s and was stopped",
                               "give it more time with --timeout, or check the cluster (run with --debug)") from None
        raise
    finally:
        client.close()
    revisions: dict[tuple[str, str], list[Record]] = {}
    for record in records:
        revisions.setdefault((record.namespace, record.name), []).append(record)
    held = []
    for (ns, release), stored in revisions.items():
        newest = max(stored, key=lambda record: record.version)
        labels = {"name": release, "owner": "helm", "status": newest.status, "version": str(newest.version)}
        if newest.status in LISTED and match(labels):
            held.append(Held(Listed(release, ns, newest.version, newest.status, ""), tuple(stored)))
    return sorted(held, key=lambda item: (item.listed.namespace, item.listed.name))


def chart_of(release: Mapping[str, Any]) -> str:
    """NAME-VERSION of a decoded release's chart, as `helm list` prints it."""
    metadata = (release.get("chart") or {}).get("metadata") or {}
    return f"{metadata.get('name', '')}-{metadata.get('version', '')}"


def newest(held: Held) -> dict[str, Any]:
    """The newest revision, decoded; a StorageError when it cannot be (see the module docstring)."""
    last = helm_storage.newest(held.records)
    if last is None:
        raise ReleaseError(f"release {held.listed.name} has no revision", "check it with `helm history`")
    return helm_storage.checked(last)


def read(held: Held, newest_release: Mapping[str, Any]) -> FromStorage:
    """What the release's plan takes from its records (see the module docstring), given its
    newest revision decoded; a StorageError in helm's words where `helm upgrade` refuses (a
    pending newest revision), or where the record chosen cannot be decoded."""
    chosen = helm_storage.choose_for_upgrade(held.records)
    if chosen is None:
        raise ReleaseError(f"release {held.listed.name} has no revision to plan from",
                           f"`helm history {held.listed.name} -n {held.listed.namespace}` lists its revisions")
    newest_revision = max(record.version for record in held.records)
    release = newest_release if chosen.version == newest_revision else helm_storage.checked(chosen)
    chart = release.get("chart")
    if not isinstance(chart, dict):
        raise ReleaseError(f"release {held.listed.name} revision {chosen.version} has no stored chart",
                           "check the release with `helm get all`; a release without its chart cannot be rendered")
    values = release.get("config")
    chart_values = chart.get("values")
    return FromStorage(
        ReleaseState(stored_release(release), newest_revision), chart_record(chart, held.listed.name),
        chart_values if isinstance(chart_values, dict) else {}, values if isinstance(values, dict) else {},
        tuple({"revision": record.version, "status": record.status} for record in held.records),
    )


def stored_release(release: Mapping[str, Any]) -> StoredRelease:
    """A decoded release as `Helm.record` reads it with `helm get all`."""
    chart = release.get("chart") or {}
    metadata = chart.get("metadata") or {}
    name = str(metadata.get("name", ""))
    crds = [(str(entry.get("name", "")), _bytes(entry.get("data")).decode(errors="replace"))
            for entry in chart.get("files") or () if isinstance(entry, dict)]
    hooks = [hook for hook in release.get("hooks") or () if isinstance(hook, dict)]
    values = release.get("config")
    return StoredRelease(
        name=str(release.get("name", "")), namespace=str(release.get("namespace", "")),
        revision=int(release.get("version") or 0), status=str((release.get("info") or {}).get("status", "")),
        chart_name=name, chart_version=str(metadata.get("version", "")), manifest=str(release.get("manifest") or ""),
        hooks_stream=hooks_stream(hooks), apply_method=ApplyMethod.recorded(str(release.get("apply_method") or "")),
        crds_stream=crds_stream(name, crds), values=values if isinstance(values, dict) else {},
    )


def _bytes(data: Any) -> bytes:
    """A Go []byte as encoding/json writes it (base64)."""
    try:
        return base64.b64decode(str(data or ""), validate=True)
    except (binascii.Error, ValueError):
        return b""


def _entries(entries: Any, release: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for entry in entries or ():
        if not isinstance(entry, dict):
            continue
        data = _bytes(entry.get("data"))
        name = str(entry.get("name", ""))
        out.append({"name": name, "size": len(data)} if len(data) > MAX_CHART_FILE else {"name": name, "data": data.hex()})
    return out


def chart_record(chart: Mapping[str, Any], release: str) -> dict[str, Any]:
    """A decoded release's chart in the shape `Helm.stored_chart` reads it (release/stored_chart.py
    `write_chart`): file contents as hex (a file larger than helm loads as its size alone),
    annotations as pairs, the values schema as hex."""
    metadata = chart.get("metadata")
    if isinstance(metadata, dict):
        annotations = metadata.get("annotations")
        metadata = {**metadata, "annotations": [[str(k), str(v)] for k, v in annotations.items()]
                    if isinstance(annotations, dict) else []}
    return {"chart": {"metadata": metadata if isinstance(metadata, dict) else None,
                      "templates": _entries(chart.get("templates"), release),
                      "files": _entries(chart.get("files"), release),
                      "schema": _bytes(chart.get("schema")).hex()}}


def write_values(chart_path: str, values: Mapping[str, Any]) -> None:
    """The stored chart's values as the values.yaml of the chart written at `chart_path` (JSON
    is YAML), as deep as helm wrote them."""
    with open(os.path.join(chart_path, "values.yaml"), "w", encoding="utf-8") as out:
        out.write(deepjson.dumps(values) + "\n")


def driver(env: Mapping[str, str]) -> str:
    return helm_storage.driver_from_env(env)


__all__ = ["DRIVERS", "FromStorage", "Held", "StorageError", "chart_of", "chart_record", "driver", "newest", "read",
           "reads_storage", "releases", "stored_release", "write_values"]

