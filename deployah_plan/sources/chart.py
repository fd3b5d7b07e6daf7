"""The chart to render, made local once: a directory, a packaged .tgz, or a reference
(`repo/name`, `oci://...`, a URL) fetched with one `helm pull`."""
from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Sequence

from msgspec import Struct

from deployah_plan.errors import UsageError
from deployah_plan.sources import chart_scan
from deployah_plan.sources.chart_path import folder, on_disk, pathlib_text
from deployah_plan.sources.workdir import Workdir

if TYPE_CHECKING:
    from deployah_plan.sources.helm import Helm

class LocalChart(Struct, frozen=True):
    path: str
    name: str
    version: str


class Templates(Struct, frozen=True):
    """What a chart's templates call, read from their text (`scan`)."""

    calls_lookup: bool  # a template calls `lookup`, which renders empty without a cluster
    # A template may make a new value on every render (or a subchart archive was not looked
    # into): the desired state is rendered twice to find those values (core/regenerated.py).
    may_regenerate: bool = True
    # A template reads the cluster's Kubernetes version (`.Capabilities.KubeVersion`), which
    # `helm template` takes from --kube-version, else from its own default.
    reads_kube_version: bool = False


def _looks_local(ref: str) -> bool:
    if "://" in ref:  # a chart by URL (https://host/chart-1.0.0.tgz) or in a registry (oci://)
        return False
    return ref.startswith(("/", "./", "../", "~")) or ref.endswith((".tgz", ".tar.gz")) or ref in (".", "..")


def _metadata(text: str, where: str) -> tuple[str, str]:
    from deployah_plan.yamlkube import YAMLError, load_all  # read once helm renders (`resolve`)

    try:
        docs = [d.value for d in load_all(text)]
    except YAMLError as err:
        raise UsageError(f"{where}: Chart.yaml is not valid YAML ({err})", "fix Chart.yaml") from None
    meta = docs[0] if docs and isinstance(docs[0], dict) else {}
    return str(meta.get("name", "")), str(meta.get("version", ""))


def inspect(path: str) -> LocalChart:
    """Name and version of a local chart, from its Chart.yaml."""
    target = folder(path)
    if os.path.isdir(target):
        with open(os.path.join(target, "Chart.yaml")) as source:
            name, version = _metadata(source.read(), path)
        return LocalChart(target, name, version)
    return _package(path, target, None, templates=False)[0]


def _package(path: str, target: str, read: tuple[bool, bool, bool] | None, templates: bool = True,
             chart_yaml: str | None = None) -> tuple[LocalChart, Templates]:
    """A packaged chart's name and version, and what its templates call (`read`: already known;
    `templates=False`: not asked, and not read), from one opening of the archive
    (sources/chart_scan.py `package`), none when `chart_yaml` (its Chart.yaml) and `read` were
    read already."""
    found = None
    if chart_yaml is None or (read is None and templates):
        try:
            chart_yaml, found = chart_scan.package(target, templates=read is None and templates)
        except chart_scan.TooLarge as err:
            raise UsageError(f"{path} is more than helm loads of a chart archive: {err}",
                             "check the archive; helm refuses it too") from None
        except Exception as err:
            if not isinstance(err, (OSError, *tar_errors())):  # tarfile is imported by now
                raise
            raise UsageError(f"{path} is not a packaged chart ({err})", "pass a chart folder or a .tgz made by `helm package`") from None
    if chart_yaml is None:
        raise UsageError(f"{path} is not a packaged chart: it has no Chart.yaml", "pass a chart folder or a .tgz made by `helm package`")
    name, version = _metadata(chart_yaml, path)
    read = read or found
    return LocalChart(target, name, version), Templates(*read) if read is not None else Templates(False)


def read_local(path: str, read: tuple[bool, bool, bool] | None = None,
               chart_yaml: str | None = None) -> tuple[LocalChart, Templates]:
    """`inspect` and `scan` of the chart at `path`, a packaged chart opened once for both (each
    opening lists the archive's members, which inflates all of it: 50 ms of a plan of
    kube-prometheus-stack's package); `read` and a package's `chart_yaml`: what was read of them
    already (sources/early.py), which is not read again."""
    target = folder(path)
    if os.path.isdir(target):
        return inspect(path), scan(path, read)
    return _package(path, target, read, chart_yaml=chart_yaml)


