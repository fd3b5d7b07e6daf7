"""The hostile-input promise as a property (hypothesis): for any manifests, live state, ignore
file or saved plan, from files or standard input,

- the command exits 0, 2 or 3 with a plan on standard output, or
- it exits 1 with nothing on standard output and one line on standard error that names the
  input and says what to do next;
- never "internal error" (the catch-all for an unexpected exception);
- within a time proportional to the input (measured with a generous bound, to catch a hang or
  a quadratic blow-up, not to benchmark: the benchmarks are in scripts/bench).

The generated inputs carry each class a fuzz campaign found: huge quantity exponents, integers
past 4,300 digits, deep nesting, non-UTF-8 bytes, Secrets whose data is not a map, CRDs
whose spec is not one, generateName objects, renamed look-alikes, control characters in
names, long names, live objects whose metadata (or its namespace, labels, annotations, owner
references, field managers) has any type, and saved plans with wrong types.

The command runs in this process (`cli.main`), reading real files; standard input is a real
byte stream. HYPOTHESIS_PROFILE=ci (the default) runs the numbers docs/contributing.md gives.
"""
from __future__ import annotations

import copy
import io
import json
import os
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import re

import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

from deployah_plan import cli

_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
                 database=None)
MANIFEST_EXAMPLES = int(os.environ.get("HOSTILE_EXAMPLES", "200"))
SAVED_EXAMPLES = int(os.environ.get("HOSTILE_EXAMPLES", "200"))

# -- values -----------------------------------------------------------------------------------

_RAW: list[str] = []  # raw YAML text spliced in where json.dumps cannot write it


def _raw(text: str) -> str:
    _RAW.append(text)
    return f"__raw{len(_RAW) - 1}__"


_common_scalars = st.one_of(
    st.sampled_from(["1", "1000m", "1Gi", "1024Mi", "1e999999999", "1e9999999", "-1e999999999", "0.5", "1e99999999999",
                     "{\"a\": [1, 2]}", "[[[[1]]]]", "a\nb\nc\n", "x: 1\ny: [2]\n", "\x1b[2J", "line\nfake: line", "\u202e",
                     "", "~", "yes", "0777", "1:20", ".inf", "null"]),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=False),
    st.booleans(),
    st.none(),
    st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Cn")), max_size=20),
)
_rare_scalars = st.one_of(
    st.integers(min_value=4200, max_value=6000).map(lambda n: _raw("9" * n)),  # past the int() digit limit
    st.integers(min_value=60, max_value=400).map(lambda n: _raw("[" * n + "1" + "]" * n)),  # deep nesting
    st.integers(min_value=40, max_value=400).map(lambda n: '{"x": ' + "[" * n + "]" * n + "}"),  # deep JSON in a string
)
# Each value holds several scalars: the rare ones (each refuses or strains the whole plan) are
# one in thirty, so most examples still reach a plan.
_hostile_scalars = st.integers(0, 29).flatmap(lambda n: _rare_scalars if n == 17 else _common_scalars)

_values = st.recursive(_hostile_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(["a", "b", "data", "spec", "k"]), inner, max_size=4)),
    max_leaves=12)

