"""Helm's release storage read directly: the records of the `secret` and `configmap` drivers
through the project's GET-only client, and the `memory` driver's files; which revision
`helm upgrade` starts from, chosen as helm chooses it.

How Helm stores a revision (helm.sh/helm pkg/storage/driver secrets.go, cfgmaps.go, util.go):
an object `sh.helm.release.v1.NAME.vN` in the release's namespace, labelled `owner=helm`,
`name`, `status` and `version`, whose `release` key holds base64(gzip(json(release))) (a
record written before Helm compressed them has no gzip: `decodeRelease` inflates only after
the gzip magic bytes). A Secret's data is base64 once more as the API serves it; a
ConfigMap's is not. The memory driver keeps the release JSON itself (HELM_MEMORY_DRIVER_DATA).

Which revision an upgrade diffs against (pkg/action/upgrade.go `prepareUpgrade`, the same in
Helm 3.19 and 4.3, over pkg/storage/storage.go `Last` and `Deployed`): the newest revision of
any status (`Last`); pending: refused ("another operation (install/upgrade/rollback) is in
progress"); deployed: it; otherwise the newest deployed one, else the newest itself when it is
failed or superseded, else `"NAME" has no deployed releases`. `helm upgrade --install` installs
(with --replace) instead when the history's last record, in the order storage lists them, is
uninstalled (pkg/cmd/upgrade.go `isReleaseUninstalled`), or when there is no record.

What is read is bounded, as the rest of the cluster reading is (kubeclient.py bounds an
answer's size): a list holds at most MAX_RECORDS records, a record's stored text at most
MAX_ENCODED characters, and it inflates to at most MAX_INFLATED bytes and at most MAX_RATIO
times its compressed size; JSON is read as deep as Go writes it (deepjson.py).

Where this reader and helm could differ, the labels are trusted for choosing and the decoded
record is checked against them: a record whose `version` or `status` disagrees with its labels
(which Helm never writes) is refused (`StorageError`) and the caller asks helm instead.

    StorageError   the store cannot be read here, or says no; one line, with what to do next
"""
from __future__ import annotations

import json
import os

from deployah_plan import deepjson
from deployah_plan.errors import ReleaseError
from deployah_plan.escape import one_line
from deployah_plan.sources.helm_commands import driver_from_env

# Neither typing nor base64 and zlib is imported for the memory driver's files, which the plan
# reads before its first helm call (sources/early.py); the client is imported when a cluster is read.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterable, Mapping, NamedTuple, Sequence

    from deployah_plan.sources.kubeclient import KubeClient
else:
    from deployah_plan.startup import NamedTuple

__all__ = [
    "MAX_ENCODED", "MAX_INFLATED", "MAX_RATIO", "MAX_RECORDS", "Record", "StorageError", "Upgrade",
    "checked", "choose_for_upgrade", "driver_from_env", "list_records", "memory_pairs", "memory_records", "memory_releases", "newest", "parse_records", "release", "reused_values",
    "upgrade_state",
]

MAX_RECORDS = 50_000  # records in one list: 500 releases of 10 revisions is 5,000
MAX_ENCODED = 8 * 2**20  # characters of one stored `release` value (the API keeps an object under 1.5 MiB)
MAX_INFLATED = 128 * 2**20  # bytes one record inflates to
MAX_RATIO = 1_000  # times its gzip size one record may inflate to (JSON of repeated YAML reaches ~50)
_RATIO_FLOOR = 2**20  # below this many inflated bytes the ratio is not checked

_GZIP_MAGIC = b"\x1f\x8b\x08"  # pkg/storage/driver/util.go magicGzip
_PENDING = ("pending-install", "pending-upgrade", "pending-rollback")  # release.Status.IsPending
_PLURAL = {"secret": "secrets", "configmap": "configmaps"}


