"""The package's layers, as docs/ARCHITECTURE.md draws them: sources → parsed manifests → the
core → the model → the writers (`render/`) → the commands → the command line. The core says
what it found as facts and reads what the sources hand it (parsed documents, a
`live_snapshot.LiveSnapshot`), never a source itself; the writers word the plan and import
only the model, never the core that made it; the sources do I/O and import no core, writer or
command; `escape.py`, under everything that prints, imports nothing of the package but a
module that imports none of it. Read from the source's imports: those inside functions and
TYPE_CHECKING blocks count too, and no module may reach itself again through them."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import ROOT

PACKAGE = ROOT / "deployah_plan"


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _imports(path: Path) -> list[tuple[int, str]]:
    """Each module of the package `path` imports, by line: `from a.b import c` is `a.b.c` where
    that is a module, else `a.b`; relative imports are resolved."""
    here = _module(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            out += [(node.lineno, f"{module}.{a.name}" if f"{module}.{a.name}" in MODULES else module)
                    for a in node.names]
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
    return [(line, name) for line, name in out if name == "deployah_plan" or name.startswith("deployah_plan.")]


def _in(name: str, rooms: tuple[str, ...]) -> bool:
    return any(name == room or name.startswith(room + ".") for room in rooms)


def _crossing(rooms: tuple[str, ...], forbidden: tuple[str, ...]) -> list[str]:
    return [f"{path.relative_to(ROOT)}:{line} imports {name}"
            for module, path in MODULES.items() if _in(module, rooms)
            for line, name in _imports(path) if _in(name, forbidden)]


_P = "deployah_plan."


@pytest.mark.parametrize("rooms, forbidden", [
    # The core reads parsed documents and says facts: no source, release reader, writer,
    # command or command line, not even for a type.
    (("core",), ("sources", "release", "commands", "render", "cli", "command_line", "entry")),
    # The writers word the plan: the model, the facts and the codes, never the core.
    (("render",), ("core", "sources", "release", "commands", "cli", "command_line", "entry")),
    # The sources do I/O and hand back what they read.
    (("sources",), ("core", "render", "release", "commands", "cli", "command_line", "entry")),
    # The model, its constructor, the codes, the impact kinds, their facts and the live read's
    # record: under the core and the writers.
    (("model", "build", "codes", "facts", "impacts", "impact_facts", "live_snapshot", "redact", "crd_paths"),
     ("core", "render", "sources", "release", "commands", "planfile", "cli", "command_line", "entry")),
    # What a release command reads: sources and the core, never a writer or a command.
    (("release",), ("render", "commands", "cli", "command_line", "entry")),
    # The commands: never the command line that dispatches to them.
    (("commands",), ("cli", "command_line", "entry")),
    # The floor: the terminal (exit codes, stderr lines, escaping), the start-up tricks, the flag
    # table and its reading, under everything.
    (("console", "escape", "errors", "startup", "flags", "pflag", "helptext", "kinds", "pointer", "version",
      "progress"),
     ("core", "render", "sources", "release", "commands", "planfile", "model", "build", "codes", "facts", "impacts",
      "impact_facts", "live_snapshot", "redact", "crd_paths", "manifests", "yamlkube", "cli", "command_line",
      "entry")),
], ids=["core", "render", "sources", "model", "release", "commands", "floor"])
def test_a_layer_imports_only_what_is_below_it(rooms: tuple[str, ...], forbidden: tuple[str, ...]) -> None:
    assert _crossing(tuple(_P + r for r in rooms), tuple(_P + f for f in forbidden)) == []


def test_the_saved_plan_sits_beside_the_writers_and_its_reader_takes_no_words() -> None:
    """planfile/ reads the model (and the writer the words a document carries), never the core or
    a command; reading a saved plan back imports no writer and no words."""
    assert _crossing((_P + "planfile",), tuple(_P + f for f in ("core", "release", "commands", "cli", "command_line",
                                                                "entry"))) == []
    reader = [f"{name}:{line} imports {module}" for name in ("read", "schema")
              for line, module in _imports(MODULES[_P + "planfile." + name])
              if _in(module, (_P + "render", _P + "planfile.write"))]
    assert reader == []


def test_the_escape_module_sits_under_everything_that_prints() -> None:
    """Every stderr line and `scripts/ci-plan` use it; what it imports of the package (the
    pattern floor) imports nothing of the package itself."""
    below = {name for _, name in _imports(MODULES[_P + "escape"])}
    assert all(not _imports(MODULES[name]) for name in below), below


def _circles() -> set[frozenset[str]]:
    """The strongly connected groups of more than one module (Tarjan), and any module that
    imports itself."""
    graph = {m: {n for _, n in _imports(p) if n in MODULES} for m, p in MODULES.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: set[frozenset[str]] = set()

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph[node]:
                found.add(frozenset(group))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_no_module_reaches_itself_through_its_imports() -> None:
    assert _circles() == set()


def test_the_check_sees_what_it_must() -> None:
    """The reading itself: imports inside a function and relative ones are seen."""
    imports = {name for _, name in _imports(MODULES[_P + "release.api_target"])}
    assert {_P + "sources.api_server", _P + "core.compact_schema"} <= imports
    assert _P + "cli" in {name for _, name in _imports(MODULES[_P + "completion"])}
    assert len(MODULES) > 50 and _P + "escape" in MODULES


ROOM_LINES = 700  # a module past this holds more than one concept: split it along its seam


def test_no_module_outgrows_one_concept() -> None:
    grown = {module: lines for module, path in MODULES.items()
             if (lines := len(path.read_text().splitlines())) > ROOM_LINES}
    assert grown == {}