def tar_errors() -> tuple[type[Exception], ...]:
    """What reading a packaged chart raises besides OSError: tarfile's error, a cut or corrupt
    archive's, and one past helm's bounds (sources/chart_scan.py `members`), once a packaged
    chart was opened (this module imports tarfile only then): a plan of a chart
    folder does not import it (nor shutil, which it imports) to catch what it cannot raise."""
    tarfile = sys.modules.get("tarfile")
    if tarfile is None:
        return ()
    import zlib  # imported with tarfile's gzip

    # A cut archive ends gzip's stream early (EOFError); corrupt data fails to inflate (zlib.error).
    return tarfile.TarError, EOFError, zlib.error, chart_scan.TooLarge


def default_values(path: str) -> str:
    """The chart's own values.yaml ("" when it has none), read from the folder or the package
    rather than by `helm show values`: one helm process less beside the renders."""
    target = folder(path)
    if os.path.isdir(target):
        try:
            with open(os.path.join(target, "values.yaml"), encoding="utf-8", errors="replace") as text:
                return text.read()
        except FileNotFoundError:
            return ""
    import tarfile  # only for a packaged chart

    with tarfile.open(target) as archive:
        for member in chart_scan.members(archive):
            if member.isfile() and member.name.count("/") == 1 and member.name.endswith("/values.yaml"):
                handle = archive.extractfile(member)
                return handle.read().decode(errors="replace") if handle is not None else ""
    return ""


def chart_files(path: str) -> dict[str, bytes]:
    """Every file of the chart at `path` (a folder or a package), by its name within the chart
    (`templates/x.yaml`), as read from disk: nothing is left out (helm's loader leaves out what
    .helmignore names; a chart that has such files then differs from its stored self)."""
    target = folder(path)
    out: dict[str, bytes] = {}
    if os.path.isdir(target):
        for root, _, names in os.walk(target):
            for name in names:
                full = os.path.join(root, name)
                with open(full, "rb") as data:
                    out[os.path.relpath(full, target).replace(os.sep, "/")] = data.read()
        return out
    import tarfile  # only for a packaged chart

    with tarfile.open(target) as archive:
        for member in chart_scan.members(archive):
            handle = archive.extractfile(member) if member.isfile() and "/" in member.name else None
            if handle is not None:
                out[member.name.split("/", 1)[1]] = handle.read()
    return out


def scan(path: str, read: tuple[bool, bool, bool] | None = None) -> Templates:
    """Whether the templates of the chart at `path` call `lookup`, or a function that makes a
    new value on every render, or read the cluster's Kubernetes version. Read apart from
    `inspect`, while helm renders the chart: the text of a big chart's templates takes tens of
    milliseconds to read and search. `read`: what was already read of them (sources/early.py
    `template_calls`), which is not read again."""
    if read is not None:
        return Templates(*read)
    target = pathlib_text(path)
    if not os.path.isdir(target):
        return _package(path, target, None)[1]
    return Templates(*chart_scan.folder_calls(target))


def is_remote(ref: str, repo: str | None) -> bool:
    """Whether `resolve` pulls the chart: one named with --repo, or one not on disk."""
    return repo is not None or not os.path.exists(os.path.expanduser(ref))


def resolve(helm: Helm, ref: str, version: str | None, workdir: str | Workdir, repo: str | None = None,
            devel: bool = False, pull_args: Sequence[str] = ()) -> str:
    """The path of the chart to render: a local chart as it is (helm ignores --version for one
    too); anything else (`repo/name`, `oci://...`, a URL), or any chart named with --repo,
    pulled once, with `pull_args` (the repository flags: credentials, TLS files, --plain-http,
    --verify) as helm upgrade gives them. Its Chart.yaml is read apart (`inspect`), while helm
    renders it: PyYAML's import would hold the render back."""
    if repo is None:
        found = on_disk(ref)
        if found is not None:
            return found
        if _looks_local(ref):
            raise UsageError(f"chart {ref} not found", "check the path to the chart folder or .tgz")
    args = (["--repo", repo] if repo else []) + (["--devel"] if devel else []) + (["--version", version] if version else [])
    args += list(pull_args)
    into = workdir if isinstance(workdir, str) else workdir.path
    helm.pull(ref, into, args)
    packages = sorted(name for name in os.listdir(into) if name.endswith(".tgz"))
    if not packages:
        raise UsageError(f"helm pull {ref} produced no chart", "check the chart reference and --version")
    return os.path.join(into, packages[0])
