"""Where a release command reads its release: Helm's storage itself when helm plan reads it as
helm does (release/helm_storage.py: the `secret` and `configmap` drivers through the
kubeconfig's cluster, one GET per release; the `memory` driver's files), else helm (`helm get`,
`helm history`: the `sql` driver, a name helm does not know, a store the reader refused).
--debug says which, and why helm is asked.

`Releases` answers what `Helm` answers (`record`, `release_state`, `history`, `values`) with the
same records, so a plan is the same either way; the equality is tested against real helm
(tests/e2e/test_helm_storage.py). What was read once (a release's records, a decoded revision)
is kept for the command's other questions: a plan asks the state, the values and the history of
one release, and gets them from one request.
"""
from __future__ import annotations

import base64
import binascii
import os
import threading
from typing import Any, Mapping

from msgspec import structs

from deployah_plan import progress
from deployah_plan.console import say
from deployah_plan.errors import ReleaseError
from deployah_plan.escape import log_line
from deployah_plan.model import ApplyMethod
from deployah_plan.release import helm_storage
from deployah_plan.release.helm_storage import Record, StorageError
from deployah_plan.release.stored_values import computed_values, user_values
from deployah_plan.sources.helm import Helm, ReleaseState, StoredRelease
from deployah_plan.sources.helm_commands import DIRECT_DRIVERS, driver_from_env
from deployah_plan.sources.kubeconfig import ClusterSettings

__all__ = ["Releases", "stored_release"]


def _file_text(data: Any) -> str:
    """A chart file's content (Go []byte, base64 in JSON) as `printf "%s"` then `%q` print it
    and sources/helm.py reads it back: UTF-8, each byte that is not read as U+0080-U+00FF."""
    try:
        raw = base64.b64decode(str(data or ""), validate=True)
    except (binascii.Error, ValueError):
        return ""
    text = raw.decode("utf-8", "surrogateescape")
    return text.translate(_ESCAPED) if any("\udc80" <= c <= "\udcff" for c in text) else text


_ESCAPED = {0xDC00 + b: chr(b) for b in range(0x80, 0x100)}


def stored_release(release: Mapping[str, Any], helm_major: int) -> StoredRelease:
    """A decoded release as `Helm.record` reads it with helm `helm_major` (its apply method is
    Helm 4's only), with its user values."""
    info = release.get("info")
    chart = release.get("chart")
    metadata = chart.get("metadata") if isinstance(chart, dict) else None
    files = chart.get("files") if isinstance(chart, dict) else None
    crd_files = [{"name": str(f.get("name", "")), "data": _file_text(f.get("data"))}
                 for f in files or () if isinstance(f, dict) and str(f.get("name", "")).startswith("crds/")]
    hooks = [h for h in release.get("hooks") or () if isinstance(h, dict)]
    defaults = chart.get("values") if isinstance(chart, dict) else None
    stored = StoredRelease.from_record({
        "name": str(release.get("name", "")), "namespace": str(release.get("namespace", "")),
        "version": int(release.get("version") or 0),
        "status": str(info.get("status", "")) if isinstance(info, dict) else "",
        "chart_name": str(metadata.get("name") or "") if isinstance(metadata, dict) else "",
        "chart_version": str(metadata.get("version") or "") if isinstance(metadata, dict) else "",
        "manifest": str(release.get("manifest") or ""),
        "hooks": [{"path": str(h.get("path") or ""), "manifest": str(h.get("manifest") or "")} for h in hooks],
        "crd_files": crd_files,
        "apply_method": str(release.get("apply_method") or "") if helm_major >= 4 else "",
    }, user_values(dict(release)))
    if not isinstance(chart, dict):
        return stored
    return structs.replace(stored, chart_values=defaults if isinstance(defaults, dict) else {})


