"""The plan as GitLab's merge-request Terraform report: `{"create": N, "update": N, "delete": N}`.

GitLab reads this shape from a job artifact declared as `artifacts: reports: terraform:` and
shows the three counts in the merge-request widget (GitLab's "Terraform integration in merge
requests"; it reads only these keys). The counts are the plan's summary: `delete` counts what
Helm deletes, not what it retains (left in the cluster), and ignored changes count nowhere.
"""
from __future__ import annotations

import json

from deployah_plan.model import Plan
from deployah_plan.render.options import WriteOptions


def render(plan: Plan, options: WriteOptions = WriteOptions()) -> str:
    summary = plan.summary
    return json.dumps({"create": summary.create, "update": summary.update, "delete": summary.delete}) + "\n"
