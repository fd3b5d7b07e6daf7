"""The plan as GitLab's merge-request Terraform report: `{"create": N, "update": N, "delete": N}`.

GitLab reads this shape from a job artifact declared as `artifacts: reports: terraform:` and
shows the three counts in the merge-request widget (GitLab's "Terraform integration in merge
requests"; it reads only these keys). The counts are the plan's summary: `delete` counts what
Helm deletes, not what it retains (left in the cluster), an object Helm adopts counts as an
update of the live one (it is not created), and ignored changes count nowhere.
GitLab requires the three keys and ignores others, so the artifact also carries `impact`: how
many of each kind of impact on running things the plan has (core/impact/), and its one line.
"""
from __future__ import annotations

import json

from deployah_plan.model import Plan
from deployah_plan.render.options import WriteOptions
from deployah_plan.render.report import Report


def render(plan: Plan, options: WriteOptions = WriteOptions()) -> str:
    report = Report.of(plan, fold=False)
    summary = plan.summary
    out: dict[str, object] = {"create": summary.create - summary.adopted, "update": summary.update + summary.adopted,
                              "delete": summary.delete}
    if plan.impact:
        counts: dict[str, int] = {}
        for item in plan.impact:
            counts[item.kind.value] = counts.get(item.kind.value, 0) + 1
        out["impact"] = {"counts": counts, "summary": report.impact_line}
    return json.dumps(out) + "\n"