_names = st.one_of(
    st.sampled_from(["web", "db", "c0", "d0", "a\x1b[2Jb", "a\nfake line", "x" * 300, "Ωmega", "job-"]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Cn")), min_size=1, max_size=12),
)
_kinds = st.sampled_from([
    ("v1", "ConfigMap"), ("v1", "Secret"), ("batch/v1", "Job"), ("v1", "PersistentVolumeClaim"), ("apps/v1", "Deployment"),
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition"), ("v1", "Pod"), ("example.com/v1", "Widget"),
])


@st.composite
def _objects(draw: st.DrawFn) -> dict[str, Any]:
    api_version, kind = draw(_kinds)
    metadata: dict[str, Any] = {}
    how = draw(st.integers(0, 19))
    if how != 7:  # 7: no name at all
        metadata["generateName" if how == 5 else "name"] = draw(_names)
    if draw(st.integers(0, 4)) == 3:
        metadata["annotations"] = {"helm.sh/hook": draw(st.sampled_from(["pre-install", "post-upgrade", "crd-install"])),
                                   "helm.sh/hook-weight": draw(st.sampled_from(["1", "-5", "9" * 5000, "x"]))}
    obj: dict[str, Any] = {"apiVersion": api_version, "kind": kind, "metadata": metadata}
    if kind == "Secret":
        obj["data"] = draw(st.one_of(st.dictionaries(st.sampled_from(["a", "b"]), st.sampled_from(["YQ==", "!!"])), _values))
        if draw(st.booleans()):
            obj["stringData"] = draw(st.dictionaries(st.sampled_from(["a", "c"]), _hostile_scalars, max_size=2))
    elif kind == "PersistentVolumeClaim":
        obj["spec"] = {"resources": {"requests": {"storage": draw(_hostile_scalars)}}}
    elif kind == "Pod":
        obj["spec"] = {"containers": [{"name": "a", "resources": {"limits": {"cpu": draw(_hostile_scalars)}}}]}
    else:
        obj[draw(st.sampled_from(["data", "spec"]))] = draw(_values)
    return obj


_METADATA_KEYS = ["namespace", "labels", "annotations", "ownerReferences", "managedFields", "deletionTimestamp"]


def _hostile_live(draw: st.DrawFn, objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The objects as a broken or hostile source may give them live: metadata of any type, or
    of the right type holding odd entries (a controller reference, field managers, labels)."""
    objects = [copy.deepcopy(o) for o in objects]  # each its own copy: desired repeats previous ones
    for obj in objects:
        metadata = obj["metadata"]
        if draw(st.booleans()):
            metadata.update(namespace="default", annotations={"meta.helm.sh/release-name": "release",
                                                              "meta.helm.sh/release-namespace": "default"})
        for key in draw(st.lists(st.sampled_from(_METADATA_KEYS), max_size=3, unique=True)):
            metadata[key] = draw(st.one_of(
                _values,
                st.dictionaries(st.sampled_from(["app", "meta.helm.sh/release-name", "helm.sh/resource-policy"]),
                                st.one_of(st.sampled_from(["release", "keep", "Helm"]), _hostile_scalars), max_size=3),
                st.lists(st.one_of(_values, st.fixed_dictionaries({"controller": _hostile_scalars, "manager": _hostile_scalars,
                                                                   "fieldsV1": _values})), max_size=3),
            ))
        if draw(st.integers(0, 9)) == 4:
            obj["metadata"] = draw(_values)  # not a mapping at all
    return objects


def _yaml(objects: list[dict[str, Any]]) -> str:
    text = "".join("---\n" + json.dumps(o, ensure_ascii=False) + "\n" for o in objects)
    for index in range(len(_RAW) - 1, -1, -1):  # longest placeholders first (__raw10__ before __raw1__)
        text = text.replace(json.dumps(f"__raw{index}__"), _RAW[index])
    return text


@st.composite
def _manifest_pair(draw: st.DrawFn) -> tuple[str, str]:
    previous = draw(st.lists(_objects(), max_size=5))
    desired = [o for o in previous if draw(st.booleans())] + draw(st.lists(_objects(), max_size=4))
    if draw(st.integers(0, 5)) == 3:  # many look-alike renames
        n = draw(st.integers(20, 300))
        previous += [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{i}"}, "data": {"k": f"v{i % 7}"}}
                     for i in range(n)]
        desired += [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"d{i}"}, "data": {"k": f"v{i % 5}"}}
                    for i in range(n)]
    if draw(st.integers(0, 5)) == 2:  # Helm creates every generateName object anew, however many look alike
        job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"generateName": "job-"}, "spec": {}}
        desired += [job, job]
        previous += [job] * draw(st.integers(0, 2))
    return _yaml(previous), _yaml(desired)


def _mangle(draw: st.DrawFn, text: str) -> bytes:
    data = text.encode()
    how = draw(st.integers(0, 23))  # most inputs stay whole, so most examples reach a plan
    # (hypothesis favours small integers, so the rare cases take middle values)
    if how == 11 and data:  # a byte that is not UTF-8
        at = draw(st.integers(0, len(data) - 1))
        return data[:at] + b"\xff\xfe" + data[at:]
    if how == 12:
        return data[: draw(st.integers(0, len(data)))]  # truncated
    if how == 13:
        return b"\xef\xbb\xbf" + data  # a BOM
    if how == 14:
        return data + b"\x00"
    return data


# -- running ------------------------------------------------------------------------------------

class _Stdin:
    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)

    def read(self, *_: Any) -> str:  # pragma: no cover - every reader takes the bytes
        raise AssertionError("standard input must be read as bytes, by the one reader")


def _run(args: list[str], stdin: bytes, size: int, names: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    saved_stdin = sys.stdin
    sys.stdin = _Stdin(stdin)  # type: ignore[assignment]
    start = time.perf_counter()
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = cli.main(args)
    finally:
        sys.stdin = saved_stdin
    elapsed = time.perf_counter() - start
    # Generous: a hang or a quadratic blow-up takes minutes; this machine plans 1 MB in ~1 s.
    assert elapsed < 30 + 60 * size / 1_000_000, (elapsed, size, args[:3])
    stdout, stderr = out.getvalue(), err.getvalue()
    # What the examples covered (pytest --hypothesis-show-statistics): exit codes and the kinds of error.
    kind = re.sub(r"[^a-z ]", "", stderr.split("error: ", 1)[-1].split(";")[0].split(":")[-1])[:40] if code == 1 else ""
    event(f"exit {code} {kind}".strip())
    assert "internal error" not in stderr, stderr
    assert "Traceback" not in stderr, stderr
    if code in (0, 2, 3):
        assert stdout.startswith(("helm plan: ", "### helm plan: ", "{")), stdout[:200]
        if args[args.index("-o") + 1] == "json":
            json.loads(stdout)
        if code == 3:
            assert stderr.startswith("helm plan: ")
    else:
        assert code == 1, (code, stderr)
        assert stdout == "", stdout[:200]
        lines = stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("helm plan: error: "), stderr
        assert "; " in lines[0], lines[0]  # what to do next
        named = [n for n in [*names, "standard input", "--", "-n", "document ", "line "] if n in lines[0]]
        assert named, lines[0]  # the input (a file, a source, a document of it, a flag)
    return code, stdout, stderr


_outputs = st.sampled_from(["text", "json", "markdown"])


@settings(max_examples=MANIFEST_EXAMPLES, **_SETTINGS)  # type: ignore[arg-type]
@given(pair=_manifest_pair(), data=st.data(), output=_outputs)
def test_hostile_manifests_live_files_and_ignore_files(tmp_path_factory: Any, pair: tuple[str, str], data: st.DataObject,
                                                        output: str) -> None:
    tmp = tmp_path_factory.mktemp("hostile")
    previous, desired = (_mangle(data.draw, text) for text in pair)
    files = {"previous.yaml": previous, "desired.yaml": desired}
    args = ["diff", str(tmp / "previous.yaml"), str(tmp / "desired.yaml"), "--kind-order", "helm4", "-o", output,
            "--detailed-exitcode"]
    stdin = b""
    where = data.draw(st.sampled_from(["files", "previous-stdin", "desired-stdin"]))
    if where != "files":
        name = where.split("-")[0] + ".yaml"
        stdin = files.pop(name)
        args[1 if name == "previous.yaml" else 2] = "-"
    if data.draw(st.booleans()):  # a live state: the previous objects as the cluster has them, or garbage
        live = data.draw(st.one_of(st.just(pair[0]), st.just(json.dumps({"kind": "List", "items": [1, "x"]})),
                                   st.binary(max_size=40).map(lambda b: b.decode("latin-1"))))
        files["live.yaml"] = _mangle(data.draw, live)
        args += ["--live", str(tmp / "live.yaml")]
    if data.draw(st.booleans()):
        rules = data.draw(st.one_of(st.sampled_from([
            "- {paths: [/spec/replicas]}\n", "- {paths: [/data], target: {kind: ConfigMap}}\n",
            "ignore: [{paths: [/metadata/labels], target: {name: web}}]\n", "- {paths: [/data/a], target: {kind: Secret}}\n",
        ]), st.sampled_from(["ignore: 5\n", "- {paths: [nope]}\n", "[" * 300 + "]" * 300, "- {paths: [/a], target: {name: '['}}\n", ""])))
        files["ignore.yaml"] = _mangle(data.draw, rules)
        args += ["--ignore-file", str(tmp / "ignore.yaml")]
    if data.draw(st.integers(0, 5)) == 3:
        args += ["--fail-on", data.draw(st.sampled_from(["delete", "warning:data-loss", "create", "crd"]))]
    if data.draw(st.integers(0, 19)) == 13:
        args += ["--release", data.draw(st.sampled_from(["r" * 54, "r" * 120_000, "ok"]))]
    for name, content in files.items():
        (tmp / name).write_bytes(content)
    size = sum(len(c) for c in files.values()) + len(stdin)
    code, stdout, _ = _run(args, stdin, size, [*files, "--release"])
    if code != 1 and output == "markdown":
        assert len(stdout) <= 65_000
    if code != 1 and output == "text":
        assert "\x1b" not in stdout  # no colour off a terminal, and no escape from the input


@settings(max_examples=MANIFEST_EXAMPLES, **_SETTINGS)  # type: ignore[arg-type]
@given(data=st.data(), output=_outputs)
def test_hostile_live_metadata(tmp_path_factory: Any, data: st.DataObject, output: str) -> None:
    """The release's own objects, live with metadata of any shape: a plan with its drift and
    ownership, or one line naming the live file; never an internal error."""
    tmp = tmp_path_factory.mktemp("hostile-live")
    previous = data.draw(st.lists(_objects(), min_size=1, max_size=4))
    desired = [o for o in previous if data.draw(st.booleans())] + data.draw(st.lists(_objects(), max_size=2))
    files = {"previous.yaml": _yaml(previous), "desired.yaml": _yaml(desired),
             "live.yaml": _yaml(_hostile_live(data.draw, previous + desired))}
    for name, content in files.items():
        (tmp / name).write_text(content)
    args = ["diff", str(tmp / "previous.yaml"), str(tmp / "desired.yaml"), "--live", str(tmp / "live.yaml"),
            "--apply-method", data.draw(st.sampled_from(["csa", "ssa"])), "-o", output]
    _run(args, b"", sum(len(c) for c in files.values()), list(files))


# -- saved plans -----------------------------------------------------------------------------

_BASE_PLANS: list[dict[str, Any]] = []


@pytest.fixture(scope="module")
def base_plans(tmp_path_factory: Any) -> list[dict[str, Any]]:
    """Real plans to mutate, made once: an update, a create, and one with every part (line
    and embedded diffs, keyed entries, a hook, drift, ignored fields, warnings)."""
    tmp = tmp_path_factory.mktemp("bases")
    if not _BASE_PLANS:
        cm = "apiVersion: v1\nkind: {kind}\nmetadata: {{name: {name}}}\n{body}\n"
        deploy = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web}}\nspec: {{replicas: {r}, template: {{spec: "
                  "{{containers: [{{name: app, image: 'app:{v}', env: [{{name: A, value: '{v}'}}]}}]}}}}}}\n")
        hook = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations: {{helm.sh/hook: pre-upgrade, "
                "helm.sh/hook-delete-policy: before-hook-creation}}\nspec: {{backoffLimit: {v}}}\n")
        rich = [cm.format(kind="ConfigMap", name="files", body="data: {conf: \"a\\nb\\nc\\n\", json: '{\"k\": [1, 2]}'}"),
                deploy.format(r=1, v=1), hook.format(v=1), cm.format(kind="PersistentVolumeClaim", name="p", body="spec: {}"),
                cm.format(kind="Secret", name="s", body="data: {p: YQ==}")]
        rich_after = [cm.format(kind="ConfigMap", name="files", body="data: {conf: \"a\\nB\\nc\\n\", json: '{\"k\": [1, 3]}'}"),
                      deploy.format(r=2, v=2), hook.format(v=2), cm.format(kind="Secret", name="s", body="data: {p: Yg==}"),
                      cm.format(kind="ConfigMap", name="new", body="data: {}")]
        live = rich[1].replace("replicas: 1", "replicas: 5")
        cases = [
            (cm.format(kind="ConfigMap", name="a", body="data: {x: '1'}"), cm.format(kind="ConfigMap", name="a", body="data: {x: '2'}"), []),
            ("", cm.format(kind="Secret", name="s", body="stringData: {p: secret}"), []),
            ("---\n".join(rich), "---\n".join(rich_after), ["--live", "LIVE", "--ignore", "{paths: [/data/conf], target: {name: nope}}",
                                                          "--ignore", "{paths: [/spec/replicas], target: {kind: Deployment}}"]),
        ]
        for index, (previous, desired, extra) in enumerate(cases):
            (tmp / f"p{index}.yaml").write_text(previous)
            (tmp / f"d{index}.yaml").write_text(desired)
            (tmp / "live.yaml").write_text(live)
            out = io.StringIO()
            with redirect_stdout(out), redirect_stderr(io.StringIO()):
                assert cli.main(["diff", str(tmp / f"p{index}.yaml"), str(tmp / f"d{index}.yaml"), "--kind-order", "helm3",
                                 "-o", "json", *[str(tmp / "live.yaml") if x == "LIVE" else x for x in extra]]) == 0
            _BASE_PLANS.append(json.loads(out.getvalue()))
        rich_doc = _BASE_PLANS[-1]
        assert rich_doc["tasks"] and rich_doc["drift"] and any(c["ignored_fields"] for c in rich_doc["changes"])
        assert any("line_diff" in f for c in rich_doc["changes"] for f in c["fields"])
        assert any(f.get("keys") for c in rich_doc["changes"] for f in c["fields"])
    return _BASE_PLANS


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _paths(child, (*prefix, index))
    return found


_replacements = st.one_of(
    st.sampled_from([7, -1, "x", "", None, True, [], {}, [1, "a"], {"a": 1}, 1.5, "create", "r" * 60, 2**80,
                     "a\x1b[2J\nfake", "line\n" * 50, {"sensitive": True, "length": -3, "token": 1}]),
    st.integers(20, 500).map(lambda n: json.loads("[" * n + "]" * n)),
    st.integers(0, 12_000).map(lambda n: "x" * n),
)


@settings(max_examples=SAVED_EXAMPLES, **_SETTINGS)  # type: ignore[arg-type]
@given(data=st.data(), output=_outputs)
def test_hostile_saved_plans(tmp_path_factory: Any, base_plans: list[dict[str, Any]], data: st.DataObject,
                             output: str) -> None:
    tmp = tmp_path_factory.mktemp("saved")
    doc = json.loads(json.dumps(data.draw(st.sampled_from(base_plans))))
    # Half the time only values inside field changes (any JSON there is valid), else anything.
    anywhere = data.draw(st.booleans())
    for _ in range(data.draw(st.integers(1, 3))):
        paths = [p for p in _paths(doc)[1:] if anywhere or (len(p) > 1 and p[-1] in ("before", "after"))]
        if not paths:
            break
        path = data.draw(st.sampled_from(paths))
        parent = doc
        for step in path[:-1]:
            parent = parent[step]
        if anywhere and data.draw(st.integers(0, 3)) == 2 and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            # A copy: a drawn list or map is shared between examples, and a later mutation of
            # this document must not change what the strategy draws next time.
            parent[path[-1]] = copy.deepcopy(data.draw(_replacements))
        if path[:1] == ("format_version",):
            break
    text = json.dumps(doc)
    if data.draw(st.integers(0, 9)) == 7:
        text = '{"format_version": "1.1", "header": ' + "[" * 10_000 + "]" * 10_000 + "}"
    content = _mangle(data.draw, text)
    from_stdin = data.draw(st.booleans())
    if not from_stdin:
        (tmp / "plan.json").write_bytes(content)
    args = ["show", "-" if from_stdin else str(tmp / "plan.json"), "-o", output]
    _run(args, content if from_stdin else b"", len(content), ["plan.json"])
