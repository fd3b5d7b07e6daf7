"""Worker threads for a command's calls (helm processes, API reads), which a signal does not wait for.

`workers(n)` runs the functions given to `submit` in up to n threads, each returning a `Call`
that holds the result or the exception raised. It does what a plan asked of
concurrent.futures.ThreadPoolExecutor (submit, map, a result that re-raises, a callback when
done, the calls in the order they end), without its import: concurrent.futures imports logging,
traceback and tokenize (5 ms of CPU, a few percent of a small chart's plan, on the cores helm's
processes are using).

On the way out the block waits for its threads, whatever the way, except when the command is
interrupted (errors.Interrupted, or KeyboardInterrupt): a reader blocked in a socket read of an
API server that never answers would hold SIGTERM or Ctrl-C until its read timed out, with the
release's values still in a temporary file. The signal's handler has ended every helm process
by then (sources/early.py `HelmCalls.interrupt`), and the entry point ends the process without
waiting for threads (entry.py), so an interrupted block drops the calls not yet started and
waits for its threads a moment only (`GRACE`): long enough for a thread whose helm was ended to
remove its own temporary folder, not for a read of a server that does not answer. The threads
are daemon threads, so one left behind never holds up the end of a process either.
"""
from __future__ import annotations

import threading
import time
from collections import deque
from contextlib import contextmanager
from typing import Any, Callable, Generic, Iterable, Iterator, TypeVar

from deployah_plan.errors import Interrupted

GRACE = 0.5  # seconds an interrupted block waits for its threads, all together

T = TypeVar("T")
R = TypeVar("R")


class Call(Generic[T]):
    """A function submitted to `Workers`: its result once it has run (`result`)."""

    def __init__(self, function: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self._run = (function, args, kwargs)
        self._finished = threading.Event()
        self._lock = threading.Lock()
        self._value: T | None = None
        self._error: BaseException | None = None
        self._callbacks: list[Callable[[Call[T]], None]] = []

    def done(self) -> bool:
        return self._finished.is_set()

    def result(self) -> T:
        """The function's return value, once it has run; the exception it raised, raised again."""
        self._finished.wait()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]  # set, since it ended without an error

    def add_done_callback(self, callback: Callable[[Call[T]], None]) -> None:
        """Call `callback(call)` once it is done: at once if it is, else in the thread that ran it."""
        with self._lock:
            if not self._finished.is_set():
                self._callbacks.append(callback)
                return
        callback(self)

    def run(self) -> None:
        function, args, kwargs = self._run
        try:
            self._value = function(*args, **kwargs)
        except BaseException as error:  # kept for `result`, as concurrent.futures keeps it
            self._error = error
        self._finish()

    def _finish(self) -> None:
        with self._lock:
            self._finished.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(self)

    def drop(self) -> None:
        """Never run: its result is Interrupted."""
        self._error = Interrupted()
        self._finish()


class Workers:
    """Up to `size` threads running the calls submitted, in the order submitted; a thread is
    started when a call finds every other one busy."""

    def __init__(self, size: int, name: str = "") -> None:
        self._size = max(1, size)
        self._name = name or "helm-plan-worker"
        self._queue: deque[Call[Any]] = deque()
        self._ready = threading.Condition()
        self._idle = 0
        self._closed = False
        self.threads: list[threading.Thread] = []

    def submit(self, function: Callable[..., T], /, *args: Any, **kwargs: Any) -> Call[T]:
        call: Call[T] = Call(function, args, kwargs)
        with self._ready:
            if self._closed:
                raise RuntimeError("cannot submit to workers that have been shut down")
            self._queue.append(call)
            self._ready.notify()
            # A thread for each call no idle thread is left to take (one notified may not have
            # woken yet), up to `size`.
            if len(self._queue) > self._idle and len(self.threads) < self._size:
                thread = threading.Thread(target=self._work, name=f"{self._name}_{len(self.threads)}", daemon=True)
                self.threads.append(thread)
                thread.start()
        return call

    def map(self, function: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        """`function` of each item, run side by side, the results in the items' order; the first
        exception raised, raised again when its result is reached."""
        calls = [self.submit(function, item) for item in items]

        def results() -> Iterator[R]:
            for call in calls:
                yield call.result()
        return results()

    def _work(self) -> None:
        while True:
            with self._ready:
                while not self._queue and not self._closed:
                    self._idle += 1
                    self._ready.wait()
                    self._idle -= 1
                if not self._queue:  # closed, nothing left to run
                    return
                call = self._queue.popleft()
            call.run()

    def shutdown(self, *, wait: bool, cancel: bool = False) -> None:
        """Start nothing more; `cancel`: drop the calls not yet started; `wait`: until every
        thread has ended."""
        with self._ready:
            self._closed = True
            dropped = list(self._queue) if cancel else []
            if cancel:
                self._queue.clear()
            self._ready.notify_all()
        for call in dropped:
            call.drop()
        if wait:
            for thread in self.threads:
                thread.join()


def completed(calls: Iterable[Call[T]]) -> Iterator[Call[T]]:
    """The calls, each as soon as it is done (as concurrent.futures.as_completed yields them)."""
    pending = list(calls)
    finished: deque[Call[T]] = deque()
    ready = threading.Condition()

    def done(call: Call[T]) -> None:
        with ready:
            finished.append(call)
            ready.notify()
    for call in pending:
        call.add_done_callback(done)
    for _ in pending:
        with ready:
            while not finished:
                ready.wait()
            yield finished.popleft()


@contextmanager
def workers(size: int, name: str = "") -> Iterator[Workers]:
    pool = Workers(size, name)
    try:
        yield pool
    except (Interrupted, KeyboardInterrupt):
        pool.shutdown(wait=False, cancel=True)
        deadline = time.monotonic() + GRACE
        for thread in list(pool.threads):
            thread.join(max(deadline - time.monotonic(), 0))
        raise
    except BaseException:
        pool.shutdown(wait=True)
        raise
    pool.shutdown(wait=True)


__all__ = ["GRACE", "Call", "Workers", "completed", "workers"]
