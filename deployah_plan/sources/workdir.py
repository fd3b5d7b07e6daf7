"""A plan's private temporary folder, made only if the plan needs one.

`helm plan upgrade` writes the release's values there when helm must be given them (no values
flag: helm reuses the release's), and pulls a remote chart into it. Most plans need neither (a
chart on disk, values given as flags), and tempfile's import (it imports shutil, random, bz2
and lzma) was 3 ms of CPU of such a plan. So the folder is made when first asked for, as
`tempfile.TemporaryDirectory` makes it (mode 0700, a name no other process can guess), and
removed by it, with all it holds, when the block ends.

Every private folder a plan makes (this one, and `private_folder`'s: a stored chart written back,
TLS files, the release values) is also listed here while it exists, so that a plan that ends
at once on a signal, while a worker thread still waits on a helm whose child holds its output,
removes them (`remove_left`, from entry.py and the second signal's handler) before the process
ends: no release values, chart or key is left in the temporary folder.
"""
from __future__ import annotations

import contextlib
import threading
from types import TracebackType
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    from tempfile import TemporaryDirectory

_LEFT: set[str] = set()  # the private folders that exist now
_LEFT_LOCK = threading.Lock()


def _listed(path: str, present: bool) -> None:
    with _LEFT_LOCK:
        (_LEFT.add if present else _LEFT.discard)(path)


@contextlib.contextmanager
def private_folder(prefix: str) -> Iterator[str]:
    """A folder of this user's alone (mode 0700, a name no other process can guess), removed
    with all it holds when the block ends, or by `remove_left`."""
    import shutil
    import tempfile

    path = tempfile.mkdtemp(prefix=prefix)
    _listed(path, True)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
        _listed(path, False)


def remove_left() -> None:
    """Remove every private folder that still exists: the process ends now, and the threads
    that would have removed theirs will not run again."""
    with _LEFT_LOCK:
        left = sorted(_LEFT)
        _LEFT.clear()
    if left:
        import shutil

        for path in left:
            shutil.rmtree(path, ignore_errors=True)


class Workdir:
    def __init__(self, prefix: str) -> None:
        self._prefix = prefix
        self._folder: TemporaryDirectory[str] | None = None
        self._lock = threading.Lock()  # asked for from the plan's worker threads too

    @property
    def made(self) -> bool:
        return self._folder is not None

    @property
    def path(self) -> str:
        with self._lock:
            if self._folder is None:
                import tempfile

                self._folder = tempfile.TemporaryDirectory(prefix=self._prefix)
                _listed(self._folder.name, True)
            return self._folder.name

    def __enter__(self) -> Workdir:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        with self._lock:
            folder, self._folder = self._folder, None
        if folder is not None:
            folder.cleanup()
            _listed(folder.name, False)


__all__ = ["Workdir", "private_folder", "remove_left"]
