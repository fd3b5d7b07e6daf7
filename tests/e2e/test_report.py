"""The report the writers share: common changes folded, values cut around what differs, and
the chart-label-bump upgrade measured side by side (folded against unfolded, from one plan).

The fixture (tests/cases/chart-label-bump) is an ingress-nginx-like chart going from 4.10.0 to
4.12.0: 13 resources and 7 hooks carry the same two label bumps (`helm.sh/chart`,
`app.kubernetes.io/version`; the Deployment and the hook Jobs in their pod template too), and
five changes are real: a removed config key, an added flag, an image digest, a webhook port,
a runAsGroup.

Expectations are derived from the case's own YAML (which objects carry the bump, where each
real change is), read here with PyYAML, never from an earlier output of the planner.
"""
from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import jsonpointer
import pytest
from msgspec.structs import replace

from conftest import ROOT, run_plan
from deployah_plan.planfile import FORMAT_VERSION
from deployah_plan.planfile.read import load
from deployah_plan.render import markdown, text
from deployah_plan.render.options import WriteOptions
from render.test_report import CASE, DESIRED, HOOKS, LABEL_LINES, PREVIOUS, RESOURCES, TEMPLATES, _bumped, _label, _objects

# A stated Kubernetes version: the plan then has no note about an assumed one, and its lines are
# the resources' and hooks' only, as when the sizes below were measured.
ARGS = ("diff", "previous.yaml", "desired.yaml", "--release", "ingress", "-n", "ingress", "--kind-order", "helm3",
        "--kube-version", "1.33")
REAL_CHANGES = [
    '- data.enable-real-ip: "true"',
    '+ [9]: "--enable-metrics=true"',
    "webhooks[name=validate.nginx.ingress.kubernetes.io].clientConfig.service.port: 443 -> 8443",
    "+ spec.template.spec.containers[name=create].securityContext.runAsGroup: 65532",
    "+ spec.template.spec.containers[name=patch].securityContext.runAsGroup: 65532",
]
# Measured before common changes were folded (commits 6e3c3bf, eae3b21 and 2806dc2 gave the
# same), with ARGS: the text plan was 96 lines and the markdown comment 11,163 characters.
MAIN_TEXT_LINES = 96
MAIN_MARKDOWN_CHARS = 11_163


def _out(output: str) -> str:
    result = run_plan(*ARGS, "-o", output, cwd=CASE)
    assert result.code == 0, result.err
    return result.out


def _without_head(plan: str) -> str:
    """The plan without its "what matters" head and the apply method's line (both added after
    these were measured): the same facts, said again before the details, and what the head says
    of how Helm applies."""
    plan = re.sub(r"\n  apply: [^\n]*\n", "\n", plan, count=1)
    return re.sub(r"\n(#### )?What matters \(the details follow\):?\n.*?\n\n", "\n", plan, count=1, flags=re.S)


@pytest.mark.e2e
def test_text_folds_the_label_bumps_and_is_half_as_long() -> None:
    folded = _out("text")
    plan = load(_out("json"), "plan.json")
    unfolded = text.render(plan, WriteOptions(fold=False))  # no flag turns folding off
    # The impact section (a rollout of the controller) came later and is not part of the measure.
    assert "Impact: 1 workload restarts (1 pod)." in folded
    assert len(_without_head(text.render(replace(plan, impact=()))).splitlines()) * 2 <= MAIN_TEXT_LINES
    # Unfolded, the same report repeats the bumps under every object (and pod template).
    assert unfolded.count('labels["helm.sh/chart"]') + unfolded.count('labels["app.kubernetes.io/version"]') == LABEL_LINES
    # Folding takes those lines out and adds the common block (a blank line, its title and the two
    # changes); the five hooks left with no change of their own then say their policy once (4 fewer).
    assert len(unfolded.splitlines()) - len(folded.splitlines()) == LABEL_LINES - 4 + 4
    # Said once, with the objects it is on; pod-template copies fold into the object's label.
    assert folded.count('metadata.labels["helm.sh/chart"]') == 1
    assert ('Common changes on 13 resources and 7 hooks (said once here, not under each object):\n'
            '  ~ metadata.labels["helm.sh/chart"]: "ingress-nginx-4.10.0" -> "ingress-nginx-4.12.0"  '
            '(also in the pod template of 3)\n') in folded
    assert "  ~ ServiceAccount ingress/ingress-ingress-nginx  (update: only common changes)\n" in folded
    assert "  ~ ConfigMap ingress/ingress-ingress-nginx-controller  (update, and 2 common changes)\n" in folded
    for change in REAL_CHANGES:
        assert change in folded and change in unfolded
    # The image digest differs in its last characters: both sides show it.
    image = next(line for line in folded.splitlines() if "containers[name=controller].image" in line)
    assert "c9c34e0a1b\"" in image and "c9c34eed5b\"" in image


