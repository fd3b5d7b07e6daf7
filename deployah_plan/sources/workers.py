"""Worker threads that a signal does not wait for.

A `with ThreadPoolExecutor()` block waits for its threads on the way out, whatever the way: on
SIGTERM or Ctrl-C that is for a reader blocked in a socket read of an API server that never
answers, until its read times out, with the release's values still in a temporary file. The
signal's handler has ended every helm process by then (sources/early.py `HelmCalls.interrupt`),
and the entry point ends the process without waiting for threads (entry.py), so when the
command is interrupted (errors.Interrupted, or KeyboardInterrupt) `workers` waits for its
threads a moment only (`GRACE`): long enough for a thread whose helm was ended to remove its
own temporary folder, not for a read of a server that does not answer. Any other way out waits
for them, as before: a thread may still be running a helm process that has to end first.
"""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Iterator

from deployah_plan.errors import Interrupted


GRACE = 0.5  # seconds an interrupted block waits for its threads, all together


@contextmanager
def workers(max_workers: int, name: str = "") -> Iterator[ThreadPoolExecutor]:
    pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix=name)
    try:
        yield pool
    except (Interrupted, KeyboardInterrupt):
        pool.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + GRACE
        for thread in list(pool._threads):
            thread.join(max(deadline - time.monotonic(), 0))
        raise
    except BaseException:
        pool.shutdown(wait=True)
        raise
    pool.shutdown(wait=True)


__all__ = ["GRACE", "workers"]
