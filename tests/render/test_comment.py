"""The pull-request comment (-o markdown) and the annotations (-o github) of plans the pure core
makes: warnings said once per fact, the first screen, one shape for the resource list, and
GitHub's limit of annotations per level."""
from __future__ import annotations

import re

from builders import plan
from deployah_plan.codes import Code
from deployah_plan.facts import DataLoss, Field, Immutable, KubeVersionAssumed, LookupOffline, Loss
from deployah_plan.model import Plan, ResourceRef, warn
from deployah_plan.render import findings, markdown
from deployah_plan.render.words import warning as warning_words
from msgspec.structs import replace

CRD = """# Source: app/crds/{name}.yaml
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: {name}.example.com}}
spec:
  group: example.com
  names: {{kind: K{name}, plural: {name}}}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: {{type: object, properties: {{{field}: {{type: string}}}}}}
"""
CONFIG = "# Source: app/templates/{name}.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}}}\ndata: {{a: '{value}'}}\n"
LABELLED = ("# Source: app/templates/{name}.yaml\napiVersion: v1\nkind: ConfigMap\n"
            "metadata: {{name: {name}, labels: {{chart: app-{value}}}}}\n")


def _crds(count: int, field: str) -> list[str]:
    return [CRD.format(name=f"c{i:02d}", field=field) for i in range(count)]


def _twenty_one_changed_crds() -> Plan:
    """Like traefik 37 -> 41: 21 of the chart's 25 CRDs changed, 4 did not."""
    unchanged = [CRD.format(name=f"u{i}", field="size") for i in range(4)]
    return plan([*_crds(21, "size"), *unchanged, CONFIG.format(name="web", value=1)],
                [*_crds(21, "colour"), *unchanged, CONFIG.format(name="web", value=2)])


def test_21_changed_chart_crds_are_one_grouped_warning_and_the_crd_section_does_not_repeat_it() -> None:
    p = _twenty_one_changed_crds()
    assert sum(w.code is Code.CRD_NOT_UPGRADED for w in p.warnings) == 21
    out = markdown.render(p)
    # Said first in what matters (it asks the reviewer to act), naming the first 8; every one of
    # the 21 is named among the warnings, under the same line.
    assert out.count("Helm never upgrades the chart's crds/") == 2
    head = out.split("#### What matters", 1)[1].split("####", 1)[0]
    assert ("- ⚠️ 21 chart CRDs changed in the chart, but Helm never upgrades the chart's crds/: apply them yourself "
            "(kubectl apply -f) before this upgrade if the new chart needs them: c00.example.com, ") in head
    assert head.count(".example.com") == 8 and "and 13 more" in head
    (line,) = [line for line in out.split("#### Warnings", 1)[1].splitlines()
               if "Helm never upgrades the chart's crds/" in line]
    assert line.startswith("- ⚠️ 21 chart CRDs changed in the chart") and "apply them yourself" in line
    # The 21 CRDs are folded under it, each named once there.
    # One line of HTML, with no blank line to make the list loose on GitHub.
    folded = out.split("#### Warnings", 1)[1].split(line, 1)[1].split("\n", 2)[1]
    assert folded.startswith("  <details><summary>the 21 chart CRDs</summary><ul><li>") and folded.endswith("</ul></details>")
    assert re.findall(r"<li>(c\d\d)\.example\.com \(app/crds/c\d\d\.yaml\)</li>", folded) == [
        f"c{i:02d}" for i in range(21)]
    # The CRD section says what Helm does with them once, and what changed in each; the advice is
    # the warning's alone.
    crds = out.split("#### Chart CRDs (crds/)", 1)[1]
    assert crds.count("not processed: Helm never upgrades or deletes chart CRDs") == 1
    assert "apply it yourself" not in out and "CHANGED" not in out
    assert crds.count(": changed in the chart (v1: new field spec.colour (string); v1: field spec.size removed") == 21
    assert "- the other 4 CRDs unchanged: u0.example.com, u1.example.com, u2.example.com, u3.example.com" in crds


def test_warnings_differing_only_by_their_object_group_by_facts_not_text() -> None:
    web, db = (ResourceRef("", "PersistentVolumeClaim", "shop", n) for n in ("web", "db"))
    volume, namespace = DataLoss(loses=Loss.VOLUME), DataLoss(loses=Loss.NAMESPACE_OBJECTS)
    groups = warning_words.grouped([warn(volume, web), warn(namespace, db), warn(volume, db)])
    assert [[str(w.resource) for w in g] for g in groups] == [
        ["PersistentVolumeClaim shop/web", "PersistentVolumeClaim shop/db"], ["PersistentVolumeClaim shop/db"]]
    assert warning_words.group_message(groups[0]) == (
        "each of 2 objects is deleted: its volume, and the data on it, goes too when the reclaim policy is Delete")
    assert warning_words.group_message(groups[1]) == warning_words.message(groups[1][0])


