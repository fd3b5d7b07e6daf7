"""Values a chart makes anew on every render (core/regenerated.py): what is made at render time,
which documents of a second render are read, and how a generated name pairs its objects
(commands/upgrade.py). Planned with real helm: tests/e2e/test_regenerated.py."""
from __future__ import annotations

from typing import Any

from deployah_plan.commands.upgrade import _Render, _varying
from deployah_plan.core.regenerated import is_render_time
from deployah_plan.manifests import Rendered


def test_render_time() -> None:
    window = (1_700_000_000.0, 1_700_000_001.5)
    assert is_render_time("2023-11-14T22:13:20Z", window)
    assert is_render_time("2023-11-14 22:13:21.123456789 +0000 UTC m=+0.000123", window)  # `{{ now }}` as Go prints it
    assert is_render_time("2023-11-14T22:13:21.123456789+00:00", window) and is_render_time("2023-11-14T22:13:21.5Z", window)
    assert is_render_time("MjAyMy0xMS0xNFQyMjoxMzoyMFo=", window, secret=True)  # base64 of the first
    assert is_render_time(1_700_000_001, window) and is_render_time("1700000001", window)
    assert not is_render_time("2023-11-14T22:10:00Z", window)  # minutes before: a value, not `now`
    assert not is_render_time("2023-11-14T22:13:20Z", window, secret=True)  # not base64 of a time
    assert not is_render_time(True, window) and not is_render_time("hello", window)


def _stream(*documents: str) -> str:
    return "".join(f"---\n# Source: shop/templates/{i}.yaml\n{doc}" for i, doc in enumerate(documents))


def test_only_the_documents_a_second_render_changed_are_read_from_it() -> None:
    plain = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\ndata:\n  a: b\n"
    secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: {}\n"
    hook = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations: {{\"helm.sh/hook\": pre-upgrade}}\n"
            "spec:\n  template:\n    spec:\n      containers: [{{name: m, image: busybox, args: [{}]}}]\n")
    first = _Render(_stream(plain, secret.format("QUJD"), hook.format("x1")))
    again = _Render(_stream(plain, secret.format("WFla"), hook.format("x2")))
    varying = _varying(first, again)
    assert [d.obj["metadata"]["name"] for d in varying.resources] == ["db"]  # the ConfigMap is the same text
    assert varying.resources[0].obj["data"] == {"password": "WFla"} and varying.resources[0].source == "shop/templates/1.yaml"
    assert [d.obj["metadata"]["name"] for d in varying.hooks] == ["migrate"]
    assert _varying(first, first) == Rendered()
    # A stream that does not start with `---`, and a document split from it by a `---` with a comment.
    bare_first, bare_again = _Render(plain + "--- # next\n" + secret.format("QUJD")), _Render(plain + "---\n" + secret.format("WFla"))
    assert [d.obj["kind"] for d in _varying(bare_first, bare_again).resources] == ["Secret"]
    assert [d.obj["kind"] for d in _varying(_Render(""), bare_again).resources] == ["ConfigMap", "Secret"]
    # A server render's record is read whole: it has no stream to compare.
    record = Rendered(resources=varying.resources)
    assert _varying(first, _Render("", record)) is record


def test_pairing_a_generated_name_takes_only_the_objects_of_its_template() -> None:
    from deployah_plan.core.regenerated import pair_names
    from deployah_plan.manifests import split_stream
    from deployah_plan.model import ResourceRef

    def index(*named: tuple[str, str, str]) -> dict[tuple[str, str, str, str], tuple[ResourceRef, Any]]:
        text = "".join(f"---\n# Source: shop/templates/{source}.yaml\napiVersion: batch/v1\nkind: Job\nmetadata:\n"
                       f"  name: {name}\nspec: {{backoffLimit: {body}}}\n" for source, name, body in named)
        out = {}
        for doc in split_stream(text, "desired").resources:
            ref = ResourceRef("batch/v1", "Job", "shop", doc.obj["metadata"]["name"])
            out[ref.identity] = (ref, doc)
        return out

    # The seed template makes a static Job and one named anew; the second render holds only
    # what differs; the previous release had its own generated name, and a Job of another template.
    desired = index(("seed", "seed-static", "1"), ("seed", "seed-abcde", "2"), ("other", "other-fghij", "2"))
    again = index(("seed", "seed-klmno", "2"))
    previous = index(("seed", "seed-static", "1"), ("seed", "seed-pqrst", "2"), ("other", "other-uvwxy", "2"))
    again_keyed, previous_keyed = pair_names(previous, desired, again)
    key = ("batch", "Job", "shop", "seed-abcde")
    assert again_keyed[key][0].name == "seed-klmno"  # keyed as the desired render names it
    assert previous_keyed[key][0].name == "seed-pqrst"
    # Another template's object the second render did not vary is no generated name.
    assert ("batch", "Job", "shop", "other-uvwxy") in previous_keyed
    assert set(previous_keyed) == {key, ("batch", "Job", "shop", "seed-static"), ("batch", "Job", "shop", "other-uvwxy")}
    # Without a second render that names it differently, nothing is paired.
    assert pair_names(previous, desired, {}) == ({}, previous)


def test_a_created_object_says_which_of_its_values_the_chart_regenerates() -> None:
    """What verify leaves out of a create (issue 48 point 1): the fields the two renders make
    differently, and a value that is the render's time; never a value the inputs fixed."""
    from deployah_plan.core.regenerated import Renders, mark, mark_hooks
    from deployah_plan.model import Action, HookDefinition, ResourceChange, ResourceRef, TaskAction, TaskPhase, TaskPlan

    ref = ResourceRef("v1", "Secret", "shop", "db")
    after = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db", "annotations": {"a/b": "1"}},
             "data": {"password": "b25l", "user": "YWRtaW4=", "at": "MTcwMDAwMDAwMA=="}}
    again = {**after, "data": {**after["data"], "password": "dHdv"}}
    renders = Renders({ref.identity: again}, (1_700_000_000.0, 1_700_000_001.0))
    created = mark(ResourceChange(ref, Action.CREATE, None, after), renders)
    assert created.regenerated_paths == ("/data/at", "/data/password")
    updated = mark(ResourceChange(ref, Action.UPDATE, after, after), renders)
    assert updated.regenerated_paths == ()
    hook = HookDefinition(ref, TaskAction.CREATE, None, after)
    task = mark_hooks(TaskPlan("Secret shop/db", TaskPhase.PRE_DEPLOY, TaskAction.CREATE, ("pre-install",), 0, (),
                               definitions=(hook,)), renders)
    assert task.definitions[0].regenerated_paths == ("/data/at", "/data/password")
