"""Hostile input: never a hang, never an "internal error", one reader for every input file.

One regression test per class of input a fuzz campaign found breaking the promise "a plan, or
one line that says what is wrong and what to do next". The property test over all of them is
tests/test_hostile_property.py. Work is checked by counting, not by timing.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, Result, clean_env, run_plan
from deployah_plan.core import quantity, renames
from deployah_plan.core.diff import diff_objects
from deployah_plan.manifests import split_stream
from deployah_plan.render import markdown
from deployah_plan.sources.files import MAX_INPUT_BYTES
from deployah_plan.yamlkube import MAX_DEPTH, YAMLError, load_all

CM = "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata: {data}\n"


def _write(tmp_path: Path, name: str, text: str | bytes) -> str:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return str(path)


def _one_line_error(result: Result, *needles: str) -> str:
    assert result.code == 1, (result.out[:500], result.err)
    assert result.out == ""
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert lines[0].startswith("helm plan: error: ") and "internal error" not in lines[0]
    assert "; " in lines[0]  # a next step
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def _run_bytes(*args: str, stdin: bytes, cwd: Path) -> Result:
    done = subprocess.run([sys.executable, "-m", "deployah_plan", *args], input=stdin, capture_output=True,
                          env=clean_env(), cwd=cwd)
    return Result(done.returncode, done.stdout.decode(), done.stderr.decode())


# 1. Quantities are compared as mantissa and scale, never expanded.

@pytest.mark.e2e
def test_a_huge_quantity_exponent_is_compared_without_expanding_it(tmp_path: Path) -> None:
    assert quantity.parse("1e999999999") > quantity.parse("1")  # type: ignore[operator]
    assert quantity.equivalent("1e999999999", "10e999999998")
    assert quantity.parse("1e99999999999") is None  # past int32, as ParseQuantity refuses it
    assert quantity.parse("1.5Gi") == quantity.parse("1536Mi") and quantity.parse("-1") < quantity.parse("0m")  # type: ignore[operator]
    pvc = ("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {{name: data}}\n"
           "spec: {{resources: {{requests: {{storage: '{}'}}}}}}\n")
    result = run_plan("diff", _write(tmp_path, "p.yaml", pvc.format("1")), _write(tmp_path, "d.yaml", pvc.format("1e999999999")),
                      "--kind-order", "helm3", "-o", "json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["changes"][0]["action"] == "update"


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

@pytest.mark.e2e
def test_markdown_with_eight_thousand_warnings_stays_under_the_cap(tmp_path: Path) -> None:
    pvc = "---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {{name: p{}}}\nspec: {{resources: {{requests: {{storage: 1Gi}}}}}}\n"
    previous = _write(tmp_path, "p.yaml", "".join(pvc.format(i) for i in range(8000)))
    result = run_plan("diff", previous, _write(tmp_path, "d.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"),
                      "--kind-order", "helm3", "-o", "markdown", "--out", str(tmp_path / "plan.json"))
    assert result.code == 0, result.err
    assert len(result.out) <= markdown.CAP and "8000 to delete" in result.out
    shown = run_plan("show", str(tmp_path / "plan.json"), "-o", "markdown")
    assert shown.code == 0 and shown.out == result.out


# 4. Integers past Python's 4,300-digit conversion limit.

@pytest.mark.parametrize("text", ["9" * 5000, "-" + "9" * 5000, "0b" + "1" * 5000, "0x" + "f" * 5000, "1e999"])
def test_numbers_out_of_range_stay_text_as_go_yaml_keeps_them(text: str) -> None:
    # strconv.ParseInt, ParseUint and ParseFloat all fail out of range, and go-yaml v2 then
    # keeps the scalar as a string; no int() is asked to read 5,000 digits.
    (doc,) = load_all(f"v: {text}\n")
    assert doc.value["v"] == text


@pytest.mark.e2e
def test_a_huge_hook_weight_or_integer_is_not_an_internal_error(tmp_path: Path) -> None:
    hook = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  annotations:\n    helm.sh/hook: pre-install\n"
            f"    helm.sh/hook-weight: '{'9' * 5000}'\nspec: {{replicas: {'9' * 5000}}}\n")
    result = run_plan("diff", _write(tmp_path, "p.yaml", ""), _write(tmp_path, "d.yaml", hook), "--kind-order", "helm3", "-o", "json")
    assert result.code == 0, result.err
    (task,) = json.loads(result.out)["tasks"]
    assert task["weight"] == 0  # out of int64 range: Helm reads it as 0


# 5. Deep nesting: refused with a clear error, never a RecursionError.

@pytest.mark.e2e
def test_deep_nesting_is_refused_in_one_line(tmp_path: Path) -> None:
    deep = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: " + "[" * 328 + "1" + "]" * 328 + "\n"
    _one_line_error(run_plan("diff", _write(tmp_path, "p.yaml", deep), _write(tmp_path, "d.yaml", deep.replace("1]", "2]", 1))),
                    "p.yaml", f"nests deeper than {MAX_DEPTH} levels")
    with pytest.raises(YAMLError, match="deeper"):  # an alias counts where it is used
        list(load_all("a: &x " + "[" * 60 + "1" + "]" * 60 + "\nb: " + "[" * 60 + "*x" + "]" * 60 + "\n"))


@pytest.mark.e2e
def test_depth_at_the_bound_works_everywhere_including_embedded_json(tmp_path: Path) -> None:
    def nest(n: int, leaf: object) -> object:
        for _ in range(n):
            leaf = [leaf]
        return leaf

    def doc(leaf: str) -> str:
        inner = json.dumps({"x": nest(MAX_DEPTH // 2 - 5, leaf)})
        return json.dumps({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t"},
                           "spec": nest(MAX_DEPTH - 2, leaf), "data": {"k": nest(MAX_DEPTH // 2, inner)}})
    previous, desired = _write(tmp_path, "p.yaml", doc("a")), _write(tmp_path, "d.yaml", doc("b"))
    for output in ("text", "markdown", "json"):
        result = run_plan("diff", previous, desired, "--kind-order", "helm3", "-o", output, "--out", str(tmp_path / "plan.json"))
        assert result.code == 0, result.err
        assert run_plan("show", str(tmp_path / "plan.json"), "-o", output).out == result.out
    fields = json.loads(result.out)["changes"][0]["fields"]
    assert [f["parts_of"] for f in fields if "parts_of" in f] == ["json"]  # the embedded document, diffed inside
    # A string holding JSON deeper than the depth left is a plain string change, not a crash.
    too_deep = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
    before = diff_objects({**too_deep, "data": {"k": "[" * 5000 + "]" * 5000}}, {**too_deep, "data": {"k": "[" * 5001 + "]" * 5001}})
    assert [f.path for f in before] == ["/data/k"] and not before[0].parts


# 6. Non-UTF-8 bytes, directories, devices and stdin: one reader, one policy.

@pytest.mark.e2e
def test_every_input_is_read_by_one_reader_with_one_policy(tmp_path: Path) -> None:
    empty = _write(tmp_path, "empty.yaml", "")
    bad = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a\xff}\n"
    _one_line_error(_run_bytes("diff", empty, "-", stdin=bad, cwd=tmp_path), "DESIRED manifest standard input",
                    "not UTF-8", "line 3")
    _one_line_error(_run_bytes("diff", empty, empty, "--live", "-", stdin=bad, cwd=tmp_path), "live state file", "not UTF-8")
    _one_line_error(_run_bytes("show", "-", stdin=b"{\xff}", cwd=tmp_path), "saved plan", "not UTF-8")
    ignore = _write(tmp_path, "ignore.yaml", b"- paths: [/a\xff]\n")
    _one_line_error(run_plan("diff", empty, empty, "--ignore-file", ignore), "ignore file", "ignore.yaml", "not UTF-8")
    _one_line_error(run_plan("diff", str(tmp_path), empty), "cannot read the PREVIOUS manifest", "directory")
    _one_line_error(run_plan("diff", empty, empty, "--ignore-file", str(tmp_path)), "cannot read the ignore file")
    _one_line_error(run_plan("diff", empty, empty, "--live", str(tmp_path)), "cannot read the live state file")
    _one_line_error(run_plan("show", str(tmp_path)), "cannot read the saved plan")
    _one_line_error(run_plan("diff", "-", "-", stdin=""), "both read standard input")
    _one_line_error(run_plan("diff", empty, "-", "--live", "-", stdin=""), "both read standard input")
    _one_line_error(run_plan("diff", empty, "-", "--ignore-file", "-", stdin="[]"), "both read standard input")


# 7. A Secret whose data is not a map next to stringData.

@pytest.mark.e2e
@pytest.mark.parametrize("data", ["abc", "42", "[a, b]"])
def test_secret_data_that_is_not_a_map_is_refused_clearly(tmp_path: Path, data: str) -> None:
    secret = f"# Source: app/templates/secret.yaml\napiVersion: v1\nkind: Secret\nmetadata: {{name: s}}\ndata: {data}\nstringData: {{a: b}}\n"
    _one_line_error(run_plan("diff", _write(tmp_path, "p.yaml", ""), _write(tmp_path, "d.yaml", secret), "--kind-order", "helm3"),
                    "app/templates/secret.yaml", "Secret s has data that is a")


# 8. A CRD whose spec is not a map.

@pytest.mark.e2e
@pytest.mark.parametrize("spec", ["[1, 2]", "text", "7"])
def test_a_crd_whose_spec_is_not_a_map_is_planned(tmp_path: Path, spec: str) -> None:
    crd = f"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: a.b}}\nspec: {spec}\n"
    result = run_plan("diff", _write(tmp_path, "p.yaml", ""), _write(tmp_path, "d.yaml", crd), "--kind-order", "helm3")
    assert result.code == 0, result.err
    assert "CustomResourceDefinition a.b" in result.out


# 9. Two objects with generateName: two creates.

@pytest.mark.e2e
def test_two_generate_name_jobs_are_two_creates(tmp_path: Path) -> None:
    job = "---\napiVersion: batch/v1\nkind: Job\nmetadata: {generateName: job-}\nspec: {template: {spec: {containers: [{name: a, image: b}]}}}\n"
    for previous in ("", job * 2):
        result = run_plan("diff", _write(tmp_path, "p.yaml", previous), _write(tmp_path, "d.yaml", job * 2),
                          "--kind-order", "helm3", "-o", "json", "--out", str(tmp_path / "plan.json"))
        assert result.code == 0, result.err
        assert [c["action"] for c in json.loads(result.out)["changes"]] == ["create", "create"]
        assert run_plan("show", str(tmp_path / "plan.json"), "-o", "json").out == result.out


# 10. A full stdout, and an endless input.

@pytest.mark.e2e
def test_a_full_stdout_is_one_error_line(tmp_path: Path) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "deployah_plan", "diff", _write(tmp_path, "p.yaml", ""),
                               _write(tmp_path, "d.yaml", CM.format(name="a", data="{}")), "--kind-order", "helm3"],
                              stdout=full, stderr=subprocess.PIPE, text=True, env=clean_env(), cwd=ROOT)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "cannot write the plan to standard output: No space left on device" in done.stderr


@pytest.mark.e2e
def test_an_endless_input_is_refused_at_the_size_bound(tmp_path: Path) -> None:
    _one_line_error(run_plan("diff", "/dev/zero", _write(tmp_path, "d.yaml", "")), "/dev/zero",
                    f"larger than {MAX_INPUT_BYTES // 2**20} MiB")


# 11. A saved plan is input: checked against the schema before it is trusted.

@pytest.mark.e2e
@pytest.mark.parametrize("mutate,needle", [
    (lambda d: d["header"].__setitem__("release", 7), "/header/release"),
    (lambda d: d.__setitem__("changes", {"a": 1}), "/changes"),
    (lambda d: d["changes"][0].__setitem__("resource", "x"), "/changes/0/resource"),
    (lambda d: d["changes"][0]["fields"].append(5), "/changes/0/fields/"),
    (lambda d: d.__setitem__("warnings", [{"code": 1}]), "/warnings/0"),
    (lambda d: d["header"].__setitem__("release", "r" * 1000), "longer than 53"),
])
def test_a_saved_plan_with_wrong_types_is_refused_in_one_line(tmp_path: Path, mutate, needle: str) -> None:  # type: ignore[no-untyped-def]
    result = run_plan("diff", _write(tmp_path, "p.yaml", CM.format(name="a", data="{x: '1'}")),
                      _write(tmp_path, "d.yaml", CM.format(name="a", data="{x: '2'}")), "--kind-order", "helm3", "-o", "json")
    doc = json.loads(result.out)
    mutate(doc)
    _one_line_error(run_plan("show", _write(tmp_path, "plan.json", json.dumps(doc))), "not a valid helm plan document", needle)


@pytest.mark.e2e
def test_a_saved_plan_nested_ten_thousand_deep_is_refused(tmp_path: Path) -> None:
    _one_line_error(run_plan("show", _write(tmp_path, "plan.json", '{"format_version": "1.1", "x": ' + "[" * 10000 + "]" * 10000 + "}")),
                    "nests deeper")


def test_the_schema_uses_only_keywords_the_checker_knows() -> None:
    from deployah_plan.plan_schema_check import KNOWN_KEYWORDS, schema

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

@pytest.mark.e2e
def test_a_long_release_or_namespace_is_refused_as_helm_refuses_it(tmp_path: Path) -> None:
    empty = _write(tmp_path, "e.yaml", "")
    _one_line_error(run_plan("diff", empty, empty, "--release", "r" * 120_000), "--release is 120,000 characters", "53")
    _one_line_error(run_plan("diff", empty, empty, "-n", "n" * 120_000), "-n is 120,000 characters", "63")


def test_markdown_header_lines_are_clipped() -> None:
    from deployah_plan.build import build_plan
    from deployah_plan.model import Header, HelmAction
    plan = build_plan(Header(release="r" * 120_000, namespace="n" * 120_000, kube_context="c" * 120_000), HelmAction.NONE, [], [], [], [])
    assert len(markdown.render(plan)) < markdown.CAP


# 13. Control characters in names never reach the terminal raw.

@pytest.mark.e2e
def test_control_characters_in_names_are_escaped_in_text(tmp_path: Path) -> None:
    cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "a\\e[2Jb\\nfake line\\u202e"}\ndata: {k: "x\\ay"}\n'
    result = run_plan("diff", _write(tmp_path, "p.yaml", ""), _write(tmp_path, "d.yaml", cm), "--kind-order", "helm3")
    assert result.code == 0, result.err
    assert "\x1b" not in result.out and "\x07" not in result.out and "\u202e" not in result.out
    assert "a\\x1b[2Jb\\x0afake line\\u202e" in result.out
    assert not any(line.startswith("fake line") for line in result.out.splitlines())


# From the code review.

def test_diff_debug_prints_its_helm_call_and_debug_is_read_once(tmp_path: Path, helm: Path) -> None:
    empty = _write(tmp_path, "e.yaml", "")
    result = run_plan("diff", empty, empty, "--debug", helm=helm)
    assert result.code == 0 and f"helm plan: running {helm} version" in result.err
    # "--debug" as a value (a release name) is not the flag.
    quiet = run_plan("diff", empty, empty, "--release", "--debug", helm=helm)
    assert "running" not in quiet.err


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


@pytest.mark.e2e
def test_a_crd_schema_with_wrong_types_is_judged_not_crashed_on(tmp_path: Path) -> None:
    """A chart CRD whose openAPIV3Schema has `type: 7` or `allOf: 3`: the API server rejects the
    CRD, and the plan says so instead of failing itself."""
    crd = ("# Source: c/crds/w.yaml\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
           "metadata: {name: widgets.example.com}\nspec:\n  group: example.com\n"
           "  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions:\n"
           "    - name: v1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n"
           "          type: object\n          properties:\n"
           "            spec: {type: 7, allOf: 3, properties: {size: {type: [integer, 5]}}}\n---\n"
           "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 1}\n")
    (tmp_path / "d.yaml").write_text(crd)
    result = run_plan("diff", "/dev/null", "d.yaml", "--kube-version", "1.31", "--action", "install", cwd=tmp_path)
    assert result.code == 0 and "internal error" not in result.err, result.err
    assert "the API server rejects it" in result.out


@pytest.mark.e2e
def test_control_characters_are_escaped_in_markdown_as_in_text(tmp_path: Path) -> None:
    cm = ('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "a\\e[2Jb\\u202e"}\n'
          'data: {k: "%s"}\n')
    previous, desired = cm % "old", cm % "x\\ay\\e]8;;http://evil\\e\\\\"
    result = run_plan("diff", _write(tmp_path, "p.yaml", previous), _write(tmp_path, "d.yaml", desired),
                      "--kind-order", "helm3", "-o", "markdown")
    assert result.code == 0, result.err
    assert not any(c in result.out for c in "\x1b\x07\u202e"), repr(result.out)
    assert "ConfigMap default/a\\x1b[2Jb\\u202e (1 field change)</summary>" in result.out  # as text shows it


def test_markdown_escapes_control_characters_in_server_messages() -> None:
    from deployah_plan.facts import ApiKind, KindsNotChecked
    from deployah_plan.build import build_plan
    from deployah_plan.model import Header, HelmAction, warn
    message = "forbidden: \x1b[2J\x1b]8;;http://evil\x07click\u202e"  # as a server's Status message may say
    plan = build_plan(Header(release="r", namespace="n"), HelmAction.NONE,
                      warnings=[warn(KindsNotChecked(kinds=(ApiKind(message, "v1"),)))])
    out = markdown.render(plan)
    assert not any(c in out for c in "\x1b\x07\u202e") and "forbidden: \\\\x1b\\[2J" in out
