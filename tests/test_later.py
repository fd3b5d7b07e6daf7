"""Modules run when first used (later.py): a package binds one in its `from . import`, and its
code runs once, when one of its names is first asked for."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from deployah_plan import later


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
    sys.modules["probe_pkg.extra"] = later.Later("probe_pkg.extra")
    import probe_pkg

    bound = probe_pkg.extra
    assert isinstance(bound, later.Later) and probe_pkg.RUNS == []
    assert bound.VALUE == 42 and bound.double(2) == 4 and probe_pkg.RUNS == [1]
    real = sys.modules["probe_pkg.extra"]
    assert not isinstance(real, later.Later) and real.double is bound.double
    from probe_pkg.extra import VALUE  # the real module from now on

    assert VALUE == 42 and probe_pkg.RUNS == [1]
    with pytest.raises(AttributeError):
        bound.missing


def test_the_msgspec_modules_are_left_as_they_are_once_msgspec_is_imported() -> None:
    import msgspec

    before = {name: sys.modules.get(name) for name in later.MSGSPEC_EXTRAS}
    later.msgspec_extras()
    assert {name: sys.modules.get(name) for name in later.MSGSPEC_EXTRAS} == before
    assert msgspec.json.encode([1]) == b"[1]"