def test_the_first_screen_is_the_summary_what_matters_and_the_impact_then_the_warnings() -> None:
    p = _twenty_one_changed_crds()
    out = markdown.render(p)
    order = [out.index(t) for t in ("**Plan:", "#### Warnings", "#### Resources", "#### Chart CRDs")]
    assert order == sorted(order)
    deploy = ["apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n"
              "  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n"
              f"    spec: {{containers: [{{name: web, image: 'web:{v}'}}]}}\n" for v in (1, 2)]
    out = markdown.render(plan([deploy[0], *_crds(9, "size")], [deploy[1], *_crds(9, "colour")]))
    assert out.index("#### What matters") < out.index("#### What the deploy does") < out.index("#### Warnings")


def test_a_failure_what_matters_says_is_not_said_again_among_the_warnings() -> None:
    gone = "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec: {resources: {requests: {storage: 1Gi}}}\n"
    out = markdown.render(plan([gone, CONFIG.format(name="web", value=1)], [CONFIG.format(name="web", value=1)]))
    head, rest = out.split("#### Resources", 1)
    assert out.count("PersistentVolumeClaim shop/data is deleted: its volume") == 1
    assert "PersistentVolumeClaim shop/data is deleted" in head.split("#### What matters", 1)[1].split("####", 1)[0]
    # Under the object, a pointer to where it is said.
    assert "⚠️ *data-loss: said in what matters, above*" in rest


def test_a_warning_about_an_object_is_said_among_the_warnings_and_pointed_to_from_the_object() -> None:
    p = _twenty_one_changed_crds()
    web = next(c.resource for c in p.changes if c.resource.name == "web")
    p = replace(p, warnings=(*p.warnings, warn(LookupOffline(chart="app"), web)))
    out = markdown.render(p)
    assert out.count("chart app calls \\`lookup\\`") == 1
    assert "chart app calls \\`lookup\\`" in out.split("#### What matters", 1)[1].split("####", 1)[0]
    assert "⚠️ *lookup-offline: said in what matters, above*" in out.split("#### Resources", 1)[1]


def test_every_entry_of_the_resource_list_has_one_shape() -> None:
    """An object with only common changes, one with its own changes and a delete are all
    <details> at the left margin: no plain bullet among them renders jagged on GitHub."""
    previous = [LABELLED.format(name=n, value=1) for n in ("a", "b")] + [CONFIG.format(name="c", value=1)]
    desired = [LABELLED.format(name=n, value=2) for n in ("a", "b")]
    desired[1] = desired[1].replace("metadata:", "data: {x: y}\nmetadata:")
    out = markdown.render(plan(previous, desired))
    section = out.split("#### Resources, in the order Helm applies them\n\n", 1)[1].split("\n#### ", 1)[0]
    entries = [block for block in section.strip().split("\n\n") if not block.startswith(("Source", "```", "*", "-", "+", "~"))
               and block.strip() != "</details>" and not block.startswith(" ")]
    assert len(entries) == 3 and all(e.startswith("<details><summary><code>") for e in entries), entries
    assert not re.search(r"^- `", section, re.M)
    # Only common changes, said above: an entry with nothing to open.
    assert "<details><summary><code>~ update</code> ConfigMap shop/a (only 1 common change)</summary></details>" in entries


def _warnings_plan(failures: int, losses: int, warnings: int, notes: int) -> Plan:
    """A plan carrying the given numbers of predicted failures, data losses, warnings and
    notes, in the worst order (notes first)."""
    base = plan([CONFIG.format(name="web", value=1)], [CONFIG.format(name="web", value=2)])
    ref = base.changes[0].resource

    def obj(n: int) -> ResourceRef:
        return replace(ref, name=f"o{n:02d}")
    made = [warn(KubeVersionAssumed(kube_version=f"1.{n}"), None) for n in range(notes)]
    made += [warn(LookupOffline(chart=f"chart{n:02d}"), None) for n in range(warnings)]
    made += [warn(DataLoss(loses=list(Loss)[n % 3]), obj(n)) for n in range(losses)]  # 3 kinds: not grouped
    made += [warn(Immutable(fields=(Field(path=f"/data/k{n}"),)), obj(n)) for n in range(failures)]
    return replace(base, warnings=tuple(made))


def _annotations(out: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in re.finditer(r"^::(\w+) [^:]*?title=[^:]*?::(.*)$", out, re.M)]


