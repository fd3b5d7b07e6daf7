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


def _stream(*docs: str) -> str:
    return "".join(f"---\n# Source: app/templates/{n}.yaml\n{d}\n" for n, d in enumerate(docs))


def test_the_render_with_the_previous_values_is_read_only_where_it_differs() -> None:
    from deployah_plan.commands.upgrade import _between_documents, _Render
    from deployah_plan.manifests import split_stream

    a, b = "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {x: '1'}}", "{apiVersion: v1, kind: ConfigMap, metadata: {name: b}}"
    desired = _stream(a, b)
    first = _Render(desired, split_stream(desired, "desired"))
    differing, unlike = _between_documents(causes.Between(Attribution.RENDERED, _stream(a.replace("'1'", "'0'"), b)), first)
    assert differing is not None and unlike is not None
    assert [d.obj["data"] for d in differing.resources] == [{"x": "0"}] and [d.obj["data"] for d in unlike.resources] == [{"x": "1"}]
    # A generateName object is known by its place in the stream: the render is read whole.
    named = _stream(a, "{apiVersion: batch/v1, kind: Job, metadata: {generateName: j-}}")
    whole, unlike = _between_documents(causes.Between(Attribution.RENDERED, named), first)
    assert whole is not None and len(whole.resources) == 2 and unlike is None


def _record(templates: dict[str, bytes], app_version: str = "1.0") -> dict[str, Any]:
    metadata = {"apiVersion": "v2", "name": "app", "version": "1.0.0", "appVersion": app_version, "deprecated": False,
                "keywords": [None], "sources": [None], "annotations": [None], "maintainers": [None],
                "dependencies": [None]}
    return {"chart": {"metadata": metadata, "schema": "",
                      "templates": [*({"name": n, "data": d.hex()} for n, d in templates.items()), None],
                      "files": [{"name": "README.md", "data": b"hi".hex()}, None]}}


def test_a_chart_is_the_stored_one_only_word_for_word(tmp_path: Any) -> None:
    import tarfile

    from deployah_plan.sources.chart import chart_files

    chart = tmp_path / "app"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: app\nversion: 1.0.0\nappVersion: '1.0'\n")
    (chart / "values.yaml").write_text("replicas: 1\n")
    (chart / "README.md").write_text("hi")
    (chart / "templates" / "cm.yaml").write_text("kind: ConfigMap\n")
    stored = _record({"templates/cm.yaml": b"kind: ConfigMap\n"})
    assert causes.same_chart(stored, chart_files(str(chart)), {"replicas": 1})
    package = tmp_path / "app-1.0.0.tgz"
    with tarfile.open(package, "w:gz") as archive:
        archive.add(chart, arcname="app")
    assert causes.same_chart(stored, chart_files(str(package)), {"replicas": 1})
    assert not causes.same_chart(stored, chart_files(str(chart)), {"replicas": 2})  # its values.yaml
    assert not causes.same_chart(_record({"templates/cm.yaml": b"kind: Secret\n"}), chart_files(str(chart)),
                                 {"replicas": 1})  # a template
    assert not causes.same_chart(_record({"templates/cm.yaml": b"kind: ConfigMap\n"}, app_version="2.0"),
                                 chart_files(str(chart)), {"replicas": 1})  # Chart.yaml
    (chart / "charts").mkdir()
    (chart / "charts" / "sub-1.0.0.tgz").write_bytes(b"")
    assert not causes.same_chart(stored, chart_files(str(chart)), {"replicas": 1})  # subcharts are not stored
