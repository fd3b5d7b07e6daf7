"""The start-up tricks (deployah_plan/startup.py): patterns compiled when first used (a
module's own, `lazy`, and a library's compiled by its module code while it is imported,
`deferred`); modules run when first used (`Later`: a package binds one in its `from . import`,
and its code runs once, when one of its names is first asked for); and the NamedTuple of the
modules read before the first helm call (a class declared with it behaves as the same class
declared with typing's). That a plan compiles none of PyYAML's patterns: tests/e2e/test_startup.py."""
from __future__ import annotations

import pickle
import re
import sys
import threading
import time
import typing
from pathlib import Path
from typing import Any

import pytest

from deployah_plan import flags, pflag, startup
from deployah_plan.startup import Pattern, deferred, lazy


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


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A package `probe_pkg` whose `__init__` imports its module `extra`, which counts its runs."""
    root = tmp_path / "probe_pkg"
    root.mkdir()
    (root / "__init__.py").write_text("from . import extra\nRUNS = []\n")
    (root / "extra.py").write_text("import probe_pkg\nprobe_pkg.RUNS.append(1)\nVALUE = 42\n"
                                   "def double(n):\n    return 2 * n\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield root
    for name in [name for name in sys.modules if name.startswith("probe_pkg")]:
        del sys.modules[name]


def test_a_module_runs_when_a_name_of_it_is_first_asked_for(package: Path) -> None:
    sys.modules["probe_pkg.extra"] = startup.Later("probe_pkg.extra")
    import probe_pkg

    bound = probe_pkg.extra
    assert isinstance(bound, startup.Later) and probe_pkg.RUNS == []
    assert bound.VALUE == 42 and bound.double(2) == 4 and probe_pkg.RUNS == [1]
    real = sys.modules["probe_pkg.extra"]
    assert not isinstance(real, startup.Later) and real.double is bound.double
    from probe_pkg.extra import VALUE  # the real module from now on

    assert VALUE == 42 and probe_pkg.RUNS == [1]
    with pytest.raises(AttributeError):
        bound.missing


def test_the_msgspec_modules_are_left_as_they_are_once_msgspec_is_imported() -> None:
    import msgspec

    before = {name: sys.modules.get(name) for name in startup.MSGSPEC_EXTRAS}
    startup.msgspec_extras()
    assert {name: sys.modules.get(name) for name in startup.MSGSPEC_EXTRAS} == before
    assert msgspec.json.encode([1]) == b"[1]"


def _declare(base: Any) -> Any:
    class Point(base):  # type: ignore[misc, valid-type]
        """A point."""

        x: int
        y: int = 0
        label: str = "p"

        @property
        def norm(self) -> int:
            return abs(self.x) + abs(self.y)

        def moved(self, by: int) -> Any:
            return self._replace(x=self.x + by)
    return Point


def test_a_declared_class_is_typings_named_tuple_at_run_time() -> None:
    ours, theirs = _declare(startup.NamedTuple), _declare(typing.NamedTuple)
    for cls in (ours, theirs):
        assert cls._fields == ("x", "y", "label") and cls._field_defaults == {"y": 0, "label": "p"}
        assert cls.__doc__ == "A point." and cls.__name__ == "Point" and cls.__module__ == __name__
        assert list(cls.__annotations__) == ["x", "y", "label"]
        point = cls(3, label="q")
        assert tuple(point) == (3, 0, "q") and point.norm == 3 and point.moved(2) == cls(5, 0, "q")
        assert point == (3, 0, "q") and hash(point) == hash((3, 0, "q")) and isinstance(point, tuple)
        assert repr(point) == "Point(x=3, y=0, label='q')" and not hasattr(point, "__dict__")
        with pytest.raises(TypeError):
            cls()  # x has no default
        with pytest.raises(AttributeError):
            point.x = 1
    assert {ours(1), theirs(1)} == {ours(1)}  # equal by value, across the two


def test_a_field_without_a_default_after_one_with_a_default_is_refused_as_typing_refuses_it() -> None:
    for base in (startup.NamedTuple, typing.NamedTuple):
        with pytest.raises(TypeError):
            class Bad(base):  # type: ignore[misc, valid-type]
                a: int = 1
                b: int


def test_the_flag_table_is_made_of_them() -> None:
    assert flags.OUTPUT.long == "--output" and flags.CONTEXT._replace(into="diff").into == "diff"
    assert flags.UPGRADE[0] == flags.UPGRADE[0]._replace() and len(set(flags.UPGRADE)) == len(flags.UPGRADE)
    assert pickle.loads(pickle.dumps(flags.AtLeast(3))) == flags.AtLeast(3)
    assert pflag.Given(flags.OUTPUT, "json").value == "json"
