"""What a chart's templates call, read from their text: a template that calls `lookup` (it
renders empty without a cluster), one that makes a new value on every render (the plan then
renders the chart twice, core/regenerated.py), or one that reads the cluster's Kubernetes
version (`helm template` then renders for its own default version unless given one). Read by
sources/chart.py `scan` and by sources/early.py before the imports, which starts that second
render too when the templates call for it. Imports nothing heavier than os (tarfile for a
packaged chart), so that start is not held back.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Iterable

from deployah_plan.startup import Pattern, lazy

if TYPE_CHECKING:
    import tarfile

# A function is called where its name stands as a whole word inside a template action: after a
# `{{` with no `}` between (the action need not have ended). Each name is found with str.find,
# then checked where it stands: one pattern starting at `{{`, searched over the whole text,
# tried every name at every character of every action (2-10 ms of CPU a plan).
_LOOKUP = ("lookup",), lazy(r"lookup\b")
# Template functions whose result differs on every render, which a second render shows
# (sprig's random and crypto functions; htpasswd and bcrypt salt at random; encryptAES draws its
# IV at random). Not `now`: two renders side by side share its second, so a second render
# shows nothing more than the render window does (core/regenerated.py is_render_time).
_REGENERATES = (("rand", "uuidv4", "genCA", "genPrivateKey", "genSelfSignedCert", "genSignedCert", "htpasswd",
                 "bcrypt", "encryptAES", "shuffle"),
                lazy(r"(?:rand(?:AlphaNum|Alpha|Numeric|Ascii|Int|Bytes)|uuidv4|genCA(?:WithKey)?|genPrivateKey|"
                     r"genSelfSignedCert(?:WithKey)?|genSignedCert(?:WithKey)?|htpasswd|bcrypt|encryptAES|shuffle)\b"))
_WORD_CHARACTER = lazy(r"\w")
# The cluster's version: `.Capabilities.KubeVersion` and its fields (`.Version`, `.Major`, `.Minor`,
# `.GitVersion`), also reached as `$.Capabilities`, a variable holding `.Capabilities` or inside
# `with .Capabilities`, so the field's own name is what is looked for. Not `.Chart.KubeVersion`:
# the chart's own constraint (Chart.yaml `kubeVersion`), the same whatever the cluster.
_KUBE_VERSION = ("KubeVersion",), lazy(r"KubeVersion\b")
_CHART_FIELD = ".Chart."


def _called(text: str, functions: tuple[tuple[str, ...], Pattern]) -> bool:
    """Whether a template action in `text` calls one of `functions` (the names' common starts, and
    the pattern of the whole names): the text `{{`, then anything but `}`, then a whole name."""
    starts, names = functions
    for start in starts:
        at = text.find(start)
        while at >= 0:
            if names.match(text, at) and not (at and _WORD_CHARACTER.match(text, at - 1)) and _in_action(text, at):
                return True
            at = text.find(start, at + 1)
    return False


def _reads_kube_version(text: str) -> bool:
    """Whether a template action in `text` reads the cluster's Kubernetes version."""
    starts, names = _KUBE_VERSION
    at = text.find(starts[0])
    while at >= 0:
        if (names.match(text, at) and not (at and _WORD_CHARACTER.match(text, at - 1)) and _in_action(text, at)
                and not text.startswith(_CHART_FIELD, at - len(_CHART_FIELD))):
            return True
        at = text.find(starts[0], at + 1)
    return False


# What helm's chart loader reads of an archive at most (pkg/chart/loader/archive.go
# MaxDecompressedChartSize, MaxDecompressedFileSize): it refuses a chart whose files inflate
# past either, and so does this reader, from the sizes the archive declares, before it reads a
# byte of them. And a bound on the entries, which cost memory whatever their size.
MAX_CHART_BYTES = 100 * 1024 * 1024
MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_ENTRIES = 20_000


class TooLarge(Exception):
    """A chart archive past what helm loads (`members`)."""


def members(archive: tarfile.TarFile) -> list[tarfile.TarInfo]:
    """The entries of a chart archive, read one by one; TooLarge once they pass helm's bounds
    (`MAX_CHART_BYTES` in all, `MAX_FILE_BYTES` for one file) or `MAX_ENTRIES`."""
    found: list[tarfile.TarInfo] = []
    total = 0
    for member in archive:
        found.append(member)
        if len(found) > MAX_ENTRIES:
            raise TooLarge(f"it holds more than {MAX_ENTRIES:,} entries")
        if member.isfile():
            total += member.size
            if member.size > MAX_FILE_BYTES:
                raise TooLarge(f"its file {member.name} inflates to {member.size:,} bytes, past the "
                               f"{MAX_FILE_BYTES:,} helm loads of one file")
            if total > MAX_CHART_BYTES:
                raise TooLarge(f"its files inflate past the {MAX_CHART_BYTES:,} bytes helm loads of a chart")
    return found


