"""What never changes for one helm binary, remembered between runs: its version and the
Kubernetes version `helm template` assumes. Asking costs a helm process each (`helm version`,
and a one-line chart rendered), which is as much as the render itself.

The versions live in helm's cache folder (`$HELM_CACHE_HOME`, which helm gives its plugins, else
helm's own default), one small JSON file per binary: `helm-plan/helm-facts/<checksum of its
real path>.json` (the folder keeps the name earlier releases wrote, so their files are still
read). A file holds the binary's real path, size and modification time; a binary that is
replaced or upgraded no longer matches and is asked again. Files are written whole (a
temporary file renamed into place), so a reader never sees half of one.

The cache is input like any other: a file that is not a regular file, is larger than a bound,
is not the expected JSON, or holds a value that does not look like a version is ignored (and
overwritten once the version is asked again). Nothing is ever trusted beyond two version strings.

Read before the plan's first helm calls start (sources/early.py), so its paths are strings
(os.path), not pathlib's, and shutil is imported only to look a bare binary name up: each would
hold those calls back by milliseconds.
"""
from __future__ import annotations

import _thread
import json
import os
import stat
import sys
import zlib

from deployah_plan.startup import lazy

TYPE_CHECKING = False  # typing's own is not imported before the first helm call
if TYPE_CHECKING:
    from typing import Callable

VERSIONS = ("version", "kube_version")  # each a version string; "" is never remembered
_MAX_BYTES = 4096
_VERSION = lazy(r"v?\d{1,4}\.\d{1,4}(?:\.\d{1,6})?(?:[-+][0-9A-Za-z.+-]{1,64})?")
_lock = _thread.allocate_lock()  # one process's threads update one file in turn


def cache_home() -> str | None:
    """Helm's cache folder, as helm resolves it (helm.sh/helm/v3/pkg/helmpath/lazypath.go):
    $HELM_CACHE_HOME, else $XDG_CACHE_HOME/helm, else the platform's cache folder + /helm; None
    when there is no home folder to find it in."""
    explicit = os.environ.get("HELM_CACHE_HOME")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        home = os.path.expanduser("~")
        if home == "~" or not home:
            return None
        base = os.path.join(home, "Library", "Caches") if sys.platform == "darwin" else os.path.join(home, ".cache")
    return os.path.join(base, "helm")


def _identity(binary: str) -> tuple[str, int, int] | None:
    """The binary's real path, size and modification time; None when it cannot be found."""
    if os.sep in binary:
        found: str | None = binary
    else:
        import shutil

        found = shutil.which(binary)
    if not found:
        return None
    try:
        real = os.path.realpath(found)
        info = os.stat(real)
    except (OSError, ValueError):
        return None
    return real, info.st_size, info.st_mtime_ns


def _file_for(real_path: str) -> str | None:
    """A checksum of the path names the file: two binaries whose paths collide share a file and
    take turns in it (each finds the other's path and asks again), never each other's versions.
    None when there is no cache folder."""
    home = cache_home()
    if home is None:
        return None
    raw = real_path.encode(errors="surrogateescape")
    return os.path.join(home, "helm-plan", "helm-facts", f"{zlib.crc32(raw):08x}-{len(raw)}.json")


def _read(path: str) -> dict[str, object]:
    """The file's JSON object, or {} when it is missing, not a regular file, too large or not
    a JSON object. Opened without blocking, so a FIFO put in its place cannot hang a plan."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return {}
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return {}
        data = os.read(fd, _MAX_BYTES + 1)
    except OSError:
        return {}
    finally:
        os.close(fd)
    if len(data) > _MAX_BYTES:
        return {}
    try:
        doc = json.loads(data.decode())
    except (UnicodeDecodeError, ValueError, RecursionError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _valid(doc: dict[str, object], identity: tuple[str, int, int]) -> dict[str, str]:
    """The versions a file holds for exactly this binary: nothing when it names another one (or
    another size or time), and only values that look like versions."""
    real, size, mtime = identity
    if doc.get("binary") != real or doc.get("size") != size or doc.get("mtime_ns") != mtime:
        return {}
    return {name: value for name in VERSIONS
            if isinstance(value := doc.get(name), str) and _VERSION.fullmatch(value)}


def _write(path: str, identity: tuple[str, int, int], versions: dict[str, str]) -> None:
    """Replace the file whole; a cache that cannot be written is not an error (a read-only
    home): the versions are asked again next time."""
    import tempfile  # only on the first run with this binary

    real, size, mtime = identity
    text = json.dumps({"binary": real, "size": size, "mtime_ns": mtime, **versions})
    try:
        folder = os.path.dirname(path)
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".facts-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w") as handle:
                handle.write(text)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass


def _place(binary: str) -> tuple[tuple[str, int, int] | None, str | None]:
    """The binary's identity and its cache file (None, None when either cannot be had)."""
    identity = _identity(binary)
    path = _file_for(identity[0]) if identity is not None else None
    return (identity, path) if identity is not None and path is not None else (None, None)


def known(binary: str, which: str) -> str | None:
    """`binary`'s version `which` if the cache holds it; nothing is run."""
    identity, path = _place(binary)
    if identity is None or path is None:
        return None
    return _valid(_read(path), identity).get(which)


def older_version(kube_default: str) -> str:
    """The version three minors older than helm template's default (`v1.37.0`: `1.34.0`), the
    oldest that Kubernetes' version skew keeps supported beside it; "" when it is not known."""
    parts = kube_default.lstrip("v").split(".")
    if len(parts) < 2 or not parts[0].isdigit() or not parts[1].isdigit() or int(parts[1]) < 3:
        return ""
    return f"{parts[0]}.{int(parts[1]) - 3}.0"


def remembered(binary: str, which: str, ask: Callable[[], str]) -> str:
    """`binary`'s version `which` from the cache, else `ask()` (which runs helm), remembered when
    it answers a version. `ask` raising (helm failed) leaves the cache as it was."""
    identity, path = _place(binary)
    if identity is None or path is None:
        return ask()
    known = _valid(_read(path), identity)
    if which in known:
        return known[which]
    value = ask()
    if _VERSION.fullmatch(value):
        with _lock:
            known = _valid(_read(path), identity)  # what another thread or process added meanwhile
            _write(path, identity, {**known, which: value})
    return value
