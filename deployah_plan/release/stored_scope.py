"""Every release in a scope, read from Helm's storage at once (`helm plan kube-upgrade`).

With the `secret` and `configmap` drivers, the release objects of the scope are listed with one
request per namespace, or one for every namespace (release/helm_storage.py, the project's
GET-only client and the kubeconfig helm uses), and each release's revisions are kept as they
came. A release is in scope as `helm list --deployed --failed --pending -l SELECTOR` finds it
(pkg/action/list.go): its newest revision, by that revision's status, matched by the selector
against its storage labels. Its plan then reads it through `HeldReleases`, the command's
`Releases` (release/store.py) answered from the records already held: the revision `helm
upgrade` diffs against, its values (`helm get values --all`, as each helm computes them), the
revisions helm would prune; and its stored chart is taken from the same record. No helm process
and no other request reads a release; the render is its only helm process.

Only the revisions a plan asks for are decoded, by the worker that plans the release, and
forgotten once it is planned: memory holds the listed objects' text and a decoded release or
two per worker.

A selector naming a label other than Helm's own four (a release's own labels, which only the
storage object holds) is left to helm: `releases` returns None, and helm lists the scope. A
record whose content disagrees with its labels, which Helm never writes, is that release's
error (helm_storage.checked), naming what the record says.
"""
from __future__ import annotations

import threading
import time
from typing import Any, Iterable, Mapping

from msgspec import Struct, structs

from deployah_plan.errors import ReleaseError
from deployah_plan.release import helm_storage
from deployah_plan.release.helm_storage import Record, StorageError
from deployah_plan.release.inventory import LISTED, Listed, parse_selector, selector_keys
from deployah_plan.release.store import Releases
from deployah_plan.sources.helm import Helm
from deployah_plan.sources.kubeconfig import ClusterSettings, ReadBudget

DRIVERS = ("secret", "configmap")  # the drivers listed here; any other is read by helm
_STORAGE_LABELS = {"name", "owner", "status", "version"}  # what Helm labels every record with


class Held(Struct, frozen=True):
    """One release in scope, as `helm list` lists it (its chart not yet known: the records are
    decoded by the worker that plans it), and every stored revision of it, as listed."""

    listed: Listed
    records: tuple[Record, ...]


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


class HeldReleases(Releases):
    """The command's release reads, answered from the records the scope's list returned: never
    asked of the cluster or of helm again. A revision is decoded once while its release is
    planned (`forget` drops it after), and a record that disagrees with its labels is refused
    (StorageError: the release's error row), not asked of helm."""

    def __init__(self, helm: Helm, settings: ClusterSettings | None, scope: Iterable[Held]) -> None:
        super().__init__(helm, settings)
        self._records.update({(held.listed.name, held.listed.namespace): list(held.records) for held in scope})
        self._held: dict[Record, dict[str, Any]] = {}
        self._held_lock = threading.Lock()

    def _release(self, record: Record) -> dict[str, Any] | None:
        with self._held_lock:
            known = self._held.get(record)
        if known is None:
            known = helm_storage.checked(record)
            with self._held_lock:
                self._held[record] = known
        return known

    def decoded(self, record: Record) -> dict[str, Any]:
        found = self._release(record)
        assert found is not None
        return found

    def forget(self, held: Held) -> None:
        with self._held_lock:
            for record in held.records:
                self._held.pop(record, None)


def chart_of(release: Mapping[str, Any]) -> str:
    """NAME-VERSION of a decoded release's chart, as `helm list` prints it."""
    chart = release.get("chart")
    metadata = chart.get("metadata") if isinstance(chart, dict) else None
    metadata = metadata if isinstance(metadata, dict) else {}
    return f"{metadata.get('name', '')}-{metadata.get('version', '')}"


__all__ = ["DRIVERS", "Held", "HeldReleases", "StorageError", "chart_of", "reads_storage", "releases"]