def test_github_annotates_the_most_important_first_and_says_how_many_it_left_out() -> None:
    p = _warnings_plan(failures=12, losses=3, warnings=14, notes=2)
    out = findings.render_github(p)
    lines = out.splitlines()
    assert lines[0].startswith("::notice title=helm plan%3A shop (annotations)::")
    assert ("9 of 31 findings not annotated (2 predicted failures, 7 warnings): GitHub shows at most 10 "
            "annotations of each level per step") in lines[0]
    levels = [line.split(" ", 1)[0] for line in lines[1:]]
    assert levels == ["::error"] * 10 + ["::warning"] * 10 + ["::notice"] * 2
    # The data losses are the first warnings; the other warnings come after them.
    assert all(" is deleted: " in m for _, m in _annotations(out)[11:14])
    assert not any(" is deleted: " in m for _, m in _annotations(out)[14:])
    assert findings.ANNOTATIONS == 10


def test_github_writes_no_summary_when_every_finding_is_annotated() -> None:
    out = findings.render_github(_warnings_plan(failures=1, losses=1, warnings=2, notes=10))
    assert "(annotations)" not in out and len(out.splitlines()) == 14


def test_github_annotates_21_changed_chart_crds_once() -> None:
    out = findings.render_github(_twenty_one_changed_crds())
    (line,) = [line for line in out.splitlines() if "(crd-not-upgraded)" in line]
    assert line.startswith("::warning title=helm plan%3A shop (crd-not-upgraded)::21 chart CRDs changed")
    assert all(f"c{i:02d}.example.com (app/crds/c{i:02d}.yaml)" in line for i in range(21))


def test_the_objects_folded_under_a_grouped_warning_are_escaped() -> None:
    """The folded list is HTML: a name's markup, mention or newline stays text."""
    p = _twenty_one_changed_crds()
    names = ("a</details><img src=x>", "@team\nb", *(f"c{n}" for n in range(7)))  # more than what matters names
    refs = [ResourceRef("", "PersistentVolumeClaim", "shop", n) for n in names]
    p = replace(p, warnings=tuple(warn(LookupOffline(chart="app"), r) for r in refs))
    out = markdown.render(p)
    (folded,) = [line for line in out.splitlines() if line.startswith("  <details><summary>the 9 objects")]
    assert "<li>PersistentVolumeClaim shop/a&lt;/details&gt;&lt;img src=x&gt;</li>" in folded
    assert "<li>PersistentVolumeClaim shop/&#64;team b</li>" in folded
    # What matters names them as markdown text.
    head = out.split("#### What matters", 1)[1].split("####", 1)[0]
    assert "PersistentVolumeClaim shop/a\\</details\\>\\<img src=x\\>, PersistentVolumeClaim shop/&#64;team b," in head


def test_crds_new_on_upgrade_are_one_grouped_warning_and_the_crd_section_calls_them_new() -> None:
    resource = "# Source: app/templates/k.yaml\napiVersion: example.com/v1\nkind: Kc00\nmetadata: {name: one}\n"
    p = plan([CONFIG.format(name="web", value=1)], [*_crds(3, "size"), resource, CONFIG.format(name="web", value=2)])
    assert sum(w.code is Code.CRD_NOT_CREATED for w in p.warnings) == 3
    out = markdown.render(p)
    # In what matters, which names all three: not said again among the warnings.
    (line,) = [line for line in out.splitlines() if "creates crds/ only on install" in line]
    assert line == ("- ⚠️ 3 chart CRDs are new in the chart, and Helm creates crds/ only on install: this upgrade does "
                    "not create them, so the chart's 1 custom resource of their kinds fail unless the cluster already "
                    "has them; apply them yourself (kubectl apply -f) before this upgrade if the new chart needs them: "
                    "c00.example.com, c01.example.com, c02.example.com")
    assert line in out.split("#### What matters", 1)[1].split("####", 1)[0]
    crds = out.split("#### Chart CRDs (crds/)", 1)[1]
    assert "unchanged" not in crds
    assert crds.count(": new in the chart") == 3
    assert "3 new chart CRDs that Helm will not apply (see the warnings)." in out


def test_the_text_plan_groups_warnings_as_the_comment_does() -> None:
    from deployah_plan.render import text
    out = text.render(_twenty_one_changed_crds())
    # Said in what matters (naming 8) and among the warnings (naming each).
    assert out.count("Helm never upgrades the chart's crds/: apply") == 2
    lines = out.splitlines()
    (n,) = [i for i, line in enumerate(lines) if "21 chart CRDs changed in the chart" in line and "and 13 more" not in line]
    assert lines[n].startswith("  ! 21 chart CRDs changed in the chart, but Helm never upgrades the chart's crds/")
    assert lines[n + 1:n + 22] == [f"      c{i:02d}.example.com (app/crds/c{i:02d}.yaml)" for i in range(21)]
    # A warning alone keeps its own line.
    single = text.render(plan([CONFIG.format(name="web", value=1), *_crds(1, "size")],
                              [CONFIG.format(name="web", value=2), *_crds(1, "colour")]))
    assert "  ! chart CRD c00.example.com (app/crds/c00.yaml) changed in the chart" in single
