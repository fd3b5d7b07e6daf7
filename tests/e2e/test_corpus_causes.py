"""Why each change on a real chart pair from the corpus (core/causes.py), with a values change on
top of the chart upgrade: metrics-server's two newest packages, `--set replicas=3`.

The causes are checked against helm's own renders, split here without the planner: the release
as the older package made it (P), the newer package with the release's values (B), and with the
new values too (D). A field the plan changes is the chart's when its value differs between P and
B, the values' when it differs between B and D, both when it differs in both; fields inside
lists are left out (their index counts in D's list, which B may order otherwise). A create is
the chart's when B has the object; a delete, when B lacks it. Skipped without the corpus
(tests/e2e/test_corpus.py says where it is looked for)."""
from __future__ import annotations

import json
import tarfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from e2e.test_corpus import (
    CHARTS, NAMESPACE, TIMEOUT, Budget, _documents, _helm, _identity, _plan, _record, _store,
)

pytestmark = [pytest.mark.e2e, pytest.mark.corpus]

CHART = "metrics-server"


def _at(obj: Any, path: str) -> Any:
    for token in path.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if not isinstance(obj, dict) or token not in obj:
            return None
        obj = obj[token]
    return obj


def _objects(rendered: str) -> dict[tuple[str, str, str, str], dict[str, Any]]:
    return {_identity(obj): obj for _, obj in _documents(rendered)}


def _expected(before: Any, between: Any, after: Any) -> str | None:
    chart, values = before != between, between != after
    return "both" if chart and values else "chart" if chart else "values" if values else None


def test_a_corpus_chart_upgrade_with_a_values_change_on_top(helm4: Path, tmp_path: Path) -> None:
    chart = next((c for c in CHARTS if c.name == CHART), None)
    if chart is None:
        pytest.skip(f"no corpus with {CHART} (tests/e2e/test_corpus.py)")
    budget = Budget(TIMEOUT)
    record = _record(helm4, chart, tmp_path, budget)
    store = _store(tmp_path / "store.json", record)
    done = _plan(helm4, store, budget, "upgrade", chart.name, str(chart.next), "-n", NAMESPACE, *chart.flags(),
                 "--set", "replicas=3", "-o", "json")
    assert done.returncode == 0, done.stderr[-2000:]
    doc = json.loads(done.stdout)
    assert doc["attribution"] == "rendered"

    previous = tmp_path / "previous-values.json"
    previous.write_text(json.dumps(record.get("config") or {}))
    empty = _store(tmp_path / "empty.json", None)
    render = ["template", chart.name, str(chart.next), "-n", NAMESPACE, "--include-crds", "-f", str(previous)]
    stored = _objects(record["manifest"])
    between = _objects(_helm(helm4, empty, budget, *render))
    desired = _objects(_helm(helm4, empty, budget, *render, "--set", "replicas=3"))

    checked: list[tuple[str, str, str | None]] = []
    for change in doc["changes"]:
        ref = change["resource"]
        ident = (ref["api_version"].rpartition("/")[0], ref["kind"], ref["namespace"], ref["name"])
        if change["action"] == "create":
            assert change.get("cause") in ({"chart", "both"} if ident in between else {"values"}), ident
            continue
        if change["action"] == "delete":
            assert change.get("cause") == ("values" if ident in between else "chart"), ident
            continue
        for field in change["fields"]:
            if field.get("regenerated") or any(t.isdigit() for t in field["path"].split("/")):
                continue
            path = field["path"]
            expected = _expected(_at(stored[ident], path), _at(between[ident], path), _at(desired[ident], path))
            assert field.get("cause") == expected, (ident, path, field.get("cause"), expected)
            checked.append((ref["kind"], path, expected))
    assert ("Deployment", "/spec/replicas", "values") in checked
    assert any(cause == "chart" for _, _, cause in checked), checked  # the chart upgrade moved fields too

    # Each chart default listed differs between the two packages' values.yaml, and the user set
    # no part of it (the release's values, and replicas).
    def defaults(package: Path) -> dict[str, Any]:
        with tarfile.open(package) as archive:
            handle = archive.extractfile(f"{CHART}/values.yaml")
            assert handle is not None
            return dict(yaml.safe_load(handle.read()))
    old, new = defaults(chart.prev), defaults(chart.next)
    user = {".".join(k) for k in _keys(record.get("config") or {})} | {"replicas"}
    assert doc["chart_defaults"], "the two packages' defaults differ"
    for item in doc["chart_defaults"]:
        key = item["key"]
        assert not any(key == u or key.startswith(u + ".") or u.startswith(key + ".") for u in user), key
        masked = [isinstance(v, dict) and v.get("sensitive") is True for v in (item["before"], item["after"])]
        for side, value, hidden in zip((old, new), (item["before"], item["after"]), masked):
            assert hidden or _dotted(side, key) == value, item
        assert item["before"] != item["after"] or item["op"] != "replace"
        # An object named is one the chart alone moved from the old default to the new (point 2).
        for moved in item["moved"]:
            change = next(c for c in doc["changes"] if c["resource"] == moved)
            assert any(f.get("cause") == "chart" and f.get("before") == item["before"] and f.get("after") == item["after"]
                       for f in change["fields"]), (key, moved)


def _keys(values: Any, at: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    if isinstance(values, dict) and values:
        return [k for name, value in values.items() for k in _keys(value, (*at, name))]
    return [at] if at else []


def _dotted(values: Any, key: str) -> Any:
    for part in key.split("."):
        if not isinstance(values, dict):
            return None
        values = values.get(part)
    return values
