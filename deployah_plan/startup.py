"""The tricks that make a plan start sooner, in one place.

Each bends how Python or a library normally works, so each stays only while
`scripts/bench --tricks` shows that undoing it costs a plan time a user can see; the figure of
each is on docs/performance.md ("Tricks"), measured with and without it in alternating runs.
This module is read before a plan's first helm call (flags.py, pflag.py, entry.py): it imports
nothing the early start does not import already (no typing, no threading, no importlib until a
`Later` module is used).

- `lazy(source)`: a module's regular expression, compiled when first used rather than when the
  module is imported; most inputs need few of a plan's patterns. Safe: `Pattern` forwards the
  methods helm plan calls to the pattern `re` compiles, once. Used by every module that keeps a
  pattern. Held by tests/test_command_line.py (no module compiles one at import) and
  tests/test_startup.py.
- `deferred(package)`: while PyYAML is imported (yamlkube.py `pyyaml`), `re.compile` called
  from its own module code gives a `Pattern`: the patterns of its pure-Python reader, resolver
  and constructor (one a character class of all Unicode) are compiled when first used, and
  libyaml's parser, which a plan reads with, uses none. Safe: only calls from that package's
  module code, in the importing thread, are deferred; one block runs at a time; `re.compile`
  is put back when the block ends, whatever ends it. Held by tests/test_startup.py (a plan
  compiles none of PyYAML's patterns, and PyYAML still reads with them).
- `msgspec_extras()`: msgspec's json, msgpack, toml, yaml and inspect modules (and through them
  textwrap and its JSON Schema code), which a plan does not use, put in `sys.modules` as `Later`
  modules before msgspec is imported: each runs the first time one of its names is asked for
  (`helm plan schema`, reading a saved plan). Safe: msgspec's own `from . import json` binds
  the `Later`, which answers as the module does once run. Called by the entry point (entry.py
  `command`). Held by tests/test_startup.py.
- `NamedTuple`: typing's NamedTuple made without importing typing (typing brings `re`,
  contextlib and warnings), for the flag table read before the first helm call (flags.py,
  pflag.py); to mypy it is typing's own. It saves time only while nothing else on the way to
  the first helm call imports typing: entry.py imports it only for the type checker. Held by
  tests/test_startup.py (a class declared with it behaves as one declared with typing's) and
  tests/e2e/test_early.py (none of typing, re and the rest is imported before the first calls).
- PyYAML imported by the first YAML load, not with yamlkube.py, whose parser and node types
  are module globals bound then (yamlkube.py `_bind`; kept there, as the loader's inner loops
  read them as globals): a plan whose helm calls start after the imports (a chart from a
  repository, a flag the early start does not take) starts them sooner, and a command that
  reads no YAML (`helm plan show` of a JSON plan) imports none. Held by tests/test_yamlkube.py
  (binding again).
- `collector_off()`: the cyclic garbage collector off for the whole process (entry.py `run`):
  a command is one short process whose objects reference counting frees, and the collector's
  passes walked the classes and functions the imports make, and the parsed manifests, again
  and again for nothing. Safe: what a cycle holds is freed when the process ends.
- `end_now(code)`: the process ends once its output is flushed (entry.py `run`), without
  Python's teardown, which frees every module and object one by one. Safe: every `with`
  block has run by then (temporary folders removed, helm processes waited for, --out
  written) and helm plan registers no exit handlers; a worker thread still blocked in a
  socket read is not waited for (sources/workers.py). Held by tests/e2e/test_command_line.py (a
  plan ends through `os._exit`) and tests/e2e/test_signals.py (a plan stopped while a worker waits
  on a silent API server ends at once).

Not a trick for speed, and so not here: the signal handler's `os._exit` (sources/early.py
`HelmCalls.interrupt`), which ends the process at a second SIGTERM or Ctrl-C, once the helm
processes are ended (tests/e2e/test_signals.py).
"""
from __future__ import annotations

import _thread
import gc
import os
import sys
import types
from collections import namedtuple

TYPE_CHECKING = False  # typing's own is not imported: this module is read before the first helm call
if TYPE_CHECKING:
    import re
    from typing import Any, Callable, Iterator, NoReturn


