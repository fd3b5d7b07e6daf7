"""A helm process of the plan's: started with `os.posix_spawn`, read with `select.poll`
(`select.select` where a Python has no poll).

It does what the plan asked of `subprocess.Popen` (its outputs piped and read to the end as
text, its standard input piped or passed on, a time limit, `kill`, `wait`), without importing
subprocess before the first helm call: subprocess brings threading, selectors, locale, typing
and re (a bare Python took 13.6 ms to import subprocess, 5.7 of them for the enum module that
the flag table needs anyway), and every plan's first helm calls waited for them
(sources/early.py starts helm before the rest of helm plan is imported).

As subprocess starts a program, so does this: the program found on PATH when its name has no
slash, SIGPIPE and SIGXFSZ put back to their defaults in the child (Python ignores SIGPIPE),
the descriptors the plan opened not inherited (Python opens them non-inheritable; the three
standard ones are the child's), an error to start it raised as OSError in the caller. Output is
decoded as subprocess decodes it in text mode: UTF-8 in Python's UTF-8 mode, else the locale's
encoding, strictly, with `\\r\\n` and `\\r` read as `\\n`.

One difference before Python 3.13 (whose POSIX_SPAWN_CLOSEFROM is used): subprocess also
closes the descriptors above 2 that helm plan itself inherited open and inheritable (helm
starts its plugins with none); helm is handed them, as a program started by a shell is.

Thread-safe as the plan uses it: one thread reads a process (`communicate`), any thread may
`kill` it meanwhile.
"""
from __future__ import annotations

import _thread
import os
import signal
import sys
import time

TYPE_CHECKING = False  # typing's own is not imported before the first helm call
if TYPE_CHECKING:
    from typing import Mapping, Sequence

_CHUNK = 32768
_PIPE_BUF = 512  # what a pipe takes at once, once poll says it takes any (POSIX's least)


class Timeout(Exception):
    """The process did not end within the time given (it is left running)."""


def _encoding() -> str:
    if sys.flags.utf8_mode:
        return "utf-8"
    try:
        from _locale import getencoding  # Python 3.11+, as subprocess asks it

        return str(getencoding())
    except ImportError:
        import locale

        return locale.getpreferredencoding(False)


def _text(data: bytes, encoding: str) -> str:
    return data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")