def archive_reads_kube_version(data: bytes, depth: int = 0) -> bool:
    """Whether the templates of a chart archive (a subchart's `charts/*.tgz`, the archives in it
    too) read the cluster's Kubernetes version. An archive that cannot be read says no: helm
    fails on it before the plan says anything."""
    import io
    import tarfile  # only for a chart that holds subchart archives

    try:
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            for member in members(archive):
                handle = archive.extractfile(member) if member.isfile() else None
                if handle is None:
                    continue
                if "/templates/" in member.name and _reads_kube_version(handle.read().decode(errors="replace")):
                    return True
                if (member.name.endswith(".tgz") and "/charts/" in member.name and depth < 4
                        and archive_reads_kube_version(handle.read(), depth + 1)):
                    return True
    except (tarfile.TarError, OSError, EOFError, ValueError, TooLarge):
        return False
    return False


def _folder_archives_read_kube_version(root: str) -> bool:
    """Whether a subchart archive of the chart folder `root` (`charts/*.tgz` at any depth) reads
    the cluster's Kubernetes version."""
    for where, folders, files in os.walk(root):
        folders.sort()
        if os.path.basename(where) != "charts":
            continue
        for name in sorted(files):
            if name.endswith(".tgz"):
                try:
                    with open(os.path.join(where, name), "rb") as handle:
                        data = handle.read()
                except OSError:
                    continue
                if archive_reads_kube_version(data):
                    return True
    return False


def _in_action(text: str, at: int) -> bool:
    """Whether position `at` of `text` is inside a template action: after a `{{`, with no `}` between."""
    opened = text.rfind("{{", 0, at)
    return opened >= 0 and text.find("}", opened + 2, at) < 0


def folder_texts(root: str) -> tuple[list[str], bool]:
    """The text of every file of the chart folder `root` under a `templates` folder (at any
    depth: a subchart's too), and whether it holds a subchart archive (`charts/*.tgz`, whose
    templates are not looked into). Folders linked to are not entered, as pathlib's rglob does
    not enter them."""
    texts: list[str] = []
    archived = False
    for where, folders, files in os.walk(root):
        parts = [] if where == root else os.path.relpath(where, root).split(os.sep)
        for name in files:
            path = os.path.join(where, name)
            if not os.path.isfile(path):
                continue
            if name.endswith(".tgz") and parts[-1:] == ["charts"]:
                archived = True
            if "templates" in parts or name == "templates":
                try:
                    with open(path, encoding="utf-8", errors="replace") as handle:
                        texts.append(handle.read())
                except OSError:
                    continue
        folders.sort()
    return texts, archived


def package(target: str, templates: bool = True) -> tuple[str | None, tuple[bool, bool, bool] | None]:
    """One opening of the packaged chart `target`: the text of its Chart.yaml (None when it has
    none at its top) and, with `templates` and a Chart.yaml, `calls` of its templates, its
    subchart archives looked into for the Kubernetes version when its own templates do not read
    it (else None). Listing an archive's members reads and inflates all of it: the two are read
    in one opening. Raises tarfile's errors, OSError, and TooLarge past helm's bounds."""
    import tarfile  # only for a packaged chart

    with tarfile.open(target) as archive:
        entries = members(archive)
        tops = [m for m in entries if m.name.count("/") == 1 and m.name.endswith("/Chart.yaml")]
        handle = archive.extractfile(tops[0]) if tops else None
        chart_yaml = handle.read().decode(errors="replace") if handle is not None else None
        if chart_yaml is None or not templates:
            return chart_yaml, None
        texts = [handle.read().decode(errors="replace") for m in entries
                 if m.isfile() and "/templates/" in m.name and (handle := archive.extractfile(m)) is not None]
        subcharts = [m for m in entries if m.isfile() and m.name.endswith(".tgz") and "/charts/" in m.name]
        archived = bool(subcharts)  # as `folder_texts` counts them: files
        lookup, regenerates, kube_version = calls(texts, archived)
        if archived and not kube_version:
            kube_version = any(archive_reads_kube_version(handle.read()) for m in subcharts
                               if (handle := archive.extractfile(m)) is not None)
    return chart_yaml, (lookup, regenerates, kube_version)


def calls(texts: Iterable[str], archived: bool) -> tuple[bool, bool, bool]:
    """Whether the templates call `lookup`; whether they may make a value anew on every render
    (or a subchart archive was not looked into); whether they read the cluster's Kubernetes
    version (the archives' templates are looked into for that by `folder_calls` and
    sources/chart.py)."""
    texts = list(texts)
    return (any(_called(t, _LOOKUP) for t in texts),
            archived or any(_called(t, _REGENERATES) for t in texts),
            any(_reads_kube_version(t) for t in texts))


def folder_calls(root: str) -> tuple[bool, bool, bool]:
    """`calls` of the chart folder `root`, its subchart archives looked into for the Kubernetes
    version when its own templates do not read it."""
    texts, archived = folder_texts(root)
    lookup, regenerates, kube_version = calls(texts, archived)
    return lookup, regenerates, kube_version or (archived and _folder_archives_read_kube_version(root))


__all__ = ["MAX_CHART_BYTES", "MAX_ENTRIES", "MAX_FILE_BYTES", "TooLarge", "archive_reads_kube_version", "calls",
           "folder_calls", "folder_texts", "members", "package"]