@pytest.mark.e2e
def test_markdown_folds_and_is_half_as_long() -> None:
    folded = _out("markdown")
    plan = load(_out("json"), "plan.json")
    unfolded = markdown.render(plan, WriteOptions(fold=False))
    assert unfolded.count('labels["helm.sh/chart"]') == 2 * (len(RESOURCES) + len(HOOKS) + TEMPLATES)  # - and +
    # The image digest was cut to 72 characters then; it is shown whole now, on a - and a + line.
    image = next(f for c in json.loads(_out("json"))["changes"] for f in c["fields"] if f["path"].endswith("/image"))
    whole = sum(len(json.dumps(image[side])) - 72 for side in ("before", "after"))
    # The resource list came to one shape later: an object with only common changes went from a
    # bullet ("- `~ update` X", joined by one newline) to an empty <details> (joined by a blank line).
    shape = (len("<details><summary><code></code></summary></details>") - len("- ``") + 1) * folded.count(
        "</summary></details>")
    # The impact section came later too.
    assert (len(_without_head(markdown.render(replace(plan, impact=())))) - whole - shape) * 2 <= MAIN_MARKDOWN_CHARS
    assert len(folded) * 2 <= len(unfolded)
    assert folded.count('metadata.labels["helm.sh/chart"]') == 2  # one - line and one + line
    assert "<details><summary><code>~ update</code> IngressClass nginx (only 2 common changes)</summary></details>\n" in folded
    for change in ["- data.enable-real-ip", "+     [9]: \"--enable-metrics=true\"",
                   "- webhooks[name=validate.nginx.ingress.kubernetes.io].clientConfig.service.port: 443",
                   "+ webhooks[name=validate.nginx.ingress.kubernetes.io].clientConfig.service.port: 8443",
                   "+ spec.template.spec.containers[name=create].securityContext.runAsGroup: 65532"]:
        assert change in folded


def _resolve(obj: Any, pointer: str) -> Any:
    return jsonpointer.resolve_pointer(obj, pointer)