class Process:
    """One program, started at once; its standard output and error piped, its standard input
    piped (`stdin`) or passed on; `env`: its environment (None: this process's)."""

    def __init__(self, args: Sequence[str], *, stdin: bool, env: Mapping[str, str] | None = None) -> None:
        self.args = list(args)
        self.returncode: int | None = None
        # Held to reap and to kill, so a pid is never signalled once reaped (it may be another's by
        # then); re-entrant, for the signal handler that kills every process (sources/early.py).
        self._lock = _thread.RLock()
        self._encoding = _encoding()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        in_r, in_w = os.pipe() if stdin else (-1, -1)
        actions: list[tuple[int, ...]] = [(os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2)]
        if stdin:
            actions.append((os.POSIX_SPAWN_DUP2, in_r, 0))
        if hasattr(os, "POSIX_SPAWN_CLOSEFROM"):  # Python 3.13+: as subprocess, nothing above 2 inherited
            actions.append((os.POSIX_SPAWN_CLOSEFROM, 3))
        spawn = os.posix_spawn if "/" in self.args[0] else os.posix_spawnp
        try:
            self.pid = spawn(self.args[0], self.args, os.environ if env is None else env,
                             file_actions=actions, setsigdef=(signal.SIGPIPE, signal.SIGXFSZ))
        except BaseException:
            for fd in (out_r, err_r, in_w):
                if fd >= 0:
                    os.close(fd)
            raise
        finally:
            for fd in (out_w, err_w, in_r):
                if fd >= 0:
                    os.close(fd)
        self._stdout, self._stderr, self._stdin = out_r, err_r, in_w
        self._pending = b""  # standard input given to `feed` that the pipe did not yet take

    def feed(self, input: str) -> None:
        """Give the process its standard input now (piped: `stdin`), as much as the pipe takes
        without waiting; `communicate` writes the rest. So a process started ahead of its
        reader (sources/early.py) reads its input as soon as it starts."""
        data = input.encode(self._encoding)
        written = 0
        if self._stdin >= 0:
            os.set_blocking(self._stdin, False)
            try:
                while written < len(data):
                    written += os.write(self._stdin, data[written:written + _CHUNK])
            except BlockingIOError:
                pass
            except BrokenPipeError:  # it ended already: `communicate` says how
                written = len(data)
            os.set_blocking(self._stdin, True)
        self._pending = data[written:]
        if not self._pending:
            self._close_stdin()

    def communicate(self, input: str | None = None, timeout: float | None = None) -> tuple[str, str]:
        """Write `input` (when standard input is piped; then it is closed), read both outputs to
        their end and wait for the process: its standard output and error as text. Raises
        Timeout, the process left running, after `timeout` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        out_fd, err_fd = self._stdout, self._stderr
        outputs: dict[int, list[bytes]] = {fd: [] for fd in (out_fd, err_fd) if fd >= 0}
        data = memoryview(self._pending if input is None else input.encode(self._encoding))
        written = 0
        poller = _Poller()
        for fd in outputs:
            poller.register(fd, write=False)
        reading = set(outputs)
        if self._stdin >= 0 and data:
            poller.register(self._stdin, write=True)
            reading.add(self._stdin)
        else:
            self._close_stdin()
        while reading:
            wait_ms = None
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Timeout
                wait_ms = int(left * 1000) + 1
            for fd in poller.ready(wait_ms):
                if fd == self._stdin:
                    try:
                        written += os.write(fd, data[written:written + _PIPE_BUF])
                    except BrokenPipeError:  # helm ended or stopped reading: what it read is what it has
                        written = len(data)
                    if written >= len(data):
                        poller.unregister(fd)
                        reading.discard(fd)
                        self._close_stdin()
                    continue
                chunk = os.read(fd, _CHUNK)
                if chunk:
                    outputs[fd].append(chunk)
                else:
                    poller.unregister(fd)
                    reading.discard(fd)
                    self._close(fd)
        self.wait(None if deadline is None else max(deadline - time.monotonic(), 0.0))
        return (_text(b"".join(outputs.get(out_fd, ())), self._encoding),
                _text(b"".join(outputs.get(err_fd, ())), self._encoding))

    def _close_stdin(self) -> None:
        if self._stdin >= 0:
            fd, self._stdin = self._stdin, -1
            os.close(fd)

    def _close(self, fd: int) -> None:
        if fd == self._stdout:
            self._stdout = -1
        elif fd == self._stderr:
            self._stderr = -1
        os.close(fd)

    def _reap(self, flags: int) -> int | None:
        """Reap the process if it has ended (under the lock: its pid is never another's while
        `kill` may still use it)."""
        with self._lock:
            if self.returncode is None:
                try:
                    pid, status = os.waitpid(self.pid, flags)
                except ChildProcessError:  # reaped by another (SIGCHLD ignored): as subprocess has it
                    pid, status = self.pid, 0
                if pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
            return self.returncode

    def poll(self) -> int | None:
        """The exit code once the process has ended (a signal's: its negative number); None before."""
        return self._reap(os.WNOHANG)

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the process to end: its exit code. Raises Timeout after `timeout` seconds.
        Never blocks holding the lock, which `kill` (the signal handler's among others) takes."""
        if timeout is None and _WAITID:
            if self.returncode is None:
                try:  # until it ends, left unreaped (a kill meanwhile is harmless), then reaped under the lock
                    os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOWAIT)
                except ChildProcessError:
                    pass
            code = self._reap(0)
            assert code is not None
            return code
        # For a while, or where there is no waitid (macOS): asked again and again.
        deadline = None if timeout is None else time.monotonic() + timeout
        delay = 0.0005
        while (code := self.poll()) is None:
            left = 0.05 if deadline is None else deadline - time.monotonic()
            if left <= 0:
                raise Timeout
            delay = min(delay * 2, left, 0.05)
            time.sleep(delay)
        return code

    def kill(self) -> None:
        """SIGKILL, unless the process has been reaped (its pid may be another's by then)."""
        with self._lock:
            if self.returncode is None:
                try:
                    os.kill(self.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def close(self) -> None:
        """Close what is left open of its pipes (once nothing reads them)."""
        self._close_stdin()
        for fd in (self._stdout, self._stderr):
            if fd >= 0:
                self._close(fd)


_WAITID = hasattr(os, "waitid") and hasattr(os, "WNOWAIT")


class _Poller:
    """The descriptors ready to read or write: `select.poll`, or `select.select` where a Python
    has no poll (`POLL` forces the choice; a plan's descriptors are far below select's limit)."""

    def __init__(self) -> None:
        import select

        self._select = select
        use_poll = hasattr(select, "poll") if POLL is None else POLL
        self._poll = select.poll() if use_poll else None
        self._read: set[int] = set()
        self._write: set[int] = set()

    def register(self, fd: int, *, write: bool) -> None:
        (self._write if write else self._read).add(fd)
        if self._poll is not None:
            self._poll.register(fd, self._select.POLLOUT if write else self._select.POLLIN)

    def unregister(self, fd: int) -> None:
        self._read.discard(fd)
        self._write.discard(fd)
        if self._poll is not None:
            self._poll.unregister(fd)

    def ready(self, wait_ms: int | None) -> list[int]:
        if self._poll is not None:
            return [fd for fd, _ in self._poll.poll(wait_ms)]
        readable, writable, _ = self._select.select(sorted(self._read), sorted(self._write), [],
                                                    None if wait_ms is None else wait_ms / 1000)
        return [*readable, *writable]


POLL: bool | None = None  # None: poll where the Python has it
