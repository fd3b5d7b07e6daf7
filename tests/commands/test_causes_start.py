"""What the attribution reads (commands/causes.py `start`): nothing more when the values do not
change, no render when the chart is the release's own, the defaults only beside a render."""
from __future__ import annotations

from typing import Any

from deployah_plan.commands import causes
from deployah_plan.model import Attribution
from deployah_plan.sources.helm import ReleaseState, StoredRelease
from deployah_plan.sources.workers import workers

STORED = StoredRelease("app", "shop", 1, "deployed", "app", "1.0.0", "", "", values={"tag": "1"})


def _started(request: causes.Request, same: bool = False) -> tuple[causes.Between, list[str]]:
    asked: list[str] = []

    def note(what: str, value: Any) -> Any:
        asked.append(what)
        return value

    reads = causes.Reads(values=lambda stored: note("values", {}), render=lambda values: note("render", ("", None)),
                         old_defaults=lambda stored: note("old defaults", {"a": 1}),
                         new_defaults=lambda: note("new defaults", "a: 2\n"),
                         same_chart=lambda stored: note("same chart", same))
    with workers(4) as pool:
        state = pool.submit(lambda: ReleaseState(STORED, 1))
        found = causes.start(pool, state, request, reads).result()
    return found, sorted(asked)


def test_values_unchanged_read_no_defaults_and_render_nothing() -> None:
    # Issue 49 (e): with no values change everything is the chart's, said once: the two charts'
    # defaults are neither read nor decoded.
    found, asked = _started(causes.Request(values_given=False, reset_values=False, stored_chart=False,
                                           chart=("app", "2.0.0")))
    assert found == causes.Between(Attribution.CHART) and asked == []


def test_the_same_chart_renders_nothing_and_a_new_one_renders_beside_its_defaults() -> None:
    given = causes.Request(values_given=True, reset_values=False, stored_chart=False, sets=("tag=2",),
                           chart=("app", "1.0.0"))
    found, asked = _started(given, same=True)
    assert found.attribution is Attribution.VALUES and asked == ["same chart"]
    found, asked = _started(given, same=False)  # the same version, its files edited: rendered
    assert found.attribution is Attribution.RENDERED and asked == ["render", "same chart"]
    found, asked = _started(causes.Request(values_given=True, reset_values=False, stored_chart=False, sets=("tag=2",),
                                           chart=("app", "2.0.0")))
    assert found.attribution is Attribution.RENDERED and asked == ["new defaults", "old defaults", "render"]
    assert found.defaults is not None and found.defaults.after == {"a": 2}
