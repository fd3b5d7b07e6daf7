"""The report the writers share: common changes folded, values cut around what differs, and
the chart-label-bump upgrade measured side by side (folded against unfolded, from one plan).

The fixture (tests/cases/chart-label-bump) is an ingress-nginx-like chart going from 4.10.0 to
4.12.0: 13 resources and 7 hooks carry the same two label bumps (`helm.sh/chart`,
`app.kubernetes.io/version`; the Deployment and the hook Jobs in their pod template too), and
five changes are real: a removed config key, an added flag, an image digest, a webhook port,
a runAsGroup.
"""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from conftest import ROOT, run_plan
from deployah_plan import saved
from deployah_plan.render import markdown, text
from deployah_plan.render.options import WriteOptions
from deployah_plan.render.words import MAX_VALUE, shorten_pair

CASE = ROOT / "tests" / "cases" / "chart-label-bump"
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
# same; JSON 1.2, then 1.3), with ARGS: the text plan was 96 lines, 46 of them the two label
# bumps, and the markdown comment 11,163 characters
# (`git archive 2806dc2 | tar -x -C /tmp/old; PYTHONPATH=/tmp/old python -m deployah_plan ...`);
# format-1.3.json is what 2806dc2 printed with -o json.
MAIN_TEXT_LINES = 96
MAIN_MARKDOWN_CHARS = 11_163
LABEL_LINES = 46


def _out(output: str) -> str:
    result = run_plan(*ARGS, "-o", output, cwd=CASE)
    assert result.code == 0, result.err
    return result.out


def test_text_folds_the_label_bumps_and_is_half_as_long() -> None:
    folded = _out("text")
    plan = saved.load(_out("json"), "plan.json")
    unfolded = text.render(plan, WriteOptions(fold=False))
    assert text.render(plan) == folded  # the same plan, the same writer: only folding differs
    # The impact section (a rollout of the controller) came later and is not part of the measure.
    assert "Impact: 1 workload restarts (1 pod)." in folded
    assert len(text.render(replace(plan, impact=())).splitlines()) * 2 <= MAIN_TEXT_LINES
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


def test_markdown_folds_and_is_half_as_long() -> None:
    folded = _out("markdown")
    plan = saved.load(_out("json"), "plan.json")
    unfolded = markdown.render(plan, WriteOptions(fold=False))
    assert markdown.render(plan) == folded
    assert len(markdown.render(replace(plan, impact=()))) * 2 <= MAIN_MARKDOWN_CHARS  # the impact section came later
    assert len(folded) * 2 <= len(unfolded)
    assert folded.count('metadata.labels["helm.sh/chart"]') == 2  # one - line and one + line
    assert "- `~ update` IngressClass/nginx (only 2 common changes)\n" in folded
    for change in ["- data.enable-real-ip", "+     [9]: \"--enable-metrics=true\"",
                   "- webhooks[name=validate.nginx.ingress.kubernetes.io].clientConfig.service.port: 443",
                   "+ webhooks[name=validate.nginx.ingress.kubernetes.io].clientConfig.service.port: 8443",
                   "+ spec.template.spec.containers[name=create].securityContext.runAsGroup: 65532"]:
        assert change in folded


# Keys added since 1.3: 1.4's common changes and their marks; 1.5's summary counts of drift set back and
# of updates made only of values the chart regenerates, and 1.5's `impact`.
ADDED_SINCE_1_3 = ("common_changes", "common", "drift_reverted", "regenerated", "impact")


def _without_additions(doc: Any) -> Any:
    """A newer document as 1.3 wrote it: without the keys added since (ADDED_SINCE_1_3)."""
    if isinstance(doc, dict):
        return {k: _without_additions(v) for k, v in doc.items() if k not in ADDED_SINCE_1_3}
    if isinstance(doc, list):
        return [_without_additions(v) for v in doc]
    return doc


def test_json_keeps_every_field_change_and_only_adds_the_grouping() -> None:
    doc = json.loads(_out("json"))
    old = json.loads((CASE / "format-1.3.json").read_text())  # written by 2806dc2, format 1.3
    assert doc["format_version"] == "1.5"
    assert _without_additions(doc) == {**old, "format_version": "1.5"}
    common = doc["common_changes"]
    assert [(c["path"], c["before"], c["after"], len(c["changes"]), len(c["tasks"])) for c in common] == [
        ("/metadata/labels/helm.sh~1chart", "ingress-nginx-4.10.0", "ingress-nginx-4.12.0", 13, 7),
        ("/metadata/labels/app.kubernetes.io~1version", "1.10.0", "1.12.0", 13, 7),
    ]
    assert common[0]["at"] == ["/metadata/labels/helm.sh~1chart", "/spec/template/metadata/labels/helm.sh~1chart"]
    for n, item in enumerate(common):  # the objects it names carry it, marked with its index
        assert all(any(f.get("common") == n for f in doc["changes"][i]["fields"]) for i in item["changes"])
        assert all(any(f.get("common") == n for d in doc["tasks"][i]["definitions"] for f in d["fields"])
                   for i in item["tasks"])
    deployment = next(c for c in doc["changes"] if c["resource"]["kind"] == "Deployment")
    assert [f.get("common") for f in deployment["fields"]] == [0, 1, 0, 1, None, None]


def test_a_long_value_is_cut_around_what_differs() -> None:
    digest = "sha256:" + "1" * 56
    before = json.dumps(f"registry.example.com/team/app:v1.2.3@{digest}aaaaaaaa")
    after = json.dumps(f"registry.example.com/team/app:v1.2.3@{digest}bbbbbbbb")
    short_before, short_after = shorten_pair(before, after)
    assert short_before != short_after
    assert short_before.endswith('aaaaaaaa"') and short_after.endswith('bbbbbbbb"')
    assert short_before.startswith('"registry.example.com') and "…" in short_before
    assert len(short_before) <= MAX_VALUE and len(short_after) <= MAX_VALUE
    # A difference at the start keeps the start; a long different middle still shows where it starts.
    a, b = "x" * 100 + "A" + "y" * 200, "x" * 100 + "B" + "z" * 200
    sa, sb = shorten_pair(a, b)
    assert "A" in sa and "B" in sb and len(sa) <= MAX_VALUE and len(sb) <= MAX_VALUE
    # Short values are left whole.
    assert shorten_pair('"app:1"', '"app:2"') == ('"app:1"', '"app:2"')


def test_values_cut_the_same_way_in_text_and_markdown(tmp_path: Path) -> None:
    long = "registry.example.com/team/app:v1.2.3@sha256:" + "1" * 56
    for name, tail in (("p.yaml", "aaaa"), ("d.yaml", "bbbb")):
        (tmp_path / name).write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: a}}\ndata: {{image: \"{long}{tail}\"}}\n")
    for output in ("text", "markdown"):
        out = run_plan("diff", "p.yaml", "d.yaml", "-o", output, cwd=tmp_path).out
        assert '1111aaaa"' in out and '1111bbbb"' in out, output
