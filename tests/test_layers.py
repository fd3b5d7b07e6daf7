"""The package's layers, as docs/ARCHITECTURE.md draws them: the core says what it found as
facts and imports no writer; the writers word the plan and import only the model, never the
core that made it. Read from the source's imports (those inside functions and TYPE_CHECKING
blocks count too)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import ROOT

PACKAGE = ROOT / "deployah_plan"


def _imports(path: Path) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out += [(node.lineno, node.module)] + [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
    return out


def _crossing(room: str, forbidden: tuple[str, ...]) -> list[str]:
    return [f"{path.relative_to(ROOT)}:{line} imports {name}"
            for path in sorted((PACKAGE / room).rglob("*.py"))
            for line, name in _imports(path)
            if name.startswith(forbidden)]


@pytest.mark.parametrize("room, forbidden", [
    # The core reads parsed documents and says facts: no writer, command or source (a source's
    # record type only as a type, under TYPE_CHECKING, is the one exception and is named).
    ("core", ("deployah_plan.render", "deployah_plan.commands", "deployah_plan.cli")),
    # The writers word the plan: the model, the facts and the codes, never the core.
    ("render", ("deployah_plan.core", "deployah_plan.commands", "deployah_plan.sources", "deployah_plan.cli")),
])
def test_a_layer_imports_only_what_is_below_it(room: str, forbidden: tuple[str, ...]) -> None:
    assert _crossing(room, forbidden) == []


def test_the_model_imports_neither_the_core_nor_the_writers() -> None:
    model = [name for path in (PACKAGE / "model.py", PACKAGE / "facts.py", PACKAGE / "codes.py")
             for _, name in _imports(path)
             if name.startswith(("deployah_plan.core", "deployah_plan.render", "deployah_plan.commands"))]
    assert model == []


def test_the_saved_plan_sits_beside_the_writers_and_its_reader_takes_no_words() -> None:
    """planfile/ reads the model (and the writer the words a document carries), never the core or
    a command; reading a saved plan back imports no writer and no words."""
    assert _crossing("planfile", ("deployah_plan.core", "deployah_plan.commands", "deployah_plan.cli")) == []
    reader = [f"{name}:{line} imports {module}" for name in ("read.py", "schema.py")
              for line, module in _imports(PACKAGE / "planfile" / name)
              if module.startswith(("deployah_plan.render", "deployah_plan.planfile.write"))]
    assert reader == []
