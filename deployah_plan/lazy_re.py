"""A regular expression compiled when first used, not when its module is imported.

A plan imports some forty modules that each keep a few patterns; compiled at import they cost a
plan's start 5–10 ms of CPU (`re`'s compiler is Python), though most inputs need few of them:
a chart without `lookup`, a command line without a URL. `lazy(source)` stands where
`re.compile(source)` stood and forwards the methods helm plan uses to the pattern, compiled
once by `re`'s own cache on the first call.
"""
from __future__ import annotations

import _thread
import sys

TYPE_CHECKING = False  # typing's own is not imported: this module is read before the first helm call
if TYPE_CHECKING:
    import re
    from typing import Any, Callable, Iterator


class Pattern:
    """`re.compile(source, flags)`, compiled on first use."""

    __slots__ = ("source", "flags", "_compiled")

    def __init__(self, source: str, flags: int = 0) -> None:
        self.source = source
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            import re

            self._compiled = re.compile(self.source, self.flags)
        return self._compiled

    @property
    def pattern(self) -> str:
        return self.source

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.search(string, pos, endpos)

    def match(self, string: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled.match(string, pos)

    def fullmatch(self, string: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled.fullmatch(string, pos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        return self.compiled.sub(repl, string, count)

    def subn(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> tuple[str, int]:
        return self.compiled.subn(repl, string, count)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        return self.compiled.split(string, maxsplit)

    def finditer(self, string: str, pos: int = 0) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string, pos)

    def findall(self, string: str, pos: int = 0) -> list[str]:
        return self.compiled.findall(string, pos)


def lazy(source: str, flags: int = 0) -> Pattern:
    return Pattern(source, flags)


class deferred:
    """Within the block (`with deferred(package):`), the patterns that the modules of `package`
    compile (`re.compile` called from the package's own module code, in this thread) are
    compiled when first used: a `Pattern` instead. For a library imported on a plan's path whose
    module code compiles patterns the plan may never use (PyYAML's pure-Python reader alone
    compiles a character class of all Unicode in 6 ms). Every other caller, and every other
    thread, gets `re.compile` as it is; it is put back when the block ends. The library must use
    what it compiled only through the methods `Pattern` forwards.

    One block runs at a time, process-wide: two threads that both import the library (a plan's
    worker threads reading YAML) would otherwise each put their own `re.compile` in place, and
    the library's import, run by one of them, would meet the other's and compile every pattern
    (PyYAML's all-Unicode class alone took 8 ms). The second waits; by then the library is
    imported, and nothing is compiled. A block within a block, in one thread, defers the
    patterns of both packages."""

    def __init__(self, package: str) -> None:
        self.package = package

    def __enter__(self) -> None:
        import re

        _ONE_AT_A_TIME.acquire()
        compile_now = self._compile_now = re.compile
        importing = _thread.get_ident()
        package, prefix = self.package, self.package + "."

        def compile_when_used(source: Any, flags: int = 0) -> Any:
            if isinstance(source, str) and _thread.get_ident() == importing:
                frame = sys._getframe(1)
                while frame.f_back is not None and _is_deferring(frame):  # an outer block's
                    frame = frame.f_back
                caller = frame.f_globals.get("__name__", "")
                if caller == package or caller.startswith(prefix):
                    return Pattern(source, flags)
            return compile_now(source, flags)

        re.compile = compile_when_used  # type: ignore[assignment]

    def __exit__(self, *exc: object) -> None:
        import re

        re.compile = self._compile_now
        _ONE_AT_A_TIME.release()


_ONE_AT_A_TIME = _thread.RLock()


def _is_deferring(frame: Any) -> bool:
    """The frame is another block's `compile_when_used`."""
    return bool(frame.f_code.co_name == "compile_when_used" and frame.f_globals.get("__name__") == __name__)


__all__ = ["Pattern", "deferred", "lazy"]
