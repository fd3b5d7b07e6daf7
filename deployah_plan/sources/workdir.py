"""A plan's private temporary folder, made only if the plan needs one.

`helm plan upgrade` writes the release's values there when helm must be given them (no values
flag: helm reuses the release's), and pulls a remote chart into it. Most plans need neither (a
chart on disk, values given as flags), and tempfile's import (it imports shutil, random, bz2
and lzma) was 3 ms of CPU of such a plan. So the folder is made when first asked for, as
`tempfile.TemporaryDirectory` makes it (mode 0700, a name no other process can guess), and
removed by it, with all it holds, when the block ends.
"""
from __future__ import annotations

import threading
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tempfile import TemporaryDirectory


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
            return self._folder.name

    def __enter__(self) -> Workdir:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        with self._lock:
            folder, self._folder = self._folder, None
        if folder is not None:
            folder.cleanup()


__all__ = ["Workdir"]
