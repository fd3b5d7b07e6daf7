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
from typing import Any

import yaml

from conftest import ROOT
from deployah_plan.render import text
from deployah_plan.render.words.value import CONTEXT, LONG_VALUE, shorten, shorten_pair

CASE = ROOT / "tests" / "cases" / "chart-label-bump"


def _objects(name: str) -> dict[tuple[str, str], dict[str, Any]]:
    """The case's objects by (kind, name), parsed with PyYAML (the case has no YAML 1.1 traps)."""
    docs = yaml.safe_load_all((CASE / name).read_text())
    return {(d["kind"], d["metadata"]["name"]): d for d in docs if d}


PREVIOUS, DESIRED = _objects("previous.yaml"), _objects("desired.yaml")


def _label(obj: dict[str, Any], *path: str) -> Any:
    for key in path:
        obj = obj.get(key) or {}
    return obj


def _bumped() -> tuple[list[tuple[str, str]], list[tuple[str, str]], int]:
    """Resources and hooks whose helm.sh/chart label changes, and how many pod templates too."""
    names = [k for k in DESIRED if k in PREVIOUS
             and _label(PREVIOUS[k], "metadata", "labels").get("helm.sh/chart")
             != _label(DESIRED[k], "metadata", "labels").get("helm.sh/chart")]
    hooks = [k for k in names if "helm.sh/hook" in _label(DESIRED[k], "metadata", "annotations")]
    templates = sum(1 for k in names if _label(PREVIOUS[k], "spec", "template", "metadata", "labels").get("helm.sh/chart")
                    != _label(DESIRED[k], "spec", "template", "metadata", "labels").get("helm.sh/chart"))
    return [k for k in names if k not in hooks], hooks, templates


RESOURCES, HOOKS, TEMPLATES = _bumped()
LABEL_LINES = 2 * (len(RESOURCES) + len(HOOKS) + TEMPLATES)  # two labels, under each object and pod template


def test_the_case_is_what_the_tests_below_assume() -> None:
    assert (len(RESOURCES), len(HOOKS), TEMPLATES) == (13, 7, 3)
    assert LABEL_LINES == 46


_ELIDED = re.compile(r"…\(([0-9,]+) (?:characters elided\)…|more characters\))")


def _accounted(shown: str) -> int:
    """How many characters of the value a shortened form stands for: those shown, and those
    each elision note counts."""
    counts = [int(n.replace(",", "")) for n in _ELIDED.findall(shown)]
    return len(_ELIDED.sub("", shown)) + sum(counts)


def test_a_value_a_person_can_read_is_shown_whole() -> None:
    annotation = json.dumps("x" * 180 + " the end")  # a 200-character annotation
    assert shorten(annotation) == annotation
    assert shorten_pair(annotation, annotation[:-2] + '!"') == (annotation, annotation[:-2] + '!"')
    assert len(annotation) < LONG_VALUE


def test_a_long_value_is_cut_around_what_differs_and_says_how_much() -> None:
    digest = "sha256:" + "1" * 56
    before = json.dumps(f"registry.example.com/team/app:v1.2.3@{digest}" + "z" * 3000 + "aaaaaaaa")
    after = json.dumps(f"registry.example.com/team/app:v1.2.3@{digest}" + "z" * 3000 + "bbbbbbbb")
    short_before, short_after = shorten_pair(before, after)
    assert short_before.endswith('aaaaaaaa"') and short_after.endswith('bbbbbbbb"')
    assert short_before.startswith('"registry.example.com') and "characters elided)…" in short_before
    assert _accounted(short_before) == len(before) and _accounted(short_after) == len(after)
    assert len(_ELIDED.sub("", short_before)) <= LONG_VALUE + 2 * CONTEXT
    # A difference at the start keeps the start; a long different middle still shows where it starts.
    a, b = "x" * 100 + "A" + "y" * 5000, "x" * 100 + "B" + "z" * 5000
    sa, sb = shorten_pair(a, b)
    assert "A" in sa and "B" in sb and sa.endswith("more characters)")
    assert _accounted(sa) == len(a) and _accounted(sb) == len(b)
    # A lone long value: its start, and how much more there is.
    lone = shorten("q" * 4000)
    assert lone.startswith("q" * LONG_VALUE) and lone.endswith("…(3,000 more characters)")
    # --full-values: every value whole.
    assert shorten_pair(a, b, None) == (a, b) and shorten("q" * 4000, None) == "q" * 4000


def test_a_long_value_wraps_at_the_terminal_width_without_losing_a_character() -> None:
    value = "v" * 150
    line = f'      + metadata.annotations["a"]: "{value}"'
    lines = text.wrap(line, 60)
    assert all(len(x) <= 60 for x in lines) and len(lines) > 2
    assert "".join(x.strip() for x in lines).replace(" ", "") == line.replace(" ", "")


_HOOK = """\
apiVersion: {api}
kind: {kind}
metadata:
  name: shop-{name}
  annotations: {{"helm.sh/hook": {event}}}
spec:
{spec}"""
_POD_SPEC = "  containers: [{{name: {name}, image: {image}}}]\n  restartPolicy: Never\n"
_JOB_SPEC = "  template:\n    spec:\n      containers: [{{name: {name}, image: {image}}}]\n      restartPolicy: Never\n"


def _hooks(image: str) -> list[str]:
    return [_HOOK.format(api="v1", kind="Pod", name="ui-test", event="test", spec=_POD_SPEC.format(name="test", image=f"tester:{image}")),
            _HOOK.format(api="batch/v1", kind="Job", name="first", event="post-install",
                         spec=_JOB_SPEC.format(name="first", image=f"setup:{image}")),
            _HOOK.format(api="batch/v1", kind="Job", name="migrate", event="pre-upgrade",
                         spec=_JOB_SPEC.format(name="migrate", image=f"migrate:{image}"))]


def test_what_matters_names_only_the_images_of_hooks_this_action_runs() -> None:
    # A `helm test` Pod and a post-install Job change their image too, but an upgrade runs
    # neither: only the pre-upgrade Job's image is news.
    from builders import plan as make
    from deployah_plan.render.report import Report
    upgrade = make(_hooks("1"), _hooks("2"))
    images = [(h.before, h.after) for h in Report.of(upgrade).highlights if h.what.value == "image"]
    assert images == [("migrate:1", "migrate:2")]
    install = make(None, _hooks("2"))  # an install runs the post-install Job: its image is new
    images = [h.after for h in Report.of(install).highlights if h.what.value == "image"]
    assert images == ["setup:2"]
