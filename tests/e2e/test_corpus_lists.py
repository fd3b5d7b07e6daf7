"""Entries of atomic lists on a real chart of the corpus (issue 45 point 9): cilium's operator
ClusterRole gains one rule before a rule that loses three resources, and the plan shows exactly
that, not a rewritten rule and an added one. Read from the corpus through the tier's helpers
(tests/e2e/test_corpus.py), and skipped when the corpus or the chart is absent."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import json

import pytest

from e2e.test_corpus import CHARTS, CORPUS, NAMESPACE, TIMEOUT, Budget, _plan, _record, _store

pytestmark = [pytest.mark.e2e, pytest.mark.corpus]

CILIUM = [c for c in CHARTS if c.name == "cilium"]


@pytest.mark.skipif(not CILIUM, reason=f"no cilium chart in the corpus at {CORPUS}")
def test_cilium_operator_rules_show_one_rule_added_and_one_losing_three_resources(helm: Path, tmp_path: Path) -> None:
    (chart,) = CILIUM
    budget = Budget(TIMEOUT)
    store = _store(tmp_path / "releases.json", _record(helm, chart, tmp_path, budget))
    done = _plan(helm, store, budget, "upgrade", chart.name, str(chart.next), "-n", NAMESPACE, *chart.flags(),
                 "-o", "json")
    assert done.returncode == 0, done.stderr[-2000:]
    (change,) = [c for c in json.loads(done.stdout)["changes"]
                 if c["resource"]["kind"] == "ClusterRole" and c["resource"]["name"] == "cilium-operator"]
    (rules,) = [f for f in change["fields"] if f["path"] == "/rules"]
    assert (rules["op"], rules["parts_of"]) == ("replace", "entries")  # an atomic list, replaced whole
    parts: list[dict[str, Any]] = rules["parts"]
    (added,) = [p for p in parts if p["op"] == "add" and isinstance(p["after"], dict)]
    assert added["after"]["apiGroups"] == ["apiextensions.k8s.io"]
    assert added["after"]["resources"] == ["customresourcedefinitions/status"]
    assert added["after"]["verbs"] == ["update"]
    index = int(added["path"][1:])
    # Pointers count in the desired list: the added rule is found there, and nothing else of
    # the plan is said of it.
    assert rules["after"][index] == added["after"]
    assert not [p for p in parts if p["path"].startswith(f"/{index}/")]
    # The rule after it is the previous rule at the index before, losing three resources.
    (shrunk,) = [p for p in parts if p["path"] == f"/{index + 1}/resources"]
    assert rules["before"][index]["resources"] == shrunk["before"]
    assert rules["after"][index + 1]["resources"] == shrunk["after"]
    removed = [p["before"] for p in shrunk["parts"] if p["op"] == "remove"]
    assert removed == ["ciliumbgppeeringpolicies", "ciliumbgpclusterconfigs", "ciliumbgpnodeconfigoverrides"]
    assert [p["path"] for p in parts if p["path"].startswith(f"/{index + 1}/")] == [f"/{index + 1}/resources"]