class StorageError(ReleaseError):
    """Helm's release storage cannot be read here, or says no; the message is one line and says
    what to do next."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(one_line(message), hint or "run with --debug to see the request, or check it with `helm history`")


class Record(NamedTuple):
    """One stored revision as the store holds it: its labels read, its release still encoded."""

    name: str
    namespace: str
    version: int
    status: str  # the `status` label
    driver: str  # "secret", "configmap" or "memory"
    data: str  # the `release` value as served (a Secret's: base64 once more; memory: the JSON itself)


# -- listing ----------------------------------------------------------------------------------------

def _selector(name: str | None) -> str:
    return "owner=helm" + (f",name={name}" if name is not None else "")


def _path(namespace: str | None, driver: str) -> str:
    from urllib.parse import quote

    plural = _PLURAL[driver]
    return f"/api/v1/namespaces/{quote(namespace, safe='')}/{plural}" if namespace else f"/api/v1/{plural}"


def list_records(client: KubeClient, namespace: str | None, driver: str, name: str | None = None,
                 refused: list[str] | None = None) -> list[Record]:
    """Every stored revision of `name` (None: of every release) in `namespace` (None: in every
    namespace), in the order the server lists them: one GET. A record whose labels or stored
    value cannot be read is left out, and a line saying so is added to `refused` (when given),
    as helm's drivers skip a record they cannot decode."""
    if driver not in _PLURAL:
        raise StorageError(f"helm plan reads the secret and configmap drivers from the cluster, not {driver!r}",
                           "unset HELM_DRIVER or set it to secret or configmap")
    if name is not None and not name:
        raise StorageError("no release name to read", "give the release's name")
    from deployah_plan.sources.kube_auth import KubeUnreachable
    from deployah_plan.sources.kubeclient import AnswerTooLarge

    path = _path(namespace, driver)
    try:
        response = client.get(path, {"labelSelector": _selector(name)})
    except KubeUnreachable as err:
        raise StorageError(str(err), "check your kube context and that the cluster is reachable") from None
    except AnswerTooLarge as err:
        raise StorageError(f"the release records in {namespace or 'every namespace'}: {err}",
                           "remove old revisions (helm's --history-max) or ask for one namespace") from None
    if response.status == 401:
        raise StorageError(f"the cluster at {client.host} refused the credentials (401 Unauthorized)",
                           "log in again, or check the kubeconfig's user")
    if response.status == 403:
        raise StorageError(f"cannot list {_PLURAL[driver]} in {namespace or 'every namespace'}: forbidden "
                           f"({_status_message(response.body)})", "helm needs the same permission; ask for it, "
                           "or name a namespace you may read")
    if not 200 <= response.status < 300:
        raise StorageError(f"listing the release records answered {response.status}: "
                           f"{_status_message(response.body) or response.reason}", "check the cluster, then plan again")
    try:
        document = json.loads(response.body)
    except ValueError:
        raise StorageError("the cluster's list of release records is not JSON", "check the API server") from None
    items = document.get("items") if isinstance(document, dict) else None
    if not isinstance(items, list):
        raise StorageError("the cluster's list of release records has no items", "check the API server")
    if len(items) > MAX_RECORDS:
        raise StorageError(f"{len(items):,} release records in one list, more than the {MAX_RECORDS:,} helm plan reads",
                           "ask for one namespace, or remove old revisions (helm's --history-max)")
    records = []
    for n, item in enumerate(items):
        record = _record(item, driver, namespace, name)
        if isinstance(record, Record):
            records.append(record)
        elif refused is not None:
            refused.append(f"release record {n} of {path} is left out: {record}")
    return records


def _status_message(body: bytes) -> str:
    try:
        status = json.loads(body)
    except ValueError:
        return ""
    return one_line(str(status.get("message") or ""))[:300] if isinstance(status, dict) else ""


