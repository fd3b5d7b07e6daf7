"""Hostile input: never a hang, never an "internal error", one reader for every input file.

One regression test per class of input a fuzz campaign found breaking the promise "a plan, or
one line that says what is wrong and what to do next". The property test over all of them is
tests/test_hostile_property.py. Work is checked by counting, not by timing.
"""
from __future__ import annotations

import json

import pytest

from conftest import ROOT
from deployah_plan.core import renames
from deployah_plan.manifests import split_stream
from deployah_plan.render import markdown
from deployah_plan.yamlkube import load_all

CM = "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata: {data}\n"


# 1. Quantities are compared as mantissa and scale, never expanded.


# 2. The likely-rename pairing does linear work.

def test_two_thousand_renamed_config_maps_pair_with_bounded_work(monkeypatch: pytest.MonkeyPatch) -> None:
    previous = split_stream("".join(CM.format(name=f"c{i}", data=json.dumps({"k": f"v{i}", "x": "same"})) for i in range(2000)), "p")
    desired = split_stream("".join(CM.format(name=f"d{i}", data=json.dumps({"k": f"v{i}", "x": "same"})) for i in range(2000)), "d")
    compared: list[int] = []
    real = renames._link_bucket

    def counting(olds, news, linked, budget):  # type: ignore[no-untyped-def]
        start = budget[0]
        real(olds, news, linked, budget)
        compared.append(start - budget[0])
    monkeypatch.setattr(renames, "_link_bucket", counting)
    from deployah_plan.core.planner import PlanRequest, make_plan
    from deployah_plan.model import Header
    plan = make_plan(PlanRequest(Header(release="r", namespace="default"), previous, desired, 3))
    links = {c.resource.name: c.likely_rename.name for c in plan.changes if c.likely_rename}
    assert len(links) == 4000 and links["d7"] == "c7" and links["c1999"] == "d1999"
    assert compared == [0]  # equal content pairs by digest: no pair is scored at all


def test_look_alike_renames_are_scored_against_a_bounded_number_of_candidates(monkeypatch: pytest.MonkeyPatch) -> None:
    base = {f"f{n}": "same" for n in range(8)}
    previous = split_stream("".join(CM.format(name=f"c{i}", data=json.dumps({**base, "k": f"v{i}", "j": "old"})) for i in range(1500)), "p")
    desired = split_stream("".join(CM.format(name=f"d{i}", data=json.dumps({**base, "k": f"v{i}", "j": "new"})) for i in range(1500)), "d")
    from deployah_plan.core.planner import PlanRequest, make_plan
    from deployah_plan.model import Header
    scored = []
    real = renames._take_best
    monkeypatch.setattr(renames, "_take_best", lambda pairs, linked: (scored.append(len(pairs)), real(pairs, linked)))
    plan = make_plan(PlanRequest(Header(release="r", namespace="default"), previous, desired, 3))
    links = {c.resource.name: c.likely_rename.name for c in plan.changes if c.likely_rename}
    assert links["d5"] == "c5" and len(links) == 3000
    assert scored and scored[0] <= 1500 * renames._RENAME_CANDIDATES  # not 1500 x 1500


# 3. Markdown with thousands of warnings is cut in linear work and stays under the cap.


# 4. Integers past Python's 4,300-digit conversion limit.

@pytest.mark.parametrize("text", ["9" * 5000, "-" + "9" * 5000, "0b" + "1" * 5000, "0x" + "f" * 5000, "1e999"])
def test_numbers_out_of_range_stay_text_as_go_yaml_keeps_them(text: str) -> None:
    # strconv.ParseInt, ParseUint and ParseFloat all fail out of range, and go-yaml v2 then
    # keeps the scalar as a string; no int() is asked to read 5,000 digits.
    (doc,) = load_all(f"v: {text}\n")
    assert doc.value["v"] == text


# 5. Deep nesting: refused with a clear error, never a RecursionError.


# 6. Non-UTF-8 bytes, directories, devices and stdin: one reader, one policy.


# 7. A Secret whose data is not a map next to stringData.


# 8. A CRD whose spec is not a map.


# 9. Two objects with generateName: two creates.


# 10. A full stdout, and an endless input.


# 11. A saved plan is input: checked against the schema before it is trusted.


def test_the_schema_uses_only_keywords_the_checker_knows() -> None:
    from deployah_plan.planfile.schema import KNOWN_KEYWORDS, schema

    def keywords(node: object, inside_properties: bool = False) -> set[str]:
        found: set[str] = set()
        if isinstance(node, dict):
            for key, value in node.items():
                if not inside_properties:
                    found.add(key)
                found |= keywords(value, key in ("properties", "$defs") and not inside_properties)
        elif isinstance(node, list):
            for value in node:
                found |= keywords(value)
        return found
    assert keywords(schema()) <= KNOWN_KEYWORDS


# 12. Long names: refused as Helm refuses them, and never past the markdown cap.


def test_markdown_header_lines_are_clipped() -> None:
    from deployah_plan.build import build_plan
    from deployah_plan.model import Header, HelmAction
    plan = build_plan(Header(release="r" * 120_000, namespace="n" * 120_000, kube_context="c" * 120_000), HelmAction.NONE, [], [], [], [])
    assert len(markdown.render(plan)) < markdown.CAP


# 13. Control characters in names never reach the terminal raw.


# From the code review.


def test_the_live_reader_and_the_cluster_module_do_not_import_each_other() -> None:
    for module in ("cluster", "cluster_reader"):
        text = (ROOT / "deployah_plan" / "sources" / f"{module}.py").read_text()
        other = "cluster_reader" if module == "cluster" else "cluster"
        top = [line for line in text.splitlines() if line.startswith(("from ", "import "))]
        assert not any(line.endswith(f"sources.{other}") or f"sources.{other} import" in line for line in top), module
    from deployah_plan.model import LiveGap
    from deployah_plan import live_snapshot
    from deployah_plan.sources import cluster
    assert cluster.LiveSnapshot is live_snapshot.LiveSnapshot and not hasattr(cluster, "Unreadable")
    assert live_snapshot.LiveSnapshot.__annotations__["unreadable"] == "tuple[LiveGap, ...]" and LiveGap


def test_markdown_escapes_control_characters_in_server_messages() -> None:
    from deployah_plan.facts import ApiKind, KindsNotChecked
    from deployah_plan.build import build_plan
    from deployah_plan.model import Header, HelmAction, warn
    message = "forbidden: \x1b[2J\x1b]8;;http://evil\x07click\u202e"  # as a server's Status message may say
    plan = build_plan(Header(release="r", namespace="n"), HelmAction.NONE,
                      warnings=[warn(KindsNotChecked(kinds=(ApiKind(message, "v1"),)))])
    out = markdown.render(plan)
    assert not any(c in out for c in "\x1b\x07\u202e") and "forbidden: \\\\x1b\\[2J" in out