@pytest.mark.e2e
def test_json_keeps_every_field_change_and_only_adds_the_grouping() -> None:
    doc = json.loads(_out("json"))
    assert doc["format_version"] == FORMAT_VERSION
    # Every object whose parsed content differs is one update; none other is named.
    differ = {k for k in DESIRED if PREVIOUS.get(k) != DESIRED[k] and "helm.sh/hook" not in
              _label(DESIRED[k], "metadata", "annotations")}
    assert {(c["resource"]["kind"], c["resource"]["name"]) for c in doc["changes"]} == differ
    assert all(c["action"] == "update" for c in doc["changes"])
    # Every field change names values that are there in the YAML: a replace's before in the
    # previous object and after in the desired one, an add's after, a remove's before.
    for change in doc["changes"]:
        key = (change["resource"]["kind"], change["resource"]["name"])
        for field in change["fields"]:
            if field["op"] in ("replace", "add"):
                assert _resolve(DESIRED[key], field["path"]) == field["after"], (key, field)
            if field["op"] == "replace":
                assert _resolve(PREVIOUS[key], field["path"]) == field["before"], (key, field)
    removed = next(f for c in doc["changes"] for f in c["fields"] if f["op"] == "remove")
    assert (removed["path"], removed["before"]) == ("/data/enable-real-ip", "true")
    assert "enable-real-ip" in PREVIOUS[("ConfigMap", "ingress-ingress-nginx-controller")]["data"]
    assert "enable-real-ip" not in DESIRED[("ConfigMap", "ingress-ingress-nginx-controller")]["data"]
    # The grouping: each label bump once, naming every object that carries it.
    common = doc["common_changes"]
    assert [(c["path"], c["before"], c["after"], len(c["changes"]), len(c["tasks"])) for c in common] == [
        ("/metadata/labels/helm.sh~1chart", "ingress-nginx-4.10.0", "ingress-nginx-4.12.0", len(RESOURCES), len(HOOKS)),
        ("/metadata/labels/app.kubernetes.io~1version", "1.10.0", "1.12.0", len(RESOURCES), len(HOOKS)),
    ]
    assert {(doc["changes"][i]["resource"]["kind"], doc["changes"][i]["resource"]["name"])
            for i in common[0]["changes"]} == set(RESOURCES)
    assert common[0]["at"] == ["/metadata/labels/helm.sh~1chart", "/spec/template/metadata/labels/helm.sh~1chart"]
    for n, item in enumerate(common):  # the objects it names carry it, marked with its index
        assert all(any(f.get("common") == n for f in doc["changes"][i]["fields"]) for i in item["changes"])
        assert all(any(f.get("common") == n for d in doc["tasks"][i]["definitions"] for f in d["fields"])
                   for i in item["tasks"])
    deployment = next(c for c in doc["changes"] if c["resource"]["kind"] == "Deployment")
    assert [f.get("common") for f in deployment["fields"]] == [0, 1, 0, 1, None, None]