class Releases:
    """A command's release reads, from Helm's storage or from helm; thread-safe."""

    def __init__(self, helm: Helm, settings: ClusterSettings | None, environ: Mapping[str, str] | None = None,
                 connect_timeout: float = 3.0) -> None:
        """`settings`: the cluster helm would use (None: no cluster; the storage in it is read by
        helm). `environ`: helm's environment (HELM_DRIVER, HELM_MEMORY_DRIVER_DATA)."""
        self.helm = helm
        self.settings = settings
        self.environ = os.environ if environ is None else environ
        self.driver = driver_from_env(self.environ)
        self.connect_timeout = connect_timeout
        self._lock = threading.Lock()
        self._records: dict[tuple[str, str], list[Record] | None] = {}
        self._decoded: dict[Record, dict[str, Any] | None] = {}
        self._memory: dict[Record, dict[str, Any]] | None = None  # the memory driver's, as loaded
        self.requests = 0  # HTTP requests sent to the cluster (all GET)
        self._why_not = "" if self.driver in DIRECT_DRIVERS else f"HELM_DRIVER={self.driver}: helm reads that store"
        if not self._why_not and self.driver != "memory" and (
                settings is None or not (settings.kubeconfig or settings.api_server)):
            self._why_not = "no kubeconfig or API server: helm says what it finds"

    @property
    def direct(self) -> bool:
        """Whether the store is read here (until a read of it is refused)."""
        return not self._why_not

    def _debug(self, text: str) -> None:
        if self.helm.debug:
            say(log_line("helm plan: " + text))

    # -- the records ------------------------------------------------------------------------------

    def records(self, name: str, namespace: str) -> list[Record] | None:
        """The stored revisions of release `name` in `namespace`, in the store's order; None
        when helm is to be asked instead (said with --debug)."""
        key = (name, namespace)
        with self._lock:
            if key in self._records:
                return self._records[key]
            if self._why_not:
                self._debug(f"release {name} is read by helm ({self._why_not})")
                self._records[key] = None
                return None
            refused: list[str] = []
            try:
                with progress.step(f"reading release {name}"):
                    found: list[Record] | None = self._read(name, namespace, refused)
            except StorageError as err:
                self._debug(f"reading release {name} from its {self.driver} storage: {err}; asking helm")
                found = None
            if found is not None and refused:
                # helm would decode what the labels hide: it is asked, and says what it finds.
                self._debug(f"release {name}: {refused[0]}; asking helm")
                found = None
            elif found is not None:
                self._debug(f"read release {name} from its {self.driver} storage ({len(found)} revisions)")
            self._records[key] = found
            return found

    def _read(self, name: str, namespace: str, refused: list[str]) -> list[Record]:
        if self.driver == "memory":
            if self._memory is None:
                # As read before the imports, when they were (sources/early.py).
                read = self.helm.calls.memory_pairs(self.environ.get("HELM_MEMORY_DRIVER_DATA") or "")
                self._memory = dict(read if read is not None else
                                    helm_storage.memory_pairs(helm_storage.memory_releases(self.environ), refused))
            return [r for r in self._memory if r.name == name and r.namespace == namespace]
        from deployah_plan.sources.kube_auth import KubeUnreachable
        from deployah_plan.sources.kubeclient import KubeClient

        assert self.settings is not None
        try:
            client = KubeClient(self.settings, self.connect_timeout)
        except KubeUnreachable as err:
            raise StorageError(str(err)) from None
        try:
            return helm_storage.list_records(client, namespace, self.driver, name, refused)
        finally:
            self.requests += client.requests
            client.close()

    def _release(self, record: Record) -> dict[str, Any] | None:
        """The decoded revision, checked against its labels; None when it cannot be (helm is
        asked)."""
        with self._lock:
            if record in self._decoded:
                return self._decoded[record]
            if self._memory is not None and record.driver == "memory":
                return self._memory[record]
        try:
            decoded: dict[str, Any] | None = helm_storage.checked(record)
        except StorageError as err:
            self._debug(f"{err}; asking helm")
            decoded = None
        with self._lock:
            self._decoded[record] = decoded
        return decoded

    # -- what Helm answers -----------------------------------------------------------------------

    def record(self, name: str, namespace: str, revision: int | None = None, helm_major: int = 3) -> StoredRelease | None:
        """`Helm.record`: one revision (the newest when None), None when there is none."""
        records = self.records(name, namespace)
        if records is None:
            return self.helm.record(name, namespace, revision, helm_major)
        chosen = (helm_storage.newest(records) if revision is None
                  else next((r for r in records if r.version == revision), None))
        if chosen is None:
            return None
        decoded = self._release(chosen)
        if decoded is None:
            return self.helm.record(name, namespace, revision, helm_major)
        return stored_release(decoded, helm_major)

    def release_state(self, name: str, namespace: str, helm_major: int = 3) -> ReleaseState:
        """`Helm.release_state`: the revision `helm upgrade --install` diffs against
        (helm_storage.upgrade_state), refused in helm's words when helm refuses."""
        records = self.records(name, namespace)
        if records is None:
            return self.helm.release_state(name, namespace, helm_major)
        state = helm_storage.upgrade_state(records)
        if state.current is None:
            return ReleaseState(None, state.newest_version, replaces_uninstalled=state.replaces_uninstalled)
        decoded = self._release(state.current)
        if decoded is None:
            return self.helm.release_state(name, namespace, helm_major)
        current = stored_release(decoded, helm_major)
        return ReleaseState(current, state.newest_version, newest_apply_method=self._apply_method(
            records, state.newest_version, current, helm_major))

    def _apply_method(self, records: list[Record], version: int, current: StoredRelease,
                      helm_major: int) -> ApplyMethod | None:
        """How the newest revision of any status was applied (Helm 4's --server-side=auto follows
        it, pkg/action/upgrade.go): read from its record; the current one's when it is that one."""
        if helm_major < 4 or version == current.revision:
            return current.apply_method
        newest = next((r for r in records if r.version == version), None)
        decoded = self._release(newest) if newest is not None else None
        if decoded is None:
            return current.apply_method
        return ApplyMethod.recorded(str(decoded.get("apply_method") or ""))

    def history(self, name: str, namespace: str, limit: int = 256) -> list[dict[str, Any]]:
        """`Helm.history`'s revision and status of each stored revision (what the plan reads of
        it), oldest first."""
        records = self.records(name, namespace)
        if records is None:
            return self.helm.history(name, namespace, limit)
        ordered = sorted(records, key=lambda r: r.version)[-max(limit, 256):]
        return [{"revision": r.version, "status": r.status} for r in ordered]

    def stored_chart(self, name: str, namespace: str, revision: int) -> dict[str, Any]:
        """`Helm.stored_chart`: the chart stored with one revision (release/stored_chart.py's
        shape), from its record when the store is read here; a revision it lacks, or a record
        without a chart, is refused as helm's answer would be unusable."""
        from deployah_plan.release.stored_chart import chart_record  # pathlib: only when asked

        records = self.records(name, namespace)
        if records is None:
            return self.helm.stored_chart(name, namespace, revision)
        record = next((r for r in records if r.version == revision), None)
        if record is None:
            raise ReleaseError(f"release {name} has no revision {revision}", "check it with `helm history`")
        decoded = self._release(record)
        if decoded is None:
            return self.helm.stored_chart(name, namespace, revision)
        chart = decoded.get("chart")
        if not isinstance(chart, dict):
            raise ReleaseError(f"release {name} revision {revision} has no stored chart",
                               "check the release with `helm get all`; a release without its chart cannot be rendered")
        return chart_record(chart)

    def values(self, name: str, namespace: str, revision: int, computed: bool = False,
               helm_major: int = 3) -> dict[str, Any]:
        """`Helm.values`: `helm get values -o json` of one revision (`computed`: with --all)."""
        records = self.records(name, namespace)
        record = next((r for r in records if r.version == revision), None) if records is not None else None
        decoded = self._release(record) if record is not None else None
        if decoded is None:
            if records is not None and record is None:
                raise ReleaseError(f"release {name} has no revision {revision}", "check it with `helm history`")
            return self.helm.values(name, namespace, revision, computed)
        if not computed:
            return user_values(decoded)
        try:
            return computed_values(decoded, helm_major)
        except RecursionError:  # defaults and values both nested thousands of levels deep
            self._debug(f"release {name}: its values are nested too deep to coalesce here; asking helm")
            return self.helm.values(name, namespace, revision, computed)
