"""A selector's change is never folded into the common changes (issue 45 point 2): two Services
whose selector names the chart label would otherwise be "common changes on 2 resources", and a
reviewer would not see which Services lose their running pods."""
from __future__ import annotations

from builders import plan
from deployah_plan.render import text
from deployah_plan.render.report import Report

SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: {name}
  labels:
    helm.sh/chart: gw-1.0.0
spec:
  selector:
    app.kubernetes.io/name: gw
    helm.sh/chart: gw-1.0.0
  ports:
  - port: {port}
"""
PDB = """\
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: gw
  labels:
    helm.sh/chart: gw-1.0.0
spec:
  minAvailable: 1
  selector:
    matchLabels:
      helm.sh/chart: gw-1.0.0
"""


def test_selector_changes_are_named_under_each_object() -> None:
    before = [SERVICE.format(name="gw-metrics", port=10255), SERVICE.format(name="gw-webhook", port=443), PDB]
    p = plan(before, [d.replace("gw-1.0.0", "gw-1.0.1") for d in before])
    report = Report.of(p)
    # The label on the objects themselves is still one common change.
    assert [c.change.path for c in report.common] == ["/metadata/labels/helm.sh~1chart"]
    assert len(report.common[0].resources) == 3
    own = {item.change.resource.name + " " + item.change.resource.kind: [f.path for f in item.own]
           for item in report.objects}
    assert own == {"gw-metrics Service": ["/spec/selector/helm.sh~1chart"],
                   "gw-webhook Service": ["/spec/selector/helm.sh~1chart"],
                   "gw PodDisruptionBudget": ["/spec/selector/matchLabels/helm.sh~1chart"]}
    out = text.render(p)
    assert "Common changes on 3 resources" in out
    assert out.count('spec.selector["helm.sh/chart"]: "gw-1.0.0" -> "gw-1.0.1"') == 2, out
    assert out.count('spec.selector.matchLabels["helm.sh/chart"]: "gw-1.0.0" -> "gw-1.0.1"') == 1, out