def _record(item: Any, driver: str, namespace: str | None, name: str | None) -> Record | str:
    """One listed object as a Record, or why it cannot be one."""
    if not isinstance(item, dict):
        return "it is not an object"
    meta = item.get("metadata")
    if not isinstance(meta, dict):
        return "it has no metadata"
    labels = meta.get("labels")
    if not isinstance(labels, dict):
        return f"{str(meta.get('name'))[:80]!r} has no labels"
    shown = repr(str(meta.get("name"))[:120])
    release_name, status, version = labels.get("name"), labels.get("status"), labels.get("version")
    if not isinstance(release_name, str) or not release_name:
        return f"{shown} has no name label"
    if name is not None and release_name != name:
        return f"{shown} is labelled for release {release_name[:60]!r}, not {name!r}"
    if labels.get("owner") != "helm":
        return f"{shown} is not labelled owner=helm"
    if not isinstance(status, str) or not status:
        return f"{shown} has no status label"
    if not isinstance(version, str) or not version.isdigit() or not version.isascii() or len(version) > 9:
        return f"{shown} has no version label that is a number"
    item_namespace = meta.get("namespace")
    if not isinstance(item_namespace, str) or not item_namespace or (namespace and item_namespace != namespace):
        return f"{shown} is not in the namespace asked for"
    data = item.get("data")
    value = data.get("release") if isinstance(data, dict) else None
    if not isinstance(value, str) or not value:
        return f"{shown} has no release data"
    if len(value) > MAX_ENCODED:
        return f"{shown} holds {len(value):,} characters, more than the {MAX_ENCODED:,} helm plan reads"
    return Record(release_name, item_namespace, int(version), status, driver, value)


# -- the memory driver --------------------------------------------------------------------------------

def memory_records(environ: Mapping[str, str], refused: list[str] | None = None) -> list[Record]:
    """The memory driver's releases, from the files HELM_MEMORY_DRIVER_DATA names (a path list),
    as helm loads them (pkg/cmd/helm.go `loadReleasesInMemory`: each file a YAML or JSON list of
    releases), sorted by version within each release, as its records are kept. A file helm could
    not load, or two records of one revision (which helm refuses: "already exists"), raise."""
    return parse_records(memory_releases(environ), refused)


def memory_releases(environ: Mapping[str, str]) -> list[Any]:
    """The releases of the memory driver's files, as loaded (`memory_records`)."""
    releases: list[Any] = []
    for path in (environ.get("HELM_MEMORY_DRIVER_DATA") or "").split(os.pathsep):
        if path:
            releases += _memory_file(path)
    return releases


def _memory_file(path: str) -> list[Any]:
    hint = "fix HELM_MEMORY_DRIVER_DATA, or unset it"
    try:
        with open(path, encoding="utf-8") as source:
            text = source.read()
    except (OSError, UnicodeDecodeError) as err:
        raise StorageError(f"cannot read the memory driver's releases in {path}: "
                           f"{getattr(err, 'strerror', None) or err}", hint) from None
    try:
        loaded = deepjson.loads(text)  # as deep as helm reads it
    except ValueError:
        from deployah_plan import yamlkube  # helm reads the file as YAML; JSON is the usual case

        try:
            documents = list(yamlkube.load_all(text))
        except yamlkube.YAMLError as err:
            raise StorageError(f"{path} (HELM_MEMORY_DRIVER_DATA) cannot be read as releases: {err}", hint) from None
        loaded = documents[0].value if documents else None
    if not isinstance(loaded, list):
        raise StorageError(f"{path} (HELM_MEMORY_DRIVER_DATA) is not a list of releases", hint)
    return loaded


def parse_records(releases: Iterable[Any], refused: list[str] | None = None, encode: bool = True) -> list[Record]:
    """The memory driver's records (the release JSON objects of HELM_MEMORY_DRIVER_DATA) as
    Records, their labels as the memory driver makes them (pkg/storage/driver memory.go
    `newRecord`: name, owner, status and version from the release itself; a release without a
    namespace is in "default"), sorted by version within each release as it keeps them.
    `encode=False`: `data` left empty, for a caller that keeps the releases themselves
    (`memory_pairs`)."""
    return [record for record, _ in memory_pairs(releases, refused, encode)]


