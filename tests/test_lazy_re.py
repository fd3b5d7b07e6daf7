"""Patterns compiled when first used (lazy_re.py): a module's own (`lazy`), and a library's
compiled by its module code while it is imported (`deferred`)."""
from __future__ import annotations

import re
import threading
import time

import pytest

from deployah_plan.lazy_re import Pattern, deferred, lazy


def _module_code(name: str, code: str) -> dict[str, object]:
    """Run `code` as the module code of a module named `name`; its globals."""
    space: dict[str, object] = {"__name__": name}
    exec(compile(code, f"<{name}>", "exec"), space)
    return space


def test_a_lazy_pattern_matches_as_the_compiled_one() -> None:
    pattern = lazy(r"(a+)(b)?", re.I)
    assert pattern.pattern == "(a+)(b)?" and pattern._compiled is None
    assert pattern.match("AAb").groups() == ("AA", "b")  # type: ignore[union-attr]
    assert pattern.compiled is re.compile(r"(a+)(b)?", re.I)
    assert pattern.sub("x", "caab") == "cx" and pattern.split("zaaz") == ["z", "aa", None, "z"]


def test_a_package_s_module_code_compiles_its_patterns_when_first_used() -> None:
    compile_now = re.compile
    others: list[object] = []
    with deferred("library"):
        inside = _module_code("library.reader", "import re\nP = re.compile('[^a-z]', re.I)\n")
        top = _module_code("library", "import re\nP = re.compile('x')\n")
        beside = _module_code("libraryx", "import re\nP = re.compile('x')\n")  # another package
        mine = re.compile("y")  # the caller is not the package
        thread = threading.Thread(target=lambda: others.append(
            _module_code("library.other", "import re\nP = re.compile('z')\n")["P"]))
        thread.start()
        thread.join()
    assert re.compile is compile_now
    pattern = inside["P"]
    assert isinstance(pattern, Pattern) and pattern._compiled is None and isinstance(top["P"], Pattern)
    assert pattern.search("abc1") and pattern.search("1").group() == "1" and not pattern.search("ABC")  # type: ignore[union-attr]
    assert isinstance(beside["P"], re.Pattern) and isinstance(mine, re.Pattern)
    assert isinstance(others[0], re.Pattern)  # another thread compiles as ever


def test_blocks_in_two_threads_at_once_still_defer_the_library_s_patterns() -> None:
    """A plan's worker threads may both import PyYAML: the second block waits for the first, so
    neither thread's module code gets a compiled pattern, and `re.compile` is put back once both
    have ended, whichever ends first."""
    compile_now = re.compile
    found: dict[str, object] = {}
    first_in, second_starting = threading.Event(), threading.Event()

    def first() -> None:
        with deferred("library"):
            first_in.set()
            second_starting.wait(5)
            time.sleep(0.1)  # the second thread is at its block by now
            found["first"] = _module_code("library.a", "import re\nP = re.compile('a')\n")["P"]

    def second() -> None:
        first_in.wait(5)
        second_starting.set()
        with deferred("library"):
            time.sleep(0.2)  # the first block ends meanwhile, if it was not waited for
            found["second"] = _module_code("library.b", "import re\nP = re.compile('b')\n")["P"]
    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert isinstance(found["first"], Pattern) and isinstance(found["second"], Pattern)
    assert re.compile is compile_now
    # A block within a block, in one thread: both packages' patterns are deferred.
    with deferred("outer"):
        with deferred("library"):
            inner = _module_code("library.c", "import re\nP = re.compile('c')\n")["P"]
            outer = _module_code("outer.d", "import re\nP = re.compile('d')\n")["P"]
    assert isinstance(inner, Pattern) and isinstance(outer, Pattern) and re.compile is compile_now


def test_re_compile_is_put_back_whatever_ends_the_block() -> None:
    compile_now = re.compile
    with pytest.raises(ImportError):
        with deferred("library"):
            raise ImportError("no such module")
    assert re.compile is compile_now
