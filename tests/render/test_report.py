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


def _section(out: str, title: str) -> list[str]:
    """The lines under a heading of the text plan, up to the next heading at its depth or above."""
    lines = out.splitlines()
    start = next(n for n, line in enumerate(lines) if line.strip() == title)
    depth = len(lines[start]) - len(lines[start].lstrip())
    body = []
    for line in lines[start + 1:]:
        if not line.strip() or len(line) - len(line.lstrip()) <= depth:
            break
        body.append(line)
    return body


def test_a_phase_of_the_action_lists_only_the_hooks_that_run_in_it() -> None:
    # Issue 45 point 8: a post-install Job and a `helm test` Pod do not run on an upgrade, so they
    # sit under what this upgrade does not run, never under the upgrade's own phases.
    from builders import plan as make
    from deployah_plan.render import markdown
    out = text.render(make(_hooks("1"), _hooks("2")))
    tasks = out.split("Tasks (Helm hooks and CronJobs), in the order Helm runs them:", 1)[1]
    assert "After the upgrade" not in tasks
    before = _section(out, "Before the upgrade (pre-upgrade hooks):")
    assert [line.split()[1] for line in before if line.startswith("    ~")] == ["Job"] and "shop-migrate" in before[0]
    aside = "\n".join(_section(out, "Not run by this upgrade (hooks of other events):"))
    assert "Job shop/shop-first  weight 0  will not run on upgrade (events: post-install)" in aside
    assert "Pod shop/shop-ui-test  weight 0  runs only under helm test" in aside
    comment = markdown.render(make(_hooks("1"), _hooks("2")))
    assert "After the upgrade" not in comment
    assert comment.index("**Not run by this upgrade (hooks of other events):**") < comment.index("shop-first")
    # On an install, the post-install Job runs after it, and the pre-upgrade Job does not run.
    install = text.render(make(None, _hooks("2")))
    assert "shop-first" in "\n".join(_section(install, "After the install (post-install hooks):"))
    assert "shop-migrate" in "\n".join(_section(install, "Not run by this install (hooks of other events):"))


_SCALED = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec: {{containers: [{{name: web, image: "web:{version}"}}]}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {{name: web}}
spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}
  minReplicas: 2
  maxReplicas: 6
"""


def test_what_matters_says_every_warning_and_risk_and_the_head_counts_each_once() -> None:
    # Issue 45 point 10: a replica count an HPA scales (an impact marked `!`) and warnings that
    # ask the reviewer to act are said in what matters, grouped; the comment's table counts every
    # `!` below it (a predicted failure apart, under its own column).
    from builders import plan as make
    from deployah_plan.build import build_plan
    from deployah_plan.facts import CrdNotUpgraded, Immutable, LookupOffline, Field
    from deployah_plan.model import Plan, ResourceRef, Warning, warn
    from deployah_plan.render import markdown
    p = make(_SCALED.format(version=1).split("---\n"), _SCALED.format(version=2).split("---\n"))
    assert [i.kind.value for i in p.impact if i.kind.sign == "!"] == ["replicas-reset"]
    web = ResourceRef("apps/v1", "Deployment", "shop", "web")
    crds = [warn(CrdNotUpgraded(name=f"c{n}.example.com", source=f"app/crds/c{n}.yaml")) for n in range(10)]
    front = ResourceRef("v1", "Service", "shop", "front")

    def with_warnings(*warnings: Warning) -> Plan:
        return build_plan(p.header, p.helm_action, p.changes, p.tasks, p.chart_crds, warnings, live=p.live,
                          impact=p.impact)

    immutable = Immutable(fields=(Field("/spec/selector"),))
    p = with_warnings(*crds, warn(LookupOffline(chart="app"), web), warn(immutable, front))
    out = text.render(p)
    head = "\n".join(_section(out, "What matters (the details follow):"))
    assert head.splitlines()[0].startswith("  X Service shop/front: this upgrade will fail")
    assert ("  ! 10 chart CRDs changed in the chart, but Helm never upgrades the chart's crds/: apply them yourself "
            "(kubectl apply -f) before this upgrade if the new chart needs them: c0.example.com, c1.example.com, "
            "c2.example.com, c3.example.com, c4.example.com, c5.example.com, c6.example.com, c7.example.com and 2 more"
            ) in head
    assert "  ! chart app calls `lookup`" in head
    assert "  ! replicas-reset: HPA-scaled replica count set by the chart: Deployment shop/web" in head
    comment = markdown.render(p)
    table = [line.strip("|").split("|") for line in comment.splitlines() if line.startswith("|")]
    values = {h.strip(): v.strip() for h, v in zip(table[0], table[2])}
    # 10 CRD warnings and lookup-offline (the immutable field is the one predicted failure), and the reset.
    assert values["Warnings"] == "12" and values["Predicted failures"] == "**1**"
    matters = comment.split("#### What matters", 1)[1].split("####", 1)[0]
    assert matters.count("⚠️") == 4 and matters.count("⛔") == 2  # three lines and the legend; one line and the legend
    # A risk to an object already said to fail is left out: the upgrade fails first.
    failing = text.render(with_warnings(warn(immutable, web)))
    assert "replicas-reset" not in "\n".join(_section(failing, "What matters (the details follow):"))


def test_the_text_plan_says_what_the_signs_it_shows_mean_once_under_its_header() -> None:
    from builders import plan as make
    out = text.render(make(_SCALED.format(version=1).split("---\n"), _SCALED.format(version=2).split("---\n")))
    lines = out.splitlines()
    legend = [line for line in lines if line.startswith("  signs: ")]
    assert legend == ["  signs: ~ update/change/restart, ! warning/risk, ? not checked"]
    assert lines.index(legend[0]) < lines.index("What matters (the details follow):")
    # The signs that start its lines are those the legend names, no more.
    shown = {line.split()[0] for line in lines if line.startswith("  ") and len(line.split()[0]) == 1}
    assert shown == {"~", "!", "?"}
