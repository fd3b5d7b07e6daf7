"""Metadata of every shape, as a property (hypothesis): `metadata`, `metadata.labels` and
`metadata.annotations` of the previous, desired and live documents as a scalar of each type, a
list, or a map whose values have any type, through `helm plan diff` in this process
(`cli.main`, no helm), with the readers of those fields in play (Secret redaction, ignore rules
that select by label and annotation, impact, ownership and drift against a live state, tasks,
hooks), for each output format.

The command plans or refuses in one line (exit 1, nothing on standard output), never
"internal error"; and a desired object the deploy sends (created or changed) whose labels or
annotations are not a map is never planned in silence: the JSON plan names the field, as the
API server refuses the object.
"""
from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings, strategies as st

from deployah_plan import cli
from deployah_plan.render.writers import FORMATS

_KEYS = ["app", "kubectl.kubernetes.io/last-applied-configuration", "helm.sh/hook", "helm.sh/resource-policy",
         "meta.helm.sh/release-name", "meta.helm.sh/release-namespace", "deployah.dev/task",
         "storageclass.kubernetes.io/is-default-class", "helm.sh/hook-delete-policy"]
_scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, allow_infinity=False),
                     st.sampled_from(["", "x", "keep", "release", "true", "pre-install", "{}", "[1]", "\x1b[2J", "a\nb"]))
_leaves = st.one_of(_scalars, st.lists(_scalars, max_size=2), st.dictionaries(st.sampled_from(_KEYS), _scalars, max_size=2))
_shapes = st.one_of(_scalars, st.lists(_leaves, max_size=3), st.dictionaries(st.sampled_from(_KEYS), _leaves, max_size=4))
_KINDS = [("v1", "Secret"), ("v1", "ConfigMap"), ("apps/v1", "Deployment"), ("batch/v1", "Job"),
          ("storage.k8s.io/v1", "StorageClass"), ("example.com/v1", "Widget")]


@st.composite
def _document(draw: st.DrawFn, name: str) -> dict[str, Any]:
    api_version, kind = draw(st.sampled_from(_KINDS))
    metadata: dict[str, Any] = {"name": name}
    for key in draw(st.lists(st.sampled_from(["labels", "annotations"]), max_size=2, unique=True)):
        metadata[key] = draw(_shapes)
    obj: dict[str, Any] = {"apiVersion": api_version, "kind": kind, "metadata": metadata}
    if kind == "Secret":
        obj["data"] = {"a": draw(st.sampled_from(["YQ==", "Yg=="]))}
    elif kind == "Deployment":
        obj["spec"] = {"selector": {"matchLabels": {"app": "web"}},
                       "template": {"metadata": {"labels": draw(_shapes)}, "spec": {"containers": [{"name": "c"}]}}}
    elif kind == "StorageClass":
        obj["provisioner"] = "p"
    else:
        obj["data" if kind != "Job" else "spec"] = {"k": draw(st.sampled_from(["1", "2"]))}
    return obj


def _stream(objects: list[dict[str, Any]]) -> str:
    return "".join("---\n" + json.dumps(o) + "\n" for o in objects)


def _not_a_map(obj: dict[str, Any]) -> list[str]:
    """The metadata fields of a desired object that are neither absent, null nor a map."""
    return [key for key in ("labels", "annotations")
            if key in obj["metadata"] and obj["metadata"][key] is not None and not isinstance(obj["metadata"][key], dict)]


@settings(max_examples=300, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data(), output=st.sampled_from([*FORMATS, "json"]))
def test_any_metadata_shape_is_planned_or_refused_in_one_line(tmp_path: Path, data: st.DataObject,
                                                              output: str) -> None:
    names = data.draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=3, unique=True))
    previous = [data.draw(_document(n)) for n in names if data.draw(st.booleans())]
    desired = [data.draw(_document(n)) for n in names]
    live = [data.draw(_document(o["metadata"]["name"])) | {"apiVersion": o["apiVersion"], "kind": o["kind"]}
            for o in previous if data.draw(st.booleans())]
    (tmp_path / "previous.yaml").write_text(_stream(previous))
    (tmp_path / "desired.yaml").write_text(_stream(desired))
    args = ["diff", str(tmp_path / "previous.yaml"), str(tmp_path / "desired.yaml"), "-o", output,
            "--kind-order", "helm4"]
    if data.draw(st.booleans()):
        for obj in live:
            obj["metadata"].setdefault("namespace", "default")
        (tmp_path / "live.yaml").write_text(_stream(live))
        args += ["--live", str(tmp_path / "live.yaml")]
    if data.draw(st.booleans()):
        (tmp_path / "ignore.yaml").write_text(
            "- {paths: [/data], target: {labelSelector: app=x}}\n"
            "- {paths: [/metadata], target: {annotationSelector: 'helm.sh/resource-policy'}}\n")
        args += ["--ignore-file", str(tmp_path / "ignore.yaml")]
    if data.draw(st.booleans()):
        args += ["--fail-on", data.draw(st.sampled_from(["delete", "warning", "create"]))]
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(args)
    stdout, stderr = out.getvalue(), err.getvalue()
    assert "internal error" not in stderr and "Traceback" not in stderr, stderr
    if code == 1:
        assert stdout == "" and len(stderr.splitlines()) == 1 and stderr.startswith("helm plan: error: "), stderr
        return
    assert code in (0, 3), (code, stderr)
    if output == "json":
        warnings = json.loads(stdout)["warnings"]
        before = {(o["kind"], o["metadata"]["name"]): o for o in previous}
        for obj in desired:  # each object the deploy sends (an unchanged one is not sent)
            if before.get((obj["kind"], obj["metadata"]["name"])) == obj:
                continue
            name = obj["metadata"]["name"]
            if any(w["message"].startswith(f"{obj['kind']}/{name}: ") and "Helm skips this document" in w["message"]
                   for w in warnings):
                continue  # not sent at all (a hook Helm does not know), and the plan says so
            for key in _not_a_map(obj):
                assert any(f"metadata.{key}" in w["message"] and (w["resource"] or {}).get("name") == name
                           for w in warnings), (key, obj, warnings)