# --- Regular expressions compiled when first used ----------------------------------------------

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
    """Where `re.compile(source, flags)` stood in a module's code."""
    return Pattern(source, flags)


class deferred:
    """Within the block (`with deferred(package):`), the patterns that the modules of `package`
    compile (`re.compile` called from the package's own module code, in this thread) are
    compiled when first used: a `Pattern` instead. Every other caller, and every other
    thread, gets `re.compile` as it is; it is put back when the block ends. The library must use
    what it compiled only through the methods `Pattern` forwards.

    One block runs at a time, process-wide: two threads that both import the library (a plan's
    worker threads reading YAML) would otherwise each put their own `re.compile` in place, and
    the library's import, run by one of them, would meet the other's and compile every pattern.
    The second waits; by then the library is imported, and nothing is compiled. A block within a
    block, in one thread, defers the patterns of both packages."""

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


# --- Library modules run when first used -------------------------------------------------------

_LOADING = _thread.allocate_lock()
MSGSPEC_EXTRAS = ("msgspec.inspect", "msgspec.json", "msgspec.msgpack", "msgspec.toml", "msgspec.yaml")


class Later(types.ModuleType):
    """A module whose code runs the first time one of its names is asked for: then the real
    module is imported and its names copied here, so both answer the same. Put in `sys.modules`
    before its package is imported, it is what the package's own `from . import name` binds."""

    def __getattr__(self, name: str) -> Any:
        if name == "__path__":  # a module, not a package: asked by the import system
            raise AttributeError(name)
        return getattr(self.load(), name)

    def load(self) -> types.ModuleType:
        import importlib

        with _LOADING:
            if sys.modules.get(self.__name__) is self:
                del sys.modules[self.__name__]
            real = importlib.import_module(self.__name__)
        self.__dict__.update(real.__dict__)
        return real


def msgspec_extras() -> None:
    """msgspec's modules that a plan does not use, run when first used (see the module's
    docstring); where msgspec is already imported it does nothing."""
    if "msgspec" in sys.modules:
        return
    for name in MSGSPEC_EXTRAS:
        sys.modules.setdefault(name, Later(name))


# --- typing's NamedTuple without typing --------------------------------------------------------

class _Declared(type):
    """A class declared `class Flag(NamedTuple)` with annotated fields and defaults, made the way
    typing makes it: a `collections.namedtuple` with the class's methods and docstring. Only
    what flags.py and pflag.py use: fields with annotations, defaults after the fields without
    one, methods and properties; `_replace`, `_fields`, equality and hashing by value are
    collections.namedtuple's."""

    def __new__(mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> Any:
        if not bases:  # NamedTuple itself
            return super().__new__(mcls, name, bases, namespace)
        fields = list(namespace.get("__annotations__", {}))
        defaults = [namespace[field] for field in fields if field in namespace]
        if any(field in namespace for field in fields[:len(fields) - len(defaults)]):
            raise TypeError(f"{name}: a field without a default follows one with a default")
        made = namedtuple(name, fields, defaults=defaults, module=namespace.get("__module__"))  # type: ignore[misc]
        for key, value in namespace.items():
            if key not in fields and key not in ("__annotations__", "__module__", "__dict__", "__weakref__"):
                setattr(made, key, value)
        made.__annotations__ = dict(namespace.get("__annotations__", {}))
        return made


class NamedTuple(metaclass=_Declared):
    """Subclass it as typing.NamedTuple, under `if not TYPE_CHECKING` (see `_Declared`)."""


# --- The process ---------------------------------------------------------------------------------

def collector_off() -> None:
    """The cyclic garbage collector off for the rest of the process (see the module's docstring)."""
    gc.disable()


def end_now(code: int) -> NoReturn:
    """End the process with `code` at once, without Python's teardown: the caller has flushed
    what it wrote and left every `with` block (see the module's docstring)."""
    os._exit(code)


__all__ = ["Later", "MSGSPEC_EXTRAS", "NamedTuple", "Pattern", "collector_off", "deferred", "end_now", "lazy",
           "msgspec_extras"]