def memory_pairs(releases: Iterable[Any], refused: list[str] | None = None,
                 encode: bool = False) -> list[tuple[Record, dict[str, Any]]]:
    """`parse_records`, each Record with the release it was read from."""
    pairs = []
    for n, rel in enumerate(releases):
        if not isinstance(rel, dict) or not isinstance(rel.get("name"), str) or not rel.get("name"):
            if refused is not None:
                refused.append(f"memory driver release {n} is left out: it has no name")
            continue
        info = rel.get("info")
        status = info.get("status") if isinstance(info, dict) else None
        version = rel.get("version")
        if not isinstance(version, int) or isinstance(version, bool) or not isinstance(status, str):
            if refused is not None:
                refused.append(f"memory driver release {n} ({str(rel['name'])[:60]}) is left out: "
                               "it has no whole version or no status")
            continue
        pairs.append((Record(rel["name"], str(rel.get("namespace") or "default"), version, status, "memory",
                             deepjson.dumps(rel) if encode else ""), rel))
    keys = [(r.namespace, r.name, r.version) for r, _ in pairs]
    if len(set(keys)) != len(keys):
        raise StorageError("HELM_MEMORY_DRIVER_DATA holds one revision of a release twice, which helm refuses",
                           "remove the duplicate record")
    return sorted(pairs, key=lambda pair: (pair[0].namespace, pair[0].name, pair[0].version))


def reused_values(environ: Mapping[str, str], name: str, namespace: str
                  ) -> tuple[list[tuple[Record, dict[str, Any]]], dict[str, Any] | None] | None:
    """For the render of an upgrade without values flags, started before the imports
    (sources/early.py): the memory driver's records with their releases (`memory_pairs`, every
    release's: the plan takes them as they are) and the user values of the revision `helm
    upgrade` starts from (`upgrade_state`; None: it installs). None when the plan asks helm
    about the files (a record it leaves out) or helm refuses (a pending revision): the plan
    reads them again, and says so."""
    from deployah_plan.release.stored_values import user_values

    refused: list[str] = []
    try:
        pairs = memory_pairs(memory_releases(environ), refused)
        state = upgrade_state([r for r, _ in pairs if r.name == name and r.namespace == namespace])
    except StorageError:
        return None
    if refused:
        return None
    return pairs, None if state.current is None else user_values(dict(pairs)[state.current])


# -- one record decoded -----------------------------------------------------------------------------

def _b64(text: str | bytes, what: str) -> bytes:
    """Go's base64.StdEncoding.DecodeString: padded, the standard alphabet; CR and LF are skipped."""
    import base64
    import binascii

    if isinstance(text, str):
        text = text.encode("ascii", "replace")
    try:
        return base64.b64decode(text.replace(b"\r", b"").replace(b"\n", b""), validate=True)
    except (binascii.Error, ValueError):
        raise StorageError(f"{what} is not base64", "check the record with `helm history`; "
                           "helm cannot read it either") from None


def _inflate(data: bytes, what: str) -> bytes:
    """gzip, inflated up to MAX_INFLATED bytes and MAX_RATIO times its size."""
    import zlib

    limit = min(MAX_INFLATED, max(_RATIO_FLOOR, MAX_RATIO * len(data)))
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error as err:
        raise StorageError(f"{what} is not gzip: {err}", "check the record with `helm history`") from None
    if len(out) > limit or inflater.unconsumed_tail:
        raise StorageError(f"{what} inflates past {limit:,} bytes, the most helm plan reads of one record",
                           "check the record with `helm get all`; an uncompressed release this large is not one helm wrote")
    return out