@pytest.mark.e2e
def test_values_cut_the_same_way_in_text_and_markdown_and_full_values_shows_them_whole(tmp_path: Path) -> None:
    long = "registry.example.com/team/app:v1.2.3@sha256:" + "1" * 2000
    for name, tail in (("p.yaml", "aaaa"), ("d.yaml", "bbbb")):
        (tmp_path / name).write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: a}}\ndata: {{image: \"{long}{tail}\"}}\n")
    for output in ("text", "markdown"):
        out = run_plan("diff", "p.yaml", "d.yaml", "-o", output, cwd=tmp_path).out
        assert '1111aaaa"' in out and '1111bbbb"' in out, output
        assert "characters elided)…" in out and long not in out, output
        whole = run_plan("diff", "p.yaml", "d.yaml", "-o", output, "--full-values", cwd=tmp_path).out
        assert f'"{long}aaaa"' in whole and f'"{long}bbbb"' in whole and "elided" not in whole, output


@pytest.mark.e2e
def test_what_matters_is_said_first_and_alike_in_text_markdown_and_json() -> None:
    """create-update-delete: a PVC deleted (data loss), a Service deleted, an image bumped."""
    case = ROOT / "tests" / "cases" / "create-update-delete"
    args = ("diff", "previous.yaml", "desired.yaml", *shlex.split((case / "args").read_text(), comments=True))
    doc = run_plan(*args, "-o", "json", cwd=case).json()
    assert [(h["what"], h["sign"]) for h in doc["highlights"]] == [
        ("data-loss", "!"), ("risk", "!"), ("delete", "-"), ("image", "~")]
    assert doc["highlights"][1]["detail"] == ["replicas-reset"]  # the chart sets replicas an HPA scales
    image = doc["highlights"][3]
    assert (image["before"], image["after"], image["detail"]) == ("nginx:1.25", "nginx:1.27", ["web"])
    assert [r["name"] for r in doc["highlights"][2]["resources"]] == ["shop-legacy", "shop-data"]
    out = run_plan(*args, "-o", "text", cwd=case).out
    head, details = out.split("Resources, in the order", 1)
    assert head.index("What matters") > head.index("helm plan:")
    assert '  ~ image "nginx:1.25" -> "nginx:1.27" in Deployment shop/shop-web (web)\n' in head
    assert "  - deleted: Service shop/shop-legacy, PersistentVolumeClaim shop/shop-data\n" in head
    comment = run_plan(*args, "-o", "markdown", cwd=case).out
    assert comment.index("#### What matters") < comment.index("#### Resources")
    assert '- `~` image "nginx:1.25" -\\> "nginx:1.27" in Deployment shop/shop-web (web)\n' in comment


@pytest.mark.e2e
def test_a_change_inside_an_atomic_list_is_shown_in_every_output() -> None:
    """A Role gaining `delete` (rules and verbs are atomic lists in Kubernetes' RBAC API) and a
    startup script gaining `exit 1` inside a container's atomic `command`."""
    case = ROOT / "tests" / "cases" / "rbac-and-new-objects"
    args = ("diff", "previous.yaml", "desired.yaml", "-n", "shop")
    out = run_plan(*args, "-o", "text", cwd=case).out
    role = out.split("  ~ Role shop/reader  (update)\n", 1)[1]
    assert role.startswith("      ~ rules (an atomic list, replaced as a whole):\n"
                           "          ~ [1].verbs (an atomic list, replaced as a whole):\n"
                           '          +     [2]: "delete"\n')
    assert "          +     exit 1\n" in out
    comment = run_plan(*args, "-o", "markdown", cwd=case).out
    assert '+         [2]: "delete"' in comment and "+         exit 1" in comment
    doc = run_plan(*args, "-o", "json", cwd=case).json()
    rules = next(c for c in doc["changes"] if c["resource"]["kind"] == "Role")["fields"][0]
    assert rules["parts"][0]["parts"][0] == {"path": "/2", "op": "add", "before": None, "after": "delete"}


@pytest.mark.e2e
def test_a_created_object_shows_its_content_within_a_budget_and_masks_secret_values() -> None:
    case = ROOT / "tests" / "cases" / "rbac-and-new-objects"
    args = ("diff", "previous.yaml", "desired.yaml", "-n", "shop")
    desired = (case / "desired.yaml").read_text()
    annotation = desired.split('example.com/runbook: "', 1)[1].split('"', 1)[0]
    assert 180 < len(annotation) < 1000
    for output in ("text", "markdown", "json"):
        out = run_plan(*args, "-o", output, cwd=case).out
        assert "s3cr3t" not in out and "czNjcjN0" not in out, output  # nor its base64
        assert annotation in out, output
    out = run_plan(*args, "-o", "text", cwd=case).out
    assert "  + Secret shop/api  (create)\n      + data:\n      +   token: (sensitive #1, 12 bytes)\n" in out
    # The ConfigMap's content is 49 lines (metadata, annotations, the annotation, data, 45 keys):
    # 40 are shown and the rest counted.
    assert "      +   key35: \"value35\"\n        … 9 more lines (--full-values shows them" in out
    assert "key36" not in out
    whole = run_plan(*args, "-o", "text", "--full-values", cwd=case).out
    assert '      +   key44: "value44"\n' in whole and "more lines" not in whole
    doc = run_plan(*args, "-o", "json", cwd=case).json()
    secret = next(c for c in doc["changes"] if c["resource"]["kind"] == "Secret")
    assert secret["desired"]["data"]["token"] == {"sensitive": True, "length": 12, "token": 1}
    shown = run_plan(*args, "-o", "json", "--show-secrets", cwd=case).json()
    secret = next(c for c in shown["changes"] if c["resource"]["kind"] == "Secret")
    assert secret["desired"]["data"]["token"] == "czNjcjN0LXZhbHVl"  # base64 of s3cr3t-value
