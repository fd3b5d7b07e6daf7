"""What the package ships and declares: the license, the typing marker, and a schema that lists
every warning code (`--fail-on warning:CODE` is only usable with the list)."""
from __future__ import annotations

import hashlib
import importlib.util
import json
import re
from pathlib import Path

import pytest

from conftest import ROOT
from deployah_plan.impacts import ImpactKind

_SPEC = importlib.util.spec_from_file_location("schema_tables", ROOT / "scripts" / "schema_tables.py")
assert _SPEC is not None and _SPEC.loader is not None
tables = importlib.util.module_from_spec(_SPEC)  # what scripts/gen-schema-codes writes
_SPEC.loader.exec_module(tables)

SCHEMA = json.loads((ROOT / "deployah_plan" / "schema" / "plan.schema.json").read_text())


def test_the_schema_lists_the_warning_codes_of_the_table() -> None:
    """The published list is the table's (codes.py), in its order, written by scripts/gen-schema-codes."""
    assert SCHEMA["$defs"]["warning_code"]["oneOf"] == tables.schema_codes(), "run scripts/gen-schema-codes"
    assert all(entry["description"] for entry in tables.schema_codes())
    assert SCHEMA["$defs"]["warning"]["properties"]["code"] == {"$ref": "#/$defs/warning_code"}


def test_the_schema_lists_the_impact_kinds_of_the_table() -> None:
    """impacts.ImpactKind is where an impact kind is declared; the schema lists the same, in order."""
    assert SCHEMA["$defs"]["impact"]["properties"]["kind"]["oneOf"] == tables.schema_impact_kinds(), "run scripts/gen-schema-codes"


def test_schema_id_is_the_one_the_docs_name() -> None:
    assert f"`{SCHEMA['$id']}`" in (ROOT / "docs" / "output.md").read_text()
    readme = (ROOT / "README.md").read_text()
    repository = re.match(r"https://raw\.githubusercontent\.com/([^/]+/[^/]+)/", SCHEMA["$id"])
    assert repository is not None
    assert f"helm plugin install https://github.com/{repository.group(1)}" in readme


def test_license_and_typing_marker() -> None:
    # The Apache License 2.0 text as the Apache Software Foundation publishes it (LICENSE-2.0.txt).
    digest = hashlib.sha256((ROOT / "LICENSE").read_bytes()).hexdigest()
    assert digest == "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"
    assert (ROOT / "deployah_plan" / "py.typed").is_file()
    tomllib = pytest.importorskip("tomllib", reason="tomllib comes with Python 3.11+")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["license"] == "Apache-2.0"
    assert project["project"]["license-files"] == ["LICENSE"]
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["deployah_plan"]
    (backend,) = project["build-system"]["requires"]
    assert re.fullmatch(r"setuptools>=\d+,<\d+", backend), "the build backend range is bounded"


def test_the_docs_list_the_codes_of_the_table() -> None:
    """docs/plan.md's table of warning codes is the code table's, written by scripts/gen-schema-codes."""
    text = (ROOT / "docs" / "plan.md").read_text()
    block = text.split(tables.CODES_BEGIN + "\n", 1)[1].split("\n" + tables.CODES_END, 1)[0]
    assert block == tables.codes_markdown_table(), "run scripts/gen-schema-codes"


def test_the_docs_list_the_impact_kinds_of_the_table() -> None:
    """docs/plan.md's table of impact kinds is ImpactKind's, written by scripts/gen-schema-codes."""
    text = (ROOT / "docs" / "plan.md").read_text()
    block = text.split(tables.IMPACTS_BEGIN + "\n", 1)[1].split("\n" + tables.IMPACTS_END, 1)[0]
    assert block == tables.impact_markdown_table(), "run scripts/gen-schema-codes"
    assert all(kind.says and kind.rests_on for kind in ImpactKind)


def test_the_schema_describes_each_codes_facts() -> None:
    """Each code's facts schema is the one its facts class gives (scripts/gen-schema-codes)."""
    by_code = tables.facts_schemas()
    assert {k[len("facts-"):]: v for k, v in SCHEMA["$defs"].items() if k.startswith("facts-")} == by_code
    conditions = SCHEMA["$defs"]["warning"]["allOf"]
    assert [c["if"]["properties"]["code"]["const"] for c in conditions] == list(by_code)



def test_the_version_is_written_in_one_place() -> None:
    """Issue 48 point 4: deployah_plan/__init__.py holds the version; pyproject.toml reads it
    from there, `helm plan version` says it, and plugin.yaml (which helm reads as text) repeats
    it. scripts/release moves it."""
    import deployah_plan
    from deployah_plan.version import version

    assert re.fullmatch(r"\d+\.\d+\.\d+", deployah_plan.__version__)
    plugin = re.findall(r'^version: "([^"]+)"$', (ROOT / "plugin.yaml").read_text(), re.MULTILINE)
    assert plugin == [deployah_plan.__version__], "plugin.yaml's version is __version__ (scripts/release moves both)"
    assert version() == deployah_plan.__version__
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert not re.search(r"^version\s*=", pyproject.split("[project]", 1)[1].split("\n[", 1)[0], re.MULTILINE)
    assert 'dynamic = ["version"]' in pyproject and 'version = {attr = "deployah_plan.__version__"}' in pyproject
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert "## [Unreleased]\n" in changelog
    released = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", changelog, re.MULTILINE)
    assert not released or released[0] == deployah_plan.__version__, "the newest release is the version the files carry"


def test_the_plugin_description_says_both_paths_the_plan_shows() -> None:
    """Issue 48 point 7: a field change is shown as a keyed path in text and markdown
    (`containers[name=web].image`) and as a JSON Pointer in JSON: helm plugin list's text says both."""
    import yaml

    description = " ".join(yaml.safe_load((ROOT / "plugin.yaml").read_text())["description"].split())
    assert "field-level changes as JSON Pointers and keyed paths" in description
    assert "spec.template.spec.containers[name=web].image" in (ROOT / "README.md").read_text()