def release(record: Record) -> dict[str, Any]:
    """The stored release, decoded as Helm's decodeRelease does (util.go): base64 (a Secret's
    twice: the API's, then Helm's), gzip when its magic bytes lead, then JSON."""
    what = f"release {record.name} revision {record.version} ({record.driver} in {record.namespace})"
    if record.driver == "memory":
        text = record.data
    else:
        raw = _b64(_b64(record.data, what) if record.driver == "secret" else record.data, what)
        if raw[:3] == _GZIP_MAGIC:
            raw = _inflate(raw, what)
        elif len(raw) > MAX_INFLATED:
            raise StorageError(f"{what} is larger than {MAX_INFLATED:,} bytes", "ask helm with `helm get all`")
        # encoding/json reads a byte that is not UTF-8 as U+FFFD.
        text = raw.decode("utf-8", "replace")
    try:
        decoded = deepjson.loads(text)
    except (ValueError, RecursionError) as err:
        raise StorageError(f"{what} is not JSON: {one_line(str(err))[:200]}",
                           "check the record with `helm history`; helm cannot read it either") from None
    if not isinstance(decoded, dict):
        raise StorageError(f"{what} is not a release object", "check the record with `helm history`")
    return decoded


# -- which revision -----------------------------------------------------------------------------------

def _newest_first(records: Iterable[Record]) -> list[Record]:
    return sorted(records, key=lambda r: r.version, reverse=True)


def newest(records: Iterable[Record]) -> Record | None:
    """The newest revision whatever its status (storage.Last; `helm get`, rollback, uninstall)."""
    ordered = _newest_first(records)
    return ordered[0] if ordered else None


class Upgrade(NamedTuple):
    """What `helm upgrade` would start from: the revision it diffs against (None: it installs),
    the newest revision (the new one is its version + 1; 0 when there is none), and whether an
    install replaces a release uninstalled with --keep-history."""

    current: Record | None
    newest_version: int
    replaces_uninstalled: bool


def upgrade_state(records: Sequence[Record]) -> Upgrade:
    """`helm upgrade --install`'s choice over one release's records (in the store's order):
    pkg/cmd/upgrade.go, then pkg/action/upgrade.go prepareUpgrade. A StorageError in helm's
    words when helm would refuse."""
    if not records:
        return Upgrade(None, 0, False)
    last = newest(records)
    assert last is not None
    if records[-1].status == "uninstalled":  # isReleaseUninstalled: the history's last, as listed
        return Upgrade(None, last.version, True)
    return Upgrade(choose_for_upgrade(records), last.version, False)


def choose_for_upgrade(records: Sequence[Record]) -> Record | None:
    """The revision `helm upgrade` diffs against (prepareUpgrade); None when there is no record.
    Refused as helm refuses: a pending newest revision, or no deployed one when the newest is
    neither failed nor superseded."""
    last = newest(records)
    if last is None:
        return None
    if last.status in _PENDING:
        raise StorageError(f"release {last.name} has an operation in progress ({last.status} at revision "
                           f"{last.version}): helm upgrade says another operation (install/upgrade/rollback) is in progress",
                           "wait for it to finish, or roll back with `helm rollback`, then plan again")
    if last.status == "deployed":
        return last
    deployed = newest(r for r in records if r.status == "deployed")
    if deployed is not None:
        return deployed
    if last.status in ("failed", "superseded"):
        return last
    doing = "is being uninstalled" if last.status == "uninstalling" else f"is {last.status}"
    raise StorageError(f'release {last.name} {doing} (revision {last.version}): helm upgrade says "{last.name}" has no '
                       "deployed releases", "wait for helm uninstall to finish, or install it again with "
                       "`helm upgrade --install`" if last.status == "uninstalling" else
                       "install it again with `helm upgrade --install`, or roll back to a revision that was deployed")


def checked(record: Record) -> dict[str, Any]:
    """`release(record)`, refused when what it holds disagrees with the labels it was chosen by
    (helm chooses by the decoded version and status; Helm writes both alike)."""
    decoded = release(record)
    info = decoded.get("info")
    status = info.get("status") if isinstance(info, dict) else None
    if decoded.get("name") != record.name or decoded.get("version") != record.version or status != record.status:
        raise StorageError(f"release {record.name} revision {record.version}: the stored record says "
                           f"{str(decoded.get('name'))[:60]!r} revision {str(decoded.get('version'))[:12]} "
                           f"{str(status)[:20]}, not what its labels say", "ask helm with `helm get all`")
    return decoded
